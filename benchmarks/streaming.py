"""Streaming measured (BENCHMARKS.md, "Streaming"): lag per library family, and cost per character.

    python benchmarks/streaming.py [--quick] [--js] [--json FILE]

Lag: every behaviour output that tests/library_formats.py writes for a family, and that parses, is fed one
character at a time. A character of `content`, `thinking` or a call's arguments' JSON text that stands at text
position p (where the value stands in the text whole) and that the stream sent once it had n characters lags
n - (p + 1) characters; sent at `finish`, it lags by what followed it. A call's `name` is measured once, from
its last character to its `end` (the OpenAI view sends it whole then). Cost: microseconds per
character of the output fed one and four characters at a time and in one feed, beside one one-shot parse of the
whole output, and the peak memory allocated while it streams (tracemalloc, up to 100 KB): on Qwen3 outputs half
thinking and half content, and on Kimi K2 outputs that are one long call (its arguments' JSON text), both up to
1 MB.
With --js, the JavaScript implementation is measured the same way (benchmarks/js_streaming.mjs, needs node; its
JIT warmed up on three streams of the smallest output first) and reported beside the reference: lag "reference ·
JavaScript", cost with the ratio JavaScript / reference."""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import response_schema as rs

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from library_formats import CATEGORIES, FAMILIES


def leaves(message: Any) -> dict[str, str]:
    """The strings whose lag is measured, by path."""
    found = {}
    if isinstance(message, dict):
        for key in ("content", "thinking"):
            if isinstance(message.get(key), str):
                found[key] = message[key]
        for index, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                found[f"tool_calls/{index}/name"] = function["name"]
    return found


def lags(parser: rs.Parser, prefix: str, text: str) -> dict[str, list[int]]:
    """The lag of every measured character, by kind (content, thinking, name, arguments)."""
    whole = prefix + text
    final = leaves(parser.parse(text, prefix))
    sent_at: dict[str, list[int]] = {path: [] for path in final}
    json_at: dict[str, list[int]] = {}  # arguments sent as JSON text ([STREAM-7] "json")
    json_text: dict[str, str] = {}
    ended_at: dict[str, int] = {}  # a name's pointer: when an end covered it (the OpenAI view sends it then)
    stream = parser.stream(prefix)
    for index, char in enumerate(text):
        for delta in stream.feed(char):
            if delta["op"] == "end":
                for path in final:
                    pointer = "/" + path.replace("/name", "/function/name")
                    if (pointer + "/").startswith(delta["path"] + "/"):
                        ended_at.setdefault(path, len(prefix) + index + 1)
            if delta["op"] == "json":
                json_at.setdefault(delta["path"], []).extend([len(prefix) + index + 1] * len(delta["text"]))
                json_text[delta["path"]] = json_text.get(delta["path"], "") + delta["text"]
        now = leaves(stream.message)
        for path, value in now.items():
            if path in sent_at:
                sent_at[path] += [len(prefix) + index + 1] * (len(value) - len(sent_at[path]))
    for delta in stream.finish():
        if delta["op"] == "json":
            json_at.setdefault(delta["path"], []).extend([len(whole)] * len(delta["text"]))
            json_text[delta["path"]] = json_text.get(delta["path"], "") + delta["text"]
    out: dict[str, list[int]] = {}
    for path, value in final.items():
        times = sent_at[path] + [len(whole)] * (len(value) - len(sent_at[path]))
        kind = path.rsplit("/", 1)[-1]
        if kind == "name":  # sent whole once ended ([STREAM-8]): from its last character, where it stands last
            at = ended_at.get(path, len(whole))
            where = whole.rfind(value, 0, at) if value else -1
            if where >= 0:
                out.setdefault(kind, []).append(at - (where + len(value)))
            continue
        where = whole.find(value) if value else -1
        if where < 0:
            continue
        out.setdefault(kind, []).extend(at - (where + offset + 1) for offset, at in enumerate(times))
    after = 0  # calls in order: a repeated call's text is found after the one before
    for path, value in json_text.items():
        where = whole.find(value, after)
        after = where + len(value) if where >= 0 else after
        if where >= 0:
            out.setdefault("arguments", []).extend(at - (where + k + 1) for k, at in enumerate(json_at[path]))
    return out


def family_outputs(family: Any) -> list[tuple[str, str]]:
    """Every behaviour output of a family, as (prefix, text)."""
    return [built for _, _, build in CATEGORIES if (built := build(family))]


def bench_lag() -> dict[str, Any]:
    results: dict[str, Any] = {}
    for family in FAMILIES:
        parser = rs.compile(rs.schemas.load(family.name))
        kinds: dict[str, list[int]] = {}
        outputs = 0
        for prefix, text in family_outputs(family):
            try:
                measured = lags(parser, prefix, text)
            except rs.ParseError:
                continue
            outputs += 1
            for kind, values in measured.items():
                kinds.setdefault(kind, []).extend(values)
        results[family.name] = {
            "outputs": outputs,
            **{kind: {"mean": statistics.fmean(v), "max": max(v), "chars": len(v)} for kind, v in kinds.items() if v},
        }
    return results


def scaled(size: int) -> str:
    unit = "Checking the forecast for the coast, then the hills. "
    thinking = (unit * (size // 2 // len(unit) + 1))[: size // 2]
    content = (unit * (size // 2 // len(unit) + 1))[: size // 2]
    return f"<think>\n{thinking}\n</think>\n\n{content}<|im_end|>"


def scaled_call(size: int) -> str:
    """A Kimi K2 output whose one call's arguments are ``size`` characters of JSON text (a file being written)."""
    unit = "Checking the forecast for the coast, then the hills. "
    body = (unit * (size // len(unit) + 1))[: max(size - 40, 0)]
    kimi = next(family for family in FAMILIES if family.name == "kimi-k2")
    return kimi.render(content="Saving it.", calls=(("write_file", {"path": "notes.md", "text": body}),))


def scaled_calls(size: int) -> str:
    """A Kimi K2 output of calls of about 100 characters each, ``size`` characters in all (an agent's many calls)."""
    kimi = next(family for family in FAMILIES if family.name == "kimi-k2")
    calls = tuple(("get_weather", {"city": f"Paris {index}", "days": [1, 2]}) for index in range(max(size // 100, 1)))
    return kimi.render(content="Checking.", calls=calls)


def family_output(family: Any, size: int = 10_000) -> str:
    """A long output of a family: thinking (when it has it) and content, then one call with a long argument."""
    unit = "Checking the forecast for the coast, then the hills. "
    part = (unit * (size // 3 // len(unit) + 1))[: size // 3]
    thinking = part if family.think is not None else None
    return family.render(thinking=thinking, content=part, calls=(("write_file", {"path": "notes.md", "text": part}),))


CONTENTS = {  # kinds of content a model writes, each a unit repeated: the markers' first characters in them vary
    "prose": "Checking the forecast for the coast, then the hills. ",
    "HTML": '<div class="card"><p>Hello <b>there</b></p><ul><li>one</li><li>two</li></ul></div>\n',
    "Markdown": "| city | days |\n|---|---|\n| [Paris](https://example.com) | `2` |\n\n```python\nprint([1, 2])\n```\n",
    "code": "def forecast(city):\n" + " " * 60 + "return fetch(city)\n",
}


def content_output(family: Any, kind: str, size: int = 4_000) -> str:
    """An output of a family whose content is ``size`` characters of one kind (``CONTENTS``), then one call."""
    unit = CONTENTS[kind]
    body = (unit * (size // len(unit) + 1))[:size]
    return family.render(content=body, calls=(("get_weather", {"city": "Paris"}),))


def calls_output(family: Any, count: int = 10) -> str:
    """An output of a family that is a sentence, then ``count`` short calls (an agent's turn)."""
    calls = tuple(("get_weather", {"city": f"Paris {index}", "days": [1, 2]}) for index in range(count))
    return family.render(content="Checking the weather.", calls=calls)


# the kinds of output the per-family table measures: 4 KB of each kind of content, and outputs where the
# structure is most of the text, whose every marker makes the analysis run
KINDS = (*CONTENTS, "1 KB output", "ten short calls")


def kind_output(family: Any, kind: str) -> str:
    if kind == "1 KB output":
        return family_output(family, 1_000)
    if kind == "ten short calls":
        return calls_output(family)
    return content_output(family, kind)


def bench_contents(chunk: int = 4) -> dict[str, dict[str, float]]:
    """Microseconds per character of each family's outputs of each kind (``KINDS``) streamed ``chunk`` characters
    at a time, the median of three streams (after one that fills the memos)."""
    rows: dict[str, dict[str, float]] = {}
    for family in FAMILIES:
        parser = rs.compile(rs.schemas.load(family.name))
        rows[family.name] = {}
        for kind in KINDS:
            text = kind_output(family, kind)
            streamed(parser, text, chunk)
            rows[family.name][kind] = statistics.median(streamed(parser, text, chunk) for _ in range(3))
    return rows


def bench_families(chunk: int = 4) -> dict[str, float]:
    """Microseconds per character of each family's long output (``family_output``) streamed ``chunk`` characters
    at a time, the median of three streams (after one that fills the memo of the schema's patterns)."""
    rows = {}
    for family in FAMILIES:
        parser = rs.compile(rs.schemas.load(family.name))
        text = family_output(family)
        streamed(parser, text, chunk)
        rows[family.name] = statistics.median(streamed(parser, text, chunk) for _ in range(3))
    return rows


REPARSE_UP_TO = 30_000  # beyond this the quadratic baseline takes minutes
MEMORY_UP_TO = 100_000  # tracemalloc makes a stream ~3x slower


def streamed(parser: rs.Parser, text: str, chunk: int) -> float:
    """Microseconds per character of a stream fed ``chunk`` characters at a time, finish included."""
    start = time.perf_counter()
    stream = parser.stream()
    for at in range(0, len(text), chunk):
        stream.feed(text[at : at + chunk])
    stream.finish()
    return (time.perf_counter() - start) / len(text) * 1e6


def peak_bytes_per_char(parser: rs.Parser, text: str) -> float:
    """The peak of memory allocated while the output streams in 4-character chunks, before finish, per character."""
    tracemalloc.start()
    stream = parser.stream()
    for at in range(0, len(text), 4):
        stream.feed(text[at : at + 4])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / len(text)


def bench_cost(sizes: list[int], schema: str = "qwen3", make: Any = scaled, chunks: Any = (1, 4)) -> dict[str, Any]:
    parser = rs.compile(rs.schemas.load(schema))
    rows = {}
    for size in sizes:
        text = make(size)
        row = {f"us_per_char_{chunk}": streamed(parser, text, chunk) for chunk in chunks}
        row["one_feed_us_per_char"] = streamed(parser, text, len(text))
        if size <= MEMORY_UP_TO:
            row["peak_bytes_per_char"] = peak_bytes_per_char(parser, text)
        start = time.perf_counter()
        parser.parse(text)
        row["one_shot_us_per_char"] = (time.perf_counter() - start) / len(text) * 1e6
        if size <= REPARSE_UP_TO:  # the baseline: parse what arrived after every 4-character chunk (quadratic)
            start = time.perf_counter()
            for at in range(4, len(text) + 4, 4):
                with contextlib.suppress(rs.ParseError):
                    parser.parse(text[:at])
            row["reparse_us_per_char"] = (time.perf_counter() - start) / len(text) * 1e6
        rows[str(size)] = row
    return rows


def bench_js(sizes: list[int]) -> dict[str, Any]:
    """The same measures of the JavaScript implementation, in one node process."""
    families = {
        family.name: {"schema": rs.schemas.load(family.name), "outputs": family_outputs(family)} for family in FAMILIES
    }
    cost = {"schema": rs.schemas.load("qwen3"), "texts": {str(size): scaled(size) for size in sizes}}
    arguments = {"schema": rs.schemas.load("kimi-k2"), "texts": {str(size): scaled_call(size) for size in sizes}}
    calls = {"schema": rs.schemas.load("kimi-k2"), "texts": {str(size): scaled_calls(size) for size in sizes}}
    script = Path(__file__).parent / "js_streaming.mjs"
    long = {family.name: {"schema": rs.schemas.load(family.name), "text": family_output(family)} for family in FAMILIES}
    contents = {
        family.name: {
            "schema": rs.schemas.load(family.name),
            "texts": {kind: kind_output(family, kind) for kind in KINDS},
        }
        for family in FAMILIES
    }
    request = {
        "families": families,
        "cost": cost,
        "arguments": arguments,
        "calls": calls,
        "long": long,
        "contents": contents,
    }
    done = subprocess.run(["node", str(script)], input=json.dumps(request), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"benchmarks/js_streaming.mjs failed: {done.stderr.strip()}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--quick", action="store_true", help="sizes up to 10 KB only (the full run takes ~15 min)")
    options.add_argument("--js", action="store_true", help="measure the JavaScript implementation beside it")
    options.add_argument("--json", type=Path, help="write the results here too")
    args = options.parse_args()
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 30_000, 100_000, 1_000_000]
    lag = bench_lag()
    js = bench_js(sizes) if args.js else None
    print("| family | outputs | content | thinking | call name | arguments as JSON text |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, row in lag.items():
        other = js["lag"][name] if js else None
        cells = []
        for kind in ("content", "thinking", "name", "arguments"):
            cell = f"{row[kind]['mean']:.2f} / {row[kind]['max']}" if kind in row else "-"
            if other is not None:
                cell += " · " + (f"{other[kind]['mean']:.2f} / {other[kind]['max']}" if kind in other else "-")
            cells.append(cell)
        print(f"| {name} | {row['outputs']} | " + " | ".join(cells) + " |")
    cost = bench_cost(sizes)
    print_cost("Qwen3, half thinking, half content", cost, js["cost"] if js else None)
    arguments = bench_cost(sizes, "kimi-k2", scaled_call, chunks=(4,))
    print_cost("Kimi K2, one call whose arguments are the output", arguments, js["arguments_cost"] if js else None)
    calls = bench_cost(sizes, "kimi-k2", scaled_calls, chunks=(4,))
    print_cost("Kimi K2, calls of about 100 characters", calls, js["calls_cost"] if js else None)
    families = bench_families()
    print("\nEvery family, a 10 KB output (thinking, content, one call), 4-character chunks, µs per character\n")
    print("| family | reference |" + (" JavaScript |" if js else ""))
    print("|---|---:|" + ("---:|" if js else ""))
    for name, us in families.items():
        print(
            f"| {name} | {us:.1f} |"
            + (f" {js['families_cost'][name]:.1f} ({js['families_cost'][name] / us:.2f}x) |" if js else "")
        )
    contents = bench_contents()
    print("\nEvery family, 4 KB of content of each kind (`CONTENTS`) and one call, its 1 KB output, and ten short")
    print("calls; 4-character chunks, µs per character (reference" + (" · JavaScript" if js else "") + ")\n")
    print("| family | " + " | ".join(KINDS) + " |")
    print("|---|" + "---:|" * len(KINDS))
    for name, row in contents.items():
        cells = [f"{row[kind]:.1f}" + (f" · {js['contents_cost'][name][kind]:.1f}" if js else "") for kind in KINDS]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.json:
        results = {
            "lag": lag,
            "cost": cost,
            "arguments_cost": arguments,
            "calls_cost": calls,
            "families_cost": families,
            "contents_cost": contents,
        }
        results |= {"js": js} if js else {}
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def print_cost(title: str, cost: dict[str, Any], js: dict[str, Any] | None) -> None:
    js_chunks = [chunk for chunk in (1, 4) if js and f"us_per_char_{chunk}" in next(iter(js.values()))]
    js_header = "".join(f" JavaScript, {chunk}-char |" for chunk in js_chunks)
    print(f"\n{title}\n")
    print(
        "| output size | stream, µs per char, 1-char chunks | 4-char chunks | one feed | re-parse per 4-char chunk"
        " | one-shot | peak bytes per char |" + js_header
    )
    print("|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(js_chunks))
    for size, row in cost.items():
        cells = [
            f"{row['us_per_char_1']:.1f}" if "us_per_char_1" in row else "-",
            f"{row['us_per_char_4']:.1f}",
            f"{row['one_feed_us_per_char']:.1f}",
            f"{row['reparse_us_per_char']:.1f}" if "reparse_us_per_char" in row else "-",
            f"{row['one_shot_us_per_char']:.2f}",
            f"{row['peak_bytes_per_char']:.1f}" if "peak_bytes_per_char" in row else "-",
        ]
        if js:
            for chunk in js_chunks:
                mine = js[size][f"us_per_char_{chunk}"]
                cells.append(f"{mine:.1f} ({mine / row[f'us_per_char_{chunk}']:.2f}x)")
        print(f"| {int(size):,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
