"""Typed tool arguments (SPEC.md section 15): the API, the CLI, streams and the harness carry the request's tools."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import response_schema as rs
from response_schema.harness.streaming import chunkings, part_of
from response_schema.tools import NO_VALUE, convert, types

ROOT = Path(__file__).parent.parent
WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"}},
            },
        },
    }
]
QWEN3_CODER = (
    "Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\n07\n</parameter>\n<parameter=days>\n07\n"
    "</parameter>\n<parameter=metric>\nFALSE\n</parameter>\n</function>\n</tool_call>\n<|im_end|>"
)


def arguments(message: Any) -> Any:
    return message["tool_calls"][0]["function"]["arguments"]


def test_parse_types_the_arguments_of_known_tools() -> None:  # [TOOLS-2], [TOOLS-3], [TOOLS-4]
    schema = rs.schemas.load("qwen3-coder")
    assert arguments(rs.parse(schema, QWEN3_CODER)) == {"city": "07", "days": "07", "metric": "FALSE"}
    typed = rs.parse(schema, QWEN3_CODER, tools=WEATHER)
    assert arguments(typed) == {"city": "07", "days": 7, "metric": False}
    assert typed["content"] == "Checking."
    once = rs.Tools(WEATHER)  # read once, for a server that parses many outputs of one request
    assert rs.compile(schema).parse(QWEN3_CODER, tools=once) == typed
    bare = [{"name": "get_weather", "parameters": WEATHER[0]["function"]["parameters"]}]  # no "function" wrapper
    assert rs.parse(schema, QWEN3_CODER, tools=bare) == typed
    assert arguments(rs.parse(schema, QWEN3_CODER, tools=[])) == arguments(rs.parse(schema, QWEN3_CODER))


@pytest.mark.parametrize(
    ("tools", "path"),
    [
        ({"name": "f"}, ""),
        ([{"function": {"parameters": {}}}], "/0"),
        ([{"name": "f"}, {"name": "f"}], "/1"),
        ([{"name": "f", "parameters": {"properties": []}}], "/0"),
    ],
)
def test_tools_that_are_not_function_definitions_are_refused(tools: Any, path: str) -> None:  # [TOOLS-1]
    with pytest.raises(rs.ToolsError) as raised:
        rs.parse(rs.schemas.load("qwen3-coder"), QWEN3_CODER, tools=tools)
    assert raised.value.phase == "tools" and raised.value.category == "invalid-tools" and raised.value.path == path
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("07", "integer", 7),
        ("-3.0", "integer", -3),
        ("1E2", "integer", 100),
        ("2.5", "integer", None),
        ("١٢", "integer", None),  # non-ASCII digits: Python's int() takes them, [TOOLS-6] does not
        ("\u00a07", "integer", None),  # non-ASCII whitespace likewise
        ("1" * 5000, "integer", None),  # beyond the reference's digit limit ([JSONB-4])
        ("7", "number", 7),
        ("7.0", "number", 7.0),
        ("1e3", "number", 1000),
        ("inf", "number", None),
        ("tRuE", "boolean", True),
        ("None", "null", None),
        ('{"a": NaN}', "object", None),
        ("[1]", "array", [1]),
        ("x", "string", None),
    ],
)
def test_conversions_of_a_text(text: str, kind: str, value: Any) -> None:  # [TOOLS-6]
    converted = convert(text, kind)
    if value is None and kind != "null":
        assert converted is NO_VALUE  # the text stays
    else:
        assert converted == value and type(converted) is type(value)


def test_the_types_of_a_parameter() -> None:  # [TOOLS-4]
    assert types({"type": ["integer", "string"], "nullable": True}) == ["integer", "string", "null"]
    assert types({"anyOf": [{"type": "number"}, {"oneOf": [{"type": "boolean"}]}]}) == ["number", "boolean"]
    assert types({"enum": ["a", 1, 2.5, None], "const": True}) == ["string", "integer", "number", "null", "boolean"]
    assert types({"type": "integer", "enum": ["a"]}) == ["integer"]  # enum only when nothing else says
    assert types(None) == [] and types({"description": "free"}) == []


def test_a_stream_with_tools_ends_at_the_typed_result_and_sends_only_parts_of_it() -> None:  # [TOOLS-7]
    parser = rs.compile(rs.schemas.load("qwen3-coder"))
    final = parser.parse(QWEN3_CODER, tools=WEATHER)
    for chunks in chunkings(QWEN3_CODER):
        stream = parser.stream(tools=WEATHER)
        sent: list[Any] = []
        for chunk in chunks:
            stream.feed(chunk)
            assert part_of(stream.message, final)
            sent.append(json.loads(json.dumps(stream.message)))
        stream.finish()
        assert stream.message == final
    # a text that may still become a number is not sent before it is complete: days appears only as 7
    assert all(arguments(message).get("days", 7) == 7 for message in sent if message and message.get("tool_calls"))


def test_a_stream_sends_the_arguments_of_an_unknown_tool_as_it_goes() -> None:  # [TOOLS-7]
    parser = rs.compile(rs.schemas.load("kimi-k2"))
    text = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.lookup:0<|tool_call_argument_begin|>"
        '{"days": "3", "city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>'
    )
    known, unknown = parser.stream(tools=[{"name": "lookup"}]), parser.stream(tools=WEATHER)
    cut = text.index('"city"')
    json_sent = [[delta for delta in stream.feed(text[:cut]) if delta["op"] == "json"] for stream in (known, unknown)]
    assert not json_sent[0] and json_sent[1]  # a known tool's arguments wait; an unknown tool's stream as text
    for stream in (known, unknown):
        stream.feed(text[cut:])
        stream.finish()
    assert arguments(known.message) == arguments(unknown.message) == {"days": "3", "city": "Oslo"}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "response_schema", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def test_the_cli_reads_tools_from_a_file_or_a_request_body(tmp_path: Path) -> None:
    output = tmp_path / "out.txt"
    output.write_text(QWEN3_CODER, encoding="utf-8")
    (tmp_path / "tools.json").write_text(json.dumps(WEATHER), encoding="utf-8")
    (tmp_path / "request.json").write_text(json.dumps({"model": "m", "tools": WEATHER}), encoding="utf-8")
    for name in ("tools.json", "request.json"):
        parsed = cli("parse", "qwen3-coder", str(output), "--tools", str(tmp_path / name))
        assert parsed.returncode == 0, parsed.stderr
        assert arguments(json.loads(parsed.stdout))["days"] == 7
    streamed = cli("stream", "qwen3-coder", str(output), "--tools", str(tmp_path / "tools.json"), "--openai")
    assert streamed.returncode == 0, streamed.stderr
    fragments = [
        call["function"].get("arguments", "")
        for line in streamed.stdout.splitlines()
        for call in json.loads(line).get("tool_calls", [])
    ]
    assert json.loads("".join(fragments)) == {"city": "07", "days": 7, "metric": False}
    (tmp_path / "bad.json").write_text('[{"parameters": {}}]', encoding="utf-8")
    bad = cli("parse", "qwen3-coder", str(output), "--tools", str(tmp_path / "bad.json"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "invalid-tools at /0" in bad.stderr


def test_the_harness_sends_tools_through_the_protocol_and_the_kit_adapter(tmp_path: Path) -> None:
    adapter = f"{sys.executable} conformance/adapters/python/adapter.py response_schema:parse"
    for command in (f"{sys.executable} -m response_schema conformance serve", adapter):
        run = cli("conformance", "run", "--command", command, "-k", "typed-arguments")
        assert run.returncode == 0, run.stdout + run.stderr
        assert "51 pass" in run.stdout
    streamed = cli("conformance", "run", "--stream", "-k", "tools.text.integer")
    assert streamed.returncode == 0 and "unsupported" not in streamed.stdout, streamed.stdout
    js = cli("conformance", "run", "--command", "node js/bin/serve.js", "-k", "typed-arguments")
    assert js.returncode == 0 and "50 pass, 1 unsupported" in js.stdout  # integer-digit-limit: not declared
    old = cli("conformance", "run", "--command", f"{adapter} --features regex-lookaround", "-k", "tools.json.")
    assert "9 unsupported" in old.stdout  # an implementation without typed-arguments is not sent tools


def test_a_stream_sends_typed_json_arguments_when_their_text_closes() -> None:  # [TOOLS-7]
    """Arguments streamed as JSON text, to a tool: typed and sent once their object closes, before the output ends
    (they used to wait for finish, however early the call ended), and never before."""
    sys.path.insert(0, str(ROOT / "tests"))
    from library_formats import FAMILIES

    checked = []
    for family in FAMILIES:
        parser = rs.compile(rs.schemas.load(family.name))
        calls = (("get_weather", {"city": "Oslo", "days": "3"}), ("get_time", {"zone": "CET"}))
        text = family.render(content="Checking.", calls=calls)
        final = parser.parse(text, family.prefill, tools=WEATHER)
        if '"3"}' not in text or arguments(final) != {"city": "Oslo", "days": 3}:
            continue  # a format whose arguments are not JSON text
        stream, sent_at = parser.stream(family.prefill, tools=WEATHER), None
        for at, char in enumerate(text):
            stream.feed(char)
            assert part_of(stream.message, final), family.name
            calls = (stream.message or {}).get("tool_calls") or [{}]
            if sent_at is None and "arguments" in calls[0].get("function", {}):
                sent_at = at
                assert arguments(stream.message) == arguments(final)
        closes = text.index('"3"}') + len('"3"}') - 1
        if sent_at is not None and sent_at < text.index("get_time"):
            checked.append(family.name)
            assert sent_at >= closes, family.name  # not before the object closed
    assert {"kimi-k2", "deepseek-v3", "mistral-v11"} <= set(checked), checked
