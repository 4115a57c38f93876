"""Typed tool arguments (SPEC.md section 15): the request's tools give the parsed arguments their types.

``Tools(definitions)`` reads OpenAI function definitions once ([TOOLS-1]); ``tools.typed(message)`` gives the
message with the arguments of every call to a known tool typed by its parameter schema ([TOOLS-2] to [TOOLS-6]).
Typing works on the one-shot result and never fails: a text no declared type takes stays the text."""

from __future__ import annotations

import math
import re
from typing import Any

from .errors import ResponseSchemaError
from .schema import json_kind
from .textparsers import TooDeep, json_value

_SPACE = " \t\n\r\f\v"  # the whitespace around a number, as [INT-1] reads it
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class ToolsError(ResponseSchemaError):
    """The tools are not a list of function definitions ([TOOLS-1]): category ``invalid-tools``, the path a
    JSON Pointer into the tools."""

    phase = "tools"

    def __init__(self, path: str, message: str) -> None:  # tools refused
        super().__init__("invalid-tools", path, message)


class Tools:
    """The request's tools, read once: each function's name and parameter properties."""

    __slots__ = ("_parameters",)

    def __init__(self, definitions: Any) -> None:
        if not isinstance(definitions, list):
            kind = json_kind(definitions)  # tools refused
            raise ToolsError("", f"tools must be a list of function definitions, not {kind}")  # tools refused
        self._parameters: dict[str, dict[str, Any]] = {}
        for index, tool in enumerate(definitions):
            function = tool.get("function", tool) if isinstance(tool, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            if not isinstance(function, dict) or not isinstance(name, str):
                raise ToolsError(f"/{index}", "a function definition needs a string name")  # tools refused
            if name in self._parameters:
                raise ToolsError(f"/{index}", f"a second tool named {name!r}")  # tools refused
            parameters = function.get("parameters", {})
            properties = parameters.get("properties", {}) if isinstance(parameters, dict) else None
            if not isinstance(properties, dict):
                raise ToolsError(f"/{index}", "parameters.properties must be an object")  # tools refused
            self._parameters[name] = properties

    def typed(self, message: Any) -> Any:
        """[TOOLS-2] The message with each call to a known tool given typed arguments; everything else as it is."""
        if not isinstance(message, dict) or not isinstance(message.get("tool_calls"), list):
            return message
        return {**message, "tool_calls": [self.typed_call(call) for call in message["tool_calls"]]}

    def typed_call(self, call: Any) -> Any:
        """[TOOLS-3] One call: typed when its name is a tool's and its arguments an object."""
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("arguments"), dict):
            return call
        if function.get("name") not in self._parameters:
            return call  # an unknown tool: kept as parsed
        arguments = self.typed_arguments(function["name"], function["arguments"])
        return {**call, "function": {**function, "arguments": arguments}}

    def typed_arguments(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """[TOOLS-3] The arguments of a call to the tool ``name``: each parameter's by its schema, others kept."""
        properties = self._parameters[name]
        return {key: typed(value, properties.get(key)) for key, value in arguments.items()}

    def knows(self, name: str) -> bool:  # streaming only ([TOOLS-7])
        return name in self._parameters


def typed(value: Any, schema: Any) -> Any:
    """[TOOLS-4] ``value`` typed by the parameter schema ``schema`` (None: an unknown parameter, kept)."""
    kinds = types(schema)
    if isinstance(value, str):
        for kind in kinds:
            if kind == "string":
                continue  # [TOOLS-4]: a text is kept as text only when no other type takes it
            converted = convert(value, kind)
            if converted is not NO_VALUE:
                return typed_inside(converted, schema)
        return value
    return typed_inside(value, schema)  # a value the parse typed keeps its type


def typed_inside(value: Any, schema: Any) -> Any:
    """[TOOLS-5] An object's properties and an array's items, typed by the schema's ``properties`` and ``items``."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        properties = schema["properties"]
        return {key: typed(item, properties.get(key)) for key, item in value.items()}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [typed(item, schema["items"]) for item in value]
    return value


def types(schema: Any) -> list[str]:
    """[TOOLS-4] The types a parameter schema declares, in order: ``type`` (a name or a list), then each
    ``anyOf`` and ``oneOf`` alternative's, then ``null`` when ``nullable``; with none of those, the kinds of its
    ``enum`` values or its ``const``."""
    if not isinstance(schema, dict):
        return []
    found: list[str] = []
    declared = schema.get("type")
    for kind in [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []:
        if isinstance(kind, str) and kind not in found:
            found.append(kind)
    for union in ("anyOf", "oneOf"):
        alternatives = schema.get(union)
        for alternative in alternatives if isinstance(alternatives, list) else []:
            found += [kind for kind in types(alternative) if kind not in found]
    if schema.get("nullable") is True and "null" not in found:
        found.append("null")
    if not found:
        enum = schema.get("enum")
        values = [*(enum if isinstance(enum, list) else []), *([schema["const"]] if "const" in schema else [])]
        for item in values:
            kind = _kind_of(item)
            if kind not in found:
                found.append(kind)
    return found


NO_VALUE: Any = object()  # what a conversion gives when the text does not denote a value of the kind


def convert(text: str, kind: str) -> Any:
    """[TOOLS-6] ``text`` as a value of ``kind``, or NO_VALUE when it does not denote one."""
    if kind in ("integer", "number"):
        number_text = text.strip(_SPACE)
        if not _NUMBER.fullmatch(number_text):
            return NO_VALUE
        try:
            if not any(mark in number_text for mark in ".eE"):
                return int(number_text)
            value = float(number_text)
        except ValueError:  # beyond the reference's digit limit ([JSONB-4])
            return NO_VALUE
        if math.isinf(value):
            return NO_VALUE  # [JSON-3]: not a JSON number
        if kind == "integer":
            return int(value) if value.is_integer() else NO_VALUE
        return int(value) if value.is_integer() and "." not in number_text else value
    if kind == "boolean":
        word = text.strip(_SPACE).lower()
        return {"true": True, "1": True, "false": False, "0": False}.get(word, NO_VALUE)
    if kind == "null":
        return None if text.strip(_SPACE) in ("null", "None") else NO_VALUE
    if kind in ("object", "array"):
        try:
            value = json_value(text)  # [JSON-1] to [JSON-3]; NOT_JSON is neither
        except TooDeep:
            return NO_VALUE
        return value if isinstance(value, dict if kind == "object" else list) else NO_VALUE
    return NO_VALUE  # "string" and names JSON Schema does not have


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) else "unknown"
