"""The `response-schema conformance ...` commands."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any

from ..files import FileProblem, Outputs, load_json, write_file, write_out
from ..jsontext import dumps, printable
from ..usage import CommandLine, count, plural, seconds
from .adaptercheck import Check, check_adapter
from .check import check_corpus, read_registry, read_retired
from .corpus import Test, case_files, corpus_dir, load, suite_version
from .fuzz import Summary, case_file, fuzz, read_known_divergences, summary_text
from .implementations import PythonCallable, Reference, Subprocess
from .isolation import Forked
from .protocol import ProtocolFailure
from .record import RecordProblem, fill_expectations
from .report import Terminal, footer, header, jsonl_text, junit_text, markdown_text, read_jsonl
from .runner import Implementation, Interrupted, Options, Runner, StartFailure, interruptible, run_cases
from .serve import serve
from .spec import read_spec, spec_path
from .streaming import Streamed, in_process
from .verdict import KNOWN_STATUSES, read_known_failures

EXIT_OK, EXIT_FAIL, EXIT_HARNESS = 0, 1, 2


def main(argv: list[str]) -> int:
    """``response-schema conformance ARGV...``: the exit code."""
    args = _argument_parser().parse_args(argv)
    return int(args.run(args))


def _argument_parser() -> CommandLine:
    conformance = CommandLine(
        prog="response-schema conformance",
        description="The conformance corpus and harness. Run 'response-schema conformance COMMAND --help'.",
    )
    sub = conformance.add_subparsers(required=True, metavar="COMMAND", parser_class=CommandLine)

    check = sub.add_parser(
        "check",
        help="validate case files and their expectations",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Validate case files: their shape (case-file.schema.json), unique and unretired ids, rules\n"
        "that SPEC.md defines, registered features and tags, and expectations equal to what the reference\n"
        "produces. Without PATH, checks the bundled corpus and also that every MUST rule and error category\n"
        "is pinned and that SPEC.md's worked examples equal their cases.\n\n"
        "exit codes: 0 no problem, 1 problems found, 2 files that cannot be read or are malformed.",
    )
    check.add_argument("paths", metavar="PATH", nargs="*", type=Path, help="case files or folders")
    check.add_argument("--full", action="store_true", help="also the whole-corpus checks, on the PATHs given")
    check.add_argument("--spec", type=Path, help="the SPEC.md to read rules from (default: the bundled one)")
    check.add_argument(
        "--timeout", type=seconds, default=5.0, metavar="SECONDS", help="for the reference, per test (default 5)"
    )
    check.set_defaults(run=_check)

    record = sub.add_parser(
        "record",
        help="fill missing expectations from the reference",
        description="For each test without 'expect' in FILE, run the reference and write its result as the\n"
        "expectation; review the diff before committing. The expectations are written into the file's own text\n"
        "(its layout is kept: a diff shows only them), in one step (a temporary file, then a rename), and only\n"
        "when something was recorded.\n\n"
        "exit codes: 0 recorded (or nothing to record), 2 the file cannot be read, is malformed or cannot\n"
        "be written.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    record.add_argument("file", metavar="FILE", type=Path, help="a case file")
    record.add_argument(
        "--timeout", type=seconds, default=5.0, metavar="SECONDS", help="for the reference, per test (default 5)"
    )
    record.set_defaults(run=_record)

    run = sub.add_parser(
        "run",
        help="run an implementation against the corpus and report",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run an implementation (the bundled reference by default) over conformance cases (the bundled\n"
        "corpus by default) and report a verdict for every test: pass, fail, error, timeout, crash,\n"
        "unsupported, skip, xfail, xpass or not-run.\n\n"
        "A run that would judge nothing is refused (exit 2): no test selected, or selected tests without\n"
        "an expectation (unless --allow-unrecorded). Report files are opened before the run starts.\n\n"
        "exit codes: 0 every test as expected, 1 conformance failures, 2 the harness could not do its job\n"
        "(bad arguments, unreadable cases or outputs, an implementation that never started), 130/143/129\n"
        "interrupted by SIGINT/SIGTERM/SIGHUP (the reports are written, marked interrupted).",
    )
    _implementation_options(run)
    run.add_argument("--cases", metavar="PATH", nargs="+", type=Path, help="case files or folders (default: bundled)")
    run.add_argument(
        "-k",
        dest="select",
        metavar="PATTERN",
        action="append",
        default=[],
        help="only tests whose id contains PATTERN, or with PATTERN as a tag, rule or feature "
        "(repeatable: any matches)",
    )
    run.add_argument(
        "--exclude-feature",
        metavar="FEATURE",
        action="append",
        default=[],
        help="leave out tests that need FEATURE (repeatable; a name from features.json)",
    )
    run.add_argument(
        "--exclude-tag",
        metavar="TAG",
        action="append",
        default=[],
        help="leave out tests with TAG (repeatable; a name from features.json)",
    )
    run.add_argument("--known-failures", type=Path, metavar="FILE", help="expected failures, keyed by test id")
    run.add_argument(
        "--strict", action="store_true", help="a known failure that passes (xpass) or a skipped test fails the run"
    )
    run.add_argument(
        "--stream",
        action="store_true",
        help="judge streaming (SPEC section 14): each test streamed under many chunkings, checked after every "
        "chunk; the reference, a --python implementation with STREAM, or a --command that speaks protocol 2 "
        "(one that does not is unsupported)",
    )
    run.add_argument(
        "--allow-unrecorded",
        action="store_true",
        help="run even when selected tests have no expectation (they are skip); without it that is exit 2",
    )
    run.add_argument("--report", type=Path, metavar="FILE.jsonl", help="write the JSON-lines report")
    run.add_argument("--junit", type=Path, metavar="FILE.xml", help="write JUnit XML")
    run.add_argument("--markdown", type=Path, metavar="FILE.md", help="write a Markdown compliance table")
    run.add_argument("--show", type=count, default=20, metavar="N", help="failures shown in full (default 20)")
    run.set_defaults(run=_run)

    fuzzer = sub.add_parser(
        "fuzz",
        help="compare an implementation with the reference on generated schemas and outputs",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Generate random valid (and some broken) schemas with model outputs built to reach their\n"
        "keywords, run them through an implementation and the reference, and judge as 'run' does. Each\n"
        "disagreement is shrunk, grouped with others of its shape, and written to --out as a case file of the\n"
        "corpus format (FUZZING.md). The same seed gives the same pairs.\n\n"
        "exit codes: 0 no disagreement, 1 disagreements found, 2 the harness could not do its job.",
    )
    _implementation_options(fuzzer)
    fuzzer.add_argument("--seconds", type=seconds, metavar="N", help="stop after N seconds (default 60)")
    fuzzer.add_argument("--count", type=count, metavar="N", help="stop after N pairs")
    fuzzer.add_argument("--seed", type=count, default=0, metavar="S", help="the random seed (default 0)")
    fuzzer.add_argument(
        "--stream",
        action="store_true",
        help="fuzz streaming: each pair streamed under many chunkings, judged as run --stream judges it (a "
        "violation of SPEC section 14 is a disagreement, shrunk like any other)",
    )
    fuzzer.add_argument("--classes", type=count, metavar="N", help="stop once N classes of disagreement are found")
    fuzzer.add_argument("--out", type=Path, metavar="DIR", help="write the classes found as DIR/fuzz-sSEED.json")
    fuzzer.add_argument(
        "--known-divergences",
        type=Path,
        metavar="FILE",
        help="classes these entries explain are reported as known and do not fail the run (FUZZING.md)",
    )
    fuzzer.set_defaults(run=_fuzz)

    adapter = sub.add_parser(
        "adapter-check",
        help="a protocol self-test of an adapter, before any conformance run",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Send an adapter one message per awkward situation (text outside the BMP, lone surrogates,\n"
        "the empty input, 1,000 tests in one request, a hundred requests, null values, deep values, NaN,\n"
        "shutdown) and report each protocol mistake with its fix. It judges the adapter, not the parsing.\n\n"
        "exit codes: 0 every check passed, 1 some did not, 2 the program did not start.",
    )
    adapter.add_argument("--command", required=True, metavar='"PROGRAM ARGS..."', help="the adapter to check")
    adapter.add_argument(
        "--timeout", type=seconds, default=5.0, metavar="SECONDS", help="per request, however many tests (default 5)"
    )
    adapter.add_argument("--startup-timeout", type=seconds, default=10.0, metavar="SECONDS", help="(default 10)")
    adapter.set_defaults(run=_adapter_check)

    server = sub.add_parser(
        "serve",
        help="the reference speaking protocol v1 on stdin/stdout",
        description="Serve the reference over protocol v1 (conformance/PROTOCOL.md): JSON lines on standard input\n"
        "and output. Other harnesses and languages can use it as an oracle.\n\n"
        "exit codes: 0 every request was understood, 2 some line was not JSON or not a known request\n"
        "(each is reported on standard error and not answered).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    server.set_defaults(run=lambda args: serve(sys.stdin.buffer, sys.stdout.buffer))

    known = sub.add_parser(
        "known-failures",
        help="write a known-failures file from a report",
        description="Write a known-failures file (JSON keyed by test id) with every test of REPORT.jsonl that did\n"
        "not pass; replace each reason before committing it.\n\n"
        "exit codes: 0 written, 2 the report cannot be read or the output cannot be written.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    known.add_argument("report", metavar="REPORT.jsonl", type=Path)
    known.add_argument("-o", "--output", type=Path, metavar="FILE", help="where to write (default: standard output)")
    known.set_defaults(run=_known_failures)
    return conformance


def _implementation_options(parser: argparse.ArgumentParser) -> None:
    """The implementation to run, and how long to wait for it: the same for run and fuzz."""
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--python", metavar="MODULE:CALLABLE", help="a Python implementation, imported here and run in a forked worker"
    )
    which.add_argument("--command", metavar='"PROGRAM ARGS..."', help="a program speaking protocol v1 (PROTOCOL.md)")
    parser.add_argument("--timeout", type=seconds, default=5.0, metavar="SECONDS", help="per test (default 5)")
    parser.add_argument(
        "--startup-timeout", type=seconds, default=10.0, metavar="SECONDS", help="for the hello answer (default 10)"
    )
    parser.add_argument(
        "--max-restarts",
        type=count,
        default=10,
        metavar="N",
        help="restarts allowed after crashes and hangs before the rest is not-run (default 10)",
    )


def _check(args: argparse.Namespace) -> int:
    root = corpus_dir()
    paths = args.paths or [root]
    corpus = load(paths)
    if not corpus.groups and not corpus.problems:
        return _harness_error(f"no case files in {', '.join(map(str, paths))}: nothing to check")
    spec = read_spec(args.spec or spec_path(root))
    full = args.full or not args.paths
    problems = check_corpus(corpus, spec, read_registry(root), read_retired(root), full, args.timeout)
    for problem in problems:
        print(problem)
    tests = sum(len(group.tests) for group in corpus.groups)
    files = len(case_files(paths))
    summary = f"{plural(files, 'file')}, {plural(len(corpus.groups), 'group')}, {plural(tests, 'test')}: "
    if not problems:
        print(summary + "ok")
        return EXIT_OK
    print(summary + plural(len(problems), "problem"), file=sys.stderr)
    return EXIT_HARNESS if corpus.problems else EXIT_FAIL


def _record(args: argparse.Namespace) -> int:
    path: Path = args.file
    if not path.is_file():
        return _harness_error(f"{path} is not a case file")
    try:
        filled = fill_expectations(path, args.timeout)
    except RecordProblem as exc:
        return _harness_error(str(exc))
    print(f"{path}: recorded {plural(filled, 'expectation')}")
    return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    paths = args.cases or [corpus_dir()]
    corpus = load(paths)
    if corpus.problems or not corpus.groups:
        for problem in corpus.problems:
            print(problem, file=sys.stderr)
        return _harness_error("no cases found" if not corpus.problems else "the cases have problems")
    registry = read_registry(corpus_dir())
    unknown = [f"feature {name!r}" for name in args.exclude_feature if name not in registry.features]
    unknown += [f"tag {name!r}" for name in args.exclude_tag if name not in registry.tags]
    if unknown:
        return _harness_error(f"unknown {', '.join(unknown)} (features.json lists the names)")
    try:
        known = read_known_failures(args.known_failures, corpus) if args.known_failures else {}
    except ValueError as exc:
        return _harness_error(str(exc))
    if "" in args.select:
        return _harness_error("-k '' would select every test: give a pattern, or leave -k out")
    selection = [(group, [test for test in group.tests if _selected(test, args)]) for group in corpus.groups]
    selection = [(group, tests) for group, tests in selection if tests]
    total = sum(len(tests) for _, tests in selection)
    if not total:
        return _harness_error("no test selected" + "".join(f" by -k {pattern!r}" for pattern in args.select))
    unrecorded = [test.id for _, tests in selection for test in tests if test.expect is None]
    if unrecorded and not args.allow_unrecorded:
        listed = ", ".join(unrecorded[:5]) + (f" and {len(unrecorded) - 5} more" if len(unrecorded) > 5 else "")
        return _harness_error(
            f"{plural(len(unrecorded), 'selected test')} {'have' if len(unrecorded) != 1 else 'has'} no expectation "
            f"({listed}): fill them with 'conformance record FILE', or run them as skip with --allow-unrecorded"
        )
    try:
        implementation = _implementation(args)
        outputs = Outputs({"--report": args.report, "--junit": args.junit, "--markdown": args.markdown})
    except (OSError, ValueError, FileProblem) as exc:
        return _harness_error(str(exc))
    terminal = Terminal(sys.stdout, total, args.show, args.strict)
    options = Options(args.timeout, args.max_restarts, known, stream=args.stream)
    try:
        with interruptible():
            run = run_cases(implementation, selection, options, lambda result: terminal.progress(result.status))
    except StartFailure as exc:
        tail = implementation.stderr_tail()
        return _harness_error(
            f"the implementation did not start: {exc}" + (f"\nits stderr ended with:\n{tail}" if tail else "")
        )
    records = [result.as_json() for result in run.results]
    head = header(suite_version(corpus_dir()), run.info.as_json(), _options(args))
    foot = footer(records, run.seconds, run.cause)
    outputs.write(
        {
            "--report": lambda: jsonl_text(head, records, foot),
            "--junit": lambda: junit_text(head, records, foot),
            "--markdown": lambda: markdown_text(head, records, foot),
        }
    )
    terminal.summary(head, records, foot)
    if run.interrupted:
        return 128 + run.interrupted
    if run.failed(args.strict):
        return EXIT_FAIL
    if run.judged_nothing:
        return _harness_error(f"nothing was judged: {plural(len(run.results), 'selected test')}, none supported or run")
    return EXIT_OK


def _fuzz(args: argparse.Namespace) -> int:
    if args.count == 0:
        return _harness_error("--count 0 would judge nothing: give a count of 1 or more")
    limit = args.seconds if args.seconds is not None or args.count is not None else 60.0
    target = args.out / f"fuzz-s{args.seed}.json" if args.out else None
    try:
        known = read_known_divergences(load_json(args.known_divergences)) if args.known_divergences else []
        implementation = _implementation(args)
        if args.out:
            try:
                args.out.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise OSError(f"cannot write --out {args.out}: {exc.strerror or exc}") from None
        outputs = Outputs({"--out": target})
    except (OSError, ValueError, FileProblem) as exc:
        return _harness_error(str(exc))
    runner = Runner(implementation, Options(args.timeout, args.max_restarts, stream=args.stream), lambda result: None)
    live = sys.stdout.isatty()

    def progress(summary: Summary) -> None:
        if live:
            sys.stdout.write(f"\r{summary.progress_line()}")
            sys.stdout.flush()

    try:
        with interruptible(), runner.running():
            summary = fuzz(runner, args.seed, limit, args.count, args.classes, progress, known)
    except StartFailure as exc:
        return _harness_error(f"the implementation did not start: {exc}")
    if live:
        sys.stdout.write("\n")
    name = f"{implementation.info.name} {implementation.info.version}".strip()
    write_out(printable(summary_text(summary, name)))
    if target is not None and summary.unexplained():
        outputs.write({"--out": lambda: dumps(case_file(summary, args.seed, name), indent=2) + "\n"})
        write_out(f"cases written to {target}\n")
    if summary.interrupted:
        cause = signal.Signals(summary.interrupted).name
        write_out(f"INTERRUPTED ({cause}): what was found before it is reported above\n")
        return 128 + summary.interrupted
    if not summary.pairs:
        return _harness_error("nothing was judged: no pair was generated in the time given")
    return EXIT_FAIL if summary.unexplained() else EXIT_OK


def _adapter_check(args: argparse.Namespace) -> int:
    try:
        implementation = Subprocess(args.command, args.startup_timeout)
        implementation.start()
    except (ValueError, ProtocolFailure) as exc:
        return _harness_error(f"the adapter did not start: {exc}")
    checks: list[Check] = []
    interrupted = 0
    try:
        with interruptible():
            checks = check_adapter(implementation, read_registry(corpus_dir()).features, args.timeout)
    except ProtocolFailure:
        pass  # it did not restart: the checks so far say why
    except KeyboardInterrupt:
        interrupted = signal.SIGINT
    except Interrupted as exc:
        interrupted = exc.signum
    finally:
        implementation.stop()  # never an orphaned adapter: its whole process group is killed
    for check in checks:
        write_out(
            printable(
                f"{'ok  ' if check.ok else 'FAIL'} {check.name}"
                + (f"\n     {check.detail}" if check.detail else "")
                + "\n"
            )
        )
    failed = sum(not check.ok for check in checks)
    write_out(f"{implementation.info.name}: {len(checks) - failed} of {plural(len(checks), 'check')} passed\n")
    if interrupted:
        write_out(f"INTERRUPTED ({signal.Signals(interrupted).name}) after {plural(len(checks), 'check')}\n")
        return 128 + interrupted
    return EXIT_FAIL if failed else EXIT_OK


def _implementation(args: argparse.Namespace) -> Implementation:
    if args.command is not None:
        process = Subprocess(args.command, args.startup_timeout)
        if getattr(args, "stream", False):  # protocol 2's stream command; a version 1 process is unsupported
            return Streamed(process, lambda group, test, cuts, timeout: process.stream(group, test, cuts, timeout))
        return process
    inner: Reference | PythonCallable = Reference()
    if args.python is not None:
        try:
            inner = PythonCallable(args.python)
        except (ImportError, AttributeError, SystemExit) as exc:
            raise ValueError(f"cannot load --python {args.python}: {type(exc).__name__}: {exc}") from None
    if not getattr(args, "stream", False):
        return Forked(inner)
    if inner.open_stream is None:
        raise ValueError(f"--stream: {args.python} has no STREAM (PROTOCOL.md, in-process Python implementations)")
    return Forked(Streamed(inner, in_process(inner.open_stream)))


def _harness_error(message: str) -> int:
    print(printable(f"response-schema: {message}"), file=sys.stderr)
    return EXIT_HARNESS


def _selected(test: Test, args: argparse.Namespace) -> bool:
    if test.features & set(args.exclude_feature) or test.tags & set(args.exclude_tag):
        return False
    if not args.select:
        return True
    names = test.tags | test.features | set(test.rules)
    return any(pattern in test.id or pattern in names for pattern in args.select)


def _known_failures(args: argparse.Namespace) -> int:
    try:
        _, records = read_jsonl(args.report)
    except (FileProblem, ValueError) as exc:
        return _harness_error(str(exc))
    entries = {}
    for record in records:
        if record["status"] == "xpass":  # a known failure that passes now needs no entry
            continue
        if record.get("known_failure"):  # xfail (or a known failure that failed otherwise): its entry as it was
            entries[record["id"]] = record["known_failure"]
        elif record["status"] in KNOWN_STATUSES:  # not not-run: an interruption is no property of the implementation
            entries[record["id"]] = {"status": record["status"], "reason": "TODO: explain, naming the SPEC.md rule"}
    text = dumps(entries, indent=2) + "\n"
    if not args.output:
        write_out(text)
        return EXIT_OK
    try:
        write_file(args.output, text)
    except FileProblem as exc:
        return _harness_error(str(exc))
    return EXIT_OK


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """Every option that changes what was judged or how, for the report's header."""
    return {
        "cases": [str(path) for path in (args.cases or [corpus_dir()])],
        "command": args.command,
        "python": args.python,
        "select": args.select,
        "exclude_feature": args.exclude_feature,
        "exclude_tag": args.exclude_tag,
        "allow_unrecorded": args.allow_unrecorded,
        "timeout": args.timeout,
        "startup_timeout": args.startup_timeout,
        "max_restarts": args.max_restarts,
        "known_failures": str(args.known_failures) if args.known_failures else None,
        "strict": args.strict,
        "stream": args.stream,
    }
