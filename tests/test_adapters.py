"""The implementers' kit: both adapters serve real implementations correctly, and `conformance adapter-check`
passes them and catches the usual adapter mistakes."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import response_schema

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node") or "node"
PYTHON_ADAPTER = f"{shlex.quote(sys.executable)} {ROOT / 'conformance/adapters/python/adapter.py'}"
NODE_ADAPTER = f"{NODE} {ROOT / 'conformance/adapters/node/adapter.mjs'}"
FEATURES = ",".join(sorted(response_schema.FEATURES))


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "response_schema", "conformance", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    "command",
    [
        f"{PYTHON_ADAPTER} response_schema:parse --features {FEATURES}",
        f"{NODE_ADAPTER} {ROOT / 'js/src/index.js'}",
    ],
    ids=["python", "node"],
)
def test_the_kit_adapters_serve_and_pass_adapter_check(command: str) -> None:
    checked = harness("adapter-check", "--command", command)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "11 of 11 checks passed" in checked.stdout
    run = harness("run", "--command", command, "--strict")
    assert run.returncode == 0, run.stdout[-3000:]


STREAMING_PY = """
import response_schema as rs

def parse(schema, text):
    return rs.parse(schema, text)

def STREAM(schema, prefix):
    return rs.compile(schema).stream(prefix)
"""
STREAMING_JS = """
import { compile } from "%s";
export function parse(schema, text) { return compile(schema).parse(text); }
export function STREAM(schema, prefix) {  // sends nothing before finish: late, never wrong
  let text = prefix, message = null;
  const finish = () => { message = parse(schema, text); };
  return { get message() { return message; }, feed(chunk) { text += chunk; }, finish };
}
"""


def test_the_kit_adapters_speak_protocol_2_for_a_module_that_streams(tmp_path: Path) -> None:
    (tmp_path / "streaming.py").write_text(STREAMING_PY, encoding="utf-8")
    (tmp_path / "streaming.mjs").write_text(STREAMING_JS % (ROOT / "js/src/index.js").as_uri(), encoding="utf-8")
    for command in [
        f"{PYTHON_ADAPTER} streaming:parse --path {tmp_path}",
        f"{NODE_ADAPTER} {tmp_path / 'streaming.mjs'}",
    ]:
        checked = harness("adapter-check", "--command", command)
        assert checked.returncode == 0 and "11 of 11 checks passed" in checked.stdout, checked.stdout + checked.stderr
        run = harness("run", "--stream", "--command", command, "-k", "stream.")
        assert run.returncode == 0 and "26 pass" in run.stdout, run.stdout[-2000:] + run.stderr


def test_the_node_adapter_writes_a_large_answer_whole_to_a_harness_that_reads_late(tmp_path: Path) -> None:
    """Node makes a piped stdout non-blocking: an answer larger than the pipe, read late, met EAGAIN and was lost
    (the harness then timed out on a 10,000-chunk stream request)."""
    (tmp_path / "big.mjs").write_text("export function parse(schema, text) { return text.repeat(50000); }\n")
    process = subprocess.Popen(
        shlex.split(f"{NODE_ADAPTER} {tmp_path / 'big.mjs'}"),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write('{"cmd": "hello", "protocol": 1}\n{"cmd": "run", "seq": 1, "schema": {}, "tests": [')
    process.stdin.write('{"id": "a", "input": "abcdefgh"}]}\n')
    process.stdin.flush()
    time.sleep(1.5)  # the answer (400 KB) fills the pipe long before it is read
    try:
        out, _ = process.communicate(timeout=30)  # the end of input: it answers, then exits
    finally:
        process.kill()
    answer = out.splitlines()[1]
    assert len(answer) > 400_000 and answer.endswith("}]}"), answer[-200:]


def test_the_python_adapter_keeps_stdout_and_names_what_json_cannot_hold(tmp_path: Path) -> None:
    (tmp_path / "noisy.py").write_text(
        "import os\n"
        "def parse(schema, text):\n"
        "    print('chatter on stdout')\n"
        "    os.write(1, b'raw bytes on the descriptor\\n')\n"
        "    return {'n': float('nan')} if text == 'nan' else {1: 'x'} if text == 'key' else text\n",
        encoding="utf-8",
    )
    command = f"{PYTHON_ADAPTER} noisy:parse --path {tmp_path}"
    checked = harness("adapter-check", "--command", command)  # it parses nothing: only echo checks can pass
    assert "ok   a hundred requests in a row" in checked.stdout and "stdout" not in checked.stdout, checked.stdout
    request = (
        '{"cmd": "hello", "protocol": 1}\n'
        '{"cmd": "run", "seq": 1, "schema": {}, "tests": [{"id": "a", "input": "nan"}, {"id": "b", "input": "key"}]}\n'
    )
    answer = subprocess.run(shlex.split(command), input=request, capture_output=True, text=True, timeout=60)
    lines = answer.stdout.splitlines()
    assert len(lines) == 2 and '"unrepresentable": "nan at /n"' in lines[1] and "a int key" in lines[1]
    assert "chatter on stdout" in answer.stderr and "raw bytes" in answer.stderr


@pytest.mark.parametrize(
    ("mode", "caught"),
    [
        ("prints-to-stdout", "only protocol answers may go to stdout"),
        ("nan-as-null", "JSON.stringify writes NaN as null"),
        ("drops-undefined", "which JSON.stringify drops"),
    ],
)
def test_adapter_check_catches_sloppy_adapters(mode: str, caught: str) -> None:
    command = f"{NODE} {ROOT / 'tests/implementations/sloppy_adapter.mjs'} {mode}"
    checked = harness("adapter-check", "--command", command)
    assert checked.returncode == 1, checked.stdout
    assert caught in checked.stdout, checked.stdout


def test_adapter_check_needs_a_program() -> None:
    assert harness("adapter-check", "--command", "/nonexistent/adapter").returncode == 2
    assert harness("adapter-check", "--command", " ").returncode == 2


def test_adapter_check_is_bounded_on_an_adapter_that_stops_answering() -> None:
    command = f"{NODE} {ROOT / 'tests/implementations/sloppy_adapter.mjs'} stops-answering"
    started = time.monotonic()
    checked = harness("adapter-check", "--command", command, "--timeout", "1")
    assert time.monotonic() - started < 60, checked.stdout
    assert checked.returncode == 1, checked.stdout
    assert "FAIL a batch of 1,000 tests" in checked.stdout and "timeout: no answer within 1 s" in checked.stdout
    assert "Fix: answer each request within --timeout" in checked.stdout  # the actual mistake, not the check's


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_adapter_check_leaves_no_adapter_behind_when_stopped(tmp_path: Path, signum: int, code: int) -> None:
    pid_file = tmp_path / "adapter.pid"
    command = f"{NODE} {ROOT / 'tests/implementations/sloppy_adapter.mjs'} stops-answering"
    checker = subprocess.Popen(
        [sys.executable, "-m", "response_schema", "conformance", "adapter-check", "--command", command,
         "--timeout", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PID_FILE": str(pid_file)},
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text(encoding="utf-8"):
        assert time.monotonic() < deadline and checker.poll() is None
        time.sleep(0.05)
    time.sleep(1)  # in its hanging check by now
    checker.send_signal(signum)
    out, err = checker.communicate(timeout=30)
    assert checker.returncode == code, err
    assert b"INTERRUPTED" in out and b"Traceback" not in err
    adapter = int(pid_file.read_text(encoding="utf-8"))
    time.sleep(0.3)
    assert not Path(f"/proc/{adapter}").exists() or "Z" in Path(f"/proc/{adapter}/stat").read_text().split(")")[1][:3]
