"""Properties that hold for any schema and any text (hypothesis, fixed seed in CI)."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import response_schema as rs
from response_schema.jsontext import json_equal
from response_schema.textparsers import NOT_JSON, NotJSON, json_value, parse_json

PATTERNS = st.sampled_from(
    [
        "(a+)",
        "(?P<key>\\w+)=(?P<value>\\w*)",
        "<(.*?)>",
        "(\\d+)",
        "(?P<x>x)?(?P<y>y)?",
        "(",
        "no group",
        "(a)(b)",
        "(x*)",
        "^(.*)$",
        "\\{(.*)\\}",
        "(?P<key>a)|(?P<value>b)",
    ]
)
TEXT = st.lists(
    st.sampled_from([*"ax<>{}[]\"':=,0123456789 \n\\yb", "true", "null", "1.5e3", '<|"|>']), max_size=25
).map("".join)
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
KEYWORDS = {
    "type": st.sampled_from(["object", "array", "string", "integer", "number", "boolean", "any", "null", 3]),
    "x-regex": PATTERNS,
    "x-regex-iterator": PATTERNS,
    "x-regex-key-value": PATTERNS,
    "x-regex-substitutions": st.lists(
        st.lists(st.sampled_from(["a", "(b)", "\\1", "x", "\\d"]), min_size=1, max_size=3), max_size=2
    ),
    "x-parser": st.sampled_from(["json", "gemma4-tool-call", "yaml"]),
    "x-parser-args": st.fixed_dictionaries(
        {},
        optional={
            "transform": st.sampled_from(["@", "a", "length(@)", "[0]", "keys(@)", "foo(", "nope(@)"]),
            "allow_non_json": st.sampled_from([True, False, "yes"]),
        },
    ),
    "x-mapping": st.dictionaries(st.sampled_from(["a", "1", "x"]), JSONISH, max_size=2),
    "x-mapping-regex": st.dictionaries(
        st.sampled_from(["a", "(b)", "("]), st.sampled_from(["x", "\\1", "\\q"]), max_size=2
    ),
    "x-unknown": st.just(1),
    "const": JSONISH,
    "default": JSONISH,
    "required": st.lists(st.sampled_from(["a", "b", "key"]), max_size=2),
    "additionalProperties": st.sampled_from([True, False, None, {}, {"type": "integer"}]),
    "title": st.text(max_size=5),
}


def schemas() -> st.SearchStrategy[Any]:
    leaf = st.just({}) | st.just({"type": "string"}) | st.just({"x-parser": "json"})

    def node(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        keywords = st.lists(st.sampled_from(sorted(KEYWORDS)), max_size=4, unique=True).flatmap(
            lambda names: st.fixed_dictionaries({name: KEYWORDS[name] for name in names})
        )
        structure = st.fixed_dictionaries(
            {},
            optional={
                "properties": st.dictionaries(st.sampled_from(["a", "b", "key", "value", "x"]), children, max_size=3),
                "items": children,
                "prefixItems": st.lists(children, max_size=2),
            },
        )
        return st.tuples(keywords, structure).map(lambda pair: pair[0] | pair[1]) | st.booleans()

    return st.recursive(leaf, node, max_leaves=6)


def is_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


@given(schema=schemas(), text=TEXT)
def test_any_schema_and_text_give_a_result_or_a_categorized_error(schema: Any, text: str) -> None:
    before = copy.deepcopy(schema)
    try:
        parser = rs.compile(schema)
    except rs.SchemaError as error:
        assert error.phase == "schema" and error.category and isinstance(error.path, str)
        return
    finally:
        assert schema == before  # never mutated
    outcomes = []
    for _ in range(2):
        try:
            outcomes.append(("ok", parser.parse(text)))
        except rs.ParseError as error:
            assert error.phase == "input" and error.category
            outcomes.append(("error", error.category))
    assert outcomes[0] == outcomes[1]  # deterministic
    if outcomes[0][0] == "ok":
        assert is_json(outcomes[0][1])


@given(JSONISH, JSONISH, JSONISH)
def test_json_equality_is_an_equivalence(a: Any, b: Any, c: Any) -> None:
    assert json_equal(a, a)
    assert json_equal(a, b) == json_equal(b, a)
    if json_equal(a, b) and json_equal(b, c):
        assert json_equal(a, c)
    assert json_equal(a, json.loads(json.dumps(a)))


JSON_TEXT = st.lists(st.sampled_from([*'{}[]",: \n0-.e5a\\', "true", "nul", "NaN", "1e999", '"k"']), max_size=12).map(
    "".join
)


@given(JSON_TEXT | JSONISH.map(json.dumps))
def test_json_value_is_parse_json_without_an_exception(text: str) -> None:
    """[ARGS-4]'s path keeps a text that is not JSON without raising: the same answer as [JSON-1]'s parse."""
    try:
        expected = parse_json(text)
    except NotJSON:
        expected = NOT_JSON
    found = json_value(text)
    assert found is expected if expected is NOT_JSON else json_equal(found, expected)


def test_json_equality_is_json_s() -> None:
    assert not json_equal(True, 1)
    assert not json_equal(1.0, True)
    assert not json_equal(False, 0)
    assert json_equal(1, 1.0)
    assert not json_equal(None, 0)
    assert not json_equal({"a": None}, {})
    assert json_equal({"a": 1, "b": [1, {"c": 2}]}, {"b": [1.0, {"c": 2}], "a": 1})
    assert not json_equal([1, 2], [2, 1])
    assert not json_equal([[1]], [[1, 1]])
    assert not json_equal("1", 1)
    assert not json_equal(2**53 + 1, 2**53)  # integers: exact
    assert json_equal(2**53 + 1, float(2**53 + 1))  # a double on one side: compared as doubles (PROTOCOL.md)
