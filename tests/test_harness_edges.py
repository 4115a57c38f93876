"""The harness's less travelled paths: odd answers, odd files, odd streams."""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from response_schema.cli import main
from response_schema.harness.corpus import corpus_dir, load
from response_schema.harness.implementations import PythonCallable
from response_schema.harness.report import Terminal, footer, read_jsonl
from response_schema.harness.serve import serve

ROOT = corpus_dir()


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value) if not isinstance(value, str) else value, encoding="utf-8")
    return path


def small_cases(tmp_path: Path, tests: list[dict[str, Any]] | None = None) -> Path:
    tests = tests or [{"id": "e.a", "description": "d", "input": "x", "expect": {"output": "x"}}]
    return write(
        tmp_path / "cases.json",
        {
            "description": "d",
            "groups": [
                {"id": "e", "description": "d", "rules": ["STR-1"], "schema": {"type": "string"}, "tests": tests}
            ],
        },
    )


def program(tmp_path: Path, body: str) -> str:
    path = tmp_path / "impl.py"
    path.write_text("import json, sys\n" + body, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["conformance", *argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def statuses(report: Path) -> dict[str, dict[str, Any]]:
    _, records = read_jsonl(report)
    return {record["id"]: record for record in records}


def test_serve_refuses_what_breaks_the_protocol_and_runs_nothing_before_hello(
    capsys: pytest.CaptureFixture[str],
) -> None:
    requests = (
        b'not json\n{"cmd": "dance"}\n[1]\n'
        b'{"cmd": "run", "seq": 3, "schema": {}, "tests": [{"id": "a", "input": "t"}]}\n'
        b'{"cmd": "hello", "protocol": 1}\n'
        b'{"cmd": "run", "seq": 3, "schema": {}, "tests": [{"input": "t"}, 5]}\n'
        b'{"cmd": "run", "seq": 4, "tests": [{"id": "a", "input": "t"}]}\n'
        b'{"cmd": "run", "seq": true, "schema": {}, "tests": [{"id": "a", "input": "t"}]}\n'
        b'{"cmd": "run", "seq": 5, "schema": {}, "tests": []}\n'
        b'{"cmd": "run", "seq": 6, "schema": {}, "tests": [{"id": "a", "input": "t"}]}\n'
        b'{"cmd": "run", "seq": 6, "schema": {}, "tests": [{"id": "a", "input": "t"}]}\n'
    )
    output = io.BytesIO()
    assert serve(io.BytesIO(requests + b'{"cmd": "shutdown"}\n{"cmd": "hello", "protocol": 1}\n'), output) == 2
    answers = [json.loads(line) for line in output.getvalue().splitlines()]
    assert answers[1:] == [{"seq": 6, "results": [{"output": "t"}]}]  # the hello answer, then the one proper run
    err = capsys.readouterr().err
    assert err.count("response-schema serve:") == 9
    assert "run before hello" in err and "needs a schema" in err and "greater than the last one (6)" in err


def test_serve_ends_at_end_of_input() -> None:
    assert serve(io.BytesIO(b""), io.BytesIO()) == 0


@pytest.mark.parametrize(
    ("hello", "message"),
    [
        ('{"protocol": 3, "implementation": {}, "features": []}', "hello answered protocol 3"),
        ('{"protocol": 1, "implementation": "me", "features": []}', "needs an implementation object"),
    ],
)
def test_bad_hello(tmp_path: Path, capsys: pytest.CaptureFixture[str], hello: str, message: str) -> None:
    command = program(tmp_path, f"for line in sys.stdin:\n    print({hello!r}, flush=True)\n")
    code, out = run(capsys, "run", "--cases", str(small_cases(tmp_path)), "--command", command)
    assert code == 2
    assert message in out


def test_skip_answers_and_stderr_on_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = (
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['cmd'] == 'hello':\n"
        "        hello = {'protocol': 1, 'implementation': {'name': 'skipper'}, 'features': []}\n"
        "        print(json.dumps(hello), flush=True)\n"
        "    elif m['cmd'] == 'run':\n"
        "        if any(t['id'] == 'e.b' for t in m['tests']):\n"
        "            sys.stderr.write('fatal: cannot parse e.b\\n'); sys.stderr.flush(); sys.exit(4)\n"
        "        results = [{'skip': 'not today'} for _ in m['tests']]\n"
        "        print(json.dumps({'seq': m['seq'], 'results': results}), flush=True)\n"
    )
    tests = [
        {"id": "e.a", "description": "d", "input": "x", "expect": {"output": "x"}},
        {"id": "e.b", "description": "d", "input": "y", "expect": {"output": "y"}},
        {"id": "e.c", "description": "d", "input": "z"},
    ]
    report, junit = tmp_path / "r.jsonl", tmp_path / "r.xml"
    cases = small_cases(tmp_path, tests)
    code, out = run(
        capsys,
        "run",
        "--cases",
        str(cases),
        "--report",
        str(report),
        "--junit",
        str(junit),
        "--command",
        program(tmp_path, body),
        "--show",
        "0",
        "--allow-unrecorded",
    )
    assert code == 1
    records = statuses(report)
    assert records["e.a"]["status"] == "skip" and records["e.a"]["message"] == "not today"
    assert records["e.b"]["status"] == "crash" and "fatal: cannot parse e.b" in records["e.b"]["stderr"]
    assert records["e.c"]["status"] == "skip" and "the case has no expect" in records["e.c"]["message"]
    assert "WARNING: 2 of 3 tests were skipped" in out
    assert "system-err" in junit.read_text(encoding="utf-8")
    assert "... and 1 more (see --report)" in out


def test_non_json_output_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = write(tmp_path / "nan_impl.py", "FEATURES = []\ndef parse(schema, text):\n    return float('nan')\n")
    report = tmp_path / "r.jsonl"
    sys.path.insert(0, str(module.parent))
    try:
        code, _ = run(
            capsys, "run", "--cases", str(small_cases(tmp_path)), "--python", "nan_impl:parse", "--report", str(report)
        )
    finally:
        sys.path.remove(str(module.parent))
    assert code == 1
    record = statuses(report)["e.a"]
    assert record["status"] == "error" and "the output is not JSON" in record["message"]
    json.loads(report.read_text(encoding="utf-8").splitlines()[1])  # the report stays strict JSON


@pytest.mark.parametrize("spec", ["no_colon", "json:", "json:__doc__"])
def test_bad_python_spec(spec: str) -> None:
    with pytest.raises(ValueError):
        PythonCallable(spec)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "must be an object keyed by test id"),
        ("{", "is not valid JSON"),
        ('{"e.a": {"status": "weird", "reason": "r"}}', "needs a status"),
    ],
)
def test_bad_known_failures_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    known = write(tmp_path / "known.json", content)
    code, out = run(capsys, "run", "--cases", str(small_cases(tmp_path)), "--known-failures", str(known))
    assert code == 2
    assert message in out


def test_known_failures_comment_and_different_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    known = write(tmp_path / "known.json", {"$comment": "why", "e.a": {"status": "crash", "reason": "r"}})
    module = write(tmp_path / "wrong_impl.py", "def parse(schema, text):\n    return 'wrong'\n")
    report = tmp_path / "r.jsonl"
    sys.path.insert(0, str(module.parent))
    try:
        code, _ = run(
            capsys,
            "run",
            "--cases",
            str(small_cases(tmp_path)),
            "--known-failures",
            str(known),
            "--python",
            "wrong_impl:parse",
            "--report",
            str(report),
        )
    finally:
        sys.path.remove(str(module.parent))
    assert code == 1
    assert statuses(report)["e.a"]["status"] == "fail"  # expected a crash, got a plain failure


def test_known_failures_command_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "known-failures", str(tmp_path / "missing.jsonl"))[0] == 2
    assert "not a JSON line" in run(capsys, "known-failures", str(write(tmp_path / "a.jsonl", "oops\n")))[1]
    assert "not a report record" in run(capsys, "known-failures", str(write(tmp_path / "b.jsonl", "[1]\n")))[1]
    assert "no header line" in run(capsys, "known-failures", str(write(tmp_path / "c.jsonl", "{}\n")))[1]
    report = write(tmp_path / "d.jsonl", '{"type": "header"}\n{"type": "test", "id": "x", "status": "fail"}\n')
    code, out = run(capsys, "known-failures", str(report))
    assert code == 0 and json.loads(out) == {
        "x": {"status": "fail", "reason": "TODO: explain, naming the SPEC.md rule"}
    }


def test_unreadable_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path / "bad.json", "{")
    code, out = run(capsys, "run", "--cases", str(bad))
    assert code == 2 and "not valid JSON" in out
    code, out = run(capsys, "run", "--cases", str(tmp_path / "empty-dir-does-not-exist"))
    assert code == 2


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("no_color", ["", "1"])
def test_progress_on_a_terminal(monkeypatch: pytest.MonkeyPatch, no_color: str) -> None:
    monkeypatch.setenv("NO_COLOR", no_color)
    stream = FakeTerminal()
    terminal = Terminal(stream, 10, show=5, strict=False)
    for index in range(10):
        terminal.progress("fail" if index == 3 else "pass")
    terminal.summary({"implementation": {"name": "x", "categorizes_errors": True}}, [], footer([], 0.1))
    text = stream.getvalue()
    assert "[10/10] 1 not as expected" in text
    assert ("\033[" in text) == (not no_color)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda t: t.replace("seed.smollm3 / seed.smollm3.think-answer", "seed.smollm3 / seed.smollm3.nope"),
            "which is not in the corpus",
        ),
        (
            lambda t: t.replace('"input": "Just the answer.<|im_end|>",', '"input": "Changed.<|im_end|>",'),
            "example's input differs from case seed.smollm3.answer-only",
        ),
        (
            lambda t: t.replace(
                '"input": "Just the answer.<|im_end|>",', '"input": "Just the answer.<|im_end|>"'
            ).replace('  "expect": {"output": {"role": "assistant", "content": "Just the answer."}}\n', ""),
            "an example needs an input and an expect",
        ),
        (lambda t: t.replace('"input": "Just the answer.<|im_end|>",', '"input": oops,'), "example is not valid JSON"),
    ],
)
def test_spec_examples_must_match_the_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mutate: Any, message: str
) -> None:
    spec = write(tmp_path / "SPEC.md", mutate((ROOT / "SPEC.md").read_text(encoding="utf-8")))
    code, out = run(capsys, "check", "--full", "--spec", str(spec), str(ROOT))
    assert code == 1
    assert message in out


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        (["not a group"], "/groups/0: must be an object"),
        ([{"id": "g", "description": "", "schema": {}, "tests": []}], "/groups/0/description: must be a non-empty"),
        (
            [
                {
                    "id": "g",
                    "description": "d",
                    "schema": {},
                    "rules": ["X-1", "X-1"],
                    "tests": [{"id": "t", "description": "d", "input": ""}],
                }
            ],
            "/groups/0/rules: has repeated items",
        ),
        (
            [
                {
                    "id": "g",
                    "description": "d",
                    "schema": {},
                    "tags": "wart",
                    "tests": [{"id": "t", "description": "d", "input": "", "rules": ["GEN-1"]}],
                }
            ],
            "/groups/0/tags: must be an array",
        ),
        (
            [
                {
                    "id": "g",
                    "description": "d",
                    "schema": {},
                    "tests": [
                        {
                            "id": "t",
                            "description": "d",
                            "input": "",
                            "rules": ["GEN-1"],
                            "expect": {"error": {"phase": "later", "category": 5}},
                        }
                    ],
                }
            ],
            "/groups/0/tests/0/expect/error/phase",
        ),
        (
            [
                {
                    "id": "g",
                    "description": "d",
                    "schema": {},
                    "tests": [
                        {
                            "id": "t",
                            "description": "d",
                            "input": "",
                            "rules": ["GEN-1"],
                            "expect": {"error": {"phase": "input", "category": 5}},
                        }
                    ],
                }
            ],
            "/groups/0/tests/0/expect/error/category",
        ),
        ([{"id": "g", "description": "d", "schema": {}, "tests": ["t"]}], "/groups/0/tests/0: must be an object"),
    ],
)
def test_case_file_shapes(tmp_path: Path, groups: list[Any], message: str) -> None:
    corpus = load([write(tmp_path / "f.json", {"description": "d", "groups": groups})])
    assert any(message in str(problem) for problem in corpus.problems), corpus.problems


def test_huge_case_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("response_schema.harness.corpus.MAX_FILE_BYTES", 10)
    corpus = load([small_cases(tmp_path)])
    assert "file larger than" in str(corpus.problems[0])


def test_record_refuses_a_malformed_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "record", str(write(tmp_path / "f.json", {"description": "d"})))
    assert code == 2 and "missing required key 'groups'" in out


def test_markdown_table_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = write(tmp_path / "plain_impl.py", "FEATURES = []\ndef parse(schema, text):\n    raise ValueError(text)\n")
    markdown = tmp_path / "t.md"
    sys.path.insert(0, str(module.parent))
    try:
        run(capsys, "run", "-k", "mapping.role", "--python", "plain_impl:parse", "--markdown", str(markdown))
    finally:
        sys.path.remove(str(module.parent))
    assert "| legacy | 0 | 0 | 0 | 2 | - |" in markdown.read_text(encoding="utf-8")
