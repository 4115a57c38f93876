"""`response-schema conformance check` and `record`: they pass on the repository and fail precisely."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from response_schema.cli import main
from response_schema.harness.corpus import corpus_dir

ROOT = corpus_dir()
REAL_FILE = ROOT / "cases" / "types" / "array.json"


def write_case_file(path: Path, groups: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"description": "test file", "groups": groups}), encoding="utf-8")
    return path


def group(group_id: str, tests: list[dict[str, Any]], schema: Any = None) -> dict[str, Any]:
    return {"id": group_id, "description": "a group", "schema": schema or {"type": "string"}, "tests": tests}


def case(test_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": test_id,
        "description": "a test",
        "rules": ["STR-1"],
        "input": "x",
        "expect": {"output": "x"},
    } | fields


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["conformance", *argv])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_bundled_corpus_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run(capsys, "check")
    assert code == 0, text
    assert text.strip().endswith("ok")


def test_duplicate_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_case_file(tmp_path / "dup.json", [group("g", [case("g.a"), case("g.a")])])
    code, text = run(capsys, "check", str(path))
    assert code == 2
    assert f"{path}: /groups/0/tests/1: duplicate id 'g.a' (first at {path}:/groups/0/tests/0)" in text


def test_duplicate_id_across_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_case_file(tmp_path / "one.json", [group("g1", [case("same")])])
    write_case_file(tmp_path / "two.json", [group("g2", [case("same")])])
    code, text = run(capsys, "check", str(tmp_path))
    assert code == 2
    assert "two.json: /groups/0/tests/0: duplicate id 'same'" in text


def test_unknown_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_case_file(tmp_path / "rule.json", [group("g", [case("g.a", rules=["NOPE-1"])])])
    code, text = run(capsys, "check", str(path))
    assert code == 1
    assert f"{path}: /groups/0/tests/0: cites NOPE-1, which SPEC.md does not define" in text


def test_wrong_expectation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_case_file(tmp_path / "wrong.json", [group("g", [case("g.a", expect={"output": "y"})])])
    code, text = run(capsys, "check", str(path))
    assert code == 1
    assert f'{path}: /groups/0/tests/0/expect: the reference gives output "x", the case expects output "y"' in text


def test_wrong_error_category(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expect = {"error": {"phase": "input", "category": "invalid-json"}}
    path = write_case_file(tmp_path / "cat.json", [group("g", [case("g.a", expect=expect)], {"type": "integer"})])
    code, text = run(capsys, "check", str(path))
    assert code == 1
    assert "the reference gives error input/invalid-value, the case expects error input/invalid-json" in text


def test_unknown_feature_tag_and_category(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expect = {"error": {"phase": "input", "category": "no-such-category"}}
    tests = [case("g.a", features=["telepathy"], tags=["nice"], expect=expect)]
    path = write_case_file(tmp_path / "reg.json", [group("g", tests)])
    code, text = run(capsys, "check", str(path))
    assert code == 1
    assert "unknown feature 'telepathy'" in text
    assert "unknown tag 'nice'" in text
    assert "input/no-such-category is not an error category" in text


def test_retired_id(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT, corpus, symlinks=False)
    (corpus / "RETIRED").write_text("old.id  # retired in 1.0.1\n", encoding="utf-8")
    path = write_case_file(corpus / "cases" / "mine.json", [group("g", [case("old.id")])])
    monkeypatch.setattr("response_schema.harness.cli.corpus_dir", lambda: corpus)
    code, text = run(capsys, "check", str(path))
    assert code == 1
    assert "id 'old.id' is retired and cannot be used again" in text


def test_uncovered_must_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "SPEC.md"
    spec.write_text(
        (ROOT / "SPEC.md").read_text(encoding="utf-8")
        + "\n- **[EXTRA-1]** An implementation MUST do something no case pins: `type-mismatch`.\n",
        encoding="utf-8",
    )
    code, text = run(capsys, "check", "--full", "--spec", str(spec), str(ROOT))
    assert code == 1
    assert "MUST rule EXTRA-1 is cited by no case" in text


def test_rule_naming_a_category_needs_a_negative_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "SPEC.md"
    text = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    spec.write_text(text.replace("group rule ([REGEX-3]):", "group rule ([REGEX-3], `unmatched-group`):"))
    code, out = run(capsys, "check", "--full", "--spec", str(spec), str(ROOT))
    assert code == 1
    assert "ITER-3 names `unmatched-group` but no case citing it expects that error" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", '"": not valid JSON'),
        ('{"description": "d", "groups": [], "extra": 1}', "/extra: unknown key 'extra'"),
        (
            '{"description": "d", "groups": [{"id": "Bad Id", "description": "d", "schema": {}, "tests": []}]}',
            "/groups/0/id: 'Bad Id' is not a valid id",
        ),
        (
            '{"description": "d", "groups": [{"id": "g", "description": "d", "schema": {}, "tests": '
            '[{"id": "t", "description": "d", "input": 5, "rules": ["GEN-1"]}]}]}',
            "/groups/0/tests/0/input: must be a string",
        ),
        (
            '{"description": "d", "groups": [{"id": "g", "description": "d", "schema": {}, "tests": '
            '[{"id": "t", "description": "d", "input": "", "rules": ["GEN-1"], '
            '"expect": {"output": 1, "error": {}}}]}]}',
            "/groups/0/tests/0/expect: must be exactly one of",
        ),
        (
            '{"description": "d", "groups": [{"id": "g", "description": "d", "schema": {}, "tests": '
            '[{"id": "t", "description": "d", "input": ""}]}]}',
            "/groups/0/tests/0: cites no rule",
        ),
        ('{"description": "d", "description": "again", "groups": []}', "duplicate key 'description'"),
    ],
)
def test_malformed_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    code, text = run(capsys, "check", str(path))
    assert code == 2
    assert f"{path}: {message}" in text or message in text
    assert "Traceback" not in text


def test_record_fills_missing_expectations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tests = [
        {"id": "g.ok", "description": "d", "rules": ["STR-1"], "input": "hello"},
        {"id": "g.kept", "description": "d", "rules": ["STR-1"], "input": "x", "expect": {"output": "x"}},
    ]
    path = write_case_file(tmp_path / "new.json", [group("g", tests, {"type": "string", "x-regex": "(l+)"})])
    code, text = run(capsys, "record", str(path))
    assert code == 0, text
    recorded = json.loads(path.read_text(encoding="utf-8"))["groups"][0]["tests"]
    assert recorded[0]["expect"] == {"output": "ll"}
    assert recorded[1]["expect"] == {"output": "x"}
    code, text = run(capsys, "check", str(path))
    assert code == 1  # g.kept disagrees with the reference (no match gives null): record never rewrites it
    assert f"{path}: /groups/0/tests/1/expect: the reference gives output null" in text


def test_meta_schema_agrees_with_the_loader_on_the_corpus() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    meta = json.loads((ROOT / "case-file.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(meta)
    for path in sorted((ROOT / "cases").rglob("*.json")):
        errors = list(validator.iter_errors(json.loads(path.read_text(encoding="utf-8"))))
        assert not errors, f"{path}: {errors[0].json_path}: {errors[0].message}"
    assert list(validator.iter_errors({"description": "d", "groups": [{"id": "Bad Id"}]}))
    assert REAL_FILE.is_file()


def _check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "response_schema", "conformance", "check", *args], capture_output=True, text=True
    )


def test_check_on_an_empty_folder_is_not_green(tmp_path: Path) -> None:
    result = _check(str(tmp_path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "nothing to check" in result.stderr


def test_check_spec_problems_take_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe")
    for spec, why in [
        (tmp_path / "missing.md", "No such file"),
        (tmp_path, "Is a directory"),
        (tmp_path / "bad.md", "not UTF-8"),
    ]:
        result = _check("--spec", str(spec))
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and why in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


def test_folder_scans_skip_hidden_files_and_a_file_twice_is_once(tmp_path: Path) -> None:
    good = {"description": "d", "groups": [{"id": "h", "description": "d", "rules": ["STR-1"],
            "schema": {"type": "string"}, "tests": [{"id": "h.a", "description": "d", "input": "a",
            "expect": {"output": "a"}}]}]}  # fmt: skip
    (tmp_path / "c.json").write_text(json.dumps(good), encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "junk.json").write_text("not json", encoding="utf-8")
    (tmp_path / ".junk.json").write_text("not json", encoding="utf-8")
    result = _check(str(tmp_path), str(tmp_path / "c.json"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 file, 1 group, 1 test: ok" in result.stdout


def test_a_case_citing_a_withdrawn_rule_is_a_problem(tmp_path: Path) -> None:
    cases = {"description": "d", "groups": [{"id": "w", "description": "d", "rules": ["SCHEMA-12"],
             "schema": {"type": "string"}, "tests": [{"id": "w.a", "description": "d", "input": "a",
             "expect": {"output": "a"}}]}]}  # fmt: skip
    (tmp_path / "c.json").write_text(json.dumps(cases), encoding="utf-8")
    result = _check(str(tmp_path / "c.json"))
    assert result.returncode == 1 and "cites SCHEMA-12, which SPEC.md has withdrawn" in result.stdout
