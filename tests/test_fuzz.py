"""`conformance fuzz` finds planted bugs in real subprocess implementations, shrinks them to small cases the
corpus accepts, and raises no false alarm against the reference served out of process."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

MUTANT = Path(__file__).parent / "implementations" / "mutant.py"
SERVE = f"{shlex.quote(sys.executable)} -m response_schema conformance serve"
BUGS = [
    "no-match-empty-string",
    "unset-group-whole-match",
    "additional-dropped",
    "null-values-dropped",
    "empty-iterator-list",
    "integer-accepts-fraction",
    "transform-ignored",
    "const-loses",
    "default-ignored",
    "last-duplicate-loses",
]


def fuzz(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "response_schema", "conformance", "fuzz", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def nodes(schema: Any) -> int:
    """Schema nodes: the root, properties values, additionalProperties, items and prefixItems elements."""
    if not isinstance(schema, dict):
        return 0
    children = list(schema.get("properties", {}).values()) if isinstance(schema.get("properties"), dict) else []
    children += [schema[key] for key in ("items", "additionalProperties") if isinstance(schema.get(key), dict)]
    children += schema.get("prefixItems", []) if isinstance(schema.get("prefixItems"), list) else []
    return 1 + sum(nodes(child) for child in children)


@pytest.mark.parametrize("bug", BUGS)
def test_a_planted_bug_is_found_and_shrunk(bug: str, tmp_path: Path) -> None:
    started = time.monotonic()
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(MUTANT))} {bug}"
    result = fuzz("--command", command, "--seconds", "60", "--classes", "1", "--out", str(tmp_path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert time.monotonic() - started < 90
    cases = json.loads((tmp_path / "fuzz-s0.json").read_text(encoding="utf-8"))
    group = cases["groups"][0]
    assert nodes(group["schema"]) <= 3, group["schema"]
    check = subprocess.run(
        [sys.executable, "-m", "response_schema", "conformance", "check", str(tmp_path / "fuzz-s0.json")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_no_false_alarm_against_the_served_reference() -> None:
    result = fuzz("--command", SERVE, "--count", "100000", "--seed", "7")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "100" in result.stdout and "0 disagreements in 0 classes" in result.stdout


def test_the_same_seed_gives_the_same_run(tmp_path: Path) -> None:
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(MUTANT))} const-loses"
    runs = [
        fuzz("--command", command, "--count", "3000", "--seed", "5", "--out", str(tmp_path / str(n))) for n in (1, 2)
    ]
    assert [run.returncode for run in runs] == [1, 1]
    texts = [(tmp_path / str(n) / "fuzz-s5.json").read_text(encoding="utf-8") for n in (1, 2)]
    assert texts[0] == texts[1]
    untimed = [[line for line in run.stdout.splitlines() if line.startswith(("class", " "))] for run in runs]
    assert untimed[0] == untimed[1]


def test_known_divergences_explain_classes(tmp_path: Path) -> None:
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(MUTANT))} empty-iterator-list"
    known = tmp_path / "known.json"
    known.write_text(json.dumps({"divergences": [{"keywords": ["x-regex-iterator"], "reason": "planted"}]}), "utf-8")
    result = fuzz("--command", command, "--count", "2000", "--known-divergences", str(known), "--out", str(tmp_path))
    assert result.returncode == 0, result.stdout
    assert "known (" in result.stdout and "planted" in result.stdout
    assert not (tmp_path / "fuzz-s0.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--command", ""], "--command is empty"),
        (["--command", "/nonexistent/program"], "did not start"),
        (["--known-divergences", "/nonexistent.json"], "No such file"),
        (["--seconds", "0"], "argument --seconds"),
        (["--out", "/proc/fuzz"], "cannot write --out"),
    ],
)
def test_harness_problems_are_exit_2(args: list[str], message: str) -> None:
    result = fuzz(*args, "--count", "10")
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_ctrl_c_keeps_and_reports_what_was_found(tmp_path: Path) -> None:
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(MUTANT))} last-duplicate-loses"
    process = subprocess.Popen(
        [sys.executable, "-m", "response_schema", "conformance", "fuzz", "--command", command, "--seconds", "600",
         "--out", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(8)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "INTERRUPTED (SIGINT)" in out and "class 1 (" in out and "Traceback" not in err
    assert json.loads((tmp_path / "fuzz-s0.json").read_text(encoding="utf-8"))["groups"]


def test_count_zero_judges_nothing_and_is_refused() -> None:
    result = fuzz("--count", "0")
    assert result.returncode == 2 and "--count 0 would judge nothing" in result.stderr
