"""Shrinking a disagreement of `conformance fuzz`: the smallest schema and input (removing nodes, keywords and
pieces of text) on which the implementation still disagrees with the reference in the same way."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import SchemaError, compile
from .corpus import Group, Test
from .expect import reference_expectations
from .runner import Runner
from .verdict import FAILING, Result

STAGES = frozenset(
    {"x-regex-substitutions", "x-regex", "x-regex-iterator", "x-regex-key-value", "x-parser", "x-parser-args"}
)


SHRINK_STEPS = 400  # implementation calls spent on one disagreement at most


@dataclass
class Disagreement:
    schema: Any
    input: str
    expect: dict[str, Any]
    result: Result
    features: frozenset[str]


def shrink(runner: Runner, found: Disagreement) -> Disagreement:
    """The smallest schema and input reached by removing parts while the implementation still disagrees
    with the reference in the same way (greedy, to a fixed point or SHRINK_STEPS calls)."""
    valid = _compiles(found.schema)
    current = found
    steps = 0
    wanted = kind(found)

    def still(schema: Any, text: str) -> Disagreement | None:
        nonlocal steps
        steps += 1
        if valid and not _compiles(schema):
            return None
        (test,) = generated_tests("fuzz.shrink", schema, [text], found.features)
        (result,) = runner.run_group(generated_group("fuzz.shrink", schema, (test,)), [test])
        if result.status not in FAILING:
            return None
        assert test.expect is not None
        candidate = Disagreement(schema, text, test.expect, result, found.features)
        return candidate if kind(candidate) == wanted else None

    changed = True
    while changed and steps < SHRINK_STEPS:
        changed = False
        for schema in _smaller_schemas(current.schema):
            if steps >= SHRINK_STEPS:
                break
            smaller = still(schema, current.input)
            if smaller is not None:
                current, changed = smaller, True
                break
        if changed:
            continue
        for text in _shorter_texts(current.input):
            if steps >= SHRINK_STEPS:
                break
            smaller = still(current.schema, text)
            if smaller is not None:
                current, changed = smaller, True
                break
    return current


def generated_tests(group_id: str, schema: Any, inputs: list[str], features: frozenset[str]) -> tuple[Test, ...]:
    return tuple(
        Test(f"{group_id}.t{index}", "generated", (), features, frozenset(), text, expect, "fuzz", "", group_id, "fuzz")
        for index, (text, expect) in enumerate(zip(inputs, reference_expectations(schema, inputs), strict=True))
    )


def generated_group(group_id: str, schema: Any, tests: tuple[Test, ...]) -> Group:
    return Group(group_id, "generated", schema, tests, "fuzz", "")


def _compiles(schema: Any) -> bool:
    try:
        compile(schema)
    except SchemaError:
        return False
    return True


def kind(found: Disagreement) -> list[str]:
    """What the reference expected and what the implementation did, without values."""

    def outcome(value: Any) -> str:
        if value is None or "error" not in value:
            return "output" if value is not None else "none"
        category = value["error"].get("category")
        return f"error {value['error'].get('phase')}/{'|'.join(category) if isinstance(category, list) else category}"

    return [outcome(found.expect), found.result.status, outcome(found.result.actual)]


def size(schema: Any) -> int:
    if isinstance(schema, dict):
        return 1 + sum(size(value) for value in schema.values())
    if isinstance(schema, list):
        return 1 + sum(size(item) for item in schema)
    return 1


def _smaller_schemas(schema: Any) -> Iterator[Any]:
    """Schemas with one part taken away: all but one child node, a keyword, a property, a list item."""
    if not isinstance(schema, dict):
        return
    children = list(schema["properties"].values()) if isinstance(schema.get("properties"), dict) else []
    children += [schema[key] for key in ("items", "additionalProperties") if isinstance(schema.get(key), dict)]
    children += schema["prefixItems"] if isinstance(schema.get("prefixItems"), list) else []
    stages = {key: value for key, value in schema.items() if key in STAGES}
    for child in children:
        if isinstance(child, dict):
            yield child  # a child in its parent's place
            if stages and not STAGES & child.keys():
                yield {**child, **stages}  # ... with the stages that made its parent's content
    for key in schema:
        if key != "type":
            yield {k: v for k, v in schema.items() if k != key}
    if "type" in schema and schema["type"] not in ("object", "array"):
        yield {k: v for k, v in schema.items() if k != "type"}
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name in properties:
            yield {**schema, "properties": {k: v for k, v in properties.items() if k != name}}
        for name, child in properties.items():
            for smaller in _smaller_schemas(child):
                yield {**schema, "properties": {**properties, name: smaller}}
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            for smaller in _smaller_schemas(schema[key]):
                yield {**schema, key: smaller}
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list):
        for index, child in enumerate(prefix):
            if len(prefix) > 1:
                yield {**schema, "prefixItems": prefix[:index] + prefix[index + 1 :]}
            for smaller in _smaller_schemas(child):
                yield {**schema, "prefixItems": [*prefix[:index], smaller, *prefix[index + 1 :]]}


def _shorter_texts(text: str) -> Iterator[str]:
    """The text with a piece cut out: halves first, then smaller pieces down to one character."""
    size = len(text) // 2
    while size >= 1:
        for start in range(0, len(text) - size + 1, size):
            yield text[:start] + text[start + size :]
        size //= 2
