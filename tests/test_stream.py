"""Streaming (SPEC.md section 14): the reference's Stream, its deltas, the OpenAI view, the `stream` command, and
`conformance run --stream`, which must pass the reference and catch a stream that sends too early."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from corpus_cases import compiled_tests
from library_formats import CATEGORIES, FAMILIES, WEATHER

import response_schema as rs
from response_schema.harness.streaming import chunkings, part_of
from response_schema.jsontext import json_equal
from response_schema.openai import OpenAIStream
from response_schema.stream import Stream, StreamFinished, apply
from response_schema.stream.partial import OpenText, grow, sent_value
from response_schema.stream.pike import Buffer

QWEN3 = rs.compile(rs.schemas.load("qwen3"))
OUTPUT = (
    "<think>\nWeather first.\n</think>\n\nChecking.\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call><|im_end|>'
)


def streamed(parser: rs.Parser, text: str, size: int, prefix: str = "") -> tuple[list[Any], Any]:
    """The deltas of a stream fed ``text`` in chunks of ``size``, and its message at the end."""
    stream = parser.stream(prefix)
    deltas = [delta for at in range(0, len(text), size) for delta in stream.feed(text[at : at + size])]
    return deltas + stream.finish(), stream.message


def library_outputs() -> list[tuple[str, str, str]]:
    return [(family.name, *built) for family in FAMILIES for _, _, build in CATEGORIES if (built := build(family))]


def assert_streams_soundly(parser: rs.Parser, prefix: str, output: str, size: int, label: Any) -> None:
    """``output`` fed ``size`` characters at a time: each partial value is a part of the next and of the one-shot
    result ([STREAM-3]), and the end is that result ([STREAM-4]) or its error ([STREAM-5])."""
    try:
        expected: Any = parser.parse(output, prefix)
    except rs.ParseError as error:
        expected = error
    stream = parser.stream(prefix)
    sent: Any = None
    for at in range(0, len(output), size):
        stream.feed(output[at : at + size])
        assert part_of(sent, stream.message), label
        sent = copy.deepcopy(stream.message)
        if not isinstance(expected, rs.ParseError):
            assert part_of(sent, expected), (label, sent)
    if isinstance(expected, rs.ParseError):
        with pytest.raises(rs.ParseError) as caught:
            stream.finish()
        assert (caught.value.category, caught.value.path) == (expected.category, expected.path), label
    else:
        stream.finish()
        assert json_equal(stream.message, expected), label


def test_library_outputs_stream_soundly_whole_and_cut_off() -> None:  # [STREAM-3], [STREAM-4], [STREAM-5]
    """Every behaviour output of every family, fed a character at a time, and two cut-offs of it, fed two at a
    time: what was sent is a part of the one-shot result after every feed, and the end is that result or its
    error."""
    judged = 0
    for name, prefix, text in library_outputs():
        parser = rs.compile(rs.schemas.load(name))
        for cut in sorted({len(text), len(text) // 3, 2 * len(text) // 3}):
            assert_streams_soundly(parser, prefix, text[:cut], 1 if cut == len(text) else 2, (name, text[:cut]))
            judged += 1
    assert judged > 500


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_deltas_add_up_to_the_message(size: int) -> None:  # [STREAM-7]
    for name, prefix, text in library_outputs():
        parser = rs.compile(rs.schemas.load(name))
        try:
            expected = parser.parse(text, prefix)
        except rs.ParseError:
            continue
        deltas, message = streamed(parser, text, size, prefix)
        assembled = None
        texts: dict[str, str] = {}
        for delta in deltas:
            assembled = apply(assembled, delta)
            if delta["op"] == "json":
                texts[delta["path"]] = texts.get(delta["path"], "") + delta["text"]
        assert assembled == message == expected, (name, text)
        for path, sent in texts.items():  # the JSON text of a value parses to it
            value: Any = message
            for token in path.split("/")[1:]:
                value = value[int(token)] if isinstance(value, list) else value[token]
            assert json_equal(json.loads(sent), value), (name, text, path, sent)


def test_stream_ends_at_the_one_shot_parse_or_its_error() -> None:  # [STREAM-4], [STREAM-5]
    stream = QWEN3.stream()
    stream.feed(OUTPUT[:20])  # "<think>\nWeather firs": the thinking so far is sent, nothing else is proven
    assert stream.message == {"role": "assistant", "thinking": "Weather firs"}
    stream.feed(OUTPUT[20:])
    stream.finish()
    assert stream.message == QWEN3.parse(OUTPUT)
    failing = QWEN3.stream()
    failing.feed("Hi</think>there")
    with pytest.raises(rs.ParseError) as caught:
        failing.finish()
    assert (caught.value.category, caught.value.path) == ("missing-required", "")


def test_prefix_is_read_first() -> None:  # [STREAM-9]
    stream = QWEN3.stream(prefix="<think>\n")
    stream.feed("Plan.\n</think>\n\nDone.")
    stream.finish()
    assert stream.message == {"role": "assistant", "thinking": "Plan.", "content": "Done."}


def test_feed_after_finish_and_a_second_finish_are_usage_errors() -> None:  # [STREAM-5]
    stream = QWEN3.stream()
    stream.finish()
    with pytest.raises(StreamFinished):
        stream.feed("x")
    with pytest.raises(StreamFinished):
        stream.finish()
    with pytest.raises(TypeError):
        QWEN3.stream().feed(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        QWEN3.stream(prefix=None)  # type: ignore[arg-type]


def test_streams_on_one_parser_are_independent() -> None:
    streams = [QWEN3.stream() for _ in range(8)]
    texts = [OUTPUT.replace("Oslo", f"City{index}") for index in range(8)]

    def work(index: int) -> None:
        for char in texts[index]:
            streams[index].feed(char)

    threads = [threading.Thread(target=work, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for stream, text in zip(streams, texts, strict=True):
        stream.finish()
        assert stream.message == QWEN3.parse(text)


def test_openai_view_adds_up_to_the_message() -> None:  # [STREAM-8]
    for name, prefix, text in library_outputs():
        parser = rs.compile(rs.schemas.load(name))
        try:
            message = parser.parse(text, prefix)
        except rs.ParseError:
            continue
        view = OpenAIStream(parser.stream(prefix))
        chunks = [delta for at in range(0, len(text), 3) for delta in view.feed(text[at : at + 3])] + view.finish()
        assert all(isinstance(delta, dict) and delta for delta in chunks)
        if chunks:
            assert chunks[0]["role"] == "assistant"
        assert "".join(delta.get("content", "") for delta in chunks) == message.get("content", "")
        assert "".join(delta.get("reasoning_content", "") for delta in chunks) == message.get("thinking", "")
        calls: dict[int, dict[str, Any]] = {}
        for delta in chunks:
            for entry in delta.get("tool_calls", []):
                if "id" in entry:  # the first entry of a call: id, type and the whole name
                    assert entry["index"] == len(calls) and entry["type"] == "function" and entry["function"]["name"]
                    calls[entry["index"]] = {"name": entry["function"]["name"], "arguments": ""}
                calls[entry["index"]]["arguments"] += entry["function"]["arguments"]
        expected = message.get("tool_calls") or []
        assert [call["name"] for call in calls.values()] == [call["function"]["name"] for call in expected]
        assert [json.loads(call["arguments"]) for call in calls.values()] == [
            call["function"].get("arguments") or {} for call in expected
        ]


def test_openai_view_uses_the_message_s_ids() -> None:
    parser = rs.compile(rs.schemas.load("kimi-k2"))
    text = next(family for family in FAMILIES if family.name == "kimi-k2").render(calls=(WEATHER,))
    view = OpenAIStream(parser.stream(), make_id=lambda index: "unused")
    (first, _) = [delta for delta in view.feed(text) + view.finish() if "tool_calls" in delta]
    assert first["tool_calls"][0]["id"] == "functions.get_weather:0"


def test_chunkings_add_up_to_the_text() -> None:
    text = "<think>a</think>b<|im_end|>[TOOL_CALLS]x"
    found = chunkings(text, seed=3)
    assert all("".join(chunks) == text for chunks in found)
    assert len({json.dumps(chunks) for chunks in found}) == len(found)
    assert ["<think>", "a", "</think>", "b", "<|im_end|>", "[TOOL_CALLS]", "x"] in found
    assert chunkings("") == [[""], ["", "", ""], []]  # no feed at all is a chunking too


@pytest.mark.parametrize(
    "partial, value, holds",
    [
        (None, "anything", True),
        ({"a": "x"}, {"a": "xy", "b": 1}, True),
        ({"a": "y"}, {"a": "xy"}, False),
        ([1], [1, 2], True),
        ([1, 2, 3], [1, 2], False),
        (1, 1.0, True),
        (True, 1, False),
        (None, None, True),
        ({"a": None}, {"a": "x"}, False),
    ],
)
def test_part_of_is_the_spec_s_order(partial: Any, value: Any, holds: bool) -> None:  # [STREAM-2]
    assert part_of(partial, value) is holds


def cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "response_schema.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=env,
    )


def test_the_stream_command_prints_openai_deltas_as_they_come(tmp_path: Path) -> None:
    output = tmp_path / "out.txt"
    output.write_text(OUTPUT, encoding="utf-8")
    result = cli("stream", "qwen3", str(output), "--openai", "--chunk", "4")
    assert result.returncode == 0, result.stderr
    deltas = [json.loads(line) for line in result.stdout.splitlines()]
    assert deltas[0] == {"role": "assistant", "reasoning_content": "Weat"}  # sent as it comes
    assert "".join(delta.get("reasoning_content", "") for delta in deltas) == "Weather first."
    assert "".join(delta.get("content", "") for delta in deltas) == "Checking."
    bad = cli("stream", "qwen3", "-", "--chunk", "0")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_conformance_run_stream_passes_the_reference(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    result = cli("conformance", "run", "--stream", "-k", "stream.", "-k", "fmt.qwen3.", "--report", str(report))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["options"]["stream"] is True
    assert all(line["lag"]["max"] == 0 for line in lines[1:-1] if "lag" in line) and any(
        "lag" in line for line in lines
    )
    assert "lag against the reference, one character at a time: 0.00 characters" in result.stdout


EARLY = '''
import response_schema

FEATURES = response_schema.FEATURES


def parse(schema, text, tools=None):
    return response_schema.parse(schema, text, tools=tools)


class Early:
    """A planted bug: it sends the first character it reads as content, before anything proves it."""

    def __init__(self, schema, prefix):
        self.inner = response_schema.compile(schema).stream(prefix)
        self.message = None

    def feed(self, text):
        self.inner.feed(text)
        if self.message is None and text:
            self.message = {"content": text[0]}

    def finish(self):
        self.inner.finish()
        self.message = self.inner.message


STREAM = Early
'''


def test_conformance_run_stream_catches_and_minimises_a_retraction(tmp_path: Path) -> None:
    (tmp_path / "early.py").write_text(textwrap.dedent(EARLY), encoding="utf-8")
    report = tmp_path / "r.jsonl"
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
    result = cli("conformance", "run", "--stream", "--python", "early:parse", "-k", "fmt.qwen3.behaviour.one-call",
                 "--report", str(report), env=env)  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    record = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()][1]
    assert record["status"] == "fail"
    message = record["actual"]["error"]["message"]
    assert message.startswith('chunks ["\\n<tool_call>') and "[STREAM-3] after chunk 1" in message  # merged to one
    no_stream = cli("conformance", "run", "--stream", "--python", "response_schema:parse")
    assert no_stream.returncode == 2 and "has no STREAM" in no_stream.stderr
    protocol_1 = f"{sys.executable} conformance/adapters/python/adapter.py response_schema:parse"  # no STREAM
    command = cli("conformance", "run", "--stream", "--command", protocol_1, "-k", "stream.")
    assert command.returncode == 2 and "nothing was judged" in command.stderr  # protocol 1: unsupported, not failed
    assert "26 unsupported" in command.stdout


def test_protocol_2_streams_through_a_process() -> None:  # PROTOCOL.md, "stream"
    serve = f"{sys.executable} -m response_schema conformance serve"
    served = cli("conformance", "run", "--stream", "--command", serve, "-k", "stream.", "-k", "fmt.qwen3.behaviour.one")
    assert served.returncode == 0 and "pass" in served.stdout and "unsupported" not in served.stdout, served.stdout
    requests = [
        {"cmd": "hello", "protocol": 1, "protocols": [1, 2]},
        {"cmd": "stream", "seq": 1, "group": "g", "schema": {"type": "string", "x-regex": "a(.*)"}, "test": "t",
         "prefix": "", "chunkings": [["ab", "c"], ["abc"]]},
    ]  # fmt: skip
    lines = "".join(json.dumps(line) + "\n" for line in requests)
    answer = subprocess.run([sys.executable, "-m", "response_schema", "conformance", "serve"], capture_output=True,
                            text=True, input=lines, timeout=60)  # fmt: skip
    hello, streamed = (json.loads(line) for line in answer.stdout.splitlines())
    assert hello["protocol"] == 2
    assert streamed == {"seq": 1, "results": [{"partials": ["b", "bc"], "end": {"output": "bc"}},
                                              {"partials": ["bc"], "end": {"output": "bc"}}]}  # fmt: skip
    old = subprocess.run([sys.executable, "-m", "response_schema", "conformance", "serve"], capture_output=True,
                         text=True, input=json.dumps({"cmd": "hello", "protocol": 1}) + "\n" + json.dumps(requests[1])
                         + "\n", timeout=60)  # fmt: skip
    assert json.loads(old.stdout)["protocol"] == 1 and "stream is protocol 2" in old.stderr and old.returncode == 2


def test_grow_and_apply_grow_a_partial_value() -> None:  # [STREAM-7]
    old = {"a": "x", "l": [1]}
    new = {"a": "xyz", "l": [1, {"k": "v"}], "b": 2, "s/~": True}
    first: list[Any] = []
    sent = grow(None, old, "", first, {})
    assert first == [{"op": "add", "path": "", "value": old}] and first[0]["value"] is not old
    deltas: list[Any] = []
    sent = grow(sent, new, "", deltas, {})
    message: Any = {"a": "x", "l": [1]}
    for delta in deltas:
        message = apply(message, delta)
    assert message == new == sent_value(sent)
    assert {"op": "append", "path": "/a", "text": "yz"} in deltas
    assert {"op": "add", "path": "/s~1~0", "value": True} in deltas
    assert apply(message, {"op": "end", "path": "/a"}) is message
    assert apply({"l": ["a"]}, {"op": "append", "path": "/l/0", "text": "b"}) == {"l": ["ab"]}
    nothing: list[Any] = []
    assert grow(None, None, "", nothing, {}) is None and grow(sent, new, "", nothing, {}) is sent and nothing == []
    buffer = Buffer("<a>xyzw!")
    assert grow(sent, {"a": OpenText.span(buffer, 3, 7)}, "", nothing, {}) is sent  # "xyzw": read from where "xyz" ends
    assert nothing == [{"op": "append", "path": "/a", "text": "w"}] and sent_value(sent)["a"] == "xyzw"


class _Early:
    def __init__(self, schema: Any, prefix: str) -> None:
        self.inner = rs.compile(schema).stream(prefix)
        self.message: Any = None

    def feed(self, text: str) -> None:
        self.inner.feed(text)
        if self.message is None and text:
            self.message = {"content": text[0]}

    def finish(self) -> None:
        self.inner.finish()
        self.message = self.inner.message


class _Wrong(_Early):
    def feed(self, text: str) -> None:
        self.inner.feed(text)

    def finish(self) -> None:
        self.inner.finish()
        self.message = {"content": "other"}


class _Late(_Early):
    """Sound but late: it sends nothing before the output is complete."""

    def feed(self, text: str) -> None:
        self.inner.feed(text)


def test_lag_counts_the_characters_until_the_reference_s_partial_is_sent() -> None:  # [STREAM-6]
    from response_schema.harness.streaming import lag

    reference = [None, {"content": "a"}, {"content": "ab"}]
    assert lag(reference, reference, {"content": "ab"}) == {"mean": 0.0, "max": 0}
    assert lag(reference, [None, None, {"content": "a"}], {"content": "ab"}) == {"mean": 0.667, "max": 1}
    assert lag(reference, [None] * 3, {"content": "ab"}) == {"mean": 1.0, "max": 2}
    assert lag(None, [None], "x") is None and lag([], [], "x") is None


def test_streamed_judges_each_test_in_process() -> None:  # [STREAM-3], [STREAM-4]
    from response_schema.harness.corpus import corpus_dir, load
    from response_schema.harness.implementations import Reference
    from response_schema.harness.streaming import Streamed, in_process

    group = next(group for group in load([corpus_dir()]).groups if group.id == "stream.regions")
    tests = list(group.tests)
    good = Streamed(Reference(), in_process(lambda schema, prefix: rs.compile(schema).stream(prefix)))
    assert all(outcome.get("error", {}).get("phase") != "stream" for outcome in good.run(group, tests, 5.0))
    early = Streamed(Reference(), in_process(_Early)).run(group, tests[:1], 5.0)[0]
    assert early["error"]["phase"] == "stream" and "[STREAM-3]" in early["error"]["message"]
    wrong = Streamed(Reference(), in_process(_Wrong)).run(group, tests[:1], 5.0)[0]
    assert wrong == {"output": {"content": "other"}}  # every chunking agrees: the runner judges it a fail
    late = Streamed(Reference(), in_process(_Late)).run(group, tests[:1], 5.0)[0]
    reference = good.run(group, tests[:1], 5.0)[0]
    assert reference["lag"] == {"mean": 0.0, "max": 0}  # [STREAM-6]: measured against the reference
    assert late["output"] == reference["output"] and late["lag"]["max"] == len(tests[0].input)
    assert good.stderr_tail() == "" and good.start() is None and good.stop() is None


def test_every_corpus_case_streams_soundly_in_process() -> None:  # [STREAM-3], [STREAM-4], [STREAM-5]
    """Every case, fed 3 characters at a time: each partial value is a part of the one-shot result and of the
    next, and the end is the one-shot result or its error. (conformance run --stream tries every chunking.)"""
    judged = 0
    for parser, test in compiled_tests():
        assert_streams_soundly(parser, test.prefix, test.input, 3, test.id)
        judged += 1
    assert judged > 700


def test_conformance_fuzz_streams_and_shrinks_what_it_finds(tmp_path: Path) -> None:
    clean = cli("conformance", "fuzz", "--stream", "--count", "40")
    assert clean.returncode == 0 and "0 disagreements" in clean.stdout, clean.stdout + clean.stderr
    (tmp_path / "early.py").write_text(textwrap.dedent(EARLY), encoding="utf-8")
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
    found = cli("conformance", "fuzz", "--stream", "--python", "early:parse", "--count", "40", "--out",
                str(tmp_path / "out"), env=env)  # fmt: skip
    assert found.returncode == 1, found.stdout + found.stderr
    cases = json.loads((tmp_path / "out" / "fuzz-s0.json").read_text(encoding="utf-8"))
    assert cases["groups"] and "[STREAM-3]" in cases["groups"][0]["description"]


def test_a_replay_shows_what_is_held_back_and_why() -> None:  # the playground's replay
    from response_schema.stream.replay import replay

    shown = replay(QWEN3, "<think>\nPlan  it.\n</think>\n\nx <tool y<|im_end|>")
    steps = shown["steps"]
    assert steps[0]["sent"] == {"role": "assistant"} and shown["end"]["value"]["content"] == "x <tool y"
    reasons = [why for step in steps for _, _, why in step.get("held", [])]
    assert "whitespace at the end: it is kept only if more text follows" in reasons  # "Plan  " before "it"
    assert "'<tool' may be the start of '<tool_call>'" in reasons
    assert replay(QWEN3, "</think>")["end"] == {"error": {"category": "missing-required", "path": ""}}
    opaque = replay(
        rs.compile({"x-regex": "(?P<one>a)(?P=one)(?P<rest>.*)"}), "aab"
    )  # a backreference: opaque, sent at the end
    assert all("held" not in step or "not decided" in step["held"][0][2] for step in opaque["steps"])


LONG_TEXT = "Checking the forecast for the coast, then the hills.\n  " * 30  # 1,650 characters, longer than CUT


def test_a_long_call_streams_its_arguments_as_they_arrive() -> None:  # [STREAM-3], [STREAM-6]
    """A call whose arguments are longer than ``CUT`` (a file being written): its candidates are not read whole on
    every feed (cost), and still every partial value is a part of the result, and the arguments' JSON text is
    sent within a few characters of what arrived, in every family that sends it as text."""
    from response_schema.stream.analysis import CUT

    assert len(LONG_TEXT) > CUT
    streaming_text = []
    for family in FAMILIES:
        parser = rs.compile(rs.schemas.load(family.name))
        calls = (("write_file", {"path": "notes.md", "text": LONG_TEXT}), ("get_weather", {"city": "Oslo"}))
        output = family.render(content="Saving it.", calls=calls)
        assert_streams_soundly(parser, family.prefill, output, 4, family.name)
        stream, sent = parser.stream(family.prefill), 0
        body_end = output.find('hills.\\n  "') + len("hills.\\n")  # the last line of the text, as JSON escapes it
        arguments = output.find('{"path"')
        for at in range(0, body_end, 4):
            for delta in stream.feed(output[at : at + 4]):
                if delta["op"] == "json" and delta["path"] == "/tool_calls/0/function/arguments":
                    sent += len(delta["text"])
        if sent:
            streaming_text.append(family.name)
            assert sent >= body_end - arguments - 8, (family.name, sent, body_end - arguments)
    assert len(streaming_text) >= 5, streaming_text


@pytest.mark.parametrize("first", [WEATHER, ("write_file", {"path": "notes.md", "text": LONG_TEXT})])
def test_arguments_sent_as_json_text_are_in_the_message_once_their_call_closes(first: Any) -> None:
    """Arguments whose JSON text streams ([STREAM-7] "json") are added as their value, and ended, as soon as the
    call's text is known whole, not when the output ends: a client can run the first call while the model writes
    the second. What was sent of the text is not sent again, and the texts sent parse to the value. A text longer
    than ``CUT`` too (read by a scan kept between feeds, not parsed on every feed)."""
    name, arguments = first
    second = ("get_time", {"zone": "CET"})
    families = []
    for family in FAMILIES:
        parser = rs.compile(rs.schemas.load(family.name))
        output = family.render(content="Checking.", calls=((name, arguments), second))
        second_starts = output.index("get_time")
        stream, texts, known_at = parser.stream(family.prefill), "", None
        pointer = "/tool_calls/0/function/arguments"
        for at in range(0, len(output), 4):
            for delta in stream.feed(output[at : at + 4]):
                if delta["path"] != pointer:
                    continue
                if delta["op"] == "json":
                    assert known_at is None, family.name  # nothing of the text after its value
                    texts += delta["text"]
                elif delta["op"] == "add":
                    known_at = at
                    assert delta["value"] == arguments and json.loads(texts) == arguments, family.name
                else:
                    assert delta["op"] == "end" and known_at == at, family.name  # sent with its value
            if known_at is not None and at < second_starts:
                assert stream.message["tool_calls"][0]["function"]["arguments"] == arguments
        stream.finish()
        if texts:  # a family whose arguments stream as text
            families.append(family.name)
            assert known_at is not None and known_at < second_starts, family.name
    assert sorted(families) == ["deepseek-r1", "deepseek-v3", "deepseek-v3.1", "gpt-oss", "kimi-k2", "mistral-v11"]


def test_every_library_output_streams_soundly_when_every_candidate_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``CUT`` at 0 every text that is one candidate among several is described by an earlier outcome on the
    open text it was cut from (``Analysis.candidate``): each partial value is still a part of the result."""
    import response_schema.stream.analysis as analysis

    monkeypatch.setattr(analysis, "CUT", 0)
    for name, prefix, text in library_outputs():
        assert_streams_soundly(rs.compile(rs.schemas.load(name)), prefix, text, 1, (name, text))


ARGS = {"type": "object", "x-regex": "ARGS(.*)", "x-parser": "json", "properties": {"a": {"type": "string"}}}
JSON_TO_THE_END = rs.compile({"type": "object", "properties": {"args": ARGS}})


@pytest.mark.parametrize(
    "tail",
    ["", "  \n", " trailing", ', "b": "x\\"}"}', "}"],
    ids=["closed", "whitespace", "text", "more-keys", "stray-closer"],
)
def test_a_long_json_text_to_the_end_is_sent_when_it_closes(tail: str) -> None:  # [PARSER-2], [STREAM-3]
    """A JSON object parsed from a match that runs to the end of the output, longer than ``CUT``: read by a scan that
    keeps its place (``JSONScan``), not parsed whole on every feed. Its value is sent with the closing brace, kept
    while only whitespace follows, and every partial value is a part of the result, or the stream ends in its
    error; escaped quotes and brackets inside strings do not close it."""
    body = ", ".join(f'"k{index}": "a \\" [{{ {index}"' for index in range(40))
    output = 'ARGS {"a": "x", ' + body + "}" + tail
    for size in (1, 4, 7):
        assert_streams_soundly(JSON_TO_THE_END, "", output, size, (tail, size))
    stream = JSON_TO_THE_END.stream()
    close = len(output) - len(tail)
    for at in range(close - 1):
        stream.feed(output[at])
        assert stream.message == {}, at
    stream.feed(output[close - 1])
    assert stream.message == JSON_TO_THE_END.parse(output[:close]) != {}


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "b\\"}", "c": [1, {"d": null}]}',
        ' [1, "]", 2] ',
        '"str\\\\" x',
        "  true ",
        " false x",
        "nul",
        "null",
        "truex",
        "falsey",
        "-3.5e7",
        "12 ",
        "the answer",
        '{"a": 1}}',
        '{"a": 1} \n',
        "\\{",
        "{]",
        "[[[]]]",
    ],
)
def test_the_json_scan_of_an_open_text_agrees_with_parsing_every_prefix(text: str) -> None:  # [PARSER-2]
    """``JSONScan`` says a text is complete JSON exactly when parsing what arrived says so, after every chunk."""
    from response_schema.stream.analysis import ANY, JSONScan, Open, json_complete

    for size in (1, 3):
        buffer = Buffer()
        scan = JSONScan(Open(buffer, 0), lambda whole: "complete" if json_complete(whole) else ANY)
        for at in range(0, len(text), size):
            buffer.grow(text[at : at + size])
            got = scan.advance()
            assert (got == "complete") == json_complete(buffer.text), (buffer.text, size)


def test_a_long_call_is_not_read_whole_on_every_feed(monkeypatch: pytest.MonkeyPatch) -> None:  # [STREAM-6]
    """A call longer than ``CUT`` ends wherever the output may end, so each feed gives a new candidate text that
    runs to the end of what arrived (a call cut there) or to just before it: those are described by an earlier
    outcome on the open text they are cut from (``Analysis.remembered``), not read whole. The stream's work on
    texts known whole stays linear in the output (per character, no more for a call four times as long) in every
    family; granite, llama3, llama4, mistral-v3 and phi4-mini read a candidate of their calls whole on every feed
    before (quadratic)."""
    import response_schema.stream.analysis as analysis

    read = [0]
    exact_stages, exact = analysis.Analysis.exact_stages, analysis.Analysis.exact

    def counting_stages(self: Any, node: Any, value: Any) -> Any:
        read[0] += len(value) if isinstance(value, str) else 0
        return exact_stages(self, node, value)

    def counting_exact(self: Any, node: Any, value: Any) -> Any:
        read[0] += len(value) if isinstance(value, str) else 0
        return exact(self, node, value)

    monkeypatch.setattr(analysis.Analysis, "exact_stages", counting_stages)
    monkeypatch.setattr(analysis.Analysis, "exact", counting_exact)
    for family in FAMILIES:
        per_char = []
        for text in (LONG_TEXT, LONG_TEXT * 4):
            output = family.render(content="Saving it.", calls=(("write_file", {"path": "notes.md", "text": text}),))
            read[0] = 0
            stream = rs.compile(rs.schemas.load(family.name)).stream(family.prefill)
            for at in range(0, len(output), 4):
                stream.feed(output[at : at + 4])
            stream.finish()
            per_char.append(read[0] / len(output))
        assert per_char[1] <= per_char[0] + 1, (family.name, per_char)  # what texts shorter than CUT cost is fixed


def test_calls_already_sent_are_not_read_again(calls_counted: list[Counted]) -> None:  # [STREAM-6], [ARR-2]
    """An output with many calls streams at a cost per character that does not grow with the number of calls: a
    call whose match was known whole at an earlier feed is analysed once (``ItemsRead``) and what sent it does not
    walk it again (``OpenArray.settled``). Before, every feed analysed and walked every call found so far: 400
    calls cost 5x what 10 did per character (Qwen3), 6x (Kimi K2). Work is counted, not timed: the nodes
    analysed and the values the deltas are grown from, per character, in every family, with and without tools."""
    for family, with_tools, work, _ in calls_counted:
        assert work[1] <= work[0] * 1.5, (family, with_tools, work)


def test_no_feed_reads_the_whole_output(monkeypatch: pytest.MonkeyPatch) -> None:  # [STREAM-6]
    """The whole text of a stream's buffer (``Buffer.text``) is read by ``finish`` only: a feed reads the characters
    it needs. Closing each call's arguments (their JSON text known whole, [STREAM-7]) once read the whole output,
    which made an output of many calls quadratic again."""
    from response_schema.stream.pike import Buffer

    read = [0]
    text = Buffer.text

    def counted(self: Buffer) -> str:
        read[0] += 1
        return text.fget(self)  # type: ignore[attr-defined,no-any-return]

    monkeypatch.setattr(Buffer, "text", property(counted))
    for family in FAMILIES:
        output = family.render(content="Checking.", calls=(WEATHER,) * 20)
        stream, read[0] = rs.compile(rs.schemas.load(family.name)).stream(family.prefill), 0
        for at in range(0, len(output), 4):
            stream.feed(output[at : at + 4])
        assert read[0] == 0, family.name
        stream.finish()
        assert read[0] == 1 and len(stream.message["tool_calls"]) == 20, family.name


def test_calls_already_found_are_not_copied_on_every_feed(calls_counted: list[Counted]) -> None:  # [STREAM-6]
    """The calls found so far are shared from feed to feed, not copied on each: the array a feed gives leaves
    out its settled calls (``OpenArray.head``), and what is sent and typed from it reads only the calls after them.
    Before, four copies of the calls found so far were made on every feed (the iterator's matches, the array's
    values, the array without its JSON texts, the typed calls): Kimi K2 outputs of 3,000 calls cost 1.15x, and of
    10,000 calls 1.5x, what 100 calls cost per character. Copies are counted, not timed: the items put into open
    arrays and the iterator's lists of matches, per character, in every family, with and without tools."""
    for family, with_tools, _, copied in calls_counted:
        assert copied[1] <= copied[0] * 1.5 + 0.05, (family, with_tools, copied)


Counted = tuple[str, bool, list[float], list[float]]


@pytest.fixture(scope="module")
def calls_counted() -> list[Counted]:
    """For every family, with and without tools, over a stream of outputs of 5 and of 60 calls fed 4 characters at a
    time: the work per character (nodes analysed, values grown) and the copies per character (items put into open
    arrays, the iterator's new lists of matches), counted in one run of the streams."""
    import response_schema.stream.analysis as analysis
    import response_schema.stream.partial as partial

    work, copied, given = [0], [0], {}
    node, grow, init, advance = (
        analysis.Analysis.node,
        partial.grow,
        partial.OpenArray.__init__,
        analysis.Iterator.advance,
    )

    def counting_node(self: Any, *args: Any) -> Any:
        work[0] += 1
        return node(self, *args)

    def counting_grow(*args: Any) -> Any:
        work[0] += 1
        return grow(*args)

    def counting_init(self: Any, *args: Any) -> None:
        init(self, *args)
        copied[0] += len(self)

    def counting_advance(self: Any) -> Any:
        items = advance(self)
        if given.get(id(self)) is not items.known:
            copied[0] += len(items.known)
            given[id(self)] = items.known
        return items

    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    counted: list[Counted] = []
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(analysis.Analysis, "node", counting_node)
        monkeypatch.setattr(partial, "grow", counting_grow)
        monkeypatch.setattr(partial.OpenArray, "__init__", counting_init)
        monkeypatch.setattr(analysis.Iterator, "advance", counting_advance)
        for family in FAMILIES:
            for with_tools in (None, tools):
                work_per_char, copied_per_char = [], []
                for count in (5, 60):
                    calls = tuple(("get_weather", {"city": f"Paris {index}", "days": [1, 2]}) for index in range(count))
                    output = family.render(content="Checking.", calls=calls)
                    work[0], copied[0] = 0, 0
                    given.clear()
                    stream = rs.compile(rs.schemas.load(family.name)).stream(family.prefill, with_tools)
                    for at in range(0, len(output), 4):
                        stream.feed(output[at : at + 4])
                    stream.finish()
                    work_per_char.append(work[0] / len(output))
                    copied_per_char.append(copied[0] / len(output))
                counted.append((family.name, with_tools is not None, work_per_char, copied_per_char))
    return counted


def test_a_node_whose_match_is_certain_is_analysed_once(monkeypatch: pytest.MonkeyPatch) -> None:  # [REGEX-2]
    """Once a node's match is certain and more text has followed it (a closed thinking block), no later feed runs
    that node's stages again: the outcome of the first feed that found it certain stands for the rest of the
    stream. Before, every feed searched, described and typed a closed thinking block anew. The deltas are the
    ones every other test checks (the outcome is the one the node's stages give)."""
    import response_schema.stream.analysis as analysis

    ran: list[str] = []

    def recording(stages: Any) -> Any:
        def record(self: Any, node: Any, content: Any) -> Any:
            ran.append(node.path)
            return stages(self, node, content)

        return record

    monkeypatch.setattr(analysis.Analysis, "regexed", recording(analysis.Analysis.regexed))
    monkeypatch.setattr(analysis.Analysis, "substituted", recording(analysis.Analysis.substituted))  # content
    monkeypatch.setattr(Stream, "_after", lambda self, known, texts: None)  # every feed runs the analysis
    families = [family for family in FAMILIES if family.think is not None]
    assert len(families) >= 12
    for family in families:
        output = family.render(thinking="Weighing it. " * 20, content="The answer is four. " * 20)
        closed = output.index("The answer")  # the block and its closer are in, and text follows them
        stream = rs.compile(rs.schemas.load(family.name)).stream(family.prefill)
        stream.feed(output[:closed])
        ran.clear()
        for at in range(closed, len(output), 4):
            stream.feed(output[at : at + 4])
        # the feed that finds the match certain, and the next one, which makes the outcome that stands
        assert ran.count("/properties/thinking") <= 2, family.name
        assert ran, family.name  # the content node is still read


def test_a_substitution_waits_only_while_what_it_reads_stays() -> None:  # [STREAM-6]
    """A substitution whose search keeps its entries from feed to feed adds nothing to its output only when every
    position that output reads stays where it is (``Replacing._still``). Here each character is certain as it
    arrives: a group the replacement inserts ends at the end of the text, and a match that may fail leaves the
    text so far, which agrees with the replacement's first characters."""

    def contents(substitution: list[str], text: str) -> list[Any]:
        schema = {
            "type": "object",
            "properties": {"content": {"type": "string", "x-regex-substitutions": [substitution]}},
        }
        stream = rs.compile(schema).stream()
        sent = []
        for char in text:
            stream.feed(char)
            sent.append((stream.message or {}).get("content"))
        return sent

    assert contents(["a(.*?)(?:c|$)", "a\\1"], "xabbbbb") == ["x", "xa", "xab", "xabb", "xabbb", "xabbbb", "xabbbbb"]
    assert contents(["^ab+c", "abbbbbbb"], "abbbbb") == ["a", "ab", "abb", "abbb", "abbbb", "abbbbb"]


def test_a_text_node_reads_its_substitutions_output_only_as_it_grows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stages after a text node's substitutions (the library's content: its x-regex, then its type) read only
    the substitutions' output, which only grows ([STREAM-3]): while thinking streams, content's output does not
    grow, and its x-regex is not run again; when content arrives, it is. Before, every feed ran it. The deltas are
    the ones every other test checks (the outcome is the one those stages gave on the same output)."""
    import response_schema.stream.analysis as analysis

    searched: list[str] = []
    regex = analysis.Analysis.regex

    def recording(self: Any, pattern: Any, content: Any) -> Any:
        searched.append(pattern.pattern)
        return regex(self, pattern, content)

    monkeypatch.setattr(analysis.Analysis, "regex", recording)
    families = [family for family in FAMILIES if family.think is not None]
    assert len(families) >= 12
    for family in families:
        parser = rs.compile(rs.schemas.load(family.name))
        content = dict(parser.root.properties)["content"]
        assert content.substitutions and content.regex is not None, family.name
        output = family.render(thinking="Weighing it. " * 20, content="The answer is four. " * 5)
        middle, last = output.index("Weighing it. ") + 40, output.rindex("Weighing it. ")
        stream = parser.stream()  # the output holds the opener
        stream.feed(output[:middle])
        searched.clear()
        for at in range(middle, last, 4):
            stream.feed(output[at : min(at + 4, last)])
        assert content.regex.pattern not in searched, family.name
        for at in range(last, len(output), 4):
            stream.feed(output[at : at + 4])
        assert content.regex.pattern in searched, family.name  # content arrived: its x-regex reads it
        stream.finish()
        assert stream.message == parser.parse(output), family.name


def test_a_description_several_threads_give_is_analysed_once() -> None:  # [STREAM-6]
    """Threads that differ only where the match value does not look (a group that ended at the end of the text or
    is still open there) give equal descriptions: ``distinct`` keeps the first of each, in order, so the meet over
    them (the same outcome met with itself) is computed once. Spans are equal by where they are, open texts by
    where they start and stop, fields by their fields."""
    from response_schema.stream.analysis import ANY, NO_MATCH, Exact, Fields, Open, distinct

    buffer, other = Buffer('<call>{"a": 1'), Buffer("x")
    open_text, span = Open(buffer, 6), Exact.span(buffer, 0, 6)
    contents = [
        open_text,
        Open(buffer, 6),
        Open(buffer, 6, 9),
        Open(other, 6),
        span,
        Exact.span(buffer, 0, 6),
        Fields({"name": Open(buffer, 6)}),
        Fields({"name": Open(buffer, 6)}),
        Fields({"name": Open(buffer, 7)}),
        NO_MATCH,
        ANY,
        NO_MATCH,
        Exact(None),
        Exact(None),
    ]
    kept = distinct(contents)
    assert [next(i for i, c in enumerate(contents) if c is each) for each in kept] == [0, 2, 3, 4, 6, 8, 9, 10, 12, 13]


@pytest.mark.parametrize(
    "pattern",
    [
        r"^\s*<think>\s*(.*?)\s*(?:</think>|(?=<tool_call>)|$)",
        r"<tool_call>\s*(?P<call>.*?)\s*(?:</tool_call>|$)",
        r"^(?:<think>.*?(?:</think>|$))?(.*)$",
    ],
)
def test_match_values_made_from_a_memo_name_are_those_its_entries_give(pattern: str) -> None:  # [REGEX-5]
    """While a search's threads have a Memo name, its match values are made from the name's places (``matches``):
    at every character they are the values its entries give, and a steady stretch of text meets its names again."""
    import re

    from response_schema.stream import analysis
    from response_schema.stream.pike import Search, compile_program

    def described(value: Any) -> Any:
        if isinstance(value, analysis.Open):
            return ("open", value.buffer, value.base, value.end)
        if isinstance(value, analysis.Exact):
            return ("exact", value.origin, value.value)
        if isinstance(value, analysis.Fields):
            return ("fields", {name: described(each) for name, each in value.fields.items()})
        return value

    compiled = re.compile(pattern)
    program = compile_program(compiled)
    assert program is not None
    buffer = Buffer()
    search = Search(program, buffer, 0, 0)
    steady = "First the weather, then the tides. " * 4
    text = f'<think>\n{steady}\n</think>\n{steady}<tool_call>\n{{"name": "tides"}}\n</tool_call>'
    met_again = 0
    for char in text:
        buffer.grow(char)
        search.advance()
        named = search.named
        met_again += named is not None and analysis._MATCHES.get(id(named), (None,))[0] is named
        entries, more = search.candidates()
        direct = analysis.distinct([analysis.match_value(compiled, program, buffer, entry) for entry in entries])
        made, made_more = analysis.matches(compiled, program, search)
        assert ([described(each) for each in made], made_more) == ([described(each) for each in direct], more)
    assert met_again > 0


def _sent(parser: rs.Parser, prefix: str, text: str, sizes: list[int]) -> list[Any]:
    """What a stream sends on ``text`` fed in chunks of ``sizes`` (repeated), feed by feed, and how it finishes."""
    stream = parser.stream(prefix)
    sent: list[Any] = []
    at = index = 0
    try:
        while at < len(text):
            size = sizes[index % len(sizes)]
            sent.append(stream.feed(text[at : at + size]))
            at, index = at + size, index + 1
        sent.append(stream.finish())
    except rs.ParseError as error:
        sent.append((error.category, error.path))
    return sent


def _applied(sent: list[Any]) -> Any:
    """The message a client holds after the deltas of ``sent``'s feeds (``apply``; JSON texts kept aside)."""
    message = None
    for deltas in sent:
        for delta in deltas:
            message = apply(message, delta)
    return message


def test_a_steady_feed_sends_what_the_analysis_sends(monkeypatch: pytest.MonkeyPatch) -> None:  # [STREAM-6]
    """A feed after which the analysis would do what it did last, on texts that are only longer, sends their new
    characters without running it (``steady.py``): feed by feed, exactly what running it sends, on every library
    output, long ones (thinking, content and a long call, where most feeds are steady) and fuzz-generated schemas
    and outputs, in several chunkings. Many of those feeds are sent by the steady of a run before the last
    (``Stream._recall``: a text that holds back a space at the end of the output, then does not). A run that
    follows steady feeds may find an older outcome remembered for a long text cut from an open one
    (``Analysis.remembered``) than a stream that runs at every feed, which forgets it sooner and reads the text
    whole: it sends less, never more, and the same in the end. One stream here does (DeepSeek V3's long call fed
    one character at a time: its arguments' value is sent with the last character of the call's end marker, not
    the one before)."""
    from response_schema.harness.fuzzgen import Generator
    from response_schema.stream import steady

    cases = [(rs.schemas.load(name), prefix, text) for name, prefix, text in library_outputs()]
    part = "Checking the forecast for the coast, then the hills.\n" * 12
    for family in FAMILIES:
        text = family.render(thinking=part if family.think else None, content=part, calls=(("note", {"text": part}),))
        cases.append((rs.schemas.load(family.name), family.prefill or "", text))
    generator = Generator(5, frozenset(rs.FEATURES))
    for _ in range(150):
        pair = generator.pair()
        cases += [(pair.schema, "", text) for text in pair.inputs]
    steady_feeds, recalled = [0], [0]
    feed, recall = steady.Steady.feed, Stream._recall

    def counted(self: Any) -> Any:
        deltas = feed(self)
        steady_feeds[0] += deltas is not None
        return deltas

    def counted_recall(self: Any) -> Any:
        deltas = recall(self)
        recalled[0] += deltas is not None
        return deltas

    monkeypatch.setattr(steady.Steady, "feed", counted)
    monkeypatch.setattr(Stream, "_recall", counted_recall)
    results = []
    for schema, prefix, text in cases:
        try:
            parser = rs.compile(schema)
        except rs.SchemaError:
            continue
        results.append((parser, prefix, text, [_sent(parser, prefix, text, sizes) for sizes in ([1], [4], [3, 1, 8])]))
    assert steady_feeds[0] > 10_000 and recalled[0] > 1_000, (steady_feeds, recalled)
    monkeypatch.setattr(Stream, "_after", lambda self, known, texts: None)  # every feed runs the analysis
    differ = []
    for parser, prefix, text, sent in results:
        for sizes, steadily in zip(([1], [4], [3, 1, 8]), sent, strict=True):
            ran = _sent(parser, prefix, text, sizes)
            if ran != steadily:
                differ.append(text)
                assert ran[-1] == steadily[-1] or isinstance(ran[-1], tuple), (prefix, text)
                assert all(part_of(_applied(steadily[: at + 1]), _applied(ran[: at + 1])) for at in range(len(ran) - 1))
    assert len(differ) <= 1, differ  # DeepSeek V3's long call fed one character at a time


def _runs(family: Any, part: str, prefix: str, text: str | None = None) -> tuple[int, int]:
    """How many feeds of a family's output (``part`` as its thinking, content and a call's argument, or ``text``)
    run the analysis when it is fed 4 characters at a time, and how many feeds there are."""
    from response_schema.stream import analysis

    runs = [0]
    run = analysis.Analysis.run

    def counted(self: Any, buffer: Any) -> Any:
        runs[0] += 1
        return run(self, buffer)

    if text is None:
        text = family.render(thinking=part if family.think else None, content=part, calls=(("note", {"text": part}),))
    stream = rs.compile(rs.schemas.load(family.name)).stream(prefix)
    feeds = range(0, len(text), 4)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(analysis.Analysis, "run", counted)
        for at in feeds:
            stream.feed(text[at : at + 4])
    return runs[0], len(feeds)


def test_most_feeds_of_a_long_output_send_without_running_the_analysis() -> None:  # [STREAM-6]
    """A long output whose thinking, content and call arguments are plain text, fed 4 characters at a time, runs
    the analysis on few feeds: the feed after a marker, and where a state's shape is new. A text that holds back a
    space at the end of the output, then does not, takes turns between two shapes, each sent by its run's steady
    (``Stream._recall``); a call's text cut before such a space reads as the open one when that changes nothing
    (``Analysis.remembered``), and a JSON text's first character is read alone (``OpenText.first_after``: DeepSeek
    V3 ran on each of its call's first 64 characters). BENCHMARKS.md counts them on long outputs."""
    part = "Checking the forecast for the coast, then the hills.\n" * 12
    for family in FAMILIES:
        runs, feeds = _runs(family, part, family.prefill or "")
        assert runs <= feeds // 8, (family.name, runs, feeds)


def test_a_long_call_cut_before_a_space_reads_as_the_open_one() -> None:  # [STREAM-6]
    """A call whose arguments are a long text, words and spaces, fed 4 characters at a time: at a feed that ends
    with a space, the call's text cut before it (the match if the output ends there) gives the outcome the open
    text gives, since its schema reads both alike (``Analysis.spaced``, stream/trailing.py). Without that, each
    such feed ran the analysis, and the next one too: 8% to 12% of the feeds in these formats."""
    part = "Checking the forecast for the coast, then the hills. " * 63
    for family in FAMILIES:
        if family.name in ("kimi-k2", "deepseek-v3", "deepseek-v3.1", "deepseek-r1", "llama3"):
            runs, feeds = _runs(family, part, "")
            assert runs <= feeds // 16, (family.name, runs, feeds)


def test_short_calls_send_without_running_at_each_feed() -> None:  # [STREAM-6]
    """Four calls with short JSON arguments after a short answer, fed 4 characters at a time. The arguments' first
    character is read alone, not the 64 characters after it (``OpenText.first_after``); a call's text cut before
    a space reads as the open one however short it is (``Analysis.remembered``); and while the content's
    substitutions delete a call, their output does not grow, so the states its stages keep, found at its end, are
    the next run's too (``Substitutions.shape``, ``Analysis.keep_shapes``). Before, 79% to 91% of these feeds ran
    the analysis in these formats; the markers' own characters still do (each is a new state of a search)."""
    arguments = {"city": "Paris", "days": 3, "note": "the coast, then the hills"}
    for family in FAMILIES:
        if family.name in ("qwen3", "qwen3.5", "mistral-v11", "deepseek-v3.1"):
            text = family.render(thinking=None, content="Let me look that up.", calls=(("get_weather", arguments),) * 4)
            runs, feeds = _runs(family, "", family.prefill or "", text)
            assert runs <= feeds // 2, (family.name, runs, feeds)


def test_a_long_call_name_does_not_run_at_each_feed() -> None:  # [STREAM-6]
    """The feeds inside a long call name are steady, in every format. Two causes made each of them run the analysis:
    - Kimi K2's and Gemma 4's call iterators begin with a lookahead over the call's name (``(?=\\s*(?:functions\\.)?
      [\\w.\\-]+:\\d+)`` in Kimi K2), open until the name ends. Made at an older position, it was a shape no feed
      could repeat (98 of 111 feeds ran in Kimi K2, 79 of 87 in Gemma 4). Still undecided, it is its position and
      what its search holds (``Search._shape``).
    - DeepSeek's name regex may leave out its ``function`` and its separator, so a name still open is met with the
      name ``function`` (``partial.meet``). The two differ at their first character, but their common prefix was
      found by reading the open name whole, to the end of the output: no run was steady (82 and 85 of 108 feeds ran
      in DeepSeek V3 and R1). Only what decides the prefix is read now (``common_text``): the first characters, to
      the first that differs."""
    name = "get_the_weather_for_the_coast_and_the_hills_" * 6 + "now"
    for family in FAMILIES:
        text = family.render(thinking=None, content="Let me look that up.", calls=((name, {"city": "Paris"}),))
        runs, feeds = _runs(family, "", family.prefill or "", text)
        assert runs <= feeds // 3, (family.name, runs, feeds)


def test_marked_up_content_takes_turns_among_its_steadies(monkeypatch: pytest.MonkeyPatch) -> None:  # [STREAM-6]
    """HTML in content: a feed that ends at ``<``, at ``</`` or at a space leaves the states in a shape of its own,
    and the next feed in another; a stream kept the steadies of its last three runs, too few for the turns HTML
    takes, so 132 of Qwen3's 1,023 feeds ran the analysis. It keeps eight (``RECENT``), and passes over one that
    keeps another shape for the state the last steady found changed (``Steady.may_hold``): of the eight, few are
    tried (with eight and all tried, 1,222 were)."""
    from response_schema.stream import analysis, steady

    family = next(family for family in FAMILIES if family.name == "qwen3")
    unit = '<div class="card"><p>Hello <b>there</b></p><ul><li>one</li><li>two</li></ul></div>\n'
    text = family.render(content=(unit * 49)[:4000], calls=(("get_weather", {"city": "Paris"}),))
    counts = {"runs": 0, "tried": 0}
    run, holds = analysis.Analysis.run, steady.Steady.holds

    def counted_run(self: Any, buffer: Any) -> Any:
        counts["runs"] += 1
        return run(self, buffer)

    def counted_holds(self: Any, *args: Any) -> bool:
        counts["tried"] += 1
        return holds(self, *args)

    monkeypatch.setattr(analysis.Analysis, "run", counted_run)
    monkeypatch.setattr(steady.Steady, "holds", counted_holds)
    parser = rs.compile(rs.schemas.load(family.name))
    stream, feeds = parser.stream(), range(0, len(text), 4)
    for at in feeds:
        stream.feed(text[at : at + 4])
    assert counts["runs"] <= len(feeds) // 10, counts
    assert counts["tried"] <= len(feeds) // 6, counts
    assert stream.finish() is not None and stream.message == parser.parse(text)


def test_a_call_name_under_an_open_lookahead_takes_the_memos_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """While a lookahead made before the position read is open (Kimi K2's and Gemma 4's call iterators over the
    name), the memo names it by its kind and its position's place and takes its steps (``Memo``: held); a lookahead
    of one character (DeepSeek's ``(?=[\\n<`])`` after a name) is decided by the character after it, as a step
    reads it (``Program.single``). Before, each character of a long name was a step of the VM itself (419, 273 and
    304 of them here), and the matches are those of the VM (the stream sends what it sent)."""
    from response_schema.stream import pike

    name = "get_the_weather_for_the_coast_and_the_hills_" * 6 + "now"
    vm_steps = [0]
    step = pike.Search._step

    def counted(self: Any, char: str, index: int) -> None:
        vm_steps[0] += 1
        step(self, char, index)

    for family in FAMILIES:
        if family.name in ("kimi-k2", "gemma4", "deepseek-v3"):
            text = family.render(thinking=None, content="Let me look that up.", calls=((name, {"city": "Paris"}),))
            parser = rs.compile(rs.schemas.load(family.name))
            sent = _sent(parser, family.prefill or "", text, [4])  # (the memo learns the name's steps)
            monkeypatch.setattr(pike.Search, "_step", counted)
            vm_steps[0] = 0
            assert _sent(parser, family.prefill or "", text, [4]) == sent
            monkeypatch.setattr(pike.Search, "_step", step)
            assert vm_steps[0] <= 30, (family.name, vm_steps[0])
            assert parser.parse(text)["tool_calls"][0]["function"]["name"] == name


def test_an_iterator_that_may_end_otherwise_does_not_run_on_its_threads() -> None:  # [STREAM-6]
    """Llama 4's call iterator begins a thread at each word of a call's arguments (``name(`` may follow any word),
    and while the call is open its search may still end with a match that starts later, or with none: the array
    then reads no next item, so what the search holds changes nothing sent (``Iterator.shape``). And the calls'
    text cut before a space reads as the open one: the iterator's pattern is blind to it (stream/trailing.py, the
    tailed form). Before, every word made the next feed run the analysis (38% of the feeds of this call), and with
    the first rule alone 9%."""
    part = "Checking the forecast for the coast, then the hills. " * 63
    llama4 = next(family for family in FAMILIES if family.name == "llama4")
    runs, feeds = _runs(llama4, part, "")
    assert runs <= feeds // 32, (runs, feeds)


def test_a_long_call_cut_before_a_space_reads_as_the_open_one_only_when_that_changes_nothing() -> None:  # [STREAM-3]
    """Here the call's body is its whole text (``^(.*)$``): cut before a space, it is one character shorter than
    the open text with the space, so it keeps an earlier outcome, and the space is not sent before the output
    goes on (it ends here, and the call's text is stripped)."""
    schema = {
        "type": "object",
        "properties": {
            "calls": {
                "type": "array",
                "x-regex-iterator": "<call>(.*?)\\s*(?:</call>|$)",
                "items": {"type": "object", "properties": {"body": {"type": "string", "x-regex": "^(.*)$"}}},
            }
        },
    }
    parser = rs.compile(schema)
    text = "<call>" + "word " * 70
    final = parser.parse(text)
    for size in (1, 4, 5):
        stream = parser.stream()
        for at in range(0, len(text), size):
            stream.feed(text[at : at + size])
            assert part_of(stream.message, final), (size, at)
        stream.finish()
        assert stream.message == final


def test_a_run_after_steady_feeds_may_send_less_never_more(monkeypatch: pytest.MonkeyPatch) -> None:  # [STREAM-6]
    """A long text cut from an open one takes what the open text had when the output ended at or before the cut
    (``Analysis.remembered``), and steady feeds do not add to those: the run when a long JSON text closes finds an
    older one than a stream that ran every feed, and sends less of the text (the brackets it knew then). At every
    feed what it sent is a part of what that stream sent, and both end at the one-shot result (found by
    ``conformance fuzz``'s generator, seed 23)."""
    schema = {
        "type": "object",
        "properties": {
            "b": {
                "x-regex": "<t2>(.*?)</t2>",
                "type": "array",
                "x-regex-iterator": "<t1>(.*?)</t1>",
                "items": {"type": "number"},
            },
            "tool_calls": {"x-regex": "<t3>(.*)</t3>", "x-parser": "json"},
        },
    }
    text = "<t2><t1>-210.2</t1>k6<t1>468</t1></t2>k2<t3>" + "[" * 200 + '\n 1,\n "a"' + "]" * 200 + "</t3>"
    parser = rs.compile(schema)

    def sent() -> list[tuple[Any, str]]:
        """After each feed and at the end: the message, and the JSON text sent for the call."""
        stream, json_text, seen = parser.stream(), "", []
        for char in [*text, None]:
            deltas = stream.feed(char) if char is not None else stream.finish()
            json_text += "".join(delta["text"] for delta in deltas if delta["op"] == "json")
            seen.append((copy.deepcopy(stream.message), json_text))
        return seen

    steady = sent()
    monkeypatch.setattr(Stream, "_after", lambda self, known, texts: None)  # every feed runs the analysis
    every = sent()
    assert steady[-1] == every[-1] and steady[-1][0] == parser.parse(text)
    for (message, json_text), (their_message, their_text) in zip(steady, every, strict=True):
        assert part_of(message, their_message) and their_text.startswith(json_text)
    assert any(len(mine[1]) < len(theirs[1]) for mine, theirs in zip(steady, every, strict=True))
