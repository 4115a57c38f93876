"""Verdicts: the status a test gets (PROTOCOL.md "Verdicts"), the result that carries it, and known failures
(the file format of conformance/README.md "Known failures")."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from ..files import FileProblem, load_json
from .corpus import Corpus, Test
from .expect import Outcome


class Status(str, Enum):
    """A test's verdict. Its value is the name reports and known-failures files use."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    TIMEOUT = "timeout"
    CRASH = "crash"
    UNSUPPORTED = "unsupported"
    SKIP = "skip"
    XFAIL = "xfail"
    XPASS = "xpass"
    NOT_RUN = "not-run"

    def __str__(self) -> str:  # "pass", not "Status.PASS", in f-strings on every Python
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @property
    def failing(self) -> bool:
        """Whether the implementation did not conform (unless a known failure expects it)."""
        return self in FAILING

    def fails_run(self, strict: bool) -> bool:
        """Whether this verdict fails the run: a failing status, or under --strict also xpass and skip."""
        return self.failing or (strict and self in (Status.XPASS, Status.SKIP))


FAILING = frozenset({Status.FAIL, Status.ERROR, Status.TIMEOUT, Status.CRASH, Status.NOT_RUN})
# What a known failure may name: the implementation's own failures (not-run is the harness's, pass is no failure).
KNOWN_STATUSES = frozenset({Status.FAIL, Status.ERROR, Status.TIMEOUT, Status.CRASH})


@dataclass
class KnownFailure:
    """An entry of a known-failures file: the status the test is known to get, why, and where that is told."""

    status: Status
    reason: str
    link: str = ""

    def as_json(self) -> dict[str, str]:
        return {"status": self.status.value, "reason": self.reason} | ({"link": self.link} if self.link else {})


@dataclass
class Result:
    """What one test got: its status, the implementation's outcome, and what explains it."""

    test: Test
    status: Status
    actual: Outcome | None = None
    duration_ms: float = 0.0
    message: str = ""
    stderr: str = ""
    known: KnownFailure | None = None
    lag: dict[str, float] | None = None  # streaming: characters behind the reference ([STREAM-6])

    def as_json(self) -> dict[str, Any]:
        """The test's record in the JSON-lines report."""
        line: dict[str, Any] = {
            "id": self.test.id,
            "group": self.test.group_id,
            "area": self.test.area,
            "status": self.status.value,
            "expected": self.test.expect,
            "actual": self.actual,
            "duration_ms": round(self.duration_ms, 3),
            "rules": list(self.test.rules),
            "features": sorted(self.test.features),
            "tags": sorted(self.test.tags),
        }
        if self.known is not None:
            line["known_failure"] = self.known.as_json()
        if self.lag is not None:
            line["lag"] = self.lag
        if self.message:
            line["message"] = self.message
        if self.stderr:
            line["stderr"] = self.stderr
        return line


def read_known_failures(path: Path, corpus: Corpus) -> dict[str, KnownFailure]:
    """The entries of a known-failures file, keyed by test id; ValueError listing every problem with its pointer.
    An entry must name a test of ``corpus`` and one of KNOWN_STATUSES (a known failure that passes is what
    xpass reports, not an entry)."""
    try:
        data = load_json(path)
    except FileProblem as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must be an object keyed by test id")
    ids = {test.id for test in corpus.tests}
    statuses = sorted(status.value for status in KNOWN_STATUSES)
    known = {}
    problems = []
    for test_id, entry in data.items():
        if test_id.startswith("$"):
            continue  # "$comment" and the like
        if (
            not isinstance(entry, dict)
            or entry.get("status") not in statuses
            or not isinstance(entry.get("reason"), str)
            or not isinstance(entry.get("link", ""), str)
        ):
            problems.append(f"/{test_id}: needs a status (one of {', '.join(statuses)}), a reason and maybe a link")
        elif test_id not in ids:
            problems.append(f"/{test_id}: no such test in the cases")
        else:
            known[test_id] = KnownFailure(Status(entry["status"]), entry["reason"], entry.get("link", ""))
    if problems:
        raise ValueError("\n".join(f"{path}: {problem}" for problem in problems))
    return known
