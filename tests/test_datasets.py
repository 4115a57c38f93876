"""The datasets.map recipe of docs/at-scale.md, run as written: two runs in two processes, the second a cache hit.
Needs Hugging Face datasets (tox -e datasets sets DATASETS_TESTS=1, and then a missing datasets fails)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

if not os.environ.get("DATASETS_TESTS"):
    pytest.importorskip("datasets", reason="datasets is not installed: tox -e datasets runs these tests")

RECIPE = re.search(r"```py\n(.*?)```", (Path(__file__).parent.parent / "docs" / "at-scale.md").read_text("utf-8"), re.S)


def test_the_recipe_parses_every_row_and_its_second_run_reads_the_cache(tmp_path: Path) -> None:
    assert RECIPE is not None
    script = tmp_path / "parse_with_datasets.py"
    script.write_text(RECIPE.group(1), encoding="utf-8")
    outputs = tmp_path / "outputs.jsonl"
    lines = []
    for number in range(3000):
        if number % 100 == 0:
            text = "<tool_call>\n{oops\n</tool_call>"
        elif number % 3 == 0:
            text = "<tool_call>\n" + json.dumps({"name": "lookup", "arguments": {"n": number}}) + "\n</tool_call>"
        else:
            text = f"<think>step {number}</think>Answer {number}"
        lines.append(json.dumps({"output": text}))
    outputs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = []
    for seed in ("1", "2"):
        env = os.environ | {"PYTHONHASHSEED": seed, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
        run = subprocess.run(
            [sys.executable, str(script), str(outputs), str(tmp_path / "cache")],
            capture_output=True, text=True, env=env, timeout=300, check=False,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        runs.append(run.stdout.splitlines())
        if seed == "1":
            written = {name: os.stat(name).st_mtime_ns for name in runs[0][1].split()}
    assert runs[0][0] == "3000 rows; 30 did not parse"
    assert runs[1] == runs[0]  # the same cache files, under the same fingerprint
    assert {name: os.stat(name).st_mtime_ns for name in runs[1][1].split()} == written  # read, not written again
    assert all("cache-" in name for name in written)
