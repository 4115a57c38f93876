"""The floor of BENCHMARKS.md section 2 is honest: each hand-written parser (benchmarks/handwritten.py) gives the
reference's message on every corpus input of its family that the reference parses, so that section times it on
all of them, not on the easy ones."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import response_schema as rs
from response_schema.harness.corpus import corpus_dir, load

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import handwritten

GROUPS = {group.id: group for group in load([corpus_dir()]).groups}


@pytest.mark.parametrize("family", sorted(handwritten.PARSERS))
def test_the_hand_written_parser_agrees_with_the_reference(family: str) -> None:
    group = GROUPS[family]
    parser, function = rs.compile(group.schema), handwritten.PARSERS[family]
    parsed = 0
    for test in group.tests:
        try:
            expected = parser.parse(test.text)
        except rs.ParseError:
            continue  # an error: the floor is not timed there
        assert function(test.text) == expected, test.id
        parsed += 1
    assert parsed >= 10
