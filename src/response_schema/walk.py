"""Walking a compiled schema over a model's output: the processing steps of SPEC.md sections 4 to 8.

``Walk`` has one method per step, so that a subclass can observe the walk (``Tracer`` in trace.py: the
``saw`` hook and ``node``) or, in tests, change one step through a public seam. The walk itself keeps no
state: one instance serves every parse."""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from typing import Any

import jmespath.exceptions

from .errors import ParseError
from .schema import Node, is_json_value
from .textparsers import NOT_JSON, NotJSON, TooDeep, gemma4_to_json, json_value, parse_json

NO_VALUE = object()  # a regex stage found nothing: the node produces no value at once


class Walk:
    """The processing steps of [NODE-1]."""

    def __init__(self) -> None:
        self.types: dict[str | None, Callable[[Node, Any], Any]] = {
            "object": self.object_node,
            "array": self.array_node,
            "string": self.string_node,
            "integer": self.integer_node,
            "number": self.number_node,
            "boolean": self.boolean_node,
            "any": self.any_node,
            None: self.any_node,
        }

    def saw(self, stage: str, result: Any) -> None:
        """What a stage of the node being walked produced: the match (x-regex), the matches (x-regex-iterator,
        x-regex-key-value) or the new content (the others). A hook for observers; the walk ignores it."""

    def node(self, node: Node, content: Any) -> Any:
        """One node's value for ``content``: [NODE-1] in order."""
        if node.has_const:  # [CONST-1]
            return fresh(node.const)
        if content is None:  # [NODE-2]
            return None
        if node.has_stages:
            content = self.stages(node, content)
            if content is NO_VALUE:
                return None
        return self.types[node.type](node, content)

    def stages(self, node: Node, content: Any) -> Any:
        """Steps 3 to 8 of [NODE-1]: the string check, the regex keywords, the parser and the legacy mappings.
        NO_VALUE when a regex keyword found nothing."""
        if node.needs_string and not isinstance(content, str):  # [NODE-3]
            raise mismatch(node, "a regex keyword needs string input", content)
        if node.substitutions:
            for pattern, replacement in node.substitutions:  # [SUBS-2]
                content = pattern.sub(replacement, content)
            self.saw("x-regex-substitutions", content)
        if node.regex is not None:  # [REGEX-2]
            match = node.regex.search(content)
            self.saw("x-regex", match)
            if match is None:  # [REGEX-4]
                return NO_VALUE
            content = self.match_value(match)
        if node.iterator is not None:  # [ITER-2]
            need_string(node, content, "x-regex-iterator")
            matches = list(node.iterator.finditer(content))
            self.saw("x-regex-iterator", matches)
            content = [self.match_value(match) for match in matches]
            if not content:  # [ITER-4]
                return NO_VALUE
        if node.key_value is not None:  # [KV-3]
            need_string(node, content, "x-regex-key-value")
            content = self.key_values(node, list(node.key_value.finditer(content)))
            if not content:  # [KV-5]
                return NO_VALUE
        if node.parser is not None:  # [PARSER-2]
            content = self.parsed(node, content)
            if node.transform is not None:  # [ARGS-3]
                content = self.transformed(node, content)
        if node.mapping is not None or node.mapping_regex is not None:
            content = self.mapped(node, content)
        return content

    def match_value(self, match: re.Match[str]) -> Any:
        return match_value(match)

    def key_values(self, node: Node, matches: list[re.Match[str]]) -> dict[str, str]:
        self.saw("x-regex-key-value", matches)
        return key_values(node, matches)

    def parsed(self, node: Node, content: Any) -> Any:
        value = parsed(node, content)
        self.saw(f"x-parser {node.parser}", value)
        return value

    def transformed(self, node: Node, value: Any) -> Any:
        value = transformed(node, value)
        self.saw("transform", value)
        return value

    def mapped(self, node: Node, content: Any) -> Any:
        content = mapped(node, content)
        self.saw("x-mapping", content)
        return content

    def object_node(self, node: Node, content: Any) -> dict[str, Any]:
        output: dict[str, Any] = {}
        if isinstance(content, str):  # [OBJ-2]
            if not node.has_properties:  # [OBJ-3]
                raise mismatch(node, "an object node without properties cannot take a string", content)
            for name, child in node.properties:
                value = self.node(child, content)
                if value is not None:  # [OBJ-2] no value or null: the key is left out
                    output[name] = value
        elif isinstance(content, dict):  # [OBJ-4]
            for name, child in node.properties:
                if child.has_const:
                    output[name] = fresh(child.const)
                elif name in content:
                    output[name] = self.node(child, content[name])
                elif child.has_default:  # [OBJ-5]
                    output[name] = fresh(child.default)
            if node.additional is not False:  # [OBJ-6]
                for name, value in content.items():
                    if name not in node.property_names:
                        output[name] = value if node.additional is True else self.node(node.additional, value)
        else:
            raise mismatch(node, "an object node needs a string or an object", content)
        if node.required:  # [OBJ-7]
            missing = [name for name in node.required if name not in output]
            if missing:
                raise ParseError("missing-required", node.path, f"required keys missing from the result: {missing}")
        return output

    def array_node(self, node: Node, content: Any) -> list[Any]:
        if not content:  # [ARR-1]
            return []
        if node.items is not None:  # [ARR-2]
            if not isinstance(content, list):
                raise mismatch(node, "an array node with items needs an array", content)
            return [self.node(node.items, item) for item in content]
        assert node.prefix_items is not None
        if not isinstance(content, list):  # [ARR-3]
            if len(node.prefix_items) != 1:
                raise mismatch(node, "an array node with several prefixItems needs an array", content)
            content = [content]
        if len(content) != len(node.prefix_items):  # [ARR-4]
            raise ParseError(
                "length-mismatch", node.path, f"{len(content)} items for {len(node.prefix_items)} prefixItems"
            )
        return [self.node(child, item) for child, item in zip(node.prefix_items, content, strict=True)]

    def string_node(self, node: Node, content: Any) -> str:
        return string_value(node, content)

    def integer_node(self, node: Node, content: Any) -> int:
        return integer_value(node, content)

    def number_node(self, node: Node, content: Any) -> float:
        return number_value(node, content)

    def boolean_node(self, node: Node, content: Any) -> bool:
        return boolean_value(node, content)

    def any_node(self, node: Node, content: Any) -> Any:
        return content  # [ANY-1]


# The steps of a node that do not walk children, as functions: the walk's methods above and the compiled fast
# path (fast.py) both call them.


def match_value(match: re.Match[str]) -> Any:
    """[REGEX-5] Named groups give an object of the groups that took part; otherwise the one group's text, or None
    when it took no part ([REGEX-6])."""
    if match.re.groupindex:
        return {name: value for name, value in match.groupdict().items() if value is not None}
    return match.group(1)


def key_values(node: Node, matches: list[re.Match[str]]) -> dict[str, str]:
    """[KV-3] The object of the key and value groups of every match."""
    return key_value_pairs(node, [(match.group("key"), match.group("value"), match.group(0)) for match in matches])


def key_value_pairs(node: Node, pairs: list[tuple[str | None, str | None, str]]) -> dict[str, str]:
    """[KV-3] The object of the (key, value, whole match) of every match."""
    found: dict[str, str] = {}
    for key, value, whole in pairs:
        if key is None or value is None:  # [KV-4]
            raise ParseError(
                "unmatched-group",
                node.path,
                f"a match of x-regex-key-value left {'key' if key is None else 'value'} unmatched: {preview(whole)}",
            )
        found[key] = value  # [KV-3] the last duplicate wins
    return found


def parsed(node: Node, content: Any) -> Any:
    """[PARSER-2] The parser's value for the content."""
    need_string(node, content, f"x-parser {node.parser}")
    text = gemma4_to_json(content) if node.parser == "gemma4-tool-call" else content  # [GEMMA-1]
    try:
        if node.allow_non_json:  # [ARGS-4] a text that is not JSON is kept as it is
            value = json_value(text)
            return content if value is NOT_JSON else value
        return parse_json(text)  # [JSON-1]
    except TooDeep as exc:  # [LIMIT-2]
        raise ParseError("json-too-deep", node.path, str(exc)) from None
    except NotJSON as exc:
        raise ParseError("invalid-json", node.path, f"not JSON ({exc}): {preview(content)}") from None


def transformed(node: Node, value: Any, fast: bool = False) -> Any:
    """[ARGS-3] The JMESPath transform applied to the parser's value (by its generated code when ``fast``)."""
    transform = node.transform
    assert transform is not None
    try:
        value = transform.fast(value) if fast else transform.search(value)
    except (jmespath.exceptions.JMESPathError, TypeError, ValueError, RecursionError) as exc:
        raise ParseError("transform-failed", node.path, f"transform failed: {exc}") from None
    if transform.checked and not is_json_value(value):  # [ARGS-5] to_number("inf") and the like
        raise ParseError("transform-failed", node.path, f"the transform gave a value JSON cannot hold: {value!r}")
    return value


def mapped(node: Node, content: Any) -> Any:
    """The legacy x-mapping ([MAP-2]) then x-mapping-regex ([MAP-3]), after the parser. Each needs a string, even
    an x-mapping-regex with no pair."""
    if node.mapping is not None:
        need_string(node, content, "x-mapping")
        content = fresh(node.mapping.get(content, content))
    if node.mapping_regex is not None:
        need_string(node, content, "x-mapping-regex")
        for pattern, replacement in node.mapping_regex:
            content = pattern.sub(replacement, content)
    return content


def string_value(node: Node, content: Any) -> str:
    if not isinstance(content, str):  # [STR-1]
        raise mismatch(node, "a string node needs a string", content)
    return content


def integer_value(node: Node, content: Any) -> int:
    if isinstance(content, int):  # [INT-2] booleans included: a wart
        return content
    if not isinstance(content, str):  # [INT-3]
        raise mismatch(node, "an integer node needs a string or an integer", content)
    try:
        return int(content)  # [INT-1]
    except ValueError:
        raise ParseError("invalid-value", node.path, f"not an integer: {preview(content)}") from None


def number_value(node: Node, content: Any) -> float:
    if isinstance(content, str):
        try:
            value = float(content)  # [NUM-1]
        except ValueError:
            raise ParseError("invalid-value", node.path, f"not a number: {preview(content)}") from None
    elif isinstance(content, (int, float)):  # [NUM-2] booleans included: a wart
        try:
            value = float(content)
        except OverflowError:
            value = math.inf
    else:
        raise mismatch(node, "a number node needs a string or a number", content)
    if not math.isfinite(value):  # [NUM-3]
        raise ParseError("invalid-value", node.path, f"not a finite number: {preview(content)}")
    return value


def boolean_value(node: Node, content: Any) -> bool:
    if isinstance(content, bool):  # [BOOL-2]
        return content
    if not isinstance(content, str):
        raise mismatch(node, "a boolean node needs a string or a boolean", content)
    lowered = content.lower()  # [BOOL-1]
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise ParseError("invalid-value", node.path, f"not a boolean: {preview(content)}")


def fresh(value: Any) -> Any:
    """A copy of a schema value that the caller may change without changing the schema."""
    return copy.deepcopy(value) if isinstance(value, (dict, list)) else value


def need_string(node: Node, content: Any, stage: str) -> None:
    if not isinstance(content, str):  # [NODE-4]
        raise mismatch(node, f"{stage} needs string input", content)


def mismatch(node: Node, what: str, content: Any) -> ParseError:
    return ParseError("type-mismatch", node.path, f"{what}, got {_describe(content)}")


def _describe(content: Any) -> str:
    if content is None:
        return "no value"
    return f"{type(content).__name__} {preview(content)}"


def preview(content: Any, limit: int = 80) -> str:
    """``content`` for an error message: its repr, cut to ``limit`` characters."""
    text = repr(content)
    return text if len(text) <= limit else text[: limit - 3] + "..."
