"""The `response-schema conformance ...` commands."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from .check import check_corpus, read_registry, read_retired
from .corpus import Corpus, Test, case_files, corpus_dir, load
from .implementations import PythonCallable, Reference, Subprocess
from .jsonvalue import load_strict
from .outcome import reference_outcomes
from .report import Terminal, footer, header, read_jsonl, write_jsonl, write_junit, write_markdown
from .runner import FAILING, STATUSES, KnownFailure, Options, Result, Runner, StartFailure
from .serve import serve
from .spec import read_spec, spec_path

EXIT_OK, EXIT_FAIL, EXIT_HARNESS = 0, 1, 2


def add_conformance_commands(commands: Any) -> None:
    conformance = commands.add_parser(
        "conformance",
        help="the conformance corpus: check it, run an implementation against it, record expectations",
        description="The conformance corpus and harness. Run 'response-schema conformance COMMAND --help'.",
    )
    sub = conformance.add_subparsers(required=True, metavar="COMMAND")

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
    check.set_defaults(run=_check)

    record = sub.add_parser(
        "record",
        help="fill missing expectations from the reference",
        description="For each test without 'expect' in FILE, run the reference and write its result as the\n"
        "expectation; review the diff before committing. Other tests are left as they are.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    record.add_argument("file", metavar="FILE", type=Path, help="a case file")
    record.set_defaults(run=_record)

    run = sub.add_parser(
        "run",
        help="run an implementation against the corpus and report",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run an implementation (the bundled reference by default) over conformance cases (the bundled\n"
        "corpus by default) and report a verdict for every test: pass, fail, error, timeout, crash,\n"
        "unsupported, skip, xfail, xpass or not-run.\n\n"
        "exit codes: 0 every test as expected, 1 conformance failures, 2 the harness could not do its job\n"
        "(bad arguments, unreadable cases, an implementation that never started).",
    )
    which = run.add_mutually_exclusive_group()
    which.add_argument("--python", metavar="MODULE:CALLABLE", help="an in-process Python implementation (no timeout)")
    which.add_argument("--command", metavar='"PROGRAM ARGS..."', help="a program speaking protocol v1 (PROTOCOL.md)")
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
        help="leave out tests that need FEATURE (repeatable)",
    )
    run.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS", help="per test (default 5)")
    run.add_argument(
        "--startup-timeout", type=float, default=10.0, metavar="SECONDS", help="for the hello answer (default 10)"
    )
    run.add_argument(
        "--max-restarts",
        type=int,
        default=10,
        metavar="N",
        help="restarts allowed after crashes and hangs before the rest is not-run (default 10)",
    )
    run.add_argument("--known-failures", type=Path, metavar="FILE", help="expected failures, keyed by test id")
    run.add_argument("--strict", action="store_true", help="a known failure that passes (xpass) fails the run")
    run.add_argument("--report", type=Path, metavar="FILE.jsonl", help="write the JSON-lines report")
    run.add_argument("--junit", type=Path, metavar="FILE.xml", help="write JUnit XML")
    run.add_argument("--markdown", type=Path, metavar="FILE.md", help="write a Markdown compliance table")
    run.add_argument("--show", type=int, default=20, metavar="N", help="failures shown in full (default 20)")
    run.set_defaults(run=_run)

    server = sub.add_parser(
        "serve",
        help="the reference speaking protocol v1 on stdin/stdout",
        description="Serve the reference over protocol v1 (conformance/PROTOCOL.md): JSON lines on standard input\n"
        "and output. Other harnesses and languages can use it as an oracle.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    server.set_defaults(run=lambda args: serve(sys.stdin.buffer, sys.stdout.buffer))

    known = sub.add_parser(
        "known-failures",
        help="write a known-failures file from a report",
        description="Write a known-failures file (JSON keyed by test id) with every test of REPORT.jsonl that did\n"
        "not pass; replace each reason before committing it.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    known.add_argument("report", metavar="REPORT.jsonl", type=Path)
    known.add_argument("-o", "--output", type=Path, metavar="FILE", help="where to write (default: standard output)")
    known.set_defaults(run=_known_failures)


def _check(args: argparse.Namespace) -> int:
    root = corpus_dir()
    paths = args.paths or [root]
    corpus = load(paths)
    spec = read_spec(args.spec or spec_path(root))
    problems = check_corpus(corpus, spec, read_registry(root), read_retired(root), full=args.full or not args.paths)
    for problem in problems:
        print(problem)
    tests = sum(len(group.tests) for group in corpus.groups)
    files = len(case_files(paths))
    summary = f"{files} files, {len(corpus.groups)} groups, {tests} tests: "
    if not problems:
        print(summary + "ok")
        return EXIT_OK
    print(summary + f"{len(problems)} problem{'s' if len(problems) != 1 else ''}", file=sys.stderr)
    return EXIT_HARNESS if corpus.problems else EXIT_FAIL


def _record(args: argparse.Namespace) -> int:
    corpus = load([args.file])
    if corpus.problems:
        for problem in corpus.problems:
            print(problem, file=sys.stderr)
        return EXIT_HARNESS
    data = load_strict(args.file.read_text(encoding="utf-8"))
    filled = 0
    for group_data, group in zip(data["groups"], corpus.groups, strict=True):
        missing = [index for index, test in enumerate(group_data["tests"]) if "expect" not in test]
        outcomes = reference_outcomes(group.schema, [group_data["tests"][index]["input"] for index in missing])
        for index, outcome in zip(missing, outcomes, strict=True):
            if "error" in outcome:
                outcome = {"error": {key: outcome["error"][key] for key in ("phase", "category")}}
            group_data["tests"][index]["expect"] = outcome
            filled += 1
    args.file.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{args.file}: recorded {filled} expectation{'s' if filled != 1 else ''}")
    return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    paths = args.cases or [corpus_dir()]
    corpus = load(paths)
    if corpus.problems or not corpus.groups:
        for problem in corpus.problems:
            print(problem, file=sys.stderr)
        print(
            f"response-schema: {'no cases found' if not corpus.problems else 'the cases have problems'}",
            file=sys.stderr,
        )
        return EXIT_HARNESS
    try:
        known = _read_known_failures(args.known_failures, corpus) if args.known_failures else {}
        implementation = (
            Subprocess(args.command, args.startup_timeout)
            if args.command
            else PythonCallable(args.python)
            if args.python
            else Reference()
        )
    except (OSError, ValueError, ImportError, AttributeError) as exc:
        print(f"response-schema: {exc}", file=sys.stderr)
        return EXIT_HARNESS
    selected = [(group, [test for test in group.tests if _selected(test, args)]) for group in corpus.groups]
    selected = [(group, tests) for group, tests in selected if tests]
    total = sum(len(tests) for _, tests in selected)
    terminal = Terminal(sys.stdout, total, args.show)
    runnable = [(group, [test for test in tests if test.expect is not None]) for group, tests in selected]
    options = Options(args.timeout, args.max_restarts, known)
    runner = Runner(implementation, options, lambda result: terminal.progress(result.status))
    started = time.perf_counter()
    try:
        results = runner.run([(group, tests) for group, tests in runnable if tests])
    except StartFailure as exc:
        print(f"response-schema: the implementation did not start: {exc}", file=sys.stderr)
        tail = implementation.stderr_tail()
        if tail:
            print(f"its stderr ended with:\n{tail}", file=sys.stderr)
        return EXIT_HARNESS
    results += [
        Result(test, "skip", message="the case has no expect")
        for _, tests in selected
        for test in tests
        if test.expect is None
    ]
    seconds = time.perf_counter() - started
    records = [result.as_json() for result in results]
    head = header(_suite_version(), implementation.info.as_json(), _options(args))
    terminal.summary(head, records, seconds, args.strict)
    if args.report:
        write_jsonl(args.report, head, records, footer(records, seconds))
    if args.junit:
        write_junit(args.junit, head, records)
    if args.markdown:
        write_markdown(args.markdown, head, records)
    failing = any(r["status"] in FAILING or (args.strict and r["status"] == "xpass") for r in records)
    return EXIT_FAIL if failing else EXIT_OK


def _selected(test: Test, args: argparse.Namespace) -> bool:
    if test.features & set(args.exclude_feature):
        return False
    if not args.select:
        return True
    names = test.tags | test.features | set(test.rules)
    return any(pattern in test.id or pattern in names for pattern in args.select)


def _read_known_failures(path: Path, corpus: Corpus) -> dict[str, KnownFailure]:
    try:
        data = load_strict(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must be an object keyed by test id")
    ids = {test.id for test in corpus.tests}
    known = {}
    problems = []
    for test_id, entry in data.items():
        if test_id.startswith("$"):
            continue  # "$comment" and the like
        if (
            not isinstance(entry, dict)
            or entry.get("status") not in STATUSES
            or not isinstance(entry.get("reason"), str)
        ):
            problems.append(f"/{test_id}: needs a status (one of {', '.join(STATUSES)}) and a reason")
        elif test_id not in ids:
            problems.append(f"/{test_id}: no such test in the cases")
        else:
            known[test_id] = KnownFailure(entry["status"], entry["reason"], str(entry.get("link", "")))
    if problems:
        raise ValueError("\n".join(f"{path}: {problem}" for problem in problems))
    return known


def _known_failures(args: argparse.Namespace) -> int:
    try:
        _, records = read_jsonl(args.report)
    except (OSError, ValueError) as exc:
        print(f"response-schema: {exc}", file=sys.stderr)
        return EXIT_HARNESS
    entries = {
        record["id"]: {"status": record["status"], "reason": "TODO: explain, naming the SPEC.md rule"}
        for record in records
        if record["status"] in FAILING
    }
    text = json.dumps(entries, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _suite_version() -> str:
    return (corpus_dir() / "VERSION").read_text(encoding="utf-8").strip()


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "cases": [str(path) for path in (args.cases or [corpus_dir()])],
        "command": args.command,
        "python": args.python,
        "select": args.select,
        "exclude_feature": args.exclude_feature,
        "timeout": args.timeout,
        "known_failures": str(args.known_failures) if args.known_failures else None,
        "strict": args.strict,
    }
