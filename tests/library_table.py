"""docs/library-behaviour.md, generated from the corpus: for each library family and behaviour category, what
the schema returns on the case fmt.FAMILY.behaviour.CATEGORY. Regenerate with
``python tests/library_table.py`` (tests/test_library.py fails while the file is stale)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from library_formats import CATEGORIES, FAMILIES

from response_schema import schemas
from response_schema.harness.corpus import corpus_dir, load

DOC = Path(__file__).resolve().parent.parent / "docs" / "library-behaviour.md"


def cell(expect: dict[str, Any]) -> str:
    """What an expectation says, in a few words."""
    if "error" in expect:
        return f"error `{expect['error']['category']}`"
    message = expect["output"]
    words = [key for key in ("thinking", "content") if message.get(key)]
    calls = message.get("tool_calls") or []
    if calls:
        bare = sum(1 for call in calls if "arguments" not in call["function"])
        words.append(
            f"{len(calls)} call{'s' if len(calls) > 1 else ''}" + (f" ({bare} without arguments)" if bare else "")
        )
    return " + ".join(words) or "empty message"


def render() -> str:
    expects = {test.id: test.expect for test in load([corpus_dir()]).tests}
    lines = [
        "# What each library schema returns, by behaviour",
        "",
        "Generated from the corpus by `python tests/library_table.py`: each cell is the expectation of the case",
        "`fmt.FAMILY.behaviour.CATEGORY` (conformance/cases/formats/), whose output is written from the format's",
        'markers (tests/library_formats.py). "thinking", "content": the message has them, non-empty; "N calls":',
        "its tool calls, each with a name; an error is the one-shot error's category. A dash: the format has no",
        "thinking. The prefilled-thinking case passes the opener the family's template prefills as the prefix",
        "(SPEC.md [GEN-5]).",
        "",
        "| family | " + " | ".join(title for _, title, _ in CATEGORIES) + " |",
        "|---|" + "---|" * len(CATEGORIES),
    ]
    for family in FAMILIES:
        cells = []
        for tag, _, _ in CATEGORIES:
            expect = expects.get(f"fmt.{family.name}.behaviour.{tag}")
            cells.append("—" if expect is None else cell(expect))
        lines.append(f"| {family.name} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Prefills",
        "",
        "What each family's chat templates put after the assistant header, by mode",
        "(`response_schema.schemas.prefills(NAME)`): pass the one your template used as the prefix",
        "(`parse(output, prefix=...)`, `response-schema parse --prefix`). Families not listed prefill nothing.",
        "",
        "| family | mode | prefix |",
        "|---|---|---|",
    ]
    for name in schemas.names():
        for mode, prefix in schemas.prefills(name).items():
            shown = json.dumps(prefix).replace("|", "\\|")  # a pipe in a table cell, even in code, is escaped
            lines.append(f"| {name} | {mode} | `{shown}` |")
    lines += [
        "",
        "## Typed arguments",
        "",
        "The formats that give arguments as text, on one output, without and with the request's tools",
        "(`parse(output, tools=...)`, SPEC.md section 15; the cases `fmt.FAMILY.untyped-arguments` and",
        "`fmt.FAMILY.typed-arguments`). The tool declares `city` a string, `days` an integer, `metric` a boolean.",
        "",
        "| family | arguments without tools | with tools |",
        "|---|---|---|",
    ]
    for family in FAMILIES:
        pair = [expects.get(f"fmt.{family.name}.{kind}-arguments") for kind in ("untyped", "typed")]
        if all(pair):
            shown = [json.dumps(expect["output"]["tool_calls"][0]["function"]["arguments"]) for expect in pair]
            lines.append(f"| {family.name} | `{shown[0]}` | `{shown[1]}` |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    DOC.write_text(render(), encoding="utf-8")
