"""Hand-written parsers, the way a server writes one per model: str.find, a few re patterns and json, no schema.
They are the floor the reference is measured against: on an input where one gives another output than the
reference (a variant it does not know, an error), it is not timed, only counted (run.py, section 2)."""

from __future__ import annotations

import json
import re
from typing import Any

_IM_END = "<|im_end|>"


def _thinking(text: str, message: dict[str, Any], stops: tuple[str, ...]) -> int:
    """Reads a leading ``<think>`` block into ``message["thinking"]``; where the rest of the output starts. A block
    cut off before ``</think>`` runs to the first of ``stops``, or to the end."""
    start = len(text) - len(text.lstrip())
    if not text.startswith("<think>", start):
        return 0
    inner = start + 7
    close = text.find("</think>", inner)
    if close >= 0:
        message["thinking"] = text[inner:close].strip()
        return close + 8
    found = [at for at in (text.find(stop, inner) for stop in stops) if at >= 0]
    end = min(found) if found else len(text)
    message["thinking"] = text[inner:end].strip()
    return end


def _blocks(text: str, at: int, opener: str, closer: str) -> tuple[str, list[str]]:
    """The content outside the ``opener`` … ``closer`` blocks from ``at`` to the end of the turn, and each block's
    inside (a block cut off runs to the end of the turn)."""
    end = text.find(_IM_END, at)
    if end < 0:
        end = len(text)
    pieces, blocks = [], []
    while True:
        opened = text.find(opener, at, end)
        if opened < 0:
            pieces.append(text[at:end])
            return "".join(pieces).strip(), blocks
        pieces.append(text[at:opened])
        closed = text.find(closer, opened, end)
        blocks.append(text[opened + len(opener) : end if closed < 0 else closed])
        if closed < 0:
            return "".join(pieces).strip(), blocks
        at = closed + len(closer)


def _chatml(text: str, thinks: bool) -> dict[str, Any]:
    """Hermes-style: optional thinking, content, ``<tool_call>`` JSON objects with a name and arguments."""
    message: dict[str, Any] = {"role": "assistant"}
    at = _thinking(text, message, ("<tool_call>", _IM_END)) if thinks else 0
    message["content"], blocks = _blocks(text, at, "<tool_call>", "</tool_call>")
    calls = []
    for block in blocks:
        value = json.loads(block)
        name = value.get("name")
        if isinstance(name, str) and name:
            arguments = value.get("arguments")
            calls.append(
                {"type": "function", "function": {"name": name, "arguments": {} if arguments is None else arguments}}
            )
    if calls:
        message["tool_calls"] = calls
    return message


def qwen3(text: str) -> dict[str, Any]:
    """Qwen3 and SmolLM3: optional thinking, content, Hermes-style tool calls."""
    return _chatml(text, thinks=True)


def hermes(text: str) -> dict[str, Any]:
    """Hermes 2 Pro and Qwen2.5: content and tool calls, no thinking."""
    return _chatml(text, thinks=False)


_FUNCTION_NAME = re.compile(r"([^\s>][^>\n]*?)\s*(?:>|\n|$)")
_PARAMETER = re.compile(r"<parameter=([^>\n]+)>\n?(.*?)\n?(?:</parameter>|(?=<parameter=|</function>))", re.DOTALL)


def _json_or_text(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


def qwen3_coder(text: str) -> dict[str, Any]:
    """Qwen3-Coder: content, and XML tool calls whose parameters are JSON or text."""
    message: dict[str, Any] = {"role": "assistant"}
    message["content"], blocks = _blocks(text, 0, "<tool_call>", "</tool_call>")
    calls = []
    for block in blocks:
        body = block.lstrip()
        if not body.startswith("<function="):
            continue
        body = body[10:]
        close = body.find("</function>")
        if close < 0:
            continue
        body = body[: close + 11]
        function: dict[str, Any] = {}
        name = _FUNCTION_NAME.match(body)
        if name:
            function["name"] = name.group(1)
        arguments = {key: _json_or_text(value) for key, value in _PARAMETER.findall(body)}
        if arguments:  # a call without parameters has no arguments
            function["arguments"] = arguments
        calls.append({"type": "function", "function": function})
    if calls:
        message["tool_calls"] = calls
    return message


_ENDS = ("<|end|>", "<|call|>", "<|return|>")
_RECIPIENT = re.compile(r"to=functions\.([\w.\-]+)")


def gpt_oss(text: str) -> dict[str, Any]:
    """gpt-oss harmony: messages, each a header (``<|start|>assistant``, ``<|channel|>NAME``, a recipient
    ``to=functions.NAME``) then ``<|message|>`` and a body to ``<|end|>``, ``<|call|>`` or ``<|return|>``. The first
    analysis message is thinking; final and commentary messages, and text between messages, are content, joined by
    blank lines; a message to a function is a call with JSON arguments."""
    message: dict[str, Any] = {"role": "assistant"}
    pieces: list[str] = []
    calls = []
    at, size = 0, len(text)
    while at < size:
        heads = [found for found in (text.find("<|start|>", at), text.find("<|channel|>", at)) if found >= 0]
        if not heads:
            pieces.append(text[at:])
            break
        head = min(heads)
        pieces.append(text[at:head])
        opened = text.find("<|message|>", head)
        if opened < 0:
            break
        header, start = text[head:opened], opened + 11
        ends = [(found, end) for found, end in ((text.find(end, start), end) for end in _ENDS) if found >= 0]
        stop, end = min(ends) if ends else (size, "")
        body = text[start:stop]
        recipient = _RECIPIENT.search(header)
        if recipient:
            calls.append({"type": "function", "function": {"name": recipient.group(1), "arguments": json.loads(body)}})
        elif "to=" in header:
            pass  # a message to another recipient is dropped
        elif "<|channel|>analysis" in header:
            message.setdefault("thinking", body)
        else:
            pieces.append(body + "\n\n" if end == "<|end|>" else body)
        if end == "<|return|>":
            break
        at = stop + len(end)  # without an end, stop is the size and end is empty
    message["content"] = "".join(pieces).strip()
    if calls:
        message["tool_calls"] = calls
    return message


PARSERS = {
    "fmt.smollm3": qwen3,
    "fmt.qwen3": qwen3,
    "fmt.hermes": hermes,
    "fmt.qwen3-coder": qwen3_coder,
    "fmt.gpt-oss": gpt_oss,
}
