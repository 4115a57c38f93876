"""The incremental Pike VM (stream/pike.py) against Python's re: on random patterns and texts cut at every
point, the match the complete text gives is always one the search listed as possible ([STREAM-3] rests on it),
and the search ends where re.search does."""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from response_schema.stream.pike import TAIL, Buffer, Memo, Program, Search, compile_program

ATOMS = ["a", "b", "<", ">", " ", "\\s", "\\d", "\\w", "[^<]", "[a-c]", ".", "\\n", "(?:ab|a)", "x"]
ALPHABET = "ab< >1x\n_é"
LOOKS = ["<", "ab", "a|<b", "\\s*<", "a<b|b", "<|$", "a|\\s*<|\\Z", "[<a]", "\\s"]  # (the last two: one character)


def random_pattern(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.45 or depth > 2:
            part = rng.choice(ATOMS)
        elif roll < 0.6:
            part = f"({random_pattern(rng, depth + 1)})"
        elif roll < 0.7:
            part = f"(?:{random_pattern(rng, depth + 1)}|{random_pattern(rng, depth + 1)})"
        elif roll < 0.8:
            part = "(?" + rng.choice("=!") + rng.choice(LOOKS) + ")"
        else:
            part = rng.choice(["^", "$", "\\Z", "\\A", "\\b", "\\B"])
        if part[-1] not in "^$ZAbB)" or (part.endswith(")") and not part.startswith("(?=")):
            part += rng.choice(["", "", "*", "+", "?", "*?", "+?", "??", "{1,2}", "{2}"])
        parts.append(part)
    return "".join(parts)


def random_programs(rng: random.Random, tries: int) -> Iterator[tuple[str, re.Pattern[str], Program]]:
    """Of ``tries`` random patterns (with random flags), those Python compiles and the VM models."""
    for _ in range(tries):
        source = random_pattern(rng)
        flags = re.DOTALL | rng.choice([0, 0, re.MULTILINE, re.ASCII])
        try:
            pattern = re.compile(source, flags)
        except re.error:
            continue
        program = compile_program(pattern)
        if program is not None:
            yield source, pattern, program


def spans(match: re.Match[str] | None, groups: int) -> Any:
    if match is None:
        return None
    return tuple(bound for index in range(groups + 1) for bound in match.span(index))


def registers(regs: tuple[Any, ...]) -> tuple[int, ...]:
    return tuple(-1 if bound is None else bound for bound in regs)


def consistent(final: tuple[int, ...], entry: Any) -> bool:
    """Whether the final match can be where this entry leads: a found match is it, a thread has its start and
    the groups it closed for good."""
    pc, regs, _ = entry
    if pc < 0:
        return registers(regs) == final
    return regs[0] == final[0]


@pytest.mark.parametrize("seed", range(6))
def test_the_final_match_is_always_among_the_candidates(seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for source, pattern, program in random_programs(rng, 250):
        for _ in range(6):
            text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 10)))
            final = spans(pattern.search(text), pattern.groups)
            buffer = Buffer()
            search = Search(program, buffer, 0, 0)
            for char in ["", *text]:
                buffer.grow(char)
                search.advance()
                entries, more = search.candidates()
                if final is None:
                    assert more or not entries, (source, text, buffer.length)
                else:
                    assert more or any(consistent(final, entry) for entry in entries), (source, text, buffer.length)
            ends = [entry for entry in search.entries if entry[0] < 0 and all(c.holds_at_end() for c in entry[2])]
            lost = all(
                c.holds_at_end() or c.decide() is None for entry in search.entries for c in entry[2]
            )  # a lookahead the VM cannot settle at the end is left to the one-shot parse
            if ends and lost:
                assert registers(ends[0][1]) == final, (source, text)
            checked += 1
    assert checked > 300


def test_what_the_vm_does_not_model_is_opaque() -> None:
    sources = [r"(a)\1", r"(?<=a)b", r"(?i)a", r"(a*)*", r"(a)?(?(1)a|b)", r"(?=(a))"]
    if sys.version_info >= (3, 11):
        sources += [r"(?>a)", r"a++"]  # atomic groups and possessive repeats are Python 3.11's
    for source in sources:
        assert compile_program(re.compile(source, re.DOTALL)) is None, source
    assert compile_program(re.compile("a{5000}", re.DOTALL)) is None


def test_a_lookahead_with_a_pattern_inside_is_decided_as_text_arrives() -> None:
    pattern = re.compile(r"(a+?)(?=\d+x)", re.DOTALL)
    program = compile_program(pattern)
    assert program is not None
    buffer = Buffer()
    search = Search(program, buffer, 0, 0)
    for chunk in ["aa", "1", "2", "x"]:
        buffer.grow(chunk)
        search.advance()
    assert search.matched and registers(search.entries[0][1]) == spans(pattern.search("aa12x"), 1)


def test_a_buffer_reads_as_its_whole_text_across_its_head_and_tail() -> None:
    rng = random.Random(5)
    whole, buffer = "pre", Buffer("pre")
    while len(whole) < 3 * TAIL:
        chunk = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 900)))
        buffer.grow(chunk)
        whole += chunk
        assert buffer.length == len(whole)
        for _ in range(5):
            start = rng.randint(0, len(whole))
            end = rng.randint(start, len(whole) + 3)
            assert buffer.slice(start, end) == whole[start:end]
        index = rng.randrange(len(whole))
        assert buffer.char(index) == whole[index] and buffer.slice(index) == whole[index:]
    assert buffer.text == whole and buffer.slice(0) == whole


def described(search: Search) -> list[Any]:
    """A search's entries with each condition as what it is and where (objects differ between two searches)."""
    return [
        (pc, regs, sorted((type(c).__name__, c.position, getattr(c, "negate", None)) for c in conds))
        for pc, regs, conds in search.entries
    ]


@pytest.mark.parametrize(("seed", "limit"), [(0, Memo.LIMIT), (1, Memo.LIMIT), (2, 30), (3, 30)])
def test_the_steps_a_memo_takes_are_the_steps_the_vm_takes(seed: int, limit: int, monkeypatch: Any) -> None:
    """``Memo`` (a lazy DFA over the VM's entries) gives the entries the VM itself gives, after every feed of every
    chunking, including the conditions left open at the end of a feed, whether the entries were read after the feed
    before or not (``Search.entries`` made from the name when read); the memo of a program is shared by its
    searches, which start at different offsets, so later texts run mostly on learned steps. A small limit makes it
    start again often."""
    monkeypatch.setattr(Memo, "LIMIT", limit)
    rng = random.Random(100 + seed)
    learned = 0
    for source, _, program in random_programs(rng, 150):
        for _ in range(8):
            text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 30)))
            anchored = rng.random() < 0.3
            buffer = Buffer("".join(rng.choice(ALPHABET) for _ in range(rng.choice([0, 0, 1, 5]))))
            base = rng.randint(0, buffer.length)  # a name holds no position: searches at any offset share steps
            memo = Search(program, buffer, base, buffer.length, anchored=anchored)
            plain = Search(program, buffer, base, buffer.length, anchored=anchored, memoize=False)
            at = 0
            while at < len(text):
                size = rng.choice([1, 2, 3, 4, 7, 30])
                buffer.grow(text[at : at + size])
                at += size
                memo.advance()
                plain.advance()
                assert memo.idle == plain.idle and memo.matched == plain.matched  # (read from a name, when it has one)
                assert memo.quiet() == plain.quiet()
                if rng.random() < 0.4:  # unread, the entries of a name are made only if the next feed needs them
                    continue
                assert described(memo) == described(plain), (source, text, buffer.length)
                for _ in range(2):  # the second time from what the memo keeps
                    (chosen, more), (expected, expected_more) = memo.candidates(), plain.candidates()
                    assert (len(chosen), more) == (len(expected), expected_more), (source, text, buffer.length)
        learned += sum(len(m.steps) for m in program.memos)
    assert learned > (1000 if limit > 100 else 100)


def test_a_memo_name_holds_no_position() -> None:
    """Registers older than the position before the one read are named by their place among the name's values, not
    by the position they hold: the same text at another offset (the next of many calls) takes the steps the first
    one learned, and gets the entries the VM gets."""
    pattern = re.compile(r"<args>\s*(.*?)\s*$", re.DOTALL)
    program = compile_program(pattern)
    assert program is not None
    buffer = Buffer("Checking.")
    learned = []
    for index in range(12):
        start = buffer.length
        memo = Search(program, buffer, start, start)
        plain = Search(program, buffer, start, start, memoize=False)
        text = f'<call>get_weather:{index % 10}<args>{{"city": "Paris {index % 10}", "days": [1, 2]}} '
        before = sum(len(m.steps) for m in program.memos)
        for at in range(0, len(text), 4):
            buffer.grow(text[at : at + 4])
            memo.advance()
            plain.advance()
            assert described(memo) == described(plain), (index, buffer.length)
        learned.append(sum(len(m.steps) for m in program.memos) - before)
    assert learned[0] > 20 and sum(learned[1:]) <= 5, learned


@pytest.mark.parametrize(
    ("source", "feeds"),
    [
        (r"x(?=a<b)", [["x", "a<b"]] * 2 + [["x", "a<c"]]),  # a lookahead the next character cannot decide
        (r"a$", [["a", "\n"]] * 2 + [["a", "\n", "\n"]]),  # a `$` still open after the first character of a feed
        (r"a\Z|ab", [["a", "b"]] * 2 + [["a", "c"]]),
        # a lookahead held open over spaces, then decided by "!", a character of a space's kind to the pattern
        (r"a(?=\s*<)(.*?)b", [["a", " ", " ", " ", " "], ["a", " ", " ", " ", "!"], ["a", " ", " ", " ", " !"]]),
    ],
)
def test_a_memo_does_not_keep_a_step_that_read_further(source: str, feeds: list[list[str]]) -> None:
    """The first step of a feed decides the conditions the last one left open; when that takes more than the next
    character, or leaves one open, the step is not kept, so a later search with the same start is not misled. (The
    first search learns the steps from the start, the second the first step of its second feed.) A lookahead made
    before the position read and still open is held by the name, and the steps from it were learned while it
    stayed open: what arrived decides it before the feed's first step (``Search._held_decided``), else a step of
    the same kinds would keep a thread the VM drops."""
    pattern = re.compile(source, re.DOTALL)
    program = compile_program(pattern)
    assert program is not None
    for chunks in feeds:
        buffer = Buffer()
        memo = Search(program, buffer, 0, 0)
        plain = Search(program, buffer, 0, 0, memoize=False)
        for chunk in chunks:
            buffer.grow(chunk)
            memo.advance()
            plain.advance()
            assert described(memo) == described(plain), (source, chunks, buffer.length)
            assert memo.candidates()[1] == plain.candidates()[1]


def test_a_long_search_keeps_few_lookaheads() -> None:
    """The lookaheads a search keeps to meet again are those near where it reads, whether its steps ran or came
    from the memo: its memory does not grow with the text (4-character feeds, the memo warm after the first)."""
    pattern = re.compile(r"^\s*((?:(?!<tool_call>|</think>).)*?)\s*$", re.DOTALL)
    program = compile_program(pattern)
    assert program is not None
    for _ in range(2):
        buffer = Buffer()
        search = Search(program, buffer, 0, 0)
        text = "Checking the forecast for the coast, then the hills. " * 100
        for at in range(0, len(text), 4):
            buffer.grow(text[at : at + 4])
            search.advance()
            assert len(search._looks) <= 70 and len(search.pending) <= 8, at


def test_a_lookahead_of_markers_or_the_end_is_decided_by_the_next_character(monkeypatch: Any) -> None:
    """``(?=A|B|$)`` runs as ``(?:(?=A|B)|$)``: where neither marker starts and no newline stands, the next
    character decides it, so a lazy loop that stops there takes its steps from the memo (a second stream of the
    pattern runs the VM a few times, not once per character)."""
    pattern = re.compile(r"\[CALLS\](.*?)(?=\[CALLS\]|</s>|$)", re.DOTALL)
    program = compile_program(pattern)
    assert program is not None
    steps = []
    step = Search._step
    monkeypatch.setattr(Search, "_step", lambda self, char, index: steps.append(index) or step(self, char, index))
    text = "[CALLS]" + "Checking the forecast for the coast, then the hills. " * 40
    for _ in range(2):
        steps.clear()
        buffer = Buffer()
        search = Search(program, buffer, 0, 0)
        for at in range(0, len(text), 4):
            buffer.grow(text[at : at + 4])
            search.advance()
    assert len(steps) < 30, len(steps)
    assert re.search(pattern, text) is not None and search.candidates()[0]


@pytest.mark.parametrize(
    "source",
    [
        r"a((?:(?=\s*<)\s)*?)<",  # a lookahead on each turn of a loop, open while the loop goes on
        r"a((?:(?=\s*<|\s*>)\s)*?)<",  # two of them (``_split_lookahead``), the threads holding either
        r"a(.*?)(?=\s*<)",  # a match at each position of a lazy loop, each under a lookahead still open
        r"a(.*?)(?!\s*>)b",
    ],
)
def test_a_lookahead_open_over_a_run_of_text_is_held_once(source: str) -> None:
    """A lookahead met at each position of a run of text that keeps it open (spaces before ``\\s*<``) decides as
    the one met first does: a thread holds that one (``Search._alike``), and a match found later under it is never
    the one found (``Search._step``). So what a search holds stays bounded over any run of text, whichever way its
    steps ran, and it still ends where re.search does (before, each thread held one lookahead per space read: a
    step cost what the run had read, and a stream of such a pattern was quadratic)."""
    pattern = re.compile(source, re.DOTALL)
    program = compile_program(pattern)
    assert program is not None
    for size in (1, 4):
        for end in ("<", ">", "b", ""):
            buffer = Buffer()
            memo = Search(program, buffer, 0, 0)
            plain = Search(program, buffer, 0, 0, memoize=False)
            text = "xa" + " " * 300 + end
            for at in range(0, len(text), size):
                buffer.grow(text[at : at + size])
                memo.advance()
                plain.advance()
                assert described(memo) == described(plain), (source, size, buffer.length)
                for search in (memo, plain):
                    held = {condition for _, _, conds in search.entries for condition in conds}
                    assert len(search.entries) <= 8 and len(held) <= 4 and len(search.pending) <= 8, buffer.length
            found = [entry for entry in plain.entries if entry[0] < 0 and all(c.holds_at_end() for c in entry[2])]
            expected = spans(pattern.search(text), pattern.groups)
            assert (registers(found[0][1]) if found else None) == expected, (source, size, end)


def test_a_step_a_literal_lookahead_reads_past_is_kept_by_the_text_it_read(monkeypatch: Any) -> None:
    """At a ``<`` in HTML, the lookahead of a tempered dot (``(?!<tool_call>|</think>)``) reads past the next
    character, so the step is not the kinds' (``Memo.steps``); it is kept by the characters it read
    (``Memo.far``), which repeat: a second stream over the same kind of text takes the VM's own step at no ``<``,
    and every feed gives the entries the VM gives. So do the other patterns with a literal lookahead or ``$``."""
    sources = [
        r"^\s*((?:(?!<tool_call>|</think>|<\|im_end\|>).)*?)\s*$",
        r"<tool_call>\s*(.*?)\s*(?:</tool_call>|(?=<\|im_end\|>)|$)",
        r"^(.*?)\s*$",
    ]
    text = '<div class="card"><p>Hello <b>there</b></p>\n<ul><li>one</li></ul></div> <too <|im <tool_call> {"a": 1}\n'
    vm_steps = 0
    real_step = Search._step

    def counted(search: Search, char: str, index: int) -> None:
        nonlocal vm_steps
        vm_steps += search.memoize
        real_step(search, char, index)

    monkeypatch.setattr(Search, "_step", counted)
    for source in sources:
        program = compile_program(re.compile(source, re.DOTALL))
        assert program is not None
        stepped = []
        for size in (4, 4, 3, 1):
            vm_steps = 0
            buffer = Buffer()
            memo = Search(program, buffer, 0, 0)
            plain = Search(program, buffer, 0, 0, memoize=False)
            for at in range(0, len(text) * 3, size):
                buffer.grow((text * 3)[at : at + size])
                memo.advance()
                plain.advance()
                assert described(memo) == described(plain), (source, size, buffer.length)
            stepped.append(vm_steps)
        assert any(program.memos[anchored].far for anchored in (False, True)), source
        assert stepped[1] <= 3, (source, stepped)  # (a feed's end may cut what a lookahead reads: a new text)
