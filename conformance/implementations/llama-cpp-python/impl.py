"""llama-cpp-python's example server (github abetlen/llama-cpp-python, examples/server/server.py), whose class
ResponseParser is an independent Python implementation of response schemas, as an implementation under test.

Its code is not here. It runs in a virtual environment of its own, through the kit's standalone Python adapter:
see run.sh beside this file.

The server imports the compiled ``llama_cpp`` package, which parsing never uses: empty stand-in modules take its
place, so no model library has to be built."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import types
from pathlib import Path
from typing import Any


class _Anything(types.ModuleType):
    """A stand-in module whose every attribute is another stand-in (parsing never calls into it)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = _Anything(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _Anything(f"{self.__name__}()")


for _name in ("llama_cpp", "llama_cpp.llama_cpp", "llama_cpp.llama_cpp_ext", "llama_cpp.mtmd_cpp"):
    sys.modules[_name] = _Anything(_name)

_checkout = Path(os.environ["LLAMA_CPP_PYTHON"])
_spec = importlib.util.spec_from_file_location("llama_server", _checkout / "examples" / "server" / "server.py")
assert _spec is not None and _spec.loader is not None
_server = importlib.util.module_from_spec(_spec)
sys.modules["llama_server"] = _server
_spec.loader.exec_module(_server)

__version__ = os.environ.get("LLAMA_CPP_PYTHON_COMMIT", "")
# What it really has: Python's re, json and int() like the reference, and x-regex-substitutions; not gemma4-tool-call.
FEATURES = [
    "regex-lookaround",
    "regex-backreference",
    "regex-backreference-unset",
    "regex-capture-in-repeat",
    "regex-scoped-flags",
    "regex-verbose",
    "regex-python-only",
    "template-octal-escape",
    "unicode-classes",
    "python-numeric-syntax",
    "big-integers",
    "integer-digit-limit",
    "json-number-kinds",
] + (["regex-atomic"] if sys.version_info >= (3, 11) else [])
CATEGORIZES_ERRORS = False  # CompletionResponseParsingError and Python's own exceptions, without categories


def parse(schema: Any, text: str) -> Any:
    """One complete output, as the server parses a finished (not partial) response."""
    parser = _server.ResponseParser(schema)
    return parser._parse_response_value(text, schema, partial=False)


class _Stream:
    """Its streaming path, as its server drives it: ``consume_completion_chunk`` for each piece of the output
    (the prefix as its ``generation_prompt``), then once more with a finish reason. What it sends is OpenAI
    chat-completion-chunk deltas; the message they add up to is given in the schema's shape for the library's
    message schemas (content, thinking from reasoning_content, tool_calls with type and function.name, and the
    arguments once the stream finished: its arguments are JSON text). Call ids it makes up are left out."""

    def __init__(self, schema: Any, prefix: str) -> None:
        self._parser = _server.ResponseParser(schema, generation_prompt=prefix)
        self._texts: dict[str, str] = {}
        self._calls: list[dict[str, Any]] = []
        self.message: Any = None

    def feed(self, text: str) -> None:
        self._apply(self._parser.consume_completion_chunk(text, chunk_id="s", created=0, model="m", finish_reason=None))

    def finish(self) -> None:
        self._apply(self._parser.consume_completion_chunk("", chunk_id="s", created=0, model="m", finish_reason="stop"))
        message = object.__getattribute__(self, "message")
        for call in message.get("tool_calls", []) if isinstance(message, dict) else []:
            text = call["function"].pop("_arguments", "")
            call["function"]["arguments"] = json.loads(text) if text else {}

    def _apply(self, payloads: list[dict[str, Any]]) -> None:
        for payload in payloads:
            for choice in payload.get("choices", []):
                delta = choice.get("delta") or {}
                if delta.get("role"):
                    self.message = self.message or {"role": delta["role"]}
                for field, key in (("reasoning_content", "thinking"), ("content", "content")):
                    if isinstance(delta.get(field), str):
                        self._texts[key] = self._texts.get(key, "") + delta[field]
                for entry in delta.get("tool_calls") or []:
                    while len(self._calls) <= entry["index"]:
                        self._calls.append({"type": "function", "function": {"name": "", "_arguments": ""}})
                    function = entry.get("function") or {}
                    call = self._calls[entry["index"]]["function"]
                    call["name"] += function.get("name") or ""
                    call["_arguments"] += function.get("arguments") or ""
        if self._texts or self._calls:
            message = dict(self.message or {"role": "assistant"})
            message.update(self._texts)
            if self._calls:
                message["tool_calls"] = [
                    {"type": call["type"], "function": dict(call["function"])} for call in self._calls
                ]
            self.message = message

    def __getattribute__(self, name: str) -> Any:
        if name == "message":
            value = object.__getattribute__(self, "message")
            return _visible(value)
        return object.__getattribute__(self, name)


def _visible(message: Any) -> Any:
    """The message without the arguments text kept for the end."""
    if not isinstance(message, dict) or "tool_calls" not in message:
        return message
    calls = [
        {"type": call["type"], "function": {k: v for k, v in call["function"].items() if k != "_arguments"}}
        for call in message["tool_calls"]
    ]
    return {**message, "tool_calls": calls}


STREAM = _Stream
