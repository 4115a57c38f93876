"""The benchmarks of BENCHMARKS.md, measured in one process and one run, each against a baseline from the same run.

    tox -e bench                   # or: python benchmarks/run.py [--quick] [--json FILE]

Prints a table per measurement and writes a JSON file. Times are medians over repeated rounds after a warm-up;
ratios compare the reference with the baseline measured alongside it."""

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


def attempt(function: Callable[[], Any]) -> Any:
    try:
        return function()
    except Exception as exc:  # a failing parse costs time too; both sides are timed on the same inputs
        return exc


def real_format_groups() -> list[Group]:
    return [group for group in load([corpus_dir()]).groups if group.id.startswith("fmt.")]


def bench_formats(groups: list[Group], rounds: int) -> dict[str, Any]:
    """1. Parse throughput per family: the compiled reference against transformers' recursive_parse."""
    rows = {}
    for group in groups:
        parser = response_schema.compile(group.schema)
        inputs = [test.input for test in group.tests]

        def reference(parser: Any = parser, inputs: list[str] = inputs) -> None:
            for text in inputs:
                attempt(lambda text=text: parser.parse(text))

        row = {"tests": len(inputs), "reference_us": median_time(reference, rounds) * 1e6 / len(inputs)}
        if recursive_parse is not None:
            schema = group.schema

            def peer(schema: Any = schema, inputs: list[str] = inputs) -> None:
                for text in inputs:
                    attempt(lambda text=text: recursive_parse(text, schema))

            row["transformers_us"] = median_time(peer, rounds) * 1e6 / len(inputs)
            row["ratio"] = row["reference_us"] / row["transformers_us"]
        rows[group.id] = row
    ratios = [row["ratio"] for row in rows.values() if "ratio" in row]
    return {"families": rows, "median_ratio": statistics.median(ratios) if ratios else None}


def bench_handwritten(groups: list[Group], rounds: int) -> dict[str, Any]:
    """2. The floor: hand-written re + json parsers, checked to give the reference's output first."""
    rows = {}
    for group in groups:
        function = handwritten.PARSERS.get(group.id)
        if function is None:
            continue
        parser = response_schema.compile(group.schema)
        inputs = []
        for test in group.tests:
            expected = attempt(lambda text=test.input, parser=parser: parser.parse(text))
            if isinstance(expected, Exception):
                continue
            actual = function(test.input)
            if actual != expected:
                raise SystemExit(f"hand-written {group.id} differs on {test.id}:\n{actual}\n!=\n{expected}")
            inputs.append(test.input)
        reference = median_time(lambda parser=parser, inputs=inputs: [parser.parse(t) for t in inputs], rounds)
        floor = median_time(lambda function=function, inputs=inputs: [function(t) for t in inputs], rounds)
        rows[group.id] = {
            "tests": len(inputs),
            "reference_us": reference * 1e6 / len(inputs),
            "handwritten_us": floor * 1e6 / len(inputs),
            "ratio": reference / floor,
        }
    return {"families": rows, "median_ratio": statistics.median(row["ratio"] for row in rows.values())}


SCALING_SCHEMA = next(group.schema for group in real_format_groups() if group.id == "fmt.qwen3")


def scaled_output(size: int) -> str:
    """A Qwen3 output of about ``size`` characters: reasoning, an answer and tool calls, in proportion."""
    call = (
        '<tool_call>\n{"name": "write", "arguments": {"path": "a.txt", "text": "' + "data " * 30 + '"}}\n</tool_call>\n'
    )
    think = "<think>\n" + "step " * (size // 20) + "\n</think>\n\nAnswer.\n"
    return think + call * max(1, (size - len(think)) // len(call)) + "<|im_end|>"


def bench_scaling(sizes: list[int], rounds: int) -> dict[str, Any]:
    """3. Time per KB as the output grows, for a schema whose patterns are linear."""
    parser = response_schema.compile(SCALING_SCHEMA)
    rows = {}
    for size in sizes:
        text = scaled_output(size)
        seconds = median_time(lambda text=text: parser.parse(text), max(3, rounds // (1 + size // 100_000)), warmup=1)
        rows[str(size)] = {"bytes": len(text), "ms": seconds * 1000, "us_per_kb": seconds * 1e6 / (len(text) / 1024)}
    per_kb = [row["us_per_kb"] for size, row in rows.items() if int(size) >= 10_000]
    return {"sizes": rows, "max_over_min_from_10kb": max(per_kb) / min(per_kb)}


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
        text = group.tests[0].input
        inputs = [test.input for test in group.tests] * 200
        compile_s = median_time(lambda schema=group.schema: response_schema.compile(schema), rounds)
        uncached = median_time(
            lambda g=group, t=text: attempt(lambda: response_schema.compile(g.schema).parse(t)), rounds
        )
        cached = median_time(lambda g=group, t=text: attempt(lambda: response_schema.parse(g.schema, t)), rounds)
        parser = response_schema.compile(group.schema)

        def compiled(parser: Any = parser, inputs: list[str] = inputs) -> None:
            for text in inputs:
                attempt(lambda text=text: parser.parse(text))

        def one_call(schema: Any = group.schema, inputs: list[str] = inputs) -> None:
            for text in inputs:
                attempt(lambda text=text: response_schema.parse(schema, text))

        rows[group.id] = {
            "compile_us": compile_s * 1e6,
            "speedup_of_cache": uncached / cached,
            "one_call_over_parser": median_time(one_call, rounds) / median_time(compiled, rounds),
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
    families = {group.id: {"schema": group.schema, "inputs": [test.input for test in group.tests]} for group in groups}
    script = Path(__file__).parent / "js_formats.mjs"
    answer = subprocess.run(
        [node, str(script), str(rounds)], input=json.dumps(families), capture_output=True, text=True, check=True
    )
    rows = {
        family: {"javascript_us": us, "python_us": formats["families"][family]["reference_us"]}
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
        "handwritten": bench_handwritten(groups, rounds),
        "scaling": bench_scaling(sizes, rounds),
        "harness": bench_harness(max(3, rounds // 5)),
        "compile": bench_compile(groups, rounds),
        "fuzz": bench_fuzz(3.0 if args.quick else 15.0),
    }
    results["javascript"] = bench_javascript(groups, results["formats"], rounds)
    formats = results["formats"]
    print(
        table(
            "1. Parse time per output, reference vs transformers " + str(results["versions"]["transformers"]),
            ["family", "tests", "reference µs", "transformers µs", "ratio"],
            [
                [
                    name,
                    row["tests"],
                    f"{row['reference_us']:.1f}",
                    f"{row.get('transformers_us', float('nan')):.1f}",
                    f"{row.get('ratio', float('nan')):.2f}",
                ]
                for name, row in formats["families"].items()
            ],
        )
    )
    print(f"   median ratio reference / transformers: {formats['median_ratio']}\n")
    floor = results["handwritten"]
    print(
        table(
            "2. Reference vs hand-written re + json (identical outputs checked first)",
            ["family", "tests", "reference µs", "hand-written µs", "ratio"],
            [
                [
                    name,
                    row["tests"],
                    f"{row['reference_us']:.1f}",
                    f"{row['handwritten_us']:.1f}",
                    f"{row['ratio']:.2f}",
                ]
                for name, row in floor["families"].items()
            ],
        )
    )
    print(f"   median ratio reference / hand-written: {floor['median_ratio']:.2f}\n")
    scaling = results["scaling"]
    print(
        table(
            "3. Scaling with output size (Qwen3 schema)",
            ["size", "bytes", "ms", "µs per KB"],
            [
                [size, row["bytes"], f"{row['ms']:.2f}", f"{row['us_per_kb']:.2f}"]
                for size, row in scaling["sizes"].items()
            ],
        )
    )
    print(f"   time per KB, max / min from 10 KB up: {scaling['max_over_min_from_10kb']:.2f}\n")
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
    print(f"   median parse(schema, text) / Parser.parse: {compiled['median_one_call_over_parser']:.2f} (goal <= 1.3)")
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
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nresults written to {args.json}")


if __name__ == "__main__":
    main()
