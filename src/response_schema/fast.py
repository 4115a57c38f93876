"""The fast path: a compiled schema turned into Python source, one function a node, each doing only the steps its
node has, in straight lines (decided once, here, instead of on every parse); a child's const, and the steps of a
text child or of an array of a text's matches on its parent's string, are written where its parent calls it. It
computes what the walk (walk.py) computes, with the same step functions for everything but the recursion and the
type checks, so values and errors (category, path, message) are the walk's; tests/test_fast.py checks that on the
whole corpus and on generated schemas. ``Parser.parse`` uses it; the walk stays the reference that trace, streaming
and the planted-bug tests use.

Nothing of the schema is written into the source: patterns, keys, constants and nodes reach it as names bound
in the namespace it runs in (``N3``, ``K7``), so the source depends only on the schema's shape and a schema's
text can never be code. Sources are compiled once per shape (generated.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import generated, plans
from .errors import ParseError
from .schema import Node
from .walk import (
    boolean_value,
    fresh,
    integer_value,
    key_value_pairs,
    key_values,
    mapped,
    match_value,
    mismatch,
    need_string,
    number_value,
    parsed,
    transformed,
)

Step = Callable[[Any], Any]  # content in, the node's value out

_HELPERS: dict[str, Any] = {
    "ParseError": ParseError,
    "boolean_value": boolean_value,
    "fresh": fresh,
    "integer_value": integer_value,
    "key_value_pairs": key_value_pairs,
    "key_values": key_values,
    "mapped": mapped,
    "match_value": match_value,
    "mismatch": mismatch,
    "need_string": need_string,
    "NO_MATCH": plans.NO_MATCH,
    "number_value": number_value,
    "parsed": parsed,
    "transformed": transformed,
}
_LEAVES = {"integer": "integer_value", "number": "number_value", "boolean": "boolean_value"}
_TEXT_TYPES = (None, "any", "string")


def compile_fast(root: Node) -> Step:
    """The function that parses a text (or any content) as ``Walk().node(root, content)`` does."""
    source = _Source()
    name = source.node(root)
    namespace = {**_HELPERS, **source.constants}
    step: Step = generated.function("\n".join(source.lines), name, namespace, "<response_schema.fast>")
    return step


class _Source(generated.Source):
    """The generated module: one function a node."""

    def __init__(self) -> None:
        super().__init__()
        self.functions = 0
        self.made: dict[int, str] = {}  # id(node) -> the name of its function

    def node(self, node: Node) -> str:
        """[NODE-1] in order, as the function of one node: const, no content, the stages, the type. Made once."""
        if id(node) in self.made:
            return self.made[id(node)]
        name = self.made[id(node)] = f"node{self.functions}"
        self.functions += 1
        body: list[str] = []
        if node.has_const:  # [CONST-1]
            body.append(f"return {self.const(node)}")
        else:
            this = self.constant("N", node)
            body += ["if c is None:", "    return None"]  # [NODE-2]
            text = False  # whether the content is known to be a string here
            if node.has_stages:
                lines, text = self.stages(node, this)
                body += lines
            body += self.typed(node, this, text)
        self.lines += [f"def {name}(c):", *("    " + line for line in body)]
        return name

    def const(self, node: Node) -> str:
        """[CONST-1] The expression of a node's const: a fresh copy of an object or array."""
        const = self.constant("C", node.const)
        return f"fresh({const})" if isinstance(node.const, (dict, list)) else const

    def stages(self, node: Node, this: str) -> tuple[list[str], bool]:
        """Steps 3 to 8 of [NODE-1], only those the node has, in the walk's order; a regex stage that finds
        nothing returns no value. With the lines, whether the content they leave is known to be a string (the
        checks that it is are then left out)."""
        lines = []
        text = node.needs_string
        if node.needs_string:  # [NODE-3]
            lines += _guard("not isinstance(c, str)", f"mismatch({this}, 'a regex keyword needs string input', c)")
        lines += self.substitutions(node, "c", "c")  # [SUBS-2]
        if node.regex is not None:  # [REGEX-2]
            plan = plans.plan(node.regex)
            if plan is not None and plan.search is not None:  # group 1's text, or NO_MATCH
                lines += [f"c = {self.constant('L', plan.search)}(c)", "if c is NO_MATCH:", "    return None"]
            else:
                lines += [f"m = {self.constant('X', node.regex.search)}(c)", "if m is None:", "    return None"]
                lines.append("c = match_value(m)" if node.regex.groupindex else "c = m.group(1)")  # [REGEX-4..6]
                text = False  # a group that took no part gives None
        if node.iterator is not None:  # [ITER-2]
            if not text:
                lines.append(f"need_string({this}, c, 'x-regex-iterator')")
            text = False
            lines += [f"c = {self.matches(node.iterator, 'c')}", "if not c:", "    return None"]  # [ITER-4]
        if node.key_value is not None:  # [KV-3]
            if not text:
                lines.append(f"need_string({this}, c, 'x-regex-key-value')")
            plan = plans.plan(node.key_value)
            if plan is not None and plan.pairs is not None:
                lines.append(f"c = key_value_pairs({this}, {self.constant('L', plan.pairs)}(c))")
            else:
                lines.append(f"c = key_values({this}, list({self.constant('P', node.key_value.finditer)}(c)))")
            lines += ["if not c:", "    return None"]  # [KV-5]
            text = False
        if node.parser is not None:  # [PARSER-2]
            lines.append(f"c = parsed({this}, c)")
            if node.transform is not None:  # [ARGS-3]
                lines.append(f"c = transformed({this}, c, True)")
        if node.mapping is not None or node.mapping_regex is not None:
            lines.append(f"c = mapped({this}, c)")
        return lines, text and node.parser is None and node.mapping is None and node.mapping_regex is None

    def inlined(self, node: Node, key: str) -> list[str] | None:
        """The lines that put a child's value of its parent's string ``c`` at ``key`` of ``out`` (nothing when it has
        none), for a text node (``text_stages``) and for an array of a text's iterator matches; None for any other
        node, which its parent calls."""
        text = self.text_stages(node)
        if text is not None:
            return [*text, "if v is not NO_MATCH and v is not None:", f"    out[{key}] = v"]
        if node.type != "array" or node.items is None or node.iterator is None:
            return None
        stages = self.text_stages(node, iterated=True)
        if stages is None:
            return None
        found = f"v = {self.matches(node.iterator, 'v')}"  # [ITER-2]
        put = [found, "if v:", f"    out[{key}] = [{self.node(node.items)}(x) for x in v]"]  # [ITER-4], [ARR-2]
        if node.regex is None:
            return [*stages, *put]
        return [*stages, "if v is not NO_MATCH:", *("    " + line for line in put)]

    def text_stages(self, node: Node, iterated: bool = False) -> list[str] | None:
        """For a text node (substitutions, then an x-regex, nothing else; a string or untyped node), the lines that
        compute its value of the string ``c`` into ``v``: the text they leave, NO_MATCH when the x-regex finds
        nothing and None when its group took no part (no value, [REGEX-4], [REGEX-6]). None for any other node. On a
        string its only check that can fail is a string node's on a group that took no part ([STR-1]), so its
        parent's string branch runs these lines instead of calling it."""
        others = (node.key_value, node.parser, node.mapping, node.mapping_regex)
        if not node.needs_string or any(stage is not None for stage in others):
            return None
        if iterated != (node.iterator is not None) or (not iterated and node.type not in _TEXT_TYPES):
            return None
        if node.regex is not None and node.regex.groupindex:
            return None  # [REGEX-5] an object of the named groups
        lines = self.substitutions(node, "v", "c")
        text = "v" if lines else "c"
        if node.regex is None:
            return [*lines, f"v = {text}"]
        plan = plans.plan(node.regex)
        if plan is not None and plan.search is not None:  # group 1's text, or NO_MATCH
            return [*lines, f"v = {self.constant('L', plan.search)}({text})"]
        if iterated:
            return None  # a group that took no part would reach the iterator
        lines += [f"m = {self.constant('X', node.regex.search)}({text})", "v = NO_MATCH if m is None else m.group(1)"]
        if node.type == "string":
            lines += _guard("v is None", f"mismatch({self.constant('N', node)}, 'a string node needs a string', v)")
        return lines

    def matches(self, iterator: re.Pattern[str], text: str) -> str:
        """[ITER-2] The expression of the list of the match values of ``iterator`` on the string ``text``."""
        plan = plans.plan(iterator)
        if plan is not None and plan.finditer is not None:
            return f"{self.constant('L', plan.finditer)}({text})"
        value = "match_value(m)" if iterator.groupindex else "m.group(1)"
        return f"[{value} for m in {self.constant('I', iterator.finditer)}({text})]"

    def substitutions(self, node: Node, into: str, source: str) -> list[str]:
        """[SUBS-2] The lines that apply the node's substitutions in order to ``source``, the text left in ``into``."""
        lines = []
        for pattern, replacement in node.substitutions:
            planned = plans.substitution(pattern, replacement)
            if planned is not None:
                lines.append(f"{into} = {self.constant('L', planned)}({source})")
            else:
                sub, template = self.constant("S", pattern.sub), self.constant("R", replacement)
                lines.append(f"{into} = {sub}({template}, {source})")
            source = into
        return lines

    def typed(self, node: Node, this: str, text: bool) -> list[str]:
        if node.type == "object":
            return self.object(node, this)
        if node.type == "array":
            return self.array(node, this)
        if node.type == "string":  # [STR-1]
            if text:
                return ["return c"]
            string_check = _guard("not isinstance(c, str)", f"mismatch({this}, 'a string node needs a string', c)")
            return [*string_check, "return c"]
        if node.type in _LEAVES:
            return [f"return {_LEAVES[node.type]}({this}, c)"]
        return ["return c"]  # [ANY-1]

    def object(self, node: Node, this: str) -> list[str]:
        lines = ["out = {}", "if isinstance(c, str):"]  # [OBJ-2]
        if not node.has_properties:  # [OBJ-3]
            lines.append(f"    raise mismatch({this}, 'an object node without properties cannot take a string', c)")
        # a child with a const gives it whatever its content is ([CONST-1]): its value is written in place of a call
        children = [
            (self.constant("K", name), child, self.const(child) if child.has_const else self.node(child))
            for name, child in node.properties
        ]
        for key, child, function in children:
            if child.has_const:  # [CONST-2] a const of null is no value: the key is left out
                lines += [] if child.const is None else [f"    out[{key}] = {function}"]
                continue
            inlined = self.inlined(child, key)
            if inlined is not None:  # the child's steps on the string, in place of a call
                lines += ["    " + line for line in inlined]
                continue
            lines += [f"    v = {function}(c)", "    if v is not None:", f"        out[{key}] = v"]
        lines += ["    pass", "elif isinstance(c, dict):"]  # [OBJ-4]
        for key, child, function in children:
            if child.has_const:
                lines.append(f"    out[{key}] = {function}")
                continue
            lines += [f"    if {key} in c:", f"        out[{key}] = {function}(c[{key}])"]
            if child.has_default:  # [OBJ-5]
                lines += ["    else:", f"        out[{key}] = fresh({self.constant('D', child.default)})"]
        if node.additional is not False:  # [OBJ-6]
            names = self.constant("A", node.property_names)
            value = "v" if node.additional is True else f"{self.node(node.additional)}(v)"
            lines += ["    for k, v in c.items():", f"        if k not in {names}:", f"            out[k] = {value}"]
        lines += ["    pass", "else:", f"    raise mismatch({this}, 'an object node needs a string or an object', c)"]
        if node.required:  # [OBJ-7]
            required = self.constant("Q", node.required)
            present = " and ".join(f"{self.constant('K', name)} in out" for name in node.required)
            lines += [
                f"if not ({present}):",
                f"    missing = [name for name in {required} if name not in out]",
                f"    raise ParseError('missing-required', {this}.path, "
                "f'required keys missing from the result: {missing}')",
            ]
        return [*lines, "return out"]

    def array(self, node: Node, this: str) -> list[str]:
        lines = ["if not c:", "    return []"]  # [ARR-1]
        if node.items is not None:  # [ARR-2]
            item = self.node(node.items)
            error = f"mismatch({this}, 'an array node with items needs an array', c)"
            lines += _guard("not isinstance(c, list)", error)
            return [*lines, f"return [{item}(v) for v in c]"]
        assert node.prefix_items is not None
        items = [self.node(child) for child in node.prefix_items]
        count = len(items)
        if count == 1:  # [ARR-3]
            lines += ["if not isinstance(c, list):", "    c = [c]"]
        else:
            error = f"mismatch({this}, 'an array node with several prefixItems needs an array', c)"
            lines += _guard("not isinstance(c, list)", error)
        message = f"f'{{len(c)}} items for {count} prefixItems'"
        lines += _guard(f"len(c) != {count}", f"ParseError('length-mismatch', {this}.path, {message})")  # [ARR-4]
        return [*lines, "return [" + ", ".join(f"{item}(c[{index}])" for index, item in enumerate(items)) + "]"]


def _guard(condition: str, error: str) -> list[str]:
    return [f"if {condition}:", f"    raise {error}"]
