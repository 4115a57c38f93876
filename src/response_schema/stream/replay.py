"""A stream replayed a character at a time, for people (the playground's replay): after each character, what
was sent, and which characters of the result were received but not yet sent, with a likely reason. The reasons
are a guide for schema authors, not part of SPEC.md: the stream itself only sends what it can prove."""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from ..parser import Parser
from .pike import compile_program, literal_runs

MAX_REPLAY = 20_000  # characters replayed; the rest of a longer output is fed at once


def replay(parser: Parser, text: str, prefix: str = "") -> dict[str, Any]:
    """``{"steps": [...], "end": {"value": ...} | {"error": {...}}}``: step ``i`` is after ``i + 1`` characters of
    ``text``, with ``sent`` (when it changed), and ``held``: ``[start, end, reason]`` runs of ``text`` that the
    result holds but the stream has not sent yet."""
    stream = parser.stream(prefix)
    steps: list[dict[str, Any]] = []
    sent_at: dict[str, list[int]] = {}
    shown: Any = None
    cut = min(len(text), MAX_REPLAY)
    for index in range(cut):
        stream.feed(text[index])
        step: dict[str, Any] = {}
        if stream.message != shown:
            shown = _copy(stream.message)
            step["sent"] = shown
        for path, value in _strings(stream.message).items():
            times = sent_at.setdefault(path, [])
            times += [index + 1] * (len(value) - len(times))
        steps.append(step)
    try:
        stream.feed(text[cut:])
        stream.finish()
        end: dict[str, Any] = {"value": stream.message}
    except ParseError as error:
        return {"steps": steps, "end": {"error": {"category": error.category, "path": error.path}}}
    markers = _markers(parser)
    for path, value in _strings(stream.message).items():
        where = text.find(value) if value else -1
        if where < 0:
            continue
        times = sent_at.get(path, [])
        for offset in range(len(value)):
            sent = times[offset] if offset < len(times) else len(text) + 1
            for moment in range(where + offset, min(sent - 1, cut)):  # received at where + offset, sent later
                steps[moment].setdefault("late", set()).add(where + offset)
    for index, step in enumerate(steps):
        late = sorted(step.pop("late", ()))
        if late:
            step["held"] = [[start, end, _reason(text, start, index + 1, markers)] for start, end in _runs(late)]
    return {"steps": steps, "end": end}


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _strings(message: Any, path: str = "") -> dict[str, str]:
    """The strings of a message by pointer (the text whose sending is shown)."""
    if isinstance(message, str):
        return {path: message}
    if isinstance(message, dict):
        return {p: s for key, item in message.items() for p, s in _strings(item, f"{path}/{key}").items()}
    if isinstance(message, list):
        return {p: s for index, item in enumerate(message) for p, s in _strings(item, f"{path}/{index}").items()}
    return {}


def _runs(positions: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for position in positions:
        if runs and runs[-1][1] == position:
            runs[-1] = (runs[-1][0], position + 1)
        else:
            runs.append((position, position + 1))
    return runs


def _reason(text: str, start: int, received: int, markers: list[str]) -> str:
    """Why a run of held characters may wait, from what follows it in what was received."""
    waiting = text[start:received]
    for at in range(start, received):
        tail = text[at:received]
        for marker in markers:
            if marker.startswith(tail) and marker != tail:
                return f"{tail!r} may be the start of {marker!r}"
    if waiting.strip() == "" or text[start:received].rstrip() != text[start:received]:
        return "whitespace at the end: it is kept only if more text follows"
    return "its region is not decided yet: a closer not yet seen, or a stage that needs the whole text"


def _markers(parser: Parser) -> list[str]:
    """The literal texts of two or more characters in the schema's patterns (its markers, most likely)."""
    found: set[str] = set()
    stack = [parser.root]
    while stack:
        node = stack.pop()
        patterns = [node.regex, node.iterator, node.key_value] + [pattern for pattern, _ in node.substitutions]
        for pattern in patterns:
            if pattern is not None and compile_program(pattern) is not None:
                found.update(literal_runs(pattern))
        stack += [child for _, child in node.properties]
        stack += [child for child in (node.items, node.additional) if not isinstance(child, bool) and child]
        stack += list(node.prefix_items or ())
    return sorted(found, key=len, reverse=True)
