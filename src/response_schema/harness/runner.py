"""Running an implementation over a corpus: a verdict for every selected test, whatever the implementation
does (DESIGN.md section 4, conformance/PROTOCOL.md)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..jsontext import MAX_DEPTH, deeper_than
from ..schema import is_json_value
from .corpus import Group, Test
from .implementations import Info, ProtocolFailure
from .outcome import Outcome, matches

STATUSES = ("pass", "fail", "error", "timeout", "crash", "unsupported", "skip", "xfail", "xpass", "not-run")
# Statuses that mean the implementation did not conform (unless a known failure expects them).
FAILING = frozenset({"fail", "error", "timeout", "crash", "not-run"})


RESULT_KINDS = ("output", "error", "skip", "unrepresentable")  # PROTOCOL.md


def not_as_expected(status: str, strict: bool) -> bool:
    """Whether a verdict fails the run: a failing status, or under --strict also xpass and skip."""
    return status in FAILING or (strict and status in ("xpass", "skip"))


class Implementation(Protocol):
    info: Info

    def start(self) -> None: ...
    def run(self, group: Group, tests: list[Test], timeout: float) -> list[Outcome]: ...
    def stop(self) -> None: ...
    def stderr_tail(self) -> str: ...


@dataclass
class Result:
    test: Test
    status: str
    actual: Outcome | None = None
    duration_ms: float = 0.0
    message: str = ""
    stderr: str = ""

    def as_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {
            "id": self.test.id,
            "group": self.test.group_id,
            "area": self.test.area,
            "status": self.status,
            "expected": self.test.expect,
            "actual": self.actual,
            "duration_ms": round(self.duration_ms, 3),
            "rules": list(self.test.rules),
            "features": sorted(self.test.features),
            "tags": sorted(self.test.tags),
        }
        if self.message:
            line["message"] = self.message
        if self.stderr:
            line["stderr"] = self.stderr
        return line


@dataclass
class KnownFailure:
    status: str
    reason: str
    link: str = ""


@dataclass
class Options:
    timeout: float = 5.0
    max_restarts: int = 10
    known_failures: dict[str, KnownFailure] = field(default_factory=dict)


class StartFailure(Exception):
    """The implementation never started: the harness cannot do its job."""


class Runner:
    def __init__(self, implementation: Implementation, options: Options, progress: Callable[[Result], None]) -> None:
        self.implementation = implementation
        self.options = options
        self.progress = progress
        self.restarts_left = options.max_restarts
        self.alive = False
        self.results: list[Result] = []  # so far: an interrupted run keeps what it judged

    def run(self, groups: Iterable[tuple[Group, list[Test]]]) -> list[Result]:
        """A result for each test, in order. Whatever happens (an interruption too), the implementation is
        stopped before this returns or raises."""
        with self.running():
            for group, tests in groups:
                for result in self.run_group(group, tests):
                    result.status = self.known(result)
                    self.results.append(result)
                    self.progress(result)
        return self.results

    @contextlib.contextmanager
    def running(self) -> Iterator[Runner]:
        """The implementation started (StartFailure when it cannot be), and stopped on the way out."""
        try:
            try:
                self.implementation.start()
            except ProtocolFailure as failure:
                raise StartFailure(f"{failure.status}: {failure.message}") from None
            self.alive = True
            yield self
        finally:
            self.implementation.stop()

    def run_group(self, group: Group, tests: list[Test]) -> list[Result]:
        features = self.implementation.info.features
        results = {test.id: Result(test, "unsupported") for test in tests if not test.features <= features}
        supported = [test for test in tests if test.features <= features]
        if supported:
            for result in self.batch(group, supported):
                results[result.test.id] = result
        return [results[test.id] for test in tests]

    def batch(self, group: Group, tests: list[Test]) -> list[Result]:
        """All tests of a group in one request; after a protocol failure, restart and run them one at a time,
        so that only the culprit is marked."""
        if not self.alive:
            return [Result(test, "not-run", message="the restart budget is spent") for test in tests]
        started = time.perf_counter()
        try:
            outcomes = self.implementation.run(group, tests, self.options.timeout)
        except ProtocolFailure as failure:
            if len(tests) == 1:
                return [self.failed(tests[0], failure, started)]
            if not failure.in_sync and not self.restart():
                return [Result(test, "not-run", message="the restart budget is spent") for test in tests]
            return [result for test in tests for result in self.batch(group, [test])]
        each = (time.perf_counter() - started) * 1000 / len(tests)
        return [self.judge(test, outcome, each) for test, outcome in zip(tests, outcomes, strict=True)]

    def failed(self, test: Test, failure: ProtocolFailure, started: float) -> Result:
        result = Result(
            test,
            failure.status,
            None,
            (time.perf_counter() - started) * 1000,
            failure.message,
            self.implementation.stderr_tail(),
        )
        if not failure.in_sync:
            self.restart()
        return result

    def restart(self) -> bool:
        self.implementation.stop()
        while self.restarts_left > 0:
            self.restarts_left -= 1
            try:
                self.implementation.start()
                return True
            except ProtocolFailure:
                self.implementation.stop()
        self.alive = False
        return False

    def judge(self, test: Test, outcome: Any, duration_ms: float) -> Result:
        problem = _malformed(outcome)
        if problem:
            return Result(test, "error", None, duration_ms, problem)
        if "skip" in outcome:
            return Result(test, "skip", outcome, duration_ms, str(outcome["skip"]))
        if "unrepresentable" in outcome:  # its result was NaN, undefined, too deep...: never a pass
            message = f"the result cannot be written as JSON: {outcome['unrepresentable']}"
            return Result(test, "error", outcome, duration_ms, message)
        assert test.expect is not None
        categorized = self.implementation.info.categorizes_errors
        status = "pass" if matches(test.expect, outcome, categorized) else "fail"
        return Result(test, status, outcome, duration_ms)

    def known(self, result: Result) -> str:
        entry = self.options.known_failures.get(result.test.id)
        if entry is None:
            return result.status
        if result.status == "pass":
            return "xpass"
        if result.status == entry.status:
            return "xfail"
        return result.status


def _malformed(outcome: Any) -> str:
    """Why a result is not a protocol result, or "" when it is one."""
    if not isinstance(outcome, dict) or len(outcome) != 1 or next(iter(outcome)) not in RESULT_KINDS:
        return f"a result must be an object with exactly one of the keys {', '.join(RESULT_KINDS)}"
    if "error" in outcome and not isinstance(outcome["error"], dict):
        return "an error result must be an object"
    if "output" in outcome and not is_json_value(outcome["output"]):
        return f"the output is not JSON (NaN, an infinity, or a key that is not a string): {outcome['output']!r:.200}"
    if deeper_than(outcome, MAX_DEPTH):
        return f"the result nests deeper than {MAX_DEPTH} levels"
    return ""
