"""JSON's equality and a JSON reader that keeps what the text says, for the corpus and the protocol."""

from __future__ import annotations

import json
from typing import Any


def json_equal(left: Any, right: Any) -> bool:
    """Equality as JSON means it: objects without key order, numbers by value, booleans never equal to
    numbers, null equal only to null. (Python's == says True == 1 and 1.0 == True.)"""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    if left is None or right is None:
        return left is None and right is None
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(value, right[key]) for key, value in left.items())
    return False


class DuplicateKey(ValueError):
    """An object in the JSON text repeats a key."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKey(f"duplicate key {key!r}")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_STRICT = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant)


def load_strict(text: str) -> Any:
    """Parse RFC 8259 JSON, refusing NaN/Infinity and repeated keys (ValueError, RecursionError)."""
    return _STRICT.decode(text)


def dumps(value: Any) -> str:
    """Compact JSON text for reports and diffs."""
    return json.dumps(value, ensure_ascii=False, sort_keys=False)
