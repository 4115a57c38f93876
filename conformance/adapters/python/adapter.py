"""A protocol adapter (conformance/PROTOCOL.md, versions 1 and 2) for an implementation written in Python, in any
interpreter or virtual environment: it needs nothing but the standard library (not even response-schema).

    /path/to/its/venv/bin/python adapter.py MODULE:CALLABLE [--features a,b] [--name N] [--version V]
        [--categorizes-errors yes|no] [--path DIR]

and so, from the harness:

    response-schema conformance run --command "/path/to/venv/bin/python adapter.py pkg.mod:parse"

``CALLABLE(schema, text)`` returns the message or raises (a test with tools, SPEC.md section 15, calls
``CALLABLE(schema, text, tools=TOOLS)``, and ``STREAM`` likewise: declare the feature typed-arguments); an
exception with string ``phase`` and ``category`` attributes is a categorized error result. The module may set
``FEATURES``, ``CATEGORIZES_ERRORS`` and ``__version__``; the options override them. ``--path`` puts DIR first
on ``sys.path`` (repeatable). A module with ``STREAM(schema, prefix)``, which opens a stream with ``feed(text)``,
``finish()`` and ``message`` (SPEC.md section 14), streams too: the adapter then answers protocol 2 and its
``stream`` command.

What it takes care of: one JSON line per answer; stdout kept for the protocol (anything the implementation prints
goes to stderr); results JSON cannot hold (NaN, infinities, keys that are not strings, tuples, sets, objects,
values nested deeper than 512) answered as {"unrepresentable": "..."}; lone surrogates written as \\uXXXX escapes.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
from typing import Any

MAX_DEPTH = 512


def unrepresentable(value: Any) -> str:
    """Why a value cannot be written as JSON, or "" when it can. Iterative: any depth."""
    stack = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        where = path or '""'
        if item is None or isinstance(item, (bool, str)):
            continue
        if isinstance(item, (int, float)):
            if isinstance(item, float) and not math.isfinite(item):
                return f"{item} at {where}"
            continue
        if depth >= MAX_DEPTH and isinstance(item, (list, dict)):
            return f"nested deeper than {MAX_DEPTH} levels at {where}"
        if isinstance(item, list):
            stack.extend((child, f"{path}/{index}", depth + 1) for index, child in enumerate(item))
        elif isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"a {type(key).__name__} key at {where}"
                stack.append((child, f"{path}/{key.replace('~', '~0').replace('/', '~1')}", depth + 1))
        else:
            return f"a {type(item).__name__} at {where}"
    return ""


def result(function: Any, schema: Any, test: dict[str, Any]) -> dict[str, Any]:
    """One test of a ``run`` request; its tools, when it has some, as ``tools=`` (SPEC.md section 15)."""
    tools = {"tools": test["tools"]} if "tools" in test else {}
    return outcome(lambda: function(schema, test["input"], **tools))


def outcome(work: Any) -> dict[str, Any]:
    """A run result: what ``work()`` returned, or the error it raised."""
    try:
        output = work()
    except (Exception, SystemExit) as exc:  # the implementation's failure is its answer
        phase, category = getattr(exc, "phase", None), getattr(exc, "category", None)
        message = f"{type(exc).__name__}: {exc}"
        if isinstance(phase, str) and isinstance(category, str):
            return {"error": {"phase": phase, "category": category, "message": message}}
        return {"error": {"message": message}}
    problem = unrepresentable(output)
    return {"unrepresentable": problem} if problem else {"output": output}


def streamed(opener: Any, request: dict[str, Any], chunks: list[str]) -> dict[str, Any]:
    """One stream of a ``stream`` request: the partial value after each chunk (null: nothing sent), and the end."""
    partials: list[Any] = []
    tools = {"tools": request["tools"]} if "tools" in request else {}

    def run() -> Any:
        stream = opener(request["schema"], request["prefix"], **tools)
        for chunk in chunks:
            stream.feed(chunk)
            problem = unrepresentable(stream.message)
            if problem:
                raise ValueError(f"a partial value JSON cannot hold: {problem}")
            partials.append(json.loads(json.dumps(stream.message)))  # a copy: the stream may grow what it returned
        stream.finish()
        return stream.message

    end = outcome(run)
    partials += [partials[-1] if partials else None] * (len(chunks) - len(partials))
    return {"partials": partials, "end": end}


def serve(function: Any, hello: dict[str, Any], opener: Any = None) -> int:
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout = sys.stderr  # what the implementation prints must not reach the protocol stream
    os.dup2(sys.stderr.fileno(), 1)  # nor what its C code writes to the descriptor
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
        except ValueError:
            print(f"adapter: not a JSON line: {line[:80]!r}", file=sys.stderr)
            continue
        command = request.get("cmd") if isinstance(request, dict) else None
        if command == "shutdown":
            return 0
        if command == "hello":
            offered = request.get("protocols")
            answer = hello | {"protocol": 2 if opener and isinstance(offered, list) and 2 in offered else 1}
        elif command == "stream" and opener is not None:
            chunkings = request["chunkings"]
            answer = {
                "seq": request["seq"],
                "results": [streamed(opener, request, chunks) for chunks in chunkings],
            }
        elif command == "run":
            answer = {
                "seq": request["seq"],
                "results": [result(function, request["schema"], test) for test in request["tests"]],
            }
        else:
            print(f"adapter: unknown request {command!r}", file=sys.stderr)
            continue
        protocol.write(json.dumps(answer, allow_nan=False) + "\n")  # ASCII: lone surrogates as escapes
        protocol.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a Python implementation over the harness protocol.")
    parser.add_argument("target", metavar="MODULE:CALLABLE")
    parser.add_argument("--features", help="comma-separated feature names (default: the module's FEATURES)")
    parser.add_argument("--name", help="the name shown in reports (default: MODULE:CALLABLE)")
    parser.add_argument("--version", help="the version shown in reports (default: the module's __version__)")
    parser.add_argument("--categorizes-errors", choices=["yes", "no"], help="default: the module's CATEGORIZES_ERRORS")
    parser.add_argument("--path", action="append", default=[], help="a folder to import from (repeatable)")
    args = parser.parse_args(argv)
    sys.path[:0] = args.path
    module_name, _, attribute = args.target.partition(":")
    module = importlib.import_module(module_name)
    function = module
    for part in attribute.split("."):
        function = getattr(function, part)
    features = args.features.split(",") if args.features is not None else list(getattr(module, "FEATURES", []))
    categorizes = (
        args.categorizes_errors == "yes"
        if args.categorizes_errors
        else bool(getattr(module, "CATEGORIZES_ERRORS", True))
    )
    hello = {
        "protocol": 1,
        "implementation": {
            "name": args.name or args.target,
            "version": args.version or str(getattr(module, "__version__", "")),
            "language": "python",
        },
        "features": [feature for feature in features if feature],
        "categorizes_errors": categorizes,
    }
    return serve(function, hello, getattr(module, "STREAM", None))


if __name__ == "__main__":
    sys.exit(main())
