"""The harness against real subprocess implementations that misbehave on purpose: a verdict for every test."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from response_schema.cli import main
from response_schema.harness.corpus import Group, Test, corpus_dir
from response_schema.harness.implementations import Subprocess
from response_schema.harness.protocol import ProtocolFailure

MISBEHAVE = Path(__file__).parent / "implementations" / "misbehave.py"
SERVE = f"{shlex.quote(sys.executable)} -m response_schema.cli conformance serve"

CASES = {
    "description": "a small corpus for the harness tests",
    "groups": [
        {
            "id": "h.text",
            "description": "strings",
            "schema": {"type": "string", "x-regex": "<a>(.*?)</a>"},
            "rules": ["REGEX-2"],
            "tests": [
                {"id": "h.text.one", "description": "d", "input": "<a>1</a>", "expect": {"output": "1"}},
                {"id": "h.text.two", "description": "d", "input": "<a>2</a>", "expect": {"output": "2"}},
                {"id": "h.text.none", "description": "d", "input": "x", "expect": {"output": None}},
            ],
        },
        {
            "id": "h.json",
            "description": "json",
            "schema": {"x-parser": "json"},
            "rules": ["JSON-1"],
            "tags": ["jsonish"],
            "tests": [
                {"id": "h.json.ok", "description": "d", "input": "[true]", "expect": {"output": [True]}},
                {
                    "id": "h.json.bad",
                    "description": "d",
                    "input": "[",
                    "expect": {"error": {"phase": "input", "category": "invalid-json"}},
                },
            ],
        },
        {
            "id": "h.schema",
            "description": "bad schema",
            "schema": {"type": "nope"},
            "rules": ["SCHEMA-4"],
            "tests": [
                {
                    "id": "h.schema.bad",
                    "description": "d",
                    "input": "x",
                    "expect": {"error": {"phase": "schema", "category": "invalid-keyword"}},
                }
            ],
        },
        {
            "id": "h.mapping",
            "description": "needs x-mapping",
            "schema": {"type": "string", "x-mapping": {"a": "b"}},
            "rules": ["MAP-2"],
            "features": ["x-mapping"],
            "tests": [{"id": "h.mapping.a", "description": "d", "input": "a", "expect": {"output": "b"}}],
        },
    ],
}
IDS = [test["id"] for group in CASES["groups"] for test in group["tests"]]
OUTPUT_TESTS = ["h.text.one", "h.text.two", "h.text.none", "h.json.ok", "h.mapping.a"]
ERROR_TESTS = ["h.json.bad", "h.schema.bad"]


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(CASES), encoding="utf-8")
    return path


def misbehave(mode: str, trigger: str = "") -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(MISBEHAVE))} {mode} {trigger}".strip()


def harness(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, str], str]:
    report = tmp_path / "report.jsonl"
    code = main(["conformance", "run", "--report", str(report), *args])
    captured = capsys.readouterr()
    statuses = {}
    if report.exists():
        for line in report.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["type"] == "test":
                statuses[record["id"]] = record["status"]
    return code, statuses, captured.out + captured.err


def test_reference_in_process_passes_everything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, statuses, out = harness(tmp_path, capsys)
    assert code == 0, out
    assert set(statuses.values()) <= {"pass", "unsupported"}  # regex-atomic needs Python 3.11
    assert list(statuses.values()).count("pass") >= 500


def test_reference_out_of_process_gives_the_same_verdicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, in_process, _ = harness(tmp_path, capsys)
    code_sub, out_of_process, out = harness(tmp_path, capsys, "--command", SERVE)
    assert code == code_sub == 0, out
    assert in_process == out_of_process


@pytest.mark.parametrize(
    ("mode", "culprit_status"),
    [
        ("crash", "crash"),
        ("hang", "timeout"),
        ("garbage", "error"),
        ("wrong-seq", "error"),
        ("wrong-count", "error"),
        ("non-object", "error"),
        ("close-stdout", "crash"),
        ("huge-line", "error"),
    ],
)
def test_only_the_culprit_is_marked(
    mode: str, culprit_status: str, cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, statuses, out = harness(
        tmp_path, capsys, "--cases", str(cases), "--timeout", "0.5", "--command", misbehave(mode, "h.text.two")
    )
    assert code == 1, out
    expected = dict.fromkeys(IDS, "pass") | {"h.text.two": culprit_status}
    assert statuses == expected


def test_hello_exit_is_a_harness_failure(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, statuses, out = harness(tmp_path, capsys, "--cases", str(cases), "--command", misbehave("hello-exit"))
    assert code == 2
    assert "did not start" in out
    assert statuses == {}


def test_missing_program_is_a_harness_failure(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, out = harness(tmp_path, capsys, "--cases", str(cases), "--command", "/no/such/program --flag")
    assert code == 2
    assert "cannot start /no/such/program" in out


def test_slow_start(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, statuses, _ = harness(tmp_path, capsys, "--cases", str(cases), "--command", misbehave("slow-start"))
    assert code == 0
    assert set(statuses.values()) == {"pass"}
    code, _, out = harness(
        tmp_path, capsys, "--cases", str(cases), "--startup-timeout", "0.2", "--command", misbehave("slow-start")
    )
    assert code == 2
    assert "timeout" in out


def test_flooding_stderr_does_not_block(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, statuses, _ = harness(tmp_path, capsys, "--cases", str(cases), "--command", misbehave("flood-stderr"))
    assert code == 0
    assert set(statuses.values()) == {"pass"}


def test_wrong_outputs(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, statuses, out = harness(tmp_path, capsys, "--cases", str(cases), "--command", misbehave("wrong-output"))
    assert code == 1
    assert statuses == dict.fromkeys(OUTPUT_TESTS, "fail") | dict.fromkeys(ERROR_TESTS, "pass")
    assert '-  "output": "1"' in out and '+  "output": "wrong"' in out  # an expected-vs-actual diff


def test_wrong_error_categories(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, statuses, _ = harness(tmp_path, capsys, "--cases", str(cases), "--command", misbehave("wrong-category"))
    assert code == 1
    assert statuses == dict.fromkeys(OUTPUT_TESTS, "pass") | dict.fromkeys(ERROR_TESTS, "fail")


def test_always_error_scores_zero_on_outputs(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, statuses, _ = harness(tmp_path, capsys, "--cases", str(cases), "--command", misbehave("always-error"))
    assert code == 1
    assert all(statuses[test_id] == "fail" for test_id in OUTPUT_TESTS)


def test_uncategorized_errors_are_judged_on_raising(
    cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, statuses, out = harness(tmp_path, capsys, "--cases", str(cases), "--command", misbehave("uncategorized"))
    assert statuses == dict.fromkeys(OUTPUT_TESTS, "fail") | dict.fromkeys(ERROR_TESTS, "pass")
    assert "does not categorize errors" in out


def test_malformed_results_are_errors(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, statuses, _ = harness(tmp_path, capsys, "--cases", str(cases), "--command", misbehave("bad-result"))
    assert code == 1
    assert set(statuses.values()) == {"error"}


def test_restart_budget_ends_in_not_run(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, statuses, _ = harness(
        tmp_path, capsys, "--cases", str(cases), "--max-restarts", "2", "--command", misbehave("crash", "h.")
    )
    assert code == 1
    assert set(statuses) == set(IDS)  # no verdict lost
    assert set(statuses.values()) <= {"crash", "not-run"}
    assert "not-run" in statuses.values()


def test_forked_children_are_killed(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The children the implementation forked die with it. They are told apart by a word of this test's own in
    their command line (tox runs the Pythons side by side: another run of this test has children of its own), and
    given a few seconds to go, on a machine busy with the other runs."""
    own = f"fork-children-of-{tmp_path.name}-{os.getpid()}"
    command = f"{misbehave('fork-children', 'h.text.one')} {own}"
    _, statuses, _ = harness(tmp_path, capsys, "--cases", str(cases), "--command", command)
    assert statuses["h.text.one"] == "crash"
    deadline = time.monotonic() + 10
    while leftovers := [pid for pid in os.listdir("/proc") if pid.isdigit() and own in _cmdline(pid)]:
        assert time.monotonic() < deadline, leftovers
        time.sleep(0.05)


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def test_unsupported_features(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = tmp_path / "bare_impl.py"
    module.write_text(
        "import response_schema\nFEATURES = []\n\n"
        "def parse(schema, text):\n    return response_schema.parse(schema, text)\n",
        encoding="utf-8",
    )
    sys.path.insert(0, str(tmp_path))
    try:
        code, statuses, _ = harness(tmp_path, capsys, "--cases", str(cases), "--python", "bare_impl:parse")
    finally:
        sys.path.remove(str(tmp_path))
    assert code == 0
    assert statuses["h.mapping.a"] == "unsupported"
    assert statuses["h.text.one"] == "pass"


def test_selection(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, statuses, _ = harness(tmp_path, capsys, "--cases", str(cases), "-k", "h.text.t", "-k", "jsonish")
    assert set(statuses) == {"h.text.two", "h.json.ok", "h.json.bad"}
    _, statuses, _ = harness(tmp_path, capsys, "--cases", str(cases), "-k", "SCHEMA-4")
    assert set(statuses) == {"h.schema.bad"}
    _, statuses, _ = harness(tmp_path, capsys, "--cases", str(cases), "--exclude-feature", "x-mapping")
    assert "h.mapping.a" not in statuses and len(statuses) == len(IDS) - 1


def known_failures(tmp_path: Path, entries: dict[str, Any]) -> str:
    path = tmp_path / "known.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return str(path)


def test_known_failures(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    known = known_failures(
        tmp_path,
        {
            "h.text.one": {"status": "fail", "reason": "wrong on purpose"},
            "h.json.bad": {"status": "fail", "reason": "this one passes"},
        },
    )
    args = ["--cases", str(cases), "--known-failures", known, "--command", misbehave("wrong-output")]
    code, statuses, _ = harness(tmp_path, capsys, *args)
    assert statuses["h.text.one"] == "xfail"
    assert statuses["h.json.bad"] == "xpass"
    assert statuses["h.text.two"] == "fail"
    assert code == 1
    known = known_failures(tmp_path, {test_id: {"status": "fail", "reason": "r"} for test_id in OUTPUT_TESTS})
    args = ["--cases", str(cases), "--known-failures", known, "--command", misbehave("wrong-output")]
    assert harness(tmp_path, capsys, *args)[0] == 0
    known = known_failures(tmp_path, {"h.json.ok": {"status": "fail", "reason": "passes anyway"}})
    assert harness(tmp_path, capsys, "--cases", str(cases), "--known-failures", known)[0] == 0
    assert harness(tmp_path, capsys, "--cases", str(cases), "--known-failures", known, "--strict")[0] == 1


def test_known_failure_for_no_test_is_an_error(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    known = known_failures(tmp_path, {"no.such.test": {"status": "fail", "reason": "r"}})
    code, _, out = harness(tmp_path, capsys, "--cases", str(cases), "--known-failures", known)
    assert code == 2
    assert "/no.such.test: no such test in the cases" in out


def test_known_failures_command_writes_a_file(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    harness(tmp_path, capsys, "--cases", str(cases), "--command", misbehave("wrong-category"))
    output = tmp_path / "known-out.json"
    assert main(["conformance", "known-failures", str(tmp_path / "report.jsonl"), "-o", str(output)]) == 0
    written = json.loads(output.read_text(encoding="utf-8"))
    assert set(written) == set(ERROR_TESTS)
    code, _, _ = harness(
        tmp_path,
        capsys,
        "--cases",
        str(cases),
        "--known-failures",
        str(output),
        "--command",
        misbehave("wrong-category"),
    )
    assert code == 0


def test_reports_agree(cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junit, markdown = tmp_path / "r.xml", tmp_path / "r.md"
    code, _, _ = harness(
        tmp_path,
        capsys,
        "--cases",
        str(cases),
        "--junit",
        str(junit),
        "--markdown",
        str(markdown),
        "--timeout",
        "0.5",
        "--command",
        misbehave("hang", "h.json.ok"),
    )
    assert code == 1
    lines = [json.loads(line) for line in (tmp_path / "report.jsonl").read_text(encoding="utf-8").splitlines()]
    head, records, foot = lines[0], lines[1:-1], lines[-1]
    assert head["type"] == "header" and head["suite_version"] and head["implementation"]["name"] == "misbehave-hang"
    assert foot["counts"] == {"pass": len(IDS) - 1, "timeout": 1} and foot["total"] == len(IDS)
    for record in records:
        assert {"id", "status", "expected", "actual", "duration_ms"} <= record.keys()
    root = ElementTree.parse(junit).getroot()
    assert root.tag == "testsuites"
    cases_xml = root.findall("./testsuite/testcase")
    assert len(cases_xml) == int(root.get("tests", "0")) == len(records)
    assert int(root.get("errors", "0")) == 1 and int(root.get("failures", "0")) == 0
    assert sum(int(suite.get("tests", "0")) for suite in root.findall("testsuite")) == len(records)
    assert "| area | pass | fail |" in markdown.read_text(encoding="utf-8")


def test_bad_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness(tmp_path, capsys, "--cases", str(tmp_path / "missing"))[0] == 2
    assert harness(tmp_path, capsys, "--python", "no_such_module:parse")[0] == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["conformance", "run", "--python", "a:b", "--command", "x"])
    assert exit_info.value.code == 2


def test_oversized_line_is_a_protocol_failure() -> None:
    implementation = Subprocess(misbehave("huge-line", "t"), line_limit=1024 * 1024)
    implementation.start()
    try:
        group = Group("g", "d", {"type": "string"}, (), "f", "")
        test = Test("t", "d", ("STR-1",), frozenset(), frozenset(), "x", {"output": "x"}, "f", "", "g", "a")
        with pytest.raises(ProtocolFailure) as failure:
            implementation.run(group, [test], 5)
        assert failure.value.status == "error"
        assert "longer than" in failure.value.message
    finally:
        implementation.stop()


def test_bundled_corpus_location() -> None:
    assert (corpus_dir() / "features.json").is_file()
