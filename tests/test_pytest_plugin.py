"""The pytest plugin, on small projects run by pytester: a passing file, a wrong expectation, an unrecorded
test, a broken file, and a project that did not enable it."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest_plugins = ["pytester"]


def case_file(tests: list[dict[str, Any]]) -> str:
    group = {
        "id": "mine.v1",
        "description": "d",
        "rules": ["REGEX-2"],
        "schema": {"type": "string", "x-regex": "<a>(.*?)</a>"},
        "tests": tests,
    }
    return json.dumps({"description": "my model", "groups": [group]})


GOOD = [
    {"id": "mine.v1.one", "description": "d", "input": "<a>1</a>", "expect": {"output": "1"}},
    {"id": "mine.v1.none", "description": "d", "input": "x", "expect": {"output": None}},
]
INI = "[pytest]\nresponse_schema_cases = cases\n"


def test_a_passing_file(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest=INI)
    pytester.mkdir("cases").joinpath("mine.json").write_text(case_file(GOOD), encoding="utf-8")
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*mine.json::mine.v1.one PASSED*"])


def test_a_wrong_expectation_shows_the_diff(pytester: pytest.Pytester) -> None:
    wrong = [{**GOOD[0], "expect": {"output": "2"}}]
    pytester.makefile(".ini", pytest=INI)
    pytester.mkdir("cases").joinpath("mine.json").write_text(case_file(wrong), encoding="utf-8")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*--- expected*", "*+++ actual*", '*-  "output": "2"*', '*+  "output": "1"*'])


def test_an_unrecorded_test_fails_and_says_how_to_record(pytester: pytest.Pytester) -> None:
    unrecorded = [{key: value for key, value in GOOD[0].items() if key != "expect"}]
    pytester.mkdir("cases").joinpath("mine.json").write_text(case_file(unrecorded), encoding="utf-8")
    result = pytester.runpytest("--response-schema-cases", "cases")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*has no expect*conformance record*"])


def test_a_broken_file_is_a_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest=INI)
    pytester.mkdir("cases").joinpath("mine.json").write_text('{"description": "d", "groups": []}', encoding="utf-8")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*must be a non-empty array of groups*"])


def test_idle_unless_enabled(pytester: pytest.Pytester) -> None:
    pytester.mkdir("cases").joinpath("mine.json").write_text(case_file(GOOD), encoding="utf-8")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_another_implementation(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(shouty="def parse(schema, text):\n    return text.upper()\n")
    pytester.makefile(".ini", pytest=INI + "response_schema_python = shouty:parse\npythonpath = .\n")
    pytester.mkdir("cases").joinpath("mine.json").write_text(case_file(GOOD), encoding="utf-8")
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)


def test_cases_outside_testpaths_are_an_error_not_silence(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest=INI + "testpaths = tests\n")
    pytester.mkdir("tests").joinpath("test_x.py").write_text("def test_x():\n    pass\n", encoding="utf-8")
    pytester.mkdir("cases").joinpath("mine.json").write_text(case_file(GOOD), encoding="utf-8")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*response_schema_cases names*cases, but no case file there was collected*"])


def test_a_missing_configured_path_is_an_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest="[pytest]\nresponse_schema_cases = cases tpyo\n")
    pytester.mkdir("cases").joinpath("mine.json").write_text(case_file(GOOD), encoding="utf-8")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*response_schema_cases: no such file or folder:*tpyo*"])


def test_ini_paths_are_read_from_the_ini_files_folder(pytester: pytest.Pytester) -> None:
    project = pytester.mkdir("project")
    project.joinpath("pytest.ini").write_text(INI, encoding="utf-8")
    project.joinpath("cases").mkdir()
    project.joinpath("cases", "mine.json").write_text(case_file(GOOD), encoding="utf-8")
    result = pytester.runpytest("-c", "project/pytest.ini", "project")  # run from the folder above it
    result.assert_outcomes(passed=2)


def test_explicit_arguments_may_leave_the_cases_out(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest=INI)
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    pytester.mkdir("cases").joinpath("mine.json").write_text(case_file(GOOD), encoding="utf-8")
    pytester.runpytest("test_x.py").assert_outcomes(passed=1)


def test_a_malformed_result_is_an_error_as_in_conformance_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(nan="def parse(schema, text):\n    return float('nan')\n")
    pytester.makefile(".ini", pytest=INI + "response_schema_python = nan:parse\npythonpath = .\n")
    pytester.mkdir("cases").joinpath("mine.json").write_text(case_file(GOOD), encoding="utf-8")
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*error*", "*the output is not JSON*"])
