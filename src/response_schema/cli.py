"""The response-schema command line: parse, check, and the conformance tools."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from . import __version__, compile
from .errors import ParseError, SchemaError
from .textparsers import NotJSON, TooDeep, parse_json

EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
Parse chat-model output with a response schema, and check schemas.

exit codes:
  0  success
  1  the input does not fit the schema (parse)
  2  the schema is malformed, or a usage or file error
"""


class UsageError(Exception):
    """A user mistake outside the schema and the input: a missing file, a file that is not JSON."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _argument_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except UsageError as exc:
        print(f"response-schema: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


def _argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="response-schema", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"response-schema {__version__}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    parse = commands.add_parser(
        "parse",
        help="parse model output with a schema and print the message as JSON",
        description="Parse model output (a file, or standard input) and print the message as JSON.\n\n"
        "exit codes: 0 parsed, 1 the input does not fit the schema, 2 bad schema, file or usage.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parse.add_argument("schema", metavar="SCHEMA.json", help="the response schema")
    parse.add_argument("input", metavar="INPUT", nargs="?", help="the model output (default: standard input)")
    parse.add_argument("--pretty", action="store_true", help="indent the JSON output")
    parse.set_defaults(run=_parse)

    check = commands.add_parser(
        "check",
        help="check a schema and list each problem with its JSON Pointer",
        description="Check a response schema. Prints every problem as 'POINTER: CATEGORY: MESSAGE'.\n\n"
        "exit codes: 0 the schema is valid, 2 it is not (or the file cannot be read).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("schema", metavar="SCHEMA.json", help="the response schema")
    check.set_defaults(run=_check)

    from .harness.cli import add_conformance_commands  # the reference itself never imports the harness

    add_conformance_commands(commands)
    return parser


def _parse(args: argparse.Namespace) -> int:
    schema = load_json_file(args.schema)
    text = read_text(args.input) if args.input else sys.stdin.read()
    try:
        result = compile(schema).parse(text)
    except SchemaError as exc:
        return _fail(exc, EXIT_USAGE)
    except ParseError as exc:
        return _fail(exc, EXIT_INPUT)
    print(json.dumps(result, ensure_ascii=False, indent=2 if args.pretty else None))
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    schema = load_json_file(args.schema)
    try:
        compile(schema)
    except SchemaError as exc:
        for problem in exc.problems:
            print(f"{problem.path or '/'}: {problem.category}: {problem.message}")
        count = len(exc.problems)
        print(f"{args.schema}: {count} problem{'s' if count != 1 else ''}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{args.schema}: ok")
    return EXIT_OK


def _fail(exc: SchemaError | ParseError, code: int) -> int:
    print(f"response-schema: {exc.phase} error {exc.category} at {exc.path or '/'}: {exc.message}", file=sys.stderr)
    return code


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None


def load_json_file(path: str) -> Any:
    """A JSON file's value (strict RFC 8259), or UsageError naming the file and the problem."""
    text = read_text(path)
    try:
        return parse_json(text)
    except (NotJSON, TooDeep) as exc:
        raise UsageError(f"{path} is not valid JSON: {exc}") from None


if __name__ == "__main__":
    sys.exit(main())
