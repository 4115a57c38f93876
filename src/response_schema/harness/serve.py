"""`response-schema conformance serve`: the reference speaking protocol v1 on stdin and stdout, so that any
harness or language can use it as an oracle."""

from __future__ import annotations

import sys
from typing import Any, BinaryIO

from .. import FEATURES, __version__
from ..jsontext import dumps, load_strict, printable
from .implementations import PROTOCOL
from .outcome import reference_outcomes


def serve(stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Answer requests until shutdown or the end of input. A request it cannot understand is reported on
    stderr and not answered; the exit code is then 2 (0 when every request was understood)."""
    understood = True
    for raw in stdin:
        try:
            message = load_strict(raw.decode("utf-8"))
        except ValueError as exc:
            understood = _error(f"not a JSON line ({exc}): {raw[:80]!r}")
            continue
        command = message.get("cmd") if isinstance(message, dict) else None
        if command == "shutdown":
            break
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
            understood = _error(f"unknown message: {raw[:80]!r}")
            continue
        stdout.write(dumps(answer).encode("utf-8") + b"\n")
        stdout.flush()
    return 0 if understood else 2


def _error(text: str) -> bool:
    print(printable(f"response-schema serve: {text}"), file=sys.stderr)
    return False
