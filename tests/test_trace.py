"""Parser.trace: the walk as data. Its value is always parse's result (over the whole corpus), and its spans
point into the input."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from corpus_cases import compiled_tests

import response_schema as rs
from response_schema.harness.fuzzgen import Generator

GPT_OSS = (
    "<|channel|>analysis<|message|>Weather lookup.<|end|><|start|>assistant<|channel|>commentary "
    'to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>'
)


def records(record: dict[str, Any]) -> list[dict[str, Any]]:
    found = [record]
    for child in record.get("children", []):
        found += records(child)
    return found


def test_the_trace_value_is_the_parse_result_over_the_whole_corpus() -> None:
    checked = 0
    for parser, test in compiled_tests():
        trace = parser.trace(test.text)
        try:
            value = parser.parse(test.text)
        except rs.ParseError as error:
            assert trace["error"]["category"] == error.category and trace["error"]["path"] == error.path
            failing = [r for r in records(trace["root"]) if r.get("error", {}).get("path") == error.path]
            assert failing, test.id
        else:
            assert "value" in trace and repr(trace["value"]) == repr(value), test.id
        checked += 1
    assert checked > 400


def test_spans_point_into_the_input() -> None:
    trace = rs.compile(rs.schemas.load("gpt-oss")).trace(GPT_OSS)
    by_path = {record["path"]: record for record in records(trace["root"])}
    thinking = by_path["/properties/thinking"]["stages"][0]["match"]
    start, end = thinking["groups"]["1"]["span"]
    assert GPT_OSS[start:end] == "Weather lookup." == trace["value"]["thinking"]
    (call,) = by_path["/properties/tool_calls"]["stages"][0]["matches"]
    assert GPT_OSS[call["span"][0] : call["span"][1]].startswith("<|channel|>commentary to=functions.get_weather")
    for record in records(trace["root"]):
        if "span" in record and isinstance(record["content"], str) and not record["content"].endswith("…"):
            assert GPT_OSS[record["span"][0] : record["span"][1]] == record["content"]


def test_a_failing_node_is_marked() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "x-regex": "n=(\\S+)"}}}
    trace = rs.compile(schema).trace("n=x")
    assert trace["error"] == {
        "phase": "input",
        "category": "invalid-value",
        "path": "/properties/n",
        "message": "not an integer: 'x'",
    }
    assert records(trace["root"])[1]["error"]["category"] == "invalid-value"


@pytest.mark.parametrize("as_json", [False, True])
def test_parse_trace_on_the_command_line(as_json: bool) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "response_schema", "parse", "gpt-oss", "--trace", *(["--json"] if as_json else [])],
        input=GPT_OSS, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    if as_json:
        assert json.loads(result.stdout) == rs.compile(rs.schemas.load("gpt-oss")).trace(GPT_OSS)
    else:
        assert '      group 1: "Weather lookup." [30:45]' in result.stdout
        assert result.stdout.splitlines()[-1].startswith('result: {"role": "assistant"')


def test_every_span_over_generated_schemas_points_at_its_text() -> None:
    """Spans are given while the content is still a slice of the input (also after a stage that left the text
    as it was), and each one, of a node, a match or a group, points at exactly its text."""
    generator = Generator(7, rs.FEATURES)
    spans = 0
    for _ in range(600):
        pair = generator.pair()
        try:
            parser = rs.compile(pair.schema)
        except rs.SchemaError:
            continue
        for text in pair.inputs:
            for record in records(parser.trace(text)["root"]):
                found = [(record.get("span"), record["content"])]
                for stage in record.get("stages", []):
                    for match in [stage["match"]] if stage.get("match") else stage.get("matches", []):
                        found.append((match["span"], match["text"]))
                        found += [(group["span"], group["text"]) for group in match["groups"].values()]
                for span, content in found:
                    if span and isinstance(content, str) and not content.endswith("…"):
                        assert text[span[0] : span[1]] == content, (pair.schema, text)
                        spans += 1
    assert spans > 5000
