"""What the checker reads from SPEC.md: the rules (id, level, categories named) and the worked examples."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..files import read_text
from ..jsontext import load_strict

_RULE = re.compile(r"^- \*\*\[([A-Z][A-Z0-9]*-[0-9]+)\]\*\*(.*)$")
_CATEGORY_ROW = re.compile(r"^\s*\|\s*(schema|input)\s*\|\s*`([a-z-]+)`\s*\|")
_EXAMPLE = re.compile(r"<!-- example: (\S+) / (\S+) -->\n```json\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Rule:
    id: str
    text: str
    line: int

    @property
    def must(self) -> bool:
        return "MUST" in self.text

    @property
    def untestable(self) -> bool:
        return "untestable:" in self.text

    @property
    def withdrawn(self) -> bool:
        """A rule that no longer holds: its id stays, with the text "Withdrawn", and is never reused."""
        return self.text.lstrip().startswith("Withdrawn")


@dataclass(frozen=True)
class Example:
    group_id: str
    test_id: str
    line: int
    value: Any  # {"schema"?, "input", "expect"}, or the text of a JSON error


@dataclass(frozen=True)
class Spec:
    rules: dict[str, Rule]
    categories: dict[str, str]  # category -> phase
    examples: list[Example]

    def categories_named(self, rule: Rule) -> set[str]:
        return {category for category in self.categories if f"`{category}`" in rule.text}


def read_spec(path: Path) -> Spec:
    """The rules and error categories of a SPEC.md; FileProblem when it cannot be read."""
    text = read_text(path)
    lines = text.splitlines()
    rules: dict[str, Rule] = {}
    categories: dict[str, str] = {}
    current: list[str] | None = None
    for number, line in enumerate(lines, 1):
        match = _RULE.match(line)
        if match:
            current = [match.group(2)]
            rules[match.group(1)] = Rule(match.group(1), "", number)
        elif current is not None and line.startswith("  ") and line.strip() and not line.strip().startswith("|"):
            current.append(line.strip())
        else:
            current = None
        if current is not None:
            rule_id = next(reversed(rules))
            rules[rule_id] = Rule(rule_id, " ".join(current), rules[rule_id].line)
        row = _CATEGORY_ROW.match(line)
        if row:
            categories[row.group(2)] = row.group(1)
    examples = []
    for match in _EXAMPLE.finditer(text):
        where = text.count("\n", 0, match.start()) + 1
        try:
            value = load_strict(match.group(3))
        except ValueError as exc:
            value = f"not valid JSON: {exc}"
        examples.append(Example(match.group(1), match.group(2), where, value))
    return Spec(rules, categories, examples)


def spec_path(corpus: Path) -> Path:
    """SPEC.md beside the corpus: conformance/SPEC.md links to it in a checkout and is a copy in the wheel."""
    return corpus / "SPEC.md"
