"""Expectations and outcomes: what a case expects of a test, what an implementation did with it (an outcome),
whether the one meets the other, and the reference's own outcomes and expectations."""

from __future__ import annotations

from typing import Any

from .. import ParseError, Parser, ResponseSchemaError, SchemaError, ToolsError, compiled
from ..jsontext import json_equal
from .corpus import categories

Outcome = dict[str, Any]  # {"output": value} or {"error": {"phase", "category", "message"?}}


def reference_outcomes(schema: Any, inputs: list[str], tools: list[Any] | None = None) -> list[Outcome]:
    """What the reference does with each input under ``schema`` (typed by the input's tools, when ``tools``
    gives them: one entry per input, None for none)."""
    try:
        parser = compiled(schema)  # once for a fuzz pair: its expectations, then the reference run
    except SchemaError as exc:
        return [_error(exc)] * len(inputs)
    return _parse_all(parser, inputs, tools)


def reference_expectations(schema: Any, inputs: list[str], tools: list[Any] | None = None) -> list[dict[str, Any]]:
    """What a case file expects of each input: the reference's output, or its error's phase and category (all
    the categories of a schema with problems of several, any of which is right, [SCHEMA-1])."""
    try:
        parser = compiled(schema)  # once for a fuzz pair: its expectations, then the reference run
    except SchemaError as exc:
        found = list(dict.fromkeys(problem.category for problem in exc.problems))
        category = found if len(found) > 1 else found[0]
        return [{"error": {"phase": exc.phase, "category": category}} for _ in inputs]
    return [
        {"error": {"phase": outcome["error"]["phase"], "category": outcome["error"]["category"]}}
        if "error" in outcome
        else outcome
        for outcome in _parse_all(parser, inputs, tools)
    ]


def _parse_all(parser: Parser, inputs: list[str], tools: list[Any] | None = None) -> list[Outcome]:
    outcomes: list[Outcome] = []
    for index, text in enumerate(inputs):
        try:
            outcomes.append({"output": parser.parse_walked(text, tools=tools[index] if tools else None)})
        except (ParseError, ToolsError) as exc:
            outcomes.append(_error(exc))
    return outcomes


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
