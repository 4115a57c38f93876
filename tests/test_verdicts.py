"""Verdicts and what reports say of them: a known failure's reason and link in every report, known-failures
files that hold only the implementation's own failures, and runs that judged nothing never green."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SHOUTY = "def parse(schema, text):\n    return text.upper()\n"
NO_FEATURES = "FEATURES = []\ndef parse(schema, text):\n    raise ValueError('never called')\n"
FEATURED = {
    "description": "d",
    "groups": [
        {
            "id": "f",
            "description": "d",
            "rules": ["MAP-2"],
            "schema": {"type": "string", "x-mapping": {"a": "b"}},
            "tests": [
                {"id": "f.a", "description": "d", "input": "a", "features": ["x-mapping"], "expect": {"output": "b"}}
            ],
        }
    ],
}


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "response_schema", *args],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env={"PYTHONPATH": str(tmp_path), "PATH": ""},
    )  # fmt: skip


def write(path: Path, value: Any) -> str:
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return str(path)


def test_a_known_failures_reason_and_link_are_in_every_report(tmp_path: Path) -> None:
    write(tmp_path / "shouty.py", SHOUTY)
    entry = {"status": "fail", "reason": "shouts on purpose", "link": "https://example.org/42"}
    known = write(tmp_path / "known.json", {"seed.smollm3.think-answer": entry})
    result = cli(
        tmp_path, "conformance", "run", "-k", "seed.smollm3", "--python", "shouty:parse", "--known-failures", known,
        "--report", "r.jsonl", "--junit", "r.xml", "--markdown", "r.md",
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    records = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    (xfail,) = [record for record in records if record.get("status") == "xfail"]
    assert xfail["known_failure"] == entry
    for name in ("r.xml", "r.md"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert "shouts on purpose" in text and "https://example.org/42" in text, name
    assert "xfail (1): shouts on purpose <https://example.org/42>" in result.stdout


def test_known_failures_keeps_entries_skips_not_run_and_refuses_pass(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    head = {"type": "header", "suite_version": "1", "implementation": {}, "options": {}}
    known = {"status": "fail", "reason": "explained", "link": "L"}
    lines = [
        head,
        {"type": "test", "id": "a", "status": "not-run"},
        {"type": "test", "id": "b", "status": "xfail", "known_failure": known},
        {"type": "test", "id": "c", "status": "timeout"},
        {"type": "test", "id": "d", "status": "xpass", "known_failure": known},
        {"type": "test", "id": "e", "status": "pass"},
    ]
    write(report, "".join(json.dumps(line) + "\n" for line in lines))
    result = cli(tmp_path, "conformance", "known-failures", str(report))
    assert result.returncode == 0, result.stderr
    written = json.loads(result.stdout)
    assert written == {"b": known, "c": {"status": "timeout", "reason": "TODO: explain, naming the SPEC.md rule"}}
    cases = write(tmp_path / "c.json", FEATURED)
    entries = write(tmp_path / "k.json", {"f.a": {"status": "pass", "reason": "r"}})
    result = cli(tmp_path, "conformance", "run", "--cases", cases, "--known-failures", entries)
    assert result.returncode == 2 and "/f.a: needs a status (one of crash, error, fail, timeout)" in result.stderr


@pytest.mark.parametrize("strict", [[], ["--strict"]])
def test_a_run_where_every_test_is_unsupported_is_not_green(tmp_path: Path, strict: list[str]) -> None:
    write(tmp_path / "bare.py", NO_FEATURES)
    cases = write(tmp_path / "c.json", FEATURED)
    result = cli(tmp_path, "conformance", "run", "--cases", cases, "--python", "bare:parse", *strict)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "nothing was judged: 1 selected test, none supported or run" in result.stderr
    assert "1 test in" in result.stdout  # singular


def test_a_run_where_every_test_is_skipped_is_not_green(tmp_path: Path) -> None:
    cases = json.loads(json.dumps(FEATURED))
    del cases["groups"][0]["tests"][0]["expect"]
    path = write(tmp_path / "c.json", cases)
    result = cli(tmp_path, "conformance", "run", "--cases", path, "--allow-unrecorded")
    assert result.returncode == 2 and "nothing was judged" in result.stderr


def test_an_empty_k_pattern_is_refused(tmp_path: Path) -> None:
    result = cli(tmp_path, "conformance", "run", "-k", "")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "-k ''" in result.stderr


def test_the_header_records_every_option_that_changes_the_verdicts(tmp_path: Path) -> None:
    result = cli(
        tmp_path, "conformance", "run", "-k", "seed", "--exclude-tag", "wart", "--exclude-feature", "x-mapping",
        "--allow-unrecorded", "--max-restarts", "3", "--timeout", "2", "--startup-timeout", "4", "--strict",
        "--report", "r.jsonl",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    head = json.loads((tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert head["options"] | {"cases": None} == {
        "cases": None, "command": None, "python": None, "select": ["seed"], "exclude_feature": ["x-mapping"],
        "exclude_tag": ["wart"], "allow_unrecorded": True, "timeout": 2.0, "startup_timeout": 4.0,
        "max_restarts": 3, "known_failures": None, "strict": True, "stream": False,
    }  # fmt: skip
