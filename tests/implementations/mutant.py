"""The reference with one planted bug, served over protocol v1, for the fuzz tests.

    python mutant.py BUG

Each BUG is a mistake real ports make; `conformance fuzz` must find every one."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from response_schema import parser, schema
from response_schema.harness.serve import serve

BUG = sys.argv[1]
walk, stages, match_value, obj, integer = (
    parser.walk,
    parser._stages,
    parser._match_value,
    parser._object,
    parser._integer,
)


def no_match_gives_empty_string(node: Any, content: Any) -> Any:
    result = stages(node, content)
    return "" if result is parser.NO_VALUE and node.regex is not None and node.iterator is None else result


def unset_group_gives_whole_match(match: Any) -> Any:
    value = match_value(match)
    return match.group(0) if value is None and not match.re.groupindex else value


def null_values_dropped(node: Any, content: Any) -> Any:
    output = obj(node, content)
    return {key: value for key, value in output.items() if value is not None} if isinstance(content, dict) else output


def empty_iterator_gives_list(node: Any, content: Any) -> Any:
    result = stages(node, content)
    return [] if result is parser.NO_VALUE and node.iterator is not None else result


def integers_accept_fractions(node: Any, content: Any) -> Any:
    if isinstance(content, str):
        try:
            return int(float(content))
        except (ValueError, OverflowError):
            pass
    return integer(node, content)


def const_loses_to_text(node: Any, content: Any) -> Any:
    if node.has_const and isinstance(content, str):
        return walk(dataclasses.replace(node, has_const=False), content)
    return walk(node, content)


def last_duplicate_loses(node: Any, content: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for match in node.key_value.finditer(content):
        pairs.setdefault(match.group("key"), match.group("value"))
    return pairs


compiler_node = schema._Compiler.node
compiler_additional = schema._Compiler.additional
compiler_transform = schema._Compiler.transform


def default_ignored(self: Any, value: Any, path: Any, depth: int) -> Any:
    node = compiler_node(self, value, path, depth)
    return dataclasses.replace(node, has_default=False) if node is not None else None


def additional_dropped(self: Any, value: Any, path: Any, depth: int) -> Any:
    return compiler_additional(self, value, path, depth) if "additionalProperties" in value else False


def transform_ignored(self: Any, expression: Any, path: Any) -> Any:
    compiler_transform(self, expression, path)  # still checked, then forgotten
    return None


PATCHES = {
    "no-match-empty-string": lambda: setattr(parser, "_stages", no_match_gives_empty_string),
    "unset-group-whole-match": lambda: setattr(parser, "_match_value", unset_group_gives_whole_match),
    "additional-dropped": lambda: setattr(schema._Compiler, "additional", additional_dropped),
    "null-values-dropped": lambda: parser._TYPES.__setitem__("object", null_values_dropped),
    "empty-iterator-list": lambda: setattr(parser, "_stages", empty_iterator_gives_list),
    "integer-accepts-fraction": lambda: parser._TYPES.__setitem__("integer", integers_accept_fractions),
    "transform-ignored": lambda: setattr(schema._Compiler, "transform", transform_ignored),
    "const-loses": lambda: setattr(parser, "walk", const_loses_to_text),
    "default-ignored": lambda: setattr(schema._Compiler, "node", default_ignored),
    "last-duplicate-loses": lambda: setattr(parser, "_key_values", last_duplicate_loses),
}

PATCHES[BUG]()
sys.exit(serve(sys.stdin.buffer, sys.stdout.buffer))
