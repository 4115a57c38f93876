"""Parsing at dataset scale through the engines of docs/at-scale.md, against the plain loop, in one run:

    python benchmarks/engines.py [--rows N]     # needs datasets and ray[data] installed

Rows per second of: a loop of Parser.parse; Parser.parse_many; datasets.map(batched=True, num_proc=2), its first
run and its second (a cache hit); Ray Data map_batches on a local two-core cluster (started before the clock)."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from response_schema import compile, schemas
from response_schema.batch import ROW_COLUMNS
from response_schema.harness.corpus import corpus_dir, load

PARSER = compile(schemas.load("qwen3"))


def parse_outputs(batch: Any) -> dict[str, list[Any]]:
    rows = PARSER.parse_many(list(batch["output"]), rows=True)
    return {column: [row[column] for row in rows] for column in ROW_COLUMNS}


def outputs(count: int) -> list[str]:
    corpus = [test.text for group in load([corpus_dir()]).groups if group.id == "fmt.qwen3" for test in group.tests]
    return (corpus * (count // len(corpus) + 1))[:count]


def timed(work: Any) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--rows", type=int, default=200_000)
    rows = options.parse_args().rows
    texts = outputs(rows)
    results: dict[str, float] = {}

    def loop() -> None:  # a loop that keeps its results, as a conversion does
        results = []
        for text in texts:
            try:
                results.append(PARSER.parse(text))
            except Exception as exc:  # an output that does not fit costs time too
                results.append(exc)

    results["loop"] = rows / timed(loop)
    results["parse_many"] = rows / timed(lambda: PARSER.parse_many(texts))
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "outputs.jsonl"
        source.write_text("".join(json.dumps({"output": text}) + "\n" for text in texts), encoding="utf-8")
        import datasets

        datasets.disable_progress_bars()
        table = datasets.load_dataset("json", data_files=str(source), split="train", cache_dir=f"{folder}/cache")

        def mapped() -> None:
            table.map(parse_outputs, batched=True, num_proc=2, remove_columns=["output"])

        results["datasets_map_first"] = rows / timed(mapped)
        results["datasets_map_cached"] = rows / timed(mapped)
        import ray

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        ray.data.DataContext.get_current().enable_progress_bars = False
        results["ray_map_batches"] = rows / timed(
            lambda: ray.data.read_json(str(source)).map_batches(parse_outputs, batch_size=4096).materialize()
        )
        ray.shutdown()
    print(f"{rows} Qwen3 outputs (the corpus's, cycled), rows per second:")
    for name, rate in results.items():
        print(f"  {name:22} {rate:12,.0f}   {rate / results['loop']:.2f}x the loop")


if __name__ == "__main__":
    main()
