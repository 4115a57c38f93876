"""The OpenAI view of a stream (SPEC.md [STREAM-8]): what a server puts in ``choices[0].delta`` of its
chat-completion chunks, from a message in the library's shape (``content``, ``thinking``, ``tool_calls``).

    chat = OpenAIStream(parser.stream(prefix="<think>\\n"))
    for text in model_output_chunks:
        for delta in chat.feed(text):
            send({"choices": [{"index": 0, "delta": delta}]})
    for delta in chat.finish():      # raises the one-shot ParseError when the output does not parse
        send({"choices": [{"index": 0, "delta": delta}]})
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .stream import Delta, Stream, apply
from .stream.partial import Growing

TEXT_FIELDS = {"/thinking": "reasoning_content", "/content": "content"}  # pointer in the message: field of a delta


class OpenAIStream:
    """A Stream seen as chat-completion-chunk deltas: ``content``, ``reasoning_content`` (from ``thinking``) and
    ``tool_calls`` entries (``index``, ``id``, ``type``, the whole ``function.name`` first, then
    ``function.arguments`` as fragments of its JSON text). ``make_id(index)`` names a call the message gives no
    ``id`` to."""

    def __init__(self, stream: Stream, make_id: Callable[[int], str] = lambda index: f"call_{index}") -> None:
        self.stream = stream
        self.make_id = make_id
        self._message: Any = None  # the partial value, assembled from the stream's deltas
        self._ended: set[str] = set()  # paths the stream said will not change ([STREAM-7] "end")
        self._texts: dict[str, Growing] = {}  # JSON texts the stream sent for values not yet complete ("json")
        self._calls: list[int] = []  # per call whose header was sent: how much of its arguments text was sent
        self._role_sent = False

    def feed(self, text: str) -> list[dict[str, Any]]:
        return self._view(self.stream.feed(text), finished=False)

    def finish(self) -> list[dict[str, Any]]:
        return self._view(self.stream.finish(), finished=True)

    def _view(self, deltas: list[Delta], finished: bool) -> list[dict[str, Any]]:
        new: dict[str, list[str]] = {"reasoning_content": [], "content": []}
        for delta in deltas:
            if delta["op"] == "end":
                self._ended.add(delta["path"])
            elif delta["op"] == "json":
                self._texts.setdefault(delta["path"], Growing()).add(delta["text"])
            rest = _texts_taken(delta, new)
            if rest is not None:
                self._message = apply(self._message, rest)
        out: list[dict[str, Any]] = [{field: "".join(pieces)} for field, pieces in new.items() if any(pieces)]
        message = self._message if isinstance(self._message, dict) else {}
        calls = message.get("tool_calls")
        for index, call in enumerate(calls if isinstance(calls, list) else []):
            out += self._call(index, call, finished)
        if out and not self._role_sent:
            out[0] = {"role": "assistant"} | out[0]
            self._role_sent = True
        return out

    def _is_ended(self, path: str) -> bool:
        """Whether the stream ended the value at ``path`` or one that holds it ([STREAM-7] "end")."""
        return any(path == ended or path.startswith(ended + "/") for ended in self._ended)

    def _call(self, index: int, call: Any, finished: bool) -> list[dict[str, Any]]:
        """The deltas of call ``index``: its header once its name is whole, then what is new of its arguments."""
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            return []
        where = f"/tool_calls/{index}/function"
        out = []
        if index == len(self._calls):  # header not sent yet: calls are sent in order
            name = function.get("name")
            if not isinstance(name, str) or not (finished or self._is_ended(f"{where}/name")):
                return []
            if "id" in call and not (finished or self._is_ended(f"/tool_calls/{index}/id")):
                return []  # the call's own id is still arriving: it goes whole into the header
            ident = call.get("id") if isinstance(call.get("id"), str) else self.make_id(index)
            header = {"index": index, "id": ident, "type": "function", "function": {"name": name, "arguments": ""}}
            out.append({"tool_calls": [header]})
            self._calls.append(0)
        if index >= len(self._calls):
            return out
        streamed, sent = self._texts.get(f"{where}/arguments"), self._calls[index]
        if streamed is not None and streamed.length > 0:
            length = streamed.length
            more = streamed.since(sent) if length > sent else ""
        elif finished or self._is_ended(f"{where}/arguments"):
            text = json.dumps(function.get("arguments") or {}, ensure_ascii=False)
            length, more = len(text), text[sent:]
        else:
            return out
        if length > sent:
            out.append({"tool_calls": [{"index": index, "function": {"arguments": more}}]})
            self._calls[index] = length
        return out


def _texts_taken(delta: Delta, new: dict[str, list[str]]) -> Delta | None:
    """What a delta adds to ``thinking`` or ``content``, collected in ``new``, and the delta without it (None when
    nothing is left). Those strings are sent as they come, never assembled (that would copy them on every feed)."""
    field = TEXT_FIELDS.get(delta["path"])
    if field is not None and (delta["op"] == "append" or (delta["op"] == "add" and isinstance(delta["value"], str))):
        new[field].append(delta["text"] if delta["op"] == "append" else delta["value"])
        return None
    if delta["path"] == "" and delta["op"] == "add" and isinstance(delta["value"], dict):
        value = dict(delta["value"])
        for pointer, field in TEXT_FIELDS.items():
            if isinstance(value.get(pointer[1:]), str):
                new[field].append(value.pop(pointer[1:]))
        return {"op": "add", "path": "", "value": value}
    return delta
