"""Outcomes (what an implementation did with one test) and how they are compared with expectations."""

from __future__ import annotations

from typing import Any

from .. import ParseError, ResponseSchemaError, SchemaError, compile
from .corpus import categories
from .jsonvalue import json_equal

Outcome = dict[str, Any]  # {"output": value} or {"error": {"phase", "category", "message"?}}


def reference_outcomes(schema: Any, inputs: list[str]) -> list[Outcome]:
    """What the reference does with each input under ``schema``."""
    try:
        parser = compile(schema)
    except SchemaError as exc:
        return [_error(exc)] * len(inputs)
    outcomes: list[Outcome] = []
    for text in inputs:
        try:
            outcomes.append({"output": parser.parse(text)})
        except ParseError as exc:
            outcomes.append(_error(exc))
    return outcomes


def reference_expectations(schema: Any, inputs: list[str]) -> list[dict[str, Any]]:
    """What a case file expects of each input: the reference's output, or its error's phase and category (all
    the categories of a schema with problems of several, any of which is right, [SCHEMA-1])."""
    try:
        compile(schema)
        categories: list[str] = []
    except SchemaError as exc:
        categories = list(dict.fromkeys(problem.category for problem in exc.problems))
    expectations = []
    for outcome in reference_outcomes(schema, inputs):
        if "error" in outcome:
            category = categories if len(categories) > 1 else outcome["error"]["category"]
            outcome = {"error": {"phase": outcome["error"]["phase"], "category": category}}
        expectations.append(outcome)
    return expectations


def _error(exc: ResponseSchemaError) -> Outcome:
    return {"error": {"phase": exc.phase, "category": exc.category, "message": exc.message}}


def matches(expect: dict[str, Any], actual: Outcome, categorized: bool = True) -> bool:
    """Whether ``actual`` meets ``expect``: equal output by JSON equality, or an error of the same phase and an
    accepted category (any error, when the implementation does not categorize errors)."""
    if "output" in expect:
        return "output" in actual and json_equal(expect["output"], actual["output"])
    if "error" not in actual:
        return False
    if not categorized:
        return True
    got = actual["error"]
    return bool(expect["error"]["phase"] == got.get("phase") and got.get("category") in categories(expect))
