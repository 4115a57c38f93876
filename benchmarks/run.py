"""The benchmarks of BENCHMARKS.md, measured in one process and one run, each against a baseline from the same run.

    tox -e bench                   # or: python benchmarks/run.py [--quick] [--json FILE]

Prints a table per measurement and writes a JSON file. Times are medians over repeated rounds after a warm-up;
what is compared (fast path, walk, transformers, a hand-written parser; output sizes) is measured in interleaved
rounds, so that a machine whose speed drifts during the run moves both sides of a ratio alike."""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import response_schema
from response_schema.harness.corpus import Group, corpus_dir, load
from response_schema.harness.implementations import Reference, Subprocess
from response_schema.harness.runner import Options, Runner, run_cases

sys.path.insert(0, str(Path(__file__).parent))
import handwritten

try:
    import transformers
    from transformers.utils.chat_parsing_utils import recursive_parse
except ImportError:  # the bench env installs it; without it the transformers columns are left out
    transformers = None
    recursive_parse = None


SERVE = f"{shlex.quote(sys.executable)} -m response_schema.cli conformance serve"


def median_time(work: Callable[[], object], rounds: int, warmup: int = 2) -> float:
    """The median wall time of one call of ``work``, in seconds."""
    for _ in range(warmup):
        work()
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def median_times(works: dict[str, Callable[[], object]], rounds: int, warmup: int = 2) -> dict[str, float]:
    """The median wall time of one call of each work, in seconds, measured in interleaved rounds (each round runs
    every work once, in a rotating order), so that a machine that speeds up or slows down during the run moves
    every work alike and their ratios stay true."""
    for _ in range(warmup):
        for work in works.values():
            work()
    samples: dict[str, list[float]] = {name: [] for name in works}
    names = list(works)
    for index in range(rounds):
        for name in names[index % len(names) :] + names[: index % len(names)]:
            started = time.perf_counter()
            works[name]()
            samples[name].append(time.perf_counter() - started)
    return {name: statistics.median(times) for name, times in samples.items()}


def attempt(function: Callable[[], Any]) -> Any:
    try:
        return function()
    except Exception as exc:  # a failing parse costs time too; both sides are timed on the same inputs
        return exc


def real_format_groups() -> list[Group]:
    return [group for group in load([corpus_dir()]).groups if group.id.startswith("fmt.")]


def has_transform(schema: Any) -> bool:
    return '"transform"' in json.dumps(schema)


def over(function: Callable[[str], Any], inputs: list[str]) -> Callable[[], None]:
    """A work that runs ``function`` on every input (failures included: they cost time too)."""

    def work() -> None:
        for text in inputs:
            try:
                function(text)
            except Exception:  # both sides are timed on the same inputs: failures cost time too
                continue

    return work


def per_output(functions: dict[str, Callable[[str], Any]], inputs: list[str], rounds: int) -> dict[str, float]:
    """Microseconds per output of each function over ``inputs``, measured interleaved (``median_times``)."""
    times = median_times({name: over(function, inputs) for name, function in functions.items()}, rounds)
    return {name: seconds * 1e6 / len(inputs) for name, seconds in times.items()}


def bench_formats(groups: list[Group], rounds: int) -> dict[str, Any]:
    """1. Parse time per output per family: the fast path (Parser.parse) and the walk (Parser.parse_walked)
    against transformers' recursive_parse, on the same inputs. Totals: sums of the per-output times, over all
    families and over those with a JMESPath transform."""
    rows = {}
    for group in groups:
        parser = response_schema.compile(group.schema)
        inputs = [test.text for test in group.tests]
        functions: dict[str, Callable[[str], Any]] = {"fast_us": parser.parse, "walk_us": parser.parse_walked}
        if recursive_parse is not None:
            functions["transformers_us"] = lambda text, s=group.schema: recursive_parse(text, s)
        row: dict[str, Any] = {"tests": len(inputs), "transform": has_transform(group.schema)}
        rows[group.id] = {**row, **per_output(functions, inputs, rounds)}
    totals = {}
    for name, chosen in (("all", rows.values()), ("transform", [r for r in rows.values() if r["transform"]])):
        chosen = list(chosen)
        total = {
            key: sum(row[key] for row in chosen)
            for key in ("fast_us", "walk_us", "transformers_us")
            if key in chosen[0]
        }
        total["families"] = len(chosen)
        if "transformers_us" in total:
            total["fast_over_transformers"] = total["fast_us"] / total["transformers_us"]
            total["walk_over_transformers"] = total["walk_us"] / total["transformers_us"]
        total["fast_over_walk"] = total["fast_us"] / total["walk_us"]
        totals[name] = total
    return {"families": rows, "totals": totals}


def bench_long(rounds: int) -> dict[str, Any]:
    """1b. One long output per library format (about 10 KB: thinking when the format has it, content, and a call
    whose argument is a long text; the streaming benchmark's ``family_output``), parsed by the fast path and the walk
    against transformers, interleaved. The corpus's outputs are a few hundred characters; here the patterns' lazy
    bodies run over thousands, as they do on real reasoning and code. Totals: sums over the formats."""
    from streaming import FAMILIES, family_output

    rows = {}
    for family in FAMILIES:
        schema = response_schema.schemas.load(family.name)
        parser = response_schema.compile(schema)
        text = family_output(family)
        functions: dict[str, Callable[[str], Any]] = {"fast_us": parser.parse, "walk_us": parser.parse_walked}
        if recursive_parse is not None:
            functions["transformers_us"] = lambda text, s=schema: recursive_parse(text, s)
        rows[family.name] = {"chars": len(text), **per_output(functions, [text], rounds)}
    total = {
        key: sum(row[key] for row in rows.values())
        for key in ("fast_us", "walk_us", "transformers_us")
        if key in functions
    }
    if "transformers_us" in total:
        total["fast_over_transformers"] = total["fast_us"] / total["transformers_us"]
        total["walk_over_transformers"] = total["walk_us"] / total["transformers_us"]
    return {"families": rows, "total": total}


def bench_handwritten(groups: list[Group], rounds: int) -> dict[str, Any]:
    """2. The floor: hand-written re + json parsers, timed on the family's inputs where they give the reference's
    output exactly (the others are counted, not timed: a floor that is wrong is not a floor)."""
    rows = {}
    for group in groups:
        function = handwritten.PARSERS.get(group.id)
        if function is None:
            continue
        parser = response_schema.compile(group.schema)
        inputs = []
        for test in group.tests:
            expected = attempt(lambda text=test.text, parser=parser: parser.parse(text))
            if (
                not isinstance(expected, Exception)
                and attempt(lambda text=test.text, function=function: function(text)) == expected
            ):
                inputs.append(test.text)
        if not inputs:
            continue
        times = per_output({"fast": parser.parse, "walk": parser.parse_walked, "floor": function}, inputs, rounds)
        fast, walk, floor = times["fast"], times["walk"], times["floor"]
        rows[group.id] = {
            "tests": len(group.tests),
            "agree": len(inputs),
            "fast_us": fast,
            "walk_us": walk,
            "handwritten_us": floor,
            "fast_ratio": fast / floor,
            "walk_ratio": walk / floor,
        }
    return {"families": rows, "max_fast_ratio": max(row["fast_ratio"] for row in rows.values())}


def recorded_work(schema: Any, inputs: list[str]) -> list[tuple[Callable[..., Any], tuple[Any, ...], bool]]:
    """The regex calls and JSON parses the fast path makes on ``inputs``, in order: (function, arguments, whether its
    result is an iterator to consume). Recorded by compiling the schema with its regex methods and ``parsed``
    wrapped (fast.py binds them as names of the generated code)."""
    from response_schema import fast, walk

    calls: list[tuple[Callable[..., Any], tuple[Any, ...], bool]] = []

    def recording(function: Callable[..., Any], consume: bool) -> Callable[..., Any]:
        def record(*args: Any) -> Any:
            calls.append((function, args, consume))
            result = function(*args)
            return list(result) if consume else result

        return record

    original = fast._Source.constant

    def constant(self: Any, stem: str, value: Any) -> str:
        return original(self, stem, recording(value, stem in "IP") if stem in "SXIPL" else value)

    fast._Source.constant = constant  # type: ignore[method-assign]
    fast._HELPERS["parsed"] = recording(walk.parsed, False)
    try:
        parser = response_schema.compile(schema)
        for text in inputs:
            attempt(lambda text=text: parser.parse(text))
    finally:
        fast._Source.constant = original  # type: ignore[method-assign]
        fast._HELPERS["parsed"] = walk.parsed
    return calls


def bench_schema_work(groups: list[Group], rounds: int) -> dict[str, Any]:
    """2b. The schema's own work: every regex call and JSON parse the fast path makes on a family's inputs, replayed
    from a list with nothing around them (no node functions, no values built, no transform). Any implementation
    that keeps the schema's regexes pays at least this; the fast path's time over it is what the Python around
    that work costs."""
    rows = {}
    for group in groups:
        inputs = [test.text for test in group.tests]
        calls = recorded_work(group.schema, inputs)

        def replay(calls: list[Any] = calls) -> None:
            for function, args, consume in calls:
                try:
                    result = function(*args)
                except Exception:  # a parse that fails costs its time too
                    continue
                if consume:
                    list(result)

        parser = response_schema.compile(group.schema)
        times = median_times({"fast": over(parser.parse, inputs), "work": replay}, rounds)
        fast_us, work_us = (times[name] * 1e6 / len(inputs) for name in ("fast", "work"))
        rows[group.id] = {"calls": len(calls) / len(inputs), "fast_us": fast_us, "work_us": work_us}
    total_fast = sum(row["fast_us"] for row in rows.values())
    total_work = sum(row["work_us"] for row in rows.values())
    return {"families": rows, "fast_over_work": total_fast / total_work, "work_share": total_work / total_fast}


def bench_batch(groups: list[Group], sizes: list[int]) -> dict[str, Any]:
    """8. Parser.parse_many against a loop of Parser.parse on the same outputs (the Qwen3 corpus outputs, cycled),
    per output as the batch grows, and the bytes held per output at the batch's peak (tracemalloc, its own run)."""
    import tracemalloc

    parser = response_schema.compile(SCALING_SCHEMA)
    corpus = [test.text for group in groups if group.id == "fmt.qwen3" for test in group.tests]
    rows = {}
    for size in sizes:
        texts = (corpus * (size // len(corpus) + 1))[:size]
        rounds = max(1, 300_000 // size)

        def loop(texts: list[str] = texts) -> list[Any]:
            return [attempt(lambda text=text: parser.parse(text)) for text in texts]

        looped = median_time(loop, rounds, warmup=1)
        batched = median_time(lambda texts=texts: parser.parse_many(texts), rounds, warmup=1)
        tracemalloc.start()
        parser.parse_many(texts)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows[str(size)] = {
            "loop_us": looped * 1e6 / size,
            "parse_many_us": batched * 1e6 / size,
            "ratio": batched / looped,
            "peak_bytes_per_output": peak / size,
        }
    return {"sizes": rows}


def bench_mixed(groups: list[Group], total: int) -> dict[str, Any]:
    """8. Throughput per core on ``total`` outputs of every family mixed, each parsed by its family's parser: a loop
    of Parser.parse over them interleaved, and Parser.parse_many per family (a pipeline that batches by model).
    One round each, after one pass over every distinct output."""
    parsers = {group.id: response_schema.compile(group.schema) for group in groups}
    distinct = [(parsers[group.id], test.text) for group in groups for test in group.tests]
    for parser, text in distinct:
        attempt(lambda parser=parser, text=text: parser.parse(text))
    pairs = (distinct * (total // len(distinct) + 1))[:total]
    batches: dict[int, tuple[Any, list[str]]] = {}
    for parser, text in pairs:
        batches.setdefault(id(parser), (parser, []))[1].append(text)
    looped = median_time(lambda: [attempt(lambda p=p, t=t: p.parse(t)) for p, t in pairs], 1, warmup=0)
    batched = median_time(lambda: [parser.parse_many(texts) for parser, texts in batches.values()], 1, warmup=0)
    return {
        "outputs": total,
        "families": len(groups),
        "distinct_outputs": len(distinct),
        "loop_us": looped * 1e6 / total,
        "parse_many_us": batched * 1e6 / total,
    }


SCALING_SCHEMA = next(group.schema for group in real_format_groups() if group.id == "fmt.qwen3")


def scaled_output(size: int) -> str:
    """A Qwen3 output of about ``size`` characters: reasoning, an answer and tool calls, in proportion."""
    call = (
        '<tool_call>\n{"name": "write", "arguments": {"path": "a.txt", "text": "' + "data " * 30 + '"}}\n</tool_call>\n'
    )
    think = "<think>\n" + "step " * (size // 20) + "\n</think>\n\nAnswer.\n"
    return think + call * max(1, (size - len(think)) // len(call)) + "<|im_end|>"


def bench_scaling(sizes: list[int], rounds: int) -> dict[str, Any]:
    """3. Time per KB as the output grows, for a schema whose patterns are linear; beside it, the hand-written
    Qwen3 parser on the same outputs (its result checked equal), so that how much the floor itself bends is measured
    in the same run."""
    parser = response_schema.compile(SCALING_SCHEMA)
    floor = handwritten.PARSERS["fmt.qwen3"]
    texts = {size: scaled_output(size) for size in sizes}
    repeats = {size: max(1, 1_000_000 // size) for size in sizes}  # a work parses about 1 MB, or one larger output
    for text in texts.values():
        if floor(text) != parser.parse(text):
            raise AssertionError("the hand-written Qwen3 parser differs from the reference on a scaled output")

    def work(size: int, function: Callable[[str], Any]) -> Callable[[], None]:
        return lambda: [function(texts[size]) for _ in range(repeats[size])] and None

    works = {
        f"{side} {size}": work(size, function)
        for size in sizes
        for side, function in (("fast", parser.parse), ("floor", floor))
    }
    times = median_times(works, max(3, rounds // 5), warmup=1)
    rows = {}
    for size, text in texts.items():
        seconds, floor_seconds = times[f"fast {size}"] / repeats[size], times[f"floor {size}"] / repeats[size]
        rows[str(size)] = {
            "bytes": len(text),
            "ms": seconds * 1000,
            "us_per_kb": seconds * 1e6 / (len(text) / 1024),
            "handwritten_us_per_kb": floor_seconds * 1e6 / (len(text) / 1024),
        }
    per_kb = [row["us_per_kb"] for size, row in rows.items() if int(size) >= 10_000]
    floor_per_kb = [row["handwritten_us_per_kb"] for size, row in rows.items() if int(size) >= 10_000]
    return {
        "sizes": rows,
        "max_over_min_from_10kb": max(per_kb) / min(per_kb),
        "handwritten_max_over_min_from_10kb": max(floor_per_kb) / min(floor_per_kb),
    }


def bench_harness(rounds: int) -> dict[str, Any]:
    """4. The whole corpus through the harness, in process and through the subprocess protocol."""
    corpus = load([corpus_dir()])
    groups = [(group, list(group.tests)) for group in corpus.groups]
    total = sum(len(tests) for _, tests in groups)

    def in_process() -> None:
        run_cases(Reference(), groups, Options())

    def subprocess() -> None:
        run_cases(Subprocess(SERVE), groups, Options())

    inside = median_time(in_process, rounds, warmup=1)
    outside = median_time(subprocess, max(3, rounds // 3), warmup=1)
    return {
        "tests": total,
        "in_process_s": inside,
        "subprocess_s": outside,
        "in_process_tests_per_s": total / inside,
        "subprocess_tests_per_s": total / outside,
        "ratio": outside / inside,
    }


def bench_compile(groups: list[Group], rounds: int) -> dict[str, Any]:
    """5. compile() per real-format schema, what the cache of parse(schema, text) saves, and what the one-call
    API costs over a compiled Parser (every output of the family, 200 times a round)."""
    rows = {}
    for group in groups:
        text = group.tests[0].text
        inputs = [test.text for test in group.tests] * 200
        compile_s = median_time(lambda schema=group.schema: response_schema.compile(schema), rounds)
        calls = median_times(
            {
                "uncached": lambda g=group, t=text: attempt(lambda: response_schema.compile(g.schema).parse(t)),
                "cached": lambda g=group, t=text: attempt(lambda: response_schema.parse(g.schema, t)),
            },
            rounds,
        )
        uncached, cached = calls["uncached"], calls["cached"]
        parser = response_schema.compile(group.schema)

        def compiled(parser: Any = parser, inputs: list[str] = inputs) -> None:
            for text in inputs:
                attempt(lambda text=text: parser.parse(text))

        def one_call(schema: Any = group.schema, inputs: list[str] = inputs) -> None:
            for text in inputs:
                attempt(lambda text=text: response_schema.parse(schema, text))

        one_call_s, compiled_s = median_times({"one": one_call, "compiled": compiled}, rounds).values()
        rows[group.id] = {
            "compile_us": compile_s * 1e6,
            "speedup_of_cache": uncached / cached,
            "one_call_over_parser": one_call_s / compiled_s,
        }
    return {
        "schemas": rows,
        "median_speedup": statistics.median(row["speedup_of_cache"] for row in rows.values()),
        "median_one_call_over_parser": statistics.median(row["one_call_over_parser"] for row in rows.values()),
    }


def bench_fuzz(seconds: float) -> dict[str, Any]:
    """6. conformance fuzz throughput: pairs per second against the reference in process and served."""
    from response_schema.harness.fuzz import fuzz

    rows = {}
    for name, implementation in (("in_process", Reference()), ("subprocess", Subprocess(SERVE))):
        runner = Runner(implementation, Options(), lambda result: None)
        with runner.running():
            summary = fuzz(runner, 1, seconds, None, None, lambda summary: None)
        rows[name] = summary.pairs / summary.seconds
    return rows | {"ratio": rows["in_process"] / rows["subprocess"]}


def bench_javascript(groups: list[Group], formats: dict[str, Any], rounds: int) -> dict[str, Any]:
    """7. The JavaScript implementation against the Python reference, per output, on the same real formats."""
    node = shutil.which("node")
    if node is None:
        return {}
    families = {group.id: {"schema": group.schema, "inputs": [test.text for test in group.tests]} for group in groups}
    script = Path(__file__).parent / "js_formats.mjs"
    answer = subprocess.run(
        [node, str(script), str(rounds)], input=json.dumps(families), capture_output=True, text=True, check=True
    )
    rows = {
        family: {"javascript_us": us, "python_us": formats["families"][family]["fast_us"]}
        for family, us in json.loads(answer.stdout).items()
    }
    for row in rows.values():
        row["ratio"] = row["javascript_us"] / row["python_us"]
    return {"families": rows, "median_ratio": statistics.median(row["ratio"] for row in rows.values())}


def table(title: str, header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = [title, "  ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=True))]
    lines += ["  ".join(str(cell).rjust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines) + "\n"


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--quick", action="store_true", help="fewer rounds and sizes (a smoke run)")
    options.add_argument("--json", type=Path, default=Path("reports/bench.json"), help="where to write the results")
    args = options.parse_args()
    rounds = 5 if args.quick else 25
    sizes = [1_000, 10_000, 100_000] if args.quick else [1_000, 10_000, 100_000, 1_000_000, 10_000_000]
    groups = real_format_groups()
    results = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
        },
        "versions": {
            "response_schema": response_schema.__version__,
            "transformers": transformers.__version__ if transformers else None,
        },
        "formats": bench_formats(groups, rounds),
        "long": bench_long(rounds),
        "handwritten": bench_handwritten(groups, rounds),
        "schema_work": bench_schema_work(groups, rounds),
        "scaling": bench_scaling(sizes, rounds),
        "harness": bench_harness(max(3, rounds // 5)),
        "compile": bench_compile(groups, rounds),
        "fuzz": bench_fuzz(3.0 if args.quick else 15.0),
        "batch": bench_batch(groups, [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000, 1_000_000]),
        "mixed": bench_mixed(groups, 100_000 if args.quick else 1_000_000),
    }
    results["javascript"] = bench_javascript(groups, results["formats"], rounds)
    formats = results["formats"]
    nan = float("nan")
    print(
        table(
            "1. Parse time per output: fast path (parse) and walk (parse_walked) vs transformers "
            + str(results["versions"]["transformers"]),
            ["family", "tests", "transform", "fast µs", "walk µs", "transformers µs", "fast/tf", "walk/tf"],
            [
                [
                    name,
                    row["tests"],
                    "yes" if row["transform"] else "",
                    f"{row['fast_us']:.1f}",
                    f"{row['walk_us']:.1f}",
                    f"{row.get('transformers_us', nan):.1f}",
                    f"{row['fast_us'] / row.get('transformers_us', nan):.2f}",
                    f"{row['walk_us'] / row.get('transformers_us', nan):.2f}",
                ]
                for name, row in formats["families"].items()
            ],
        )
    )
    for name, total in formats["totals"].items():
        print(
            f"   {name} ({total['families']} families), summed per-output times: fast / transformers "
            f"{total.get('fast_over_transformers', nan):.2f}, walk / transformers "
            f"{total.get('walk_over_transformers', nan):.2f}, fast / walk {total['fast_over_walk']:.2f}"
        )
    long = results["long"]
    print(
        "\n"
        + table(
            "1b. One long output per library format (about 10 KB), µs per parse",
            ["format", "characters", "fast µs", "walk µs", "transformers µs", "fast/tf", "walk/tf"],
            [
                [
                    name,
                    f"{row['chars']:,}",
                    f"{row['fast_us']:.1f}",
                    f"{row['walk_us']:.1f}",
                    f"{row.get('transformers_us', nan):.1f}",
                    f"{row['fast_us'] / row.get('transformers_us', nan):.2f}",
                    f"{row['walk_us'] / row.get('transformers_us', nan):.2f}",
                ]
                for name, row in long["families"].items()
            ],
        )
    )
    print(
        f"   summed: fast / transformers {long['total'].get('fast_over_transformers', nan):.2f}, "
        f"walk / transformers {long['total'].get('walk_over_transformers', nan):.2f}"
    )
    floor = results["handwritten"]
    print(
        "\n"
        + table(
            "2. Fast path and walk vs hand-written re + json, on the inputs where the hand-written parser is right",
            ["family", "agree/tests", "fast µs", "walk µs", "hand-written µs", "fast/hw", "walk/hw"],
            [
                [
                    name,
                    f"{row['agree']}/{row['tests']}",
                    f"{row['fast_us']:.1f}",
                    f"{row['walk_us']:.1f}",
                    f"{row['handwritten_us']:.1f}",
                    f"{row['fast_ratio']:.2f}",
                    f"{row['walk_ratio']:.2f}",
                ]
                for name, row in floor["families"].items()
            ],
        )
    )
    print(f"   largest fast / hand-written: {floor['max_fast_ratio']:.2f}\n")
    work = results["schema_work"]
    print(
        table(
            "2b. The fast path vs its schema's own regex calls and JSON parses, replayed with nothing around them",
            ["family", "calls per output", "fast µs", "regex + JSON µs", "fast / work"],
            [
                [
                    name,
                    f"{row['calls']:.1f}",
                    f"{row['fast_us']:.1f}",
                    f"{row['work_us']:.1f}",
                    f"{row['fast_us'] / row['work_us']:.2f}",
                ]
                for name, row in work["families"].items()
            ],
        )
    )
    print(
        f"   all families: fast / work {work['fast_over_work']:.2f}; the regexes and JSON are "
        f"{work['work_share']:.0%} of the fast path's time\n"
    )
    scaling = results["scaling"]
    print(
        table(
            "3. Scaling with output size (Qwen3 schema)",
            ["size", "bytes", "ms", "µs per KB", "hand-written µs per KB"],
            [
                [
                    size,
                    row["bytes"],
                    f"{row['ms']:.2f}",
                    f"{row['us_per_kb']:.2f}",
                    f"{row['handwritten_us_per_kb']:.2f}",
                ]
                for size, row in scaling["sizes"].items()
            ],
        )
    )
    print(
        f"   time per KB, max / min from 10 KB up: {scaling['max_over_min_from_10kb']:.2f} "
        f"(hand-written: {scaling['handwritten_max_over_min_from_10kb']:.2f})\n"
    )
    harness = results["harness"]
    print("4. Whole corpus through the harness")
    print(
        f"   {harness['tests']} tests: in process {harness['in_process_s']:.3f} s "
        f"({harness['in_process_tests_per_s']:.0f} tests/s), subprocess {harness['subprocess_s']:.3f} s "
        f"({harness['subprocess_tests_per_s']:.0f} tests/s), ratio {harness['ratio']:.2f}\n"
    )
    compiled = results["compile"]
    print(
        table(
            "5. compile() cost, the speed-up of parse(schema, text)'s cache, and parse(schema, text) / Parser.parse",
            ["schema", "compile µs", "cache speed-up", "one-call / Parser"],
            [
                [
                    name,
                    f"{row['compile_us']:.0f}",
                    f"{row['speedup_of_cache']:.1f}x",
                    f"{row['one_call_over_parser']:.2f}",
                ]
                for name, row in compiled["schemas"].items()
            ],
        )
    )
    print(f"   median cache speed-up: {compiled['median_speedup']:.1f}x")
    one_call = compiled["median_one_call_over_parser"]
    print(f"   median parse(schema, text) / Parser.parse: {one_call:.2f} (target <= 1.15)")
    fuzzing = results["fuzz"]
    print(
        f"\n6. conformance fuzz: {fuzzing['in_process']:.0f} pairs/s in process, {fuzzing['subprocess']:.0f} pairs/s "
        f"through the protocol (ratio {fuzzing['ratio']:.2f})"
    )
    javascript = results["javascript"]
    if javascript:
        print(
            "\n"
            + table(
                "7. The JavaScript implementation vs the Python reference, per output (node)",
                ["family", "JavaScript µs", "Python µs", "ratio"],
                [
                    [name, f"{row['javascript_us']:.1f}", f"{row['python_us']:.1f}", f"{row['ratio']:.2f}"]
                    for name, row in javascript["families"].items()
                ],
            )
        )
        print(f"   median ratio JavaScript / Python: {javascript['median_ratio']:.2f}")
    batch = results["batch"]
    print(
        "\n"
        + table(
            "8. Parser.parse_many vs a loop of Parser.parse (Qwen3 corpus outputs, cycled)",
            ["outputs", "loop µs", "parse_many µs", "ratio", "peak bytes per output"],
            [
                [
                    size,
                    f"{row['loop_us']:.2f}",
                    f"{row['parse_many_us']:.2f}",
                    f"{row['ratio']:.2f}",
                    f"{row['peak_bytes_per_output']:.0f}",
                ]
                for size, row in batch["sizes"].items()
            ],
        )
    )
    mixed = results["mixed"]
    print(
        f"   {mixed['outputs']:,} outputs of {mixed['families']} families mixed ({mixed['distinct_outputs']} distinct),"
        f" one core: a loop of Parser.parse {mixed['loop_us']:.1f} µs per output"
        f" ({1e6 / mixed['loop_us']:,.0f} per second), parse_many per family {mixed['parse_many_us']:.1f} µs"
        f" ({1e6 / mixed['parse_many_us']:,.0f} per second)"
    )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nresults written to {args.json}")


if __name__ == "__main__":
    main()
