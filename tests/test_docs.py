"""The guides' examples run and print what the guides say they print: Python blocks whose printout follows as
`# ` lines, and shell blocks followed by "prints" and a text block."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = sorted((Path(__file__).parent.parent / "docs").glob("*.md"))


def run_python_examples(text: str, name: str) -> None:
    namespace: dict[str, object] = {}
    for block in re.findall(r"```python\n(.*?)```", text, re.DOTALL):
        lines = block.splitlines()
        split = len(lines)
        while split > 0 and lines[split - 1].startswith("# "):
            split -= 1  # the trailing comment lines are the printout
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            exec(compile("\n".join(lines[:split]), name, "exec"), namespace)
        assert output.getvalue().splitlines() == [line[2:] for line in lines[split:]], block


@pytest.mark.parametrize("doc", DOCS, ids=[doc.name for doc in DOCS])
def test_python_examples(doc: Path) -> None:
    run_python_examples(doc.read_text(encoding="utf-8"), doc.name)


@pytest.mark.parametrize("doc", DOCS, ids=[doc.name for doc in DOCS])
def test_shell_examples(doc: Path, tmp_path: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    bindir = Path(sys.executable).parent
    for script, shown in re.findall(r"```sh\n(.*?)```\n\nprints\n\n```text\n(.*?)```", text, re.DOTALL):
        result = subprocess.run(
            ["bash", "-c", script],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env={"PATH": f"{bindir}:/usr/bin:/bin"},
        )
        assert result.stdout + result.stderr == shown, script


ROOT = Path(__file__).parent.parent


def test_the_ci_recipe_runs_on_a_project(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    commands = re.search(r"<!-- ci-commands -->\n```sh\n(.*?)```", text, re.DOTALL)
    assert commands
    (tmp_path / "response_schema.json").write_text('{"type": "string", "x-regex": "<a>(.*?)</a>"}', "utf-8")
    (tmp_path / "cases").mkdir()
    case = (
        '{"description": "d", "groups": [{"id": "mine.v1", "description": "d", "rules": ["REGEX-2"], '
        '"schema": {"type": "string", "x-regex": "<a>(.*?)</a>"}, "tests": [{"id": "mine.v1.a", '
        '"description": "d", "input": "<a>1</a>", "expect": {"output": "1"}}]}]}'
    )
    (tmp_path / "cases" / "my-model.json").write_text(case, "utf-8")
    install, script = commands.group(1).split("\n", 1)  # the install line, then the commands (run here)
    assert install.startswith("python -m pip install") and "git+https://github.com/response-schema/" in install
    assert "rev: v" not in text  # no release is tagged: the recipe must not name a tag that does not exist
    bindir = Path(sys.executable).parent
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": f"{bindir}:/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "reports" / "response-schema.xml").is_file()


def test_the_pre_commit_hooks_run_their_commands(tmp_path: Path) -> None:
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    entries = re.findall(r"^  entry: (.*)$", hooks, re.MULTILINE)
    assert entries == ["response-schema check", "response-schema conformance check"]
    schema = tmp_path / "a.response-schema.json"
    schema.write_text('{"type": "string"}', "utf-8")
    bindir = Path(sys.executable).parent
    for entry, files in zip(
        entries, [[schema, schema], [ROOT / "conformance/cases/seed/no-tool-calls.json"]], strict=True
    ):
        result = subprocess.run(
            [*entry.split(), *map(str, files)], capture_output=True, text=True, timeout=120,
            env={"PATH": f"{bindir}:/usr/bin:/bin"},
        )  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr
