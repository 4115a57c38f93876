"""In-process implementations run in a forked worker (harness/isolation.py): a catastrophic pattern cannot hang
`conformance run`, `check` or `record`, a signal stops a `--python` run as it stops a `--command` run, and a
worker that dies is a crash verdict for its test only."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

SLOW_INPUT = "a" * 40 + "b"  # ^((?:a+)+)$ backtracks for hours on this
CATASTROPHIC = {
    "description": "d",
    "groups": [
        {
            "id": "e",
            "description": "d",
            "rules": ["LIMIT-4"],
            "schema": {"type": "string", "x-regex": "^((?:a+)+)$"},
            "tests": [
                {"id": "e.ok", "description": "d", "input": "aaa", "expect": {"output": "aaa"}},
                {"id": "e.slow", "description": "d", "input": SLOW_INPUT, "expect": {"output": None}},
                {"id": "e.after", "description": "d", "input": "a", "expect": {"output": "a"}},
            ],
        }
    ],
}


def cli(tmp_path: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "response_schema", *args],
        capture_output=True, text=True, timeout=timeout, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )  # fmt: skip


def write(path: Path, value: Any) -> str:
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2), encoding="utf-8")
    return str(path)


def test_a_catastrophic_pattern_is_a_timeout_in_process(tmp_path: Path) -> None:
    cases = write(tmp_path / "c.json", CATASTROPHIC)
    started = time.monotonic()
    result = cli(tmp_path, "conformance", "run", "--cases", cases, "--timeout", "0.5", "--report", "r.jsonl")
    assert time.monotonic() - started < 30
    assert result.returncode == 1, result.stderr
    lines = (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()
    statuses = {json.loads(line).get("id"): json.loads(line).get("status") for line in lines}
    assert statuses == {None: None, "e.ok": "pass", "e.slow": "timeout", "e.after": "pass"}


def test_a_catastrophic_pattern_cannot_hang_check(tmp_path: Path) -> None:
    cases = write(tmp_path / "c.json", CATASTROPHIC)
    result = cli(tmp_path, "conformance", "check", cases, "--timeout", "0.5")
    assert result.returncode == 1, result.stderr
    assert "/groups/0/tests/1: the reference got timeout: no answer within 0.5 s" in result.stdout


def test_a_catastrophic_pattern_cannot_hang_record(tmp_path: Path) -> None:
    cases = json.loads(json.dumps(CATASTROPHIC))
    del cases["groups"][0]["tests"][1]["expect"]
    path = write(tmp_path / "c.json", cases)
    before = Path(path).read_text(encoding="utf-8")
    result = cli(tmp_path, "conformance", "record", path, "--timeout", "0.5")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "e.slow: the reference gave no expectation: no answer within 0.5 s" in result.stderr
    assert Path(path).read_text(encoding="utf-8") == before


SLEEPY = "import time\nFEATURES = []\ndef parse(schema, text):\n    time.sleep(3600)\n"


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_a_signal_stops_a_python_run(tmp_path: Path, signum: int, code: int) -> None:
    write(tmp_path / "sleepy.py", SLEEPY)
    cases = write(tmp_path / "c.json", CATASTROPHIC)
    harness = subprocess.Popen(
        [sys.executable, "-m", "response_schema", "conformance", "run", "--cases", cases, "--timeout", "600",
         "--python", "sleepy:parse", "--report", str(tmp_path / "r.jsonl")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )  # fmt: skip
    time.sleep(1.5)  # it is inside parse by now
    harness.send_signal(signum)
    out, err = harness.communicate(timeout=30)
    assert harness.returncode == code, err
    assert b"Traceback" not in err and b"INTERRUPTED" in out
    lines = (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["interrupted"] == signal.Signals(signum).name
    assert [json.loads(line)["status"] for line in lines[1:-1]] == ["not-run"] * 3


def test_a_worker_that_dies_is_a_crash_for_its_test_only(tmp_path: Path) -> None:
    write(tmp_path / "dies.py", "import os\ndef parse(schema, text):\n    if text == 'a':\n        os._exit(9)\n"
          "    return text\n")  # fmt: skip
    cases = write(tmp_path / "c.json", CATASTROPHIC)
    result = cli(tmp_path, "conformance", "run", "--cases", cases, "--python", "dies:parse", "--report", "r.jsonl")
    assert result.returncode == 1, result.stderr
    records = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()[1:-1]]
    assert [(r["id"], r["status"]) for r in records] == [("e.ok", "pass"), ("e.slow", "fail"), ("e.after", "crash")]
    assert "exit code 9" in records[2]["message"]


def test_an_output_that_cannot_cross_the_pipe_is_judged_as_not_json(tmp_path: Path) -> None:
    write(tmp_path / "odd.py", "def parse(schema, text):\n    return (lambda: None) if text == 'a' else text\n")
    cases = write(tmp_path / "c.json", CATASTROPHIC)
    result = cli(tmp_path, "conformance", "run", "--cases", cases, "--python", "odd:parse", "--report", "r.jsonl")
    records = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()[1:-1]]
    assert result.returncode == 1 and records[2]["status"] == "error", result.stderr
    assert "the output is not JSON" in records[2]["message"]


def test_the_forked_reference_in_this_process() -> None:
    from response_schema.harness.corpus import load
    from response_schema.harness.implementations import Reference
    from response_schema.harness.isolation import Forked
    from response_schema.harness.protocol import ProtocolFailure

    path = Path(__file__).parent.parent / "conformance" / "cases" / "seed" / "no-tool-calls.json"
    group = load([path]).groups[0]
    worker = Forked(Reference())
    worker.start()
    try:
        outcomes = worker.run(group, list(group.tests), 5)
        assert len(outcomes) == len(group.tests) and all("output" in o or "error" in o for o in outcomes)
        os.kill(worker.pid, signal.SIGKILL)
        with pytest.raises(ProtocolFailure, match="killed by SIGKILL"):
            worker.run(group, list(group.tests), 5)
    finally:
        worker.stop()
    assert worker.pid == 0
