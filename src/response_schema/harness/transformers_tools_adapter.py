"""transformers' ``tools=`` typing (5.15 and later; pinned to 5.24) as an implementation of SPEC.md section 15,
where the two languages meet:

    response-schema conformance run --python response_schema.harness.transformers_tools_adapter:parse \\
        -k typed-arguments

transformers' successor language parses with response templates, not response schemas, so the reference parses
(without tools) and transformers' own coercion then types the calls, as its ``ResponseParser`` does when a
``tool_calls`` region closes. What differs is only the typing; conformance/implementations/transformers/
transformers-5.24-tools.json explains each difference."""

from __future__ import annotations

import copy
from typing import Any

import transformers
from transformers.utils.chat_parsing.response_parser import ResponseParser

import response_schema

__version__ = transformers.__version__
FEATURES = response_schema.FEATURES
_TEMPLATE = {"start_anchor": "<|start|>", "fields": {"content": {}}}  # the smallest template: only its tools are used


def parse(schema: Any, text: str, tools: Any = None) -> Any:
    message = response_schema.parse(schema, text)
    if tools is None or not isinstance(message, dict) or not isinstance(message.get("tool_calls"), list):
        return message
    coercer = ResponseParser(_TEMPLATE, prefix="", tools=tools)
    return message | {"tool_calls": coercer._coerce_tool_calls(copy.deepcopy(message["tool_calls"]))}
