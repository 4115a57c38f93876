"""Patterns that string searches can run, for the fast path (fast.py). The library's schemas are made of a few
shapes: markers (literal text), ``\\s*``, and a lazy ``.*?`` up to the first of a set of markers or the end. Python's
``re`` runs a lazy ``.*?`` one character at a time, trying what follows it at each; a *plan* finds the same match
([RE-1] to [RE-6]) with ``str.find`` and a search for the markers, so a long thinking or call costs little.

The shapes (``L`` is a literal or a non-capturing alternation of literals; every literal is non-empty and does not
start with whitespace, so ``\\s*`` and a literal never compete for a character and backtracking into ``\\s*`` never
changes whether what follows matches):

- *region*: ``[^[\\s*]] L [(?=G)|(?!G)] [\\s* M [(?=G)]] [\\s*] [(]B[)] [\\s*] S`` or the same with the group
  running through the stop, ``(B [\\s*] S)``; ``B`` is ``.*?`` or ``(?:(?!L).)*?``, ``M`` a second literal, and
  ``S`` ``$``, a literal, or an alternation of literals, lookaheads of literals and ``$``; ``G`` is any pattern
  without groups. The match runs from the opener to the first place where ``S`` holds; with ``(?!L)`` in ``B``,
  it fails when one of those literals comes first, and the search goes on after the opener.
- *rest*: ``^(?:R)?(.*)$`` with ``R`` a region: the text after ``R`` when it matches at the start, or all of it.
- *free*: ``^\\s*((?:(?!L).)*?)\\s*$``: the text stripped of whitespace, when it holds none of the literals.
- a single literal, replaced: ``str.replace``.
- *open*: ``H (Q .*?) [\\s*|\\s*X?\\s*|\\n?] S`` with ``H`` and ``Q`` any patterns without groups, ``S`` as in a
  region (or stops that go on after their literal, ``(?:;\\s*(?=\\{)|$)``, which ``re`` finds) and ``X`` a character
  none of them starts with (Llama 4's ``\\s*\\]?\\s*``):
  once ``H`` matches, the match is the first way ``H`` takes at the first place it matches, when a stop comes after
  the lazy body (always, with ``$`` among the stops), so ``re`` runs ``H`` alone and the stops are found as in a
  region; where no stop comes, ``re`` decides.
- *marked*: a pattern without groups in which a lazy ``.*? [\\s*|\\n?] S`` ends its alternative and every one
  around it, ``^\\s*(?:<a>.*?(?:</a>|$)|</a>)``, and the rest shape ``^(?:X)?(.*)$`` of such an ``X``: ``re`` runs
  the pattern with the body and stops cut out and an empty group in their place, and where that group took part
  the stops are found from it, as in the open shape.
- *key-value*: the open shape with the body ``(?P<value>.*?)`` and ``(?P<key>...)`` in the head, for
  x-regex-key-value.

- *led*: any other pattern whose matches all start with literals that ``re`` cannot skip to itself (after an
  optional literal, after whitespace, or starting with a letter: gpt-oss's
  ``(?:<|start|>assistant)?<|channel|>(?:final|commentary)[^<]*<|message|>``): ``str.find`` finds the literals and
  ``re`` matches there. The heads of the open and marked shapes are led the same way; a head that cannot be led
  but whose matches all hold a literal at its top level (Mistral v11's ``^(?:(?!\\[TOOL_CALLS\\]).)*?\\[THINK\\]``)
  runs only where ``str.find`` finds that literal in the rest of the text.

When a match of the last four is empty (``H`` may match empty text), ``re`` takes over that text: its rules after
an empty match differ.

Anything else (outside the parts of the last four that ``re`` runs: classes outside a lookahead, other
escapes and quantifiers, named groups; inline flags anywhere) has no plan and runs with ``re``. The walk never uses
plans: tests/test_plans.py compares every shape with ``re`` on generated texts, and tests/test_fast.py the fast
path with the walk."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from .templates import template_parts

NO_MATCH: Any = object()  # what a plan's search gives when the pattern does not match

# An item of a pattern read by ``_Reader``: ("lit", text), ("ws",) for \s*, ("any", lazy) for .* and .*?,
# ("dot",), ("begin",), ("end",), ("look", negate, alternatives or None, source) and
# ("group", index or None, alternatives, quantifier "" | "?" | "*?").
Item = tuple[Any, ...]
Pair = tuple[Any, Any, str]  # the groups key and value of a match (None when one took no part) and its text
Opened = tuple[int, int, int, int, "re.Match[str]"]  # an open shape's match, as a region's, and its head's match
Parts = list[str | int]  # a replacement template's literal texts and group numbers (templates.py)


class _NoPlan(Exception):
    """The pattern is not one of the shapes."""


class _Reader:
    """A pattern's source read as the shapes need it; any other syntax raises _NoPlan. A lookahead keeps its
    source, so a guard can run it with ``re`` whatever it holds."""

    def __init__(self, source: str) -> None:
        self.source, self.at, self.groups = source, 0, 0

    def alternatives(self) -> list[list[Item]]:
        alternatives = [self.sequence()]
        while self._next("|"):
            alternatives.append(self.sequence())
        return alternatives

    def sequence(self) -> list[Item]:
        items: list[Item] = []
        while self.at < len(self.source) and self.source[self.at] not in "|)":
            item = self.item()
            if item[0] == "lit" and items and items[-1][0] == "lit":
                items[-1] = ("lit", items[-1][1] + item[1])
            else:
                items.append(item)
        return items

    def item(self) -> Item:
        char = self.source[self.at]
        self.at += 1
        if char == "\\":
            escaped = self.source[self.at : self.at + 1]
            self.at += 1
            if escaped == "s" and self._next("*"):
                return self._alone(("ws",))
            if escaped.isascii() and len(escaped) == 1 and not escaped.isalnum() and escaped != "_":
                return self._alone(("lit", escaped))  # [RE-2] a backslash before ASCII punctuation
            raise _NoPlan
        if char == ".":
            if self._next("*"):
                return self._alone(("any", self._next("?")))
            return self._alone(("dot",))
        if char in "^$":
            return ("begin",) if char == "^" else ("end",)
        if char == "(":
            return self.group()
        if char in "*+?{}[]|)":
            raise _NoPlan
        return self._alone(("lit", char))

    def group(self) -> Item:
        if not self._next("?"):
            self.groups += 1
            index = self.groups
        elif self._next(":"):
            index = None
        elif self.source[self.at : self.at + 1] in ("=", "!"):
            return self.lookahead()
        else:
            raise _NoPlan  # named groups, inline flags, lookbehinds
        alternatives = self.alternatives()
        self.at += 1  # its ")": the pattern compiled
        quantifier = "?" if self._next("?") else "*?" if self._next("*?") else ""
        return self._alone(("group", index, alternatives, quantifier))

    def lookahead(self) -> Item:
        negate = self.source[self.at] == "!"
        start = self.at + 1
        end = _closing(self.source, start)
        body = self.source[start:end]
        try:
            if re.compile(body, re.DOTALL).groups:
                raise _NoPlan  # its groups would count among the pattern's
        except re.error:
            raise _NoPlan from None
        reader = _Reader(body)
        try:
            alternatives: list[list[Item]] | None = reader.alternatives()
        except (_NoPlan, IndexError):
            alternatives = None  # a guard: run with re
        self.at = end + 1
        return self._alone(("look", negate, alternatives, self.source[start - 3 : end + 1]))

    def _next(self, text: str) -> bool:
        if self.source.startswith(text, self.at):
            self.at += len(text)
            return True
        return False

    def _alone(self, item: Item) -> Item:
        if self.at < len(self.source) and self.source[self.at] in "*+?{":
            raise _NoPlan  # a quantifier the shapes do not have
        return item


def _closing(source: str, at: int) -> int:
    """Where the group whose body starts at ``at`` closes (escapes and classes skipped)."""
    depth = 1
    while at < len(source):
        char = source[at]
        if char == "\\":
            at += 2
            continue
        if char == "[":
            at = _class_end(source, at)
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return at
        at += 1
    raise _NoPlan


def _class_end(source: str, at: int) -> int:
    """Where the class that opens at ``at`` closes (its "]")."""
    at += 1
    at += source.startswith("^", at)
    at += source.startswith("]", at)  # a "]" first is a literal
    while at < len(source) and source[at] != "]":
        at += 2 if source[at] == "\\" else 1
    return at


def _top_body(source: str) -> int:
    """Where the first capturing group or lazy ``.*?`` at the top level of ``source`` starts (escapes, classes and
    other groups skipped); _NoPlan when there is none, or an alternation of the whole comes first."""
    at = 0
    while at < len(source):
        char = source[at]
        if char == "\\":
            at += 2
        elif char == "[":
            at = _class_end(source, at) + 1
        elif char == "(":
            if not source.startswith("(?", at):
                return at
            at = _closing(source, at + 1) + 1
        elif char == "|":
            raise _NoPlan
        elif source.startswith(".*?", at):
            return at
        else:
            at += 1
    raise _NoPlan


def _read(pattern: re.Pattern[str]) -> list[Item]:
    if pattern.flags != re.DOTALL | re.UNICODE or not isinstance(pattern.pattern, str):
        raise _NoPlan  # [REGEX-1] DOTALL alone; inline flags change what the items mean
    reader = _Reader(pattern.pattern)
    try:
        alternatives = reader.alternatives()
    except IndexError:
        raise _NoPlan from None
    if reader.at != len(pattern.pattern):
        raise _NoPlan
    return alternatives[0] if len(alternatives) == 1 else [("group", None, alternatives, "")]


def _literals(item: Item) -> tuple[str, ...]:
    """The literals of a literal or of a non-capturing alternation of literals, nested ones in order."""
    if item[0] == "lit":
        literals: tuple[str, ...] = (item[1],)
    elif item[0] == "group" and item[1] is None and item[3] == "":
        literals = ()
        for alternative in item[2]:
            if len(alternative) != 1:
                raise _NoPlan
            literals += _literals(alternative[0])
    else:
        raise _NoPlan
    if not all(literal and not literal[0].isspace() for literal in literals):
        raise _NoPlan
    return literals


def _looked(item: Item) -> tuple[str, ...]:
    """The literals of a lookahead of literals."""
    if item[0] != "look" or item[2] is None:
        raise _NoPlan
    return _literals(("group", None, item[2], ""))


def _stops(item: Item) -> list[tuple[str, str]]:
    """What ends a region, in order: ("eat", literal), ("look", literal) or ("end", "") for $."""
    alternatives = [[item]] if item[0] != "group" else item[2]
    if item[0] == "group" and (item[1] is not None or item[3] != ""):
        raise _NoPlan
    stops: list[tuple[str, str]] = []
    for alternative in alternatives:
        if len(alternative) != 1:
            raise _NoPlan
        (inner,) = alternative
        if inner == ("end",):
            stops.append(("end", ""))
        elif inner[0] == "look" and not inner[1] and inner[2] is not None:
            for looked in inner[2]:  # (?=A|B|$)
                if looked == [("end",)]:
                    stops.append(("end", ""))
                else:
                    stops += [("look", literal) for literal in _literals(("group", None, [looked], ""))]
        else:
            stops += [("eat", literal) for literal in _literals(inner)]
    return stops


def _alternation(literals: tuple[str, ...]) -> str:
    return "(?:" + "|".join(re.escape(literal) for literal in literals) + ")"


class _Literals:
    """The first occurrence of some literals from a position: where it starts, and where the match ends there
    (after a literal matched, at the start of one looked ahead at). At one position the first literal in order
    that starts there is the one, as an alternation takes it."""

    def __init__(self, literals: list[tuple[str, bool]]) -> None:  # (literal, whether it is matched)
        self.one = literals[0][0] if len(literals) == 1 else None
        self.length: dict[str, int] = {}
        for literal, eaten in literals:
            self.length.setdefault(literal, len(literal) if eaten else 0)
        self.pattern = re.compile(_alternation(tuple(literal for literal, _ in literals)), re.DOTALL)

    def find(self, text: str, at: int) -> tuple[int, int]:
        """(start, end) of the first occurrence from ``at``, or (-1, -1)."""
        one = self.one
        if one is not None:
            index = text.find(one, at)
            return (index, index + self.length[one]) if index >= 0 else (-1, -1)
        found = self.pattern.search(text, at)
        if found is None:
            return -1, -1
        start = found.start()
        return start, start + self.length[found.group()]


def _back(text: str, at: int, floor: int) -> int:
    """Back over the whitespace before ``at``, not before ``floor``."""
    while at > floor and text[at - 1].isspace():
        at -= 1
    return at


def _nowhere(text: str, at: int) -> None:
    return None


_LAZY = ("any", True)


class Region:
    """The region shape: ``match(text, at)`` gives (start, group start, group end, end) of the leftmost match from
    ``at``, as ``pattern.search(text, at)`` finds it, or None."""

    def __init__(self, items: list[Item]) -> None:
        items = list(items)
        self.anchored = lead = self.trail = self.captured = False
        if items[:1] == [("begin",)]:
            self.anchored, items = True, items[1:]
            if items[:1] == [("ws",)]:
                lead, items = True, items[1:]
        if not items:
            raise _NoPlan
        openers = _literals(items.pop(0))
        # the opener, its guard, the whitespace after it and a second marker after that, in one call of re; at
        # a position the head matches one way only (a marker does not start with whitespace)
        head = ("\\s*" if lead else "") + _alternation(openers)
        if items and items[0][0] == "look":
            head += items.pop(0)[3]
        if items[:1] == [("ws",)]:
            head, items = head + "\\s*", items[1:]
            if items and items[0][0] == "lit":  # <tool_call>\s*<function=
                if items[0][1][0].isspace():
                    raise _NoPlan
                head += re.escape(items.pop(0)[1])
                if items and items[0][0] == "look":
                    head += items.pop(0)[3]
                if items[:1] == [("ws",)]:
                    head, items = head + "\\s*", items[1:]
        compiled = re.compile(head, re.DOTALL)
        self.head = compiled.match if self.anchored else compiled.search
        body = items.pop(0) if items else None
        self.through = False  # the group runs through the stop: (B S)
        if body is not None and body[:2] == ("group", 1) and body[3] == "" and len(body[2]) == 1:
            inside = body[2][0]
            if len(inside) == 1:
                self.captured, body = True, inside[0]
            elif not items:
                self.captured = self.through = True
                body, items = inside[0], list(inside[1:])
        self.held: _Literals | None = None  # the literals (?:(?!L).)*? may not pass
        if body != _LAZY:
            if body is None or body[0] != "group" or body[1] is not None or body[3] != "*?" or len(body[2]) != 1:
                raise _NoPlan
            step = body[2][0]
            if len(step) != 2 or step[1] != ("dot",) or step[0][0] != "look" or not step[0][1]:
                raise _NoPlan
            held = _looked(step[0])
            self.held = _Literals([(literal, True) for literal in held])
        if items[:1] == [("ws",)]:
            self.trail, items = True, items[1:]
        if len(items) != 1:
            raise _NoPlan
        stops = _stops(items[0])
        literals = [(literal, kind == "eat") for kind, literal in stops if kind != "end"]
        self.stop = _Literals(literals) if literals else None
        # $ is a stop too. No literal starts with whitespace, so none starts where $ holds: the order of the
        # alternatives decides between literals only.
        self.ends = any(kind == "end" for kind, _ in stops)
        if (not self.ends or self.held is not None) and len(openers) > 1:
            raise _NoPlan  # a failing region would send the backtracking to the other openers

        self.match = self._matcher()

    def _matcher(self) -> Callable[[str, int], tuple[int, int, int, int] | None]:
        """``match(text, at)``: (start, group start, group end, end) of the leftmost match from ``at``, as
        ``pattern.search(text, at)`` finds it, or None. A closure over what it reads, for speed."""
        head, anchored, ends, trail, through = self.head, self.anchored, self.ends, self.trail, self.through
        search: Callable[[str, int], Any]
        if self.stop is not None:
            one, length, search = self.stop.one, self.stop.length, self.stop.pattern.search
            find = self.stop.find
        else:  # $ alone: a stop always found
            one, length, search = None, {}, _nowhere
        eaten = length[one] if one is not None else 0
        held = self.held is not None
        # the literals the lazy loop may not pass: one found by str.find, several by one re search
        held_one = self.held.one if self.held is not None else None
        held_search = self.held.pattern.search if self.held is not None else _nowhere

        def match(text: str, at: int) -> tuple[int, int, int, int] | None:
            if anchored and at > 0:
                return None  # ^ holds only at the start of the text
            while True:
                opened = head(text, at)
                if opened is None:
                    return None
                begin, inner = opened.span()
                if one is not None:
                    first = text.find(one, inner)
                    finish = first + eaten
                else:
                    found = search(text, inner)
                    first = finish = -1
                    if found is not None:
                        first = found.start()
                        finish = first + length[found.group()]
                if ends:
                    # $ holds at the end, and before a newline that ends the text; after \s*, at the end itself
                    size = len(text)
                    end = size - 1 if not trail and size > inner and text[size - 1] == "\n" else size
                    if first < 0 or end < first:
                        first = finish = end
                elif first < 0:
                    if find(text, begin + 1)[0] < 0:
                        return None  # no stop after this head, nor after a later one
                    at = begin + 1  # a later head may end before this one, inside it: its stop may come first
                    continue
                close = first
                if trail:  # back over the whitespace before the stop (_back, inline)
                    while close > inner and text[close - 1].isspace():
                        close -= 1
                group_end = finish if through else close
                if not held:
                    return begin, inner, group_end, finish
                if held_one is not None:
                    passed = text.find(held_one, inner)
                else:
                    found = held_search(text, inner)
                    passed = -1 if found is None else found.start()
                if passed < 0 or passed >= close:
                    return begin, inner, group_end, finish
                if anchored:
                    return None
                at = begin + 1  # the lazy loop met a literal it may not pass: a later start

        return match


class Plan:
    """What the fast path asks of a pattern, each None when the plan cannot give it."""

    def __init__(self) -> None:
        self.search: Callable[[str], Any] | None = None  # group 1's text, or NO_MATCH
        self.finditer: Callable[[str], list[Any]] | None = None  # group 1's text of every match
        # (template, its parts) -> (text -> text), or None when the plan cannot insert the template's groups
        self.replace: Callable[[str, Parts], Callable[[str], str] | None] | None = None
        self.pairs: Callable[[str], list[Pair]] | None = None  # (key, value, whole match) of every match


def _region_plan(items: list[Item]) -> Plan:
    region = Region(items)
    return _matches_plan(region.match, region.captured, None)


def _matches_plan(
    match: Callable[[str, int], tuple[Any, ...] | None], captured: bool, pattern: Any, heads: bool = False
) -> Plan:
    """The plan of a pattern whose leftmost match from a position ``match`` gives as (start, group start, group
    end, end), or with an end of -1 when only ``re`` can tell (``_ends``): the text is then left to ``pattern``,
    as it is when a match is empty (after an empty match, re's rules for the next one differ, [RE-6]). With
    ``heads``, a fifth member is the match of the pattern's head, whose groups are the pattern's: a replacement
    may insert them."""
    plan = Plan()

    def search(text: str) -> Any:
        found = match(text, 0)
        if found is None:
            return NO_MATCH
        if found[3] < 0:
            matched = pattern.search(text)
            return NO_MATCH if matched is None else matched.group(1)
        return text[found[1] : found[2]]

    def finditer(text: str) -> list[Any]:
        groups: list[Any] = []
        at = 0
        while True:
            found = match(text, at)
            if found is None:
                return groups
            if found[0] == found[3] or found[3] < 0:
                return [each.group(1) for each in pattern.finditer(text)]
            groups.append(text[found[1] : found[2]])
            at = found[3]

    def replace(template: str, parts: Parts) -> Callable[[str], str] | None:
        numbers = [part for part in parts if isinstance(part, int)]
        if numbers and (not heads or 0 in numbers):
            return None  # no head, or the whole match, which is more than the head's
        grouped, literal = bool(numbers), "".join(part for part in parts if isinstance(part, str))

        def sub(text: str) -> str:
            found = match(text, 0)
            if found is None:
                return text
            pieces: list[str] = []
            at = 0
            while found is not None:
                if found[0] == found[3] or found[3] < 0:
                    return pattern.sub(template, text)  # type: ignore[no-any-return]
                pieces += (text[at : found[0]], _inserted(parts, found[4]) if grouped else literal)
                at = found[3]
                found = match(text, at)
            pieces.append(text[at:])
            return "".join(pieces)

        return sub

    if captured:
        plan.search, plan.finditer = search, finditer
    plan.replace = replace
    return plan


def _inserted(parts: Parts, head: re.Match[str]) -> str:
    """What a template inserts for a match whose groups are the head's ([SUBS-3])."""
    return "".join([part if isinstance(part, str) else head.group(part) or "" for part in parts])


def _open_plan(pattern: re.Pattern[str]) -> Plan:
    """The open shape: ``H (Q .*?) [\\s*|\\n?] S``, where ``H`` and ``Q`` are any patterns without groups (``Q`` may
    be empty) and ``S`` stops as in a region. No match starts before the first place where ``H`` matches, and there
    the first way ``H`` takes gives the match when a stop comes after it (always with $ among the stops): ``re``
    runs ``H (Q)``, and the stops are found as in a region (``_ends``); where none comes, ``re`` decides."""
    source = _source(pattern)
    body = _top_body(source)
    if not source.startswith("(", body):
        raise _NoPlan  # no group: the marked shape
    close = _closing(source, body + 1)
    inside = source[body + 1 : close]
    lazy = _top_body(inside)
    if inside[lazy:] != ".*?":
        raise _NoPlan
    return _matches_plan(_opened(source, f"{source[:body]}({inside[:lazy]})", close), True, pattern)


def _opened(source: str, head_source: str, close: int, groups: int = 1) -> Callable[[str, int], Opened | None]:
    """The match of an open shape from a position: its head, ``head_source``, has ``groups`` groups (more has no
    plan), the last where the body's group starts, ``(Q)`` or an empty one, and the body's group closes at
    ``close``; an end of -1 where ``re`` decides (no stop came, or the body is another alternative's)."""
    head = _compiled(head_source, groups)
    reader = _Reader(source)
    reader.at = close + 1
    ends = _ends(reader)
    if reader.at != len(source):
        raise _NoPlan
    opener = _led(head) or _needing(head, head.search)

    def match(text: str, at: int) -> Opened | None:
        opened = opener(text, at)
        if opened is None:
            return None
        start = opened.start(groups)
        if start < 0:
            return opened.start(), -1, -1, -1, opened
        close, finish = ends(text, opened.end())
        return opened.start(), start, close, finish, opened

    return match


def _marked(source: str, anchored: bool) -> Callable[[str, int], Opened | None]:
    """The marked shape: a pattern in which a lazy ``.*? [\\s*|\\n?] S`` ends its alternative and every alternative
    around it up to the whole (``^\\s*(?:<a>.*?(?:</a>|$)|</a>)``), and whose groups, if any, close before the body.
    Once the body is reached, where the first stop comes decides the match (with $ among the stops, it always
    comes), so ``re`` runs the pattern with the body and its stops cut out and an empty group, the mark, in their
    place (its head, whose groups are the pattern's); where the mark took part, the stops are found from it as in a
    region, and where none comes ``re`` decides. ``match(text, at)`` as an open shape's (the group's positions are
    the match's)."""
    groups = _groups(source)
    captured = [end for start, end in groups if source[start + 1] != "?" or source.startswith("(?P<", start)]
    for body in _lazy_bodies(source):
        reader = _Reader(source)
        reader.at = body + 3
        try:
            ends = _ends(reader)
            _completes(source, reader.at, body, groups)
        except (_NoPlan, IndexError):
            continue
        if any(end > body for end in captured):
            continue
        head = _compiled(source[:body] + "()" + source[reader.at :], len(captured) + 1)
        break
    else:
        raise _NoPlan
    opener, mark = _needing(head, head.match) if anchored else _led(head) or _needing(head, head.search), head.groups

    def match(text: str, at: int) -> Opened | None:
        opened = opener(text, at)
        if opened is None:
            return None
        begin, inner = opened.start(), opened.start(mark)
        if inner < 0:  # an alternative without the body
            return begin, begin, opened.end(), opened.end(), opened
        finish = ends(text, inner)[1]
        return begin, begin, finish, finish, opened

    return match


def _marked_plan(pattern: re.Pattern[str]) -> Plan:
    return _matches_plan(_marked(_source(pattern), False), False, pattern, heads=True)


def _pairs_plan(pattern: re.Pattern[str]) -> Plan:
    """The key-value shape ([KV-3]): the open shape with the body ``(?P<value>.*?)``, at the top of the pattern,
    and ``(?P<key>...)`` the head's one group: ``H (?P<value>.*?) [\\s*|\\n?] S``."""
    source = _source(pattern)
    if sorted(pattern.groupindex.items()) != [("key", 1), ("value", 2)] or pattern.groups != 2:
        raise _NoPlan
    groups = _groups(source)
    body, close = next(((start, end) for start, end in groups if source.startswith("(?P<value>", start)), (0, 0))
    if source[body + 10 : close] != ".*?" or any(start < body and close < end for start, end in groups):
        raise _NoPlan  # another body, or one inside a group
    match = _opened(source, source[:body] + "(?P<value>)", close, 2)
    plan = Plan()

    def pairs(text: str) -> list[Pair]:
        found: list[Pair] = []
        at = 0
        while True:
            opened = match(text, at)
            if opened is None:
                return found
            begin, inner, close, finish, head = opened
            if finish <= begin:  # re decides: no stop came, the body is another alternative's, or the match is empty
                return [(each.group(1), each.group(2), each.group()) for each in pattern.finditer(text)]
            found.append((head.group(1), text[inner:close], text[begin:finish]))
            at = finish

    plan.pairs = pairs
    return plan


def _led_plan(pattern: re.Pattern[str]) -> Plan:
    """Any other pattern that ``_searcher`` can lead by its literals: ``re`` runs it whole, at the positions where
    a match may start ((?:<|start|>assistant)?<|channel|>(?:final|commentary)[^<]*<|message|>)."""
    _source(pattern)
    search = _led(pattern)
    if search is None:
        raise _NoPlan  # re's own search is as good

    def match(text: str, at: int) -> tuple[int, int, int, int, re.Match[str]] | None:
        found = search(text, at)
        if found is None:
            return None
        start, end = found.span(1) if pattern.groups else (0, 0)
        return found.start(), start, end, found.end() if start >= 0 else -1, found  # no group 1: re decides

    return _short_to_re(_matches_plan(match, pattern.groups > 0, pattern, heads=True), pattern)


def _short_to_re(plan: Plan, pattern: re.Pattern[str]) -> Plan:
    """``plan`` for texts of _SHORT characters or more, ``pattern`` for shorter ones: a led pattern runs with ``re``
    anyway, and on a short text its own scan costs less than the plan's loop."""
    short = Plan()
    search, finditer, replace = plan.search, plan.finditer, plan.replace
    if search is not None and finditer is not None:

        def searched(text: str) -> Any:
            if len(text) >= _SHORT:
                return search(text)
            found = pattern.search(text)
            return NO_MATCH if found is None else found.group(1)

        def found_all(text: str) -> list[Any]:
            return finditer(text) if len(text) >= _SHORT else [found.group(1) for found in pattern.finditer(text)]

        short.search, short.finditer = searched, found_all
    if replace is not None:

        def replaced(template: str, parts: Parts) -> Callable[[str], str] | None:
            sub = replace(template, parts)
            if sub is None:
                return None
            return lambda text: sub(text) if len(text) >= _SHORT else pattern.sub(template, text)

        short.replace = replaced
    return short


def _source(pattern: re.Pattern[str]) -> str:
    if pattern.flags != re.DOTALL | re.UNICODE or not isinstance(pattern.pattern, str):
        raise _NoPlan  # [REGEX-1] DOTALL alone
    return pattern.pattern


def _compiled(source: str, groups: int = 1) -> re.Pattern[str]:
    """A head, compiled: ``groups`` groups, the last its mark."""
    try:
        head = re.compile(source, re.DOTALL)
    except re.error:
        raise _NoPlan from None
    if head.groups != groups:
        raise _NoPlan
    return head


_SHORT = 256  # below this many characters, re's scan costs less than finding the leads


def _led(head: re.Pattern[str]) -> Callable[[str, int], re.Match[str] | None] | None:
    """``head.search``, led by the literals that start every match of the head (``_leads``), or None where ``re``
    does as well alone. ``re`` tries a head that starts with an optional literal, ``(?:<|start|>assistant)?``, with
    whitespace, ``\\s*to=``, or with ``^`` in some of its alternatives at every position of the text, and a head whose
    literals start with a letter at every such letter; ``str.find`` skips to the literals. No literal starts with
    whitespace, so a match starts at the first of them or in the whitespace just before it, or after it (or at the
    text's start): ``head.match`` runs at those positions, in order, as ``search`` would. Texts shorter than _SHORT
    are left to ``re``."""
    try:
        leads = _leads(head.pattern)
    except (_NoPlan, IndexError):
        return None
    literals, spaced, begins = leads.literals, leads.spaced, leads.begins
    lettered = len(literals) > 1 and any(literal[0].isalnum() for literal in literals)
    if not (spaced or (begins and literals) or leads.optional or lettered):
        return None  # re skips to the characters that start a literal, and "<" is rare in prose
    match, scan = head.match, head.search

    def search(text: str, at: int) -> re.Match[str] | None:
        if len(text) - at < _SHORT:
            return scan(text, at)
        if begins and at == 0:
            matched = match(text, 0)
            if matched is not None:
                return matched
        while True:
            first = -1  # the first literal from at, each literal's search ending where the first found so far starts
            for literal in literals:
                found = text.find(literal, at) if first < 0 else text.find(literal, at, first + len(literal) - 1)
                if found >= 0:
                    first = found
            if first < 0:
                return None
            for start in range(_back(text, first, at) if spaced else first, first + 1):
                matched = match(text, start)
                if matched is not None:
                    return matched
            at = first + 1

    return search


def _needing(
    head: re.Pattern[str], find: Callable[[str, int], re.Match[str] | None]
) -> Callable[[str, int], re.Match[str] | None]:
    """``find`` (the head's ``search`` or ``match``), but None at once where the text from the position lacks a
    literal that every match of the head holds: one at its top level, outside groups and lookaheads. ``re`` finds no
    such literal first when the head starts otherwise (Mistral v11's ``^(?:(?!\\[TOOL_CALLS\\]).)*?\\[THINK\\]``
    steps through the whole of a text without ``[THINK]``); ``str.find`` skips to it."""
    try:
        reader = _Reader(head.pattern)
        alternatives = reader.alternatives()
    except (_NoPlan, IndexError):
        return find
    if len(alternatives) != 1 or reader.at != len(head.pattern):
        return find
    items = alternatives[0]
    literals = [item[1] for item in items if item[0] == "lit"]
    if not literals or items[0][0] == "lit":
        return find  # re skips to a first literal itself
    needed = max(literals, key=len)

    def needing(text: str, at: int) -> re.Match[str] | None:
        return None if text.find(needed, at) < 0 else find(text, at)

    return needing


class _Leads(NamedTuple):
    """How every match of a pattern starts (``_leads``)."""

    literals: list[str]  # with one of these,
    spaced: bool  # or with whitespace before one,
    begins: bool  # or at the text's start (an alternative that starts with ^);
    optional: bool  # whether one of the literals is an optional one before the others


def _leads(source: str) -> _Leads:
    """How every match of a pattern starts: ``[(?:L)?] [\\s*] L ...`` or ``^ ...``, or in place of ``[\\s*] L`` a
    group (capturing or not, not repeated) whose alternatives each start so. _NoPlan for any other start."""
    literals: list[str] = []
    optional = False
    if source.startswith("(?:"):
        close = _closing(source, 3)
        if source[close + 1 : close + 2] == "?" and source[close + 2 : close + 3] not in ("?", "+"):
            reader = _Reader(source[3:close])
            literals += _literals(("group", None, reader.alternatives(), ""))
            if reader.at != close - 3:
                raise _NoPlan
            optional, source = True, source[close + 2 :]
    inner = 3 if source.startswith("(?:") else 0 if source.startswith("(?") else 1 if source.startswith("(") else 0
    if inner:
        close = _closing(source, inner)
        if source[close + 1 : close + 2] in ("?", "*", "+", "{"):
            raise _NoPlan
        spaced = begins = False
        for alternative in _split(source[inner:close]):
            each = _leads(alternative)
            literals += each.literals
            spaced, begins, optional = spaced or each.spaced, begins or each.begins, optional or each.optional
        return _Leads(literals, spaced, begins, optional)
    if source.startswith("^"):
        return _Leads(literals, False, True, optional)
    reader = _Reader(source)
    item = reader.item()
    spaced = item == ("ws",)
    if spaced:
        item = reader.item()
    if item[0] != "lit" or item[1][0].isspace():
        raise _NoPlan
    literal = item[1]
    while reader.at < len(source):
        try:
            item = reader.item()
        except _NoPlan:
            break
        if item[0] != "lit":
            break
        literal += item[1]
    return _Leads([*literals, literal], spaced, False, optional)


def _split(source: str) -> list[str]:
    """The alternatives at the top level of a pattern (escapes, classes and groups skipped)."""
    alternatives, depth, begin, at = [], 0, 0, 0
    while at < len(source):
        char = source[at]
        if char == "\\":
            at += 1
        elif char == "[":
            at = _class_end(source, at)
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            alternatives.append(source[begin:at])
            begin = at + 1
        at += 1
    alternatives.append(source[begin:at])
    return alternatives


_OPTIONAL = re.compile(r"\\s\*(\\[^\w\s]|[^\\()|?*+.$^\[\]{}\s])\?(?![?+])(?=\\s\*)")  # \s*X?, then \s*


def _ends(reader: _Reader) -> Callable[[str, int], tuple[int, int]]:
    """Read ``[\\s*|\\s*X?\\s*|\\n?] S`` after a lazy body, ``S`` stops as in a region and ``X`` a character none of
    them starts with: where the body that starts at a position ends (before the whitespace, ``X`` or the newline) and
    where the match ends, as in a region; (-1, -1) when no stop comes and $ is none of them (the match may be
    elsewhere: ``re`` decides)."""
    newline = reader.source.startswith("\\n?", reader.at)
    reader.at += 3 * newline
    skipped = None if newline else _OPTIONAL.match(reader.source, reader.at)
    dropped = ""  # \s* X? \s*: a character that may stand in the whitespace before the stops (Llama 4's "]")
    if skipped is not None:
        dropped, reader.at = skipped.group(1)[-1], skipped.end()
    start = reader.at
    items = reader.sequence()  # up to the end of the alternative
    trail = items[:1] == [("ws",)] and not newline
    if len(items) != 1 + trail:
        raise _NoPlan
    tailed: re.Pattern[str] | None = None  # stops that go on after their literal, run by re
    try:
        stops = _stops(items[-1])
    except _NoPlan:
        tailed, ended = _tailed(reader.source[start + 3 * trail : reader.at])
        stops = [("end", "")] if ended else []
    ended = ("end", "") in stops
    if newline and ended:
        raise _NoPlan  # \n? before $ may stop before a last newline or two
    literals = [(literal, kind == "eat") for kind, literal in stops if kind != "end"]
    if dropped and (tailed is not None or any(literal.startswith(dropped) for literal, _ in literals)):
        raise _NoPlan  # "]" could be taken before a later stop: the first would not decide
    stop = _Literals(literals) if literals else None
    one = stop.one if stop is not None else None
    length = stop.length if stop is not None else {}
    search = stop.pattern.search if stop is not None and one is None else None
    eaten = length[one] if one is not None else 0
    tail_search = tailed.search if tailed is not None else None

    def ends(text: str, inner: int) -> tuple[int, int]:
        first = finish = -1
        if one is not None:
            first = text.find(one, inner)
            finish = first + eaten
        elif search is not None:
            found = search(text, inner)
            if found is not None:
                first = found.start()
                finish = first + length[found.group()]
        elif tail_search is not None:
            found = tail_search(text, inner)
            if found is not None:
                first, finish = found.span()
        if ended:
            size = len(text)  # $ as in a region
            end = size - 1 if not trail and size > inner and text[size - 1] == "\n" else size
            if first < 0 or end < first:
                first = finish = end
        elif first < 0:
            return -1, -1
        if trail:
            close = _back(text, first, inner)
            if dropped and close > inner and text[close - 1] == dropped:
                close = _back(text, close - 1, inner)  # no stop starts with whitespace or it: the earliest end
            return close, finish
        if newline and first > inner and text[first - 1] == "\n":
            return first - 1, finish
        return first, finish

    return ends


def _tailed(source: str) -> tuple[re.Pattern[str], bool]:
    """Stops ``(?:A|B|$)`` of which some go on after their literal (``;\\s*(?=\\{)``): each but $ starts with a literal,
    or a lookahead of literals, that does not start with whitespace, as in a region, and ``re`` finds the first place
    where one of them matches, in order, with what it takes. The alternatives but $, and whether $ is one."""
    if not source.startswith("(?:") or _closing(source, 3) != len(source) - 1:
        raise _NoPlan
    alternatives = _split(source[3:-1])
    kept = [alternative for alternative in alternatives if alternative != "$"]
    for alternative in kept:
        try:
            first = _Reader(alternative).item()
        except IndexError:  # an empty alternative
            raise _NoPlan from None
        if first[0] == "look" and not first[1]:
            _looked(first)  # a lookahead of literals that do not start with whitespace
        elif first[0] != "lit" or first[1][0].isspace():
            raise _NoPlan
    try:
        tailed = re.compile("|".join(kept), re.DOTALL)
    except re.error:
        raise _NoPlan from None
    if tailed.groups or not kept:
        raise _NoPlan
    return tailed, len(kept) < len(alternatives)


def _groups(source: str) -> list[tuple[int, int]]:
    """Where each group of a pattern opens and closes (escapes and classes skipped)."""
    groups, opened, at = [], [], 0
    while at < len(source):
        char = source[at]
        if char == "\\":
            at += 1
        elif char == "[":
            at = _class_end(source, at)
        elif char == "(":
            opened.append(at)
        elif char == ")":
            groups.append((opened.pop(), at))
        at += 1
    return groups


def _lazy_bodies(source: str) -> list[int]:
    """Where ``.*?`` stands in a pattern (escapes and classes skipped)."""
    found, at = [], 0
    while at < len(source):
        if source[at] == "\\":
            at += 2
        elif source[at] == "[":
            at = _class_end(source, at) + 1
        else:
            if source.startswith(".*?", at):
                found.append(at)
            at += 1
    return found


def _completes(source: str, at: int, body: int, groups: list[tuple[int, int]]) -> None:
    """_NoPlan unless from ``at`` (after a body's stops) the pattern only closes the groups around the body, each a
    plain ``(?:...)`` or ``(?:...)?``, or goes on to other alternatives: nothing follows the body in sequence."""
    while True:
        around = [(start, end) for start, end in groups if start < body and at <= end]
        if not around:
            if source[at : at + 1] in ("", "|"):
                return  # the whole pattern: the other alternatives are tried only where this one fails
            raise _NoPlan
        start, end = max(around)
        if source[at:end][:1] not in ("", "|") or not source.startswith("(?:", start):
            raise _NoPlan
        at = end + 1
        if source.startswith("??", at) or source[at : at + 1] in ("*", "+", "{"):
            raise _NoPlan  # repeated, or tried empty first
        at += source.startswith("?", at)


def _rest_plan(items: list[Item]) -> Plan:
    if len(items) != 4 or items[0] != ("begin",) or items[2:] != [("group", 1, [[("any", False)]], ""), ("end",)]:
        raise _NoPlan
    optional = items[1]
    if optional[0] != "group" or optional[1] is not None or optional[3] != "?" or len(optional[2]) != 1:
        raise _NoPlan
    inner = optional[2][0]
    region = Region(inner if inner[:1] == [("begin",)] else [("begin",), *inner])  # uncaptured: (.*) is group 1
    plan = Plan()

    def search(text: str) -> Any:
        found = region.match(text, 0)
        return text if found is None else text[found[3] :]  # (.*)$ takes the rest whole

    plan.search = search
    return plan


def _marked_rest_plan(pattern: re.Pattern[str]) -> Plan:
    """The rest shape ``^(?:X)?(.*)$`` with ``X`` of the marked shape: the text after ``X`` when it matches at the
    start, or all of it."""
    source = _source(pattern)
    if not source.startswith("^(?:") or not source.endswith(")?(.*)$") or _closing(source, 2) != len(source) - 7:
        raise _NoPlan
    if pattern.groups != 1:
        raise _NoPlan  # (.*) is not group 1
    match = _marked(source[4:-7], True)
    plan = Plan()

    def search(text: str) -> Any:
        found = match(text, 0)
        if found is not None and found[3] < 0:
            return pattern.search(text).group(1)  # type: ignore[union-attr]  # the rest shape always matches
        return text if found is None else text[found[3] :]  # (.*)$ takes the rest whole

    plan.search = search
    return plan


def _free_plan(items: list[Item]) -> Plan:
    if len(items) != 5 or items[:2] != [("begin",), ("ws",)] or items[3:] != [("ws",), ("end",)]:
        raise _NoPlan
    group = items[2]
    if group[0] != "group" or group[1] != 1 or group[3] != "" or len(group[2]) != 1 or len(group[2][0]) != 1:
        raise _NoPlan
    loop = group[2][0][0]
    if loop[0] != "group" or loop[1] is not None or loop[3] != "*?" or len(loop[2]) != 1:
        raise _NoPlan
    step = loop[2][0]
    if len(step) != 2 or step[1] != ("dot",) or step[0][0] != "look" or not step[0][1]:
        raise _NoPlan
    literals = _looked(step[0])
    held = _Literals([(literal, True) for literal in literals])
    plan = Plan()

    def search(text: str) -> Any:
        # a literal starts with no whitespace, so one anywhere in the text is one the lazy loop must pass
        if held.find(text, 0)[0] >= 0:
            return NO_MATCH
        return text.strip()  # str.strip removes what \s matches ([RE-3])

    plan.search = search
    return plan


def _replace_plan(items: list[Item]) -> Plan:
    if len(items) != 1 or items[0][0] != "lit":
        raise _NoPlan
    literal = items[0][1]
    plan = Plan()

    def replace(template: str, parts: Parts) -> Callable[[str], str] | None:
        if any(isinstance(part, int) for part in parts):
            return None  # the whole match: a pattern without groups has no other
        inserted = "".join(part for part in parts if isinstance(part, str))
        return lambda text: text.replace(literal, inserted)

    plan.replace = replace
    return plan


def plan(pattern: re.Pattern[str]) -> Plan | None:
    """The plan of a pattern of one of the shapes, or None."""
    try:
        items: list[Item] | None = _read(pattern)
    except _NoPlan:
        items = None
    for make in (_region_plan, _rest_plan, _free_plan, _replace_plan):
        if items is None:
            break
        try:
            return make(items)
        except _NoPlan:
            continue
    for make_from_pattern in (_open_plan, _marked_plan, _marked_rest_plan, _pairs_plan, _led_plan):
        try:
            return make_from_pattern(pattern)
        except _NoPlan:
            continue
    return None


def substitution(pattern: re.Pattern[str], replacement: str) -> Callable[[str], str] | None:
    """``pattern.sub(replacement, text)`` as a function of the text, when a plan can run it and insert what the
    replacement does ([SUBS-3]: groups only where the plan has the match of a head with the pattern's groups, and
    never the whole match)."""
    found = plan(pattern)
    if found is None or found.replace is None:
        return None
    return found.replace(replacement, template_parts(replacement, pattern))
