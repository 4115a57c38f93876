"""Whether a whitespace character after a text changes what a pattern finds in it (stream/trailing.py), against
Python's re: every pattern ``blind`` says yes to finds the same groups on random texts and on each with a space,
a tab, a newline or a carriage return after it; the library's patterns it must read are among them."""

from __future__ import annotations

import random
import re

import pytest

from response_schema.stream.trailing import WHITESPACE, blind

ATOMS = ["a", "b", " ", "\\s", "\\S", ".", "[ab]", "[^a]", "\\n", "\\w", "\\d", "<", ">", ";", "x"]
ENDINGS = [
    "(?:x|$)",
    "$",
    "(?:;\\s*(?=a)|<>\\s*|$)",
    "(?:(?=<)|\\Z)",
    "(?:x\\s|$)",
    "(?: |$)",
    "(?:(?=\\n)|$)",
    "(?:\\s\\S|$)",
    "(?:a\\s*b|\\Z)",
    "(?:a*|x)",
    "(?:b)",
    "(?:(?=\\s*<)|;\\s*)",
]
TAILS = [
    "(?:\\s*,\\s*|\\s*$)",
    "(?:;|\\s*\\Z)",
    "(?:\\s*$|x\\s*)",
    "(?:a|$)",
    "\\s*",
    "(?:\\s*$|\\s)",
    "(?:,|\\s*$|)",
]
ALPHABET = "ab <>;x\n\t1,"


def piece(rng: random.Random, depth: int) -> str:
    roll = rng.random()
    if depth > 2 or roll < 0.35:
        return rng.choice(ATOMS)
    if roll < 0.5:
        return f"(?:{piece(rng, depth + 1)}|{piece(rng, depth + 1)})"
    if roll < 0.62:
        return piece(rng, depth + 1) + rng.choice(["*", "+", "?", "*?", "+?", "??", "{2}"])
    if roll < 0.66:
        return f"(?={sequence(rng, depth + 1)})"
    if roll < 0.7:
        body = rng.choice(["\\s*$", "\\s*\\Z", sequence(rng, depth + 1)]) + rng.choice(["", "|\\s*$", "|\\s*,"])
        return rng.choice(["(?!", "(?="]) + body + ")"
    if roll < 0.75:
        return rng.choice(["^", "$", "\\Z", "\\b"])
    if roll < 0.85:
        return f"({sequence(rng, depth + 1)})"
    return sequence(rng, depth + 1)


def sequence(rng: random.Random, depth: int) -> str:
    return "".join(piece(rng, depth) for _ in range(rng.randint(1, 3)))


def random_pattern(rng: random.Random) -> str:
    """Mostly the forms ``blind`` reads (a lazy group, whitespace, an alternation with the end), and others."""
    roll = rng.random()
    if roll < 0.5:
        spaces = rng.choice(["\\s*", ""])
        return f"{sequence(rng, 0)}({sequence(rng, 1)}.*?){spaces}{rng.choice(ENDINGS)}"
    if roll < 0.65:
        return f"{sequence(rng, 0)}\\s*({sequence(rng, 1)}.*?)\\s*(?:x|$)"
    if roll < 0.8:
        return f"({sequence(rng, 0)}){rng.choice(TAILS)}"
    return f"({sequence(rng, 0)}){sequence(rng, 0)}"


def found(pattern: re.Pattern[str], text: str, every: bool) -> object:
    if every:
        return [match.groups() for match in pattern.finditer(text)]
    match = pattern.search(text)
    return None if match is None else match.groups()


@pytest.mark.parametrize("seed", range(4))
def test_a_blind_pattern_finds_the_same_groups_with_whitespace_after_the_text(seed: int) -> None:
    rng = random.Random(seed)
    accepted = 0
    for _ in range(1500):
        try:
            pattern = re.compile(random_pattern(rng), re.DOTALL)
        except re.error:
            continue
        for every in (False, True):
            if not blind(pattern, every):
                continue
            accepted += 1
            for _ in range(8):
                text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12)))
                for space in WHITESPACE:
                    assert found(pattern, text, every) == found(pattern, text + space, every), (
                        pattern.pattern,
                        every,
                        text,
                        space,
                    )
    assert accepted > 300  # the forms are met often enough for the check to mean something


@pytest.mark.parametrize(
    ("pattern", "every"),
    [
        ("<\\|tool_call_argument_begin\\|>\\s*(.*?)\\s*$", False),  # Kimi K2's arguments
        ("^\\s*([\\w.\\-]+:\\d+)", False),  # Kimi K2's call id
        ("^\\s*(?:functions\\.)?([\\w.\\-]+?):\\d+", False),  # Kimi K2's name
        ("(\\{.*?)\\s*(?:;\\s*(?=\\{)|<\\|python_tag\\|>\\s*|$)", True),  # Llama 3's calls
        ("(?:```(?:json)?|<x>(?=\\s*\\{)|\\n(?=\\s*\\{))\\s*(.*?)\\s*(?:```|$)", False),  # DeepSeek's arguments
        ("([A-Za-z_][\\w.]*\\([^)]*(?:\\)(?!\\s*,|\\s*$)[^)]*)*\\))(?:\\s*,\\s*|\\s*$)", True),  # Llama 4's calls
    ],
)
def test_the_library_patterns_a_call_reads_are_blind(pattern: str, every: bool) -> None:
    assert blind(re.compile(pattern, re.DOTALL), every)


@pytest.mark.parametrize(
    ("pattern", "every"),
    [
        ("(.*)", False),  # a greedy group takes the space
        ("(.*?)$", False),  # the group ends at the end, after the space
        ("(a\\s)", False),  # the space completes a match
        ("(\\{.*?)\\s*(?:;\\s|$)", False),  # an ending that the space completes
        ("(.*?)\\s*(?:x|$)", True),  # a match of nothing at the end, then once more after the space
        ("(x*)", True),
        ("(?m)(.*?)\\s*$", False),  # MULTILINE: $ before every newline
        ("(a)\\b", False),
        ("a\\s(.*?)\\s*$", False),  # before the group, a space completes the match
        ("(a)(?:,|$)", True),  # ``$`` alone after the group: it holds at the end of the text, not before the space
        ("(a)(?=\\s)", False),  # a lookahead that the space completes
        ("(a)(?!\\s)", False),
        ("(a*)(?:,|\\s*$)", True),  # a group that may be empty: once more after the space
    ],
)
def test_a_pattern_the_space_may_change_is_not_blind(pattern: str, every: bool) -> None:
    assert not blind(re.compile(pattern, re.DOTALL), every)
