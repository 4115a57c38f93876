"""transformers' own parser (5.0 to 5.14) as an implementation under test:

    response-schema conformance run --python response_schema.harness.transformers_adapter:parse

It calls the public ``transformers.utils.chat_parsing_utils.recursive_parse`` exactly as
``tokenizer.parse_response`` does (the whole output, unchanged). transformers raises plain Python exceptions,
so errors are not categorized. Its features depend on the installed version (SPEC.md section 12.1)."""

from __future__ import annotations

from typing import Any

import transformers
from transformers.utils.chat_parsing_utils import recursive_parse

import response_schema

__version__ = transformers.__version__
CATEGORIZES_ERRORS = False

_MAJOR_MINOR = tuple(int(part) for part in __version__.split(".")[:2])
_GENERATION_FEATURES = (
    {"x-mapping"} if _MAJOR_MINOR < (5, 4) else {"gemma4-tool-call"} if _MAJOR_MINOR >= (5, 5) else set()
)
# Both run on the same Python re, int() and json: only the features of the language generation differ.
# recursive_parse has no tools (typed-arguments: transformers 5.15+, transformers_tools_adapter).
FEATURES = (response_schema.FEATURES - {"x-mapping", "gemma4-tool-call", "typed-arguments"}) | _GENERATION_FEATURES


def parse(schema: Any, text: str) -> Any:
    return recursive_parse(text, schema)
