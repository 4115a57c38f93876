"""llama-cpp-python's example server (github abetlen/llama-cpp-python, examples/server/server.py), whose class
ResponseParser is an independent Python implementation of response schemas, as an implementation under test.

Its code is not here. It runs in a virtual environment of its own, through the kit's standalone Python adapter:
see run.sh beside this file.

The server imports the compiled ``llama_cpp`` package, which parsing never uses: empty stand-in modules take its
place, so no model library has to be built."""

from __future__ import annotations

import importlib.util
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
