"""Partial values ([STREAM-2]) as the analysis of open content builds them: JSON values whose strings may be
``OpenText`` (the final string starts with it and may go on), and ``UNKNOWN`` (a value is there, nothing is known
of it). ``meet`` is what two possible results have in common ([STREAM-6]); ``join`` puts together two parts of
one result."""

from __future__ import annotations

from typing import Any

from ..jsontext import json_equal


class OpenText(str):
    """A string of which only the beginning is known."""

    __slots__ = ()


class OpenObject(dict):  # type: ignore[type-arg]
    """An object of which only some keys, or parts of their values, are known."""


class OpenArray(list):  # type: ignore[type-arg]
    """An array of which only the first items, or parts of them, are known."""


class JSONText:
    """A value sent as the JSON text it is parsed from ([STREAM-7] "json"): ``text`` is what every possible
    result's text begins with; ``origins`` are where those texts start (a buffer and an offset), so that the rest
    of the text can be read there once the value is known."""

    __slots__ = ("origins", "text")

    def __init__(self, text: str, origins: frozenset[tuple[Any, int]]) -> None:
        self.text, self.origins = text, origins

    def __repr__(self) -> str:
        return f"JSONText({self.text!r})"


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


def meet(first: Any, second: Any) -> Any:
    """The most that two partial values both contain ([STREAM-6]): the common prefix of strings, the keys and
    items both have, equal scalars; UNKNOWN when they disagree on the kind of value."""
    if first is UNKNOWN or second is UNKNOWN:
        return UNKNOWN
    if isinstance(first, JSONText) or isinstance(second, JSONText):
        if not (isinstance(first, JSONText) and isinstance(second, JSONText)):
            return UNKNOWN
        return JSONText(common_prefix(first.text, second.text), first.origins | second.origins)
    if isinstance(first, str) and isinstance(second, str):
        if first == second and type(first) is str and type(second) is str:
            return first
        return OpenText(common_prefix(first, second))
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
        items = OpenArray()
        for one, other in zip(first, second, strict=False):
            both = meet(one, other)
            if both is UNKNOWN:
                break
            items.append(both)
        return items
    if type(first) is type(second) and json_equal(first, second):
        return first
    return UNKNOWN


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


def join(sent: Any, known: Any) -> Any:
    """``sent`` grown by what ``known`` adds; both are parts of the same result, so they agree where both have
    something. Strings come out as plain ``str``."""
    if known is UNKNOWN:
        return sent
    if sent is None:
        return plain(known)
    if isinstance(sent, str) and isinstance(known, str):
        return str(known) if len(known) > len(sent) else sent
    if isinstance(sent, dict) and isinstance(known, dict):
        grown = dict(sent)
        for key, value in known.items():
            if value is not UNKNOWN:
                grown[key] = join(sent[key], value) if key in sent else plain(value)
        return grown
    if isinstance(sent, list) and isinstance(known, list):
        items = [join(item, known[index]) if index < len(known) else item for index, item in enumerate(sent)]
        return items + [plain(item) for item in known[len(sent) :]]
    return sent


def complete(value: Any) -> bool:
    """Whether a partial value is known whole (nothing in it is open)."""
    return not isinstance(value, (OpenText, OpenObject, OpenArray, JSONText)) and value is not UNKNOWN


def plain(value: Any) -> Any:
    """``value`` as plain JSON: OpenText as str."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def json_texts(value: Any, path: str = "") -> tuple[Any, dict[str, JSONText]]:
    """``value`` without its JSONText values, and those values by pointer."""
    if isinstance(value, JSONText):
        return UNKNOWN, {path: value}
    found: dict[str, JSONText] = {}
    if isinstance(value, dict) and not complete(value):
        kept = OpenObject()
        for key, item in value.items():
            part, texts = json_texts(item, f"{path}/{_escaped(key)}")
            found |= texts
            if part is not UNKNOWN:
                kept[key] = part
        return kept, found
    if isinstance(value, list) and not complete(value):
        items = OpenArray()
        for index, item in enumerate(value):
            part, texts = json_texts(item, f"{path}/{index}")
            found |= texts
            if part is UNKNOWN:
                break
            items.append(part)
        return items, found
    return value, found


def ended(value: Any, path: str = "") -> list[str]:
    """The pointers of the outermost values in ``value`` that are complete."""
    if complete(value):
        return [path]
    if isinstance(value, dict):
        return [end for key, item in value.items() for end in ended(item, f"{path}/{_escaped(key)}")]
    if isinstance(value, list):
        return [end for index, item in enumerate(value) for end in ended(item, f"{path}/{index}")]
    return []


def _escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
