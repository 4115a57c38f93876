"""response-schema: the reference implementation of the response-schema language (see SPEC.md)."""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from typing import Any

from .errors import ParseError, ResponseSchemaError, SchemaError
from .parser import Parser
from .schema import compile_schema

__version__ = "0.1.0"
SPEC_VERSION = "1"
# The optional features of conformance/features.json that this implementation supports.
FEATURES = frozenset(
    {
        "x-mapping",
        "gemma4-tool-call",
        "regex-lookaround",
        "regex-backreference",
        "regex-python-only",
        "unicode-classes",
        "python-numeric-syntax",
        "big-integers",
    }
    | ({"regex-atomic"} if sys.version_info >= (3, 11) else set())
)
__all__ = ["ParseError", "Parser", "ResponseSchemaError", "SchemaError", "compile", "parse"]

_CACHE_SIZE = 256
_cache: OrderedDict[str, Parser] = OrderedDict()
_cache_lock = threading.Lock()


def compile(schema: dict[str, Any]) -> Parser:
    """Validate ``schema`` and compile it once; raise SchemaError for any malformed schema."""
    return Parser(compile_schema(schema))


def parse(schema: dict[str, Any], text: str) -> Any:
    """``compile(schema).parse(text)``, reusing compiled schemas."""
    key = repr(schema)
    with _cache_lock:
        parser = _cache.get(key)
        if parser is not None:
            _cache.move_to_end(key)
    if parser is None:
        parser = compile(schema)
        with _cache_lock:
            _cache[key] = parser
            if len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return parser.parse(text)
