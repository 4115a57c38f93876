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
from .harness.report import expected_actual
from .harness.runner import Implementation, Options, run_cases
from .harness.verdict import Status


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
    """The configured case paths: those given on the command line from where pytest was run, those of the
    configuration file from that file's folder."""
    ini_folder = config.inipath.parent if config.inipath else config.rootpath
    given = [config.invocation_params.dir / name for name in config.getoption("response_schema_cases")]
    return [path.resolve() for path in given + [ini_folder / name for name in config.getini("response_schema_cases")]]


def pytest_configure(config: pytest.Config) -> None:
    missing = [str(path) for path in _case_paths(config) if not path.exists()]
    if missing:
        raise pytest.UsageError(f"response_schema_cases: no such file or folder: {', '.join(missing)}")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    if file_path.suffix != ".json":
        return None
    resolved = file_path.resolve()
    if any(resolved == path or path in resolved.parents for path in _case_paths(parent.config)):
        return CaseFile.from_parent(parent, path=file_path)
    return None


def pytest_collection_finish(session: pytest.Session) -> None:
    """Configured cases that pytest never reached (outside ``testpaths``, or an empty folder) are an error,
    unless the command line named what to run: collecting nothing must not look like passing."""
    config = session.config
    if config.args_source == pytest.Config.ArgsSource.ARGS and not config.getoption("response_schema_cases"):
        return
    collected = {item.path.resolve() for item in session.items if isinstance(item, CaseItem)}
    for path in _case_paths(config):
        if not any(found == path or path in found.parents for found in collected):
            raise pytest.UsageError(
                f"response_schema_cases names {path}, but no case file there was collected: is it outside "
                f"testpaths or the arguments, or without .json files?"
            )


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
    def __init__(self, *, group: Group, test: Test, implementation: Implementation, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.group = group
        self.test = test
        self.implementation = implementation

    def runtest(self) -> None:
        if self.test.expect is None:
            raise CaseFailure(f"{self.test.id} has no expect: fill it with 'response-schema conformance record FILE'")
        (result,) = run_cases(self.implementation, [(self.group, [self.test])], Options()).results  # as `run` judges
        if result.status == Status.UNSUPPORTED:
            pytest.skip(f"needs features the implementation does not declare: {sorted(self.test.features)}")
        if result.status != Status.PASS:
            raise CaseFailure(f"{result.status}\n" + expected_actual(result.as_json()))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.test.id} ({self.test.pointer})"
