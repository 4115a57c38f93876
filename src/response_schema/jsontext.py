"""JSON as the tools read and write it: strict reading that names what is wrong, writing that never fails on a
value JSON can hold, and JSON's own equality."""

from __future__ import annotations

import json
import re
from typing import Any

from .textparsers import too_deep

MAX_DEPTH = 512  # files, reports and protocol answers may nest this deep; deeper is refused, whatever the platform


def json_equal(left: Any, right: Any) -> bool:
    """Equality as JSON means it: objects without key order, numbers by value, booleans never equal to
    numbers, null equal only to null. (Python's == says True == 1 and 1.0 == True.) Iterative: any depth.

    Numbers: two integers compare exactly; when either is a double, both compare as doubles (the integer
    rounded to the nearest double), so an implementation whose numbers are doubles may write -1.2345678901234568e20
    as -123456789012345680000 (PROTOCOL.md)."""
    stack = [(left, right)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, bool) or isinstance(b, bool):
            if not (isinstance(a, bool) and isinstance(b, bool) and a == b):
                return False
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
            if not _numbers_equal(a, b):
                return False
        elif isinstance(a, str) and isinstance(b, str):
            if a != b:
                return False
        elif a is None or b is None:
            if not (a is None and b is None):
                return False
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif isinstance(a, dict) and isinstance(b, dict):
            if a.keys() != b.keys():
                return False
            stack.extend((value, b[key]) for key, value in a.items())
        else:
            return False
    return True


def deeper_than(value: Any, limit: int) -> bool:
    """Whether a value nests more than ``limit`` arrays and objects deep. Iterative: any depth."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def _numbers_equal(a: int | float, b: int | float) -> bool:
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    try:
        return float(a) == float(b)
    except OverflowError:  # an integer beyond any double equals no double
        return False


class JSONTextError(ValueError):
    """The text is not strict JSON, or is JSON the tools refuse (a repeated key, too deep)."""


class Refused(JSONTextError):
    """Text that may well be JSON, but that the tools refuse: the message says why, not "not valid JSON"."""


class DuplicateKey(Refused):
    """An object in the JSON text repeats a key."""


class TooDeep(Refused):
    """Valid or not, the text nests deeper than MAX_DEPTH."""


class ByteOrderMark(Refused):
    """The text starts with U+FEFF."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKey(f"duplicate key {key!r}")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise JSONTextError(f"{name} is not JSON")


_STRICT = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant)


def load_strict(text: str) -> Any:
    """Parse RFC 8259 JSON, refusing a byte order mark, NaN/Infinity, repeated keys and nesting deeper than
    MAX_DEPTH. Every failure is a JSONTextError (a ValueError) whose message says which."""
    if text.startswith("\ufeff"):
        raise ByteOrderMark("starts with a byte order mark (U+FEFF): save it as UTF-8 without one")
    if too_deep(text, MAX_DEPTH):
        raise TooDeep(f"nests deeper than {MAX_DEPTH} levels")
    try:
        return _STRICT.decode(text)
    except JSONTextError:
        raise
    except ValueError as exc:
        raise JSONTextError(str(exc)) from None


_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(value: Any, indent: int | None = None) -> str:
    """JSON text that can always be written as UTF-8: non-ASCII characters as themselves, and a lone surrogate
    (which JSON allows as an escape, [JSONB-1]) as its \\uXXXX escape."""
    return printable(json.dumps(value, ensure_ascii=False, indent=indent))


def printable(text: str) -> str:
    """``text`` with lone surrogates escaped, for a terminal, a log or a file."""
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
