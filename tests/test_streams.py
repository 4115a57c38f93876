"""Standard output that cannot take what a command writes: a full device is exit 2 in one line, a reader that
goes away is 141, on every command (help included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

COMMANDS = [
    ["parse", "smollm3", "/dev/null"],
    ["schemas"],
    ["schemas", "show", "gpt-oss"],
    ["check", "gpt-oss"],
    ["--version"],
    ["--help"],
    ["conformance", "--help"],
    ["conformance", "run", "-k", "seed"],
    ["conformance", "check"],
    ["conformance", "fuzz", "--count", "3"],
]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_full_stdout_is_exit_2_in_one_line(command: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        result = subprocess.run(
            [sys.executable, "-m", "response_schema", *command], stdout=full, stderr=subprocess.PIPE, timeout=120
        )
    err = result.stderr.decode()
    assert result.returncode == 2, err
    assert err.count("\n") == 1 and "cannot write standard output: No space left on device" in err, err


def test_a_reader_that_goes_away_during_a_large_write_is_141(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("x" * 5_000_000, encoding="utf-8")
    schema = tmp_path / "s.json"
    schema.write_text('{"type": "string"}', encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "response_schema", "parse", str(schema), str(big)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    process.stdout.read(10)
    process.stdout.close()
    _, err = process.communicate(timeout=60)
    assert process.returncode == 141 and not err, err
