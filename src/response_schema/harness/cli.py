"""The `response-schema conformance ...` commands."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .check import check_corpus, read_registry, read_retired
from .corpus import case_files, corpus_dir, load
from .jsonvalue import load_strict
from .outcome import reference_outcomes
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
