"""Whether a whitespace character after a text changes what a pattern finds in it (``Analysis.remembered``).

A text whose last character is whitespace is often read twice in one feed: as it is (still open), and cut before
that character, where a pattern ending ``\\s*$`` ends the match if the output ends here. A node that gives both
the same outcome lets the cut text take the outcome of the open one ([STREAM-6]): that outcome is the meet over
every text that begins with the open text, which holds the open text itself. ``blind`` decides it for a pattern,
from Python's parse of it, for three forms (and says no to anything else):

- **Closed**: the pattern has no assertion but ``^``/``\\A`` and lookaheads, and no path of it can end right
  after a whitespace character (``_Shape.ends``); each alternative of a lookahead (``(?=…)`` or ``(?!…)``) is
  closed, or whitespace to the end (``\\s*$``, ``\\s*\\Z``). Then with whitespace ``w`` added to a text ``T``, a
  path that reads ``w`` needs a character after it and fails; every other path is one of ``T``'s, with the same
  assertions (a lookahead of whitespace to the end holds at a place of ``T`` in both texts or in neither: where
  only whitespace follows): the matches are the same. (For every match, ``finditer``, it must not match empty:
  an empty match at the end would be found once more after ``w``.)
- **Stripped**: ``P \\s* (Q .*?) \\s* E`` (the first ``\\s*`` may be absent), the lazy ``.*?`` reading any
  character (DOTALL, [REGEX-1]), ``P`` and ``Q`` closed, ``E`` an alternation of ``$``, ``\\Z``, whitespace to
  the end and closed patterns (each maybe followed by ``\\s*``) that captures nothing. ``P`` and ``Q`` take the
  same paths in ``T`` and ``T w``. The lazy group ends at the first place from which ``\\s* E`` matches, and
  whether it matches from a place of ``T`` is the same in both: where only whitespace is left, ``\\s*`` reads it
  all and ``E`` reads the end of either text alike; before that, ``\\s*`` stops before the end, where ``E`` reads
  the same in both (``$`` fails there: the character before is no newline, or one more follows). At the end of
  ``T``, ``T w`` reads what ``T`` reads at its end, or ``w`` and then the end. So the group ends at the same
  place, and what comes after it captures nothing. (For ``finditer``, ``P`` and ``Q`` must not both match empty.)
- **Tailed**: ``X E`` with ``X`` closed and never empty, ``E`` an alternation of closed patterns (each maybe
  followed by ``\\s*``) and whitespace to the end, capturing nothing (Llama 4's calls,
  ``([A-Za-z_][\\w.]*\\(…\\))(?:\\s*,\\s*|\\s*$)``). ``X`` takes the same paths in both texts, and so does each
  alternative of ``E`` after it, but for the whitespace a trailing ``\\s*`` also reads of ``w``, or ``\\s*$`` reads
  before the end: the same groups, and a match that ends at the end of ``T`` ends at the end of ``T w``, after
  which neither text has another (``X`` reads a character). ``$`` alone is not such an alternative: it holds at
  the end of ``T``, not before ``w``."""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from typing import Any

from .pike import Opaque, _class_test

if sys.version_info >= (3, 11):
    import re._constants as c  # type: ignore[import-not-found]
    import re._parser as sre  # type: ignore[import-not-found]
else:  # pragma: no cover - Python 3.10
    import sre_constants as c
    import sre_parse as sre

WHITESPACE = " \t\n\r"  # the characters after which ``Analysis.remembered`` reads a cut text as the open one


@functools.lru_cache(maxsize=256)
def blind(pattern: re.Pattern[str], every: bool) -> bool:
    """Whether ``pattern.search`` (or, with ``every``, ``finditer``) gives the same groups on any text and on that
    text with one character of ``WHITESPACE`` after it."""
    if not pattern.flags & re.DOTALL or pattern.flags & (re.MULTILINE | re.IGNORECASE | re.LOCALE | re.VERBOSE):
        return False
    try:
        items = list(sre.parse(pattern.pattern, pattern.flags).data)
        reader = _Reader(bool(pattern.flags & re.ASCII))
        whole = reader.shape(items)
        if whole is not None and not whole.ends and not (every and whole.empty):
            return True
        return reader.stripped(items, every) or reader.tailed(items)
    except (Opaque, RecursionError):
        return False


@dataclass(frozen=True)
class _Shape:
    """What a closed piece of pattern may do: match empty (``empty``), succeed at the end of a text reading
    nothing (``at_end``), end a path right after a whitespace character (``ends``)."""

    empty: bool
    at_end: bool
    ends: bool


class _Reader:
    def __init__(self, ascii_only: bool) -> None:
        self.ascii_only = ascii_only

    def shape(self, items: list[Any]) -> _Shape | None:
        """The shape of a sequence of items; None when one of them is outside what a closed pattern may use."""
        empty = at_end = True
        ends = False
        for op, arg in items:
            item = self.item(op, arg)
            if item is None:
                return None
            ends = item.ends or (ends and item.at_end)
            empty, at_end = empty and item.empty, at_end and item.at_end
        return _Shape(empty, at_end, ends)

    def item(self, op: Any, arg: Any) -> _Shape | None:
        if op is c.LITERAL:
            return _Shape(False, False, chr(arg) in WHITESPACE)
        if op is c.NOT_LITERAL or op is c.ANY:
            return _Shape(False, False, True)
        if op is c.IN:
            test = _class_test(arg, self.ascii_only)
            return _Shape(False, False, any(test(char) for char in WHITESPACE))
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            low, high, body = arg
            inner = self.shape(list(body))
            if inner is None:
                return None
            if high == 0:
                return _Shape(True, True, False)
            return _Shape(low == 0 or inner.empty, low == 0 or inner.at_end, inner.ends)
        if op is c.SUBPATTERN:
            _, add, remove, body = arg
            return None if add or remove else self.shape(list(body))
        if op is c.BRANCH:
            shapes = [self.shape(list(each)) for each in arg[1]]
            if any(shape is None for shape in shapes):
                return None
            return _Shape(
                any(s.empty for s in shapes if s), any(s.at_end for s in shapes if s), any(s.ends for s in shapes if s)
            )
        if op is c.AT and arg in (c.AT_BEGINNING, c.AT_BEGINNING_STRING):
            return _Shape(True, True, False)  # at the start only: the same in both texts
        if op in (c.ASSERT, c.ASSERT_NOT) and arg[0] == 1:  # a lookahead: the same in both texts when each of its
            at_end = op is c.ASSERT_NOT  # alternatives is closed or whitespace to the end
            for each in _alternatives(list(arg[1])):
                if _to_end(each):
                    at_end = True
                    continue
                inner = self.shape(each)
                if inner is None or inner.ends:
                    return None
                at_end = at_end or inner.at_end
            return _Shape(True, at_end, False)
        return None

    def closed(self, items: list[Any]) -> _Shape | None:
        shape = self.shape(items)
        return None if shape is None or shape.ends else shape

    def stripped(self, items: list[Any], every: bool) -> bool:
        """The stripped form (see the module's docstring)."""
        if len(items) < 3 or not _spaces(items[-2]) or items[-3][0] is not c.SUBPATTERN:
            return False
        group, add, remove, body = items[-3][1]
        body = list(body)
        if group is None or add or remove or not body or not _lazy_any(body[-1]):
            return False
        before = items[:-3]
        if before and _spaces(before[-1]):
            before = before[:-1]
        prefix, inside = self.closed(before), self.closed(body[:-1])
        if prefix is None or inside is None or (every and prefix.empty and inside.empty):
            return False
        return self.ending(items[-1])

    def tailed(self, items: list[Any]) -> bool:
        """The tailed form (see the module's docstring)."""
        if len(items) < 2:
            return False
        head = self.closed(items[:-1])
        if head is None or head.empty:
            return False
        return all(self.alternative(each, False) for each in _alternatives(items[-1:]))

    def ending(self, item: tuple[Any, Any]) -> bool:
        """``E`` of the stripped form: ``$``, ``\\Z``, or an alternation of those and of the tailed form's
        alternatives."""
        return all(self.alternative(each, True) for each in _alternatives([item]))

    def alternative(self, items: list[Any], bare_end: bool) -> bool:
        """An alternative of an ending: whitespace to the end, or a closed pattern, maybe followed by ``\\s*``,
        capturing nothing; or, where ``\\s*`` stands before the ending (``bare_end``), ``$`` or ``\\Z``."""
        if bare_end and items in ([(c.AT, c.AT_END)], [(c.AT, c.AT_END_STRING)]):
            return True
        if _captures(items):
            return False
        if items and _spaces(items[-1]):  # it matches in both texts, reading what it may of each
            items = items[:-1]
        return _to_end(items) or self.closed(items) is not None


def _alternatives(items: list[Any]) -> list[list[Any]]:
    """The alternatives of a sequence that is one alternation, or the sequence itself."""
    if len(items) == 1 and items[0][0] is c.BRANCH:
        return [list(each) for each in items[0][1][1]]
    return [items]


def _to_end(items: list[Any]) -> bool:
    """Whether ``items`` are ``\\s*$`` or ``\\s*\\Z``: whitespace to the end, which holds at a place of a text and
    of that text with whitespace after it alike."""
    return len(items) == 2 and _spaces(items[0]) and items[1] in ((c.AT, c.AT_END), (c.AT, c.AT_END_STRING))


def _spaces(item: tuple[Any, Any]) -> bool:
    """Whether an item is ``\\s*``."""
    op, arg = item
    return (
        op is c.MAX_REPEAT
        and arg[:2] == (0, c.MAXREPEAT)
        and list(arg[2]) == [(c.IN, [(c.CATEGORY, c.CATEGORY_SPACE)])]
    )


def _lazy_any(item: tuple[Any, Any]) -> bool:
    """Whether an item is ``.*?`` (``.`` reads every character: DOTALL)."""
    op, arg = item
    return op is c.MIN_REPEAT and arg[:2] == (0, c.MAXREPEAT) and list(arg[2]) == [(c.ANY, None)]


def _captures(items: list[Any]) -> bool:
    """Whether ``items`` hold a capturing group."""
    for op, arg in items:
        if op is c.SUBPATTERN and arg[0] is not None:
            return True
        if op is c.BRANCH and any(_captures(list(each)) for each in arg[1]):
            return True
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.ASSERT, c.ASSERT_NOT) and _captures(list(arg[-1])):
            return True
        if op is c.SUBPATTERN and _captures(list(arg[3])):
            return True
    return False
