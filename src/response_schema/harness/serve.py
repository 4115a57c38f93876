"""`response-schema conformance serve`: the reference speaking the protocol (version 2 when the harness offers
it, with streaming) on stdin and stdout, so that any harness or language can use it as an oracle."""

from __future__ import annotations

import sys
from typing import Any, BinaryIO

from ..jsontext import dumps, load_strict, printable
from .expect import reference_outcomes
from .implementations import Reference
from .protocol import agreed_version, hello_answer, request_problem
from .streaming import stream_once


def serve(stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Answer requests until shutdown or the end of input. A request that breaks PROTOCOL.md (a run before hello
    included) is reported on stderr and not answered, and nothing of it is run; the exit code is then 2 (0 when
    every request was proper)."""
    proper = True
    version: int | None = None  # the protocol agreed by hello
    last_seq = 0
    for raw in stdin:
        try:
            request: Any = load_strict(raw.decode("utf-8"))
        except ValueError as exc:
            proper = _refuse(f"not a JSON line ({exc}): {raw[:80]!r}")
            continue
        problem = request_problem(request, version, last_seq)
        if problem:
            proper = _refuse(f"{problem}: {raw[:80]!r}")
            continue
        if request["cmd"] == "shutdown":
            break
        if request["cmd"] == "hello":
            version = agreed_version(request)
            answer = hello_answer(Reference.info, version)
        elif request["cmd"] == "stream":
            last_seq = request["seq"]
            tools = request.get("tools")
            streams = [_stream(request["schema"], request["prefix"], chunks, tools) for chunks in request["chunkings"]]
            answer = {"seq": last_seq, "results": [{"partials": partials, "end": end} for partials, end in streams]}
        else:
            last_seq = request["seq"]
            inputs = [test["input"] for test in request["tests"]]
            tools = [test.get("tools") for test in request["tests"]]
            answer = {"seq": last_seq, "results": reference_outcomes(request["schema"], inputs, tools)}
        stdout.write(dumps(answer).encode("utf-8") + b"\n")
        stdout.flush()
    return 0 if proper else 2


def _stream(schema: Any, prefix: str, chunks: list[str], tools: Any) -> Any:
    return stream_once(Reference().open_stream, schema, prefix, chunks, tools)


def _refuse(text: str) -> bool:
    print(printable(f"response-schema serve: {text}"), file=sys.stderr)
    return False
