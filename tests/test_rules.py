"""One test per SPEC.md rule: the corpus cases that cite it hold for the reference.

A rule that SPEC.md marks untestable through the corpus names the unit test that checks it instead."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from response_schema import FEATURES
from response_schema.harness.corpus import Test, corpus_dir, load
from response_schema.harness.expect import matches, reference_outcomes
from response_schema.harness.spec import read_spec

ROOT = corpus_dir()
SPEC = read_spec(ROOT / "SPEC.md")
CORPUS = load([ROOT])
SCHEMAS = {group.id: group.schema for group in CORPUS.groups}
CITING: dict[str, list[Test]] = defaultdict(list)
for _test in CORPUS.tests:
    for _rule in _test.rules:
        CITING[_rule].append(_test)

# Untestable rules, and the unit test that checks each (file::name).
UNIT_TESTED = {
    "OBJ-8": "test_api.py::test_key_order_follows_schema_then_content",
    "ERR-3": "test_api.py::test_schema_error_at_compile_even_when_no_input_reaches_the_node",
    "SCHEMA-13": "test_api.py::test_deep_const_value_is_checked_without_recursion",
    "STREAM-7": "test_stream.py::test_deltas_add_up_to_the_message",
    "STREAM-8": "test_stream.py::test_openai_view_adds_up_to_the_message",
    "LIMIT-3": None,  # a timing property: measured by the benchmarks, never asserted in tests
    "LIMIT-4": None,  # a timing property: the harness's per-test timeout turns it into a verdict
}


@pytest.mark.parametrize("rule_id", sorted(SPEC.rules))
def test_rule(rule_id: str) -> None:
    rule = SPEC.rules[rule_id]
    if rule.untestable:
        target = UNIT_TESTED[rule_id]
        if target is None:
            pytest.skip(f"{rule_id} is a timing property (SPEC.md: {rule.text.split('untestable:')[1].strip()})")
        file, name = target.split("::")
        assert f"def {name}(" in (Path(__file__).parent / file).read_text(encoding="utf-8")
        return
    tests = [test for test in CITING[rule_id] if test.features <= FEATURES]
    if rule.must:
        assert tests, f"no case pins {rule_id}"
    for test in tests:
        (actual,) = reference_outcomes(SCHEMAS[test.group_id], [test.text], [test.tools])
        assert test.expect is not None
        assert matches(test.expect, actual), f"{test.id}: expected {test.expect}, got {actual}"


def test_corpus_loads_cleanly() -> None:
    assert CORPUS.problems == []
    assert sum(1 for _ in CORPUS.tests) >= 400
