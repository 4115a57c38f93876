"""A plan (plans.py) finds what Python's re finds: the same group of the same match, the same matches, the same
substitution, on texts made of the pattern's own markers, pieces of them, whitespace of every kind and other
characters. Every planned pattern of the library, and patterns written to reach each rule of the shapes.
tox -e fuzz-fast runs more texts (PLAN_FUZZ_TEXTS)."""

from __future__ import annotations

import os
import random
import re
from typing import Any

import pytest

import response_schema as rs
from response_schema import plans

TEXTS = int(os.environ.get("PLAN_FUZZ_TEXTS", "600"))  # generated texts per pattern


def library_patterns() -> list[str]:
    found: dict[str, None] = {}

    def visit(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                visit(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key in ("x-regex", "x-regex-iterator", "x-regex-key-value"):
                    found[item] = None
                elif key == "x-regex-substitutions":
                    found.update((pattern, None) for pattern, _ in item)
                else:
                    visit(item)

    for name in rs.schemas.names():
        visit(rs.schemas.load(name))
    return list(found)


# Written to reach the rules: $ before a final newline, openers sharing a prefix, a stop matched and looked at,
# a guard that fails and a later opener whose guard holds, literals a region may not pass, stops that are never
# found, whitespace around everything, a replacement that is not empty, a second marker after the opener (and
# markers that end in whitespace, so that a later head can end inside an earlier one), a group through its stop.
SHAPES = [
    r"<a>(.*?)(?:</a>|$)",
    r"<a>\s*(.*?)\s*(?:</a>|(?=<b>)|$)",
    r"(?:<ab>|<a>)\s*(.*?)\s*(?:</a>|$)",
    r"(?:<a>|<ab>)(.*?)(?:</a>|$)",
    r"<a>(.*?)(?:</a>|(?=</a>)|$)",
    r"<a>(.*?)(?=</a>|<b>|$)",
    r"<a>(.*?)</a>",
    r"<a>\s*(.*?)\s*</a>",
    r"<a>(?=\s*[^\s<])(.*?)\s*(?:</a>|$)",
    r"<a>(?!\s*x)\s*(.*?)\s*(?:</a>|$)",
    r"<a>(?=[\w]+\{)((?:(?!<a>).)*?)</a>",
    r"<a>(?=\s*[^\s<])((?:(?!<a>|<b>).)*?)\s*</a>",
    r"<a>((?:(?!<b>).)*?)\s*(?:</a>|$)",
    r"<a>((?:(?!</a>|<b>).)*?)(?:</a>|$)",
    r"aa((?:(?!a).)*?)c",
    r"^<a>(.*?)(?:</a>|$)",
    r"^\s*<a>\s*(.*?)\s*(?:</a>|(?=<b>|<a>)|$)",
    r"^\s*(?:<a>|<ab>)\s*(.*?)\s*(?:(?:</a>|</b>)|(?=<b>)|$)",
    r"^\s*<a>((?:(?!<b>).)*?)(?:</a>|$)",
    r"^\s*<a>.*?(?:</a>|$)",
    r"<a>.*?(?:</a>|$)",
    r"<a>.*?</a>",
    r"^(?:^\s*<a>.*?(?:</a>|(?=<b>)|$))?(.*)$",
    r"^(?:<a>.*?</a>)?(.*)$",
    r"^(?:\s*<a>(?=x).*?(?:</a>|$))?(.*)$",
    r"^\s*((?:(?!<a>|</a>|<b>).)*?)\s*$",
    r"^\s*((?:(?!<a>).)*?)\s*$",
    r"<a>",
    r"\[A\]\s*(.*?)\s*(?:\[/A\]|$)",
    r"<a>\s*<b>(?=[^\s>])((?:(?!<a>).)*?</b>)",
    r"<a>\s*<b>\s*(.*?)\s*(?:</b>|$)",
    r"<a>(?=x)\s*<b>(?!y)(.*?)</b>",
    r"x \s*x (.*?)x",
    r"a\s*a \s*(.*?)b",
    r"<a>((?:(?!<b>).)*?\s*</a>)",
    r"<a>(.*?(?:</a>|(?=<b>)|$))",
    # the open shape: any head without groups, then (Q.*?) or .*?, stops with $ among them; heads that may match
    # empty text (re then decides the texts where a match is empty), a head re must backtrack in, a class
    r"(?:`(?:j)?|<s>(?=\s*\{)|\n(?=\s*\{))\s*(.*?)\s*(?:`|$)",
    r"f(\[.*?)\s*(?:<e>|$)",
    r"^(?:\s*(?=\{\s*\"(?:n|t)\"\s*:)|(?:(?!<p>).)*<p>\s*)(.*?)\s*(?:<e>|<f>|$)",
    r"^(?:(?!<t>).)*?<h>\s*(.*?)\s*(?:</h>|(?=<e>|<h>)|$)",
    r"(?:^\s*(?=\{\s*\"(?:n|t)\"\s*:)|<p>\s*)(.*?)\s*(?:<e>|<f>|$)",  # Llama 3's calls, led by their marker
    r"(?:(?!<t>).)*?<h>(.*?)(?:</h>|$)",  # a head that needs <h>, searched from each position
    r".<h>(.*?)(?:</h>|$)",
    r"(?:<s>a)?(?:\s*t=[^<]*<c>[^<]*|<c>[^<]*t=[^<]*)<m>.*?(?:<e>|$)",
    r"((?:t=\w+\s*<c>\w+|<c>\w+ t=\w+)[^<]*<m>.*?)(?:<e>|<f>|$)",
    r"(?:a|)(.*?)(?:b|$)",
    r"x?.*?$",
    r"[ab]*(.*?)\s*$",
    r"^\s*(.*?)\s*$",
    # the marked shape: a lazy body and stops with $ that end every alternative around them, alone or in a rest
    r"^\s*(?:<a>.*?(?:</a>|(?=<b>)|$)|</a>)",
    r"(?:x|<a>.*?\s*(?:</a>|$))",
    r"(?:<a>(?:<b>.*?$)?|<c>)",
    r"<a>.*?(?:</a>|$)|<b>",
    r"[^<]*<a>.*?\s*(?:</a>|(?=<b>)|$)",
    r"(?:y|)(?:<a>.*?(?:</a>|$)|z)",
    r"^(?:^\s*(?:<a>.*?(?:</a>|(?=<b>)|$)|</a>))?(.*)$",
    r"^(?:(?:(?!<t>).)*?<a>.*?(?:</a>|(?=<b>)|$))?(.*)$",
    r"^(?:x?(?:<a>.*?\s*$|<b>))?(.*)$",
    # with groups that close before the body: a replacement may insert them (Mistral's thinking removed, \1 kept)
    r"^((?:(?!<t>).)*?)<a>.*?(?:</a>|(?=<b>|<a>)|$)",
    r"(x)(?:<a>.*?(?:</a>|$))",
    r"(?:(<a>)|<b>\s*)(y)?.*?\s*(?:</a>|$)",
    r"(?P<n>\w+)=.*?(?:;|$)",
    # stops without $: where none comes after the body, re decides; a newline before the stops
    r"\n<a>(.*?)</a>",
    r" <a>(.*?)</a>",
    r"<a>?(.*?)</a>",
    r"<a>(?<=a)(.*?)</a>",
    r"(?:<a>|<b>)(.*?)</a>",
    r"(?:<a>\s*|<b>)(.*?)</a>",
    r"<a>.(.*?)</a>",
    r"<a>[^<]*(.*?)</a>",
    r"^\s*(?:<a>.*?(?:</a>|(?=<b>))|</a>)",
    r"^(?:^\s*(?:<a>.*?</a>|</b>))?(.*)$",
    r"[^<]*<a>\n?(.*?)\n?(?:</a>|(?=<b>))",
    r"<a>(.*?)\n?</a>",
    # the key-value shape: the open shape with the body (?P<value>.*?) and the head's group (?P<key>...)
    r"<p=(?P<key>[^>\n]+)>\n?(?P<value>.*?)\n?(?:</p>|(?=<p=|</f>))",
    r"<k>(?P<key>.*?)</k>\s*<v>(?P<value>.*?)(?:</v>|(?=<k>)|$)",
    r"(?:<k>(?P<key>\w+))?=(?P<value>.*?)(?:;|$)",
    r"x|<k>(?P<key>\w*)(?P<value>.*?)\s*</k>",
    # stops that go on after their literal, run by re
    r"(\{.*?)\s*(?:;\s*(?=\{)|<p>\s*|$)",
    r"<a>(.*?)(?:;\s*(?=<)|</a>)",
    r"^\s*(?:<a>.*?(?:;\s*(?=x)|</a>\s*|$)|<b>)",
    r"<k>(?P<key>\w*)>(?P<value>.*?)\n?(?:</k>\s*|(?=<k>))",
    r"<a>(.*?)(?:</a>|x$)",
    # led by literals: heads (and whole patterns) that start with an optional literal, whitespace, or literals that
    # start with a letter, nested in groups; a group that takes no part; whitespace before a literal that fails
    r"(?:<s>a)?<c>(?:f|g)[^<]*<m>",
    r"(?:<s>a)?<c>(x)?[^<]*<m>",
    r"\s*t=(\w*)<m>",
    r"(?:(?:<s>)?<a>|\s*b=|(c=\s*))[^<]*<m>",
    r"(?:ab|cd)[^<]*<m>",
    r"(?:<s>a)?(?:\s*t=[^<]*<c>|<c>[^<]*t=)<m>.*?(?:<e>|$)",
    r"(?:<p>\s*\[?|^\s*\[(?=[^<]*\]))\s*(.*?)\s*\]?\s*(?:</p>|<e>|$)",
    r"(?:^x|<a>|^<b>)[^<]*<m>",
    # an optional character in the whitespace before the stops (Llama 4's \s*\]?\s*), with and without $
    r"<a>\s*(.*?)\s*\]?\s*(?:</a>|(?=<b>)|$)",
    r"<a>(.*?)\s*b?\s*</a>",
]

NO_PLAN = [
    r"(?P<key><a>)(.*?)</a>",  # named groups
    r"(?i)<a>(.*?)</a>",  # inline flags
    r"<a>([^<]*?)</a>",  # a class outside a lookahead
    r"<a>(.*?)\1",  # a backreference
    r"<a>(.+?)</a>",  # another quantifier
    r"<a>(?=(x))(.*?)</a>",  # a group inside a guard
    r"<a>.*",  # runs as fast with re
    r"(x)(?=\1)",  # a guard that does not compile alone
    r"<a>(?:(?![^x]).)*?</a>",  # a tempered body held by a class
    r"^",  # no opener
    r"^(?:<a>)(.*)$",  # a head that is not optional
    r"^\s*(?:a)\s*$",  # a whole that is not captured
    r"^\s*((?:(?!a)x)*?)\s*$",  # a tempered step that is no dot
    r"<a>(.*?)(</a>)",  # a stop captured
    r"<a>(?:(?!b)x)*?</a>",  # a tempered body whose step is no dot
    r"<a>(.*?)</a>.",  # more after the stop
    r"^(?:<a>(.*?)</b>)?(.*)$",  # an optional head that captures: group 1 is not the rest
    r"<a>[^<]*((?:(?!<b>).)*?)(?:</a>|$)",  # an open head before a tempered body
    r"(x)[^<]*(.*?)(?:</a>|$)",  # an open head with a group
    r"[^<]*(.*?(?:</a>|$))",  # an open head, the group through its stop
    r"[^<]*(x.*?y)(?:</a>|$)",  # more in the group after the lazy body
    r"<a>|[^<]*(.*?)$",  # an alternation of the whole
    r"(?:<a>.*?(?:</a>|$))*",  # a marked body in a repeated group
    r"(?:<a>.*?(?:</a>|$))??",  # in a group tried empty first
    r"(?:<a>.*?(?:</a>|$))x",  # with more after it
    r"(?=<a>.*?$)<b>",  # in a lookahead
    r"<a>.*?(?:</a>|$)|(<c>)",  # with a group after the body
    r"(<a>.*?(?:</a>|$))",  # with a group around it
    r"^(?:<a>.*?(?:</a>|$))?(.*)x$",  # a rest that is not the rest
    r"<a>(.*?)\n?(?:</a>|$)",  # a newline before $
    r"<a>(.*?)\n?\s*</a>",  # a newline and whitespace
    r"<k>(?P<value>.*?)(?P<key>\w)(?:</k>|$)",  # a key after the value
    r"<k>(?P<key>\w)(?:(?P<value>.*?))(?:</k>|$)",  # a value inside a group
    r"<a>(.*?)(?: x|$)",  # a stop that starts with whitespace
    r"<a>(.*?)(?:[xy]z|$)",  # a stop that starts with no literal
    r"<a>(.*?)(?:x|)",  # an empty stop
    r"<a>(.*?)(?:x?y|$)",  # a stop whose first character may be left out
    r"(?:<a>|<b>)[^<]*<m>",  # literals re skips to as fast
    r"(?:<a>)??<b>[^<]*<m>",  # an optional literal tried empty first
    r"(?:<a>|)[^<]*<m>",  # an empty alternative
    r"(?:^x|^y)[^<]*<m>",  # no literal but at the start: re tries the start only
    r"<a>(.*?)\s*\]??\s*(?:</a>|$)",  # an optional character tried empty first
    r"<a>(.*?)\s*\]?(?:</a>|$)",  # without whitespace after it
    r"<a>(.*?)\s*<?\s*(?:</a>|$)",  # that a stop starts with
    r"<a>(.*?)\s*;?\s*(?:;\s*(?=\{)|$)",  # before stops that re finds
]

SPACES = [" ", "\n", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2028", "\u3000", " \n", "\n\n"]
OTHERS = ["x", "y", "{", "é", "ab", "\U0001f600"]


@pytest.fixture(autouse=True)
def led_on_short_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A head led by literals (plans._led) leaves texts under plans._SHORT characters to re: here it leads on all."""
    monkeypatch.setattr(plans, "_SHORT", 0)


def pieces(pattern: str) -> list[str]:
    """The pattern's markers, their halves, whitespace and other text: what generated texts are made of."""
    literals = re.findall(r"(?:\\.|[^\\()|?*.$^\[\]+{}])+", pattern)
    found = set()
    for literal in (re.sub(r"\\(.)", r"\1", literal) for literal in literals):
        found |= {literal, literal[: len(literal) // 2], literal[len(literal) // 2 :]}
    found.discard("")
    return sorted(found) + SPACES + OTHERS


def texts(pattern: str, seed: int) -> list[str]:
    generator = random.Random(f"{seed}:{pattern}")
    parts = pieces(pattern)
    return ["".join(generator.choice(parts) for _ in range(generator.randint(0, 10))) for _ in range(TEXTS)]


def templates(pattern: re.Pattern[str]) -> list[str]:
    """Replacements to compare: literal ones, and each group inserted, by number and by name, beside the whole match."""
    groups = [rf"[\{number}|\g<{number}>]" for number in range(1, pattern.groups + 1)]
    return ["", "<R>", r"<\n>", *groups, *(rf"\g<{name}>" for name in pattern.groupindex), r"\g<0>"]


def check(source: str, seed: int) -> int:
    """Compare the plan of ``source`` with re on generated texts; how many ways of use were compared."""
    pattern = re.compile(source, re.DOTALL)
    plan = plans.plan(pattern)
    assert plan is not None, source
    substitutions = [(template, plans.substitution(pattern, template)) for template in templates(pattern)]
    substitutions = [(template, substitution) for template, substitution in substitutions if substitution is not None]
    ways = 0
    for text in texts(source, seed):
        if plan.search is not None:
            match = pattern.search(text)
            assert plan.search(text) == (plans.NO_MATCH if match is None else match.group(1)), (source, text)
        if plan.finditer is not None:
            assert plan.finditer(text) == [match.group(1) for match in pattern.finditer(text)], (source, text)
        for template, substitution in substitutions:
            assert substitution(text) == pattern.sub(template, text), (source, template, text)
        if plan.pairs is not None:
            found = [(match["key"], match["value"], match[0]) for match in pattern.finditer(text)]
            assert plan.pairs(text) == found, (source, text)
    ways += (plan.search is not None) + (plan.finditer is not None) + (plan.replace is not None)
    ways += plan.pairs is not None
    return ways


def test_the_library_has_planned_patterns_of_every_shape() -> None:
    planned = [source for source in library_patterns() if plans.plan(re.compile(source, re.DOTALL))]
    assert len(planned) >= 50
    kinds = {
        (plan.search is not None, plan.finditer is not None, plan.replace is not None)
        for plan in (plans.plan(re.compile(source, re.DOTALL)) for source in planned)
    }
    assert {(True, True, True), (True, False, False), (False, False, True)} <= kinds


@pytest.mark.parametrize("seed", range(2))
def test_every_planned_library_pattern_finds_what_re_finds(seed: int) -> None:
    compared = 0
    for source in library_patterns():
        if plans.plan(re.compile(source, re.DOTALL)) is not None:
            compared += check(source, seed)
    assert compared >= 60


@pytest.mark.parametrize("source", SHAPES)
def test_each_rule_of_the_shapes_finds_what_re_finds(source: str) -> None:
    for seed in range(3):
        assert check(source, seed) >= 1


@pytest.mark.parametrize("source", NO_PLAN)
def test_other_patterns_have_no_plan(source: str) -> None:
    assert plans.plan(re.compile(source, re.DOTALL)) is None


def test_a_substitution_inserting_a_group_has_no_plan() -> None:
    pattern = re.compile(r"<a>(.*?)(?:</a>|$)", re.DOTALL)
    assert plans.substitution(pattern, r"[\1]") is None
    assert plans.substitution(pattern, "[]") is not None


def test_a_substitution_inserts_the_groups_of_a_head_and_never_the_whole_match() -> None:
    pattern = re.compile(r"^((?:(?!<t>).)*?)<a>.*?(?:</a>|$)", re.DOTALL)
    inserted = plans.substitution(pattern, r"\1")
    assert inserted is not None and inserted("x <a> long thought </a> y") == "x  y"
    assert plans.substitution(pattern, r"[\g<0>]") is None
    assert plans.substitution(re.compile("<a>", re.DOTALL), r"[\g<0>]") is None
    assert plans.substitution(re.compile("<a>", re.DOTALL), r"\n") is not None


def test_a_long_region_is_read_in_linear_time() -> None:
    """The point of a plan: a region of a million characters is found with a few searches, not a step a
    character with a look at every marker (re takes about a second here, the plan milliseconds)."""
    pattern = re.compile(r"^\s*((?:(?!<a>|<b>|<c>|<d>).)*?)\s*$", re.DOTALL)
    plan = plans.plan(pattern)
    assert plan is not None and plan.search is not None
    text = " thinking about it " * 60_000
    assert plan.search(text) == text.strip()


def test_a_head_led_by_literals_finds_what_re_finds_in_long_texts() -> None:
    """gpt-oss's call-removing substitution, whose head re tries at every position, on outputs of a few KB: the
    prose before a call, to= in the prose, whitespace before a call, and a channel without one."""
    schema = rs.schemas.load("gpt-oss")
    source = schema["properties"]["content"]["x-regex-substitutions"][0][0]
    pattern = re.compile(source, re.DOTALL)
    substitution = plans.substitution(pattern, "")
    assert substitution is not None
    prose = "Let me think about whether to=go to the store. " * 20
    calls = [
        '<|start|>assistant to=functions.get<|channel|>commentary json<|message|>{"a": 1}<|call|>',
        " \n to=functions.get <|channel|>commentary<|message|>{}<|call|>",
        "<|channel|>final<|message|>done<|end|>",
        "<|channel|>commentary to=functions.x<|message|>{}",
    ]
    generator = random.Random(5)
    for _ in range(200):
        text = "".join(generator.choice([prose, prose[:37], *calls, "  "]) for _ in range(generator.randint(1, 12)))
        assert substitution(text) == pattern.sub("", text), text


def test_a_led_pattern_leaves_short_texts_to_re(monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts shorter than plans._SHORT go to re whole (its own scan costs less there): the same results."""
    monkeypatch.setattr(plans, "_SHORT", 10_000)
    source = r"(?:<s>a)?<c>(x)?[^<]*<m>"
    pattern = re.compile(source, re.DOTALL)
    plan = plans.plan(pattern)
    substitution = plans.substitution(pattern, r"[\1]")
    assert plan is not None and plan.search is not None and plan.finditer is not None and substitution is not None
    for text in texts(source, 0):
        match = pattern.search(text)
        assert plan.search(text) == (plans.NO_MATCH if match is None else match.group(1))
        assert plan.finditer(text) == [each.group(1) for each in pattern.finditer(text)]
        assert substitution(text) == pattern.sub(r"[\1]", text)
