"""Parsing many outputs at once (``Parser.parse_many``): errors as values, and a fixed row shape for tables.

At dataset scale (evaluation sets, RL rollouts, dataset conversion) one bad output must not stop the batch, and
the results go into columnar tables (Arrow, Parquet, ``datasets``) that need the same columns and types in
every row. The parse itself is the one-shot parse: each result is what ``Parser.parse`` returns or raises."""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .errors import ParseError

# The columns of a row: every value a string or null, so every row has the same Arrow type.
ROW_COLUMNS = ("role", "content", "thinking", "tool_calls", "other", "error_category", "error_path", "error_message")
_MESSAGE_COLUMNS = ("role", "content", "thinking", "tool_calls")


def parse_many(parse: Callable[[str], Any], texts: Iterable[str]) -> list[Any]:
    """The result of ``parse`` for each text, in order: the message, or the ParseError it raised (a value, not
    raised; its traceback and the exception it replaced dropped, so a batch of errors keeps no frames alive)."""
    results: list[Any] = []
    with _collector_paused():
        for text in texts:
            try:
                results.append(parse(text))
            except ParseError as exc:
                exc.__traceback__ = exc.__context__ = None
                results.append(exc)
    return results


def row(result: Any) -> dict[str, str | None]:
    """One result as a row of ROW_COLUMNS: ``role``, ``content`` and ``thinking`` as they are when they are
    strings (any other value as its JSON text), ``tool_calls`` as the JSON text of the list, ``other`` as the
    JSON text of the message's other keys (null when it has none), and the error's category, path and message
    (null when it parsed). A parse with no value ([GEN-3]) is a row of nulls."""
    out: dict[str, str | None] = dict.fromkeys(ROW_COLUMNS)
    if isinstance(result, ParseError):
        out.update(error_category=result.category, error_path=result.path, error_message=result.message)
        return out
    if not isinstance(result, dict):  # a root that is not an object: the whole value is "other"
        out["other"] = None if result is None else _json(result)
        return out
    for key in ("role", "content", "thinking"):
        value = result.get(key)
        out[key] = value if value is None or isinstance(value, str) else _json(value)
    if result.get("tool_calls") is not None:
        out["tool_calls"] = _json(result["tool_calls"])
    other = {key: value for key, value in result.items() if key not in _MESSAGE_COLUMNS}
    out["other"] = _json(other) if other else None
    return out


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the batch: the parse makes no reference cycles, and each full
    collection walks every result kept so far, which makes a large batch slower per output as it grows."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
