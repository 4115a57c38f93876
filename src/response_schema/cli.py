"""The response-schema command line: parse, check, and the conformance tools."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from . import SPEC_VERSION, Tools, ToolsError, __version__, compile, schemas
from .configs import NoResponseSchema, from_config, schema_from
from .errors import ParseError, ResponseSchemaError, SchemaError, shown
from .files import FileProblem, load_json, read_chunks, read_lines, read_text, write_out
from .jsontext import dumps, load_strict, printable
from .openai import OpenAIStream
from .usage import EXIT_BROKEN_PIPE, EXIT_USAGE, CommandLine, port

EXIT_OK, EXIT_INPUT = 0, 1
JSONL_BATCH = 1024  # lines parsed (Parser.parse_many) and written at a time with --jsonl

DESCRIPTION = """\
Parse chat-model output with a response schema, and check schemas.

exit codes:
  0    success
  1    the input does not fit the schema (parse); conformance failures (conformance run)
  2    the schema is malformed, or a usage or file error
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM); 129 hung up (SIGHUP)
  141  the output pipe was closed early (for example by `| head`)
"""


class UsageError(Exception):
    """A user mistake outside the schema and the input: a missing file, a file that is not JSON."""


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        code = _conformance(words[1:]) if words[:1] == ["conformance"] else _run(words)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at exit
        return code
    except (UsageError, FileProblem) as exc:
        print(printable(f"response-schema: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _discard_stdout()  # the reader is gone
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # files are FileProblems by now: what is left is standard output (a full disk, /dev/full)
        _discard_stdout()
        print(printable(f"response-schema: cannot write standard output: {exc.strerror or exc}"), file=sys.stderr)
        return EXIT_USAGE


def _discard_stdout() -> None:
    """Send what is still buffered for standard output nowhere, so that exiting prints no second error."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _versions() -> str:
    from .harness.corpus import corpus_dir, suite_version

    return f"response-schema {__version__} (spec {SPEC_VERSION}, corpus {suite_version(corpus_dir())})"


class _Version(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the versions of the package, spec and corpus")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        write_out(_versions() + "\n")
        parser.exit()


def _argument_parser() -> argparse.ArgumentParser:
    parser = CommandLine(
        prog="response-schema", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(required=True, metavar="COMMAND", parser_class=CommandLine)

    parse = commands.add_parser(
        "parse",
        help="parse model output with a schema and print the message as JSON",
        description="Parse model output (a file, or standard input) and print the message as JSON. The output is\n"
        "read as bytes and decoded as strict UTF-8, and parsed exactly as given (no newline conversion).\n\n"
        "exit codes: 0 parsed, 1 the input does not fit the schema, 2 bad schema, file or usage.\n\n"
        "With --jsonl, INPUT holds one output a line (a JSON string, or an object with a string 'text'), and\n"
        'each line in gives one line out, in order: {"output": MESSAGE}, or {"error": {phase, category, path,\n'
        "message}} for an output that does not fit (with --rows: a row of fixed columns instead). Errors are\n"
        "values there: exit 0 once every line is read, 2 at a line that is not such JSON (the lines before it\n"
        "are written). A count goes to standard error at the end.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parse.add_argument(
        "schema",
        metavar="SCHEMA",
        help="a schema file ('-': standard input), a model's tokenizer_config.json, chat_template.json or "
        "processor_config.json or its folder, or a library schema's name",
    )
    parse.add_argument(
        "input", metavar="INPUT", nargs="?", default="-", help="the model output ('-' or none: standard input)"
    )
    parse.add_argument(
        "--prefix",
        default="",
        metavar="TEXT",
        help="what the assistant turn held before the output, such as the '<think>\\n' a chat template "
        "prefills (the parse reads TEXT then INPUT; backslash escapes \\n, \\t, \\\\ are read; "
        "'response-schema schemas show NAME' says a library format's prefills)",
    )
    parse.add_argument(
        "--tools",
        metavar="FILE",
        help="the request's tools (a JSON array of OpenAI function definitions, or a request body with a 'tools' "
        "key): the arguments of calls to them are typed by their parameters (SPEC.md section 15)",
    )
    parse.add_argument(
        "--jsonl", action="store_true", help="INPUT is JSON lines, one output each; one result a line out (below)"
    )
    parse.add_argument(
        "--rows",
        action="store_true",
        help="with --jsonl: each result as a row of the same columns, every value a string or null (tool_calls "
        "and other keys as JSON text, the error's category, path and message): ready for Arrow or datasets",
    )
    parse.add_argument("--pretty", action="store_true", help="indent the JSON output")
    parse.add_argument("--trace", action="store_true", help="show what each node did (a tree; JSON with --json)")
    parse.add_argument("--json", action="store_true", help="with --trace: the trace as JSON (Parser.trace)")
    parse.set_defaults(run=_parse)

    stream = commands.add_parser(
        "stream",
        help="parse model output as it arrives and print what a server would send, a JSON line a delta",
        description="Read model output (a file, or standard input, such as a pipe from a model server) as it\n"
        "arrives and print, one JSON line each, the deltas a streaming parse sends (SPEC.md section 14): the\n"
        'generic view ({"op": "add"|"append"|"end"|"json", "path", ...}), or with --openai the\n'
        "chat-completion-chunk deltas (content, reasoning_content, tool_calls). What is printed is never taken\n"
        "back, and adds up to what 'parse' prints.\n\n"
        "exit codes: 0 parsed, 1 the output does not fit the schema (after what was sent), 2 bad schema, file or\n"
        "usage.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    stream.add_argument("schema", metavar="SCHEMA", help="as for parse")
    stream.add_argument("input", metavar="INPUT", nargs="?", default="-", help="the model output ('-': stdin)")
    stream.add_argument("--prefix", default="", metavar="TEXT", help="as for parse")
    stream.add_argument("--tools", metavar="FILE", help="as for parse")
    stream.add_argument("--openai", action="store_true", help="print the OpenAI chat-completion-chunk view")
    stream.add_argument("--chunk", type=_positive, default=4096, metavar="BYTES", help="read at most BYTES at a time")
    stream.set_defaults(run=_stream)

    check = commands.add_parser(
        "check",
        help="check schemas and list each problem with its JSON Pointer",
        description="Check response schemas. Prints every problem as 'FILE: POINTER: CATEGORY: MESSAGE' (the\n"
        'root pointer is printed as "").\n\n'
        "exit codes: 0 every schema is valid, 2 one is not (or a file cannot be read).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "schemas", metavar="SCHEMA", nargs="+", help="response schemas, as for parse ('-': standard input)"
    )
    check.set_defaults(run=_check)

    library = commands.add_parser(
        "schemas",
        help="the library of real-format schemas: list them, or show one",
        description="The library of real-format response schemas shipped with the package (also\n"
        "response_schema.schemas.load(NAME) in Python). Without NAME, lists them.\n\n"
        "exit codes: 0 listed or shown, 2 no such schema.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    library.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    library.add_argument("name", metavar="NAME", nargs="?", help="the schema to show")
    library.set_defaults(run=_schemas)

    playground = commands.add_parser(
        "playground",
        help="a local web page to try schemas on outputs, with the trace",
        description="Serve the playground on http://127.0.0.1:PORT/ (this machine only, no external assets):\n"
        "a schema and a model output on the left, the message, the matched spans and the trace on the right.\n"
        "Each parse is cut off after 2 seconds. Ctrl-C stops it.\n\n"
        "exit codes: 0 stopped, 2 the port cannot be used.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    playground.add_argument("--port", type=port, default=8765, help="the port (default 8765; 0 picks a free one)")
    playground.add_argument("--open", action="store_true", help="open the page in a browser")
    playground.set_defaults(run=_playground)

    conformance = commands.add_parser(
        "conformance",
        help="the conformance corpus: check it, run an implementation against it, record expectations",
        add_help=False,  # its own command line (harness/cli.py) answers --help
    )
    conformance.add_argument("arguments", nargs=argparse.REMAINDER)
    return parser


def _run(argv: list[str]) -> int:
    args = _argument_parser().parse_args(argv)
    return int(args.run(args))


def _conformance(argv: list[str]) -> int:
    from .harness.cli import main  # only here: parse, check and the rest never load the harness

    return main(argv)


def _parse(args: argparse.Namespace) -> int:
    if args.schema == "-" and args.input == "-":
        raise UsageError("the schema and the input cannot both be standard input")
    if args.rows and not args.jsonl:
        raise UsageError("--rows needs --jsonl")
    if args.jsonl and (args.trace or args.pretty):
        raise UsageError(
            f"--jsonl writes one line a result: it does not take {'--trace' if args.trace else '--pretty'}"
        )
    schema = load_schema(args.schema)
    prefix = unescape(args.prefix)
    try:
        tools = load_tools(args.tools)
        parser = compile(schema)
        if args.jsonl:
            return _parse_lines(parser, args.input, prefix, tools, args.rows)
        text = read_text(args.input)
        if args.trace:
            trace = parser.trace(text, prefix)
            write_out(dumps(trace, indent=2 if args.pretty else None) + "\n" if args.json else render_trace(trace))
            return EXIT_INPUT if "error" in trace else EXIT_OK
        result = parser.parse(text, prefix, tools)
    except (SchemaError, ToolsError) as exc:
        return _fail(exc, EXIT_USAGE)
    except ParseError as exc:
        return _fail(exc, EXIT_INPUT)
    write_out(dumps(result, indent=2 if args.pretty else None) + "\n")
    return EXIT_OK


def _parse_lines(parser: Any, path: str, prefix: str, tools: Tools | None, rows: bool) -> int:
    """parse --jsonl: the outputs of INPUT's lines parsed a batch at a time, one result a line out, in order."""
    counts = {"parsed": 0, "errors": 0}

    def flush(texts: list[str]) -> None:
        results = parser.parse_many(texts, prefix, tools, rows=rows)
        failed = sum(isinstance(result, ParseError) or bool(rows and result["error_category"]) for result in results)
        counts["errors"] += failed
        counts["parsed"] += len(results) - failed
        write_out("".join(dumps(result if rows else _outcome(result)) + "\n" for result in results))

    texts: list[str] = []
    try:
        for number, line in enumerate(read_lines(path), 1):
            texts.append(_line_text(line, f"{'standard input' if path == '-' else path}, line {number}"))
            if len(texts) == JSONL_BATCH:
                flush(texts)
                texts = []
    except (UsageError, FileProblem):
        flush(texts)  # the results of the lines before the bad one
        raise
    flush(texts)
    total = counts["parsed"] + counts["errors"]
    print(
        f"response-schema: {total} output{'s' * (total != 1)}: {counts['parsed']} parsed, "
        f"{counts['errors']} error{'s' * (counts['errors'] != 1)}",
        file=sys.stderr,
    )
    return EXIT_OK


def _line_text(line: str, where: str) -> str:
    """The output a line of parse --jsonl holds: a JSON string, or an object's string member 'text'."""
    try:
        value = load_strict(line)
    except ValueError as exc:
        raise UsageError(f"{where} is not JSON: {exc}") from None
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return str(value["text"])
    if not isinstance(value, str):
        raise UsageError(f"{where} is neither a JSON string nor an object with a string 'text'")
    return value


def _outcome(result: Any) -> dict[str, Any]:
    if isinstance(result, ParseError):
        error = {"phase": result.phase, "category": result.category, "path": result.path, "message": result.message}
        return {"error": error}
    return {"output": result}


def _stream(args: argparse.Namespace) -> int:
    if args.schema == "-" and args.input == "-":
        raise UsageError("the schema and the input cannot both be standard input")
    schema = load_schema(args.schema)
    try:
        tools = load_tools(args.tools)
        parser = compile(schema)
    except (SchemaError, ToolsError) as exc:
        return _fail(exc, EXIT_USAGE)
    stream = parser.stream(unescape(args.prefix), tools)
    view: Any = OpenAIStream(stream) if args.openai else stream
    try:
        for text in read_chunks(args.input, args.chunk):
            _print_lines(view.feed(text))
        _print_lines(view.finish())
    except ParseError as exc:
        return _fail(exc, EXIT_INPUT)
    return EXIT_OK


def _print_lines(values: list[Any]) -> None:
    if values:
        write_out("".join(dumps(value) + "\n" for value in values))
        sys.stdout.flush()  # as they come: a reader downstream sees each delta at once


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return value


def unescape(text: str) -> str:
    """A --prefix as typed: ``\\n``, ``\\t``, ``\\r`` and ``\\\\`` stand for their characters (a newline
    is hard to type in a shell argument); any other backslash is kept as it is."""
    escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
    return re.sub(r"\\(.)", lambda match: escapes.get(match.group(1), match.group()), text, flags=re.DOTALL)


def render_trace(trace: dict[str, Any]) -> str:
    """A trace as an indented tree: each node's pointer, what it received, each stage, and what it produced."""
    lines: list[str] = []

    def short(value: Any, limit: int = 60) -> str:
        text = dumps(value)
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def span(where: Any) -> str:
        return f" [{where[0]}:{where[1]}]" if where else ""

    def node(record: dict[str, Any], depth: int) -> None:
        pad = "  " * depth
        lines.append(f"{pad}{shown(record['path'])} <- {short(record['content'])}{span(record.get('span'))}")
        for stage in record.get("stages", []):
            name = stage["stage"]
            if "match" in stage:
                match = stage["match"]
                found = "no match" if match is None else f"matched {short(match['text'], 40)}{span(match['span'])}"
                lines.append(f"{pad}  {name}: {found}")
                for group, value in (match or {}).get("groups", {}).items():
                    lines.append(f"{pad}    group {group}: {short(value['text'], 40)}{span(value['span'])}")
            elif "matches" in stage:
                lines.append(f"{pad}  {name}: {len(stage['matches'])} matches")
                for match in stage["matches"]:
                    lines.append(f"{pad}    {short(match['text'], 50)}{span(match['span'])}")
            else:
                lines.append(f"{pad}  {name} -> {short(stage['output'])}")
        for child in record.get("children", []):
            node(child, depth + 1)
        if "error" in record:
            lines.append(f"{pad}  ERROR {record['error']['category']}: {record['error']['message']}")
        else:
            lines.append(f"{pad}  = {short(record.get('value'))}")

    node(trace["root"], 0)
    lines.append("result: " + (dumps(trace["value"]) if "value" in trace else f"error {trace['error']['category']}"))
    return printable("\n".join(lines) + "\n")


def _check(args: argparse.Namespace) -> int:
    if args.schemas.count("-") > 1:
        raise UsageError("standard input can be read once")
    failed = False
    for path in args.schemas:
        try:
            schema = load_schema(path)
            compile(schema)
        except (UsageError, FileProblem) as exc:
            print(printable(f"response-schema: {exc}"), file=sys.stderr)
            failed = True
        except SchemaError as exc:
            lines = [f"{path}: {shown(p.path)}: {p.category}: {p.message}" for p in exc.problems]
            count = len(exc.problems)
            write_out("".join(line + "\n" for line in lines))
            print(f"{path}: {count} problem{'s' if count != 1 else ''}", file=sys.stderr)
            failed = True
        else:
            write_out(f"{path}: ok\n")
    return EXIT_USAGE if failed else EXIT_OK


def _playground(args: argparse.Namespace) -> int:
    from .playground import serve

    try:
        return serve(args.port, args.open)
    except OSError as exc:
        raise UsageError(f"cannot serve on 127.0.0.1:{args.port}: {exc.strerror or exc}") from None


def _schemas(args: argparse.Namespace) -> int:
    if args.action == "show":
        if not args.name:
            raise UsageError("schemas show needs a NAME (response-schema schemas lists them)")
        try:
            write_out(dumps(schemas.load(args.name), indent=2) + "\n")
        except KeyError as exc:
            raise UsageError(str(exc.args[0])) from None
        return EXIT_OK
    for name in schemas.names():
        write_out(f"{name:14} {schemas.load(name)['title']}\n")
    return EXIT_OK


def _fail(exc: ResponseSchemaError, code: int) -> int:
    print(
        printable(f"response-schema: {exc.phase} error {exc.category} at {shown(exc.path)}: {exc.message}"),
        file=sys.stderr,
    )
    return code


def load_tools(path: str | None) -> Tools | None:
    """The tools that --tools names: a JSON array of function definitions, or a request body that holds one
    under ``tools``; None without --tools. ToolsError when they are not function definitions ([TOOLS-1])."""
    if path is None:
        return None
    value = load_json(path)
    return Tools(value["tools"] if isinstance(value, dict) and "tools" in value else value)


def load_schema(path: str) -> Any:
    """The schema that SCHEMA names: a schema file, a model's config file or folder (its response_schema key),
    or, when no such file exists, a schema of the library (``response-schema schemas``)."""
    if path != "-" and not os.path.exists(path) and path in schemas.names():
        return schemas.load(path)
    if path != "-" and os.path.isdir(path):
        try:
            return schema_from(path)
        except NoResponseSchema as exc:
            raise UsageError(str(exc)) from None
    try:
        return from_config(load_json(path), os.path.basename(path))
    except NoResponseSchema as exc:
        raise UsageError(str(exc)) from None


if __name__ == "__main__":
    sys.exit(main())
