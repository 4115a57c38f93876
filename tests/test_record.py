"""`conformance record` writes the expectations into the file's own text: a diff shows only them."""

from __future__ import annotations

import difflib
import subprocess
import sys
from pathlib import Path

CASES = """{"description": "d",
 "groups": [{"id": "r", "description": "d", "rules": ["STR-1"], "schema": {"type": "string", "x-regex": "<a>(.*)</a>"},
   "tests": [
     {"id": "r.one", "description": "on one line", "input": "<a>\\u00e9</a>"},
     {
       "id": "r.multi",
       "description": "one member a line",
       "input": "<a>x</a>"
     },
     {"id": "r.has", "description": "already recorded", "input": "z", "expect": {"output": null}},
     {
        "id": "r.odd",
        "description": "an odd indentation",
        "input": "nothing"
     }
   ]}]}
"""


def test_record_adds_only_the_expectations(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(CASES, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "response_schema", "conformance", "record", str(path)], capture_output=True, text=True
    )
    assert result.returncode == 0 and "recorded 3 expectations" in result.stdout, result.stderr
    after = path.read_text(encoding="utf-8")
    changed = [
        line for line in difflib.ndiff(CASES.splitlines(), after.splitlines()) if line[:1] in "+-" and line[1:2] == " "
    ]
    assert changed == [
        '-      {"id": "r.one", "description": "on one line", "input": "<a>\\u00e9</a>"},',
        '+      {"id": "r.one", "description": "on one line", "input": "<a>\\u00e9</a>", "expect": {"output": "é"}},',
        '-        "input": "<a>x</a>"',
        '+        "input": "<a>x</a>",',
        '+        "expect": {',
        '+          "output": "x"',
        "+        }",
        '-         "input": "nothing"',
        '+         "input": "nothing",',
        '+         "expect": {',
        '+            "output": null',
        "+         }",
    ]
    again = subprocess.run(
        [sys.executable, "-m", "response_schema", "conformance", "check", str(path)], capture_output=True, text=True
    )
    assert again.returncode == 0, again.stdout + again.stderr
