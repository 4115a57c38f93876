"""The built-in x-parser parsers of SPEC.md section 7: strict JSON ([JSON-*]) and gemma4-tool-call ([GEMMA-*])."""

from __future__ import annotations

import json
import math
import re
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


def parse_json(text: str) -> Any:
    """Parse ``text`` as one JSON value with optional surrounding whitespace ([JSON-1], [JSON-2])."""
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise TooDeep(f"JSON nests deeper than {MAX_JSON_DEPTH} levels") from None
    except NotJSON:
        raise
    except ValueError as exc:  # JSONDecodeError, and integers beyond Python's digit limit
        raise NotJSON(str(exc)) from None
    # Nesting needs an opening bracket a level, so short texts need no walk over the value.
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and _depth(value) > MAX_JSON_DEPTH:
        raise TooDeep(f"JSON nests deeper than {MAX_JSON_DEPTH} levels")
    return value


def _depth(value: Any) -> int:
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


_GEMMA_STRING = re.compile(r'<\|"\|>(.*?)<\|"\|>', re.DOTALL)
_GEMMA_BARE_KEY = re.compile(r"(?<=[{,])(\w+):")


def gemma4_to_json(text: str) -> str:
    """Rewrite Gemma 4 tool-call arguments as JSON text ([GEMMA-1], [GEMMA-2]): each <|"|>-quoted string
    becomes a JSON string, and outside those strings each bare key right after "{" or "," is quoted."""
    parts: list[str] = []
    position = 0
    for match in _GEMMA_STRING.finditer(text):
        parts.append(_GEMMA_BARE_KEY.sub(r'"\1":', text[position : match.start()]))
        parts.append(json.dumps(match.group(1)))
        position = match.end()
    parts.append(_GEMMA_BARE_KEY.sub(r'"\1":', text[position:]))
    return "".join(parts)
