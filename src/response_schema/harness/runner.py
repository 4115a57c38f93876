"""Running an implementation over a corpus: a verdict for every selected test, whatever the implementation
does (conformance/PROTOCOL.md, "Verdicts" and "Timeouts, failures and restarts"). ``run_cases`` is the one way
in: `conformance run`, `conformance check`, the pytest plugin and the benchmarks all judge through it."""

from __future__ import annotations

import contextlib
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from .corpus import Group, Test
from .expect import Outcome, matches
from .protocol import Info, ProtocolFailure, result_problem
from .verdict import KnownFailure, Result, Status

Selection = list[tuple[Group, list[Test]]]  # the tests to judge, by group, in order


class Implementation(Protocol):
    info: Info

    def start(self) -> None: ...
    def run(self, group: Group, tests: list[Test], timeout: float) -> list[Outcome]: ...
    def stop(self) -> None: ...
    def stderr_tail(self) -> str: ...


@dataclass
class Options:
    timeout: float = 5.0
    max_restarts: int = 10
    known_failures: dict[str, KnownFailure] = field(default_factory=dict)
    stream: bool = False  # conformance run --stream: an implementation that does not stream is unsupported


class StartFailure(Exception):
    """The implementation never started: the harness cannot do its job."""


class Interrupted(BaseException):
    """SIGTERM or SIGHUP arrived (``interruptible``): stop like Ctrl-C, then exit 128 + the signal number. A
    BaseException, as KeyboardInterrupt is, so that no implementation's `except Exception` swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """SIGTERM and SIGHUP raise Interrupted inside the block, as SIGINT raises KeyboardInterrupt."""

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted(signum)

    handlers = {signum: signal.signal(signum, interrupt) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


@dataclass
class Run:
    """A finished (or interrupted) run: a result for every selected test, in order."""

    info: Info
    results: list[Result]
    seconds: float
    interrupted: int = 0  # the signal that cut the run short, if one did

    @property
    def cause(self) -> str:
        return signal.Signals(self.interrupted).name if self.interrupted else ""

    def counts(self) -> Counter[Status]:
        return Counter(result.status for result in self.results)

    def failed(self, strict: bool) -> bool:
        """Whether a verdict fails the run."""
        return any(result.status.fails_run(strict) for result in self.results)

    @property
    def judged_nothing(self) -> bool:
        """Whether every test was left unjudged: unsupported or skipped (a run that must never look green)."""
        return all(result.status in (Status.UNSUPPORTED, Status.SKIP) for result in self.results)


def run_cases(
    implementation: Implementation,
    selection: Selection,
    options: Options,
    progress: Callable[[Result], None] = lambda result: None,
) -> Run:
    """Judge every selected test: those without an expectation are skip, and when the run is interrupted (Ctrl-C,
    or Interrupted inside ``interruptible``) those not yet judged are not-run. StartFailure when the
    implementation cannot start at all."""
    runner = Runner(implementation, options, progress)
    started = time.perf_counter()
    interrupted = 0
    try:
        runner.run([(group, [test for test in tests if test.expect is not None]) for group, tests in selection])
    except KeyboardInterrupt:
        interrupted = signal.SIGINT
    except Interrupted as exc:
        interrupted = exc.signum
    judged = {result.test.id: result for result in runner.results}
    cause = signal.Signals(interrupted).name if interrupted else ""
    results = [judged.get(test.id) or _unjudged(test, cause) for _, tests in selection for test in tests]
    return Run(implementation.info, results, time.perf_counter() - started, interrupted)


def _unjudged(test: Test, cause: str) -> Result:
    if test.expect is None:
        return Result(test, Status.SKIP, message="the case has no expect (--allow-unrecorded)")
    return Result(test, Status.NOT_RUN, message=f"the run was interrupted ({cause})")


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
                    self.apply_known(result)
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
        info = self.implementation.info
        judged = not self.options.stream or info.streams
        results = {test.id: Result(test, Status.UNSUPPORTED) for test in tests if not test.features <= info.features}
        supported = [test for test in tests if test.features <= info.features] if judged else []
        results |= {test.id: Result(test, Status.UNSUPPORTED, message="it does not stream") for test in tests
                    if not judged}  # fmt: skip
        if supported:
            for result in self.batch(group, supported):
                results[result.test.id] = result
        return [results[test.id] for test in tests]

    def batch(self, group: Group, tests: list[Test]) -> list[Result]:
        """All tests of a group in one request; after a protocol failure, restart and run them one at a time,
        so that only the culprit is marked."""
        if not self.alive:
            return [Result(test, Status.NOT_RUN, message="the restart budget is spent") for test in tests]
        started = time.perf_counter()
        try:
            outcomes = self.implementation.run(group, tests, self.options.timeout)
        except ProtocolFailure as failure:
            if len(tests) == 1:
                return [self.failed(tests[0], failure, started)]
            if not failure.in_sync and not self.restart():
                return [Result(test, Status.NOT_RUN, message="the restart budget is spent") for test in tests]
            return [result for test in tests for result in self.batch(group, [test])]
        each = (time.perf_counter() - started) * 1000 / len(tests)
        return [self.judge(test, outcome, each) for test, outcome in zip(tests, outcomes, strict=True)]

    def failed(self, test: Test, failure: ProtocolFailure, started: float) -> Result:
        result = Result(
            test,
            Status(failure.status),
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
        lag = outcome.pop("lag", None) if isinstance(outcome, dict) and self.options.stream else None
        result = self._judged(test, outcome, duration_ms)
        result.lag = lag  # streaming: measured against the reference, never judged
        return result

    def _judged(self, test: Test, outcome: Any, duration_ms: float) -> Result:
        problem = result_problem(outcome)
        if problem:
            return Result(test, Status.ERROR, None, duration_ms, problem)
        if "skip" in outcome:
            return Result(test, Status.SKIP, outcome, duration_ms, str(outcome["skip"]))
        if "unrepresentable" in outcome:  # its result was NaN, undefined, too deep...: never a pass
            message = f"the result cannot be written as JSON: {outcome['unrepresentable']}"
            return Result(test, Status.ERROR, outcome, duration_ms, message)
        assert test.expect is not None
        categorized = self.implementation.info.categorizes_errors
        status = Status.PASS if matches(test.expect, outcome, categorized) else Status.FAIL
        return Result(test, status, outcome, duration_ms)

    def apply_known(self, result: Result) -> None:
        """A test with a known failure: xfail when it failed as the entry says, xpass when it passed."""
        entry = self.options.known_failures.get(result.test.id)
        if entry is None:
            return
        result.known = entry
        if result.status == Status.PASS:
            result.status = Status.XPASS
        elif result.status == entry.status:
            result.status = Status.XFAIL
