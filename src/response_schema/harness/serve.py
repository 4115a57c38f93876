"""`response-schema conformance serve`: the reference speaking protocol v1 on stdin and stdout, so that any
harness or language can use it as an oracle."""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO

from .. import FEATURES, __version__
from .implementations import PROTOCOL
from .outcome import reference_outcomes


def serve(stdin: BinaryIO, stdout: BinaryIO) -> int:
    for raw in stdin:
        try:
            message = json.loads(raw)
        except ValueError:
            _error(f"not a JSON line: {raw[:80]!r}")
            continue
        command = message.get("cmd") if isinstance(message, dict) else None
        if command == "shutdown":
            return 0
        if command == "hello":
            answer: dict[str, Any] = {
                "protocol": PROTOCOL,
                "implementation": {"name": "response-schema", "version": __version__, "language": "python"},
                "features": sorted(FEATURES),
                "categorizes_errors": True,
            }
        elif command == "run" and isinstance(message.get("tests"), list):
            inputs = [test.get("input", "") if isinstance(test, dict) else "" for test in message["tests"]]
            answer = {"seq": message.get("seq"), "results": reference_outcomes(message.get("schema"), inputs)}
        else:
            _error(f"unknown message: {raw[:80]!r}")
            continue
        stdout.write(json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n")
        stdout.flush()
    return 0


def _error(text: str) -> None:
    print(f"response-schema serve: {text}", file=sys.stderr)
