"""The response-schema command line, run as a real installed program."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

GPT_OSS = {
    "type": "object",
    "properties": {
        "role": {"const": "assistant"},
        "thinking": {"type": "string", "x-regex": r"<\|channel\|>analysis<\|message\|>(.*?)<\|end\|>"},
        "content": {"type": "string", "x-regex": r"<\|channel\|>final<\|message\|>(.*?)(?:<\|end\|>|$)"},
    },
}


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "response_schema.cli", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def schema_file(tmp_path: Path) -> Path:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(GPT_OSS), encoding="utf-8")
    return path


def test_parse_from_stdin(schema_file: Path) -> None:
    result = cli("parse", str(schema_file), stdin="<|channel|>final<|message|>Hi<|end|>")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"role": "assistant", "content": "Hi"}


def test_parse_from_file_pretty(schema_file: Path, tmp_path: Path) -> None:
    text = tmp_path / "out.txt"
    text.write_text("<|channel|>analysis<|message|>hmm<|end|>", encoding="utf-8")
    result = cli("parse", "--pretty", str(schema_file), str(text))
    assert result.returncode == 0
    assert result.stdout.startswith("{\n  ")
    assert json.loads(result.stdout) == {"role": "assistant", "thinking": "hmm"}


def test_parse_with_a_prefix_reads_its_escapes(tmp_path: Path) -> None:  # [GEN-5]
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "string", "x-regex": r"^<think>\n(.*)$"}), encoding="utf-8")
    result = cli("parse", "--prefix", "<think>\\n", str(schema), stdin="a\\tb")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == "a\\tb"  # the input is read as it is; only the prefix's escapes are read
    result = cli("parse", "--prefix", "<think>\\\\n", str(schema), stdin="x")
    assert json.loads(result.stdout) is None  # \\\\ is one backslash: no newline after <think>, no match


def test_parse_input_error_exits_1(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text('{"x-parser": "json"}', encoding="utf-8")
    result = cli("parse", str(schema), stdin="{oops")
    assert result.returncode == 1
    assert result.stderr.startswith('response-schema: input error invalid-json at "": ')
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_parse_schema_error_exits_2(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text('{"type": "string", "x-regex": "("}', encoding="utf-8")
    result = cli("parse", str(schema), stdin="text")
    assert result.returncode == 2
    assert result.stderr.startswith("response-schema: schema error invalid-regex at /x-regex: ")


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (["missing.json"], "cannot read missing.json"),
        (["bad.json"], "bad.json is not valid JSON"),
        (["nan.json"], "nan.json is not valid JSON"),
    ],
)
def test_file_problems_exit_2(tmp_path: Path, files: list[str], message: str) -> None:
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    (tmp_path / "nan.json").write_text('{"const": NaN}', encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "response_schema.cli", "parse", *files],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        input="",
        timeout=60,
    )
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_check_lists_every_problem(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {"type": "object", "x-regexx": "(a)", "properties": {"a": {"type": "array"}, "b": {"x-parser": "yaml"}}}
        ),
        encoding="utf-8",
    )
    result = cli("check", str(schema))
    assert result.returncode == 2
    assert result.stdout.splitlines() == [
        f"{schema}: /x-regexx: unknown-keyword: unknown keyword 'x-regexx'",
        f"{schema}: /properties/a: invalid-keyword: an array node needs exactly one of items and prefixItems",
        f"{schema}: /properties/b/x-parser: unknown-parser: unknown parser 'yaml'",
    ]
    assert "3 problems" in result.stderr


def test_check_valid_schema(schema_file: Path) -> None:
    result = cli("check", str(schema_file))
    assert result.returncode == 0
    assert result.stdout.strip().endswith(": ok")


def test_help_documents_exit_codes() -> None:
    result = cli("--help")
    assert result.returncode == 0
    assert "exit codes" in result.stdout
    assert "conformance" in result.stdout


def test_installed_console_script() -> None:
    script = Path(sys.executable).parent / "response-schema"
    if not script.exists():
        pytest.skip("the console script is not installed next to this interpreter")
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.startswith("response-schema ")
