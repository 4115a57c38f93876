"""The promises that hold under hostile schemas, inputs, case files and implementations (SECURITY.md)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

import response_schema as rs
from response_schema.cli import main

MISBEHAVE = Path(__file__).parent / "implementations" / "misbehave.py"
SERVE = f"{shlex.quote(sys.executable)} -m response_schema.cli conformance serve"
QWEN3 = {
    "type": "object",
    "properties": {
        "thinking": {"type": "string", "x-regex": "^(?:<think>)?\\s*(.*?)\\s*</think>"},
        "content": {"type": "string", "x-regex": "^(?:.*</think>)?\\s*(.*?)\\s*(?:<tool_call>|<\\|im_end\\|>|$)"},
        "tool_calls": {
            "type": "array",
            "x-regex-iterator": "<tool_call>\\s*(.*?)\\s*</tool_call>",
            "items": {"type": "object", "x-parser": "json", "properties": {}},
        },
    },
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["conformance", *argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def cases_file(tmp_path: Path, schema: object, inputs: list[str], name: str = "cases.json") -> Path:
    """A case file whose tests expect the input back (right for a plain string schema)."""
    tests = [
        {"id": f"r.{name[:-5]}.{index}", "description": "d", "input": text, "expect": {"output": text}}
        for index, text in enumerate(inputs)
    ]
    path = tmp_path / name
    path.write_text(
        json.dumps(
            {
                "description": "d",
                "groups": [
                    {"id": f"r.{name[:-5]}", "description": "d", "rules": ["GEN-1"], "schema": schema, "tests": tests}
                ],
            }
        )
    )
    return path


def test_ten_megabyte_output_parses(tmp_path: Path) -> None:  # [LIMIT-3]: the time is measured in benchmarks/
    call = '<tool_call>\n{"name": "write", "arguments": {"text": "' + "x" * 1000 + '"}}\n</tool_call>\n'
    text = "<think>\n" + "reasoning " * 100_000 + "\n</think>\n\nAnswer.\n" + call * 9_000 + "<|im_end|>"
    assert len(text) > 10_000_000
    result = rs.compile(QWEN3).parse(text)
    assert len(result["tool_calls"]) == 9_000
    assert result["content"] == "Answer."


def test_catastrophic_regex_becomes_a_timeout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # [LIMIT-4]
    slow = cases_file(tmp_path, {"type": "string", "x-regex": "^((?:a+)+)$"}, ["a" * 40 + "b", "aaa"], "slow.json")
    fine = cases_file(tmp_path, {"type": "string"}, ["after"], "fine.json")
    code, _ = run(
        capsys,
        "run",
        "--cases",
        str(slow),
        str(fine),
        "--timeout",
        "1",
        "--command",
        SERVE,
        "--report",
        str(tmp_path / "r.jsonl"),
    )
    statuses = {
        r["id"]: r["status"]
        for r in map(json.loads, (tmp_path / "r.jsonl").read_text().splitlines())
        if r["type"] == "test"
    }
    assert statuses == {"r.slow.0": "timeout", "r.slow.1": "pass", "r.fine.0": "pass"}
    assert code == 1


def test_gigabyte_line_gets_a_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = cases_file(tmp_path, {"type": "string"}, ["a", "b"], "big.json")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(MISBEHAVE))} gigabyte-line r.big.1"
    code, _ = run(
        capsys,
        "run",
        "--cases",
        str(cases),
        "--timeout",
        "60",
        "--command",
        command,
        "--report",
        str(tmp_path / "r.jsonl"),
    )
    statuses = [json.loads(line)["status"] for line in (tmp_path / "r.jsonl").read_text().splitlines()[1:-1]]
    assert statuses == ["pass", "error"]
    assert code == 1


def test_no_shell_runs_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    cases = cases_file(tmp_path, {"type": "string", "x-regex": "$(touch pwned)"}, ["`touch pwned`"])
    run(capsys, "run", "--cases", str(cases), "--command", f"{SERVE} ; touch {marker}")
    assert not marker.exists()


def test_hostile_case_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, out = run(capsys, "check", str(deep))
    assert code == 2 and f'{deep}: "": nests deeper than 512 levels' in out and "Traceback" not in out
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    code, out = run(capsys, "run", "--cases", str(binary))
    assert code == 2 and "cannot read" in out


def test_duplicate_ids_across_files_stop_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases_file(tmp_path, {"type": "string"}, ["a"], "one.json")
    second = cases_file(tmp_path, {"type": "string"}, ["b"], "two.json")
    second.write_text(second.read_text().replace("r.two", "r.one"))
    code, out = run(capsys, "run", "--cases", str(tmp_path))
    assert code == 2
    assert "two.json: /groups/0: duplicate id 'r.one'" in out
