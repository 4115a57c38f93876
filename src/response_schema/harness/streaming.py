"""`conformance run --stream`: every test streamed under many chunkings, and checked against SPEC.md section 14.

For each test the harness cuts the input into chunks in several ways (whole, one character at a time, every
two-way cut of a short input, seeded random sizes, a cut at each side of every special marker) and streams each
chunking. It checks, after every chunk, that what was sent is a part (⊑) of the expected result and of what is
sent next ([STREAM-3]), and that every chunking ends where the whole input does ([STREAM-4], [STREAM-5]). The
outcome of the whole-input chunking is then judged against the expectation like any one-shot outcome; a violation
is an outcome that fails, whose message names the first violating chunking, minimised."""

from __future__ import annotations

import copy
import itertools
import random
import re
from collections.abc import Callable
from typing import Any

from ..jsontext import dumps, json_equal
from .corpus import Group, Test
from .expect import Outcome
from .protocol import Info

SHORT = 80  # inputs up to this long are also cut at every point, in two
RANDOM_CHUNKINGS = 4
MARKER = re.compile(r"<[|\uff5c/]?[^<>\s]{1,40}?[|\uff5c]?>|\[/?[A-Z_]{2,20}\]")
Opener = Callable[[Any, str], Any]  # (schema, prefix) -> a stream with feed, finish and message


def chunkings(text: str, seed: int = 0) -> list[list[str]]:
    """The ways the harness cuts ``text``, each a list of chunks that add up to it, without repeats."""
    found = [[text], list(text) or [""], ["", text, ""]]
    if len(text) <= SHORT:
        found += [[text[:cut], text[cut:]] for cut in range(1, len(text))]
    rng = random.Random(f"{seed}:{text}")
    for _ in range(RANDOM_CHUNKINGS):
        chunks, at = [], 0
        while at < len(text):
            size = rng.randint(1, 8)
            chunks.append(text[at : at + size])
            at += size
        found.append(chunks)
    cuts = sorted({0, len(text)} | {edge for match in MARKER.finditer(text) for edge in match.span()})
    found.append([text[start:end] for start, end in itertools.pairwise(cuts)] or [""])
    unique: dict[str, list[str]] = {}
    for chunks in found:
        unique.setdefault(dumps(chunks), chunks)
    return list(unique.values())


def part_of(partial: Any, value: Any) -> bool:
    """``partial ⊑ value`` ([STREAM-2]). A partial value of None is nothing sent, a part of everything; below the
    root, null is a value like any other."""
    return partial is None or _part(partial, value)


def _part(partial: Any, value: Any) -> bool:
    if isinstance(partial, dict):
        return isinstance(value, dict) and all(
            key in value and _part(item, value[key]) for key, item in partial.items()
        )
    if isinstance(partial, list):
        return (
            isinstance(value, list)
            and len(partial) <= len(value)
            and all(_part(item, other) for item, other in zip(partial, value, strict=False))
        )
    if isinstance(partial, str):
        return isinstance(value, str) and value.startswith(partial)
    return json_equal(partial, value)


class Streamed:
    """An implementation's streams, judged as a runner Implementation: ``run`` streams each test under every
    chunking and returns the whole input's outcome, or a failing outcome naming a violation."""

    def __init__(self, info: Info, opener: Opener, seed: int = 0) -> None:
        self.info = info
        self.opener = opener
        self.seed = seed

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def stderr_tail(self) -> str:
        return ""

    def run(self, group: Group, tests: list[Test], timeout: float) -> list[Outcome]:
        return [self.judge(group.schema, test) for test in tests]

    def judge(self, schema: Any, test: Test) -> Outcome:
        expected = test.expect["output"] if test.expect and "output" in test.expect else _NO_OUTPUT
        whole = self.stream(schema, test.prefix, [test.input])[1]
        for chunks in chunkings(test.input, self.seed):
            if self.violation(schema, test.prefix, chunks, expected, whole):
                small = _minimised(chunks, lambda cut: bool(self.violation(schema, test.prefix, cut, expected, whole)))
                message = f"chunks {dumps(small)}: {self.violation(schema, test.prefix, small, expected, whole)}"
                return {"error": {"phase": "stream", "category": "violation", "message": message}}
        return whole

    def violation(self, schema: Any, prefix: str, chunks: list[str], expected: Any, whole: Outcome) -> str:
        """What this chunking breaks of section 14, or ""."""
        partials, end = self.stream(schema, prefix, chunks)
        for index, partial in enumerate(partials):
            if expected is not _NO_OUTPUT and not part_of(partial, expected):
                return f"[STREAM-3] after chunk {index + 1} it had sent {dumps(partial)}, not a part of the result"
            if index + 1 < len(partials) and not part_of(partial, partials[index + 1]):
                return f"[STREAM-3] after chunk {index + 2} it took back part of {dumps(partial)}"
        if not _same(end, whole):
            rule = "[STREAM-5]" if "error" in end or "error" in whole else "[STREAM-4]"
            return f"{rule} it ended with {_shown(end)}, the whole input with {_shown(whole)}"
        return ""

    def stream(self, schema: Any, prefix: str, chunks: list[str]) -> tuple[list[Any], Outcome]:
        """The partial value after each chunk, and the outcome after finishing."""
        partials: list[Any] = []
        try:
            stream = self.opener(schema, prefix)
            for chunk in chunks:
                stream.feed(chunk)
                partials.append(copy.deepcopy(stream.message))
            stream.finish()
            return partials, {"output": stream.message}
        except Exception as exc:  # the implementation's error, whatever it raised, is its answer
            error = {"phase": getattr(exc, "phase", None), "category": getattr(exc, "category", None)}
            return partials, {"error": error | {"message": f"{type(exc).__name__}: {exc}"}}


_NO_OUTPUT = object()  # the expectation is an error: [STREAM-3] then only forbids taking back


def _same(left: Outcome, right: Outcome) -> bool:
    if ("error" in left) != ("error" in right):
        return False
    if "error" in left:
        return all(left["error"].get(field) == right["error"].get(field) for field in ("phase", "category"))
    return json_equal(left["output"], right["output"])


def _shown(outcome: Outcome) -> str:
    if "error" in outcome:
        return f"error {outcome['error'].get('phase')}/{outcome['error'].get('category')}"
    return dumps(outcome["output"])


def _minimised(chunks: list[str], violates: Callable[[list[str]], bool]) -> list[str]:
    """Fewer chunks that still violate: adjacent chunks merged while the violation stays."""
    merged = True
    while merged and len(chunks) > 1:
        merged = False
        for index in range(len(chunks) - 1):
            candidate = [*chunks[:index], chunks[index] + chunks[index + 1], *chunks[index + 2 :]]
            if violates(candidate):
                chunks, merged = candidate, True
                break
    return chunks
