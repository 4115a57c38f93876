"""Reports. The JSON-lines report is the one source; JUnit XML, the Markdown table and the terminal summary
are rendered from the same records."""

from __future__ import annotations

import difflib
import json
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, TextIO
from xml.etree import ElementTree

from .runner import FAILING, STATUSES

Record = dict[str, Any]


def header(suite_version: str, implementation: dict[str, Any], options: dict[str, Any]) -> Record:
    return {"type": "header", "suite_version": suite_version, "implementation": implementation, "options": options}


def footer(records: list[Record], seconds: float) -> Record:
    return {"type": "footer", "counts": counts(records), "total": len(records), "seconds": round(seconds, 3)}


def counts(records: list[Record]) -> dict[str, int]:
    tally = Counter(record["status"] for record in records)
    return {status: tally[status] for status in STATUSES if tally[status]}


def write_jsonl(path: Path, head: Record, records: list[Record], foot: Record) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for record in [head, *({"type": "test"} | record for record in records), foot]:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> tuple[Record, list[Record]]:
    """The header and the test records of a report (ValueError when it is not one)."""
    head: Record | None = None
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            record = json.loads(line)
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


def write_junit(path: Path, head: Record, records: list[Record]) -> None:
    """JUnit XML: one testsuite per area, one testcase per test."""
    name = head["implementation"].get("name", "implementation")
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
                classname=f"{area}.{record['group']}",
                name=record["id"],
                time=f"{record['duration_ms'] / 1000:.6f}",
            )
            kind = _junit_kind(record["status"])
            tally["tests"] += 1
            if kind:
                tally[{"failure": "failures", "error": "errors", "skipped": "skipped"}[kind]] += 1
                element = ElementTree.SubElement(case, kind, message=_junit_message(record), type=record["status"])
                if kind != "skipped":
                    element.text = _expected_actual(record)
            if record.get("stderr"):
                ElementTree.SubElement(case, "system-err").text = record["stderr"]
        for key in ("tests", "failures", "errors", "skipped"):
            suite.set(key, str(tally[key]))
            totals[key] += tally[key]
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(totals[key]))
    ElementTree.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _junit_kind(status: str) -> str:
    if status in ("fail", "xpass"):
        return "failure"
    if status in ("error", "timeout", "crash", "not-run"):
        return "error"
    if status in ("unsupported", "skip", "xfail"):
        return "skipped"
    return ""


def _junit_message(record: Record) -> str:
    return str(record.get("message") or record["status"])


def write_markdown(path: Path, head: Record, records: list[Record]) -> None:
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
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


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

    def __init__(self, stream: TextIO, total: int, show: int) -> None:
        self.stream = stream
        self.total = total
        self.show = show
        self.done = 0
        self.bad = 0
        self.live = stream.isatty()
        self.color = self.live and not os.environ.get("NO_COLOR")

    def progress(self, status: str) -> None:
        self.done += 1
        self.bad += status in FAILING or status == "xpass"
        if self.live and (self.done % 10 == 0 or self.done == self.total):
            text = f"\r[{self.done}/{self.total}] {self.bad} not as expected"
            self.stream.write(self._paint(text, "31" if self.bad else "32"))
            self.stream.flush()

    def summary(self, head: Record, records: list[Record], seconds: float, strict: bool) -> None:
        if self.live:
            self.stream.write("\r" + " " * 60 + "\r")
        shown = 0
        for record in records:
            if record["status"] in FAILING or (strict and record["status"] == "xpass"):
                shown += 1
                if shown <= self.show:
                    self.stream.write(self._paint(f"{record['status'].upper()} {record['id']}", "31") + "\n")
                    self.stream.write(_indent(_expected_actual(record)) + "\n")
        if shown > self.show:
            self.stream.write(f"... and {shown - self.show} more (see --report)\n")
        implementation = head["implementation"]
        tally = ", ".join(f"{count} {status}" for status, count in counts(records).items())
        name = f"{implementation.get('name')} {implementation.get('version', '')}".strip()
        self.stream.write(f"{name}: {len(records)} tests in {seconds:.2f} s: {tally}\n")
        if not implementation.get("categorizes_errors", True):
            self.stream.write(
                "note: this implementation does not categorize errors; error tests were judged only "
                "on whether it reported an error\n"
            )

    def _paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text


def _expected_actual(record: Record) -> str:
    parts = []
    if record.get("message"):
        parts.append(f"message: {record['message']}")
    expected = json.dumps(record.get("expected"), indent=2, ensure_ascii=False).splitlines()
    actual = json.dumps(record.get("actual"), indent=2, ensure_ascii=False).splitlines()
    parts.extend(difflib.unified_diff(expected, actual, "expected", "actual", lineterm="", n=2))
    if record.get("stderr"):
        parts.append("stderr (end): " + record["stderr"][-500:])
    return "\n".join(parts)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())
