"""Parser.trace: the walk as data. A ``Tracer`` is a walk that records what each node received, what each of its
stages produced (with the spans of matches in the input, while the content is still a slice of it) and what
the node produced or which error it raised."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .errors import ParseError
from .schema import Node
from .walk import Walk


def trace(root: Node, text: str) -> dict[str, Any]:
    """``{"value": ...}`` or ``{"error": {...}}``, and ``"root"``, the record of the root node (Parser.trace)."""
    tracer = Tracer()
    result: dict[str, Any] = {}
    try:
        result["value"] = tracer.node(root, text)
    except ParseError as exc:
        result["error"] = {"phase": exc.phase, "category": exc.category, "path": exc.path, "message": exc.message}
    result["root"] = tracer.top.record["children"][0]
    return result


@dataclass
class _Frame:
    """A node being walked: its record, its current content, and where that starts in the input (None when the
    content is not a slice of the input)."""

    node: Node | None
    record: dict[str, Any]
    content: Any
    offset: int | None


class Tracer(Walk):
    """A walk that records itself: one record per node walked, children inside their parent's record."""

    def __init__(self) -> None:
        super().__init__()
        self.top = _Frame(None, {}, None, 0)  # the root's parent: the input itself
        self.frames = [self.top]

    def node(self, node: Node, content: Any) -> Any:
        parent = self.frames[-1]
        slice_of_input = isinstance(content, str) and (parent.node is None or parent.node.type != "array")
        frame = _Frame(node, {"path": node.path, "content": preview_value(content)}, content, None)
        if slice_of_input and parent.offset is not None:  # a string child of a string node: the same text
            frame.offset = parent.offset
            frame.record["span"] = [frame.offset, frame.offset + len(content)]
        parent.record.setdefault("children", []).append(frame.record)
        if node.has_stages and not node.has_const and content is not None:
            frame.record["stages"] = []
        self.frames.append(frame)
        try:
            value = super().node(node, content)
        except ParseError as exc:
            frame.record["error"] = {"category": exc.category, "path": exc.path, "message": exc.message}
            raise
        finally:
            self.frames.pop()
        frame.record["value"] = value
        return value

    def saw(self, stage: str, result: Any) -> None:
        frame = self.frames[-1]
        stages = frame.record["stages"]
        if stage == "x-regex":
            stages.append({"stage": stage, "match": match_record(result, frame.offset)})
            frame.offset = _group_offset(result, frame.offset)
            frame.content = None if result is None else self.match_value(result)
        elif stage in ("x-regex-iterator", "x-regex-key-value"):
            stages.append({"stage": stage, "matches": [match_record(match, frame.offset) for match in result]})
            frame.offset = frame.content = None
        else:
            stages.append({"stage": stage, "output": preview_value(result)})
            if not (isinstance(result, str) and result == frame.content):  # a new text is not a slice of the input
                frame.offset = None
            frame.content = result


def _group_offset(match: re.Match[str] | None, offset: int | None) -> int | None:
    """Where the x-regex stage's value starts in the input: its group's start, when the value is that text."""
    if match is None or offset is None or match.re.groupindex or match.start(1) < 0:
        return None
    return offset + match.start(1)


def preview_value(value: Any, limit: int = 200) -> Any:
    """A value for a trace: strings cut to ``limit`` characters, containers as compact JSON text when long."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + "…"
    if isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False)
        return value if len(text) <= limit else text[:limit] + "…"
    return value


def match_record(match: re.Match[str] | None, offset: int | None) -> dict[str, Any] | None:
    """A regex match for a trace: its span and each group's span and text (spans in the input when known)."""
    if match is None:
        return None
    shift = offset or 0
    where = (lambda start, end: [start + shift, end + shift]) if offset is not None else (lambda start, end: None)
    groups = {
        str(name): {"text": preview_value(match.group(name)), "span": where(*match.span(name))}
        for name in [*range(1, match.re.groups + 1)]
        if match.group(name) is not None
    }
    names = {index: name for name, index in match.re.groupindex.items()}
    return {
        "text": preview_value(match.group(0)),
        "span": where(*match.span()),
        "groups": {names.get(int(key), key): group for key, group in groups.items()},
    }
