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
        self._names: list[str] = []
        self._arguments: list[str] = []
        self._role: Any = None
        self.message: Any = None

    def feed(self, text: str) -> None:
        self._apply(self._parser.consume_completion_chunk(text, chunk_id="s", created=0, model="m", finish_reason=None))

    def finish(self) -> None:
        self._apply(self._parser.consume_completion_chunk("", chunk_id="s", created=0, model="m", finish_reason="stop"))
        if isinstance(self.message, dict) and "tool_calls" in self.message:
            for call, text in zip(self.message["tool_calls"], self._arguments, strict=True):
                call["function"]["arguments"] = json.loads(text) if text else {}

    def _apply(self, payloads: list[dict[str, Any]]) -> None:
        for payload in payloads:
            for choice in payload.get("choices", []):
                delta = choice.get("delta") or {}
                self._role = self._role or delta.get("role")
                for field, key in (("reasoning_content", "thinking"), ("content", "content")):
                    if isinstance(delta.get(field), str):
                        self._texts[key] = self._texts.get(key, "") + delta[field]
                for entry in delta.get("tool_calls") or []:
                    while len(self._names) <= entry["index"]:
                        self._names.append("")
                        self._arguments.append("")
                    function = entry.get("function") or {}
                    self._names[entry["index"]] += function.get("name") or ""
                    self._arguments[entry["index"]] += function.get("arguments") or ""
        if self._role or self._texts or self._names:
            self.message = {"role": self._role or "assistant", **self._texts}
            if self._names:
                self.message["tool_calls"] = [{"type": "function", "function": {"name": name}} for name in self._names]


STREAM = _Stream
