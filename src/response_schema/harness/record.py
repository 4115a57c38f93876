"""`conformance record`: a case file's missing expectations filled from the reference, written into the file's
own text, so that a diff shows only the new expectations (the file's layout, key order and escapes are kept)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..files import read_text, write_file
from ..jsontext import dumps, load_strict
from .corpus import Group, Test, load
from .expect import reference_expectations
from .implementations import InProcess, Reference
from .isolation import Forked
from .protocol import ProtocolFailure

Place = tuple[str | int, ...]  # where a value is in the file's JSON: keys and indexes from the root


class RecordProblem(Exception):
    """The file cannot be recorded: it has problems, or the reference cannot give an expectation in time."""


def fill_expectations(path: Path, timeout: float) -> int:
    """Fill every test of ``path`` without ``expect`` and write the file (only when something was filled); the
    number filled. RecordProblem or FileProblem when that cannot be done."""
    corpus = load([path])
    if corpus.problems:
        raise RecordProblem("\n".join(str(problem) for problem in corpus.problems))
    text = read_text(path)
    data = load_strict(text)
    missing: list[tuple[Place, Group, Test]] = [
        (("groups", g, "tests", t), group, test)
        for g, group in enumerate(corpus.groups)
        for t, test in enumerate(group.tests)
        if "expect" not in data["groups"][g]["tests"][t]
    ]
    if not missing:
        return 0
    worker = Forked(_Expectations())
    worker.start()
    try:
        insertions = {place: _expectation(worker, group, test, timeout) for place, group, test in missing}
    finally:
        worker.stop()
    write_file(path, _with_members(text, insertions))
    return len(insertions)


class _Expectations(InProcess):
    """The reference's expectations, in the shape of a run's outcomes (one per test)."""

    info = Reference.info

    def run(self, group: Group, tests: list[Test], timeout: float) -> list[Any]:
        return reference_expectations(group.schema, [test.text for test in tests], [test.tools for test in tests])


def _expectation(worker: Forked, group: Group, test: Test, timeout: float) -> Any:
    try:
        (expect,) = worker.run(group, [test], timeout)
    except ProtocolFailure as failure:
        raise RecordProblem(f"{test.id}: the reference gave no expectation: {failure.message}") from None
    return expect


def _with_members(text: str, insertions: dict[Place, Any]) -> str:
    """``text`` with an ``"expect"`` member added at the end of each object named in ``insertions``, laid out as
    the object's other members are (on one line, or one member a line at their indentation)."""
    ends = _object_ends(text)
    for place in sorted(insertions, key=lambda place: ends[place], reverse=True):
        close = ends[place]  # the offset of the object's "}"
        last = len(text[:close].rstrip())  # just after its last member
        line_start = text.rfind("\n", 0, last) + 1
        indent = text[line_start : _skip(text, line_start)].strip("\n\r")
        if "\n" in text[last:close]:
            outer = text[text.rfind("\n", 0, close) + 1 : close]
            step = indent[len(outer) :] or "  "
            value = dumps(insertions[place], indent=len(step)).replace("\n", "\n" + indent)
            member = f',\n{indent}"expect": {value}'
        else:
            member = f', "expect": {dumps(insertions[place])}'
        text = text[:last] + member + text[last:]
    return text


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"[^,\]}\s]+")


def _skip(text: str, at: int) -> int:
    """The offset of the first character at or after ``at`` that is not JSON whitespace."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _object_ends(text: str) -> dict[Place, int]:
    """Where each object of a (valid) JSON text closes: the offset of its "}", keyed by its place."""
    ends: dict[Place, int] = {}

    def value(at: int, place: Place) -> int:
        at = _skip(text, at)
        if text[at] in "{[":
            closer, index = ("}" if text[at] == "{" else "]"), 0
            at = _skip(text, at + 1)
            while text[at] != closer:
                if closer == "}":
                    key = _STRING.match(text, at)
                    assert key is not None
                    at = _skip(text, value(_skip(text, key.end()) + 1, (*place, json.loads(key.group()))))
                else:
                    at = _skip(text, value(at, (*place, index)))
                    index += 1
                if text[at] == ",":
                    at = _skip(text, at + 1)
            if closer == "}":
                ends[place] = at
            return at + 1
        token = _STRING.match(text, at) if text[at] == '"' else _SCALAR.match(text, at)
        assert token is not None
        return token.end()

    value(0, ())
    return ends
