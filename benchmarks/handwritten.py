"""Hand-written parsers, the way a server writes one per model: plain re and json, no schema. They are the floor
the reference is measured against, and must give the reference's output on the corpus inputs."""

from __future__ import annotations

import json
import re
from typing import Any

_THINK = re.compile(r"^(?:<think>)?\s*(.*?)\s*</think>", re.DOTALL)
_AFTER_THINK = re.compile(r"^(?:.*</think>)?\s*(.*?)\s*(?:<tool_call>|<\|im_end\|>|$)", re.DOTALL)
_NO_THINK = re.compile(r"^\s*(.*?)\s*(?:<tool_call>|<\|im_end\|>|$)", re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def _hermes_calls(text: str) -> list[dict[str, Any]] | None:
    calls = []
    for match in _TOOL_CALL.finditer(text):
        value = json.loads(match.group(1))
        calls.append({"type": "function", "function": {"name": value.get("name"), "arguments": value.get("arguments")}})
    return calls or None


def smollm3(text: str) -> dict[str, Any]:
    """SmolLM3 and Qwen3: optional thinking, content, Hermes-style tool calls."""
    message: dict[str, Any] = {"role": "assistant"}
    thinking = _THINK.search(text)
    if thinking:
        message["thinking"] = thinking.group(1)
    message["content"] = _AFTER_THINK.search(text).group(1)  # type: ignore[union-attr]
    calls = _hermes_calls(text)
    if calls:
        message["tool_calls"] = calls
    return message


def hermes(text: str) -> dict[str, Any]:
    """Hermes 2 Pro and Qwen2.5: content and tool calls, no thinking."""
    message: dict[str, Any] = {"role": "assistant", "content": _NO_THINK.search(text).group(1)}  # type: ignore[union-attr]
    calls = _hermes_calls(text)
    if calls:
        message["tool_calls"] = calls
    return message


_FUNCTION = re.compile(r"<tool_call>\s*<function=(.*?)</function>\s*</tool_call>", re.DOTALL)
_FUNCTION_NAME = re.compile(r"^([^>\n]+)>")
_PARAMETER = re.compile(r"<parameter=(?P<key>[^>\n]+)>\n?(?P<value>.*?)\n?</parameter>", re.DOTALL)


def _json_or_text(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


def qwen3_coder(text: str) -> dict[str, Any]:
    """Qwen3-Coder XML tool calls."""
    message: dict[str, Any] = {"role": "assistant", "content": _NO_THINK.search(text).group(1)}  # type: ignore[union-attr]
    calls = []
    for match in _FUNCTION.finditer(text):
        body = match.group(1)
        function: dict[str, Any] = {}
        name = _FUNCTION_NAME.search(body)
        if name:
            function["name"] = name.group(1)
        arguments = {m.group("key"): _json_or_text(m.group("value")) for m in _PARAMETER.finditer(body)}
        if arguments:
            function["arguments"] = arguments
        calls.append({"type": "function", "function": function})
    if calls:
        message["tool_calls"] = calls
    return message


_ANALYSIS = re.compile(r"<\|channel\|>analysis<\|message\|>(.*?)<\|end\|>", re.DOTALL)
_FINAL = re.compile(r"<\|channel\|>final<\|message\|>(.*?)(?:<\|return\|>|<\|end\|>|$)", re.DOTALL)
_COMMENTARY = re.compile(
    r"((?:to=functions\.[\w.]+ ?<\|channel\|>commentary|<\|channel\|>commentary to=functions\.[\w.]+)"
    r"[^<]*(?:<\|constrain\|>\w+)?<\|message\|>.*?)(?:<\|call\|>|$)",
    re.DOTALL,
)
_RECIPIENT = re.compile(r"to=functions\.([\w.]+)")
_BODY = re.compile(r"<\|message\|>(.*)", re.DOTALL)


def gpt_oss(text: str) -> dict[str, Any]:
    """gpt-oss harmony channels."""
    message: dict[str, Any] = {"role": "assistant"}
    analysis = _ANALYSIS.search(text)
    if analysis:
        message["thinking"] = analysis.group(1)
    final = _FINAL.search(text)
    if final:
        message["content"] = final.group(1)
    calls = []
    for match in _COMMENTARY.finditer(text):
        call = match.group(1)
        function: dict[str, Any] = {}
        name = _RECIPIENT.search(call)
        if name:
            function["name"] = name.group(1)
        body = _BODY.search(call)
        if body:
            function["arguments"] = json.loads(body.group(1))
        calls.append({"type": "function", "function": function})
    if calls:
        message["tool_calls"] = calls
    return message


PARSERS = {
    "fmt.smollm3": smollm3,
    "fmt.qwen3": smollm3,
    "fmt.hermes": hermes,
    "fmt.qwen3-coder": qwen3_coder,
    "fmt.gpt-oss": gpt_oss,
}
