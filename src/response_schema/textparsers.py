"""The built-in x-parser parsers of SPEC.md section 7: strict JSON ([JSON-*]) and gemma4-tool-call ([GEMMA-*])."""

from __future__ import annotations

import json
import math
import re
from json.encoder import encode_basestring_ascii
from typing import Any

MAX_JSON_DEPTH = 256  # [LIMIT-2]


class NotJSON(ValueError):
    """The text is not RFC 8259 JSON."""


class TooDeep(ValueError):
    """The JSON text nests deeper than MAX_JSON_DEPTH."""


def _reject_constant(name: str) -> Any:
    raise NotJSON(f"{name} is not a JSON number")  # [JSON-3]


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # [JSON-3]
        raise NotJSON(f"{text} is out of the range of a finite number")
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)
_SCAN = _DECODER.scan_once  # type: ignore[attr-defined]
_JSON_SPACE = re.compile(r"[ \t\n\r]*")  # [JSON-2]
_JSON_SPACES = " \t\n\r"


NOT_JSON: Any = object()  # what ``json_value`` gives for a text that is not JSON


def parse_json(text: str) -> Any:
    """Parse ``text`` as one JSON value with optional surrounding whitespace ([JSON-1], [JSON-2]). Depth is
    checked first, on the text, so a text too deep is json-too-deep whether or not it is valid ([LIMIT-2])."""
    value, error = _scanned(text)
    if value is NOT_JSON:
        raise NotJSON(error or _refusal(text))
    return value


def json_value(text: str) -> Any:
    """``parse_json`` without an exception for a text that is not JSON: NOT_JSON then. Where such a text is kept
    as it is ([ARGS-4]), it is the common case, and an exception costs several times the parse."""
    return _scanned(text)[0]


def _scanned(text: str) -> tuple[Any, str]:
    """The value of a JSON text and ""; or NOT_JSON and the error met inside the value ("" when no value starts
    the text, or more than whitespace follows it). What decode() does, without its Python wrapper. Errors are
    kept as their messages: an exception kept in a variable is a reference cycle through its traceback, which
    ``parse_many``'s paused collector would never free."""
    if too_deep(text, MAX_JSON_DEPTH):
        raise TooDeep(f"JSON nests deeper than {MAX_JSON_DEPTH} levels")
    try:
        start = _JSON_SPACE.match(text).end() if text[:1] in _JSON_SPACES else 0  # type: ignore[union-attr]
        value, end = _SCAN(text, start)
    except StopIteration:
        return NOT_JSON, ""
    except ValueError as exc:  # JSONDecodeError, NotJSON (a NaN, a number out of range), too many digits
        return NOT_JSON, str(exc)
    if end != len(text) and _JSON_SPACE.match(text, end).end() != len(text):  # type: ignore[union-attr]
        return NOT_JSON, ""  # [JSON-1] more than whitespace after the value
    return value, ""


def _refusal(text: str) -> str:
    """Why decode() refuses a text in which the scan found no value, or more than whitespace after one."""
    try:
        _DECODER.decode(text)
    except ValueError as exc:
        return str(exc)
    raise AssertionError("decode() read a text the scan refused")


def json_value_at(text: str, start: int) -> tuple[Any, int]:
    """The JSON value that begins at ``start`` of ``text`` (after whitespace) and where it ends, as [JSON-1] to
    [JSON-3] read it; NotJSON when there is none. What follows it is not read."""
    index = start
    while index < len(text) and text[index] in " \t\n\r":
        index += 1
    try:
        return _DECODER.raw_decode(text, index)
    except NotJSON:
        raise
    except ValueError as exc:
        raise NotJSON(str(exc)) from None


_BRACKETS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def too_deep(text: str, limit: int) -> bool:
    """Whether a JSON text nests deeper than ``limit``, read lexically ([LIMIT-2]): the most "[" and "{" open
    at once outside strings (a string runs from a '"' to the next unescaped '"', or to the end of the text),
    where "]" and "}" close one, never below zero. Valid or not, and whatever the platform's recursion limit."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _BRACKETS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return True
        elif token in "]}":
            depth = max(0, depth - 1)
    return False


_GEMMA_QUOTE = '<|"|>'
_GEMMA_BARE_KEY = re.compile(r"(?<=[{,])(\w+):")


def gemma4_to_json(text: str) -> str:
    """Rewrite Gemma 4 tool-call arguments as JSON text ([GEMMA-1], [GEMMA-2]): each <|"|>-quoted string
    becomes a JSON string, and outside those strings each bare key right after "{" or "," is quoted.

    The quotes pair up in order (no two occurrences of <|"|> overlap), so the text split at them alternates
    between outside and inside; a last quote without a partner is outside text, as it was."""
    pieces = text.split(_GEMMA_QUOTE)
    if len(pieces) % 2 == 0:  # an odd number of quotes: the last one opens no string
        pieces[-2:] = [pieces[-2] + _GEMMA_QUOTE + pieces[-1]]
    for index in range(0, len(pieces), 2):
        if ":" in pieces[index]:
            pieces[index] = _GEMMA_BARE_KEY.sub(r'"\1":', pieces[index])
    for index in range(1, len(pieces), 2):
        pieces[index] = encode_basestring_ascii(pieces[index])  # what json.dumps gives for a string
    return "".join(pieces)
