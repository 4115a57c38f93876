"""A real protocol-v1 implementation that misbehaves on purpose, for the harness tests.

    python misbehave.py MODE [TRIGGER [TAG]]

It answers like the reference, except that MODE happens when a test id contains TRIGGER (or always, for
modes that need no trigger). TAG is not read: it marks the command line of the process and of what it forks,
so that a test finds its own processes."""

from __future__ import annotations

import json
import os
import sys
import time

from response_schema import FEATURES
from response_schema.harness.expect import reference_outcomes

MODE = sys.argv[1]
TRIGGER = sys.argv[2] if len(sys.argv) > 2 else ""


def send(value: object) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def hello() -> None:
    if MODE == "hello-exit":
        sys.exit(3)
    if MODE == "slow-start":
        time.sleep(1.0)
    categorizes = MODE != "uncategorized"
    send(
        {
            "protocol": 1,
            "implementation": {"name": f"misbehave-{MODE}", "version": "0", "language": "python"},
            "features": sorted(FEATURES),
            "categorizes_errors": categorizes,
        }
    )


def run(message: dict) -> None:
    tests = message["tests"]
    triggered = any(TRIGGER and TRIGGER in test["id"] for test in tests)
    results = reference_outcomes(message["schema"], [test["input"] for test in tests])
    if MODE == "flood-stderr":
        sys.stderr.write("noise " * 200_000 + "\n")
    if triggered and MODE == "crash":
        os._exit(1)
    if triggered and MODE == "hang":
        time.sleep(3600)
    if triggered and MODE == "garbage":
        sys.stdout.write("this is not JSON\n")
        sys.stdout.flush()
        return
    if triggered and MODE == "non-object":
        send([1, 2, 3])
        return
    if triggered and MODE == "huge-line":
        sys.stdout.write("x" * (3 * 1024 * 1024) + "\n")
        sys.stdout.flush()
        return
    if triggered and MODE == "gigabyte-line":
        chunk = "x" * (1 << 20)
        for _ in range(1 << 10):  # 1 GiB, written in 1 MiB pieces
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
        sys.stdout.flush()
        return
    if triggered and MODE == "close-stdout":
        os.close(1)  # the descriptor itself, so the harness sees the end of the stream
        time.sleep(3600)
    if triggered and MODE == "fork-children":
        for _ in range(2):
            if os.fork() == 0:
                time.sleep(3600)
                os._exit(0)
        os._exit(1)
    if triggered and MODE == "wrong-seq":
        send({"seq": message["seq"] + 100, "results": results})
        return
    if triggered and MODE == "wrong-count":
        send({"seq": message["seq"], "results": [*results, {"output": None}]})
        return
    if MODE == "wrong-output":
        results = [{"output": "wrong"} if "output" in result else result for result in results]
    if MODE == "wrong-category":
        results = [{"error": {"phase": "input", "category": "nonsense"}} if "error" in r else r for r in results]
    if MODE in ("always-error", "uncategorized"):
        results = [{"error": {"phase": "input", "category": "invalid-json"}} for _ in results]
    if MODE == "bad-result":
        results = [{"output": 1, "error": {}} for _ in results]
    send({"seq": message["seq"], "results": results})


for line in sys.stdin:
    message = json.loads(line)
    if message["cmd"] == "hello":
        hello()
    elif message["cmd"] == "run":
        run(message)
    elif message["cmd"] == "shutdown":
        break
