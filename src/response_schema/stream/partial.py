"""Partial values ([STREAM-2]) as the analysis of open content builds them: JSON values whose strings may be
``OpenText`` (the final string starts with it and may go on), and ``UNKNOWN`` (a value is there, nothing is known
of it). ``meet`` is what two possible results have in common ([STREAM-6]); ``join`` puts together two parts of
one result."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from ..jsontext import json_equal


class OpenText:
    """A string of which only the beginning is known: ``length`` characters, held (``OpenText(text)``) or read
    from a buffer where the string is a span of it (``OpenText.span``). A span is read again only in part
    (``piece``): a feed never copies a whole string that may be long."""

    __slots__ = ("_text", "base", "buffer", "length")

    def __init__(self, text: str) -> None:
        self._text: str | None = text
        self.buffer: Any = None
        self.base, self.length = 0, len(text)

    @classmethod
    def span(cls, buffer: Any, base: int, end: int) -> OpenText:
        """``buffer.text[base:end]``, read when needed."""
        text = cls.__new__(cls)
        text._text, text.buffer, text.base, text.length = None, buffer, base, end - base
        return text

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self.piece(0)
        return self._text

    def first_after(self, chars: str) -> str:
        """The first character that is not one of ``chars``, or "" when there is none yet. The text is read up to
        that character only (``_seen``): what follows it does not change the answer."""
        at = 0
        while at < self.length:
            stop = min(at + 64, self.length)
            rest = self._slice(at, stop).lstrip(chars)
            if rest:
                self._seen(stop - len(rest) + 1)
                return rest[0]
            at = stop
        self._seen(self.length)
        return ""

    def piece(self, start: int, stop: int | None = None) -> str:
        """The text from ``start`` on (to ``stop``)."""
        stop = self.length if stop is None else min(stop, self.length)
        self._seen(stop)
        return self._slice(start, stop)

    def _slice(self, start: int, stop: int) -> str:
        if self._text is not None:
            return self._text[start:stop]
        return str(self.buffer.slice(self.base + start, self.base + stop))

    def _seen(self, stop: int) -> None:
        """The text up to ``stop`` was read: of a span, a steady feed needs to know whether near its buffer's end
        (steady.py), where the next feed would not read the same."""
        if self._text is None:
            buffer = self.buffer
            buffer.read_end = buffer.read_end or buffer.moving(self.base + stop)

    def __repr__(self) -> str:
        return f"OpenText({self.text!r})"


class OpenObject(dict):  # type: ignore[type-arg]
    """An object of which only some keys, or parts of their values, are known."""


class OpenArray(list):  # type: ignore[type-arg]
    """An array of which only the first items, or parts of them, are known. Its first ``settled`` items are
    what every later feed gives them, until the output is complete (values of matches known whole): what has
    sent them need not read them again. It may leave out its first ``skipped`` items: they are then the first
    items of ``head``, a list that only grows and that the arrays of later feeds share, and the list holds the
    items after them (copied on every feed, the calls found so far would make a stream of many calls quadratic).
    ``array_length``, ``array_item`` and ``array_items`` read it whole."""

    settled = 0
    skipped = 0
    head: Sequence[Any] = ()

    @classmethod
    def after(cls, head: Sequence[Any], skipped: int) -> OpenArray:
        """The array whose first ``skipped`` items are those of ``head``, with no items after them yet."""
        array = cls()
        array.head, array.skipped = head, skipped
        return array


def array_length(array: list[Any]) -> int:
    """How many items an array holds, those an ``OpenArray`` leaves out included."""
    return array.skipped + len(array) if isinstance(array, OpenArray) else len(array)


def array_item(array: list[Any], index: int) -> Any:
    if not isinstance(array, OpenArray):
        return array[index]
    return array.head[index] if index < array.skipped else array[index - array.skipped]


def array_items(array: list[Any]) -> list[Any]:
    """Every item of an array, those an ``OpenArray`` leaves out included."""
    if isinstance(array, OpenArray) and array.skipped:
        return [*array.head[: array.skipped], *array]
    return array


def array_prefix(array: list[Any], length: int) -> OpenArray:
    """An OpenArray of the first ``length`` items of ``array``, sharing them when they are in its ``head``."""
    if isinstance(array, OpenArray) and array.skipped >= length:
        return OpenArray.after(array.head, length)
    return OpenArray(array_items(array)[:length])


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


class JSONText:
    """A value sent as the JSON text it is parsed from ([STREAM-7] "json"): ``text`` is what every possible
    result's text begins with; ``origins`` are where those texts start (a buffer and an offset), so that the rest
    of the text can be read there once the value is known. ``value`` is that value when every possible result
    has this text whole (UNKNOWN while it may go on)."""

    __slots__ = ("origins", "text", "value")

    def __init__(self, text: OpenText, origins: frozenset[tuple[Any, int]], value: Any = UNKNOWN) -> None:
        self.text, self.origins, self.value = text, origins, value

    def __repr__(self) -> str:
        return f"JSONText({self.text.text!r})"


def meet(first: Any, second: Any) -> Any:
    """The most that two partial values both contain ([STREAM-6]): the common prefix of strings, the keys and
    items both have, equal scalars; UNKNOWN when they disagree on the kind of value."""
    if first is second:  # a value holds no UNKNOWN and is equal to itself: it is its own meet
        return first
    if first is UNKNOWN or second is UNKNOWN:
        return UNKNOWN
    if isinstance(first, JSONText) or isinstance(second, JSONText):
        if not (isinstance(first, JSONText) and isinstance(second, JSONText)):
            return UNKNOWN
        text = meet(first.text, second.text)
        whole = first.value is not UNKNOWN and second.value is not UNKNOWN and _same_text(first.text, second.text)
        return JSONText(text, first.origins | second.origins, first.value if whole else UNKNOWN)
    if isinstance(first, (str, OpenText)) and isinstance(second, (str, OpenText)):
        if isinstance(first, str) and isinstance(second, str) and first == second:
            return first
        if (
            isinstance(first, OpenText)
            and isinstance(second, OpenText)
            and first.buffer is not None
            and ((first.buffer, first.base) == (second.buffer, second.base))
        ):  # spans of one text: the shorter
            return first if first.length <= second.length else second
        return OpenText(common_text(first, second))
    if isinstance(first, dict) and isinstance(second, dict):
        if complete(first) and complete(second) and json_equal(first, second):
            return first
        common = OpenObject()
        for key, value in first.items():
            if key in second:
                both = meet(value, second[key])
                if both is not UNKNOWN:
                    common[key] = both
        return common
    if isinstance(first, list) and isinstance(second, list):
        if complete(first) and complete(second) and json_equal(first, second):
            return first
        shared = _shared(first, second)
        settled = _settled_in_both(first, second, shared)
        array = array_prefix(first, shared)
        array.settled = settled
        for index in range(shared, min(array_length(first), array_length(second))):
            both = meet(array_item(first, index), array_item(second, index))  # settled: the same object in both
            if both is UNKNOWN:
                break
            array.append(both)
        return array
    if type(first) is type(second) and json_equal(first, second):
        return first
    return UNKNOWN


def _same_text(first: OpenText, second: OpenText) -> bool:
    """Whether two texts are the same: then the JSON values parsed from them are too."""
    return first.length == second.length and first.text == second.text


def _shared(first: list[Any], second: list[Any]) -> int:
    """How many first items two arrays leave out of one ``head`` (the same matches' values)."""
    if isinstance(first, OpenArray) and isinstance(second, OpenArray) and first.head is second.head:
        return min(first.skipped, second.skipped)
    return 0


def _settled_in_both(first: list[Any], second: list[Any], shared: int) -> int:
    """How many first items two arrays both hold settled (``OpenArray``), when they are the same objects (the
    same matches' values): their meet, each item itself. The first ``shared`` are, being one head's."""
    settled = min(getattr(first, "settled", 0), getattr(second, "settled", 0))
    same = all(array_item(first, index) is array_item(second, index) for index in range(shared, settled))
    return settled if same else 0


def common_prefix(first: str, second: str) -> str:
    if len(first) > len(second):
        first, second = second, first
    if second.startswith(first):
        return first
    low, high = 0, len(first)  # first[:low] is common, first[:high + 1] is not
    while low < high:
        middle = (low + high + 1) // 2
        if second.startswith(first[:middle]):
            low = middle
        else:
            high = middle - 1
    return first[:low]


class Growing:
    """A string of what a stream has sent, as the pieces it was sent in ([STREAM-7] "append"): growing a Python
    string copies it whole, so its pieces are joined only when it is read. Small pieces are joined in runs of
    ``RUN``, so that a string sent a character at a time is not held as a million small strings."""

    __slots__ = ("_run", "length", "pieces")

    RUN = 256

    def __init__(self, text: str = "") -> None:
        self.pieces, self.length = [text], len(text)
        self._run: list[str] = []  # the small pieces since the last join

    def add(self, piece: str) -> None:
        self._run.append(piece)
        self.length += len(piece)
        if len(self._run) >= self.RUN:
            self.pieces.append("".join(self._run))
            self._run.clear()

    @property
    def text(self) -> str:
        if len(self.pieces) > 1 or self._run:
            self.pieces = ["".join(self.pieces + self._run)]
            self._run.clear()
        return self.pieces[0]

    def since(self, start: int) -> str:
        """The text from ``start`` on, read from the last pieces only."""
        parts, at = [], self.length
        for piece in itertools.chain(reversed(self._run), reversed(self.pieces)):
            if at <= start:
                break
            parts.append(piece)
            at -= len(piece)
        return "".join(reversed(parts))[start - at :]


def grow(sent: Any, known: Any, path: str, deltas: list[dict[str, Any]], settled: dict[str, int]) -> Any:
    """``sent`` grown by what ``known`` adds, with the deltas that say what it adds appended to ``deltas``
    ([STREAM-7]); both are parts of the same result, so they agree where both have something. ``sent`` is the
    stream's own (strings ``Growing``, changed in place); ``None`` at ``path`` "" is nothing sent yet. A string
    grows by the piece of ``known`` beyond it, read where it came from. The first ``settled[path]`` items of an
    array were sent as far as they go before the end: they are not read again."""
    if known is UNKNOWN:
        return sent
    if sent is None and path == "":
        return None if known is None else _added(known, path, deltas)
    if isinstance(sent, Growing) and isinstance(known, (str, OpenText)):
        if _length(known) > sent.length:
            piece = known.piece(sent.length) if isinstance(known, OpenText) else known[sent.length :]
            deltas.append({"op": "append", "path": path, "text": piece})
            sent.add(piece)
        return sent
    if isinstance(sent, dict) and isinstance(known, dict):
        for key, value in known.items():
            if value is not UNKNOWN:
                where = f"{path}/{escaped(key)}"
                if key in sent:
                    sent[key] = grow(sent[key], value, where, deltas, settled)
                else:
                    sent[key] = _added(value, where, deltas)
        return sent
    if isinstance(sent, list) and isinstance(known, list):
        for index in range(settled.get(path, 0), array_length(known)):
            where = f"{path}/{index}"
            if index < len(sent):
                sent[index] = grow(sent[index], array_item(known, index), where, deltas, settled)
            else:
                sent.append(_added(array_item(known, index), where, deltas))
    return sent


def _added(known: Any, path: str, deltas: list[dict[str, Any]]) -> Any:
    """A value sent whole ("add"): the delta holds it as plain JSON, the stream its own copy to grow."""
    deltas.append({"op": "add", "path": path, "value": plain(known)})
    return _growing(known)


def _growing(value: Any) -> Any:
    if isinstance(value, (str, OpenText)):
        return Growing(text_of(value))
    if isinstance(value, dict):
        return {key: _growing(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_growing(each) for each in array_items(value)]
    return value


def sent_value(sent: Any) -> Any:
    """What a stream has sent, as plain JSON."""
    if isinstance(sent, Growing):
        return sent.text
    if isinstance(sent, dict):
        return {key: sent_value(item) for key, item in sent.items()}
    if isinstance(sent, list):
        return [sent_value(item) for item in sent]
    return sent


def text_of(value: str | OpenText) -> str:
    return value.text if isinstance(value, OpenText) else value


def common_text(first: str | OpenText, second: str | OpenText) -> str:
    """The common prefix of two texts. What the prefix depends on is read of an open text (``OpenText._seen``): up
    to the first character that differs from the other text, or to the end of the shorter. So a call's name met
    with another that differs from its first character (``function``, when ``(?:function<sep>)?`` may be left
    out) is not read to the end of the output, and a feed that only makes the name longer may be steady."""
    size = min(_length(first), _length(second))
    common = common_prefix(_head(first, size), _head(second, size))
    read = min(len(common) + 1, size)
    for text in (first, second):
        if isinstance(text, OpenText):
            text._seen(read)
    return common


def _length(text: str | OpenText) -> int:
    return text.length if isinstance(text, OpenText) else len(text)


def _head(text: str | OpenText, size: int) -> str:
    """The first ``size`` characters of a text, not counted as read (``common_text`` says what was)."""
    return text._slice(0, size) if isinstance(text, OpenText) else text[:size]


def complete(value: Any) -> bool:
    """Whether a partial value is known whole (nothing in it is open)."""
    return not isinstance(value, (OpenText, OpenObject, OpenArray, JSONText)) and value is not UNKNOWN


def plain(value: Any) -> Any:
    """``value`` as plain JSON: OpenText as str, open objects and arrays as plain ones."""
    if isinstance(value, (str, OpenText)):
        return text_of(value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(each) for each in array_items(value)]
    return value


def json_texts(value: Any, settled: dict[str, int]) -> tuple[Any, dict[str, JSONText], dict[str, int]]:
    """``value`` with its JSONText values as the values they are known to be (UNKNOWN while their texts may go
    on), those JSONText values by pointer, and how many first items of each array in it are settled and sent
    (``OpenArray``). The first ``settled[path]`` items of an array were read before: they are kept as they are
    (their JSON texts were found then, and stay open until the end)."""
    found: dict[str, JSONText] = {}
    arrays: dict[str, int] = {}
    return _without_texts(value, "", found, settled, arrays), found, arrays


def _without_texts(
    value: Any, path: str, found: dict[str, JSONText], settled: dict[str, int], arrays: dict[str, int]
) -> Any:
    if isinstance(value, JSONText):
        found[path] = value
        return value.value  # in what is sent once its text is known whole, UNKNOWN before
    if isinstance(value, dict) and not complete(value):
        kept = OpenObject()
        for key, item in value.items():
            part = _without_texts(item, f"{path}/{escaped(key)}", found, settled, arrays)
            if part is not UNKNOWN:
                kept[key] = part
        return kept
    if isinstance(value, list) and not complete(value):
        skip = min(settled.get(path, 0), array_length(value))
        array = array_prefix(value, skip)
        for index in range(skip, array_length(value)):
            part = _without_texts(array_item(value, index), f"{path}/{index}", found, settled, arrays)
            if part is UNKNOWN:
                break
            array.append(part)
        # settled and sent: an item that is a JSON text not known whole is not in what is sent, nor any after it
        array.settled = arrays[path] = min(value.settled if isinstance(value, OpenArray) else 0, array_length(array))
        return array
    return value


def ended(value: Any, settled: dict[str, int], path: str = "", found: list[str] | None = None) -> list[str]:
    """The pointers of the outermost values in ``value`` that are complete, but for the first ``settled[path]``
    items of an array (their pointers were given before)."""
    found = [] if found is None else found
    if complete(value):
        found.append(path)
    elif isinstance(value, dict):
        for key, item in value.items():
            ended(item, settled, f"{path}/{escaped(key)}", found)
    elif isinstance(value, list):
        for index in range(settled.get(path, 0), array_length(value)):
            ended(array_item(value, index), settled, f"{path}/{index}", found)
    return found


def escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
