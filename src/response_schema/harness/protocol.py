"""The harness protocol (conformance/PROTOCOL.md, versions 1 and 2) in one place: its requests, its answers, how
each is checked, and its limits. The harness side (implementations.py) builds requests and checks answers; the
serving side (serve.py) checks requests and builds answers; both from here."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..jsontext import MAX_DEPTH, deeper_than
from ..schema import is_json_value
from .corpus import Group, Test

PROTOCOL = 1  # what hello asks for, so that a version 1 implementation answers
PROTOCOLS = (1, 2)  # what the harness speaks: version 2 adds the stream command (SPEC section 14)
LINE_LIMIT = 64 * 1024 * 1024  # PROTOCOL.md "Verdicts": the longest answer line read; longer is `error`
ANSWER_DEPTH = MAX_DEPTH  # PROTOCOL.md "Transport": an answer nests at most this deep
RESULT_KINDS = ("output", "error", "skip", "unrepresentable")  # PROTOCOL.md "run": each result is one of these
ERROR_PHASES = ("schema", "input")


@dataclass
class Info:
    """What an implementation says about itself: the hello answer."""

    name: str
    version: str
    language: str
    features: frozenset[str]
    categorizes_errors: bool = True
    streams: bool = False  # it answers the stream command (protocol 2)
    extra: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "language": self.language,
            "features": sorted(self.features),
            "categorizes_errors": self.categorizes_errors,
        }


class ProtocolFailure(Exception):
    """The implementation did not answer as the protocol says. ``status`` is the verdict it earns:
    crash (it exited or closed stdout), timeout, or error (garbage, wrong seq, wrong count). ``in_sync``
    when the process is known to be fine and ready for the next request, so it need not be restarted."""

    def __init__(self, status: str, message: str, in_sync: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.in_sync = in_sync


# The harness's side: requests it sends, answers it checks.


def hello_request() -> dict[str, Any]:
    return {"cmd": "hello", "protocol": PROTOCOL, "protocols": list(PROTOCOLS)}


def info_of(answer: dict[str, Any], fallback_name: str) -> Info:
    """The Info of a hello answer; ProtocolFailure when it is not one."""
    version = answer.get("protocol")
    if version not in PROTOCOLS or isinstance(version, bool):
        raise ProtocolFailure("error", f"hello answered protocol {version!r}, not 1 or 2")
    implementation = answer.get("implementation")
    features = answer.get("features", [])
    if not isinstance(implementation, dict) or not isinstance(features, list):
        raise ProtocolFailure("error", "hello answer needs an implementation object and a features array")
    return Info(
        name=_shown(implementation.get("name", fallback_name)),
        version=_shown(implementation.get("version", "")),
        language=_shown(implementation.get("language", "")),
        features=frozenset(str(feature) for feature in features),
        categorizes_errors=answer.get("categorizes_errors", True) is not False,
        streams=version == 2,
    )


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _shown(value: Any, limit: int = 120) -> str:
    """A name from a hello answer as reports and terminals may show it: one line, control characters (an ANSI
    escape, a newline) and lone surrogates written as escapes, at most ``limit`` characters."""
    text = _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}" if ord(match.group()) < 256
                        else f"\\u{ord(match.group()):04x}", str(value))  # fmt: skip
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_request(seq: int, group: Group, tests: list[Test]) -> dict[str, Any]:
    return {
        "cmd": "run",
        "seq": seq,
        "group": group.id,
        "schema": group.schema,
        "tests": [_with_tools({"id": test.id, "input": test.text}, test) for test in tests],
    }


def run_results(answer: dict[str, Any], seq: int, count: int) -> list[Any]:
    """The results of a run answer; ProtocolFailure for a wrong seq or a wrong number of results."""
    if answer.get("seq") != seq:
        raise ProtocolFailure("error", f"answer has seq {answer.get('seq')!r}, expected {seq}")
    results = answer.get("results")
    if not isinstance(results, list) or len(results) != count:
        found = len(results) if isinstance(results, list) else "no"
        raise ProtocolFailure("error", f"answer has {found} results for {count} tests")
    return results


def stream_request(seq: int, group: Group, test: Test, chunkings: list[list[str]]) -> dict[str, Any]:
    """Protocol 2: one test, streamed once per chunking ([STREAM-1]): the prefix, then the chunks, then finish."""
    return {
        "cmd": "stream",
        "seq": seq,
        "group": group.id,
        "schema": group.schema,
        "test": test.id,
        "prefix": test.prefix,
        "chunkings": chunkings,
    } | ({"tools": test.tools} if test.tools is not None else {})


def _with_tools(item: dict[str, Any], test: Test) -> dict[str, Any]:
    """A test of a request, with the request's tools when it has some (SPEC section 15; only implementations
    with the feature typed-arguments are sent such tests)."""
    return item if test.tools is None else item | {"tools": test.tools}


def stream_results(answer: dict[str, Any], seq: int, chunkings: list[list[str]]) -> list[tuple[list[Any], Any]]:
    """The streams of a stream answer, as (partial value after each chunk, the end); ProtocolFailure when the
    answer is not one. A partial value of null is nothing sent yet ([STREAM-1])."""
    results = run_results(answer, seq, len(chunkings))
    streams = []
    for result, chunks in zip(results, chunkings, strict=True):
        partials = result.get("partials") if isinstance(result, dict) else None
        end = result.get("end") if isinstance(result, dict) else None
        if not isinstance(partials, list) or len(partials) != len(chunks):
            raise ProtocolFailure("error", f"a stream result needs partials, one per chunk ({len(chunks)})")
        problem = result_problem(end) or next(
            (f"a partial value is not JSON: {partial!r:.120}" for partial in partials if not is_json_value(partial)),
            "",
        )
        if problem:
            raise ProtocolFailure("error", problem, in_sync=True)
        streams.append((partials, end))
    return streams


def result_problem(result: Any) -> str:
    """Why one result of a run answer is not a protocol result, or "" when it is one."""
    if not isinstance(result, dict) or len(result) != 1 or next(iter(result)) not in RESULT_KINDS:
        return f"a result must be an object with exactly one of the keys {', '.join(RESULT_KINDS)}"
    if "error" in result and not isinstance(result["error"], dict):
        return "an error result must be an object"
    if "output" in result and not is_json_value(result["output"]):
        return f"the output is not JSON (NaN, an infinity, or a key that is not a string): {result['output']!r:.200}"
    if deeper_than(result, ANSWER_DEPTH):
        return f"the result nests deeper than {ANSWER_DEPTH} levels"
    return ""


# The serving side: requests it checks, answers it builds.


def hello_answer(info: Info, version: int = PROTOCOL) -> dict[str, Any]:
    return {
        "protocol": version,
        "implementation": {"name": info.name, "version": info.version, "language": info.language},
        "features": sorted(info.features),
        "categorizes_errors": info.categorizes_errors,
    }


def agreed_version(hello: dict[str, Any]) -> int:
    """The protocol a server answers a proper hello with: 2 when the harness lists it, else 1."""
    offered = hello.get("protocols")
    return 2 if isinstance(offered, list) and 2 in offered else PROTOCOL


def request_problem(request: Any, version: int | None, last_seq: int) -> str:
    """Why ``request`` breaks PROTOCOL.md for a server that has answered hello with protocol ``version`` (None:
    not yet) and last answered ``last_seq``, or "" when it is a proper request."""
    if not isinstance(request, dict):
        return "a request must be a JSON object"
    command = request.get("cmd")
    if command == "hello":
        return "" if request.get("protocol") == PROTOCOL else f"hello must ask for protocol {PROTOCOL}"
    if command == "shutdown":
        return ""
    if command not in ("run", "stream"):
        return f"unknown request {command!r} (hello, run, stream or shutdown)"
    if version is None:
        return f"{command} before hello: the first request must be hello"
    if command == "stream" and version < 2:
        return "stream is protocol 2: the hello did not offer it"
    seq = request.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq <= last_seq:
        return f"{command} needs a seq, an integer greater than the last one ({last_seq})"
    if "schema" not in request:
        return f"{command} needs a schema"
    if command == "stream":
        return _stream_problem(request)
    tests = request.get("tests")
    if not isinstance(tests, list) or not tests:
        return "run needs tests, a non-empty array"
    for index, test in enumerate(tests):
        if not isinstance(test, dict) or not isinstance(test.get("id"), str) or not isinstance(test.get("input"), str):
            return f"tests[{index}] needs an id and an input, both strings"
        if "tools" in test and not isinstance(test["tools"], list):
            return f"tests[{index}].tools must be an array"
    return ""


def _stream_problem(request: dict[str, Any]) -> str:
    chunkings = request.get("chunkings")
    if not isinstance(request.get("prefix"), str) or not isinstance(chunkings, list) or not chunkings:
        return "stream needs a prefix (a string) and chunkings (a non-empty array)"
    if "tools" in request and not isinstance(request["tools"], list):
        return "stream's tools must be an array"
    for index, chunks in enumerate(chunkings):
        if not isinstance(chunks, list) or not all(isinstance(chunk, str) for chunk in chunks):
            return f"chunkings[{index}] must be an array of strings"
    return ""
