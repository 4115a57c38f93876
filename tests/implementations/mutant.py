"""The reference with one planted bug, served over protocol v1 by the kit's Python adapter, for the fuzz tests.

    python mutant.py BUG

Each BUG is a mistake real ports make; `conformance fuzz` must find every one. Bugs are planted through public
seams only: a ``Walk`` subclass given to ``Parser`` (one step of the walk changed), or the schema rewritten
before ``compile`` (after the original is compiled, so that its problems are still reported)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import response_schema as rs
from response_schema.walk import NO_VALUE, Walk

sys.path.insert(0, str(Path(__file__).parents[2] / "conformance" / "adapters" / "python"))
import adapter  # the kit's adapter, beside the corpus


class NoMatchGivesEmptyString(Walk):
    def stages(self, node: Any, content: Any) -> Any:
        result = super().stages(node, content)
        return "" if result is NO_VALUE and node.regex is not None and node.iterator is None else result


class UnsetGroupGivesWholeMatch(Walk):
    def match_value(self, match: Any) -> Any:
        value = super().match_value(match)
        return match.group(0) if value is None and not match.re.groupindex else value


class NullValuesDropped(Walk):
    def object_node(self, node: Any, content: Any) -> Any:
        output = super().object_node(node, content)
        if isinstance(content, dict):
            return {key: value for key, value in output.items() if value is not None}
        return output


class EmptyIteratorGivesList(Walk):
    def stages(self, node: Any, content: Any) -> Any:
        result = super().stages(node, content)
        return [] if result is NO_VALUE and node.iterator is not None else result


class IntegersAcceptFractions(Walk):
    def integer_node(self, node: Any, content: Any) -> Any:
        if isinstance(content, str):
            try:
                return int(float(content))
            except (ValueError, OverflowError):
                pass
        return super().integer_node(node, content)


class ConstLosesToText(Walk):
    def node(self, node: Any, content: Any) -> Any:
        if node.has_const and isinstance(content, str):
            return super().node(dataclasses.replace(node, has_const=False), content)
        return super().node(node, content)


class LastDuplicateLoses(Walk):
    def key_values(self, node: Any, matches: Any) -> Any:
        pairs: dict[str, str] = {}
        for match in matches:
            pairs.setdefault(match.group("key"), match.group("value"))
        return pairs


def rewritten(schema: Any, change: Any) -> Any:
    """A copy of ``schema`` with ``change`` applied to every node (a dict), children first."""
    if not isinstance(schema, dict):
        return schema
    node = dict(schema)
    if isinstance(node.get("properties"), dict):
        node["properties"] = {name: rewritten(child, change) for name, child in node["properties"].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            node[key] = rewritten(node[key], change)
    if isinstance(node.get("prefixItems"), list):
        node["prefixItems"] = [rewritten(child, change) for child in node["prefixItems"]]
    change(node)
    return node


def no_default(node: dict[str, Any]) -> None:
    node.pop("default", None)


def no_additional(node: dict[str, Any]) -> None:
    if node.get("type") == "object":
        node.setdefault("additionalProperties", False)


def no_transform(node: dict[str, Any]) -> None:
    args = node.get("x-parser-args")
    if isinstance(args, dict) and "transform" in args:
        node["x-parser-args"] = {key: value for key, value in args.items() if key != "transform"}


WALKS = {
    "no-match-empty-string": NoMatchGivesEmptyString,
    "unset-group-whole-match": UnsetGroupGivesWholeMatch,
    "null-values-dropped": NullValuesDropped,
    "empty-iterator-list": EmptyIteratorGivesList,
    "integer-accepts-fraction": IntegersAcceptFractions,
    "const-loses": ConstLosesToText,
    "last-duplicate-loses": LastDuplicateLoses,
}
REWRITES = {"default-ignored": no_default, "additional-dropped": no_additional, "transform-ignored": no_transform}
BUG = sys.argv[1]


def parse(schema: Any, text: str, tools: Any = None) -> Any:
    parser = rs.compile(schema)  # the original's problems are reported, whatever the bug
    if BUG in REWRITES:
        return rs.compile(rewritten(schema, REWRITES[BUG])).parse(text, tools=tools)
    return rs.Parser(parser.schema, WALKS[BUG]()).parse(text, tools=tools)


if BUG not in WALKS and BUG not in REWRITES:
    sys.exit(f"mutant.py: unknown bug {BUG!r}")
hello = {
    "protocol": 1,
    "implementation": {"name": f"mutant {BUG}", "version": rs.__version__, "language": "python"},
    "features": sorted(rs.FEATURES),
    "categorizes_errors": True,
}
sys.exit(adapter.serve(parse, hello))
