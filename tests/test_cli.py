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


def test_parse_jsonl_one_result_a_line_in_order_errors_as_values(tmp_path: Path) -> None:
    lines = ['"<think>plan</think>Hi"', json.dumps({"text": "<tool_call>\n{oops\n</tool_call>", "id": 7})]
    lines += [json.dumps(f"answer {number}") for number in range(2500)]  # more than one batch
    source = tmp_path / "outputs.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = cli("parse", "qwen3", str(source), "--jsonl")
    assert result.returncode == 0, result.stderr
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(out) == len(lines)
    assert out[0] == {"output": {"role": "assistant", "thinking": "plan", "content": "Hi"}}
    assert out[1]["error"]["category"] == "invalid-json" and out[1]["error"]["path"].startswith("/properties/tool")
    assert out[-1] == {"output": {"role": "assistant", "content": "answer 2499"}}
    assert result.stderr == "response-schema: 2502 outputs: 2501 parsed, 1 error\n"


def test_parse_jsonl_rows_have_the_same_columns_of_strings_or_null(tmp_path: Path) -> None:
    call = '<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>'
    result = cli("parse", "qwen3", "--jsonl", "--rows", stdin="\n".join(map(json.dumps, ["Hi", call, "<tool_call>x"])))
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len({tuple(row) for row in rows}) == 1
    assert all(value is None or isinstance(value, str) for row in rows for value in row.values())
    assert json.loads(rows[1]["tool_calls"])[0]["function"] == {"name": "f", "arguments": {"x": 1}}
    assert rows[0]["content"] == "Hi" and rows[0]["error_category"] is None


def test_parse_jsonl_stops_at_a_line_that_is_not_an_output(tmp_path: Path) -> None:
    result = cli("parse", "qwen3", "--jsonl", stdin='"a"\n{"text": 5}\n"b"\n')
    assert result.returncode == 2
    assert result.stdout == '{"output": {"role": "assistant", "content": "a"}}\n'  # the lines before it
    assert result.stderr == (
        "response-schema: standard input, line 2 is neither a JSON string nor an object with a string 'text'\n"
    )
    for options in (["--rows"], ["--jsonl", "--trace"], ["--jsonl", "--pretty"]):
        result = cli("parse", "qwen3", *options, stdin='"a"\n')
        assert result.returncode == 2 and result.stdout == "" and len(result.stderr.splitlines()) == 1
