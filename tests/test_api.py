"""The Python API of the reference: compile, parse, Parser, and the error classes."""

from __future__ import annotations

import contextlib
import copy
import gc
import json
import threading
from typing import Any

import pytest
from corpus_cases import compiled_tests

import response_schema as rs
from response_schema.errors import INPUT_CATEGORIES, SCHEMA_CATEGORIES

SMOL = {
    "x-regex": r"(?:<think>\n?(?P<thinking>.+?)\n?</think>)?\s*(?P<content>.+?)?\s*(?:<\|im_end\|>|$)",
    "type": "object",
    "properties": {
        "role": {"const": "assistant"},
        "content": {"type": "string"},
        "thinking": {"type": "string"},
    },
}


def test_seed_smollm3_schema() -> None:
    assert rs.parse(SMOL, "<think>\nplan\n</think>\nHello<|im_end|>") == {
        "role": "assistant",
        "thinking": "plan",
        "content": "Hello",
    }


def test_prefix_is_read_before_the_text() -> None:  # [GEN-5]
    thinking = {
        "type": "object",
        "properties": {
            "thinking": {"type": "string", "x-regex": r"^\s*<think>\s*(.*?)\s*(?:</think>|$)"},
            "content": {"type": "string", "x-regex": r"^(?:\s*<think>.*?(?:</think>|$))?\s*(.*?)\s*$"},
        },
    }
    parser = rs.compile(thinking)
    expected = {"thinking": "plan", "content": "Hi"}
    assert parser.parse("plan</think>Hi", prefix="<think>") == expected
    assert rs.parse(thinking, "plan</think>Hi", "<think>") == expected
    assert parser.trace("plan</think>Hi", prefix="<think>")["value"] == expected
    assert parser.parse("plan</think>Hi") == {"content": "plan</think>Hi"}


@pytest.mark.parametrize("text, prefix", [(b"x", ""), ("x", None)])
def test_text_and_prefix_must_be_strings(text: Any, prefix: Any) -> None:
    with pytest.raises(rs.ParseError) as caught:
        rs.compile({"type": "string"}).parse(text, prefix)
    assert caught.value.category == "type-mismatch"


def test_parser_is_reusable() -> None:
    parser = rs.compile(SMOL)
    assert parser.parse("a<|im_end|>")["content"] == "a"
    assert parser.parse("b<|im_end|>")["content"] == "b"


def test_parser_is_thread_safe() -> None:
    parser = rs.compile(SMOL)
    results: list[object] = []

    def work(index: int) -> None:
        for _ in range(200):
            results.append(
                parser.parse(f"<think>t{index}</think>c{index}")
                == {"role": "assistant", "thinking": f"t{index}", "content": f"c{index}"}
            )

    threads = [threading.Thread(target=work, args=(index,)) for index in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 800


def test_parse_caches_compiled_schemas() -> None:
    schema = {"type": "string", "x-regex": "(b+)"}
    assert rs.parse(schema, "abbc") == "bb"
    assert rs.compiled(copy.deepcopy(schema)) is rs.compiled(schema)  # the last call's key, served at once
    assert rs.parse({"type": "string", "x-regex": "(a+)"}, "abbc") == "a"
    hits = rs._compiled.cache_info().hits
    assert rs.parse(schema, "abbbc") == "bbb"  # an earlier schema: from the cache of the last 256
    assert rs._compiled.cache_info().hits == hits + 1
    schema["x-regex"] = "(c+)"  # a changed schema is a new cache key
    assert rs.parse(schema, "abbc") == "c"


@pytest.mark.parametrize(("before", "after"), [(1, True), (True, 1), (1, 1.0), (0.0, -0.0), ("1", 1)])
def test_parse_cache_tells_apart_values_python_calls_equal(before: Any, after: Any) -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"v": {"const": before}}}
    assert repr(rs.parse(schema, "")) == repr({"v": before})
    schema["properties"]["v"]["const"] = after  # equal under Python's ==, but not the same JSON value
    assert repr(rs.parse(schema, "")) == repr({"v": after})


def test_parse_without_a_cache_key_still_parses_or_says_why() -> None:
    cyclic: dict[str, Any] = {"const": None}
    cyclic["const"] = [cyclic]
    with pytest.raises(rs.SchemaError, match="must be a JSON value"):
        rs.parse(cyclic, "")
    with pytest.raises(rs.SchemaError, match="must be a JSON value"):
        rs.parse({"const": object()}, "")


def test_caller_schema_is_not_mutated_and_results_do_not_alias_it() -> None:
    schema = {
        "type": "object",
        "properties": {"tags": {"const": ["a"]}, "meta": {"default": {"k": 1}}},
        "x-parser": "json",
    }
    before = copy.deepcopy(schema)
    first = rs.parse(schema, "{}")
    first["tags"].append("changed")
    first["meta"]["k"] = 2
    assert rs.parse(schema, "{}") == {"tags": ["a"], "meta": {"k": 1}}
    assert schema == before


def test_error_classes_carry_phase_category_and_path() -> None:  # [ERR-1]
    with pytest.raises(rs.SchemaError) as schema_error:
        rs.compile({"type": "object", "properties": {"a": {"type": "string", "x-regex": "("}}})
    assert schema_error.value.phase == "schema"
    assert schema_error.value.category == "invalid-regex"
    assert schema_error.value.path == "/properties/a/x-regex"
    assert isinstance(schema_error.value, rs.ResponseSchemaError)

    with pytest.raises(rs.ParseError) as parse_error:
        rs.parse({"type": "object", "properties": {"n": {"type": "integer"}}, "x-parser": "json"}, '{"n": "x"}')
    assert parse_error.value.phase == "input"
    assert parse_error.value.category == "invalid-value"
    assert parse_error.value.path == "/properties/n"


def test_every_schema_problem_is_listed() -> None:  # [SCHEMA-1]
    with pytest.raises(rs.SchemaError) as error:
        rs.compile({"type": "object", "x-foo": 1, "properties": {"a": {"type": "null"}, "b": True}})
    found = [(problem.category, problem.path) for problem in error.value.problems]
    assert found == [
        ("unknown-keyword", "/x-foo"),
        ("invalid-keyword", "/properties/a/type"),
        ("invalid-keyword", "/properties/b"),
    ]


def test_schema_error_at_compile_even_when_no_input_reaches_the_node() -> None:  # [ERR-3]
    schema = {
        "type": "object",
        "x-regex": "^(?P<a>x)",
        "properties": {"a": {"type": "string"}, "never": {"type": "array", "x-regex-iterator": "no groups"}},
    }
    with pytest.raises(rs.SchemaError):
        rs.compile(schema)


def test_key_order_follows_schema_then_content() -> None:  # [OBJ-8]
    schema = {"type": "object", "x-parser": "json", "properties": {"b": {}, "a": {}}}
    assert list(rs.parse(schema, '{"z": 1, "a": 2, "b": 3, "c": 4}')) == ["b", "a", "z", "c"]


def test_non_string_input_is_a_parse_error() -> None:  # [GEN-1]
    with pytest.raises(rs.ParseError) as error:
        rs.compile({}).parse(b"bytes")  # type: ignore[arg-type]
    assert error.value.category == "type-mismatch"


def test_deep_schema_is_a_schema_error_not_a_recursion_error() -> None:  # [LIMIT-1]
    schema: dict[str, object] = {"type": "string"}
    for _ in range(10_000):
        schema = {"type": "array", "items": schema}
    with pytest.raises(rs.SchemaError) as error:
        rs.compile(schema)
    assert error.value.category == "schema-too-deep"
    assert error.value.path.count("/items") == 64


def test_schema_depth_64_is_accepted() -> None:  # [LIMIT-1]
    schema: dict[str, object] = {"type": "string"}
    for _ in range(63):
        schema = {"type": "array", "items": schema}
    rs.compile(schema)


@pytest.mark.parametrize("depth", [256, 257, 5_000, 200_000])
def test_deep_json(depth: int) -> None:  # [LIMIT-2]
    parser = rs.compile({"x-parser": "json"})
    text = "[" * depth + "]" * depth
    if depth <= 256:
        assert json.dumps(parser.parse(text)).count("[") == depth
    else:
        with pytest.raises(rs.ParseError) as error:
            parser.parse(text)
        assert error.value.category == "json-too-deep"


def test_deep_const_value_is_checked_without_recursion() -> None:  # [SCHEMA-13]
    value: object = 1
    for _ in range(100_000):
        value = [value]
    rs.compile({"const": value})
    with pytest.raises(rs.SchemaError):
        rs.compile({"const": [value, float("nan")]})


def test_categories_are_disjoint() -> None:  # [ERR-2]
    assert not SCHEMA_CATEGORIES & INPUT_CATEGORIES
    assert len(SCHEMA_CATEGORIES) == 6
    assert len(INPUT_CATEGORIES) == 8


def test_parse_many_gives_each_parse_in_order_with_errors_as_values() -> None:
    parser = rs.compile(rs.schemas.load("qwen3"))
    texts = ["<think>a</think>Hi", "<tool_call>\n{oops\n</tool_call>", "Bye"]
    results = parser.parse_many(iter(texts))  # any iterable
    assert results[0] == parser.parse(texts[0]) and results[2] == parser.parse(texts[2])
    assert isinstance(results[1], rs.ParseError) and results[1].category == "invalid-json"
    assert results[1].__traceback__ is None and results[1].__context__ is None  # no frames kept alive
    assert parser.parse_many([5])[0].category == "type-mismatch"  # native data only: not a string
    assert parser.parse_many([], rows=True) == []


def test_parse_many_takes_the_prefix_and_reads_the_tools_once() -> None:
    parser = rs.compile(rs.schemas.load("qwen3-coder"))
    function = {"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}
    tools = rs.Tools([{"type": "function", "function": function}])
    text = "<tool_call>\n<function=f>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>"
    (message,) = parser.parse_many([text], tools=tools)
    assert message["tool_calls"][0]["function"]["arguments"] == {"n": 7}
    with pytest.raises(rs.ToolsError):
        parser.parse_many([text], tools=[{"type": "nope"}])
    think = rs.compile(rs.schemas.load("qwen3"))
    assert think.parse_many(["plan</think>Hi"], prefix="<think>") == [think.parse("plan</think>Hi", "<think>")]


def test_parse_many_rows_share_columns_of_strings_or_null() -> None:
    parser = rs.compile(rs.schemas.load("qwen3"))
    call = '<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>'
    rows = parser.parse_many(["<think>a</think>Hi", call, "<tool_call>\n{oops\n</tool_call>"], rows=True)
    assert all(list(row) == list(rs.batch.ROW_COLUMNS) for row in rows)
    assert all(value is None or isinstance(value, str) for row in rows for value in row.values())
    assert (rows[0]["thinking"], rows[0]["content"], rows[0]["tool_calls"]) == ("a", "Hi", None)
    assert json.loads(rows[1]["tool_calls"]) == parser.parse(call)["tool_calls"]
    assert (rows[2]["error_category"], rows[2]["error_path"]) == ("invalid-json", "/properties/tool_calls/items")
    json_root = rs.compile({"x-parser": "json"})
    content, not_an_object, no_value = json_root.parse_many(['{"content": [1], "score": 2}', "[1]", "null"], rows=True)
    empty = dict.fromkeys(rs.batch.ROW_COLUMNS)
    assert content == empty | {"content": "[1]", "other": '{"score":2}'}  # other values as JSON text
    assert not_an_object == empty | {"other": "[1]"}
    assert no_value == empty


def test_a_parse_leaves_no_reference_cycle() -> None:
    """parse_many pauses the cyclic collector because a parse makes no cycle: an error kept in a variable would (its
    traceback holds the frame that holds it), and a large batch would grow with what only the collector frees."""
    parsers = [(parser, test.text) for parser, test in compiled_tests()]
    gc.collect()
    gc.disable()
    try:
        for parser, text in parsers:
            for parse in (parser.parse, parser.parse_walked):
                with contextlib.suppress(rs.ParseError):
                    parse(text)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_parse_many_leaves_the_garbage_collector_as_it_found_it() -> None:
    parser = rs.compile(rs.schemas.load("qwen3"))
    assert gc.isenabled()
    parser.parse_many(["Hi"])
    assert gc.isenabled()
    gc.disable()
    try:
        parser.parse_many(["Hi"])
        assert not gc.isenabled()
    finally:
        gc.enable()
