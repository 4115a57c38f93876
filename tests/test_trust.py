"""Trust at every edge: no green run that tested nothing, exit codes that keep their meaning, values that survive
the trip, nothing lost. Process behaviour is tested on real processes (``python -m response_schema``)."""

from __future__ import annotations

import configparser
import json
import os
import pickle
import signal
import subprocess
import sys
import tarfile
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

import response_schema as rs
from response_schema.harness.corpus import corpus_dir

ROOT = Path(__file__).resolve().parent.parent
SMALL = {
    "description": "d",
    "groups": [
        {
            "id": "t",
            "description": "d",
            "rules": ["STR-1"],
            "schema": {"type": "string"},
            "tests": [
                {"id": "t.a", "description": "d", "input": "a", "expect": {"output": "a"}},
                {"id": "t.b", "description": "d", "input": "b", "expect": {"output": "b"}},
            ],
        }
    ],
}


def cli(*args: str, stdin: bytes = b"", env: dict[str, str] | None = None, timeout: float = 120) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "response_schema", *args],
        input=stdin,
        capture_output=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def one_line_error(result: Any, code: int = 2) -> str:
    err = result.stderr.decode()
    assert result.returncode == code, (result.returncode, err, result.stdout[-2000:])
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def implementation(tmp_path: Path, body: str, name: str = "t") -> str:
    """A protocol-v1 program. ``body`` defines answer(message): a results list, or the raw answer line. Each
    hello is appended to hellos.log beside it, so tests can count restarts."""
    path = tmp_path / "impl.py"
    head = "import json, os, sys, time\n"
    loop = f"""
for line in sys.stdin:
    m = json.loads(line)
    if m["cmd"] == "hello":
        open({str(tmp_path / "hellos.log")!r}, "a").write("hello\\n")
        hello = {{"protocol": 1, "implementation": {{"name": {name!r}, "version": "0", "language": "py"}},
                 "features": []}}
        sys.stdout.write(json.dumps(hello) + "\\n")
    elif m["cmd"] == "run":
        r = answer(m)
        sys.stdout.write((r if isinstance(r, str) else json.dumps({{"seq": m["seq"], "results": r}})) + "\\n")
    else:
        break
    sys.stdout.flush()
"""
    path.write_text(head + textwrap.dedent(body) + loop, encoding="utf-8")
    return f"{sys.executable} {path}"


ECHO = "def answer(m):\n    return [{'output': t['input']} for t in m['tests']]\n"
SKIP_ALL = "def answer(m):\n    return [{'skip': 'not mine'} for t in m['tests']]\n"


# 1. A green run must mean something


@pytest.mark.parametrize("command", ["", "   "])
def test_an_empty_command_is_refused(command: str) -> None:
    assert "--command is empty" in one_line_error(cli("conformance", "run", "--command", command))


def test_selecting_nothing_is_refused() -> None:
    assert "no test selected" in one_line_error(cli("conformance", "run", "-k", "typo-that-matches-nothing"))


def test_unrecorded_tests_are_refused_unless_allowed(tmp_path: Path) -> None:
    cases = json.loads(json.dumps(SMALL))
    del cases["groups"][0]["tests"][1]["expect"]
    path = write_json(tmp_path / "c.json", cases)
    for strict in ([], ["--strict"]):
        err = one_line_error(cli("conformance", "run", "--cases", str(path), *strict))
        assert "1 selected test has no expectation (t.b)" in err and "--allow-unrecorded" in err
    allowed = cli("conformance", "run", "--cases", str(path), "--allow-unrecorded")
    assert allowed.returncode == 0 and b"WARNING: 1 of 2 tests were skipped" in allowed.stdout
    assert cli("conformance", "run", "--cases", str(path), "--allow-unrecorded", "--strict").returncode == 1


def test_skips_fail_a_strict_run_and_are_loud_otherwise(tmp_path: Path) -> None:
    path = write_json(tmp_path / "c.json", SMALL)
    command = implementation(tmp_path, SKIP_ALL)
    plain = cli("conformance", "run", "--cases", str(path), "--command", command)
    assert b"WARNING: 2 of 2 tests were skipped, not judged" in plain.stdout
    assert plain.returncode == 2 and b"nothing was judged" in plain.stderr  # all skipped: never green
    strict = cli("conformance", "run", "--cases", str(path), "--command", command, "--strict")
    assert strict.returncode == 1 and b"SKIP t.a" in strict.stdout


@pytest.mark.parametrize(("option", "name"), [("--exclude-feature", "no-such-feature"), ("--exclude-tag", "nope")])
def test_unknown_feature_and_tag_names_are_refused(option: str, name: str) -> None:
    assert f"'{name}'" in one_line_error(cli("conformance", "run", option, name))


def test_known_feature_and_tag_exclusions_work() -> None:
    result = cli("conformance", "run", "--exclude-feature", "x-mapping", "--exclude-tag", "real-format")
    assert result.returncode == 0, result.stderr


def test_tox_runs_the_pythons_a_machine_has_and_ci_requires_all_four() -> None:
    tox = configparser.ConfigParser(inline_comment_prefixes=("#",))
    tox.read(ROOT / "tox.ini")
    assert tox["tox"]["skip_missing_interpreters"] == "true"  # a fresh machine with one Python: tox passes there
    assert "tox --skip-missing-interpreters false" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


# 2. Exit codes keep their meaning


@pytest.mark.parametrize(
    "option",
    [
        ["--report", "/nonexistent-dir/r.jsonl"],
        ["--junit", "/nonexistent-dir/r.xml"],
        ["--markdown", "/proc/x.md"],
        ["--report", "/tmp"],
    ],
)
def test_unwritable_outputs_are_refused_before_the_run(option: list[str]) -> None:
    started = time.monotonic()
    err = one_line_error(cli("conformance", "run", *option))
    assert f"cannot write {option[0]} {option[1]}" in err
    assert time.monotonic() - started < 60


def test_an_existing_report_survives_a_run_that_cannot_start(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    report.write_text("precious\n", encoding="utf-8")
    result = cli("conformance", "run", "--report", str(report), "--command", "/nonexistent/program")
    assert result.returncode == 2 and report.read_text(encoding="utf-8") == "precious\n"
    fresh = tmp_path / "fresh.jsonl"
    assert cli("conformance", "run", "--report", str(fresh), "--command", "/nonexistent/program").returncode == 2
    assert not fresh.exists()


def test_sys_exit_in_a_python_implementation_is_an_error_verdict(tmp_path: Path) -> None:
    (tmp_path / "exits_impl.py").write_text("import sys\ndef parse(schema, text):\n    sys.exit(3)\n", "utf-8")
    path = write_json(tmp_path / "c.json", SMALL)
    report = tmp_path / "r.jsonl"
    result = subprocess.run(
        [sys.executable, "-m", "response_schema", "conformance", "run", "--cases", str(path), "--python",
         "exits_impl:parse", "--report", str(report)],
        capture_output=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()][1:-1]
    assert [(r["status"], r["actual"]["error"]["message"]) for r in records] == [("fail", "SystemExit: 3")] * 2


def test_sys_exit_while_importing_is_a_harness_error(tmp_path: Path) -> None:
    (tmp_path / "exits_at_import.py").write_text("import sys\nsys.exit(3)\n", "utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "response_schema", "conformance", "run", "--python", "exits_at_import:parse"],
        capture_output=True, env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=60,
    )  # fmt: skip
    assert "cannot load --python exits_at_import:parse" in one_line_error(result)


def test_record_and_known_failures_fail_in_one_line(tmp_path: Path) -> None:
    assert "is not a case file" in one_line_error(cli("conformance", "record", str(tmp_path)))
    report = tmp_path / "r.jsonl"
    assert cli("conformance", "run", "-k", "seed.smollm3", "--report", str(report)).returncode == 0
    result = cli("conformance", "known-failures", str(report), "-o", "/nonexistent/x.json")
    assert "cannot write /nonexistent/x.json" in one_line_error(result)
    assert "cannot read" in one_line_error(cli("conformance", "known-failures", str(tmp_path / "missing.jsonl")))


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_record_into_an_unwritable_folder_fails_in_one_line(tmp_path: Path) -> None:
    cases = json.loads(json.dumps(SMALL))
    del cases["groups"][0]["tests"][1]["expect"]
    path = write_json(tmp_path / "c.json", cases)
    tmp_path.chmod(0o500)
    try:
        assert "cannot write" in one_line_error(cli("conformance", "record", str(path)))
    finally:
        tmp_path.chmod(0o700)


def test_record_where_the_temporary_file_cannot_be_made(tmp_path: Path) -> None:
    cases = json.loads(json.dumps(SMALL))
    del cases["groups"][0]["tests"][1]["expect"]
    path = write_json(tmp_path / "c.json", cases)
    before = path.read_bytes()
    # A folder full of names is hard to make; a file whose folder is replaced by a file is not.
    fake = tmp_path / "fake"
    fake.write_text("", encoding="utf-8")
    result = cli("conformance", "record", str(fake / "c.json"))
    assert result.returncode == 2 and "Traceback" not in result.stderr.decode()
    assert path.read_bytes() == before


@pytest.mark.parametrize("lines", [b"not json\n", b'{"cmd": "dance"}\n'])
def test_serve_exits_2_after_a_line_it_did_not_understand(lines: bytes) -> None:
    result = cli("conformance", "serve", stdin=b'{"cmd": "hello", "protocol": 1}\n' + lines)
    assert result.returncode == 2 and json.loads(result.stdout)["protocol"] == 1
    assert cli("conformance", "serve", stdin=b'{"cmd": "shutdown"}\n').returncode == 0


@pytest.mark.parametrize(
    "option",
    [["--timeout", "0"], ["--timeout", "-1"], ["--timeout", "nan"], ["--timeout", "inf"], ["--max-restarts", "-5"],
     ["--startup-timeout", "0"], ["--show", "-1"], ["--show", "x"]],
)  # fmt: skip
def test_numeric_options_are_validated(option: list[str]) -> None:
    result = cli("conformance", "run", *option)
    assert result.returncode == 2 and "Traceback" not in result.stderr.decode()
    assert f"argument {option[0]}" in result.stderr.decode()


def test_show_counts_the_rest_exactly(tmp_path: Path) -> None:
    cases = json.loads(json.dumps(SMALL))
    cases["groups"][0]["tests"] += [
        {"id": f"t.x{index}", "description": "d", "input": "x", "expect": {"output": "y"}} for index in range(3)
    ]
    path = write_json(tmp_path / "c.json", cases)
    result = cli("conformance", "run", "--cases", str(path), "--show", "1")
    assert result.returncode == 1 and b"... and 2 more (see --report)" in result.stdout


# 3. Every value survives the trip

SURROGATE_ECHO = "def answer(m):\n    return [{'output': t['input'] + '\\ud800'} for t in m['tests']]\n"


def test_a_lone_surrogate_survives_reports_and_summary(tmp_path: Path) -> None:
    command = implementation(tmp_path, SURROGATE_ECHO)
    outputs = {"--report": tmp_path / "r.jsonl", "--junit": tmp_path / "r.xml", "--markdown": tmp_path / "r.md"}
    args = [item for option, path in outputs.items() for item in (option, str(path))]
    result = cli("conformance", "run", "-k", "port.non-bmp-dot", "--command", command, *args)
    assert result.returncode == 1 and "Traceback" not in result.stderr.decode(), result.stderr
    assert b"\\ud800" in result.stdout
    lines = outputs["--report"].read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["type"] == "footer"
    assert any(record.get("actual", {}).get("output", "").endswith("\ud800") for record in map(json.loads, lines))
    ElementTree.parse(outputs["--junit"])
    assert "| area |" in outputs["--markdown"].read_text(encoding="utf-8")


def test_parse_prints_a_lone_surrogate_as_an_escape(tmp_path: Path) -> None:
    schema = write_json(tmp_path / "s.json", {"x-parser": "json"})
    result = cli("parse", str(schema), stdin=b'["\\ud800", "\\u00e9"]', env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    assert result.stdout == '["\\ud800", "é"]\n'.encode()


def test_record_keeps_a_lone_surrogate_and_the_file(tmp_path: Path) -> None:
    cases = json.loads(json.dumps(SMALL))
    cases["groups"][0]["tests"][1]["input"] = "b\ud800"
    del cases["groups"][0]["tests"][1]["expect"]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cases, indent=2) + "\n", encoding="utf-8")
    result = cli("conformance", "record", str(path))
    assert result.returncode == 0, result.stderr
    recorded = json.loads(path.read_text(encoding="utf-8"))
    assert recorded["groups"][0]["tests"][1]["expect"] == {"output": "b\ud800"}


def test_a_deep_answer_is_an_error_without_a_restart(tmp_path: Path) -> None:
    body = """\
        def answer(m):
            if any(t["id"] == "t.a" for t in m["tests"]):
                deep = '{"output": ' + "[" * 5000 + "]" * 5000 + "}"
                return '{"seq": %d, "results": [%s]}' % (m["seq"], ",".join(deep for _ in m["tests"]))
            return [{"output": t["input"]} for t in m["tests"]]
        """
    path = write_json(tmp_path / "c.json", SMALL)
    report = tmp_path / "r.jsonl"
    command = implementation(tmp_path, body)
    result = cli("conformance", "run", "--cases", str(path), "--command", command, "--report", str(report))
    assert result.returncode == 1, result.stderr
    records = {r["id"]: r for r in map(json.loads, report.read_text(encoding="utf-8").splitlines()[1:-1])}
    assert records["t.a"]["status"] == "error" and "nests deeper than 512 levels" in records["t.a"]["message"]
    assert records["t.b"]["status"] == "pass"
    assert (tmp_path / "hellos.log").read_text(encoding="utf-8") == "hello\n"  # never restarted


def test_junit_is_well_formed_whatever_the_implementation_writes(tmp_path: Path) -> None:
    body = (
        "sys.stderr.write('\\x1b[31mred\\x1b[0m \\x00 \\x0b done\\n'); sys.stderr.flush()\n"
        "def answer(m):\n    os._exit(1)\n"
    )
    command = implementation(tmp_path, body, name="t\x1b[1m")
    path = write_json(tmp_path / "c.json", SMALL)
    junit = tmp_path / "r.xml"
    result = cli("conformance", "run", "--cases", str(path), "--command", command, "--junit", str(junit))
    assert result.returncode == 1
    root = ElementTree.parse(junit).getroot()
    assert "\\x1b" in root.get("name", "")
    assert "\\x1b[31mred" in "".join(root.itertext())


@pytest.mark.parametrize("newline", [b"\r\n", b"\r"])
def test_parse_takes_files_and_stdin_exactly_as_given(tmp_path: Path, newline: bytes) -> None:
    schema = write_json(tmp_path / "s.json", {"type": "string"})
    text = b"a" + newline + b"b"
    (tmp_path / "in.txt").write_bytes(text)
    from_file = cli("parse", str(schema), str(tmp_path / "in.txt"))
    from_stdin = cli("parse", str(schema), stdin=text)
    from_dash = cli("parse", str(schema), "-", stdin=text)
    assert json.loads(from_file.stdout) == json.loads(from_stdin.stdout) == json.loads(from_dash.stdout)
    assert json.loads(from_file.stdout) == text.decode()


@pytest.mark.parametrize("encoding", [{}, {"PYTHONIOENCODING": "utf-8"}, {"LC_ALL": "C"}])
def test_input_that_is_not_utf8_gets_the_same_message_from_file_and_stdin(tmp_path: Path, encoding: Any) -> None:
    schema = write_json(tmp_path / "s.json", {"type": "string"})
    (tmp_path / "in.txt").write_bytes(b"caf\xe9")
    from_file = one_line_error(cli("parse", str(schema), str(tmp_path / "in.txt"), env=encoding))
    from_stdin = one_line_error(cli("parse", str(schema), stdin=b"caf\xe9", env=encoding))
    assert "not UTF-8 (unexpected end of data at byte 3)" in from_file
    assert from_file.replace(str(tmp_path / "in.txt"), "standard input") == from_stdin


def test_a_closed_pipe_is_not_a_traceback(tmp_path: Path) -> None:
    schema = write_json(tmp_path / "s.json", {"type": "string"})
    big = b"x" * 1_000_000
    for argv, stdin in (
        (["parse", str(schema)], big),
        (["conformance", "run", "--command", implementation(tmp_path, SURROGATE_ECHO)], b""),
        (["conformance", "check"], b""),
    ):
        process = subprocess.Popen(
            [sys.executable, "-m", "response_schema", *argv],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert process.stdout is not None and process.stdin is not None
        process.stdin.write(stdin)
        process.stdin.close()
        process.stdout.read(1)
        process.stdout.close()  # what `| head -c 1` does
        process.wait(timeout=120)
        assert process.stderr is not None
        err = process.stderr.read()
        assert b"Traceback" not in err and b"BrokenPipe" not in err, err
        assert process.returncode in (0, 1, 141), (argv, process.returncode, err)


# 4. Nothing is lost


def test_record_changes_only_the_expectations(tmp_path: Path) -> None:
    original = (corpus_dir() / "cases" / "types" / "primitives.json").read_text(encoding="utf-8")
    data = json.loads(original)
    for group in data["groups"]:
        for test in group["tests"][::3]:
            del test["expect"]
    stripped = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    path = tmp_path / "primitives.json"
    path.write_text(stripped, encoding="utf-8")
    assert cli("conformance", "record", str(path)).returncode == 0
    assert path.read_text(encoding="utf-8") == original


def test_record_with_nothing_to_record_leaves_the_file_alone(tmp_path: Path) -> None:
    path = write_json(tmp_path / "c.json", SMALL)
    path.write_text(path.read_text(encoding="utf-8").replace("\n", "\n "), encoding="utf-8")  # any layout
    before, stamp = path.read_bytes(), path.stat().st_mtime_ns
    time.sleep(0.01)
    result = cli("conformance", "record", str(path))
    assert result.returncode == 0 and b"recorded 0 expectations" in result.stdout
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stamp


HANG_WITH_CHILD = """\
    def answer(m):
        if os.fork() == 0:
            open(os.environ["CHILD_PID_FILE"], "w").write(str(os.getpid()))
            time.sleep(3600)
        time.sleep(3600)
    """


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_a_signal_stops_everything_and_keeps_partial_reports(tmp_path: Path, signum: int, code: int) -> None:
    path = write_json(tmp_path / "c.json", SMALL)
    pid_file = tmp_path / "child.pid"
    outputs = {"--report": tmp_path / "r.jsonl", "--junit": tmp_path / "r.xml", "--markdown": tmp_path / "r.md"}
    args = [item for option, file in outputs.items() for item in (option, str(file))]
    harness = subprocess.Popen(
        [sys.executable, "-m", "response_schema", "conformance", "run", "--cases", str(path), "--timeout", "60",
         "--command", implementation(tmp_path, HANG_WITH_CHILD), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "CHILD_PID_FILE": str(pid_file)},
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text(encoding="utf-8"):
        assert time.monotonic() < deadline and harness.poll() is None
        time.sleep(0.05)
    child = int(pid_file.read_text(encoding="utf-8"))
    harness.send_signal(signum)
    out, err = harness.communicate(timeout=30)
    assert harness.returncode == code, err
    assert b"Traceback" not in err and b"INTERRUPTED" in out
    time.sleep(0.2)
    assert not alive(child)
    lines = outputs["--report"].read_text(encoding="utf-8").splitlines()
    footer = json.loads(lines[-1])
    assert footer["interrupted"] == signal.Signals(signum).name
    assert [json.loads(line)["status"] for line in lines[1:-1]] == ["not-run", "not-run"]
    assert ElementTree.parse(outputs["--junit"]).getroot().find("testsuite[@name='harness']") is not None
    assert "**Interrupted**" in outputs["--markdown"].read_text(encoding="utf-8")


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its reaper does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# 5. The Python API


def _parse_in_a_worker(text: str) -> Any:
    return rs.parse({"x-parser": "json"}, text)


def test_errors_round_trip_through_pickle_and_a_process_pool() -> None:
    for schema, text in (({"type": "nope", "x-foo": 1}, ""), ({"x-parser": "json"}, "{oops")):
        try:
            rs.parse(schema, text)
        except rs.ResponseSchemaError as exc:
            copy = pickle.loads(pickle.dumps(exc))
            assert (type(copy), copy.category, copy.path, copy.message, str(copy)) == (
                type(exc), exc.category, exc.path, exc.message, str(exc)
            )  # fmt: skip
            if isinstance(exc, rs.SchemaError):
                assert isinstance(copy, rs.SchemaError)
                assert [p.category for p in copy.problems] == [p.category for p in exc.problems]
                assert copy.problems[0] is copy
    with ProcessPoolExecutor(1) as pool, pytest.raises(rs.ParseError) as raised:
        pool.submit(_parse_in_a_worker, "{oops").result(timeout=60)
    assert raised.value.category == "invalid-json"


_PICKLE_DIGEST = """
import hashlib, pickle, sys
import response_schema as rs
from response_schema.harness.corpus import corpus_dir, load
digest = hashlib.sha256()
for group in load([corpus_dir()]).groups:
    if group.id.startswith("fmt."):
        digest.update(pickle.dumps(rs.compile(group.schema)))
print(digest.hexdigest())
"""


def test_a_parser_pickles_to_the_same_bytes_in_every_process() -> None:
    # datasets.map fingerprints a function by its pickle: a cache hit needs the same bytes in every process
    digests = {
        subprocess.run(
            [sys.executable, "-c", _PICKLE_DIGEST],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1", "2", "random")
    }
    assert len(digests) == 1


def test_a_pickled_parser_parses_as_the_original() -> None:
    parser = rs.compile(rs.schemas.load("qwen3"))
    copy = pickle.loads(pickle.dumps(parser))
    text = "<think>plan</think>Hello"
    assert copy.parse(text) == parser.parse(text)
    assert copy.schema == parser.schema and copy.schema is not parser.schema


def test_a_cyclic_const_or_default_is_a_schema_error() -> None:
    for key in ("const", "default"):
        node: dict[str, Any] = {key: None}
        node[key] = [node]
        with pytest.raises(rs.SchemaError) as raised:
            rs.compile({"type": "object", "properties": {"a": node}})
        assert raised.value.path == f"/properties/a/{key}"


def test_a_huge_shared_dag_compiles_at_once() -> None:
    shared: list[Any] = []
    for _ in range(100):
        shared = [shared, shared]  # 2**100 paths, 100 distinct lists
    started = time.perf_counter()
    rs.compile({"const": shared})
    assert time.perf_counter() - started < 5


def test_parser_repr_module_main_and_versions() -> None:
    assert repr(rs.compile({"type": "object", "properties": {"a": {}}})) == (
        "<response_schema.Parser type=object properties=[a]>"
    )
    version = cli("--version")
    corpus = (corpus_dir() / "VERSION").read_text(encoding="utf-8").strip()
    assert version.stdout.decode() == f"response-schema {rs.__version__} (spec {rs.SPEC_VERSION}, corpus {corpus})\n"


# 6. Packaging and docs


def test_the_root_pointer_is_printed_as_empty_quotes(tmp_path: Path) -> None:
    schema = write_json(tmp_path / "s.json", {"type": "nope"})
    assert cli("check", str(schema)).stdout.decode() == f"{schema}: /type: invalid-keyword: unsupported type 'nope'\n"
    schema = write_json(tmp_path / "s.json", {"type": "object", "items": {}})
    assert cli("check", str(schema)).stdout.decode().startswith(f"{schema}: /items: ")
    assert ' at "": ' in str(rs.ParseError("invalid-json", "", "m"))
    assert ' at "": ' in one_line_error(cli("parse", str(write_json(tmp_path / "j.json", {"x-parser": "json"}))), 1)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"type": "string", "x-regex": "(a)", "x-regex": "(b)"}', "duplicate key 'x-regex'"),
        (b'\xef\xbb\xbf{"type": "string"}', "byte order mark"),
        (b"[" * 600 + b"]" * 600, "nests deeper than 512 levels"),
        (b"{", "is not valid JSON"),
    ],
)
def test_schema_files_say_what_is_wrong(tmp_path: Path, content: bytes, message: str) -> None:
    (tmp_path / "s.json").write_bytes(content)
    err = one_line_error(cli("check", str(tmp_path / "s.json")))
    assert message in err
    assert ("not valid JSON" in err) == (message == "is not valid JSON")


def test_check_takes_several_files_and_stdin(tmp_path: Path) -> None:
    good = write_json(tmp_path / "good.json", {"type": "string"})
    bad = write_json(tmp_path / "bad.json", {"type": "nope"})
    both = cli("check", str(good), "-", stdin=b'{"type": "string"}')
    assert both.returncode == 0 and both.stdout.decode() == f"{good}: ok\n-: ok\n"
    mixed = cli("check", str(good), str(bad))
    assert mixed.returncode == 2 and f"{good}: ok" in mixed.stdout.decode() and f"{bad}: /type" in mixed.stdout.decode()
    assert "once" in one_line_error(cli("check", "-", "-"))


def test_parse_takes_the_schema_from_stdin(tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("hi", encoding="utf-8")
    result = cli("parse", "-", str(tmp_path / "in.txt"), stdin=b'{"type": "string"}')
    assert result.returncode == 0 and json.loads(result.stdout) == "hi"
    assert "cannot both be standard input" in one_line_error(cli("parse", "-", "-"))


def test_the_sdist_holds_every_file_the_tests_need(tmp_path: Path, source_tree: Path) -> None:
    pytest.importorskip("build")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(tmp_path), str(source_tree)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "would be ignored" not in result.stdout + result.stderr
    (sdist,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    needed = {"tox.ini", "README.md", "SPEC.md", "tests/conftest.py", "tests/implementations/misbehave.py"}
    needed |= {".pre-commit-hooks.yaml"}
    folders = ("tests", "benchmarks", "conformance", "docs", "js")
    needed |= {str(path.relative_to(ROOT)) for folder in folders for path in
               (ROOT / folder).rglob("*") if path.is_file() and "__pycache__" not in path.parts}  # fmt: skip
    assert needed <= names, sorted(needed - names)


# SPEC 1.1 and PROTOCOL: numbers, unrepresentable results, sets of categories


@pytest.mark.parametrize(
    ("expected", "actual", "equal"),
    [
        (-1.2345678901234568e20, -123456789012345680000, True),  # a double written as a JavaScript integer
        (7.0, 7, True),
        (2**53 + 1, 2**53, False),  # two integers compare exactly
        (2**53 + 1, float(2**53), True),  # a double on either side: compared as doubles
        (10**400, 1e308, False),  # no double equals this integer
        (True, 1, False),
        ([1, {"a": 1.0}], [1.0, {"a": 1}], True),
    ],
)
def test_numbers_compare_as_json_means_them(expected: Any, actual: Any, equal: bool) -> None:
    from response_schema.jsontext import json_equal

    assert json_equal(expected, actual) is equal
    assert json_equal(actual, expected) is equal


def test_an_unrepresentable_result_is_an_error_never_a_pass(tmp_path: Path) -> None:
    body = "def answer(m):\n    return [{'unrepresentable': 'NaN at /'} for t in m['tests']]\n"
    path = write_json(tmp_path / "c.json", SMALL)
    report = tmp_path / "r.jsonl"
    result = cli("conformance", "run", "--cases", str(path), "--command", implementation(tmp_path, body),
                 "--report", str(report))  # fmt: skip
    assert result.returncode == 1
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()[1:-1]]
    assert {(r["status"], r["message"]) for r in records} == {
        ("error", "the result cannot be written as JSON: NaN at /")
    }


def test_an_error_expectation_may_list_categories(tmp_path: Path) -> None:
    cases = json.loads(json.dumps(SMALL))
    cases["groups"][0]["schema"] = {"type": "nope", "x-nope": 1}
    for test in cases["groups"][0]["tests"]:
        del test["expect"]
    path = write_json(tmp_path / "c.json", cases)
    assert cli("conformance", "record", str(path)).returncode == 0
    recorded = json.loads(path.read_text(encoding="utf-8"))["groups"][0]["tests"][0]["expect"]
    assert recorded == {"error": {"phase": "schema", "category": ["unknown-keyword", "invalid-keyword"]}}
    for category in ("invalid-keyword", "unknown-keyword"):
        error = {"error": {"phase": "schema", "category": category}}
        body = f"def answer(m):\n    return [{error!r} for t in m['tests']]\n"
        run = cli("conformance", "run", "--cases", str(path), "--command", implementation(tmp_path, body))
        assert run.returncode == 0, run.stdout
    cases["groups"][0]["tests"][0]["expect"] = {"error": {"phase": "schema", "category": ["invalid-keyword"]}}
    write_json(path, cases)
    assert b"2 or more distinct strings" in cli("conformance", "check", str(path)).stdout


def test_names_from_hello_are_printed_safely(tmp_path: Path) -> None:
    path = write_json(tmp_path / "c.json", SMALL)
    command = implementation(tmp_path, ECHO, name="evil\x1b[2J\nFAKE: 0 fail\ud800")
    result = cli("conformance", "run", "--cases", str(path), "--command", command, "--report", str(tmp_path / "r"))
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode("utf-8")
    assert "\x1b" not in out and "\nFAKE" not in out and "evil\\x1b[2J\\x0aFAKE: 0 fail\\ud800 0: 2 tests" in out
    head = json.loads((tmp_path / "r").read_text(encoding="utf-8").splitlines()[0])
    assert head["implementation"]["name"] == "evil\\x1b[2J\\x0aFAKE: 0 fail\\ud800"
