"""Walking a compiled schema over a model's output: the processing steps of SPEC.md sections 4 to 8."""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable
from typing import Any, overload

import jmespath.exceptions

from .errors import ParseError
from .schema import Node, is_json_value
from .textparsers import NotJSON, TooDeep, gemma4_to_json, parse_json


class Parser:
    """A compiled response schema. Immutable, so reusable and safe to share between threads."""

    __slots__ = ("root",)

    def __init__(self, root: Node) -> None:
        self.root = root

    def parse(self, text: str) -> Any:
        """The message that ``text`` parses to ([GEN-1]); ``None`` when the root yields no value ([GEN-3])."""
        if not isinstance(text, str):  # native data only
            raise ParseError("type-mismatch", "", f"the input must be a string, not {type(text).__name__}")
        return walk(self.root, text)

    def trace(self, text: str) -> dict[str, Any]:  # tracing only
        """What ``parse`` does, node by node, as data: ``{"value": ...}`` or ``{"error": {...}}``, and ``"root"``,
        the record of the root node. A record has the node's ``path``, a preview of its ``content`` (with its
        ``span`` in ``text`` when it is a slice of it), its ``stages`` (each regex match with its span and groups'
        spans, the parser's and the transform's outputs), its ``children``, and its ``value`` or ``error``."""
        root: dict[str, Any] = {}
        result: dict[str, Any] = {}
        try:
            result["value"] = walk(self.root, text, root, 0)
        except ParseError as exc:
            result["error"] = {"phase": exc.phase, "category": exc.category, "path": exc.path, "message": exc.message}
        result["root"] = root["children"][0]
        return result

    def __repr__(self) -> str:  # native data only: the API's repr
        root = self.root
        keys = ", ".join(name for name, _ in root.properties)
        return f"<response_schema.Parser type={root.type or 'any'}{f' properties=[{keys}]' if keys else ''}>"


def walk(node: Node, content: Any, trace: dict[str, Any] | None = None, offset: int | None = None) -> Any:
    """One node's processing steps, in the order of [NODE-1]. ``trace``, when given, is the parent's record, and
    ``offset`` where ``content`` starts in the input when it is a slice of it (Parser.trace)."""
    if trace is not None:  # tracing only
        return _traced(node, content, trace, offset)
    if node.has_const:  # [CONST-1]
        return _fresh(node.const)
    if content is None:  # [NODE-2]
        return None
    if node.has_stages:
        content = _stages(node, content)
        if content is NO_VALUE:
            return None
    return _TYPES[node.type](node, content)


def _traced(node: Node, content: Any, parent: dict[str, Any], offset: int | None) -> Any:  # tracing only
    """walk, recording what happens in a record appended to the parent's children."""
    record: dict[str, Any] = {"path": node.path, "content": _preview_value(content)}
    if isinstance(content, str) and offset is not None:
        record["span"] = [offset, offset + len(content)]
    parent.setdefault("children", []).append(record)
    try:
        if node.has_const or content is None:  # [CONST-1], [NODE-2]
            value = _fresh(node.const) if node.has_const else None
        else:
            if node.has_stages:
                record["stages"] = []
                content, offset = _stages(node, content, record, offset)
            value = None if content is NO_VALUE else _TYPES[node.type](node, content, record, offset)
    except ParseError as exc:
        record["error"] = {"category": exc.category, "path": exc.path, "message": exc.message}
        raise
    record["value"] = value
    return value


NO_VALUE = object()  # a regex stage found nothing: the node produces no value at once


@overload
def _stages(node: Node, content: Any) -> Any: ...
@overload
def _stages(node: Node, content: Any, record: dict[str, Any], offset: int | None) -> tuple[Any, int | None]: ...
def _stages(node: Node, content: Any, record: dict[str, Any] | None = None, offset: int | None = None) -> Any:
    """Steps 3 to 8 of [NODE-1]: the string check, the regex keywords, the parser and the legacy mappings.
    With a ``record`` (Parser.trace), each stage's result is recorded, and the content's new offset returned."""
    if node.needs_string and not isinstance(content, str):  # [NODE-3]
        raise _mismatch(node, "a regex keyword needs string input", content)
    if node.substitutions:
        for pattern, replacement in node.substitutions:  # [SUBS-2]
            content = pattern.sub(replacement, content)
        if record is not None:  # tracing only
            record["stages"].append({"stage": "x-regex-substitutions", "output": _preview_value(content)})
            offset = None  # the text is no longer a slice of the input
    if node.regex is not None:  # [REGEX-2]
        match = node.regex.search(content)
        if record is not None:  # tracing only
            record["stages"].append({"stage": "x-regex", "match": _match_record(match, offset)})
        if match is None:  # [REGEX-4]
            return NO_VALUE if record is None else (NO_VALUE, None)
        content = _match_value(match)
        if offset is not None and not match.re.groupindex and match.start(1) >= 0:  # tracing only
            offset += match.start(1)
    if node.iterator is not None:  # [ITER-2]
        _need_string(node, content, "x-regex-iterator")
        matches = list(node.iterator.finditer(content))
        if record is not None:  # tracing only
            record["stages"].append(
                {"stage": "x-regex-iterator", "matches": [_match_record(m, offset) for m in matches]}
            )
        content = [_match_value(match) for match in matches]
        if not content:  # [ITER-4]
            return NO_VALUE if record is None else (NO_VALUE, None)
    if node.key_value is not None:  # [KV-3]
        _need_string(node, content, "x-regex-key-value")
        if record is not None:  # tracing only
            pairs = [_match_record(m, offset) for m in node.key_value.finditer(content)]
            record["stages"].append({"stage": "x-regex-key-value", "matches": pairs})
        content = _key_values(node, content)
        if not content:  # [KV-5]
            return NO_VALUE if record is None else (NO_VALUE, None)
    if node.parser is not None:  # [PARSER-2]
        content = _run_parser(node, content, record)
    if node.mapping is not None or node.mapping_regex is not None:
        content = _apply_mappings(node, content)
        if record is not None:  # tracing only
            record["stages"].append({"stage": "x-mapping", "output": _preview_value(content)})
    if record is None:
        return content
    return content, offset if isinstance(content, str) else None  # tracing only


def _match_value(match: re.Match[str]) -> Any:
    """[REGEX-5] Named groups give an object of the groups that took part; otherwise the one group's text,
    or None when it took no part ([REGEX-6])."""
    if match.re.groupindex:
        return {name: value for name, value in match.groupdict().items() if value is not None}
    return match.group(1)


def _key_values(node: Node, content: str) -> dict[str, str]:
    assert node.key_value is not None
    pairs: dict[str, str] = {}
    for match in node.key_value.finditer(content):
        key, value = match.group("key"), match.group("value")
        if key is None or value is None:  # [KV-4]
            raise ParseError(
                "unmatched-group",
                node.path,
                f"a match of x-regex-key-value left "
                f"{'key' if key is None else 'value'} unmatched: {_preview(match.group(0))}",
            )
        pairs[key] = value  # [KV-3] the last duplicate wins
    return pairs


def _run_parser(node: Node, content: Any, record: dict[str, Any] | None = None) -> Any:
    _need_string(node, content, f"x-parser {node.parser}")
    text = gemma4_to_json(content) if node.parser == "gemma4-tool-call" else content  # [GEMMA-1]
    try:
        value = parse_json(text)  # [JSON-1]
    except TooDeep as exc:  # [LIMIT-2]
        raise ParseError("json-too-deep", node.path, str(exc)) from None
    except NotJSON as exc:
        if not node.allow_non_json:  # [ARGS-4]
            raise ParseError("invalid-json", node.path, f"not JSON ({exc}): {_preview(content)}") from None
        value = content
    if record is not None:  # tracing only
        record["stages"].append({"stage": f"x-parser {node.parser}", "output": _preview_value(value)})
    if node.transform is not None:  # [ARGS-3]
        try:
            value = node.transform.search(value)
        except (jmespath.exceptions.JMESPathError, TypeError, ValueError, RecursionError) as exc:
            raise ParseError("transform-failed", node.path, f"transform failed: {exc}") from None
        if not is_json_value(value):  # [ARGS-5] to_number("inf") and the like
            raise ParseError("transform-failed", node.path, f"the transform gave a value JSON cannot hold: {value!r}")
        if record is not None:  # tracing only
            record["stages"].append({"stage": "transform", "output": _preview_value(value)})
    return value


def _apply_mappings(node: Node, content: Any) -> Any:
    """The legacy x-mapping ([MAP-2]) then x-mapping-regex ([MAP-3]), after the parser. Each needs a string,
    even an x-mapping-regex with no pair."""
    if node.mapping is not None:
        _need_string(node, content, "x-mapping")
        content = _fresh(node.mapping.get(content, content))
    if node.mapping_regex is not None:
        _need_string(node, content, "x-mapping-regex")
        for pattern, replacement in node.mapping_regex:
            content = pattern.sub(replacement, content)
    return content


def _object(node: Node, content: Any, trace: dict[str, Any] | None = None, offset: int | None = None) -> dict[str, Any]:
    output: dict[str, Any] = {}
    if isinstance(content, str):  # [OBJ-2]
        if not node.has_properties:  # [OBJ-3]
            raise _mismatch(node, "an object node without properties cannot take a string", content)
        for name, child in node.properties:
            value = walk(child, content, trace, offset)
            if value is not None:  # [OBJ-2] no value or null: the key is left out
                output[name] = value
    elif isinstance(content, dict):  # [OBJ-4]
        for name, child in node.properties:
            if child.has_const:
                output[name] = _fresh(child.const)
            elif name in content:
                output[name] = walk(child, content[name], trace)
            elif child.has_default:  # [OBJ-5]
                output[name] = _fresh(child.default)
        if node.additional is not False:  # [OBJ-6]
            for name, value in content.items():
                if name not in node.property_names:
                    output[name] = value if node.additional is True else walk(node.additional, value, trace)
    else:
        raise _mismatch(node, "an object node needs a string or an object", content)
    if node.required:  # [OBJ-7]
        missing = [name for name in node.required if name not in output]
        if missing:
            raise ParseError("missing-required", node.path, f"required keys missing from the result: {missing}")
    return output


def _array(node: Node, content: Any, trace: dict[str, Any] | None = None, offset: int | None = None) -> list[Any]:
    if not content:  # [ARR-1]
        return []
    if node.items is not None:  # [ARR-2]
        if not isinstance(content, list):
            raise _mismatch(node, "an array node with items needs an array", content)
        return [walk(node.items, item, trace) for item in content]
    assert node.prefix_items is not None
    if not isinstance(content, list):  # [ARR-3]
        if len(node.prefix_items) != 1:
            raise _mismatch(node, "an array node with several prefixItems needs an array", content)
        content = [content]
    if len(content) != len(node.prefix_items):  # [ARR-4]
        raise ParseError("length-mismatch", node.path, f"{len(content)} items for {len(node.prefix_items)} prefixItems")
    return [walk(child, item, trace) for child, item in zip(node.prefix_items, content, strict=True)]


def _string(node: Node, content: Any, trace: Any = None, offset: Any = None) -> str:
    if not isinstance(content, str):  # [STR-1]
        raise _mismatch(node, "a string node needs a string", content)
    return content


def _integer(node: Node, content: Any, trace: Any = None, offset: Any = None) -> int:
    if isinstance(content, int):  # [INT-2] booleans included: a wart
        return content
    if not isinstance(content, str):  # [INT-3]
        raise _mismatch(node, "an integer node needs a string or an integer", content)
    try:
        return int(content)  # [INT-1]
    except ValueError:
        raise ParseError("invalid-value", node.path, f"not an integer: {_preview(content)}") from None


def _number(node: Node, content: Any, trace: Any = None, offset: Any = None) -> float:
    if isinstance(content, str):
        try:
            value = float(content)  # [NUM-1]
        except ValueError:
            raise ParseError("invalid-value", node.path, f"not a number: {_preview(content)}") from None
    elif isinstance(content, (int, float)):  # [NUM-2] booleans included: a wart
        try:
            value = float(content)
        except OverflowError:
            value = math.inf
    else:
        raise _mismatch(node, "a number node needs a string or a number", content)
    if not math.isfinite(value):  # [NUM-3]
        raise ParseError("invalid-value", node.path, f"not a finite number: {_preview(content)}")
    return value


def _boolean(node: Node, content: Any, trace: Any = None, offset: Any = None) -> bool:
    if isinstance(content, bool):  # [BOOL-2]
        return content
    if not isinstance(content, str):
        raise _mismatch(node, "a boolean node needs a string or a boolean", content)
    lowered = content.lower()  # [BOOL-1]
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise ParseError("invalid-value", node.path, f"not a boolean: {_preview(content)}")


def _any(node: Node, content: Any, trace: Any = None, offset: Any = None) -> Any:
    return content  # [ANY-1]


_TYPES: dict[str | None, Callable[..., Any]] = {
    "object": _object,
    "array": _array,
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "any": _any,
    None: _any,
}


def _fresh(value: Any) -> Any:
    """A copy of a schema value that the caller may change without changing the schema."""
    return copy.deepcopy(value) if isinstance(value, (dict, list)) else value


def _need_string(node: Node, content: Any, stage: str) -> None:
    if not isinstance(content, str):  # [NODE-4]
        raise _mismatch(node, f"{stage} needs string input", content)


def _mismatch(node: Node, what: str, content: Any) -> ParseError:
    return ParseError("type-mismatch", node.path, f"{what}, got {_describe(content)}")


def _describe(content: Any) -> str:
    if content is None:
        return "no value"
    return f"{type(content).__name__} {_preview(content)}"


def _preview_value(value: Any, limit: int = 200) -> Any:  # tracing only
    """A value for a trace: strings cut to ``limit`` characters, containers as compact JSON text when long."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + "…"
    if isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False)
        return value if len(text) <= limit else text[:limit] + "…"
    return value


def _match_record(match: re.Match[str] | None, offset: int | None) -> dict[str, Any] | None:  # tracing only
    """A regex match for a trace: its span and each group's span and text (spans in the input when known)."""
    if match is None:
        return None
    shift = offset or 0
    where = (lambda start, end: [start + shift, end + shift]) if offset is not None else (lambda start, end: None)
    groups = {
        str(name): {"text": _preview_value(match.group(name)), "span": where(*match.span(name))}
        for name in [*range(1, match.re.groups + 1)]
        if match.group(name) is not None
    }
    names = {index: name for name, index in match.re.groupindex.items()}
    return {
        "text": _preview_value(match.group(0)),
        "span": where(*match.span()),
        "groups": {names.get(int(key), key): group for key, group in groups.items()},
    }


def _preview(content: Any, limit: int = 80) -> str:
    text = repr(content)
    return text if len(text) <= limit else text[: limit - 3] + "..."
