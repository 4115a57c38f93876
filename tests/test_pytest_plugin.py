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
