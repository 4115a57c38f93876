"""`conformance run --stream`: every test streamed under many chunkings, and checked against SPEC.md section 14.

For each test the harness cuts the input into chunks in several ways (whole, one character at a time, every
two-way cut of a short input, seeded random sizes, a cut at each side of every special marker) and streams each
chunking. It checks, after every chunk, that what was sent is a part (⊑) of the expected result and of what is
sent next ([STREAM-3]), and that every chunking ends where the whole input does ([STREAM-4], [STREAM-5]). The
outcome of the whole-input chunking is then judged against the expectation like any one-shot outcome; a violation
is an outcome that fails, whose message names the first violating chunking, minimised.

Lag ([STREAM-6]) is measured, never judged: on the one-character chunking, how many more characters the
implementation needed before it had sent what the reference had sent (``lag``, carried beside the outcome into
the report)."""

from __future__ import annotations

import copy
import itertools
import random
import re
from collections.abc import Callable
from typing import Any

from .. import compile as compile_schema
from ..errors import ResponseSchemaError
from ..jsontext import dumps, json_equal
from .corpus import Group, Test
from .expect import Outcome
from .protocol import Info

SHORT = 80  # inputs up to this long are also cut at every point, in two
RANDOM_CHUNKINGS = 4
MARKER = re.compile(r"<[|\uff5c/]?[^<>\s]{1,40}?[|\uff5c]?>|\[/?[A-Z_]{2,20}\]")
Opener = Callable[..., Any]  # (schema, prefix[, tools=]) -> a stream with feed, finish and message


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


OneStream = tuple[list[Any], Outcome]  # one stream: the partial value after each chunk, and the end (a run result)
Streams = Callable[[Group, Test, list[list[str]], float], list[OneStream]]  # (..., chunkings, timeout): per chunking


def in_process(opener: Opener) -> Streams:
    """The streams of an in-process implementation: ``opener(schema, prefix)`` opens one."""

    def streams(group: Group, test: Test, chunkings: list[list[str]], timeout: float) -> list[OneStream]:
        return [stream_once(opener, group.schema, test.prefix, chunks, test.tools) for chunks in chunkings]

    return streams


def stream_once(opener: Opener, schema: Any, prefix: str, chunks: list[str], tools: Any = None) -> OneStream:
    """One stream of an in-process implementation; what it raises is its error (a partial per chunk even then).
    The tools, when there are some, are passed as ``tools=`` (SPEC section 15)."""
    partials: list[Any] = []
    try:
        stream = opener(schema, prefix) if tools is None else opener(schema, prefix, tools=tools)
        for chunk in chunks:
            stream.feed(chunk)
            partials.append(copy.deepcopy(stream.message))
        stream.finish()
        return partials, {"output": stream.message}
    except Exception as exc:  # the implementation's error, whatever it raised, is its answer
        partials += [partials[-1] if partials else None] * (len(chunks) - len(partials))
        error = {"phase": getattr(exc, "phase", None), "category": getattr(exc, "category", None)}
        return partials, {"error": error | {"message": f"{type(exc).__name__}: {exc}"}}


class Streamed:
    """An implementation's streams, judged as a runner Implementation: ``run`` streams each test under every
    chunking and returns the whole input's outcome, or a failing outcome naming a violation. ``inner`` is the
    implementation (started, stopped and named through it); ``streams`` runs its streams."""

    def __init__(self, inner: Any, streams: Streams, seed: int = 0) -> None:
        self.inner = inner
        self.streams = streams
        self.seed = seed
        self.info: Info = inner.info

    def start(self) -> None:
        self.inner.start()
        self.info = self.inner.info  # a process says what it is in its hello

    def stop(self) -> None:
        self.inner.stop()

    def stderr_tail(self) -> str:
        return self.inner.stderr_tail()  # type: ignore[no-any-return]

    def run(self, group: Group, tests: list[Test], timeout: float) -> list[Outcome]:
        return [self.judge(group, test, timeout) for test in tests]

    def judge(self, group: Group, test: Test, timeout: float) -> Outcome:
        expected = test.expect["output"] if test.expect and "output" in test.expect else _NO_OUTPUT
        cuts = [[test.input], *(chunks for chunks in chunkings(test.input, self.seed) if chunks != [test.input])]
        streamed = self.streams(group, test, cuts, timeout)
        whole = streamed[0][1]
        for chunks, (partials, end) in zip(cuts, streamed, strict=True):
            if violation(partials, end, expected, whole):

                def found(cut: list[str]) -> str:
                    return violation(*self.streams(group, test, [cut], timeout)[0], expected, whole)

                small = _minimised(chunks, lambda cut: bool(found(cut)))
                message = f"chunks {dumps(small)}: {found(small)}"
                return {"error": {"phase": "stream", "category": "violation", "message": message}}
        single = next((index for index, chunks in enumerate(cuts) if chunks == list(test.input)), None)
        if expected is _NO_OUTPUT or single is None or not _same(whole, {"output": expected}):
            return whole  # lag is measured on streams that end at the result
        reference = reference_partials(group.schema, test.prefix, test.input, test.tools)
        behind = lag(reference, streamed[single][0], expected)
        return whole if behind is None else whole | {"lag": behind}


def violation(partials: list[Any], end: Outcome, expected: Any, whole: Outcome) -> str:
    """What one stream breaks of section 14, or ""."""
    for index, partial in enumerate(partials):
        if expected is not _NO_OUTPUT and not part_of(partial, expected):
            return f"[STREAM-3] after chunk {index + 1} it had sent {dumps(partial)}, not a part of the result"
        if index + 1 < len(partials) and not part_of(partial, partials[index + 1]):
            return f"[STREAM-3] after chunk {index + 2} it took back part of {dumps(partial)}"
    if not _same(end, whole):
        rule = "[STREAM-5]" if "error" in end or "error" in whole else "[STREAM-4]"
        return f"{rule} it ended with {_shown(end)}, the whole input with {_shown(whole)}"
    return ""


_NO_OUTPUT = object()  # the expectation is an error: [STREAM-3] then only forbids taking back


def reference_partials(schema: Any, prefix: str, text: str, tools: Any = None) -> list[Any] | None:
    """What the reference has sent after each character of ``text``; None when it cannot stream the test."""
    try:
        stream = compile_schema(schema).stream(prefix, tools)
        partials = []
        for char in text:
            stream.feed(char)
            partials.append(stream.message)
        return partials
    except (ResponseSchemaError, ValueError, TypeError):
        return None


def lag(reference: list[Any] | None, partials: list[Any], result: Any) -> dict[str, float] | None:
    """[STREAM-6] lag against the reference, one character at a time: after character i, the reference had sent
    ``reference[i]``; the implementation had sent it too only after character j >= i (j = len for its end).
    The mean and the largest j - i, in characters; None when there is nothing to compare."""
    if not reference or len(reference) != len(partials):
        return None
    sent = [*partials, result]
    behind, j = [], 0
    for i, ahead in enumerate(reference):
        j = max(j, i)
        while j < len(partials) and not part_of(ahead, sent[j]):
            j += 1
        behind.append(j - i)
    return {"mean": round(sum(behind) / len(behind), 3), "max": max(behind)}


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
