"""Matching a pattern on text that is still arriving: an incremental Pike VM (SPEC.md [STREAM-6]).

A pattern is compiled from Python's own parse of it into a small program, run as a Thompson simulation in
leftmost-first priority order with capture registers, one character at a time, never re-reading what it has
read. An assertion that needs text not yet seen (``$``, ``\\Z`` or ``\\b`` at the end of what arrived, a
lookahead reaching past it) does not block: the thread goes on under a *condition*, dropped when the text
refutes it. From the live threads a search lists every match the complete text can still give, in priority
order (``candidates``), which is what lets a stream send a group's text before the match is decided.

A construct this file does not model (backreferences, conditionals, atomic groups, possessive or empty-body
loops, lookbehind, captures inside a lookaround, scoped flags, IGNORECASE) makes ``compile_program`` return
None: the stage is *opaque*, and its node sends nothing until the output is complete ([STREAM-6])."""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter
from typing import Any

if sys.version_info >= (3, 11):
    import re._constants as c  # type: ignore[import-not-found]
    import re._parser as sre  # type: ignore[import-not-found]
else:  # pragma: no cover - Python 3.10
    import sre_constants as c
    import sre_parse as sre

MAX_PROGRAM = 4000  # instructions; a longer program (a large counted repeat) is opaque

# Instruction kinds. An instruction is a tuple: (CHAR, test, next), (SPLIT, first, second), (JMP, to),
# (SAVE, slot, next), (ASSERT, kind, next), (LOOK, program, negate, next), (MATCH,).
CHAR, SPLIT, JMP, SAVE, ASSERT, LOOK, MATCH = range(7)
# Assertion kinds.
BOS, BOL, DOLLAR, EOL, EOS, BOUNDARY, NON_BOUNDARY = range(7)


class Opaque(Exception):
    """The pattern uses a construct the VM does not model."""


def universal(char: str) -> bool:
    """The test of ``.`` under DOTALL ([REGEX-1]): every character."""
    return True


@dataclass(eq=False)  # a program is itself only: hashed by identity (``Memo`` names hold them)
class Program:
    code: list[tuple[Any, ...]]
    slots: int  # 2 per group, group 0 included
    anchored: bool  # every match starts at the search's first position (a leading ^ or \A, no MULTILINE)
    ascii: bool  # the ASCII flag: \b reads \w as ASCII
    literals: tuple[str, ...] | None  # the pattern is an alternation of literal texts (a fast lookahead)
    reopens: list[int] = field(default_factory=list)  # per pc: bitmask of groups whose start it can reach
    total: set[int] = field(default_factory=set)  # pcs from which every continuation reaches MATCH
    first: re.Pattern[str] | None = None  # the characters a match can begin with, when only literals can
    memos: tuple[Memo, Memo] = field(default_factory=lambda: (Memo(), Memo()))  # the steps learned, by anchored

    @cached_property
    def longest(self) -> int:
        """The length of the longest of ``literals``: what a literal lookahead reads."""
        return max(map(len, self.literals or ("",)))

    @cached_property
    def single(self) -> Callable[[str], bool] | None:
        """The test of the one character every match reads, when a match is that one character and nothing else
        (a lookahead ``(?=[\\n<`])``): a lookahead of it is decided by the character after it alone, as a literal
        one that character cannot begin. None for any other program."""
        code = self.code
        reached = _closure(code, 0, False)
        chars = [pc for pc in reached if code[pc][0] is CHAR]
        if len(chars) != 1 or any(code[pc][0] in (ASSERT, LOOK, MATCH) for pc in reached):
            return None
        after = _closure(code, code[chars[0]][2], False)
        if not all(code[pc][0] in (SPLIT, JMP, SAVE, MATCH) for pc in after) or not any(
            code[pc][0] is MATCH for pc in after
        ):
            return None
        test: Callable[[str], bool] = code[chars[0]][1]
        return test

    @cached_property
    def reach(self) -> int:
        """How many characters from the one a step reads its literal lookaheads and ``$`` may read (the one read,
        then a literal lookahead's longest text, or a newline and the character after it): a step that read past
        the next character is kept by the characters there (``Memo.far``)."""
        longest: list[int] = [inst[1].longest for inst in self.code if inst[0] is LOOK and inst[1].literals is not None]
        return max(3, 1 + max(longest, default=0))

    @cached_property
    def starts(self) -> frozenset[str]:
        """The first characters of ``literals``: a literal lookahead at any other character is decided."""
        return frozenset(text[0] for text in self.literals or ())

    @cached_property
    def kinds(self) -> dict[str, int]:
        """Characters by kind, filled as they are met: two characters of a kind pass the same character tests,
        are both newlines or not, both word characters or not, and both start a literal lookahead's text or not,
        so a step reads them alike (``Memo``)."""
        tests = list(dict.fromkeys(inst[1] for inst in self.code if inst[0] is CHAR))
        tests += [inst[1].single for inst in self.code if inst[0] is LOOK and inst[1].single is not None]
        starts = [inst[1].starts for inst in self.code if inst[0] is LOOK and inst[1].literals is not None]
        word = _ascii_word if self.ascii else _word
        signatures: dict[tuple[bool, ...], int] = {}

        class Kinds(dict[str, int]):
            def __missing__(self, char: str) -> int:
                signature = (char == "\n", word(char), *(test(char) for test in tests), *(char in s for s in starts))
                kind = self[char] = signatures.setdefault(signature, len(signatures))
                return kind

        return Kinds()

    @cached_property
    def kind_chars(self) -> dict[int, str]:
        """``kinds`` for ``str.translate``: a character's code -> its kind as one character, filled as they are met."""
        kinds = self.kinds

        class KindChars(dict[int, str]):
            def __missing__(self, code: int) -> str:
                kind = self[code] = chr(kinds[chr(code)])
                return kind

        return KindChars()


@functools.lru_cache(maxsize=256)
def compile_program(pattern: re.Pattern[str]) -> Program | None:
    """The program of ``pattern``, or None when it is opaque; one program per pattern in a process, so what its
    searches learn (``Memo``) serves every stream."""
    if pattern.flags & (re.IGNORECASE | re.LOCALE):
        return None
    try:
        tree = sre.parse(pattern.pattern, pattern.flags)
        return _Compiler(pattern.flags).program(tree, pattern.groups)
    except (Opaque, RecursionError):
        return None


class _Compiler:
    def __init__(self, flags: int) -> None:
        self.code: list[list[Any]] = []
        self.multiline = bool(flags & re.MULTILINE)
        self.ascii = bool(flags & re.ASCII)

    def program(self, tree: Any, groups: int) -> Program:
        self.emit([SAVE, 0, None])
        self.sequence(tree)
        self.emit([SAVE, 1, None])
        self.emit([MATCH])
        code = self.link()
        anchored = bool(tree) and tree[0][0] is c.AT and tree[0][1] in (c.AT_BEGINNING_STRING, c.AT_BEGINNING)
        anchored = anchored and not (self.multiline and tree[0][1] is c.AT_BEGINNING)
        program = Program(code, 2 * (groups + 1), anchored, self.ascii, _literals(tree))
        program.reopens = _reopens(code, groups)
        program.total = _total(code)
        program.first = _first(code)
        return program

    def emit(self, inst: list[Any]) -> int:
        self.code.append(inst)
        if len(self.code) > MAX_PROGRAM:
            raise Opaque("program too long")
        return len(self.code) - 1

    def link(self) -> list[tuple[Any, ...]]:
        """Instructions whose ``next`` is None fall through to the following one."""
        linked = []
        for pc, inst in enumerate(self.code):
            inst = list(inst)
            if inst[0] in (CHAR, SAVE, ASSERT) and inst[2] is None:
                inst[2] = pc + 1
            if inst[0] is LOOK and inst[3] is None:
                inst[3] = pc + 1
            linked.append(tuple(inst))
        return linked

    def sequence(self, items: Any) -> None:
        for op, arg in items:
            self.item(op, arg)

    def item(self, op: Any, arg: Any) -> None:
        if op is c.LITERAL:
            char = chr(arg)
            self.emit([CHAR, char.__eq__, None])
        elif op is c.NOT_LITERAL:
            char = chr(arg)
            self.emit([CHAR, char.__ne__, None])
        elif op is c.ANY:
            self.emit([CHAR, universal, None])  # DOTALL is always on ([REGEX-1])
        elif op is c.IN:
            self.emit([CHAR, _class_test(arg, self.ascii), None])
        elif op is c.SUBPATTERN:
            group, add_flags, del_flags, body = arg
            if add_flags or del_flags:
                raise Opaque("scoped flags")
            if group is None:
                self.sequence(body)
            else:
                self.emit([SAVE, 2 * group, None])
                self.sequence(body)
                self.emit([SAVE, 2 * group + 1, None])
        elif op is c.BRANCH:
            self.branch(arg[1])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            self.repeat(arg, greedy=op is c.MAX_REPEAT)
        elif op is c.AT:
            self.emit([ASSERT, self.at(arg), None])
        elif op in (c.ASSERT, c.ASSERT_NOT):
            direction, body = arg
            if direction != 1 or _has_group(body):
                raise Opaque("lookbehind or a capture inside a lookaround")
            split = _split_lookahead(body) if op is c.ASSERT else None
            if split is not None:
                self.branch(split)
                return
            if op is c.ASSERT and len(body) == 1 and body[0][0] is c.AT:
                self.item(*body[0])  # (?=$) is $: an assertion reads nothing
                return
            sub = _Compiler(0)
            sub.multiline, sub.ascii = self.multiline, self.ascii
            inner = sub.program_body(body)
            self.emit([LOOK, inner, op is c.ASSERT_NOT, None])
        else:
            raise Opaque(f"{op} is not modelled")

    def program_body(self, body: Any) -> Program:
        self.sequence(body)
        self.emit([MATCH])
        code = self.link()
        program = Program(code, 2, True, self.ascii, _literals(body))
        program.reopens = [0] * len(code)
        program.total = _total(code)
        return program

    def at(self, code: Any) -> int:
        if code is c.AT_BEGINNING:
            return BOL if self.multiline else BOS
        if code is c.AT_BEGINNING_STRING:
            return BOS
        if code is c.AT_END:
            return EOL if self.multiline else DOLLAR
        if code is c.AT_END_STRING:
            return EOS
        if code is c.AT_BOUNDARY:
            return BOUNDARY
        if code is c.AT_NON_BOUNDARY:
            return NON_BOUNDARY
        raise Opaque(f"{code} is not modelled")

    def branch(self, alternatives: list[Any]) -> None:
        jumps = []
        for index, alternative in enumerate(alternatives):
            if index < len(alternatives) - 1:
                split = self.emit([SPLIT, None, None])
                self.code[split][1] = len(self.code)
                self.sequence(alternative)
                jumps.append(self.emit([JMP, None]))
                self.code[split][2] = len(self.code)
            else:
                self.sequence(alternative)
        for jump in jumps:
            self.code[jump][1] = len(self.code)

    def repeat(self, arg: Any, greedy: bool) -> None:
        low, high, body = arg
        unbounded = high is c.MAXREPEAT
        if (unbounded or high > 1) and _nullable(body):
            raise Opaque("a repeated body that can match empty")  # CPython's empty-loop rules
        if (unbounded or high > 1) and _has_group(body) and sys.version_info < (3, 11):
            raise Opaque("a capture inside a repeat")  # Python 3.10 keeps other spans (regex-capture-in-repeat)
        for _ in range(low):
            self.sequence(body)
        if unbounded:
            loop = self.emit([SPLIT, None, None])
            self.sequence(body)
            self.emit([JMP, loop])
            self._order(loop, loop + 1, len(self.code), greedy)
            return
        exits = []
        for _ in range(high - low):
            split = self.emit([SPLIT, None, None])
            exits.append(split)
            self.sequence(body)
        for split in exits:
            self._order(split, split + 1, len(self.code), greedy)

    def _order(self, split: int, body: int, out: int, greedy: bool) -> None:
        self.code[split][1:3] = [body, out] if greedy else [out, body]


def _class_test(items: Any, ascii_only: bool) -> Callable[[str], bool]:
    """The test of a character class ``[...]`` (or ``\\d``, ``\\s``, ``\\w`` alone), as Python's re reads it."""
    negate = False
    chars: set[str] = set()
    ranges: list[tuple[int, int]] = []
    categories: list[Callable[[str], bool]] = []
    for op, arg in items:
        if op is c.NEGATE:
            negate = True
        elif op is c.LITERAL:
            chars.add(chr(arg))
        elif op is c.RANGE:
            ranges.append(arg)
        elif op is c.CATEGORY:
            categories.append(_category(arg, ascii_only))
        else:
            raise Opaque(f"{op} in a class is not modelled")

    def test(char: str) -> bool:
        code = ord(char)
        found = (
            char in chars
            or any(low <= code <= high for low, high in ranges)
            or any(category(char) for category in categories)
        )
        return found != negate

    return test


_ASCII_SPACE = frozenset(" \t\n\r\f\v")


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _ascii_word(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _category(code: Any, ascii_only: bool) -> Callable[[str], bool]:
    """Python's re categories: Unicode by default ([RE-*] appendix A), ASCII under the ASCII flag."""
    tests: dict[Any, Callable[[str], bool]] = {
        c.CATEGORY_DIGIT: (lambda ch: "0" <= ch <= "9") if ascii_only else str.isdecimal,
        c.CATEGORY_SPACE: _ASCII_SPACE.__contains__ if ascii_only else str.isspace,
        c.CATEGORY_WORD: _ascii_word if ascii_only else _word,
    }
    negated = {
        c.CATEGORY_NOT_DIGIT: c.CATEGORY_DIGIT,
        c.CATEGORY_NOT_SPACE: c.CATEGORY_SPACE,
        c.CATEGORY_NOT_WORD: c.CATEGORY_WORD,
    }
    if code in tests:
        return tests[code]
    if code in negated:
        positive = tests[negated[code]]
        return lambda ch: not positive(ch)
    raise Opaque(f"{code} is not modelled")


def _split_lookahead(body: Any) -> list[Any] | None:
    """``(?=A|B|$)`` as ``(?:(?=A|B)|$)``: a positive lookahead is zero-width and captures nothing, so it holds
    where one of its alternatives would, and which one does not matter to what follows. Its literal alternatives
    stay one literal lookahead (decided by the next character where none of them starts: ``_look``), each other
    alternative is a lookahead of its own, and an assertion alone (``$``) is itself. So a lazy loop that stops at
    ``(?=MARKER|$)`` takes steps ``Memo`` can keep, as one that stops at ``(?=MARKER)`` does. None when the body is
    no alternation, or all of its alternatives are literal texts."""
    if len(body) != 1 or body[0][0] is not c.BRANCH:
        return None
    alternatives = body[0][1][1]
    literal = [alternative for alternative in alternatives if _literals(alternative) is not None]
    rest = [alternative for alternative in alternatives if _literals(alternative) is None]
    if not rest:
        return None
    split = [[(c.ASSERT, (1, [(c.BRANCH, (None, literal))] if len(literal) > 1 else literal[0]))]] if literal else []
    return split + [[(c.ASSERT, (1, alternative))] for alternative in rest]


def _has_group(items: Any) -> bool:
    for op, arg in items:
        if op is c.SUBPATTERN and (arg[0] is not None or _has_group(arg[3])):
            return True
        if op is c.BRANCH and any(_has_group(alternative) for alternative in arg[1]):
            return True
        if op in (c.MAX_REPEAT, c.MIN_REPEAT) and _has_group(arg[2]):
            return True
        if op in (c.ASSERT, c.ASSERT_NOT) and _has_group(arg[1]):
            return True
    return False


def _nullable(items: Any) -> bool:
    """Whether a sequence can match the empty string."""
    for op, arg in items:
        if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
            return False
        if op is c.SUBPATTERN and not _nullable(arg[3]):
            return False
        if op is c.BRANCH and not any(_nullable(alternative) for alternative in arg[1]):
            return False
        if op in (c.MAX_REPEAT, c.MIN_REPEAT) and arg[0] > 0 and not _nullable(arg[2]):
            return False
    return True


def _literals(items: Any) -> tuple[str, ...] | None:
    """The texts of a pattern that is a finite set of plain literals (``<a>|<b>``, which Python's parser may
    store as ``<`` then ``a>|b>``), else None."""
    texts = [""]
    for op, arg in items:
        if op is c.LITERAL:
            texts = [text + chr(arg) for text in texts]
            continue
        if op is c.SUBPATTERN and arg[0] is None and not (arg[1] or arg[2]):
            options = _literals(arg[3])
        elif op is c.BRANCH:
            options = ()
            for alternative in arg[1]:
                found = _literals(alternative)
                if found is None:
                    return None
                options += found
        elif op is c.IN and len(arg) == 1 and arg[0][0] is c.LITERAL:
            options = (chr(arg[0][1]),)
        else:
            return None
        if options is None or len(texts) * len(options) > 256:
            return None
        texts = [text + option for text in texts for option in options]
    if any(text == "" for text in texts):
        return None
    return tuple(texts)


def literal_runs(pattern: re.Pattern[str]) -> set[str]:
    """The literal texts of two or more characters a pattern spells out (its markers, most likely), alternatives
    of literals included (``<tool_call>|</tool_call>``, which Python stores as ``<`` then a branch)."""
    runs: set[str] = set()

    def sequence(items: Any) -> None:
        current = [""]
        for op, arg in items:
            options = (
                (chr(arg),) if op is c.LITERAL else _literals([(op, arg)]) if op in (c.BRANCH, c.SUBPATTERN) else None
            )
            if options is not None and len(current) * len(options) <= 64:
                current = [text + option for text in current for option in options]
                continue
            runs.update(text for text in current if len(text) >= 2)
            current = [""]
            if op is c.SUBPATTERN:
                sequence(arg[-1])
            elif op is c.BRANCH:
                for alternative in arg[1]:
                    sequence(alternative)
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
                sequence(arg[2])
            elif op in (c.ASSERT, c.ASSERT_NOT):
                sequence(arg[1])
        runs.update(text for text in current if len(text) >= 2)

    sequence(sre.parse(pattern.pattern, pattern.flags))
    return runs


def _epsilon_edges(inst: tuple[Any, ...], at_end: bool) -> list[int]:
    """The instructions reached without reading a character, for the analysis of ``total``: assertions pass only
    when they surely hold (at the end of the text: ``$``, ``\\Z``, and a lookahead that surely holds on the empty
    rest), other lookaheads never."""
    kind = inst[0]
    if kind is SPLIT:
        return [inst[1], inst[2]]
    if kind is JMP:
        return [inst[1]]
    if kind is SAVE:
        return [inst[2]]
    if kind is ASSERT and at_end and inst[1] in (DOLLAR, EOL, EOS):
        return [inst[2]]
    if kind is LOOK and at_end and _empty_rest(inst[1]) is (not inst[2]):
        return [inst[3]]
    return []


def _empty_rest(program: Program) -> bool | None:
    """Whether a lookahead's pattern matches at the end of the text: True, False, or None when that takes more than
    ``$`` and ``\\Z`` to tell."""
    reached = _closure(program.code, 0, True)
    if any(program.code[pc][0] is MATCH for pc in reached):
        return True
    ends = (DOLLAR, EOL, EOS)
    kinds = [program.code[pc] for pc in reached]
    exact = all(inst[0] in (CHAR, SPLIT, JMP, SAVE) or (inst[0] is ASSERT and inst[1] in ends) for inst in kinds)
    return False if exact else None


def _closure(code: list[tuple[Any, ...]], pc: int, at_end: bool) -> set[int]:
    seen = {pc}
    stack = [pc]
    while stack:
        for target in _epsilon_edges(code[stack.pop()], at_end):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def _total(code: list[tuple[Any, ...]]) -> set[int]:
    """The pcs from which a match is reached whatever text follows, the empty text included (a greatest fixed
    point): at the end a MATCH is in reach, and otherwise a ``.`` leads back into the set."""
    ends = {pc: any(code[q][0] is MATCH for q in _closure(code, pc, True)) for pc in range(len(code))}
    steps = {
        pc: [code[q][2] for q in _closure(code, pc, False) if code[q][0] is CHAR and code[q][1] is universal]
        for pc in range(len(code))
    }
    total = {pc for pc in range(len(code)) if ends[pc]}
    changed = True
    while changed:
        changed = False
        for pc in list(total):
            if not any(step in total for step in steps[pc]):
                total.discard(pc)
                changed = True
    return total


def _first(code: list[tuple[Any, ...]]) -> re.Pattern[str] | None:
    """A class of the characters a match can begin with, when the start reaches only literal characters (no
    assertion, no class, no empty match): a search with no live thread skips to the next of them."""
    chars = []
    for pc in _closure(code, 0, False):
        kind = code[pc][0]
        if kind is CHAR:
            test = code[pc][1]
            if getattr(test, "__name__", "") != "__eq__" or not isinstance(getattr(test, "__self__", None), str):
                return None
            chars.append(test.__self__)
        elif kind not in (SPLIT, JMP, SAVE):
            return None
    return re.compile("[" + "".join(re.escape(char) for char in sorted(set(chars))) + "]") if chars else None


def _successors(inst: tuple[Any, ...]) -> list[int]:
    kind = inst[0]
    if kind is SPLIT:
        return [inst[1], inst[2]]
    if kind is JMP:
        return [inst[1]]
    if kind in (CHAR, SAVE, ASSERT):
        return [inst[2]]
    if kind is LOOK:
        return [inst[3]]
    return []


def _reopens(code: list[tuple[Any, ...]], groups: int) -> list[int]:
    """Per pc, the groups (as a bitmask) whose opening SAVE can still be reached from it."""
    predecessors: list[list[int]] = [[] for _ in code]
    for pc, inst in enumerate(code):
        for target in _successors(inst):
            predecessors[target].append(pc)
    masks = [0] * len(code)
    for pc, inst in enumerate(code):
        if inst[0] is SAVE and inst[1] % 2 == 0 and inst[1] > 0:
            bit = 1 << (inst[1] // 2)
            stack = [pc]
            seen = {pc}
            while stack:
                node = stack.pop()
                masks[node] |= bit
                for previous in predecessors[node]:
                    if previous not in seen:
                        seen.add(previous)
                        stack.append(previous)
    return masks


TAIL = 8192  # characters a buffer grows by before its head is rebuilt


class Buffer:
    """Text that only grows: the output, or what a stage has certainly produced from it. It is kept as a head and
    a short tail, since a Python string is copied whole when it grows: growing copies the tail, and the head is
    rebuilt once per ``TAIL`` characters. Readers take the characters they need (``slice``, ``char``); ``text``,
    the whole text, is for reading it once (a stream's finish), not on every feed."""

    __slots__ = ("_head", "_tail", "length", "read_end", "spans")

    def __init__(self, text: str = "") -> None:
        self._head, self._tail = text, ""
        self.length = len(text)
        self.spans: dict[tuple[int, int], Any] = {}  # the analysis's exact spans of this text, by (start, end)
        self.read_end = False  # a description's text or length was read to its end (``moving``): no steady feed

    def moving(self, end: int) -> bool:
        """Whether a span ending at ``end`` ends where the text does, or one character before it: then its end
        moves with the text from feed to feed (``relative``), and a description that reads it reads new text."""
        return end >= self.length - 1

    @property
    def text(self) -> str:
        if self._tail:
            self._head += self._tail
            self._tail = ""
        return self._head

    def grow(self, more: str) -> None:
        self._tail += more
        self.length += len(more)
        if len(self._tail) >= TAIL:
            self._head += self._tail
            self._tail = ""

    def slice(self, start: int, end: int | None = None) -> str:
        """``text[start:end]``, read from the tail when it lies there."""
        split = len(self._head)
        if end is None or end > self.length:
            end = self.length
        if start >= split:
            return self._tail[start - split : end - split]
        if end <= split:
            return self._head[start:end]
        return self._head[start:] + self._tail[: end - split]

    def char(self, index: int) -> str:
        """The character at ``index`` (below ``length``)."""
        split = len(self._head)
        return self._head[index] if index < split else self._tail[index - split]


def unsteady() -> object:
    """The shape of a state that is never steady: a new object, equal to no other shape (steady.py)."""
    return object()


def relative(position: int | None, length: int) -> int | None:
    """A position as a steady feed compares it (steady.py): one at or next to the end of a text of ``length``
    characters (within one character either side) counted from the end, as a negative number; an older one as
    it is, since it stays where it is while the text grows."""
    if position is None or position < length - 1:
        return position
    return position - length - 2


class Condition:
    """What a thread assumed about text not yet seen; ``decide`` says True, False or None (not yet known)."""

    __slots__ = ("buffer", "position")

    def __init__(self, buffer: Buffer, position: int) -> None:
        self.buffer = buffer
        self.position = position

    def decide(self) -> bool | None:
        raise NotImplementedError

    def holds_at_end(self) -> bool:
        """Whether it holds if the text ends where it is now."""
        return False


class AtEnd(Condition):
    """``\\Z``: the text ends here."""

    __slots__ = ()

    def decide(self) -> bool | None:
        return None if self.buffer.length == self.position else False

    def holds_at_end(self) -> bool:
        return self.buffer.length == self.position


class Dollar(Condition):
    """``$`` without MULTILINE: the text ends here, or after one newline that is here."""

    __slots__ = ()

    def decide(self) -> bool | None:
        buffer, at = self.buffer, self.position
        if buffer.length == at:
            return None
        if buffer.char(at) != "\n":
            return False
        return None if buffer.length == at + 1 else False

    def holds_at_end(self) -> bool:
        return self.decide() is None


class LineEnd(Condition):
    """``$`` under MULTILINE: a newline here, or the end."""

    __slots__ = ()

    def decide(self) -> bool | None:
        buffer = self.buffer
        return None if buffer.length == self.position else buffer.char(self.position) == "\n"

    def holds_at_end(self) -> bool:
        return self.buffer.length == self.position


class Boundary(Condition):
    """``\\b`` (``want``) or ``\\B`` at the end of the text seen: the next character decides."""

    __slots__ = ("before", "empty", "want", "word")

    def __init__(self, buffer: Buffer, position: int, before: bool, want: bool, word: Callable[[str], bool]) -> None:
        super().__init__(buffer, position)
        self.before, self.want, self.word = before, want, word
        self.empty = not before and position == 0  # set by the search: the text is empty so far

    def decide(self) -> bool | None:
        buffer = self.buffer
        if buffer.length == self.position:
            return None
        return (self.before != self.word(buffer.char(self.position))) == self.want

    def holds_at_end(self) -> bool:
        # Python's re: \B never matches in an empty string
        return self.buffer.length == self.position and self.before == self.want and not (self.empty and not self.want)


class Lookahead(Condition):
    """``(?=...)`` or ``(?!...)`` at a position: decided once the text there settles it."""

    __slots__ = ("negate", "program", "search")

    def __init__(self, buffer: Buffer, position: int, program: Program, negate: bool, base: int) -> None:
        super().__init__(buffer, position)
        self.program, self.negate = program, negate
        reads_one = program.literals is not None or program.single is not None  # (then it needs no search)
        self.search = None if reads_one else Search(program, buffer, base, position, anchored=True)

    def decide(self) -> bool | None:
        found = self._found()
        return None if found is None else found != self.negate

    def holds_at_end(self) -> bool:
        """A lookahead still open, if the text ends here: a literal one finds nothing more; another holds when its
        search surely has (or surely has not) a match at the end."""
        verdict = self.decide()
        if verdict is not None:
            return verdict
        if self.search is None:
            return self.negate
        matches = [conds for pc, _, conds in self.search.entries if pc < 0]
        found = any(all(condition.holds_at_end() for condition in conds) for conds in matches)
        if not self.negate:
            return found
        exact = all(isinstance(condition, (AtEnd, Dollar, LineEnd)) for conds in matches for condition in conds)
        return exact and not found

    def _found(self) -> bool | None:
        single = self.program.single
        if single is not None:
            return None if self.position >= self.buffer.length else single(self.buffer.char(self.position))
        if self.search is None:
            assert self.program.literals is not None
            seen = self.buffer.slice(self.position, self.position + self.program.longest)
            possible = False
            for literal in self.program.literals:
                if seen.startswith(literal):
                    return True
                possible = possible or literal.startswith(seen)
            return None if possible else False
        self.search.advance()
        entries = self.search.entries
        if any(pc < 0 and not conds for pc, _, conds in entries):
            return True
        return False if not entries else None


NONE: frozenset[Condition] = frozenset()
Entry = tuple[int, tuple[Any, ...], frozenset[Condition]]  # (pc, or -1 for a match found; registers; conditions)


class Memo:
    """The steps a program's searches have taken, kept to be taken again (a lazy DFA with registers). A step reads
    one character; from the same entries, on a character of the same kind with a next character of the same kind
    (``Program.kinds``; no next character is a kind too), it gives the same entries. Entries are *named* by their
    pcs, their registers and their conditions (numbers into the name's templates, each a condition made at the
    position read). A register is named by its *place*: 0 the position read, 1 the one before it, 2 on an older
    position, the name's *values* in the order the entries first hold them, which the search keeps beside the
    name. So a name holds no position: a steady stretch of text (a long content or thinking) repeats a few names,
    and so does each of many calls alike, and a step is a dictionary look-up and, when a register moved to an
    older place, a new tuple of values. A step that reads past the next character where only a literal lookahead
    or ``$`` reads (a tempered dot's ``(?!<tool_call>|</think>)`` at a ``<``: HTML, XML, code) is kept by the text
    it read, up to ``Program.reach`` characters (``far``), which repeats as tags do; one that reads further (a
    lookahead of a pattern) is not kept. The first step of a feed decides the conditions the last one left open.
    A condition made before the position read and still open (a lookahead over a call's name, open until the name
    ends) is *held*: named by its kind and the place of its position, carried by the steps as a register is (a step
    reads none of it), and looked at once a feed, before its first step (``Search._held_decided``): when what
    arrived decides it, the entries are made and resolved, and the search leaves the name."""

    LIMIT = 4096  # steps and names kept; past it the memo starts again (a program's memo stays a few megabytes)

    __slots__ = ("_readers", "_started", "_starts", "chosen", "far", "names", "runs", "steps")

    def __init__(self) -> None:
        self._started: tuple[Any, ...] | None = None  # the name of a fresh start's entries
        self._readers: dict[int, tuple[Any, ...]] = {}  # id(name) -> (name, its entries as ``readers`` gives them)
        self._starts: dict[int, tuple[Any, ...]] = {}  # id(name) -> (name, the places its entries began at)
        self.names: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # each name once: its id is a key in ``steps``
        self.chosen: dict[int, tuple[Any, ...]] = {}  # id(name) -> (name, how many candidates, more)
        # (id(name), kind, next kind) -> (that name, the next name, idle, where the next values come from or None)
        self.steps: dict[tuple[int, int, int], tuple[Any, ...]] = {}
        # (id(name), the text from the character read, ``Program.reach`` long or to the end) -> as ``steps``: a step
        # that read past the next character only where a literal lookahead or ``$`` reads, kept by what it read
        self.far: dict[tuple[int, str], tuple[Any, ...]] = {}
        # (id(name), idle, the kinds of a feed's text as ``Program.kind_chars`` writes them, or the text and None
        # when a step was ``far``) -> (that name, the name its steps reach, where its values come from or None when
        # each stays, idle there): a feed's steps at once (``Search._loops``)
        self.runs: dict[tuple[Any, ...], tuple[Any, ...]] = {}

    def name(self, entries: list[Entry], position: int) -> tuple[tuple[Any, ...], tuple[int, ...]] | None:
        """The name of ``entries`` at ``position`` and its values; None when a thread holds a condition made at
        ``position`` (a step decides those: the memo's own steps name them). A condition made before it, still
        open, is *held*: its template and the place of its position (``_templates``)."""
        places: dict[int, int] = {}  # an older position -> its place
        plain = []
        for pc, regs, conds in entries:
            if conds:
                break
            plain.append((pc, _placed(regs, position, places), NONE))
        else:  # no condition (most names)
            name: tuple[Any, ...] = (tuple(plain), (), (), False)
            self._room()
            return self.names.setdefault(name, name), tuple(places)
        named, numbers, places = _naming(entries, position)
        if any(condition.position >= position for condition in numbers):
            return None
        name = _name(named, _templates(numbers, position, places))
        self._room()
        return self.names.setdefault(name, name), tuple(places)

    def started(self, search: Search) -> tuple[Any, ...]:
        """The name of a fresh start's entries, which is the same at every position when the start reads only
        literals (``Program.first``): no condition, every register set there or not at all."""
        if self._started is None:
            named = self.name(search._fresh(search.position), search.position)
            assert named is not None and not named[1]
            self._started = named[0]
        return self._started

    def starts(self, name: tuple[Any, ...]) -> tuple[int, ...]:
        """The places where the entries of ``name`` began, each once, in order (``Search.earliest``)."""
        known = self._starts.get(id(name))
        if known is None or known[0] is not name:
            places = sorted({regs[0] for _, regs, _ in name[0] if regs[0] is not None})
            known = self._starts[id(name)] = (name, tuple(places))
        return known[1]  # type: ignore[no-any-return]

    def readers(self, name: tuple[Any, ...]) -> tuple[tuple[Any, ...], ...]:
        """The entries of ``name`` as (pc, what reads its registers from ``(None, position, position - 1,
        *values)``, conditions): an ``itemgetter`` of each register's place, made once per name."""
        known = self._readers.get(id(name))
        if known is None or known[0] is not name:
            readers = tuple(
                (pc, itemgetter(*[0 if r is None else r + 1 for r in regs]), conds) for pc, regs, conds in name[0]
            )
            known = self._readers[id(name)] = (name, readers)
        return known[1]  # type: ignore[no-any-return]

    def learn(
        self, key: tuple[int, int, int], name: tuple[Any, ...], values: tuple[int, ...], search: Search, position: int
    ) -> tuple[tuple[Any, ...], tuple[int, ...]] | None:
        """Keep the step ``search`` just took from ``name`` (with ``values``) to ``position``, under ``key`` (the
        kinds it read), or, when it read past the next character, under the text it read (``far``); the name it
        reached and its values (None when the step read further than a literal lookahead does). A step only copies
        registers and sets them to ``position``, so an older position was a value of ``name`` or the one before
        the position read."""
        table: dict[Any, tuple[Any, ...]] = self.steps
        kept: tuple[Any, ...] = key
        if search._far:
            if search._reach:
                return None
            table = self.far
            kept = far_key(name, search.buffer, position - 1, search.program)
        older = position - 2
        was = {value: index for index, value in enumerate(values)}
        named, numbers, places = _naming(search.entries, position)
        templates = _templates(numbers, position, places)
        self._room()
        reached = _name(named, templates)
        reached = self.names.setdefault(reached, reached)
        sources = tuple(-1 if r == older else was[r] for r in places)  # per value reached: where it was, -1 ``older``
        table[kept] = (name, reached, search.idle, None if sources == tuple(range(len(values))) else sources)
        return reached, tuple(places)

    def _room(self) -> None:
        """Start again when ``LIMIT`` steps or names are kept (a search holding an older name finds no step for it)."""
        if len(self.steps) + len(self.far) >= self.LIMIT or len(self.names) >= self.LIMIT:
            self.steps, self.names, self.chosen, self._readers, self._started = {}, {}, {}, {}, None
            self.runs, self._starts, self.far = {}, {}, {}


def far_key(name: object, buffer: Buffer, at: int, program: Program) -> tuple[int, str]:
    """The key in ``Memo.far`` of a step from ``name`` that reads the character at ``at``: the name, and the text
    from there, ``Program.reach`` characters long or to the end of the buffer (where it ends decides too)."""
    return (id(name), buffer.slice(at, at + program.reach))


def _naming(entries: list[Entry], position: int) -> tuple[tuple[Any, ...], dict[Condition, int], dict[int, int]]:
    """Entries as a ``Memo`` name writes them at ``position``: each with its registers by place (``_placed``) and
    its conditions by number, in the order the entries first hold them; the conditions so numbered, and the older
    positions by place."""
    places: dict[int, int] = {}
    numbers: dict[Condition, int] = {}
    named = tuple(
        (pc, _placed(regs, position, places), frozenset([numbers.setdefault(c, len(numbers)) for c in conds]))
        for pc, regs, conds in entries
    )
    return named, numbers, places


def _placed(regs: tuple[Any, ...], position: int, places: dict[int, int]) -> tuple[Any, ...]:
    """Registers by their place at ``position`` (``Memo``): 0 there, 1 the one before, 2 on an older one (added to
    ``places``); None stays None."""
    before = position - 1
    return tuple(
        r if r is None else 0 if r == position else 1 if r == before else places.setdefault(r, len(places) + 2)
        for r in regs
    )


def _moved(values: tuple[int, ...], sources: tuple[int, ...], offset: int) -> tuple[int, ...]:
    """A search's values after ``Search._loops`` read from ``offset``: each where its source says, one of
    ``values`` (its index) or, as ``-index - 1``, the position before the character ``index`` of the text read."""
    return tuple([values[source] if source >= 0 else offset - source - 2 for source in sources])


HELD = ("held",)  # the first item of a held condition's template (``Memo.name``)


def _name(named: tuple[Any, ...], templates: tuple[Any, ...]) -> tuple[Any, ...]:
    """A ``Memo`` name: its entries and their conditions' templates, then what follows from them, kept with them
    (it adds nothing to tell names apart): its held templates as (template, place), and whether one of them is a
    lookahead whose search reads more than literals (``Lookahead.holds_at_end`` then depends on what that search
    has read, which the name does not hold: what is worked out once per name is not, ``Search.varies``)."""
    if not templates:
        return (named, templates, (), False)
    held = tuple([(t[1], t[2]) for t in templates if t[0] is HELD])
    return (
        named,
        templates,
        held,
        any([t[0] is Lookahead and t[1].literals is None and t[1].single is None for t, _ in held]),
    )


def _templates(numbers: dict[Condition, int], position: int, places: dict[int, int]) -> tuple[Any, ...]:
    """The templates of a name's conditions at ``position``: one made there by its kind; one made before it and
    still open (held) by its kind and its position's place (1 the one before ``position``, from 2 on an older
    position, added to ``places``)."""
    return tuple(
        [
            _template(condition)
            if condition.position >= position
            else (
                HELD,
                _template(condition),
                1 if condition.position == position - 1 else places.setdefault(condition.position, len(places) + 2),
            )
            for condition in numbers
        ]
    )


def _template(condition: Condition) -> tuple[Any, ...]:
    """What makes a condition made at a position, the position aside (``Memo``)."""
    if isinstance(condition, Boundary):
        return (Boundary, condition.before, condition.want, condition.word, condition.empty)
    if isinstance(condition, Lookahead):
        return (Lookahead, condition.program, condition.negate)
    return (type(condition),)


WAITING = (None,)  # the shape of a search waiting for a start (``Search.shape``)


class Search:
    """``pattern.search(text, start)`` on a text still arriving (``buffer.text[base:]`` so far), leftmost-first
    as Python's re: ``entries`` are the live threads and the matches found, in priority order. ``advance``
    reads what arrived since the last call."""

    __slots__ = (
        "_entries",
        "_far",
        "_lazy",
        "_looks",
        "_reach",
        "_shaped",
        "anchored",
        "base",
        "buffer",
        "certain",
        "code",
        "idle",
        "memoize",
        "must_advance",
        "named",
        "pending",
        "position",
        "program",
        "start",
        "values",
    )

    def __init__(
        self,
        program: Program,
        buffer: Buffer,
        base: int,
        start: int,
        anchored: bool = False,
        must_advance: bool = False,
        memoize: bool = True,
    ) -> None:
        self.program, self.code, self.buffer = program, program.code, buffer
        self.base, self.start, self.position = base, start, start
        self.anchored = anchored or program.anchored
        self.must_advance = must_advance  # after an empty match, a match at start must not be empty (finditer)
        self.pending: dict[Condition, None] = {}  # an ordered set
        self._looks: dict[tuple[int, int, bool], Condition] = {}
        self.memoize = memoize  # take the steps ``Memo`` knows instead of running them
        self._far = False  # the step read past the next character: ``Memo`` keeps it by what it read (``Memo.far``)
        self._reach = False  # and past where a literal lookahead reads: ``Memo`` does not keep it
        self.named: tuple[Any, ...] | None = None  # the ``Memo`` name of ``entries`` (conditions ``pending`` once made)
        self.values: tuple[int, ...] = ()  # the positions at the name's older places
        self._lazy: tuple[Any, ...] | None = None  # (name, values, position) of entries not made yet (``entries``)
        self._shaped: tuple[int, int, Any] | None = None  # the position, the text's length and the shape there
        self._entries = self._fresh(start)
        self.idle = not self.anchored  # no thread but a fresh start's
        self.certain: int | None = None  # the length of the text when a match was first found certain

    @property
    def entries(self) -> list[Entry]:
        """The live threads and the matches found, in priority order. After a feed that ends on a ``Memo`` name they
        are made from the name when first read: a search whose match values come from its name (``matches`` in
        analysis.py) and whose next feed steps from the name needs none."""
        if self._lazy is not None:
            self._make_entries()
        return self._entries

    @entries.setter
    def entries(self, entries: list[Entry]) -> None:
        self._lazy, self._entries = None, entries

    @property
    def matched(self) -> bool:
        """A match is certain: the search's result no longer depends on what follows."""
        if self._lazy is not None:  # read from the name: a first entry that is a match, with no condition
            named = self._lazy[0][0]
            return bool(named) and named[0][0] < 0 and not named[0][2]
        entries = self._entries
        return bool(entries) and entries[0][0] < 0 and not entries[0][2]

    def candidates(self) -> tuple[list[Entry], bool]:
        """The entries the final match can still come from, in priority order, and whether the search may also
        end with a match that starts later, or with none. An entry stops the list when it is a certain match, or
        when, together with those before it, it matches whatever follows: a match that holds if the text ends
        here, and a thread on ``.`` from which every continuation reaches a match. The entries of a ``Memo`` name
        give the same list each time."""
        named = None if self.varies else self.named
        if named is not None:
            known = self.program.memos[self.anchored].chosen.get(id(named))
            if known is not None and known[0] is named:
                return self.entries[: known[1]], known[2]
        chosen, more = self._candidates()
        if named is not None:
            self.program.memos[self.anchored].chosen[id(named)] = (named, len(chosen), more)
        return chosen, more

    def named_candidates(self) -> tuple[tuple[Any, ...], int, bool] | None:
        """The entries of the search's ``Memo`` name (registers by place: from 2 on, older positions, which stay
        where they are while the text grows), how many of them are the ``candidates`` and whether the search may
        end otherwise; None when the search has no name, or its candidates were not chosen under it yet."""
        named = self.named
        if named is None or named[3]:  # (``varies``)
            return None
        known = self.program.memos[self.anchored].chosen.get(id(named))
        if known is None or known[0] is not named:
            return None
        return named[0], known[1], known[2]

    @property
    def varies(self) -> bool:
        """The search's name holds a lookahead whose result at the end depends on what its own search has read
        (``_name``): what is worked out once per name is worked out again, and its shape holds that search's."""
        named = self.named
        return named is not None and named[3]

    def _candidates(self) -> tuple[list[Entry], bool]:
        code, total = self.code, self.program.total
        chosen: list[Entry] = []
        at_end = step = False
        for entry in self.entries:
            chosen.append(entry)
            pc, _, conds = entry
            if pc < 0:
                if not conds:
                    return chosen, False
                at_end = at_end or all(condition.holds_at_end() for condition in conds)
            elif not conds and code[pc][1] is universal and code[pc][2] in total:
                step = True
            if at_end and step:
                return chosen, False
        return chosen, True

    def advance(self) -> None:
        offset, end = self.position, self.buffer.length
        if offset == end:
            return
        if self.matched or (self.idle and self.anchored):  # a certain match, or no thread and none can start:
            self.position = end  # no text that follows changes it, so there is nothing to read
            return
        if self.named is not None and self.named[2] and self._held_decided():  # (before any step: steps keep them open)
            self._make_entries()
            self._resolve()
            self.named = None
        first = self.program.first
        if self.named is not None and not (self.idle and first is not None) and self._loops(offset, end):
            return  # (a search waiting for a start that ``first`` finds skips to it below)
        memo = self.program.memos[self.anchored] if self.memoize else None
        state: Any = self.named if memo is not None else None  # the entries as ``Memo`` names them, as it steps
        values = self.values  # and the positions at the name's older places
        self.named = None
        if state is None:
            self._resolve()
        text = self.buffer.slice(offset, end)  # what arrived since the last call
        kinds = self.program.kinds
        stale = False  # ``entries`` are behind ``state``
        index = offset
        while index < end:
            if self.idle and first is not None:  # only a fresh start waits: skip to where one can begin
                found = first.search(text, index - offset)
                index = end if found is None else offset + found.start()
                if memo is not None:  # a fresh start's entries, by their name: made when read (``_lazy``)
                    self.pending.clear()  # the conditions of threads that died
                    state, values, stale = memo.started(self), (), True
                else:
                    self.entries, state, stale = self._fresh(index), None, False
                if index == end:
                    break
            char = text[index - offset]
            if memo is not None and (state is not None or not self.pending or self._holds_only_older(index)):
                if state is None:
                    named = memo.name(self.entries, index)
                    if named is not None:
                        state, values = named
                if state is not None:
                    key = (id(state), kinds[char], kinds[text[index + 1 - offset]] if index + 1 < end else -1)
                    step = memo.steps.get(key)
                    if (step is None or step[0] is not state) and memo.far:
                        step = memo.far.get(far_key(state, self.buffer, index, self.program))
                    if step is not None and step[0] is state:  # (the id may be of a state forgotten since)
                        if state[1]:
                            self.pending.clear()  # they were the conditions of ``state``'s entries only
                        state, self.idle = step[1], step[2]
                        if step[3] is not None:  # a register moved to an older place: -1 is the one before ``index``
                            values = tuple([values[source] if source >= 0 else index - 1 for source in step[3]])
                        stale = True
                    else:
                        if stale:
                            self.entries, stale = self._named(state, values, index), False
                        self._far = self._reach = False
                        if state[1]:  # the conditions the last feed left open are decided by this character, but
                            # those held (made before ``index``), which the feed's first step found open
                            self._make_entries()
                            self._far = any(
                                isinstance(c, Lookahead) and char in c.program.starts and c.position >= index
                                for c in self.pending
                            )
                            self._resolve()
                            self._far = self._far or not self._holds_only_older(index)
                        self._step(char, index)
                        learned = memo.learn(key, state, values, self, index + 1)
                        state, values = (None, ()) if learned is None else learned
                    index += 1
                    if self.anchored and not (state[0] if stale else self.entries):
                        break
                    continue
            if stale and state is not None:
                self.entries, stale = self._named(state, values, index), False
            state = None
            self._step(char, index)
            index += 1
            if not self.entries and self.anchored:
                break
        self.position = end
        if state is not None:  # the entries have a name (a step the memo knew, or one it just learned)
            self.pending.clear()
            self._lazy = (state, values, index)  # made when read, with its conditions: made at the end of the text,
            self.named, self.values = state, values  # they are all undecided
        elif self.pending:
            self._resolve()
        if self.certain is None and self.matched:
            self.certain = end

    def waits(self, end: int) -> str | None:
        """Read the text up to ``end`` when the search waits for a start (idle, its name a fresh start's) and no
        match can begin in it (``Program.first`` finds nothing there): it waits on at ``end``, as ``advance`` would
        leave it, and the text it read is returned. None, having read nothing, otherwise."""
        first = self.program.first
        if not self.idle or first is None or self.anchored or not self.memoize or self.pending:
            return None
        named = self.named
        if named is None or named is not self.program.memos[False]._started:
            return None
        text = self.buffer.slice(self.position, end)
        if first.search(text) is not None:
            return None
        self.position, self.values, self._lazy = end, (), (named, (), end)
        return text

    def _held_decided(self) -> bool:
        """Whether what arrived decides a condition the search's name holds (``_name``): then its entries are
        made and resolved, as the first step of a feed does for the conditions made at the end. A held one still
        open stays so over the feed: a step does not read it."""
        name = self.named
        assert name is not None
        places: tuple[Any, ...] = (None, self.position, self.position - 1, *self.values)
        for template, place in name[2]:
            at = places[place + 1]
            if template[0] is Lookahead:
                found = self._looks.get((id(template[1]), at, template[2]))
                if found is None or found.decide() is not None:
                    return True
            else:
                return True  # (made again to be decided: only lookaheads stay open over more than a character)
        return False

    def _holds_only_older(self, index: int) -> bool:
        """Whether every pending condition was made before ``index``: the step there reads none of them."""
        return all(condition.position < index for condition in self.pending)

    def shape(self) -> Any:
        """``_shape``, kept while the search stays where it is: a search that has not read since (a text that has
        not grown: a region still empty, a substitution's output held back) is what it was."""
        if self.idle and not self.must_advance:
            return WAITING  # waiting for a start: nothing it holds moves
        length, shaped = self.buffer.length, self._shaped
        if shaped is not None and shaped[0] == self.position and shaped[1] == length:
            return shaped[2]
        found = self._shape()
        if found.__class__ is not object:  # ``unsteady``: equal to no other shape, its own included
            self._shaped = (self.position, length, found)
        return found

    def _shape(self) -> Any:
        """What the search is, positions counted from the end (steady.py): idle after an empty match, where the
        next may not be empty (waiting for a start otherwise, ``shape``); else its ``Memo`` name and held values,
        the name made here when its last step was not the memo's (the same entries have the same name whichever
        way they were reached, a condition one character before the end told apart); a certain match by its
        registers (``relative``). A condition made before that is a lookahead reading ahead of it (a call's
        ``(?=\\s*[\\w.\\-]+:\\d+)`` over a long name): while it is undecided, the run reads of it only that, and what
        its own search holds (a literal one holds nothing else), so it is its older position and its search's shape.
        A search holding a condition made before that and decided, which the next step resolves, is never steady."""
        length = self.buffer.length
        if self.idle:
            return (relative(self.start, length),)
        if self.matched:
            return tuple([relative(r, length) for r in self.entries[0][1]])
        if self.named is not None and not self.varies:
            return (self.named, self.values)
        named, numbers, places = _naming(self.entries, length)
        made: list[Any] = []
        for c in numbers:
            if c.position >= length - 1:
                made.append(_template(c) if c.position == length else (_template(c), "before"))
            elif c.__class__ is Lookahead and c.decide() is None:  # still open: it reads what its search has read
                made.append((_template(c), c.position, None if c.search is None else c.search.shape()))
            else:
                return unsteady()
        return ((named, tuple(made)), tuple(places))

    def earliest(self) -> int:
        """Where the earliest entry began (the position when there is none). Read from the ``Memo`` name while the
        entries are not made (place 0 is the position, 1 the one before it, 2 on the name's values, older)."""
        if self._lazy is None:
            return min((regs[0] for _, regs, _ in self._entries if regs[0] is not None), default=self.position)
        values: tuple[int, ...]
        position: int
        name, values, position = self._lazy
        places = self.program.memos[self.anchored].starts(name)
        if not places:
            return self.position
        if places[-1] >= 2:
            return min([values[place - 2] for place in places if place >= 2])
        return position - places[-1]

    def quiet(self) -> bool:
        """Whether no match has begun before the position: every thread starts there (a search waiting for a
        start). Read from the ``Memo`` name while the entries are not made (a name's place 0 is the position)."""
        if self._lazy is not None:
            return all(pc >= 0 and regs[0] == 0 for pc, regs, _ in self._lazy[0][0])
        return all(pc >= 0 and regs[0] == self.position for pc, regs, _ in self._entries)

    def _loops(self, offset: int, end: int) -> bool:
        """Read the text from ``offset`` to ``end`` when each of its characters is a step the ``Memo`` knows from
        the search's name (a steady stretch of text: a long content or thinking, where a name after a space and one
        after a word take turns); False, having read nothing, when one is not. The steps over a feed's text are
        kept by the kinds of its characters (``Memo.runs``), or by the text itself when a step is kept by what it
        read (``Memo.far``), with where each value they end with comes from: a value the search held (its index),
        or a position in the text (``_moved``)."""
        named = self.named
        if not self.memoize:
            return False
        memo, idle, text = self.program.memos[self.anchored], self.idle, self.buffer.slice(offset, end)
        run: tuple[Any, ...] = (id(named), idle, text.translate(self.program.kind_chars))
        known = memo.runs.get(run)
        if (known is None or known[0] is not named) and memo.far:  # a run with a step kept by what it read (``far``)
            known = memo.runs.get((id(named), idle, text, None))  # is kept by the text, which ends with the buffer
        sources: tuple[int, ...] | None
        if known is not None and known[0] is named:
            named, sources, idle = known[1], known[2], known[3]
        else:
            steps, far, kinds, last = memo.steps, memo.far, self.program.kinds, len(text) - 1
            waits = self.program.first is not None  # a search that becomes idle skips to the next start instead
            stays = tuple(range(len(self.values)))
            moved = stays
            read = False  # a step kept by the characters it read (``Memo.far``): the run is not the kinds'
            for index, char in enumerate(text):
                step = steps.get((id(named), kinds[char], kinds[text[index + 1]] if index < last else -1))
                if (step is None or step[0] is not named) and far:
                    step, read = far.get(far_key(named, self.buffer, offset + index, self.program)), True
                if step is None or step[0] is not named or (waits and step[2]):
                    return False
                named, idle = step[1], step[2]
                if step[3] is not None:  # a register moved to an older place: -1 is the one before ``index``
                    moved = tuple([moved[source] if source >= 0 else -index - 1 for source in step[3]])
                if self.anchored and not named[0]:
                    return False
            sources = None if moved == stays else moved  # None: each value stays
            if len(memo.runs) >= memo.LIMIT:
                memo.runs = {}
            memo.runs[(run[0], run[1], text, None) if read else run] = (self.named, named, sources, idle)
        self.position, self.idle = end, idle
        self.pending.clear()  # the conditions of the name's entries, made anew at ``end`` when they are read
        self.named = named
        if sources is not None:
            self.values = _moved(self.values, sources, offset)
        self._lazy = (named, self.values, end)
        if self.certain is None and self.matched:
            self.certain = end
        return True

    def _make_entries(self) -> None:
        """Make the entries the last feed left to be made, and with them the conditions they hold (``pending``)."""
        if self._lazy is not None:
            name, values, position = self._lazy
            self.entries = self._named(name, values, position)

    def _named(self, name: tuple[Any, ...], values: tuple[int, ...], position: int) -> list[Entry]:
        """The entries a ``Memo`` name with ``values`` stands for at ``position``, its conditions made anew (and
        pending)."""
        places = (None, position, position - 1, *values)  # index 0 for a register not set, place p at p + 1
        made = [
            self._made(template, position)
            if template[0] is not HELD
            else self._made(template[1], places[template[2] + 1])
            for template in name[1]
        ]
        return [
            (pc, registers(places), frozenset(made[number] for number in conds) if conds else NONE)
            for pc, registers, conds in self.program.memos[self.anchored].readers(name)
        ]

    def _made(self, template: tuple[Any, ...], at: int) -> Condition:
        kind = template[0]
        condition: Condition
        if kind is Boundary:
            condition = Boundary(self.buffer, at, template[1], template[2], template[3])
            condition.empty = template[4]
        elif kind is Lookahead:  # the one met there, which may have read on since it was made
            found = self._looks.get((id(template[1]), at, template[2]))
            condition = (
                self._kept(Lookahead(self.buffer, at, template[1], template[2], self.base)) if found is None else found
            )
        else:
            condition = kind(self.buffer, at)
        self.pending[condition] = None
        return condition

    def _step(self, char: str, index: int) -> None:
        """Read ``char``, the character at ``index``: every thread that accepts it moves on."""
        code = self.code
        out: list[Entry] = []
        seen: dict[int, list[frozenset[Condition]]] = {}
        cut = False
        done = len(code) - 1  # the MATCH a match found reached (every program ends with it)
        entries = self.entries
        for entry in entries:
            pc = entry[0]
            if pc < 0:
                prior = seen.get(done)
                if prior is None:
                    seen[done] = [entry[2]]
                elif any(earlier <= entry[2] for earlier in prior):
                    continue  # a match before it holds wherever it would: it is never the one found
                else:
                    prior.append(entry[2])
                out.append(entry)
                if not entry[2]:
                    cut = True
                    break
                continue
            inst = code[pc]
            if inst[1](char) and self._add(out, seen, inst[2], entry[1], entry[2], index + 1, entries):
                cut = True
                break
        self.idle = not out and not cut
        if not cut and not self.anchored:
            self._add(out, seen, 0, (None,) * self.program.slots, NONE, index + 1, entries)
        self.entries = out

    def _fresh(self, position: int) -> list[Entry]:
        """The threads of a match starting at ``position``."""
        out: list[Entry] = []
        self._add(out, {}, 0, (None,) * self.program.slots, NONE, position)
        return out

    def _resolve(self) -> None:
        """Drop the entries whose conditions the text refuted; forget the conditions it confirmed."""
        decided = {}
        for condition in self.pending:
            verdict = condition.decide()
            if verdict is not None:
                decided[condition] = verdict
        if not decided:
            return
        for condition in decided:
            del self.pending[condition]
        out: list[Entry] = []
        for pc, regs, conds in self.entries:
            if conds & decided.keys():
                if any(decided.get(condition) is False for condition in conds):
                    continue
                conds = frozenset(condition for condition in conds if condition not in decided)
            out.append((pc, regs, conds))
            if pc < 0 and not conds:
                break
        self.entries = out

    def _add(
        self,
        out: list[Entry],
        seen: dict[int, list[frozenset[Condition]]],
        pc: int,
        regs: tuple[Any, ...],
        conds: frozenset[Condition],
        position: int,
        before: list[Entry] | None = None,
    ) -> bool:
        """Add the thread at ``pc`` and everything it reaches without reading, in priority order; True when it
        found a certain match (which cuts every thread after it). ``before``: the entries of the step that reads
        up to ``position``."""
        code = self.code
        stack = [(pc, regs, conds)]
        while stack:
            pc, regs, conds = stack.pop()
            prior = seen.get(pc)
            if prior is None:
                seen[pc] = [conds]
            elif any(earlier <= conds for earlier in prior):
                continue  # a thread before it does everything it would
            else:
                prior.append(conds)
            inst = code[pc]
            kind = inst[0]
            if kind is CHAR:
                out.append((pc, regs, conds))
            elif kind is SPLIT:
                stack.append((inst[2], regs, conds))
                stack.append((inst[1], regs, conds))
            elif kind is JMP:
                stack.append((inst[1], regs, conds))
            elif kind is SAVE:
                slot = inst[1]
                if slot % 2:
                    regs = (*regs[:slot], position, *regs[slot + 1 :])
                else:  # a group (re)opens: its end is not known any more
                    regs = (*regs[:slot], position, None, *regs[slot + 2 :])
                stack.append((inst[2], regs, conds))
            elif kind is MATCH:
                if self.must_advance and position == self.start and regs[0] == self.start:
                    continue
                out.append((-1, regs, conds))
                if not conds:
                    return True
            else:
                verdict = self._assert(inst, position) if kind is ASSERT else self._look(inst, position)
                if verdict is True:
                    stack.append((inst[-1], regs, conds))
                elif verdict is not False:
                    if verdict.__class__ is Lookahead and verdict.search is not None:
                        verdict = self._alike(verdict, conds, before)
                    self.pending[verdict] = None
                    stack.append((inst[-1], regs, conds | {verdict}))
        return False

    def _assert(self, inst: tuple[Any, ...], at: int) -> bool | Condition:
        kind, buffer = inst[1], self.buffer
        if kind is BOS:
            return at == self.base
        if kind is BOL:
            return at == self.base or buffer.char(at - 1) == "\n"
        if kind in (BOUNDARY, NON_BOUNDARY):
            word = _ascii_word if self.program.ascii else _word
            before = at > self.base and word(buffer.char(at - 1))
            boundary = Boundary(self.buffer, at, before, kind is BOUNDARY, word)
            boundary.empty = at == self.base
            condition: Condition = boundary
        elif kind is DOLLAR:
            self._far = self._far or (at < buffer.length and buffer.char(at) == "\n")
            condition = Dollar(self.buffer, at)
        elif kind is EOL:
            condition = LineEnd(self.buffer, at)
        else:
            condition = AtEnd(self.buffer, at)
        return self._open(condition)

    def _look(self, inst: tuple[Any, ...], at: int) -> bool | Condition:
        program = inst[1]
        if program.literals is not None and at < self.buffer.length and self.buffer.char(at) not in program.starts:
            return bool(inst[2])  # no literal starts here: (?=...) fails and (?!...) holds, whatever follows
        if program.single is not None and at < self.buffer.length:
            return bool(program.single(self.buffer.char(at))) != bool(inst[2])  # read there alone (``Program.kinds``)
        # a step that makes one reading past the next character is kept by what it read, or not at all when it reads
        # past ``Program.reach``
        if program.literals is None and program.single is None:
            self._far = self._reach = True
        elif at < self.buffer.length:
            self._far = True
        condition = self._looks.get((id(program), at, inst[2]))
        if condition is None:
            condition = self._kept(Lookahead(self.buffer, at, program, inst[2], self.base))
        return self._open(condition)

    def _alike(self, look: Lookahead, conds: frozenset[Condition], before: list[Entry] | None) -> Lookahead:
        """A lookahead the thread (``conds``) or a thread before the step (``before``) holds that decides as
        ``look`` will, when there is one, else ``look``: of the same program and sign, its search read to the same
        position holds the same threads with the same conditions (registers aside: a lookahead's captures are not
        read), so what follows decides both alike. So a thread that passes a lookahead on each turn of a loop
        (``(?:(?=\\s*<)\\s)*``) holds one condition, not one per position read while it is open, and the matches a
        lazy loop before one finds at each position (``.*?(?=\\s*<)``) hold the same one, which keeps only the first
        (``_step``): the search's cost per character stays bounded ([STREAM-6])."""
        threads = None
        for held in (conds, *[entry[2] for entry in before or ()]):
            for other in held:
                if other.__class__ is not Lookahead or other is look:
                    continue
                assert isinstance(other, Lookahead)
                if other.program is look.program and other.negate == look.negate and other.decide() is None:
                    assert other.search is not None and look.search is not None  # (a program that reads more)
                    if threads is None:
                        threads = [(pc, cs) for pc, _, cs in look.search.entries]
                    if other.search.position == look.search.position and threads == [
                        (pc, cs) for pc, _, cs in other.search.entries
                    ]:
                        return other
        return look

    def _kept(self, look: Lookahead) -> Lookahead:
        """``look``, kept to be met again at its position (another thread reaching the same lookahead there)."""
        at = look.position
        if len(self._looks) > 64:  # threads only move forward: a lookahead before ``at - 1`` is not met again,
            # but one a thread holds may be held by the search's name (``Memo.name``), to be made again from it
            self._looks = {k: v for k, v in self._looks.items() if k[1] >= at - 1 or v in self.pending}
        self._looks[(id(look.program), at, look.negate)] = look
        return look

    @staticmethod
    def _open(condition: Condition) -> bool | Condition:
        """What ``condition`` says now: its verdict, or itself while the text does not decide it (``_add`` makes
        it pending once a thread holds it)."""
        verdict = condition.decide()
        return condition if verdict is None else verdict
