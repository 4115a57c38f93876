"""The bundled corpus, compiled: every test of a group whose schema compiles, with that group's parser."""

from __future__ import annotations

from collections.abc import Iterator

import response_schema as rs
from response_schema.harness.corpus import Test, corpus_dir, load


def compiled_tests() -> Iterator[tuple[rs.Parser, Test]]:
    for group in load([corpus_dir()]).groups:
        try:
            parser = rs.compile(group.schema)
        except rs.SchemaError:
            continue
        for test in group.tests:
            yield parser, test
