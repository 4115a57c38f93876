"""Streaming (SPEC.md section 14): a Stream reads an output in chunks and sends the message as it grows.

What a stream has sent is always a part of the one-shot result ([STREAM-3]); after ``finish`` it is the result
([STREAM-4]), or ``finish`` raises the one-shot error ([STREAM-5]). The one-shot walk does the parsing, on the
complete output, so equality holds by construction.

Before ``finish``, after each feed, the stream sends what the output received so far already decides
([STREAM-6]): ``analysis.py`` runs the schema on descriptions of open content, with ``pike.py`` matching patterns
on text still arriving; ``partial.py`` holds the partial values. What it cannot prove it does not send. A feed
after which the analysis would do what it did last, on texts that are only longer, sends their new characters
without running it (``steady.py``)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ..jsontext import json_equal
from ..textparsers import NOT_JSON, NotJSON, TooDeep, json_value, json_value_at
from .analysis import NOTHING, Analysis
from .partial import (
    UNKNOWN,
    JSONText,
    OpenArray,
    array_item,
    array_length,
    array_prefix,
    complete,
    ended,
    grow,
    json_texts,
    sent_value,
)
from .pike import Buffer
from .steady import Steady

if TYPE_CHECKING:
    from ..parser import Parser
    from ..tools import Tools

Delta = dict[str, Any]  # one operation of [STREAM-7]: {"op": "add" | "append" | "end" | "json", "path": ..., ...}


RECENT = 8  # how many runs' steadies a stream keeps (``Stream._recall``, ``Steady.may_hold``)


class StreamFinished(RuntimeError):
    """``feed`` or ``finish`` on a stream that has finished: a mistake in the calling code ([STREAM-5])."""


class Stream:
    """One output being parsed as it arrives, from ``Parser.stream(prefix)``. ``feed(text)`` and ``finish()``
    return the deltas of what they sent; ``message`` is the partial value sent so far (``None`` before anything
    was sent, [STREAM-1]). Not shared between threads; one compiled parser serves any number of streams."""

    __slots__ = (
        "_analysis",
        "_buffer",
        "_ended",
        "_finished",
        "_message",
        "_open_texts",
        "_parser",
        "_recent",
        "_sent",
        "_settled",
        "_steady",
        "_texts",
        "_tools",
    )

    def __init__(self, parser: Parser, prefix: str = "", tools: Tools | None = None) -> None:
        if not isinstance(prefix, str):
            raise TypeError(f"the prefix must be a string, not {type(prefix).__name__}")
        self._parser = parser
        self._tools = tools
        self._buffer = Buffer(prefix)  # [STREAM-9]: the prefix is read first
        self._analysis = Analysis(parser.root, parser.walk)
        self._sent: Any = None  # what was sent, strings as their pieces (``partial.Growing``)
        self._message: Any = None  # ``_sent`` as plain JSON, when it was asked for since it last changed
        self._ended: set[str] = set()
        self._texts: dict[str, tuple[int, JSONText]] = {}  # values sent as JSON text: how much was sent, and where
        self._open_texts: dict[str, None] = {}  # those of ``_texts`` whose value may be known before the end
        self._settled: dict[str, int] = {}  # how many first items of an array are sent as far as they go, by pointer
        self._steady: Steady | None = None  # what the next feed may send without running the analysis
        self._recent: list[Steady] = []  # the steadies of the last runs, the last first
        self._finished = False

    @property
    def message(self) -> Any:
        """The partial value sent so far ([STREAM-1]): ``None`` before anything is sent. Built when asked for
        (a stream keeps its strings as the pieces it sent), so it costs the size of the message."""
        if self._message is None and self._sent is not None:
            self._message = sent_value(self._sent)
        return self._message

    def feed(self, text: str) -> list[Delta]:
        """Read the next chunk of the output; the deltas of what it lets the stream send ([STREAM-7])."""
        self._check_open("feed")
        if not isinstance(text, str):
            raise TypeError(f"a chunk must be a string, not {type(text).__name__}")
        if not text:
            return []
        self._buffer.grow(text)
        self._analysis.differs = None
        steady = self._steady.feed() if self._steady is not None else None
        if steady is None:
            steady = self._recall()
        if steady is not None:
            if steady:
                self._message = None
            return steady
        outcome = self._analysis.run(self._buffer)
        if outcome.none or outcome.value is NOTHING or outcome.value is UNKNOWN:
            self._steady = self._after(None, {})
            return []  # [STREAM-6]: the root may still give no value, or nothing is certain
        value = outcome.value
        if self._tools is not None:
            value = typed_calls(value, self._tools, self._settled.get("/tool_calls", 0))
        known, texts, arrays = json_texts(value, self._settled)
        deltas = []
        for path, source in texts.items():  # [STREAM-7] "json": a value that grows as its text
            if _has(self._sent, path):
                continue  # its value was sent, and the rest of its text with it
            sent = self._texts[path][0] if path in self._texts else 0
            if source.text.length > sent:  # it begins with what was sent ([STREAM-3])
                deltas.append({"op": "json", "path": path, "text": source.text.piece(sent)})
                sent = source.text.length
            self._texts[path] = (sent, source)
            self._open_texts[path] = None
        grown: list[Delta] = []
        self._sent = grow(self._sent, known, "", grown, self._settled)
        for path in [path for path in self._open_texts if _has(self._sent, path)]:
            deltas += self._close_text(path, sent_value(_at(self._sent, path)))
        deltas += grown
        if grown:
            self._message = None
        for path in ended(known, self._settled):
            if path not in self._ended and _has(self._sent, path):
                self._ended.add(path)
                deltas.append({"op": "end", "path": path})
        self._settle(arrays)
        self._steady = self._after(known, texts)
        return deltas

    def _after(self, known: Any, texts: dict[str, JSONText]) -> Steady | None:
        """What the next feed may send without running the analysis (steady.py); never with tools, whose typed
        arguments read the end of their text."""
        if self._tools is not None:
            return None
        steady = Steady.after(self._analysis, known, texts, self._sent, self._texts, self._settled)
        if steady is not None:
            self._recent = [steady, *self._recent[: RECENT - 1]]
        return steady

    def _recall(self) -> list[Delta] | None:
        """The deltas of this feed from the steady of an earlier run, when one holds and is steady over it
        (steady.py); it becomes the stream's steady. None when none is."""
        for steady in self._recent:
            if (
                steady is not self._steady
                and steady.may_hold(self._analysis.differs)
                and steady.holds(lambda path: _at(self._sent, path), self._ended)
            ):
                deltas = steady.feed()
                if deltas is not None:
                    self._steady = steady
                    return deltas
        return None

    def _settle(self, arrays: dict[str, int]) -> None:
        """Keep how many first items of each array every later feed gives as this one did (``OpenArray``): they
        were read in this feed or before (sent, their ends sent), so the next feeds skip them; a JSON text in them
        stays open until the end."""
        for path, count in arrays.items():
            if count > self._settled.get(path, 0):
                self._settled[path] = count
        for path in [path for path in self._open_texts if self._in_settled(path)]:
            del self._open_texts[path]

    def _in_settled(self, path: str) -> bool:
        for array, count in self._settled.items():
            if path.startswith(array + "/"):
                index = path[len(array) + 1 :].split("/", 1)[0]
                if index.isdigit() and int(index) < count:
                    return True
        return False

    def _close_text(self, path: str, value: Any) -> list[Delta]:
        """The rest of a value's JSON text, now that its value is known: the rest of the text when it is known whole,
        else read where its text starts (from there on only: a feed does not read the whole output)."""
        length, source = self._texts.pop(path)
        self._open_texts.pop(path, None)
        if source.value is not UNKNOWN:  # every possible result has this text whole, and it parses to the value
            rest = source.text.piece(length)
            return [{"op": "json", "path": path, "text": rest}] if rest else []
        sent = source.text.piece(0, length)
        for buffer, start in source.origins:
            text = buffer.slice(start)
            if not text.startswith(sent):
                continue
            try:
                found, end = json_value_at(text, 0)
            except (NotJSON, RecursionError):
                continue
            if json_equal(found, value):
                rest = text[length:end] if end > length else ""
                return [{"op": "json", "path": path, "text": rest}] if rest else []
        raise AssertionError(f"the JSON text sent at {path} does not lead to its value")  # [STREAM-7]

    def finish(self) -> list[Delta]:
        """The output is complete: send the rest of the one-shot result ([STREAM-4]), or raise its ParseError
        ([STREAM-5]); either way the stream is finished."""
        self._check_open("finish")
        self._finished = True
        result = self._parser.parse(self._buffer.text, tools=self._tools)
        deltas = [delta for path in list(self._texts) for delta in self._close_text(path, _at(result, path))]
        self._buffer = Buffer()
        self._sent = grow(self._sent, result, "", deltas, {})  # the result completes what no feed could send
        self._message = result
        return deltas

    def _check_open(self, what: str) -> None:
        if self._finished:
            raise StreamFinished(f"{what} on a finished stream")


def typed_calls(value: Any, tools: Tools, settled: int) -> Any:
    """[TOOLS-7] The partial value with the arguments of each call held back until they can be typed: kept as
    they stream when the call's name is known and is no tool's, typed when they are complete and the name is a
    tool's, left out otherwise (a text may still become a number). The first ``settled`` calls were sent typed
    and are not read again: they stay as they are."""
    if not isinstance(value, dict) or not isinstance(value.get("tool_calls"), list):
        return value
    held = copy.copy(value)
    calls = value["tool_calls"]
    if not isinstance(calls, OpenArray):
        held["tool_calls"] = [*calls[:settled], *(_typed_call(call, tools) for call in calls[settled:])]
        return held
    held["tool_calls"] = typed = array_prefix(calls, settled)
    typed.extend(_typed_call(array_item(calls, index), tools) for index in range(settled, array_length(calls)))
    typed.settled = calls.settled
    return held


def _typed_call(call: Any, tools: Tools) -> Any:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or "arguments" not in function:
        return call
    name, arguments = function.get("name"), closed(function["arguments"])
    known_name = type(name) is str  # an OpenText may still grow
    if known_name and not tools.knows(str(name)):
        return call  # [TOOLS-3]: kept as parsed
    held = copy.copy(call)
    held["function"] = copy.copy(function)
    if known_name and isinstance(arguments, dict) and complete(arguments):
        held["function"]["arguments"] = tools.typed_arguments(str(name), arguments)
    else:
        del held["function"]["arguments"]
    return held


def closed(arguments: Any) -> Any:
    """Arguments sent as JSON text whose text so far is a whole object: its value, which no continuation changes
    (after the closing brace, only whitespace can follow in a text that parses, [JSON-1]); anything else as it
    is. Only a text that ends with a brace is parsed, so a long text is not read on every feed."""
    if not isinstance(arguments, JSONText):
        return arguments
    if arguments.value is not UNKNOWN:
        return arguments.value  # known whole
    text = arguments.text
    if not text.piece(max(text.length - 64, 0)).rstrip(" \t\n\r").endswith("}"):
        return arguments
    try:
        value = json_value(text.text)
    except TooDeep:  # the one-shot parse says so at the end
        return arguments
    return arguments if value is NOT_JSON else value  # not JSON yet


def apply(message: Any, delta: Delta) -> Any:
    """``message`` after one delta of the generic view ([STREAM-7]): what a client does with each delta it
    receives. ``end`` changes nothing; a ``json`` text is kept by the client until the value is complete."""
    if delta["op"] in ("end", "json"):
        return message
    tokens = [_unescaped(token) for token in delta["path"].split("/")[1:]]
    if not tokens:
        return delta["value"]
    parent = message
    for token in tokens[:-1]:
        parent = parent[int(token) if isinstance(parent, list) else token]
    last = tokens[-1]
    if delta["op"] == "add":
        if isinstance(parent, list):
            parent.append(delta["value"])
        else:
            parent[last] = delta["value"]
    else:  # append
        key = int(last) if isinstance(parent, list) else last
        parent[key] += delta["text"]
    return message


_MISSING = object()


def _at(message: Any, path: str) -> Any:
    """The value at the pointer ``path`` in ``message``, or _MISSING."""
    value = message
    for token in path.split("/")[1:]:
        token = _unescaped(token)
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return _MISSING
    return value


def _has(message: Any, path: str) -> bool:
    """Whether the pointer ``path`` names a value of what was sent (None: nothing, [STREAM-1])."""
    return message is not None and _at(message, path) is not _MISSING


def _unescaped(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")
