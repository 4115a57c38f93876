"""The fast path: a compiled schema turned into nested closures, one per node, each doing only the steps its node
has (decided once, here, instead of on every parse). It computes what the walk (walk.py) computes, with the
same step functions for everything but the recursion, so values and errors (category, path, message) are the
walk's; tests/test_fast.py checks that on the whole corpus and on generated schemas. ``Parser.parse`` uses it;
the walk stays the reference that trace, streaming and the planted-bug tests use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import ParseError
from .schema import Node
from .walk import (
    NO_VALUE,
    boolean_value,
    fresh,
    integer_value,
    key_values,
    mapped,
    match_value,
    mismatch,
    need_string,
    number_value,
    parsed,
    string_value,
    transformed,
)

Step = Callable[[Any], Any]  # content in, the node's value (or, for a stage, the new content or NO_VALUE) out


def compile_fast(root: Node) -> Step:
    """The function that parses a text (or any content) as ``Walk().node(root, content)`` does."""
    return _node(root)


def _node(node: Node) -> Step:
    """[NODE-1] in order: const, no content, the stages, the type."""
    if node.has_const:  # [CONST-1]
        const = node.const
        return (lambda content: fresh(const)) if isinstance(const, (dict, list)) else (lambda content: const)
    typed = _typed(node)
    if _regex_only(node):
        return _regex_node(node, typed)
    if not node.has_stages:

        def plain(content: Any) -> Any:
            return None if content is None else typed(content)  # [NODE-2]

        return plain
    stages = _stages(node)

    def staged(content: Any) -> Any:
        if content is None:  # [NODE-2]
            return None
        for stage in stages:
            content = stage(content)
            if content is NO_VALUE:
                return None
        return typed(content)

    return staged


def _regex_only(node: Node) -> bool:
    """Whether the node's only stage is x-regex (with its string check): the most common node, made one function."""
    return node.regex is not None and not (
        node.substitutions
        or node.iterator is not None
        or node.key_value is not None
        or node.parser is not None
        or node.mapping is not None
        or node.mapping_regex is not None
    )


def _regex_node(node: Node, typed: Step) -> Step:
    """[NODE-1] for a node whose one stage is x-regex: the string check, the match, the type."""
    assert node.regex is not None
    search = node.regex.search
    named = bool(node.regex.groupindex)
    string = node.type == "string"

    def regex_node(content: Any) -> Any:
        if content is None:  # [NODE-2]
            return None
        if not isinstance(content, str):  # [NODE-3]
            raise mismatch(node, "a regex keyword needs string input", content)
        match = search(content)  # [REGEX-2]
        if match is None:  # [REGEX-4]
            return None
        value = match_value(match) if named else match.group(1)  # [REGEX-5], [REGEX-6]
        return value if string and isinstance(value, str) else typed(value)

    return regex_node


def _stages(node: Node) -> list[Step]:
    """Steps 3 to 8 of [NODE-1], only those the node has, in the walk's order."""
    stages: list[Step] = []
    if node.needs_string:  # [NODE-3]

        def string_check(content: Any) -> Any:
            if not isinstance(content, str):
                raise mismatch(node, "a regex keyword needs string input", content)
            return content

        stages.append(string_check)
    if node.substitutions:
        substitutions = node.substitutions

        def substitute(content: Any) -> Any:
            for pattern, replacement in substitutions:  # [SUBS-2]
                content = pattern.sub(replacement, content)
            return content

        stages.append(substitute)
    if node.regex is not None:  # [REGEX-2]
        search = node.regex.search
        named = bool(node.regex.groupindex)

        def regex(content: Any) -> Any:
            match = search(content)
            if match is None:  # [REGEX-4]
                return NO_VALUE
            return match_value(match) if named else match.group(1)  # [REGEX-5], [REGEX-6]

        stages.append(regex)
    if node.iterator is not None:  # [ITER-2]
        finditer = node.iterator.finditer

        def iterate(content: Any) -> Any:
            need_string(node, content, "x-regex-iterator")
            values = [match_value(match) for match in finditer(content)]
            return values if values else NO_VALUE  # [ITER-4]

        stages.append(iterate)
    if node.key_value is not None:  # [KV-3]
        pairs = node.key_value.finditer

        def key_value(content: Any) -> Any:
            need_string(node, content, "x-regex-key-value")
            found = key_values(node, list(pairs(content)))
            return found if found else NO_VALUE  # [KV-5]

        stages.append(key_value)
    if node.parser is not None:  # [PARSER-2]
        stages.append(lambda content: parsed(node, content))
        if node.transform is not None:  # [ARGS-3]
            stages.append(lambda content: transformed(node, content, fast=True))
    if node.mapping is not None or node.mapping_regex is not None:
        stages.append(lambda content: mapped(node, content))
    return stages


def _typed(node: Node) -> Step:
    if node.type == "object":
        return _object(node)
    if node.type == "array":
        return _array(node)
    leaf = {"string": string_value, "integer": integer_value, "number": number_value, "boolean": boolean_value}
    value = leaf.get(node.type or "any")
    if value is None:
        return lambda content: content  # [ANY-1]
    return lambda content: value(node, content)


def _object(node: Node) -> Step:
    children = [(name, child, _node(child)) for name, child in node.properties]
    additional = node.additional if isinstance(node.additional, bool) else _node(node.additional)
    names, required = node.property_names, node.required

    def object_value(content: Any) -> dict[str, Any]:
        output: dict[str, Any] = {}
        if isinstance(content, str):  # [OBJ-2]
            if not node.has_properties:  # [OBJ-3]
                raise mismatch(node, "an object node without properties cannot take a string", content)
            for name, _, parse in children:
                value = parse(content)
                if value is not None:  # [OBJ-2] no value or null: the key is left out
                    output[name] = value
        elif isinstance(content, dict):  # [OBJ-4]
            for name, child, parse in children:
                if child.has_const:
                    output[name] = fresh(child.const)
                elif name in content:
                    output[name] = parse(content[name])
                elif child.has_default:  # [OBJ-5]
                    output[name] = fresh(child.default)
            if additional is not False:  # [OBJ-6]
                for name, value in content.items():
                    if name not in names:
                        output[name] = value if additional is True else additional(value)
        else:
            raise mismatch(node, "an object node needs a string or an object", content)
        if required:  # [OBJ-7]
            missing = [name for name in required if name not in output]
            if missing:
                raise ParseError("missing-required", node.path, f"required keys missing from the result: {missing}")
        return output

    return object_value


def _array(node: Node) -> Step:
    if node.items is not None:  # [ARR-2]
        item = _node(node.items)

        def items_value(content: Any) -> list[Any]:
            if not content:  # [ARR-1]
                return []
            if not isinstance(content, list):
                raise mismatch(node, "an array node with items needs an array", content)
            return [item(value) for value in content]

        return items_value
    assert node.prefix_items is not None
    prefix = [_node(child) for child in node.prefix_items]

    def prefix_items_value(content: Any) -> list[Any]:
        if not content:  # [ARR-1]
            return []
        if not isinstance(content, list):  # [ARR-3]
            if len(prefix) != 1:
                raise mismatch(node, "an array node with several prefixItems needs an array", content)
            content = [content]
        if len(content) != len(prefix):  # [ARR-4]
            raise ParseError("length-mismatch", node.path, f"{len(content)} items for {len(prefix)} prefixItems")
        return [parse(value) for parse, value in zip(prefix, content, strict=True)]

    return prefix_items_value
