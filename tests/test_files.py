"""Output paths are written as their kind asks (files.py): a regular file is replaced in one step, a symlink
keeps pointing where it did, a FIFO or a device is written into and never replaced, a FIFO nobody reads does
not hang the command. Every command that writes a file is tried on each kind, in a temporary folder (never the
machine's own /dev)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from response_schema.files import FileProblem, check_writable, load_json, write_file

SMALL = {
    "description": "d",
    "groups": [
        {
            "id": "t",
            "description": "d",
            "rules": ["STR-1"],
            "schema": {"type": "string"},
            "tests": [{"id": "t.a", "description": "d", "input": "a", "expect": {"output": "a"}}],
        }
    ],
}


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "response_schema", *args], capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def writers(tmp_path: Path) -> dict[str, Any]:
    """Each command that writes a file, as a function of the output path (and what the output must contain)."""
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(SMALL), encoding="utf-8")
    report = tmp_path / "given.jsonl"
    assert cli("conformance", "run", "--cases", str(cases), "--report", str(report)).returncode == 0
    run = ("conformance", "run", "--cases", str(cases))
    return {
        "--report": (lambda out: cli(*run, "--report", out), '"status": "pass"'),
        "--junit": (lambda out: cli(*run, "--junit", out), "<testsuites"),
        "--markdown": (lambda out: cli(*run, "--markdown", out), "| area |"),
        "known-failures -o": (lambda out: cli("conformance", "known-failures", str(report), "-o", out), "{"),
    }


WRITERS = ["--report", "--junit", "--markdown", "known-failures -o"]


@pytest.mark.parametrize("writer", WRITERS)
def test_a_symlink_keeps_pointing_at_its_file(tmp_path: Path, writer: str) -> None:
    write, expected = writers(tmp_path)[writer]
    target = tmp_path / "target.out"
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.out"
    link.symlink_to(target)
    result = write(str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert expected in target.read_text(encoding="utf-8")


@pytest.mark.parametrize("writer", WRITERS)
def test_a_fifo_is_written_into_not_replaced(tmp_path: Path, writer: str) -> None:
    write, expected = writers(tmp_path)[writer]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = write(str(fifo))
    reader.join(30)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert expected in received[0].decode("utf-8")


def test_a_fifo_nobody_reads_fails_in_one_line_instead_of_hanging(tmp_path: Path) -> None:
    write, _ = writers(tmp_path)["--report"]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    result = write(str(fifo))
    err = result.stderr.decode()
    assert result.returncode == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"cannot write --report {fifo}: no process read the FIFO" in err
    assert time.monotonic() - started < 60 and stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root (CI runs as root)")
@pytest.mark.parametrize("writer", WRITERS)
def test_a_device_is_written_into_not_replaced(tmp_path: Path, writer: str) -> None:
    write, _ = writers(tmp_path)[writer]
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a null device of our own, in the temporary folder
    result = write(str(null))
    assert result.returncode == 0, result.stderr
    assert stat.S_ISCHR(null.lstat().st_mode)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_link_to_a_descriptor_writes_into_it(tmp_path: Path, writer: str) -> None:
    """/dev/stdout is a link to /proc/self/fd/1: the file there is the command's own stdout, to write into."""
    write, expected = writers(tmp_path)[writer]
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    result = write(str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and expected in result.stdout.decode("utf-8")


def test_stdout_redirected_to_a_file_is_appended_to_not_replaced(tmp_path: Path) -> None:
    writers(tmp_path)
    cases = tmp_path / "cases.json"
    out = tmp_path / "out.txt"
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    with out.open("wb") as handle:
        subprocess.run(
            [sys.executable, "-m", "response_schema", "conformance", "run", "--cases", str(cases), "--report",
             str(link)],
            stdout=handle, stderr=subprocess.PIPE, timeout=120, check=True,
        )  # fmt: skip
    text = out.read_text(encoding="utf-8")
    assert '"status": "pass"' in text and "1 test" in text  # the report and the summary, in one file


def test_record_through_a_symlink_keeps_the_symlink(tmp_path: Path) -> None:
    cases = json.loads(json.dumps(SMALL))
    del cases["groups"][0]["tests"][0]["expect"]
    target = tmp_path / "cases.json"
    target.write_text(json.dumps(cases), encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    result = cli("conformance", "record", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and json.loads(target.read_text(encoding="utf-8"))["groups"][0]["tests"][0]["expect"]


def test_a_folder_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(FileProblem, match="it is a folder"):
        check_writable(tmp_path)
    with pytest.raises(FileProblem, match="it is a folder"):
        write_file(tmp_path, "x")


def test_a_regular_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("old", encoding="utf-8")
    path.chmod(0o640)
    write_file(path, "new")
    assert path.read_text(encoding="utf-8") == "new" and stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_repeated_key_is_refused_in_a_config_file_and_through_its_folder(tmp_path: Path) -> None:
    config = tmp_path / "tokenizer_config.json"
    config.write_text('{"response_schema": {"type": "string"}, "response_schema": {}}', encoding="utf-8")
    with pytest.raises(FileProblem, match="duplicate key"):
        load_json(config)
    for given in (config, tmp_path):
        result = cli("parse", str(given), "-")
        assert result.returncode == 2 and b"duplicate key 'response_schema'" in result.stderr, result.stderr
