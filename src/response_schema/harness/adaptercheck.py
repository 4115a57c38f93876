"""`conformance adapter-check`: a protocol self-test of an adapter, before any conformance run.

Each check sends one awkward message whose right answer every implementation gives (a `string` node returns its
input unchanged, [STR-1]; the `json` parser keeps `null`, [JSON-1]) and says, when the answer is wrong, what in
the adapter to fix. It judges the adapter, not the parsing: a wrong category is not its concern."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .corpus import Group, Test
from .implementations import Subprocess
from .protocol import ProtocolFailure

STRING = {"type": "string"}
JSON = {"x-parser": "json"}


@dataclass
class Check:
    name: str
    ok: bool
    detail: str = ""


def _test(index: int, text: str) -> Test:
    return Test(f"adapter-check.t{index}", "", (), frozenset(), frozenset(), text, None, "", "", "adapter-check", "")


def _run(implementation: Subprocess, schema: Any, inputs: list[str], timeout: float) -> list[Any]:
    """One request, answered within ``timeout`` seconds however many tests it holds."""
    tests = tuple(_test(index, text) for index, text in enumerate(inputs))
    return implementation.run(Group("adapter-check", "", schema, tests, "", ""), list(tests), timeout / len(tests))


def _echo(implementation: Subprocess, inputs: list[str], timeout: float) -> str:
    """ "" when a string node gave every input back unchanged, else what went wrong."""
    for text, result in zip(inputs, _run(implementation, STRING, inputs, timeout), strict=True):
        if result != {"output": text}:
            return f"input {text[:40]!r} came back as {str(result)[:120]}"
    return ""


def _hello(implementation: Subprocess, registry: frozenset[str], timeout: float) -> str:
    info = implementation.info
    unknown = sorted(info.features - registry)
    if unknown:
        return f"unknown features {unknown}"
    if not info.name or not info.language:
        return "the implementation object needs a name and a language"
    return ""


def _hundred(implementation: Subprocess, registry: frozenset[str], timeout: float) -> str:
    for index in range(100):
        problem = _echo(implementation, [f"group {index}"], timeout)
        if problem:
            return f"group {index}: {problem}"
    return ""


def _null_kept(implementation: Subprocess, registry: frozenset[str], timeout: float) -> str:
    (result,) = _run(implementation, JSON, ['{"a": null, "b": [null]}'], timeout)
    if result != {"output": {"a": None, "b": [None]}}:
        return (
            f"got {str(result)[:120]}: a key whose value is null was dropped or changed (JavaScript: a value "
            "set to undefined, which JSON.stringify drops)"
        )
    return ""


def _deep(implementation: Subprocess, registry: frozenset[str], timeout: float) -> str:
    (result,) = _run(implementation, JSON, ["[" * 200 + "]" * 200], timeout)
    value, depth = result.get("output"), 0
    while isinstance(value, list) and value:
        value, depth = value[0], depth + 1
    return "" if depth == 199 else f"200 nested arrays came back as {str(result)[:80]}"


def _non_finite(implementation: Subprocess, registry: frozenset[str], timeout: float) -> str:
    results = _run(implementation, {"type": "number"}, ["nan", "inf", "1e999"], timeout)
    for text, result in zip(["nan", "inf", "1e999"], results, strict=True):
        if "output" in result:
            return (
                f"{text!r} gave {str(result)[:80]}: if the implementation produced NaN or an infinity, the "
                'adapter must answer {"unrepresentable": "..."} (JSON.stringify writes NaN as null)'
            )
    return ""


def _restarts(implementation: Subprocess, registry: frozenset[str], timeout: float) -> str:
    started = time.monotonic()
    _echo(implementation, ["before shutdown"], timeout)
    implementation.stop()
    implementation.start()
    return "" if time.monotonic() - started < 30 else "shutdown and restart took more than 30 s"


def _streams(implementation: Subprocess, registry: frozenset[str], timeout: float) -> str:
    """Protocol 2 only: a string node streamed with a prefix and empty chunks ends at its one-shot value, with one
    partial value per chunk, each a prefix of the end (or null)."""
    if not implementation.info.streams:
        return ""  # protocol 1: under --stream its tests are unsupported, which is not the adapter's mistake
    test = Test("adapter-check.stream", "", (), frozenset(), frozenset(), "abc", None, "", "", "adapter-check", "", "x")
    group = Group("adapter-check", "", STRING, (test,), "", "")
    cuts = [["ab", "c"], ["", "abc", ""]]
    for chunks, (partials, end) in zip(cuts, implementation.stream(group, test, cuts, timeout), strict=True):
        if end != {"output": "xabc"}:
            return f"chunks {chunks} with the prefix 'x' ended with {str(end)[:80]}, not the output 'xabc'"
        for partial in partials:
            if partial is not None and not (isinstance(partial, str) and "xabc".startswith(partial)):
                return f"chunks {chunks} sent {str(partial)[:80]}, not a part of 'xabc' (and null for nothing)"
    return ""


def _echoes(*inputs: str) -> Callable[[Subprocess, frozenset[str], float], str]:
    return lambda implementation, registry, timeout: _echo(implementation, list(inputs), timeout)


# Each check: its name, the fix for the mistake it finds, and the work (a problem, or "" when it passed).
CHECKS: list[tuple[str, str, Callable[[Subprocess, frozenset[str], float], str]]] = [
    ("hello names the implementation and only registered features", "see features.json", _hello),
    (
        "text outside the BMP, accents and newlines come back unchanged",
        "read and write UTF-8; keep strings as code points",
        _echoes("😀 é\n\r\t x", "a\u2028b", "\u0000"),
    ),
    (
        "a lone surrogate comes back unchanged",
        'decode the request with a JSON reader that keeps "\\ud800" and write it back as that escape',
        _echoes("\ud800", "x\udfffy"),
    ),
    ("the empty input is an input", "send every test's input, even an empty one", _echoes("")),
    (
        "a batch of 1,000 tests gets 1,000 results in order",
        "answer every test of a run request, in its order",
        _echoes(*(f"t{index}" for index in range(1000))),
    ),
    ("a hundred requests in a row", "answer each request with its own seq", _hundred),
    ("null values and keys survive", "write null as null; never turn null into undefined", _null_kept),
    ("values nested 200 deep are written", "write deep values without recursion limits", _deep),
    (
        "NaN and infinities are never written as JSON values",
        'check results before writing them and answer {"unrepresentable": reason}',
        _non_finite,
    ),
    (
        "a stream gives one partial value per chunk and ends at the one-shot value (protocol 2)",
        "answer stream with a result per chunking: the partials after each chunk, then the end as a run result",
        _streams,
    ),
    ("shutdown ends the program, and it starts again", "exit on shutdown", _restarts),
]


def check_adapter(implementation: Subprocess, registry: frozenset[str], timeout: float) -> list[Check]:
    """Every check, in order, each request answered within ``timeout`` seconds (whatever its number of tests);
    a protocol failure in one restarts the program for the next (ProtocolFailure when it cannot restart)."""
    checks: list[Check] = []
    for name, fix, work in CHECKS:
        try:
            problem = work(implementation, registry, timeout)
        except ProtocolFailure as failure:
            problem = f"{failure.status}: {failure.message}"
            fix = _fix_for(failure, implementation.stderr_tail(300)) or fix
            implementation.stop()
            try:
                implementation.start()
            except ProtocolFailure as again:
                checks.append(Check(name, False, f"{problem}; then it did not restart ({again.message}). Fix: {fix}"))
                raise
        checks.append(Check(name, not problem, f"{problem}. Fix: {fix}" if problem else ""))
    return checks


def _fix_for(failure: ProtocolFailure, stderr: str) -> str:
    """The fix for a protocol failure, named after what actually went wrong ("" when the check's own fix is it)."""
    if failure.message.startswith("not a JSON line"):
        return "only protocol answers may go to stdout: send prints and logs to stderr (the kit adapters do)"
    if failure.status == "timeout":
        return (
            "answer each request within --timeout: read one line, write one answer line and flush it (an adapter "
            "that buffers its output, or waits for more input, stops answering)"
        )
    if failure.status == "crash":
        tail = " ".join(stderr.split())[-200:]
        return "the program exited on this request: see its stderr" + (f" ({tail})" if tail else "")
    if "results for" in failure.message:
        return "answer a run request with exactly one result per test"
    if failure.message.startswith("answer has seq"):
        return "answer each run request with the seq it was sent"
    return ""
