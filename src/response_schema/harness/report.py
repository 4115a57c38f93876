"""Reports. The JSON-lines report is the one source; JUnit XML, the Markdown table and the terminal summary
are rendered from the same records."""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, TextIO
from xml.etree import ElementTree

from ..files import read_text
from ..jsontext import dumps, load_strict, printable
from ..usage import plural
from .verdict import Status

Record = dict[str, Any]


def header(suite_version: str, implementation: dict[str, Any], options: dict[str, Any]) -> Record:
    return {"type": "header", "suite_version": suite_version, "implementation": implementation, "options": options}


def footer(records: list[Record], seconds: float, interrupted: str = "") -> Record:
    """The last line of a report; ``interrupted`` names the signal that cut the run short, if one did."""
    foot = {"type": "footer", "counts": counts(records), "total": len(records), "seconds": round(seconds, 3)}
    return foot | {"interrupted": interrupted} if interrupted else foot


def counts(records: list[Record]) -> dict[str, int]:
    tally = Counter(record["status"] for record in records)
    return {status.value: tally[status.value] for status in Status if tally[status.value]}


def jsonl_text(head: Record, records: list[Record], foot: Record) -> str:
    return "".join(dumps(record) + "\n" for record in [head, *({"type": "test"} | r for r in records), foot])


def read_jsonl(path: Path) -> tuple[Record, list[Record]]:
    """The header and the test records of a report (ValueError when it is not one, FileProblem when it cannot
    be read)."""
    head: Record | None = None
    records = []
    for number, line in enumerate(read_text(path).splitlines(), 1):
        try:
            record = load_strict(line)
        except ValueError:
            raise ValueError(f"{path}:{number}: not a JSON line") from None
        if not isinstance(record, dict):
            raise ValueError(f"{path}:{number}: not a report record")
        if record.get("type") == "header":
            head = record
        elif record.get("type") == "test":
            records.append(record)
    if head is None:
        raise ValueError(f"{path}: no header line: not a conformance report")
    return head, records


def junit_text(head: Record, records: list[Record], foot: Record) -> str:
    """JUnit XML: one testsuite per area, one testcase per test; an interrupted run gets a "harness" suite
    whose one test is in error. Characters XML 1.0 cannot hold (ANSI escapes, lone surrogates) are shown
    as escapes, so the document is always well formed."""
    name = _xml(head["implementation"].get("name", "implementation"))
    root = ElementTree.Element("testsuites", name=f"response-schema conformance: {name}")
    by_area: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        by_area[record["area"]].append(record)
    totals = Counter[str]()
    for area, items in sorted(by_area.items()):
        suite = ElementTree.SubElement(root, "testsuite", name=area)
        tally = Counter[str]()
        for record in items:
            case = ElementTree.SubElement(
                suite,
                "testcase",
                classname=_xml(f"{area}.{record['group']}"),
                name=_xml(record["id"]),
                time=f"{record['duration_ms'] / 1000:.6f}",
            )
            kind = _junit_kind(record["status"])
            tally["tests"] += 1
            if kind:
                tally[{"failure": "failures", "error": "errors", "skipped": "skipped"}[kind]] += 1
                element = ElementTree.SubElement(
                    case, kind, message=_xml(_junit_message(record)), type=record["status"]
                )
                if kind != "skipped":
                    element.text = _xml(expected_actual(record))
            if record.get("stderr"):
                ElementTree.SubElement(case, "system-err").text = _xml(record["stderr"])
        for key in ("tests", "failures", "errors", "skipped"):
            suite.set(key, str(tally[key]))
            totals[key] += tally[key]
    if foot.get("interrupted"):
        suite = ElementTree.SubElement(root, "testsuite", name="harness", tests="1", failures="0", errors="1")
        case = ElementTree.SubElement(suite, "testcase", classname="harness", name="run-interrupted")
        ElementTree.SubElement(case, "error", message=_interrupted_text(foot), type="interrupted")
        totals["tests"] += 1
        totals["errors"] += 1
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(totals[key]))
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    """``text`` with every character XML 1.0 forbids written as a visible escape (\\x1b, \\ud800)."""
    return _NOT_XML.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else f"\\u{ord(m.group()):04x}", text
    )


def _interrupted_text(foot: Record) -> str:
    return f"the run was interrupted ({foot['interrupted']}): tests after that are not-run, the counts are partial"


def _junit_kind(status: str) -> str:
    if status in ("fail", "xpass"):
        return "failure"
    if status in ("error", "timeout", "crash", "not-run"):
        return "error"
    if status in ("unsupported", "skip", "xfail"):
        return "skipped"
    return ""


def _junit_message(record: Record) -> str:
    known = _known_text(record)
    return str(record.get("message") or record["status"]) + (f" (known failure: {known})" if known else "")


def _known_text(record: Record) -> str:
    """A known failure's reason and link, as one line ("" when the test has no entry)."""
    known = record.get("known_failure")
    if not known:
        return ""
    return str(known["reason"]) + (f" <{known['link']}>" if known.get("link") else "")


def markdown_text(head: Record, records: list[Record], foot: Record) -> str:
    """A compliance table per area and per feature."""
    implementation = head["implementation"]
    lines = [
        f"# Conformance of {implementation.get('name')} {implementation.get('version', '')}".rstrip(),
        "",
        f"Suite version {head['suite_version']}. Totals: "
        + ", ".join(f"{count} {status}" for status, count in counts(records).items())
        + ".",
        "",
    ]
    lines += _table("area", _tally(records, lambda record: [record["area"]]))
    lines += ["", *_table("feature", _tally(records, lambda record: record["features"] or ["(core)"]))]
    behind = lag_text(records)
    if behind:
        lines += ["", "## Streaming lag against the reference", "", behind + ".", ""]
        lines += ["| test | mean | max |", "|---|---:|---:|"]
        lines += [
            f"| {record['id']} | {record['lag']['mean']} | {record['lag']['max']} |" for record in _most_behind(records)
        ]
    known = [record for record in records if record.get("known_failure")]
    if known:
        lines += ["", "## Known failures", "", "| test | status | reason |", "|---|---|---|"]
        lines += [f"| {record['id']} | {record['status']} | {_cell(_known_text(record))} |" for record in known]
    if foot.get("interrupted"):
        lines += ["", f"**Interrupted**: {_interrupted_text(foot)}."]
    return printable("\n".join(lines) + "\n")


def lag_text(records: list[Record]) -> str:
    """One line on how far behind the reference a stream was ([STREAM-6], measured, never judged), or ""."""
    measured = [record["lag"] for record in records if record.get("lag")]
    if not measured:
        return ""
    mean = sum(lag["mean"] for lag in measured) / len(measured)
    late = sum(1 for lag in measured if lag["max"] > 0)
    return (
        f"lag against the reference, one character at a time: {mean:.2f} characters on average over "
        f"{plural(len(measured), 'test')}, {late} of them ever behind, at most {max(lag['max'] for lag in measured)}"
    )


def _most_behind(records: list[Record], count: int = 10) -> list[Record]:
    late = [record for record in records if record.get("lag") and record["lag"]["max"] > 0]
    return sorted(late, key=lambda record: (-record["lag"]["mean"], record["id"]))[:count]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _tally(records: list[Record], keys: Any) -> dict[str, Counter[str]]:
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        for key in keys(record):
            table[key][_column(record["status"])] += 1
    return table


def _column(status: str) -> str:
    if status in ("pass", "xpass"):
        return "pass"
    if status in ("unsupported", "skip"):
        return "unsupported"
    if status == "xfail":
        return "xfail"
    return "fail"


def _table(title: str, table: dict[str, Counter[str]]) -> list[str]:
    lines = [f"| {title} | pass | fail | xfail | unsupported | score |", "|---|---:|---:|---:|---:|---:|"]
    for key, tally in sorted(table.items()):
        judged = tally["pass"] + tally["fail"] + tally["xfail"]
        score = f"{100 * tally['pass'] / judged:.1f}%" if judged else "-"
        lines.append(
            f"| {key} | {tally['pass']} | {tally['fail']} | {tally['xfail']} | {tally['unsupported']} | {score} |"
        )
    return lines


class Terminal:
    """Progress while running (only on a terminal) and the summary at the end."""

    def __init__(self, stream: TextIO, total: int, show: int, strict: bool) -> None:
        self.stream = stream
        self.total = total
        self.show = show
        self.strict = strict
        self.done = 0
        self.bad = 0
        self.live = stream.isatty()
        self.color = self.live and not os.environ.get("NO_COLOR")

    def progress(self, status: str) -> None:
        self.done += 1
        self.bad += Status(status).fails_run(self.strict)
        if self.live and (self.done % 10 == 0 or self.done == self.total):
            text = f"\r[{self.done}/{self.total}] {self.bad} not as expected"
            self.stream.write(self._paint(text, "31" if self.bad else "32"))
            self.stream.flush()

    def summary(self, head: Record, records: list[Record], foot: Record) -> None:
        if self.live:
            self.stream.write("\r" + " " * 60 + "\r")
        bad = [record for record in records if Status(record["status"]).fails_run(self.strict)]
        for record in bad[: self.show]:
            self.stream.write(self._paint(f"{record['status'].upper()} {record['id']}", "31") + "\n")
            self.stream.write(printable(_indent(expected_actual(record))) + "\n")
        if len(bad) > self.show:
            self.stream.write(f"... and {len(bad) - self.show} more (see --report)\n")
        reasons = Counter(_known_text(record) for record in records if record["status"] == "xfail")
        for reason, number in reasons.most_common():
            self.stream.write(printable(f"xfail ({number}): {reason}") + "\n")
        implementation = head["implementation"]
        tally = ", ".join(f"{count} {status}" for status, count in foot["counts"].items())
        name = printable(f"{implementation.get('name')} {implementation.get('version', '')}".strip())
        self.stream.write(f"{name}: {plural(len(records), 'test')} in {foot['seconds']:.2f} s: {tally}\n")
        behind = lag_text(records)
        if behind:
            self.stream.write(behind + "\n")
        skipped = foot["counts"].get("skip", 0)
        if skipped:
            consequence = "they fail the run (--strict)" if self.strict else "with --strict they fail the run"
            self.stream.write(
                self._paint(
                    f"WARNING: {skipped} of {plural(len(records), 'test')} were skipped, not judged; {consequence}",
                    "33",
                )
                + "\n"
            )
        if foot.get("interrupted"):
            self.stream.write(self._paint(f"INTERRUPTED: {_interrupted_text(foot)}", "31") + "\n")
        if not implementation.get("categorizes_errors", True):
            self.stream.write(
                "note: this implementation does not categorize errors; error tests were judged only "
                "on whether it reported an error\n"
            )

    def _paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text


def expected_actual(record: Record) -> str:
    parts = []
    if record.get("message"):
        parts.append(f"message: {record['message']}")
    expected = dumps(record.get("expected"), indent=2).splitlines()
    actual = dumps(record.get("actual"), indent=2).splitlines()
    parts.extend(difflib.unified_diff(expected, actual, "expected", "actual", lineterm="", n=2))
    if record.get("stderr"):
        parts.append("stderr (end): " + record["stderr"][-500:])
    return "\n".join(parts)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())
