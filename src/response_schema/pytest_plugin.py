"""A pytest plugin that collects response-schema case files as tests: one item per test id, judged as
`conformance run` judges it, with the same diff. It is installed with the package and does nothing until a
project names its case files:

    [tool.pytest.ini_options]
    response_schema_cases = ["cases"]           # files or folders (or: pytest --response-schema-cases cases)
    response_schema_python = "my_pkg.parse:parse"   # optional: an implementation other than the reference
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .harness.corpus import Group, Test, load
from .harness.implementations import PythonCallable, Reference
from .harness.outcome import matches
from .harness.report import expected_actual
from .harness.runner import Result


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("response-schema")
    group.addoption(
        "--response-schema-cases",
        action="append",
        default=[],
        metavar="PATH",
        help="response-schema case files or folders to collect as tests (repeatable)",
    )
    group.addoption("--response-schema-python", metavar="MODULE:CALLABLE", help="the implementation to judge")
    parser.addini("response_schema_cases", "response-schema case files or folders to collect", type="args")
    parser.addini("response_schema_python", "the implementation to judge (default: the reference)")


def _case_paths(config: pytest.Config) -> list[Path]:
    names = [*config.getoption("response_schema_cases"), *config.getini("response_schema_cases")]
    return [(config.rootpath / name).resolve() for name in names]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    if file_path.suffix != ".json":
        return None
    resolved = file_path.resolve()
    if any(resolved == path or path in resolved.parents for path in _case_paths(parent.config)):
        return CaseFile.from_parent(parent, path=file_path)
    return None


class CaseFile(pytest.File):
    def collect(self) -> Iterator[CaseItem]:
        corpus = load([self.path])
        if corpus.problems:
            raise self.CollectError("\n".join(str(problem) for problem in corpus.problems))
        spec = self.config.getoption("response_schema_python") or self.config.getini("response_schema_python")
        implementation = PythonCallable(spec) if spec else Reference()
        for group in corpus.groups:
            for test in group.tests:
                yield CaseItem.from_parent(self, name=test.id, group=group, test=test, implementation=implementation)


class CaseFailure(Exception):
    """The implementation did not do what the case expects; the text says how."""


class CaseItem(pytest.Item):
    def __init__(self, *, group: Group, test: Test, implementation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.group = group
        self.test = test
        self.implementation = implementation

    def runtest(self) -> None:
        if self.test.expect is None:
            raise CaseFailure(f"{self.test.id} has no expect: fill it with 'response-schema conformance record FILE'")
        (outcome,) = self.implementation.run(self.group, [self.test], 0)
        if not matches(self.test.expect, outcome, self.implementation.info.categorizes_errors):
            raise CaseFailure(expected_actual(Result(self.test, "fail", outcome).as_json()))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.test.id} ({self.test.pointer})"
