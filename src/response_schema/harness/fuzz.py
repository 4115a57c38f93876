"""`conformance fuzz`: an implementation side by side with the reference on generated pairs (FUZZING.md).

Each generated schema and its inputs become a group of tests whose expectations are the reference's; the
implementation is judged exactly as `conformance run` judges it. Every disagreement is shrunk (schema nodes and
keywords, then the input) while it still disagrees, grouped by the shape of what is left, and written out as a
case file that `conformance check` accepts."""

from __future__ import annotations

import json
import re
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..jsontext import dumps
from .fuzzgen import Generator
from .runner import Interrupted, Runner
from .shrink import Disagreement, generated_group, generated_tests, kind, shrink, size
from .verdict import FAILING

# Rules a minimized case cites, from the keywords it has (a case cites at least one rule).
KEYWORD_RULES = {
    "x-regex-substitutions": "SUBS-2",
    "x-regex": "REGEX-2",
    "x-regex-iterator": "ITER-2",
    "x-regex-key-value": "KV-3",
    "x-parser": "PARSER-2",
    "x-parser-args": "ARGS-3",
    "const": "CONST-1",
    "default": "DEFAULT-1",
    "additionalProperties": "OBJ-6",
    "required": "OBJ-7",
    "items": "ARR-2",
    "prefixItems": "ARR-4",
}
TYPE_RULES = {"object": "OBJ-1", "array": "ARR-1", "string": "STR-1", "integer": "INT-1", "number": "NUM-1"}


@dataclass
class FoundClass:
    """Disagreements whose minimized cases have one shape; ``known`` is the reason when a known divergence
    explains them."""

    key: str
    example: Disagreement
    count: int = 1
    known: str = ""


@dataclass(frozen=True)
class KnownDivergence:
    """A class of disagreement that is explained (SPEC 12.2): it matches a class whose expectation, verdict and
    actual outcome start with the given texts, whose schema uses all the given keywords, and whose minimized
    input contains a match of the ``input`` pattern."""

    reason: str
    expected: str = ""
    status: str = ""
    actual: str = ""
    keywords: tuple[str, ...] = ()
    input: str = ""

    def explains(self, found: FoundClass) -> bool:
        expected, status, actual = kind(found.example)
        keywords = set(_keywords(found.example.schema))
        return (
            expected.startswith(self.expected)
            and status.startswith(self.status)
            and actual.startswith(self.actual)
            and set(self.keywords) <= keywords
            and re.search(self.input, found.example.input) is not None
        )


def read_known_divergences(data: Any) -> list[KnownDivergence]:
    """The entries of a known-divergences file (FUZZING.md); ValueError names what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("divergences"), list):
        raise ValueError('a known-divergences file is an object with a "divergences" array')
    known = []
    for index, entry in enumerate(data["divergences"]):
        fields = {"reason", "expected", "status", "actual", "keywords", "input"}
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("reason"), str)
            or not set(entry) <= fields
            or not all(isinstance(entry.get(key, ""), str) for key in ("expected", "status", "actual", "input"))
            or not isinstance(entry.get("keywords", []), list)
        ):
            raise ValueError(f"/divergences/{index}: needs a reason, and only {', '.join(sorted(fields - {'reason'}))}")
        known.append(KnownDivergence(**{**entry, "keywords": tuple(entry.get("keywords", []))}))
    return known


@dataclass
class Summary:
    pairs: int = 0
    seconds: float = 0.0
    disagreements: int = 0
    classes: dict[str, FoundClass] = field(default_factory=dict)
    interrupted: int = 0  # the signal that cut the run short, if one did

    @property
    def rate(self) -> float:
        return self.pairs / self.seconds if self.seconds else 0.0

    def progress_line(self) -> str:
        return f"{self.pairs} pairs, {self.rate:.0f}/s, {self.disagreements} disagreements, {len(self.classes)} classes"

    def unexplained(self) -> list[FoundClass]:
        """The classes no known divergence explains, most frequent first."""
        return sorted((found for found in self.classes.values() if not found.known), key=lambda c: -c.count)


def fuzz(
    runner: Runner,
    seed: int,
    seconds: float | None,
    count: int | None,
    max_classes: int | None,
    progress: Callable[[Summary], None],
    known: list[KnownDivergence] | None = None,
) -> Summary:
    """Generate pairs until ``seconds`` or ``count`` pairs (or ``max_classes`` unexplained classes) are
    reached, or an interruption (Ctrl-C, or Interrupted): what was found so far is kept. The implementation
    must already be running (``Runner.running``)."""
    generator = Generator(seed, runner.implementation.info.features)
    summary = Summary()
    started = time.perf_counter()
    try:
        _generate(runner, generator, summary, seconds, count, max_classes, progress, known or [])
    except KeyboardInterrupt:
        summary.interrupted = signal.SIGINT
    except Interrupted as exc:
        summary.interrupted = exc.signum
    summary.seconds = time.perf_counter() - started
    return summary


def _generate(
    runner: Runner,
    generator: Generator,
    summary: Summary,
    seconds: float | None,
    count: int | None,
    max_classes: int | None,
    progress: Callable[[Summary], None],
    known: list[KnownDivergence],
) -> None:
    started = time.perf_counter()
    number = 0
    while (count is None or summary.pairs < count) and (seconds is None or summary.seconds < seconds):
        pair = generator.pair()
        number += 1
        tests = generated_tests(f"fuzz.g{number}", pair.schema, pair.inputs, pair.features)
        for result in runner.run_group(generated_group(f"fuzz.g{number}", pair.schema, tests), list(tests)):
            summary.pairs += 1
            if result.status in FAILING:
                summary.disagreements += 1
                assert result.test.expect is not None
                found = Disagreement(pair.schema, result.test.text, result.test.expect, result, pair.features)
                _classify(runner, summary, found, known)
        summary.seconds = time.perf_counter() - started
        progress(summary)
        if max_classes is not None and len(summary.unexplained()) >= max_classes:
            break


def _classify(runner: Runner, summary: Summary, found: Disagreement, known: list[KnownDivergence]) -> None:
    small = shrink(runner, found)
    key = shape(small)
    if key not in summary.classes:
        summary.classes[key] = FoundClass(key, small)
        summary.classes[key].known = next((k.reason for k in known if k.explains(summary.classes[key])), "")
    else:
        summary.classes[key].count += 1
        if size(small.schema) + len(small.input) < size(summary.classes[key].example.schema) + len(
            summary.classes[key].example.input
        ):
            summary.classes[key].example = small


def shape(found: Disagreement) -> str:
    """The class of a minimized disagreement: the keywords, types and parsers its schema uses (not where, and no
    patterns, names or values), and what each side did."""
    return json.dumps([_keywords(found.schema), kind(found)])


def summary_text(summary: Summary, implementation: str) -> str:
    """What `conformance fuzz` prints at the end: each unexplained class with its smallest example, the pairs
    each known divergence explains, and the totals."""
    lines = []
    for number, found in enumerate(summary.unexplained(), 1):
        example = found.example
        lines += [
            f"class {number} ({found.count} pairs): expected {dumps(example.expect)}, got "
            f"{example.result.status} {dumps(example.result.actual)}",
            f"    schema {dumps(example.schema)}",
            f"    input {dumps(example.input)}",
        ]
    explained: dict[str, int] = {}
    for found in summary.classes.values():
        if found.known:
            explained[found.known] = explained.get(found.known, 0) + found.count
    lines += [f"known ({pairs} pairs): {reason}" for reason, pairs in sorted(explained.items(), key=lambda i: -i[1])]
    lines.append(
        f"{implementation}: {summary.pairs} pairs in {summary.seconds:.1f} s ({summary.rate:.0f} pairs/s): "
        f"{summary.disagreements} disagreements in {len(summary.classes)} classes, "
        f"{len(summary.unexplained())} not explained by a known divergence"
    )
    return "".join(line + "\n" for line in lines)


def case_file(summary: Summary, seed: int, implementation: str) -> dict[str, Any]:
    """The unexplained classes as a case file of the corpus format, one group and one test each, expecting what
    the reference does."""
    groups = []
    for number, found in enumerate(summary.unexplained(), 1):
        example = found.example
        group_id = f"fuzz.s{seed}.c{number}"
        actual = example.result.actual
        did = (
            f"{example.result.status}: {example.result.message}"
            if actual is None
            else json.dumps(actual, ensure_ascii=False)[:300]
        )
        group: dict[str, Any] = {
            "id": group_id,
            "description": f"Found by conformance fuzz --seed {seed} against {implementation} "
            f"({found.count} disagreement{'s' if found.count != 1 else ''} of this shape); it did {did}.",
            "rules": _rules(example.schema),
        }
        if example.features:
            group["features"] = sorted(example.features)
        group["schema"] = example.schema
        group["tests"] = [
            {
                "id": f"{group_id}.t",
                "description": "The minimized input.",
                "input": example.input,
                "expect": example.expect,
            }
        ]
        groups.append(group)
    return {
        "description": f"Disagreements found by conformance fuzz --seed {seed} against {implementation}.",
        "groups": groups,
    }


def _keywords(schema: Any) -> list[str]:
    """The keywords of a schema and the types and parsers it names, each once, sorted."""
    names: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            names.update(key for key in node if key not in ("properties",) or node[key])
            names.update(f"{key}:{node[key]}" for key in ("type", "x-parser") if isinstance(node.get(key), str))
            children = [node.get(key) for key in ("items", "additionalProperties")]
            children += list(node["properties"].values()) if isinstance(node.get("properties"), dict) else []
            children += node["prefixItems"] if isinstance(node.get("prefixItems"), list) else []
            stack.extend(child for child in children if isinstance(child, dict))
    return sorted(names)


def _rules(schema: Any) -> list[str]:
    rules: list[str] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            rules += [rule for key, rule in KEYWORD_RULES.items() if key in node]
            if isinstance(node.get("type"), str) and node["type"] in TYPE_RULES:
                rules.append(TYPE_RULES[node["type"]])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return sorted(set(rules)) or ["GEN-2"]
