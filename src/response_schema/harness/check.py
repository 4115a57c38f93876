"""`response-schema conformance check`: the corpus is well formed, consistent with SPEC.md, and right."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import FEATURES, schemas
from ..jsontext import dumps, json_equal, load_strict
from .corpus import Corpus, Problem, Test, categories
from .implementations import Reference
from .isolation import Forked
from .runner import Options, run_cases
from .spec import Spec
from .verdict import Status


@dataclass(frozen=True)
class Registry:
    features: frozenset[str]
    tags: frozenset[str]


def read_registry(corpus_root: Path) -> Registry:
    data = load_strict((corpus_root / "features.json").read_text(encoding="utf-8"))
    return Registry(frozenset(data["features"]), frozenset(data["tags"]))


def read_retired(corpus_root: Path) -> set[str]:
    path = corpus_root / "RETIRED"
    if not path.is_file():
        return set()
    lines = (line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return {line for line in lines if line}


def check_corpus(
    corpus: Corpus, spec: Spec, registry: Registry, retired: set[str], full: bool, timeout: float = 5.0
) -> list[Problem]:
    """Every problem of the corpus; the reference gets ``timeout`` seconds a test. ``full`` adds what only the
    whole bundled corpus must satisfy: every MUST rule and every error category pinned, the worked examples of
    SPEC.md equal to their cases, and the fmt.* groups equal to the schema library."""
    problems = list(corpus.problems)
    problems += _identity(corpus, retired)
    problems += _references(corpus, spec, registry)
    problems += _expectations(corpus, timeout)
    if full:
        problems += _coverage(corpus, spec)
        problems += _examples(corpus, spec)
        problems += _library(corpus)
    return problems


def _library(corpus: Corpus) -> list[Problem]:
    """The schema library and the corpus's fmt.* groups are one source of truth: each library schema is the
    schema of the group fmt.NAME, and each fmt.* group's schema is in the library."""
    groups = {group.id.removeprefix("fmt."): group for group in corpus.groups if group.id.startswith("fmt.")}
    problems = []
    for name in sorted(set(schemas.names()) | set(groups)):
        group = groups.get(name)
        if group is None:
            problems.append(Problem("schemas", f"/{name}", f"library schema {name!r} has no corpus group fmt.{name}"))
        elif name not in schemas.names():
            problems.append(Problem(group.file, group.pointer, f"fmt.{name} has no library schema schemas/{name}.json"))
        elif not json_equal(group.schema, schemas.load(name)):
            problems.append(Problem(group.file, f"{group.pointer}/schema", f"differs from library schema {name!r}"))
    return problems


def _identity(corpus: Corpus, retired: set[str]) -> list[Problem]:
    return [
        Problem(group.file, pointer, f"id {identifier!r} is retired and cannot be used again")
        for group in corpus.groups
        for identifier, pointer in group.places()
        if identifier in retired
    ]


def _references(corpus: Corpus, spec: Spec, registry: Registry) -> list[Problem]:
    problems = []
    for test in corpus.tests:
        for rule in test.rules:
            if rule not in spec.rules:
                problems.append(Problem(test.file, test.pointer, f"cites {rule}, which SPEC.md does not define"))
            elif spec.rules[rule].withdrawn:
                problems.append(Problem(test.file, test.pointer, f"cites {rule}, which SPEC.md has withdrawn"))
        for feature in sorted(test.features - registry.features):
            problems.append(Problem(test.file, test.pointer, f"unknown feature {feature!r} (see features.json)"))
        for tag in sorted(test.tags - registry.tags):
            problems.append(Problem(test.file, test.pointer, f"unknown tag {tag!r} (see features.json)"))
        if test.expect is not None and "error" in test.expect:
            phase = test.expect["error"]["phase"]
            for category in categories(test.expect):
                if spec.categories.get(category) != phase:
                    problems.append(
                        Problem(
                            test.file,
                            f"{test.pointer}/expect/error",
                            f"{phase}/{category} is not an error category of SPEC.md section 10",
                        )
                    )
    return problems


def _expectations(corpus: Corpus, timeout: float) -> list[Problem]:
    """Each expectation is what the reference does (for tests whose features the reference has), judged as
    `conformance run` judges, in a worker that a catastrophic pattern cannot hang."""
    selection = [(group, [test for test in group.tests if test.features <= FEATURES]) for group in corpus.groups]
    run = run_cases(Forked(Reference()), [(group, tests) for group, tests in selection if tests], Options(timeout))
    problems = []
    for result in run.results:
        test = result.test
        if result.status == Status.SKIP:
            problems.append(Problem(test.file, test.pointer, "has no expect (fill it with 'conformance record')"))
        elif result.status == Status.FAIL:
            problems.append(
                Problem(
                    test.file,
                    f"{test.pointer}/expect",
                    f"the reference gives {_short(result.actual or {})}, the case expects {_short(test.expect or {})}",
                )
            )
        elif result.status != Status.PASS:
            problems.append(Problem(test.file, test.pointer, f"the reference got {result.status}: {result.message}"))
    return problems


def _coverage(corpus: Corpus, spec: Spec) -> list[Problem]:
    problems = []
    citing: dict[str, list[Test]] = defaultdict(list)
    for test in corpus.tests:
        for rule_id in test.rules:
            citing[rule_id].append(test)
    for rule in spec.rules.values():
        if not rule.must or rule.untestable:
            continue
        if not citing[rule.id]:
            problems.append(Problem("SPEC.md", f"line {rule.line}", f"MUST rule {rule.id} is cited by no case"))
            continue
        pinned = {name for t in citing[rule.id] if t.expect and "error" in t.expect for name in categories(t.expect)}
        for named in sorted(spec.categories_named(rule) - pinned):
            problems.append(
                Problem(
                    "SPEC.md",
                    f"line {rule.line}",
                    f"{rule.id} names `{named}` but no case citing it expects that error",
                )
            )
    counts = Counter(name for t in corpus.tests if t.expect and "error" in t.expect for name in categories(t.expect))
    for category in spec.categories:
        if counts[category] < 2:
            problems.append(
                Problem(
                    "SPEC.md",
                    "section 10",
                    f"error category {category!r} is expected by {counts[category]} case(s), not 2",
                )
            )
    return problems


def _examples(corpus: Corpus, spec: Spec) -> list[Problem]:
    groups = {group.id: group for group in corpus.groups}
    problems = []
    for example in spec.examples:
        where = f"line {example.line}"
        group = groups.get(example.group_id)
        test = next((t for t in group.tests if t.id == example.test_id), None) if group else None
        if group is None or test is None:
            problems.append(
                Problem(
                    "SPEC.md",
                    where,
                    f"example names {example.group_id} / {example.test_id}, which is not in the corpus",
                )
            )
            continue
        if not isinstance(example.value, dict):
            problems.append(Problem("SPEC.md", where, f"example is {example.value}"))
            continue
        for key, actual in (("schema", group.schema), ("input", test.input), ("expect", test.expect)):
            if key in example.value and not json_equal(example.value[key], actual):
                problems.append(Problem("SPEC.md", where, f"example's {key} differs from case {test.id}"))
        if "input" not in example.value or "expect" not in example.value:
            problems.append(Problem("SPEC.md", where, "an example needs an input and an expect"))
    return problems


def _short(outcome: dict[str, Any], limit: int = 200) -> str:
    if "error" in outcome:
        return f"error {outcome['error'].get('phase')}/{outcome['error'].get('category')}"
    text = dumps(outcome.get("output"))
    return "output " + (text if len(text) <= limit else text[: limit - 3] + "...")
