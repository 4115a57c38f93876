"""The fast path (fast.py) computes what the walk computes: the same value (types and key order included) or the
same error (category, path and message), on every corpus test and on generated schemas and outputs. tox -e
fuzz-fast runs the generated part for minutes (FAST_FUZZ_PAIRS, FAST_FUZZ_VALUES)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from corpus_cases import compiled_tests
from hypothesis import given, settings
from hypothesis import strategies as st

import response_schema as rs
from response_schema.errors import ParseError
from response_schema.harness.fuzzgen import Generator
from response_schema.walk import Walk

WALK = Walk()
PAIRS = int(os.environ.get("FAST_FUZZ_PAIRS", "3000"))  # generated schemas, six outputs each
VALUES = int(os.environ.get("FAST_FUZZ_VALUES", "40"))  # generated JSON values per transform


def outcome(function: Any, content: Any) -> str:
    """The value's repr (1, 1.0 and True differ, and so do key orders) or the error's category, path and message."""
    try:
        return "value " + repr(function(content))
    except ParseError as exc:
        return f"error {exc.category} {exc.path} {exc.message}"


def assert_same(parser: rs.Parser, content: Any) -> None:
    assert outcome(parser.fast, content) == outcome(lambda content: WALK.node(parser.root, content), content)


def test_every_corpus_test_gives_the_walk_outcome() -> None:
    compared = 0
    for parser, test in compiled_tests():
        assert_same(parser, test.text)
        compared += 1
    assert compared > 800


@pytest.mark.parametrize("seed", range(2))
def test_generated_schemas_and_outputs_give_the_walk_outcome(seed: int) -> None:
    generator = Generator(seed, frozenset(rs.FEATURES))
    compiled = 0
    for _ in range(PAIRS // 2):
        pair = generator.pair()
        try:
            parser = rs.compile(pair.schema)
        except rs.SchemaError:
            continue
        compiled += 1
        for text in pair.inputs:
            assert_same(parser, text)
    assert compiled > PAIRS // 4


def test_content_that_is_not_text_gives_the_walk_outcome() -> None:
    parser = rs.compile(
        {
            "type": "object",
            "properties": {
                "n": {"type": "integer", "default": 3},
                "x": {"type": "number"},
                "b": {"type": "boolean"},
                "c": {"const": [1]},
                "a": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
                "i": {"type": "array", "items": {"type": "object", "additionalProperties": {"type": "string"}}},
            },
            "required": ["n"],
            "additionalProperties": {"type": "integer"},
        }
    )
    for content in (
        {"x": 1, "b": True, "a": ["s", 2], "i": [{"k": "v"}], "extra": "7"},
        {"x": "nan"},
        {"a": ["s"]},
        {"a": "s"},
        {"i": [{"k": 1}]},
        {"b": "maybe"},
        {"x": 10**400},
        [],
        None,
        5,
    ):
        assert_same(parser, content)


def test_a_planted_walk_is_what_parse_runs() -> None:
    class Shouting(Walk):
        def string_node(self, node: Any, content: Any) -> str:
            return str(content).upper()

    parser = rs.Parser({"type": "string"}, Shouting())
    assert parser.parse("hi") == "HI"  # a Walk given to Parser is used, not the fast path


def _transforms(node: Any) -> list[str]:
    """The transforms of a schema, at any depth."""
    found = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            args = item.get("x-parser-args")
            if isinstance(args, dict) and isinstance(args.get("transform"), str):
                found.append(args["transform"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


LIBRARY = sorted({expression for name in rs.schemas.names() for expression in _transforms(rs.schemas.load(name))})
EXPRESSIONS = [
    *LIBRARY,
    "a.b",
    "a | b",
    "[*].a",
    "a[0]",
    "[0].a",
    "a == b",
    "a != `1`",
    "a == `true`",
    "a < b",
    "!a",
    "a && b || c",
    "[a, b]",
    "{x: a, y: b.c}",
    "[?a == `1`].b",
    "[?a].{b: b}",
    "length(@)",
    "sort(@)",
    "keys(@)",
    "not_null(a, b, `0`)",
    "type(a)",
    "sort_by(@, &a)",
    "to_string(a)",
    "contains(@, `1`)",
    "max(@)",
    "sum([*].a)",
    "*.a",
    "a && (" * 16 + "b" + ")" * 16,  # nested deeper than transforms._DEPTH: the interpreter below it
    "[*]" * 8 + ".a",
    "[?a][?b][?c][?a][?b][?c][?a].b",
]
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.0, 1.0, 2.5])
    | st.sampled_from(["", "a", "b", "string", "object"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "c", "name", "arguments", "id"]), inner, max_size=4)
    ),
    max_leaves=12,
)


def evaluated(search: Any, value: Any) -> str:
    try:
        return "value " + repr(search(value))
    except Exception as exc:  # the interpreter's own errors, by class and message
        return f"error {type(exc).__name__} {exc}"


@pytest.mark.parametrize("expression", EXPRESSIONS)
@given(value=JSON)
@settings(max_examples=VALUES, deadline=None)
def test_compiled_transforms_evaluate_as_the_interpreter(expression: str, value: Any) -> None:
    transform = rs.compile({"x-parser": "json", "x-parser-args": {"transform": expression}}).root.transform
    assert transform is not None
    assert evaluated(transform.fast, value) == evaluated(transform.search, value)


LEAVES = ["@", "a", "b", "name", "arguments", "`1`", '`"a"`', "'string'", "''", "`null`", "`{}`", "`[1, 2]`", "`true`"]
LEAVES += ["`0`", "`false`", "a.b", "a[0]", "[0]", "*.a", "[*]"]
FUNCTIONS = ["type", "length", "to_string", "keys", "values", "to_array", "sort", "reverse", "to_number", "abs", "max"]


def _composed(inner: Any) -> Any:
    two = st.tuples(inner, inner)
    return st.one_of(
        two.map(lambda pair: f"({pair[0]}) && ({pair[1]})"),
        two.map(lambda pair: f"({pair[0]}) || ({pair[1]})"),
        st.tuples(inner, st.sampled_from(["==", "!=", "<", ">="]), inner).map(lambda t: f"({t[0]}) {t[1]} ({t[2]})"),
        inner.map(lambda one: f"!({one})"),
        two.map(lambda pair: f"[({pair[0]}), ({pair[1]})]"),
        two.map(lambda pair: f"{{x: ({pair[0]}), y: ({pair[1]}), x: ({pair[1]})}}"),
        two.map(lambda pair: f"({pair[0]})[?({pair[1]})]"),
        two.map(lambda pair: f"({pair[0]})[*].{{v: ({pair[1]})}}"),
        two.map(lambda pair: f"({pair[0]}) | ({pair[1]})"),
        two.map(lambda pair: f"({pair[0]}).[({pair[1]})]"),
        two.map(lambda pair: f"not_null({pair[0]}, {pair[1]})"),
        st.tuples(st.sampled_from(FUNCTIONS), inner).map(lambda pair: f"{pair[0]}({pair[1]})"),
    )


@given(expression=st.recursive(st.sampled_from(LEAVES), _composed, max_leaves=10), value=JSON)
@settings(max_examples=VALUES * 10, deadline=None)
def test_generated_transforms_evaluate_as_the_interpreter(expression: str, value: Any) -> None:
    """Random expressions of the subset transforms.py writes out (and of what it leaves to the interpreter, nested
    in it), on random values: the same value or the same error."""
    transform = rs.compile({"x-parser": "json", "x-parser-args": {"transform": expression}}).root.transform
    assert transform is not None
    assert evaluated(transform.fast, value) == evaluated(transform.search, value)
