"""response-schema: the reference implementation of the response-schema language (see SPEC.md)."""

from __future__ import annotations

import functools
import marshal
import sys
from typing import Any

from . import schemas
from .configs import NoResponseSchema, schema_from
from .errors import ParseError, ResponseSchemaError, SchemaError
from .parser import Parser
from .tools import Tools, ToolsError

__version__ = "0.2.0"
SPEC_VERSION = "1.2"
# The optional features of conformance/features.json that this implementation supports.
FEATURES = frozenset(
    {
        "x-mapping",
        "gemma4-tool-call",
        "regex-lookaround",
        "regex-backreference",
        "regex-backreference-unset",
        "regex-capture-in-repeat",
        "regex-scoped-flags",
        "regex-verbose",
        "regex-python-only",
        "template-octal-escape",
        "json-number-kinds",
        "unicode-classes",
        "python-numeric-syntax",
        "big-integers",
        "integer-digit-limit",
        "typed-arguments",
    }
    | ({"regex-atomic"} if sys.version_info >= (3, 11) else set())
)
__all__ = [
    "NoResponseSchema",
    "ParseError",
    "Parser",
    "ResponseSchemaError",
    "SchemaError",
    "Tools",
    "ToolsError",
    "compile",
    "parse",
    "schema_from",
    "schemas",
]


def compile(schema: dict[str, Any]) -> Parser:
    """Validate ``schema`` and compile it once; raise SchemaError for any malformed schema."""
    return Parser(schema)


def parse(schema: dict[str, Any], text: str, prefix: str = "", tools: Any = None) -> Any:
    """``compile(schema).parse(text, prefix, tools)``, reusing the compiled schemas of the last 256 distinct schemas
    (``compiled``)."""
    return compiled(schema).parse(text, prefix, tools)


def compiled(schema: dict[str, Any]) -> Parser:
    """``compile(schema)``, or the parser compiled for an equal schema among the last 256 distinct ones.

    The cache key is the schema's ``marshal`` serialization: equal keys mean equal values of equal types
    (``1``, ``1.0`` and ``True`` differ), so a schema mutated after a call is never served a stale parser. A key
    equal to the last call's is served without hashing it (the common case: one schema, many outputs)."""
    global _last
    try:
        key = marshal.dumps(schema)
    except ValueError:  # not plain data (native objects, cycles): compile() says what is wrong with it
        return compile(schema)
    last = _last
    if last is not None and key == last[0]:
        return last[1]
    parser = _compiled(key)
    _last = (key, parser)
    return parser


_last: tuple[bytes, Parser] | None = None  # the last call's key and parser (one tuple: threads see a pair)


@functools.lru_cache(maxsize=256)
def _compiled(key: bytes) -> Parser:
    return compile(marshal.loads(key))
