"""conformance/response-schema.schema.json, the JSON Schema editors use: every schema the corpus accepts
validates, and every structural error the corpus pins that JSON Schema can express is flagged."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

import response_schema
from response_schema.harness.corpus import categories, corpus_dir, load

META = json.loads((corpus_dir() / "response-schema.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(META)
# Schema errors JSON Schema can express: shapes and places of keywords, not regexes, JMESPath or depth.
STRUCTURAL = {"invalid-keyword", "unknown-keyword", "unknown-parser"}


def accepted(schema: Any) -> bool:
    try:
        response_schema.compile(schema)
    except response_schema.SchemaError:
        return False
    return True


def test_the_meta_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(META)


def test_every_schema_the_corpus_accepts_validates() -> None:
    groups = [group for group in load([corpus_dir()]).groups if accepted(group.schema)]
    assert len(groups) > 150
    invalid = [(group.id, error.message) for group in groups for error in VALIDATOR.iter_errors(group.schema)]
    assert invalid == []


def test_every_structural_error_the_corpus_pins_is_flagged() -> None:
    pinned = [
        (test.id, group.schema)
        for group in load([corpus_dir()]).groups
        for test in group.tests
        if test.expect and "error" in test.expect and test.expect["error"]["phase"] == "schema"
        and set(categories(test.expect)) <= STRUCTURAL
    ]  # fmt: skip
    assert len(pinned) > 25
    missed = [test_id for test_id, schema in pinned if VALIDATOR.is_valid(schema)]
    assert missed == []


def test_the_library_schemas_validate() -> None:
    for name in response_schema.schemas.names():
        assert VALIDATOR.is_valid(response_schema.schemas.load(name)), name
