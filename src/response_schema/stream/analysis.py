"""What the output received so far already decides ([STREAM-6]): the schema's nodes run on *descriptions* of
their content instead of the content, and give what every successful continuation agrees on.

A description is one of: ``Exact`` (the content is known whole: the one-shot walk gives the value), ``Open`` (a
string that starts with ``buffer.text[base:]`` and may go on), ``Fields`` (the object of an ``x-regex`` with
named groups), ``Items`` (the matches of an ``x-regex-iterator``), ``ANY`` (anything, or nothing) and
``NO_MATCH`` (a regex keyword found nothing). A node gives an ``Outcome``: whether it may give no value, and the
meet of the values it may give (``NOTHING`` when it cannot give one: every continuation fails there).

A stage on an open string keeps its state between feeds, keyed by the node and the span it reads, so each
character is read once per stage ([STREAM-6], linear cost). A stage this file cannot run on open content
is opaque: its node gives ``ANY`` until the output is complete."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..errors import ParseError
from ..schema import Node
from ..templates import template_parts
from ..textparsers import NOT_JSON, TooDeep, json_value
from ..walk import NO_VALUE, Walk
from .partial import UNKNOWN, JSONText, OpenArray, OpenObject, OpenText, common_prefix, meet
from .pike import WAITING, Buffer, Entry, Memo, Program, Search, compile_program, relative
from .trailing import WHITESPACE, blind


class Exact:
    """Content known whole: ``value``. When it is a text from a buffer, ``origin`` is where it starts; a span made
    by ``Exact.span`` is read from the buffer only when its value is needed (a text node may need only its
    length, ``collapsed``), and is equal to the same span, not to other texts."""

    __slots__ = ("_end", "_value", "origin")

    def __init__(self, value: Any, origin: tuple[Buffer, int] | None = None) -> None:
        self._value, self.origin, self._end = value, origin, -1

    @classmethod
    def span(cls, buffer: Buffer, start: int, end: int) -> Exact:
        exact = cls(UNREAD, (buffer, start))
        exact._end = end
        return exact

    @property
    def value(self) -> Any:
        if self._value is UNREAD:
            assert self.origin is not None
            buffer = self.origin[0]
            buffer.read_end = buffer.read_end or buffer.moving(self._end)
            self._value = buffer.slice(self.origin[1], self._end)
        return self._value

    def text_length(self) -> int | None:
        """The length of a text value without reading it, None for a value that is no text."""
        if self._end >= 0 and self.origin is not None:
            buffer = self.origin[0]
            buffer.read_end = buffer.read_end or buffer.moving(self._end)  # a length that grows with the text
            return self._end - self.origin[1]
        return len(self._value) if isinstance(self._value, str) else None

    def end(self) -> int | None:
        """Where a text of the output ends in its buffer; None for any other value."""
        if self.origin is None:
            return None
        if self._end >= 0:
            return self._end
        return self.origin[1] + len(self._value) if isinstance(self._value, str) else None

    def moving(self) -> bool:
        """Whether a text of the output ends where its buffer does, or next to it (``Buffer.moving``)."""
        end = self.end()
        return end is not None and self.origin is not None and self.origin[0].moving(end)

    def bounds(self) -> tuple[int, int] | None:
        """Where a span made by ``Exact.span`` starts and ends in its buffer; None for any other value."""
        return None if self._end < 0 or self.origin is None else (self.origin[1], self._end)

    def _key(self) -> tuple[Any, ...]:
        return ("span", self.origin, self._end) if self._end >= 0 else (self._value, self.origin)

    def identity(self) -> Any:
        """What tells this content from others (``distinct``): a span of the output by where it is, any other
        value by the object (it may not be hashable)."""
        return self._key() if self._end >= 0 else id(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Exact) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


UNREAD: Any = object()  # the value of a span not read yet


class Open:
    """A string that starts with ``buffer.text[base:]`` and may go on: known only up to ``end`` (``collapsed``),
    or to the end of the buffer. A value: never changed once made (a plain class, not a frozen dataclass, whose
    making costs three times as much, and a feed makes a few dozen descriptions)."""

    __slots__ = ("base", "buffer", "end")

    def __init__(self, buffer: Buffer, base: int, end: int | None = None) -> None:
        self.buffer, self.base, self.end = buffer, base, end

    @property
    def text(self) -> str:
        buffer = self.buffer
        buffer.read_end = buffer.read_end or self.end is None or buffer.moving(self.end)
        return buffer.slice(self.base, self.end)

    def open_text(self) -> OpenText:
        """The string it holds so far, read from the buffer only when needed."""
        return OpenText.span(self.buffer, self.base, self.buffer.length if self.end is None else self.end)


@dataclass(frozen=True, eq=False)
class Fields:
    fields: dict[str, Any]


@dataclass(frozen=True, eq=False)
class Items:
    known: Sequence[Any]  # the matches found, each an item's content: its first ``count`` (an iterator's list,
    count: int  # which later matches are added to, is given as it is, not copied on every feed)
    tails: tuple[Any, ...]  # what the next item's content may be
    may_end: bool  # whether there may be no next item
    source: Any = None  # the Iterator that found them on an open text (it only adds to ``known``)


@dataclass(frozen=True)
class Source:
    """The JSON text a node passes through whole (``json_text``): sent as text ([STREAM-7] "json"). A text known
    whole has its parsed ``value`` (UNKNOWN while the text may go on)."""

    text: OpenText
    origin: tuple[Buffer, int]
    value: Any = UNKNOWN


ANY: Any = object()
MAY_END: Any = object()  # the shape of an iterator whose matches may end here (``Iterator.shape``)
NO_MATCH: Any = object()
NOTHING: Any = object()  # an outcome's value when the node cannot give one


class Outcome:
    """What a node gives: whether it may give no value (``none``), and the meet of the values it may give
    (``value``, NOTHING when it gives none). A value: never changed once made (a plain class, as ``Open``)."""

    __slots__ = ("none", "value")

    def __init__(self, none: bool, value: Any) -> None:
        self.none, self.value = none, value


IMPOSSIBLE = Outcome(False, NOTHING)  # every continuation fails here
UNSURE = Outcome(True, UNKNOWN)


def merged(outcomes: list[Outcome]) -> Outcome:
    if len(outcomes) == 1:  # the meet of one outcome is itself
        return outcomes[0]
    none = any(outcome.none for outcome in outcomes)
    values = [outcome.value for outcome in outcomes if outcome.value is not NOTHING]
    if not values:
        return Outcome(none, NOTHING)
    value = values[0]
    for other in values[1:]:
        value = meet(value, other)
    return Outcome(none, value)


CUT = 256  # characters: a longer candidate text, cut from an open one, is not read whole (``candidate``)
KEPT = 16  # feeds: how many outcomes of a node on one open text are remembered (``candidate``)


class Analysis:
    """One stream's analysis: ``run(buffer)`` gives the root's outcome for the output received so far."""

    def __init__(self, root: Node, walk: Walk) -> None:
        self.root, self.walk = root, walk
        self.buffer = Buffer()  # the output, from the first run on
        self.blind = False  # the last run read no description's text to its end (``Buffer.read_end``)
        self.differs: tuple[Any, ...] | None = None  # the check ``steady`` last found changed: key, state, shape
        self._seen = self._before = 0  # the output's length at the end of the last feed, and of the one before
        self._made: dict[tuple[Any, ...], None] = {}  # the keys of the states the last run made
        self._deciding = False  # the last run found a match certain that the next one decides (``_once_certain``)
        self._memo: dict[Any, Any] = {}  # each pattern's program, and whether a node holds JSON text
        self._states: dict[tuple[Any, ...], Any] = {}
        self._used: dict[tuple[Any, ...], Any] = {}
        self._opened: dict[tuple[Any, ...], list[tuple[int, Outcome]]] = {}  # a node's outcomes on an open text
        self._opened_now: dict[tuple[Any, ...], list[tuple[int, Outcome]]] = {}
        self._touched: list[tuple[Any, ...]] | None = None  # the keys of what is kept, when ``substituted`` asks

    def run(self, buffer: Buffer) -> Outcome:
        self.buffer = buffer
        for each in self.buffers():
            each.read_end = False
        self._feeding(buffer.length)
        self._used, self._opened_now, self._made, self._deciding = {}, {}, {}, False
        outcome = self.node(self.root, Open(buffer, 0))
        self._states = self._used  # what this feed did not use is never used again
        self._opened = self._opened_now
        self.blind = not any(each.read_end for each in self.buffers())
        return outcome

    # Steady feeds (steady.py): what the analysis is, positions counted from the end of what they read.

    def _feeding(self, length: int) -> None:
        """Keep the output's length at the end of the last feed (``_once_certain``), at the first call of a feed."""
        if length != self._seen:
            self._before, self._seen = self._seen, length

    def buffers(self) -> list[Buffer]:
        """The output, and the texts its substitutions make of it."""
        found = [self.buffer]
        for state in self._states.values():
            if type(state) is Substitutions:
                found += [step.out for step in state.steps]
        return found

    def keep_shapes(self) -> list[tuple[Any, ...]] | None:
        """Keep the shape of each state the last ``run`` kept, its positions ``relative``, in the order it used
        them (``steady`` compares them). None when the run read a description's text to its end (or the length of
        one that ends there: not ``blind``).

        A state found by the end of its text is one of two. Made by this run at the end of a text that is not
        empty, it has read nothing, and the next run makes its own at the end, of the same shape (fresh: its
        shape is not read again). Kept from an earlier run (its text has not grown since), or found by the start
        of an empty text (which may be where its text starts), it is the next run's too while its text does not
        grow: its shape holds the text's length (sized). So do a state found by the position one character before
        the end (the next run may do otherwise, were the text longer) and what was made of a span that ends at the
        end of its text: while that text does not grow (a substitution's output, while the text it deletes, a call,
        goes on), the next run finds the same state. Of the output itself, which grows at every feed, such a state
        makes the run not steady.

        Each state is kept for ``steady`` with what reads the new text (its ``advance``, an iterator's ``read``),
        what gives its shape (``shape``, or the state itself), the text whose length the shape holds, the shape,
        its key, and whether this run made it (``keeps``). None when the run cannot be steady, or found a match
        certain in this feed, which the next run decides (``_once_certain``) where this one read it open."""
        if not self.blind or self._deciding:
            return None
        kept = []
        for key, state in self._states.items():
            sized = None
            if len(key) == 4 and key[3].__class__ is int and key[2].moving(key[3]):
                if key[3] == key[2].length and key in self._made and key[3] > 0:
                    continue  # fresh
                sized = key[2]
            elif len(key) == 3 and isinstance(key[2], Exact) and key[2].moving():  # a span that ends at the end
                origin = key[2].origin
                assert origin is not None  # (``moving``: a text of the output)
                sized = origin[0]
            if sized is self.buffer:
                return None  # the output grows at every feed: no steady would hold
            kept.append((key, state, sized))
        checks = []
        for key, state, sized in kept:
            kind = type(state)
            shaped: Any
            if kind is Regex:  # its search's methods, without a call between
                reads, shaped = state.search.advance, partial(matched_shape, state.pattern, state.program, state.search)
            else:
                reads = state.read if kind is Iterator else state.advance if kind in _ADVANCED else None
                shaped = getattr(state, "shape", None)
            checks.append((reads, shaped, state, sized, _shape(shaped, state, sized), key, key in self._made))
        return checks

    def keeps(self, checks: list[tuple[Any, ...]]) -> bool:
        """Whether each state an earlier run kept (its ``keep_shapes``) is one the next run would read: the state
        kept under its key, or one that run made (it read from nothing) that no run since has kept, for which the
        next run, doing what that run did, would make its own the same way."""
        states = self._states
        for _, _, state, _, _, key, made in checks:
            found = states.get(key)
            if found is not state and (found is not None or not made):
                return False
        return True

    @staticmethod
    def changing(checks: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The checks (``keep_shapes``) whose shape a feed may change, for ``steady``: a state that reads no text,
        has no ``shape`` and holds no text's length (a result known whole, an outcome) is its own shape at every
        feed."""
        return [check for check in checks if check[0] is not None or check[1] is not None or check[3] is not None]

    def steady(self, checks: list[tuple[Any, ...]]) -> bool:
        """Whether each state the last run kept, advanced to what has arrived since as the next run would advance
        it, has the shape it had then (``keep_shapes``): then the next run would do what that one did. A state made at
        the end is not read (the next run would make a new one, of its shape). The states stay advanced (a run
        advances a state only over what it has not read); after the first that differs, the rest are the run's. That
        one, with its shape now, is ``differs``: a steady that kept another shape for it will not hold either
        (``Steady.may_hold``)."""
        self._feeding(self.buffer.length)
        for reads, shaped, state, sized, shape, key, _ in checks:
            if reads is not None:
                reads()
            now = _shape(shaped, state, sized)
            if now != shape:
                self.differs = (key, state, now) if sized is None else None  # (a length another state may change)
                return False
        return True

    def _state(self, key: tuple[Any, ...], make: Any) -> Any:
        """What a stage keeps between feeds (its search, or its result on a span known whole, which stays the
        same object from feed to feed: ``buffer_exact``), made when first needed and kept while it is used."""
        state = self._used.get(key)
        if state is None:
            state = self._states.get(key)
            if state is None:
                state = make()
                self._made[key] = None
            self._used[key] = state
        if self._touched is not None:
            self._touched.append(key)
        return state

    def program(self, pattern: re.Pattern[str]) -> Program | None:
        key = id(pattern)  # patterns live as long as the compiled schema
        if key not in self._memo:
            self._memo[key] = compile_program(pattern)
        program: Program | None = self._memo[key]
        return program

    # The nodes ([NODE-1]), on descriptions.

    def node(self, node: Node, content: Any) -> Outcome:
        if node.has_const:  # [CONST-1]; a const null gives no value under a string ([OBJ-2])
            return Outcome(True, NOTHING) if node.const is None else Outcome(False, node.const)
        if isinstance(content, Exact):
            if content.origin is None:
                return self.exact(node, content.value)
            # a text of the output, known whole: what is done with it is done once, not on every feed
            outcome: Outcome = self._state(("exact", id(node), content), lambda: self.known(node, content))
            return outcome
        if content is ANY:
            return UNSURE
        outcome = self.described(node, content)
        if isinstance(content, Open) and content.end is None:
            self._remember(("node", id(node), content.buffer, content.base), content.buffer.length, outcome)
        return outcome

    def known(self, node: Node, content: Exact) -> Outcome:
        if not self.holds_text(node):
            return self.exact(node, content.value)
        return self.described(node, content)  # read here, so that the texts sent as JSON text are found

    def described(self, node: Node, content: Any) -> Outcome:
        if not node.has_stages:
            return self.typed(node, content)
        if isinstance(content, Exact):
            return merged([self.typed(node, each) for each in self.exact_regex(node, content)])
        if isinstance(content, Open) and substituted_text(node):
            return self.substituted(node, content)
        decided = self.decided(node, content)
        if decided is not None:
            return decided
        return merged(self.open_first(self.rest, node, self.regexed(node, content)))

    def substituted(self, node: Node, content: Open) -> Outcome:
        """A text node's substitutions on an open string, then its x-regex and type on their output. Those read
        only the output, which only grows ([STREAM-3]): while it does not, the node gives the outcome it gave when
        the output last grew, and what those stages keep between feeds is kept as they left it (``_keep``). Whether
        they read the output's text near its end then (``Buffer.read_end``) is the substitutions' shape
        (``Substitutions.shape``): a steady feed needs to know it only if the output grows."""
        substitutions = self.substitutions(node, content)
        out = substitutions.advance()
        if substitutions.read == out.buffer.length:
            self._keep(substitutions.touched)
            return substitutions.outcome
        self._touched = []
        outcome = merged(self.open_first(self.rest, node, self.searched(node, out)))
        substitutions.touched, self._touched = self._touched, None
        substitutions.read, substitutions.outcome = out.buffer.length, outcome
        substitutions.read_end = out.buffer.read_end  # the stages after the substitutions read only their output
        return outcome

    def _keep(self, keys: list[tuple[Any, ...]]) -> None:
        """Keep the states and the remembered outcomes of ``keys`` for the next feed, as if this one used them."""
        for key in keys:
            if key in self._states:
                self._used.setdefault(key, self._states[key])
            elif key in self._opened:
                self._opened_now.setdefault(key, self._opened[key])

    def decided(self, node: Node, content: Any) -> Outcome | None:
        """The outcome of a node whose match was certain before this feed and ends before the output received so
        far does ([STREAM-6]): no later text changes it ([REGEX-2]: what follows the match is not read), and what
        came of reading it while open is forgotten (``remembered``), so every later feed gives the outcome this one
        gives: it is analysed once. None for any other node."""
        if node.substitutions or node.regex is None or not isinstance(content, Open):
            return None
        decided: Outcome | None = self._state(
            ("decided", id(node), content.buffer, content.base), lambda: self._once_certain(node, content)
        )
        return decided

    def _once_certain(self, node: Node, content: Open) -> Outcome | None:
        """``decided``'s outcome, made on the first feed that finds the match certain since an earlier one; None
        before (a ``_state`` of None is made again on the next feed). Earlier: by the output's length when the
        last feed ended (a steady feed advances the search too, ``steady``)."""
        regex = self._states.get(("regex", id(node.regex), content.buffer, content.base))
        search = None if regex is None else regex.search
        if search is None or search.certain is None:
            return None
        if search.certain > self._before:  # certain in this feed: the next feed's run decides it
            self._deciding = True
            return None
        if search.entries[0][1][1] >= content.buffer.length:
            return None
        return merged(self.open_first(self.rest, node, self.regexed(node, content)))

    def rest(self, node: Node, content: Any) -> Outcome:
        """Steps 6 to 8 and the type on one content the regex stages may give. A long text known whole, cut from
        a text still open, is not read whole again: its outcome is the outcome on that open text when the output
        ended at or before the cut (``remembered``)."""
        if isinstance(content, Open) and content.end is None:
            outcome = merged([self.typed(node, each) for each in self.after_regex(node, content)])
            self._remember(("rest", id(node), content.buffer, content.base), content.buffer.length, outcome)
            return outcome
        cut = self.remembered("rest", node, content)
        if cut is not None:
            return cut
        return merged([self.typed(node, each) for each in self.after_regex(node, content)])

    def candidate(self, node: Node, content: Any) -> Outcome:
        """The node on one of several contents the output may give it (the next item of an iterator), a long text
        known whole cut from a text still open read as ``remembered`` says."""
        cut = self.remembered("node", node, content)
        return self.node(node, content) if cut is None else cut

    @staticmethod
    def open_first(run: Callable[[Node, Any], Outcome], node: Node, contents: Sequence[Any]) -> list[Outcome]:
        """``run`` on each of ``contents``, in their order, but the open texts run first: a long text cut from one
        of them then takes the outcome this feed gives the open text (``remembered``), not an earlier feed's. The
        outcomes of one node on one open text, the second sends as much as the first."""
        outcomes: list[Any] = [None] * len(contents)
        for index, content in enumerate(contents):
            if isinstance(content, Open):
                outcomes[index] = run(node, content)
        for index, content in enumerate(contents):
            if outcomes[index] is None:
                outcomes[index] = run(node, content)
        return outcomes

    def remembered(self, stage: str, node: Node, content: Any) -> Outcome | None:
        """For a long text known whole, cut from a text still open (it ends here if the output does): the outcome of
        ``stage`` ("node", or the "rest" after the regex stages) on that open text when the output ended at or
        before the cut, which was the meet over every text beginning there, this one included (sound, [STREAM-6];
        it may send less). None when there is none, or the text is short. Reading each such text whole would cost
        its length on every feed that cuts it anew: quadratic in a long call. A short text that ends where the
        output does takes the outcome this feed gave the open text, which is the meet over that text's
        continuations, this one included: read whole, it would make the next feed read anew (not ``blind``). A text
        cut before a whitespace character that ends the output, long or short, is read as the open one, with the
        whitespace, when ``stage`` gives both the same outcome (``spaced``): a call's JSON arguments cut before a
        space or a newline (a JSON text may then be sent with that whitespace at its end, which [JSON-1] reads as
        nothing)."""
        end = content.end() if isinstance(content, Exact) else None
        if end is None:
            return None
        buffer, start = content.origin
        # a steady feed (steady.py) needs this to be what the next feed does: a short text cut at the end may grow
        # past CUT, and one that is long takes the outcome remembered at the end in this feed, or an older one
        moving = buffer.moving(end)
        key = (stage, id(node), buffer, start)
        if end == buffer.length - 1 and buffer.char(end) in WHITESPACE and self.spaced(node, stage, buffer, start, end):
            end = buffer.length  # the node gives the text and the text with the whitespace after it one outcome
        if end - start <= CUT:
            kept = self._opened_now.get(key)
            if end == buffer.length and kept and kept[-1][0] == end:
                return kept[-1][1]
            buffer.read_end = buffer.read_end or moving
            return None
        now = self._opened_now.get(key)
        for at, outcome in reversed(now or self._opened.get(key, [])):
            if at <= end:
                if moving and at != buffer.length and not _unread(outcome, now, buffer.length):
                    buffer.read_end = True
                return outcome
        return None

    def spaced(self, node: Node, stage: str, buffer: Buffer, start: int, end: int) -> bool:
        """Whether ``node`` (its stages after the regex ones, for the stage "rest") gives the text from ``start`` to
        ``end`` and that text with the whitespace character after it the same outcome (``remembered``): a const;
        a regex that finds the same groups in both, by its form (``trailing.blind``) or because its search on the
        open text from ``start`` found its match certain by then (every text that begins with what it read finds
        it); for the rest, an iterator that does, since what follows reads only what they find; the ``json``
        parser, which reads whitespace after the JSON text as nothing ([JSON-1]); an object node that reads each
        of its properties from the text ([OBJ-2]), each of them so."""
        if stage == "node":
            if node.has_const:
                return True
            if node.substitutions:
                return False
            if node.regex is not None:
                return self._certain(node, buffer, start, end) or blind(node.regex, every=False)
        if node.iterator is not None:
            return node.key_value is None and blind(node.iterator, every=True)
        if node.key_value is not None:
            return False
        if node.parser is not None:
            return node.parser == "json" and not node.allow_non_json
        if node.mapping is not None or node.mapping_regex is not None or node.type != "object":
            return False
        return node.has_properties and all(
            self.spaced(child, "node", buffer, start, end) for _, child in node.properties
        )

    def _certain(self, node: Node, buffer: Buffer, start: int, end: int) -> bool:
        """Whether the search of a node's regex on the open text from ``start`` found its match certain when the
        output ended at or before ``end`` (``decided`` since: certain before an earlier feed)."""
        decided = ("decided", id(node), buffer, start)
        if self._used.get(decided, self._states.get(decided)) is not None:
            return True
        key = ("regex", id(node.regex), buffer, start)
        regex = self._used.get(key, self._states.get(key))
        return regex is not None and regex.search.certain is not None and regex.search.certain <= end

    def _remember(self, key: tuple[Any, ...], at: int, outcome: Outcome) -> None:
        if self._touched is not None:
            self._touched.append(key)
        kept = self._opened_now.get(key)
        if kept is None:
            kept = self._opened_now[key] = self._opened.get(key, [])  # moved: the last feed's lists are not read again
        if kept and kept[-1][0] == at:
            kept[-1] = (at, outcome)
        else:
            kept.append((at, outcome))
            del kept[:-KEPT]

    def exact(self, node: Node, value: Any) -> Outcome:
        """The one-shot walk on content known whole."""
        try:
            result = self.walk.node(node, value)
        except ParseError:
            return IMPOSSIBLE
        return Outcome(True, NOTHING) if result is None else Outcome(False, result)

    def holds_text(self, node: Node) -> bool:
        """Whether a value under ``node`` may be sent as JSON text: then a text known whole is still read here,
        not by the walk, so that the value's text is found (``source``)."""
        key = ("holds", id(node))
        if key not in self._memo:
            children = [child for _, child in node.properties] + [node.items, node.additional]
            self._memo[key] = json_text(node) or any(
                isinstance(child, Node) and self.holds_text(child) for child in children
            )
        return bool(self._memo[key])

    def regexed(self, node: Node, content: Any) -> list[Any]:
        """Steps 3 to 5 of [NODE-1] on a description: what the content after the regex stages may be."""
        if node.needs_string and not isinstance(content, Open):  # [NODE-3]: Fields and Items are not strings
            return []
        if node.substitutions:
            content = self.substitutions(node, content).advance()
        return self.searched(node, content)

    def substitutions(self, node: Node, content: Open) -> Substitutions:
        """Step 4 of [NODE-1], x-regex-substitutions, on an open string: kept between feeds."""
        substitutions: Substitutions = self._state(
            ("subs", id(node), content.buffer, content.base), lambda: Substitutions(self, node, content)
        )
        return substitutions

    def searched(self, node: Node, content: Any) -> list[Any]:
        """Step 5 of [NODE-1], x-regex, on what the substitutions left: what the content after it may be."""
        contents = [content]
        if node.regex is not None:
            contents = self.regex(node.regex, content)
        if node.type in (None, "any", "string") and node.iterator is None and node.parser is None:
            contents = collapsed(contents)
        return contents

    def exact_regex(self, node: Node, content: Exact) -> list[Any]:
        """Steps 3 to 8 of [NODE-1] on a text known whole, keeping where each group's text starts: what the
        content after them may be."""
        text, origin = content.value, content.origin
        if not isinstance(text, str) or origin is None:
            return []
        if node.substitutions:  # the text changes: where it came from is lost; every stage runs on it
            try:
                found = self.walk.stages(node, text)
            except ParseError:
                return []
            return [NO_MATCH if found is NO_VALUE else Exact(found)]
        if node.regex is None:
            return self.after_regex(node, content)
        match = node.regex.search(text)  # [REGEX-2]
        if match is None:
            return [NO_MATCH]  # [REGEX-4]
        return self.after_regex(node, spanned_value(match, origin))

    def after_regex(self, node: Node, content: Any) -> list[Any]:
        if content is NO_MATCH or content is ANY:
            return [content]
        if json_text(node):
            if isinstance(content, Exact) and content.origin is not None:
                length = content.text_length()
                if length is not None and length > CUT:  # not parsed on every feed that cuts it anew
                    return self.long_source(node, content.origin, length)
            return self.source(node, content)
        if isinstance(content, Exact) and node.iterator is not None and content.origin and self.holds_text(node):
            if not isinstance(content.value, str):
                return []  # [NODE-4]
            matches = [spanned_value(match, content.origin) for match in node.iterator.finditer(content.value)]
            return [Items(matches, len(matches), (), True)] if matches else [NO_MATCH]  # [ITER-2], [ITER-4]
        if isinstance(content, Exact) and self.open_json(node, content):
            buffer, start = content.origin  # type: ignore[misc]
            return [self.parsed(node, Open(buffer, start, buffer.length))]
        if isinstance(content, Exact):
            found = self._state(("stages", id(node), content), lambda: [self.exact_stages(node, content.value)])[0]
            return [] if found is None else [found]
        if node.iterator is not None:
            if not isinstance(content, Open):
                return []  # [NODE-4]
            found = self._state(
                ("iter", id(node), content.buffer, content.base), lambda: Iterator(self, node.iterator, content)
            ).advance()
            contents = [found] + ([NO_MATCH] if not found.count and found.may_end else [])  # [ITER-4]
        else:
            contents = [content]
        result = []
        for each in contents:
            if each is NO_MATCH:
                result.append(each)
            elif node.key_value is not None or node.mapping is not None or node.mapping_regex is not None:
                result.append(ANY if isinstance(each, Open) else None)  # opaque on open content
            elif node.parser is not None:
                result.append(self.parsed(node, each))
            else:
                result.append(each)
        return [each for each in result if each is not None]

    def source(self, node: Node, content: Any) -> list[Any]:
        """A node that passes its JSON text's value through unchanged ([PARSER-2], [OBJ-4], [OBJ-6]): its text
        is what streams. Text known whole must parse; when it is not an object, an object node types it as the
        walk does ([OBJ-2]: a string gives the object of its properties, not the string's JSON text)."""
        if isinstance(content, Open):
            return [Source(content.open_text(), (content.buffer, content.base))]
        if isinstance(content, Exact) and isinstance(content.value, str):
            try:
                value = self.walk.parsed(node, content.value)
            except ParseError:
                return []
            if (node.type == "object" and not isinstance(value, dict)) or not content.origin:
                return [Exact(value)]
            return [Source(OpenText(content.value), content.origin, value)]
        return [] if isinstance(content, Exact) else [content]

    def long_source(self, node: Node, origin: tuple[Buffer, int], length: int) -> list[Any]:
        """``source`` on a long text known whole, which a feed may cut anew where the output ends: read by a scan of
        the text from where it starts (``JSONScan``, kept between feeds), so each character is read once. Its value
        when the scan saw a value close with only whitespace after it to the text's end; otherwise only its text
        (sent whether it parses or not: sound, the one-shot parse decides at the end)."""
        buffer, start = origin
        scan = self._state(
            ("whole", id(node), buffer, start), lambda: JSONScan(Open(buffer, start), self.completer(node))
        )
        found = scan.whole_until(start + length)
        value = found.value if isinstance(found, Exact) else UNKNOWN
        if node.type == "object" and value is not UNKNOWN and not isinstance(value, dict):
            return [Exact(value)]  # as ``source``
        return [Source(OpenText.span(buffer, start, start + length), origin, value)]

    def exact_stages(self, node: Node, value: Any) -> Any:
        """The stages after x-regex, on a value known whole: as Walk.stages does them."""
        walk = self.walk
        try:
            if node.iterator is not None:
                if not isinstance(value, str):
                    return None
                value = [walk.match_value(match) for match in node.iterator.finditer(value)]
                if not value:
                    return NO_MATCH
            if node.key_value is not None:
                if not isinstance(value, str):
                    return None
                value = walk.key_values(node, list(node.key_value.finditer(value)))
                if not value:
                    return NO_MATCH
            if node.parser is not None:
                value = walk.parsed(node, value)
                if node.transform is not None:
                    value = walk.transformed(node, value)
            if node.mapping is not None or node.mapping_regex is not None:
                value = walk.mapped(node, value)
        except ParseError:
            return None
        return Exact(value)

    def regex(self, pattern: re.Pattern[str], content: Open) -> list[Any]:
        """[REGEX-2] on an open string: the match value of every match the complete text may give."""
        program = self.program(pattern)
        if program is None:
            return [ANY]
        search = self._state(
            ("regex", id(pattern), content.buffer, content.base), lambda: Regex(pattern, program, content)
        ).search
        search.advance()
        contents, more = matches(pattern, program, search)
        if more:
            contents.append(NO_MATCH)  # [REGEX-4]
            if not search.anchored:
                contents.append(ANY)  # a match that starts later
        return distinct(contents)

    def parsed(self, node: Node, content: Any) -> Any:
        """[PARSER-2] on an open string: JSON text that no continuation changes is parsed; anything else is not
        known yet. An object, array or string text is parsed once, when it closes (``JSONScan``)."""
        if not isinstance(content, Open):
            return None  # [NODE-4]
        if node.parser != "json" or node.transform is not None or node.allow_non_json:
            return ANY
        if content.end is not None and content.end != content.buffer.length:
            return self.complete_json(node, content.text)
        scan = self._state(
            ("json", id(node), content.buffer, content.base), lambda: JSONScan(content, self.completer(node))
        )
        return scan.advance()

    def open_json(self, node: Node, content: Exact) -> bool:
        """Whether ``content`` is a long JSON text that only ``parsed`` reads and that runs to the end of what
        arrived (a match that ends if the output does): it is read as the open text it begins, by the scan that
        text keeps (``JSONScan``), not parsed whole on every feed. Sound: an open text may give more than the text
        that ends here (and the match that goes on is most often an alternative beside it anyway)."""
        plain = node.iterator is None and node.key_value is None and node.mapping is None and node.mapping_regex is None
        if not plain or node.parser != "json" or node.transform is not None or content.origin is None:
            return False
        length = content.text_length()
        return length is not None and length > CUT and content.origin[1] + length == content.origin[0].length

    def complete_json(self, node: Node, text: str) -> Any:
        return self.exact_stages(node, text) if json_complete(text) else ANY

    def completer(self, node: Node) -> Callable[[str], Any]:
        """``complete_json`` for ``node``, for a scan to call when its value closes."""
        return lambda text: self.complete_json(node, text)

    # The types, on what the stages left.

    def typed(self, node: Node, content: Any) -> Outcome:
        if content is NO_MATCH:
            return Outcome(True, NOTHING)  # the node gives no value
        if content is ANY:
            return UNSURE
        if isinstance(content, Source):
            return self.sourced(node, content)
        if isinstance(content, Exact) and not (node.type == "object" and content.origin and self.holds_text(node)):
            return self.walk_typed(node, content.value)
        kind = node.type or "any"
        if kind == "object":
            return self.object(node, content)
        if kind == "array":
            return self.array(node, content)
        if isinstance(content, Open):
            if kind in ("string", "any"):
                return Outcome(False, content.open_text())  # [STR-1], [ANY-1]
            return Outcome(False, UNKNOWN)  # a number or a boolean: whole, at the end
        if isinstance(content, Fields) and kind == "any":
            return Outcome(False, fields_value(content))
        if kind == "any":
            return Outcome(False, UNKNOWN)
        return IMPOSSIBLE  # [STR-1], [INT-3], [NUM-*], [BOOL-*]: an object or an array where text is needed

    def sourced(self, node: Node, content: Source) -> Outcome:
        """A value sent as its JSON text: with its value once the text is known whole ([STREAM-7]: the texts sent
        then parse to it). JSON null gives no value, but not to an object node (it fails there); an object node
        sends only a text that is an object."""
        origins = frozenset({content.origin})
        if content.value is UNKNOWN:
            first = content.text.first_after(" \t\n\r")
            if node.type == "object" and first != "{":  # [OBJ-2]: a string's object is not its JSON text; else fails
                return Outcome(False, UNKNOWN)
            return Outcome(node.type != "object" and first in ("", "n"), JSONText(content.text, origins))
        return self.walk_typed(node, content.value, lambda value: JSONText(content.text, origins, value))

    def walk_typed(self, node: Node, value: Any, wrap: Callable[[Any], Any] = lambda typed: typed) -> Outcome:
        """The walk's type on a value known whole, as an outcome (``wrap`` makes its value of the typed one)."""
        try:
            typed = self.walk.types[node.type](node, value)
        except ParseError:
            return IMPOSSIBLE
        return Outcome(True, NOTHING) if typed is None else Outcome(False, wrap(typed))

    def object(self, node: Node, content: Any) -> Outcome:
        value = OpenObject()
        if isinstance(content, Open) or (isinstance(content, Exact) and isinstance(content.value, str)):
            if not node.has_properties:  # [OBJ-3]
                return IMPOSSIBLE
            for name, child in node.properties:  # [OBJ-2]
                if not self._put(value, name, self.node(child, content), name in node.required):
                    return IMPOSSIBLE
        elif isinstance(content, Fields):  # [OBJ-4]
            fields = content.fields
            for name, child in node.properties:
                if child.has_const:
                    outcome = Outcome(False, child.const)
                elif name in fields:
                    outcome = UNSURE if fields[name] is ANY else self.node(child, fields[name])
                elif child.has_default:  # [OBJ-5]
                    outcome = Outcome(False, child.default)
                else:
                    outcome = Outcome(True, NOTHING)
                if not self._put(value, name, outcome, name in node.required):
                    return IMPOSSIBLE
            if node.additional is not False:  # [OBJ-6]
                for name, item in fields.items():
                    if name in node.property_names:
                        continue
                    if item is ANY:
                        outcome = UNSURE
                    elif node.additional is True:
                        outcome = Outcome(False, described(item))
                    else:
                        outcome = self.node(node.additional, item)
                    if not self._put(value, name, outcome, name in node.required):
                        return IMPOSSIBLE
            for name in node.required:  # [OBJ-7] a required key no field can give
                if name not in value and name not in fields and name not in node.property_names:
                    return IMPOSSIBLE
        else:
            return IMPOSSIBLE  # an object node needs a string or an object
        return Outcome(False, value)

    @staticmethod
    def _put(value: OpenObject, name: str, outcome: Outcome, required: bool) -> bool:
        """Put a property's outcome into the object's partial value; False when the object cannot succeed.
        A required key cannot be missing from a successful result ([OBJ-7]), so its "no value" is dropped."""
        if outcome.value is NOTHING:
            return not (required or not outcome.none)
        if (outcome.none and not required) or outcome.value is UNKNOWN:
            return True
        value[name] = outcome.value
        return True

    def array(self, node: Node, content: Any) -> Outcome:
        if not isinstance(content, Items) or node.items is None:
            return Outcome(False, UNKNOWN)  # [ARR-1] to [ARR-4]: decided at the end
        read = ItemsRead() if content.source is None else self._state(("array", id(node), content.source), ItemsRead)
        if read.impossible:
            return IMPOSSIBLE
        for item in content.known[read.count : read.seen]:  # known since an earlier feed, read once
            read.count += 1
            part = self.item(node.items, item)
            if part is NOTHING:
                read.impossible = True
                return IMPOSSIBLE
            read.complete = read.complete and part is not UNKNOWN
            if read.complete:
                read.values.append(part)
        read.seen = content.count
        value = OpenArray.after(read.values, len(read.values))  # shared, not copied: ``read.values`` only grows
        value.settled = len(read.values)
        is_complete = read.complete
        for item in content.known[read.count : content.count]:  # found in this feed: read again in the next one
            part = self.item(node.items, item)
            if part is NOTHING:
                return IMPOSSIBLE
            is_complete = is_complete and part is not UNKNOWN
            if is_complete:
                value.append(part)
        if is_complete and not content.may_end and content.tails:
            part = item_value(merged(self.open_first(self.candidate, node.items, content.tails)))
            if part is not UNKNOWN:
                value.append(part)
        return Outcome(False, value)

    def item(self, node: Node, content: Any) -> Any:
        """A known item's value ([ARR-2]): UNKNOWN when none is known yet, NOTHING when the item cannot succeed
        (nor can the array)."""
        outcome = self.node(node, content)
        if outcome.value is NOTHING and not outcome.none:
            return NOTHING
        return item_value(outcome)


class ItemsRead:
    """The items an array node has read of an iterator's matches ([ARR-2]): a match only comes after the matches
    before it, and the value of one known whole since an earlier feed no longer depends on what came before it
    (``remembered``), so each is read once and every later feed gives it the same value. ``values`` holds those
    values up to the first that has none known; ``seen`` is how many matches there were at the last feed."""

    __slots__ = ("complete", "count", "impossible", "seen", "values")

    def __init__(self) -> None:
        self.count = self.seen = 0
        self.values: list[Any] = []
        self.complete, self.impossible = True, False

    def shape(self) -> tuple[Any, ...]:
        return (self.count, self.seen, len(self.values), self.complete, self.impossible)


def json_text(node: Node) -> bool:
    """Whether a node's value is the JSON value of its text, unchanged: the `json` parser with nothing after it,
    under an untyped node or an object node that keeps every key as it is."""
    if node.parser != "json" or node.transform is not None or node.allow_non_json or node.has_const:
        return False
    if node.iterator is not None or node.key_value is not None or node.mapping is not None:
        return False
    if node.mapping_regex is not None or node.substitutions:
        return False
    if node.type in (None, "any"):
        return True
    return node.type == "object" and not node.properties and node.additional is True and not node.required


def item_value(outcome: Outcome) -> Any:
    """An array item's partial value: an item that gives no value is null ([ARR-2])."""
    if outcome.none:
        return None if outcome.value is NOTHING else UNKNOWN
    return UNKNOWN if outcome.value is NOTHING else outcome.value


def described(content: Any) -> Any:
    if isinstance(content, Exact):
        return content.value
    if isinstance(content, Open):
        return content.open_text()
    return UNKNOWN


def substituted_text(node: Node) -> bool:
    """Whether a node's stages are substitutions, then at most an x-regex, and its type reads a text
    (``Analysis.substituted``): a content node of the library."""
    if not node.substitutions or node.type not in (None, "any", "string"):
        return False
    later = (node.iterator, node.key_value, node.parser, node.mapping, node.mapping_regex)
    return all(stage is None for stage in later)


def fields_value(content: Fields) -> Any:
    value = OpenObject()
    for name, item in content.fields.items():
        part = described(item)
        if part is not UNKNOWN:
            value[name] = part
    return value


def collapsed(contents: list[Any]) -> list[Any]:
    """Texts of one buffer from one offset are prefixes of one another: what a text node makes of several of them,
    when one is open, is the shortest as open text (their meet, [STREAM-6]), found from their lengths instead of by
    comparing them (a pass over the whole text for each, on every feed). Other contents are kept."""
    origin: tuple[Buffer, int] | None = None
    is_open, end, kept = False, sys.maxsize, []
    for each in contents:
        if isinstance(each, Open) and each.end is None:
            span = (each.buffer, each.base, each.buffer.length)
        elif isinstance(each, Exact) and (stop := each.end()) is not None:  # where it ends: not a read of its text
            span = (each.origin[0], each.origin[1], stop)  # type: ignore[index]
        else:
            kept.append(each)
            continue
        if origin is not None and origin != span[:2]:
            return contents
        origin = span[:2]
        is_open = is_open or isinstance(each, Open)
        end = min(end, span[2])
    if not is_open or origin is None:
        return contents
    return [Open(origin[0], origin[1], end), *kept]


def distinct(contents: list[Any]) -> list[Any]:
    """``contents`` without repeats, in order. Threads that differ only in what the match value does not read (a
    group ended or still open at the same place) give the same description; it gives the same outcome, and the meet
    of an outcome with itself is that outcome ([STREAM-6]), so each is analysed once."""
    if len(contents) < 2:
        return contents
    seen: set[Any] = set()
    kept = []
    for each in contents:
        key = _identity(each)
        if key not in seen:
            seen.add(key)
            kept.append(each)
    return kept


def _identity(content: Any) -> Any:
    if isinstance(content, Open):
        return (Open, content.buffer, content.base, content.end)
    if isinstance(content, Exact):
        return content.identity()
    if isinstance(content, Fields):
        return (Fields, tuple((name, _identity(value)) for name, value in content.fields.items()))
    return content  # ANY, NO_MATCH


def spanned_value(match: re.Match[str], origin: tuple[Buffer, int]) -> Any:
    """[REGEX-5] The match value of a match on a text known whole that starts at ``origin``, each group's text
    with where it starts."""
    buffer, start = origin

    def spanned(index: int | str) -> Any:
        value = match.group(index)
        return None if value is None else Exact(value, (buffer, start + match.start(index)))

    if match.re.groupindex:
        fields = {name: spanned(name) for name in match.re.groupindex}
        return Fields({name: value for name, value in fields.items() if value is not None})
    return spanned(1) or Exact(None)  # [REGEX-6]


def matches(pattern: re.Pattern[str], program: Program, search: Search) -> tuple[list[Any], bool]:
    """[REGEX-5] The match values of the matches a search on an open string may still end with, without repeats
    (``distinct``), and whether it may also end otherwise (``Search.candidates``). While its threads have a
    ``Memo`` name, the values depend only on the name and the positions its places hold: they are worked out once
    per name, as places (``_placed_value``), and made again from the positions on the feeds that meet the name
    again (a steady stretch of text repeats a few names). Like the memo, they serve every stream of a process."""
    named = search.named
    usable = named is not None and not search.matched and not search.varies  # (a certain match keeps its name)
    if usable:
        known = _MATCHES.get(id(named))
        if known is not None and known[0] is named:
            places = (None, search.position, search.position - 1, *search.values)
            return [_made_value(each, places, search.buffer) for each in known[1]], known[2]
    entries, more = search.candidates()
    values = distinct([match_value(pattern, program, search.buffer, entry) for entry in entries])
    if usable:
        at = {position: place for place, position in enumerate(search.values, 3)}
        at[search.position], at[search.position - 1] = 1, 2
        placed = [_placed_value(each, at.get) for each in values]
        if len(_MATCHES) >= Memo.LIMIT:  # names a memo forgot are not met again
            _MATCHES.clear()
        if not any(each is None for each in placed):
            _MATCHES[id(named)] = (named, placed, more)
    return values, more


_MATCHES: dict[int, tuple[Any, list[Any], bool]] = {}  # id(a Memo name) -> (the name, its match values as places, more)
_EMPTY_GROUP = ("none",)  # a group 1 that took no part: Exact(None), a new one each time ([REGEX-6])
MATCHING, MATCHING_OPEN = ("matching",), ("matching open",)  # the first item of ``matched_shape``'s shapes


def matched_shape(pattern: re.Pattern[str], program: Program, search: Search) -> Any:
    """The shape of a search the analysis reads only through ``matches`` (an x-regex's, an iterator's): while
    its threads have a ``Memo`` name, the match values they may give, with their positions as places, whether
    it may end otherwise, and the older positions those places hold. Two names that give the same values are
    one shape: a thread's progress through a marker's literal characters (a new name at each feed) changes
    nothing the run reads until the marker ends, so those feeds are steady. Worked out once per name
    (``matches``: a name it keeps has no certain match). A search whose threads hold a lookahead made before the
    position before the end (a call's name), without a name or with one that ``varies``, has them worked out at
    each feed, positions ``relative``. Any other search has ``Search.shape``: idle, with a certain match, or
    without a name and its conditions made at the end or the position before (as a name writes them)."""
    if search.idle:
        return WAITING if not search.must_advance else search.shape()
    named = search.named
    if named is not None:
        known = _MATCHES.get(id(named))
        if (known is None or known[0] is not named) and not search.matched and not search.varies:
            matches(pattern, program, search)  # keeps them for the name
            known = _MATCHES.get(id(named))
        if known is not None and known[0] is named:
            return (MATCHING, known[1], known[2], search.values)
        if search.matched or not search.varies:
            return search.shape()  # a certain match, or a value not written as places
    elif search.matched:
        return search.shape()
    before = search.buffer.length - 1
    if named is None:  # (else its name varies)
        for condition in search.pending:
            if condition.position < before:
                break
        else:
            return search.shape()
    length = before + 1
    values, more = matches(pattern, program, search)
    placed = [_placed_value(each, lambda position: relative(position, length)) for each in values]
    return search.shape() if any(each is None for each in placed) else (MATCHING_OPEN, placed, more)


def _placed_value(value: Any, place: Callable[[int], int | None]) -> Any:
    """A match value with its positions written as ``place`` gives them (their places, in ``matches``); None when
    one has none."""
    if value is ANY:
        return value
    if isinstance(value, Open) and value.end is None:
        base = place(value.base)
        return None if base is None else ("open", base)
    if isinstance(value, Exact):
        if value.origin is None:
            return _EMPTY_GROUP if value.value is None else None
        bounds = value.bounds()
        if bounds is None:
            return None
        start, end = place(bounds[0]), place(bounds[1])
        return None if start is None or end is None else ("span", start, end)
    if isinstance(value, Fields):
        fields = {name: _placed_value(each, place) for name, each in value.fields.items()}
        return None if any(each is None for each in fields.values()) else ("fields", fields)
    return None


def _made_value(placed: Any, places: tuple[Any, ...], buffer: Buffer) -> Any:
    """The match value ``_placed_value`` wrote as places, at the positions ``places`` holds."""
    if placed is ANY:
        return placed
    kind = placed[0]
    if kind == "open":
        return Open(buffer, places[placed[1]])
    if kind == "span":
        return buffer_exact(buffer, places[placed[1]], places[placed[2]])
    if kind == "fields":
        return Fields({name: _made_value(each, places, buffer) for name, each in placed[1].items()})
    return Exact(None)


def match_value(pattern: re.Pattern[str], program: Program, buffer: Buffer, entry: Entry) -> Any:
    """[REGEX-5] The match value of one possible match, as a description."""
    if pattern.groupindex:
        fields = {name: group(program, buffer, entry, index) for name, index in pattern.groupindex.items()}
        return Fields({name: value for name, value in fields.items() if value is not None})
    value = group(program, buffer, entry, 1)
    return Exact(None) if value is None else value  # [REGEX-6]


def group(program: Program, buffer: Buffer, entry: Entry, index: int) -> Any:
    """Group ``index`` of a possible match: Exact text, Open text, ANY (it may still change), or None (it took
    no part and cannot any more)."""
    pc, regs, conditions = entry
    start, end = regs[2 * index], regs[2 * index + 1]
    if pc >= 0 and program.reopens[pc] >> index & 1:
        return ANY
    if start is None:
        return None
    if end is None or (conditions and end == buffer.length):
        # open, or ends here only if the text does (a match waiting on ``$``): read as open text, which
        # includes ending here, so that a long value is not read whole again on every feed (linear cost)
        return Open(buffer, start)
    return buffer_exact(buffer, start, end)


def _unread(outcome: Outcome, now: list[tuple[int, Outcome]] | None, end: int) -> bool:
    """Whether ``outcome``, remembered for a text cut one character before the output's end (``remembered``), is
    the one this feed gave the open text, and holds no text: then the next feed, which finds this feed's, finds it
    again, and reads nothing where it was cut."""
    if not now or (outcome.value is not UNKNOWN and outcome.value is not NOTHING):
        return False
    return now[-1][0] == end and now[-1][1] is outcome


def _shape(shaped: Any, state: Any, sized: Buffer | None) -> Any:
    """A kept state's shape (``Analysis.keep_shapes``): its ``shape()``, or the state itself, with the length of
    the text it was found by when that text may still grow."""
    found = state if shaped is None else shaped()
    return found if sized is None else (found, sized.length)


def buffer_exact(buffer: Buffer, start: int, end: int) -> Exact:
    """The text ``buffer.text[start:end]`` as an Exact span: the same object while it is used, so that what is
    done with it is done once (``Analysis._state``), not on every feed."""
    spans = buffer.spans
    found = spans.get((start, end))
    if found is None:
        if len(spans) > 256:  # only the spans of the threads alive now are asked for again
            spans.clear()
        found = spans[start, end] = Exact.span(buffer, start, end)
    return found


class Substitutions:
    """[SUBS-2] on an open string: every replacement already certain, and the text no match can reach any more,
    in ``out``; the rest waits. An opaque pattern stops the output where it is. For a text node
    (``Analysis.substituted``), the outcome of the stages after them, the length of the output they read, the
    keys of what they keep between feeds, and whether they read its text near its end (``Buffer.read_end``).

    A steady feed advances them as a run would (steady.py), and the analysis reads them only through their output,
    a text that only grows, which the stages after them read with states of their own. So their shape is nothing,
    unless those stages read the output to its end when it last grew: then it is the output's length, and a feed
    after which the output grew runs, while the feeds that add nothing to it (the text inside a call the
    substitutions delete) need not."""

    def __init__(self, analysis: Analysis, node: Node, content: Open) -> None:
        self.read, self.outcome, self.read_end = -1, IMPOSSIBLE, False
        self.touched: list[tuple[Any, ...]] = []
        self.steps = []
        source = content
        for pattern, replacement in node.substitutions:
            program = analysis.program(pattern)
            step = Replacing(pattern, replacement, program, source)
            self.steps.append(step)
            source = Open(step.out, 0)
        self.result = source

    def advance(self) -> Open:
        for step in self.steps:
            step.advance()
        return self.result

    def shape(self) -> int | None:
        return self.result.buffer.length if self.read_end else None


class Replacing:
    """One substitution pattern, applied as its input arrives. ``out`` is the output of the input before
    ``done``, which no later text changes (its first ``fixed`` characters), then what every match still possible
    in the rest begins with ([STREAM-6]): text no match has reached yet, a replacement's literals and the groups
    it has seen. ``out`` only grows, so what reads it reads each character once; what it has is never computed
    again (``_pending`` reads from where ``out`` ends)."""

    def __init__(self, pattern: re.Pattern[str], replacement: str, program: Program | None, source: Open) -> None:
        self.program, self.source = program, source
        self.template = template_parts(replacement, pattern)
        self.out = Buffer()
        self.fixed = 0
        self.done = source.base
        self.search = None if program is None else Search(program, source.buffer, source.base, source.base)
        self.read = -1  # the input's length when last advanced
        self.last: tuple[Any, ...] = ()  # the search, its name and values when ``out`` was last computed
        self.stills: dict[int, tuple[Any, bool]] = {}  # by id(name): the name, and whether it is ``_still``

    def advance(self) -> None:
        if self.search is None or self.program is None:
            return  # opaque: nothing more is certain
        buffer = self.source.buffer
        end = buffer.length
        if end == self.read:
            return  # no new input: ``out`` has all it can have
        self.read = end
        search = self.search
        if search.idle and search.anchored:  # no match can begin any more: the rest of the input is the output
            self._through([], end)
            return
        start = search.position
        read = search.waits(end)
        if read is not None:  # no match begins in what arrived: it is the output, certain
            assert self.done == start  # a search waiting for a start began where the certain output ends
            self.last = (search, search.named, search.values)
            self.done = end
            self._add(read)
            return
        parts = []
        while True:
            self.search.advance()
            if not self.search.matched:
                break
            regs = self.search.entries[0][1]
            parts.append(buffer.slice(self.done, regs[0]))
            parts.append(self._expand(buffer, regs))
            self.done = regs[1]
            empty = regs[0] == regs[1]
            self.search = Search(self.program, buffer, self.source.base, regs[1], must_advance=empty)
        search = self.search
        named = search.named
        if not parts and search.idle:  # waiting for a start: the text so far is certain, and is the output
            self.last = (search, named, search.values)
            self._through(parts, search.position)
            return
        if not self.template:  # a deletion: the text before the earliest a match may begin is certain, and what
            # follows it may all be removed (that match's entry is the first candidate and inserts nothing)
            self._through(parts, search.earliest())
            return
        if not parts and self.last == (search, named, search.values) and self._still(search):
            return  # the entries that computed ``out`` last, reading the same positions: it has all they give
        self.last = (search, named, search.values)
        # no match has begun before the end (every thread starts there, as when the search waits for a start):
        # the text so far is certain and ``_pending`` has nothing to read
        quiet = search.quiet()
        reach = search.earliest()
        if reach > self.done:
            parts.append(buffer.slice(self.done, reach))
            self.done = reach
        added = "".join(parts)
        # the output after the first ``fixed`` characters is ``added``, then ``_pending``; ``out`` already holds
        # ``sent`` of those characters, which stay ([STREAM-3]): only what follows them is computed
        sent = self.out.length - self.fixed
        if quiet:
            more = added[sent:]
        elif len(added) >= sent:
            more = added[sent:] + self._pending(0)
        else:
            more = self._pending(sent - len(added))
        if more:
            self.out.grow(more)
        self.fixed += len(added)

    def _through(self, parts: list[str], reach: int) -> None:
        """Add to the output what ``parts`` hold, then the input up to ``reach`` as it is: all of it certain."""
        if reach > self.done:
            parts.append(self.source.buffer.slice(self.done, reach))
            self.done = reach
        self._add("".join(parts))

    def _add(self, added: str) -> None:
        """Add ``added`` to the certain output, whose first characters ``out`` may already hold (``_pending``)."""
        held = self.out.length - self.fixed
        more = added[held:] if held else added
        if more:
            self.out.grow(more)
        self.fixed += len(added)

    def _still(self, search: Search) -> bool:
        """Whether every position the output reads of the search's entries stays where it is while the text
        grows: for each candidate, where it begins and the groups the replacement inserts (none of them open), at
        older places of its name; and the search ends with one of them (else the text up to its end is read). The
        earliest a match may begin is then where one of them begins: an entry that begins at a place that moves
        begins after every older place."""
        named = search.named
        known = self.stills.get(id(named))
        if known is not None and known[0] is named:
            return known[1]
        found = search.named_candidates()
        if found is None:
            return False
        entries, count, more = found
        assert self.program is not None
        still = not more
        for pc, regs, _ in entries[:count] if still else ():
            reopens = self.program.reopens[pc] if pc >= 0 else 0
            reads = [regs[0]]
            for part in self.template:
                if isinstance(part, str):
                    continue
                if reopens >> part & 1:
                    break
                if regs[2 * part] is not None:
                    reads += [regs[2 * part], regs[2 * part + 1]]
            if not all(place is not None and place >= 2 for place in reads):
                still = False
                break
        if len(self.stills) > 64:
            self.stills.clear()
        self.stills[id(named)] = (named, still)
        return still

    def _pending(self, skip: int) -> str:
        """What the output of the input from ``done`` begins with, whichever match the search ends with, from
        its character ``skip`` on. Each possible beginning is a list of parts (literal texts and spans of the
        input); only the characters all of them may share are read."""
        assert self.search is not None
        buffer = self.source.buffer
        entries, more = self.search.candidates()
        begins = [self._begins(entry) for entry in entries]
        if more:
            begins.append([(self.done, buffer.length)])  # no match, or one that starts later: the text so far
        if not begins:
            return ""
        spans = [span for parts in begins if (span := _span(parts)) is not None]
        if len(spans) == len(begins):  # each one span of the input (text kept by ``\1``, or none replaced yet)
            stop = min([end - begin for begin, end in spans])
            if stop <= skip:
                return ""
            start = spans[0][0]
            if all([begin == start for begin, _ in spans]):
                return buffer.slice(start + skip, start + stop)  # the same text, read once
        stop = min(sum(map(_size, parts)) for parts in begins)
        if stop <= skip:
            return ""
        texts = [_read(parts, buffer, skip, stop) for parts in begins]
        common = texts[0]
        for other in texts[1:]:
            common = common_prefix(common, other)
        return common

    def _begins(self, entry: Entry) -> list[str | tuple[int, int]]:
        """The text before a possible match, then its replacement as far as it is known."""
        pc, regs, _ = entry
        assert self.program is not None
        reopens = self.program.reopens[pc] if pc >= 0 else 0
        parts: list[str | tuple[int, int]] = [(self.done, regs[0])]
        for part in self.template:
            if isinstance(part, str):
                parts.append(part)
                continue
            if reopens >> part & 1:
                break  # the group may still change
            start, end = regs[2 * part], regs[2 * part + 1]
            if start is None:
                continue  # it took no part and cannot: an unmatched group inserts nothing
            if end is None:
                parts.append((start, self.source.buffer.length))  # open: what it holds so far
                break
            parts.append((start, end))
        return parts

    def _expand(self, buffer: Buffer, regs: tuple[Any, ...]) -> str:
        out = []
        for part in self.template:
            if isinstance(part, str):
                out.append(part)
            else:
                start, end = regs[2 * part], regs[2 * part + 1]
                if start is not None and end is not None:
                    out.append(buffer.slice(start, end))
        return "".join(out)


def _size(part: str | tuple[int, int]) -> int:
    """The length of a part: a literal text, or a span of the buffer."""
    return len(part) if isinstance(part, str) else part[1] - part[0]


def _span(parts: list[str | tuple[int, int]]) -> tuple[int, int] | None:
    """The text the parts make as one span of the buffer, when they are spans that follow each other (empty ones
    aside; ``(-1, -1)`` when all are); None when a literal text or a gap is among them."""
    start = end = -1
    for part in parts:
        if isinstance(part, str):
            return None
        if part[0] == part[1]:
            continue
        if end < 0:
            start, end = part
        elif part[0] == end:
            end = part[1]
        else:
            return None
    return start, end


def _read(parts: list[str | tuple[int, int]], buffer: Buffer, start: int, stop: int) -> str:
    """Characters ``start`` to ``stop`` of the text the parts make (literal texts, and spans of ``buffer``)."""
    out, at = [], 0
    for part in parts:
        size = _size(part)
        low, high = max(start - at, 0), min(stop - at, size)
        if low < high:
            out.append(part[low:high] if isinstance(part, str) else buffer.slice(part[0] + low, part[0] + high))
        at += size
        if at >= stop:
            break
    return "".join(out)


class Regex:
    """[REGEX-2] on an open string: the search, which the analysis reads through ``matches``."""

    __slots__ = ("pattern", "program", "search")

    def __init__(self, pattern: re.Pattern[str], program: Program, source: Open) -> None:
        self.pattern, self.program = pattern, program
        self.search = Search(program, source.buffer, source.base, source.base)


class Iterator:
    """[ITER-2] on an open string: the matches certain so far, and what the next one may be."""

    def __init__(self, analysis: Analysis, pattern: re.Pattern[str], source: Open) -> None:
        self.pattern, self.source = pattern, source
        self.program = analysis.program(pattern)
        self.known: list[Any] = []
        self.search = None if self.program is None else Search(self.program, source.buffer, source.base, source.base)

    def advance(self) -> Items:
        """The matches found so far, and what the next may be."""
        if self.search is None or self.program is None:
            return Items((), 0, (ANY,), True)
        self.read()
        values, more = matches(self.pattern, self.program, self.search)
        tails = tuple(values)
        if more and not self.search.anchored:
            tails += (ANY,)
        return Items(self.known, len(self.known), tails, more, self)

    def read(self) -> None:
        """Read what arrived since the last call: the matches it makes certain are added to ``known``."""
        if self.search is None or self.program is None:
            return
        buffer = self.source.buffer
        if self.search.waits(buffer.length) is not None:
            return  # no match begins in what arrived
        while True:
            self.search.advance()
            if not self.search.matched:
                break
            entry = self.search.entries[0]
            self.known.append(match_value(self.pattern, self.program, buffer, entry))
            start, end = entry[1][0], entry[1][1]
            self.search = Search(self.program, buffer, self.source.base, end, must_advance=start == end)

    def shape(self) -> Any:
        """The matches found, and the search's shape; but while the search may end with a match that starts later
        or with none (``Search.candidates``), an array reads no next item (``Analysis.array``: ``may_end``), so
        what the search holds makes no difference to the outcome: a thread begun at each word of a call's
        arguments that cannot end the call (Llama 4) does not make a feed run."""
        if self.search is None or self.program is None:
            return None
        chosen = self.search.named_candidates()
        if chosen is None:  # worked out for its name when first met (``matched_shape``)
            shape = matched_shape(self.pattern, self.program, self.search)
            chosen = self.search.named_candidates()
        elif not chosen[2]:
            shape = matched_shape(self.pattern, self.program, self.search)
        if chosen is not None and chosen[2]:
            return (MAY_END, len(self.known))
        return (shape, len(self.known))


class JSONScan:
    """[PARSER-2] on a text still open, read once per character, as ``too_deep`` reads brackets and strings: while
    the object, array or string it begins with is open, no parse can succeed; when it closes, the text is parsed
    once, and that stays the answer while only whitespace follows ([JSON-1]); after anything else no
    continuation parses. ``true``, ``false`` and ``null`` close at their last letter; a number may always go on,
    so a text that begins with one is never complete; one that begins otherwise never parses."""

    __slots__ = ("after", "at", "complete", "depth", "end", "outcome", "parse", "skip", "source", "string")

    def __init__(self, source: Open, complete: Callable[[str], Any]) -> None:
        self.source, self.at = source, source.base  # read up to ``at``
        self.complete = complete  # what a closed value's text gives (its node's stages)
        self.depth, self.string, self.skip = 0, False, 0  # ``skip``: a backslash escapes the character before it
        self.outcome: Any = None  # once the value closed: its parse, until more than whitespace follows
        self.end: int | None = None  # where the value closed
        self.after: int | None = None  # the first character after ``end`` that is not whitespace, once read
        self.parse: Any = UNREAD  # the text to ``end`` completed, once asked for

    def advance(self) -> Any:
        buffer, base = self.source.buffer, self.source.base
        if self.at == base and self.outcome is None:
            start = _FIRST.search(buffer.slice(base))
            if start is None:
                return ANY  # only whitespace so far
            if start.group() not in '{["':
                return self.literal(base + start.start())
        piece, offset = buffer.slice(self.at), self.at
        self.at = buffer.length
        if self.outcome is not None:
            if self.end is not None and self.after is None and (found := _FIRST.search(piece)) is not None:
                self.after, self.outcome = offset + found.start(), ANY  # [JSON-1]: only whitespace may follow
            return self.outcome
        for token in _JSON_TOKENS.finditer(piece):
            index = offset + token.start()
            if index < self.skip:
                continue
            char = token.group()
            if self.string:
                if char == "\\":
                    self.skip = index + 2
                    continue
                self.string = char != '"'
            elif char == '"':
                self.string = True
            elif char == "\\":
                self.outcome = ANY  # a backslash outside a string: never JSON
                return ANY
            else:
                self.depth += 1 if char in "[{" else -1
            if self.depth <= 0 and not self.string:  # the value closed (or a stray closer: it fails at once)
                return self.closed(index + 1)
        return ANY

    def shape(self) -> tuple[Any, ...]:
        length = self.source.buffer.length
        return (
            relative(self.at, length),
            self.depth,
            self.string,
            relative(self.skip, length),
            self.outcome,
            relative(self.end, length),
            relative(self.after, length),
            self.parse,
        )

    def closed(self, end: int) -> Any:
        """The value ends at ``end``: parsed once, and never complete if more than whitespace follows it."""
        buffer = self.source.buffer
        self.at, self.end = buffer.length, end
        found = _FIRST.search(buffer.slice(end))
        self.after = None if found is None else end + found.start()
        self.outcome = ANY if self.after is not None else self.whole()
        return self.outcome

    def whole(self) -> Any:
        """The text up to where the value closed, completed (parsed) once."""
        if self.parse is UNREAD:
            assert self.end is not None
            self.parse = self.complete(self.source.buffer.slice(self.source.base, self.end))
        return self.parse

    def whole_until(self, stop: int) -> Any:
        """The text from the scan's start to ``stop`` (at most what arrived) completed, read as the scan reads:
        ANY unless a value closed in it and only whitespace follows to ``stop`` ([JSON-1])."""
        self.advance()
        if self.end is None or self.end > stop or (self.after is not None and self.after < stop):
            return ANY
        return self.whole()

    def literal(self, start: int) -> Any:
        """A text that does not begin with a bracket or a quote: complete once it holds a whole ``true``, ``false``
        or ``null``; never, when it begins with a number (more digits may follow) or with what no literal begins
        with."""
        buffer = self.source.buffer
        word = buffer.slice(start, start + 5)
        name = next((name for name in _LITERALS if word.startswith(name)), None)
        if name is None:
            if not any(literal.startswith(word) for literal in _LITERALS):
                self.outcome = ANY  # a number, or what never parses
                self.at = buffer.length
            return ANY
        return self.closed(start + len(name))


_LITERALS = ("true", "false", "null")
_FIRST = re.compile(r"[^ \t\n\r]")
_JSON_TOKENS = re.compile(r'[\[\]{}"\\]')


def json_complete(text: str) -> bool:
    """Whether ``text`` is JSON that no continuation can change: it parses, and it ends with a closing bracket,
    a closing quote or a literal, so more text is only whitespace or makes it fail ([JSON-1]). (A number may go
    on; text that cannot become JSON is not told apart from a prefix: it fails at the end.)"""
    stripped = text.rstrip(" \t\n\r")
    if not stripped or stripped[-1] not in '}]"el':
        return False
    try:
        return json_value(text) is not NOT_JSON
    except TooDeep:
        return False


_ADVANCED = (Substitutions, JSONScan)  # the states that read what arrives by ``advance`` (``keep_shapes``)
