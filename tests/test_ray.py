"""The Ray Data recipe of docs/at-scale.md, run as written on a local two-core cluster: every row it writes is
the row parse_many gives in one process. Needs Ray Data (tox -e ray sets RAY_TESTS=1: then a missing ray fails)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import response_schema as rs

if not os.environ.get("RAY_TESTS"):
    pytest.importorskip("ray", reason="ray is not installed: tox -e ray runs these tests")

DOC = (Path(__file__).parent.parent / "docs" / "at-scale.md").read_text("utf-8")
RECIPE = re.findall(r"```py\n(.*?)```", DOC, re.S)[1]


def test_the_ray_recipe_writes_the_rows_parse_many_gives(tmp_path: Path) -> None:
    pyarrow = pytest.importorskip("pyarrow.parquet")
    script = tmp_path / "parse_with_ray.py"
    script.write_text(RECIPE, encoding="utf-8")
    texts = [
        "<tool_call>\n{oops\n</tool_call>" if number % 50 == 0 else f"<think>step {number}</think>Answer {number}"
        for number in range(5000)
    ]
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps({"output": text}) + "\n" for text in texts), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(script), str(outputs), str(tmp_path / "parquet")],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines()[-1] == "5000 rows"
    table = pyarrow.read_table(tmp_path / "parquet")
    assert set(table.column_names) == set(rs.batch.ROW_COLUMNS)
    written = sorted(json.dumps(row, sort_keys=True) for row in table.to_pylist())
    parser = rs.compile(rs.schemas.load("qwen3"))
    expected = sorted(json.dumps(row, sort_keys=True) for row in parser.parse_many(texts, rows=True))
    assert written == expected
