"""How each family of the schema library writes an assistant turn: our own sample outputs, built from the
formats' markers (research facts, not copied text). The library tests generate outputs from these: every behaviour
category, cut off at every point, with stray markers and blank calls."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Args = "dict[str, Any] | str"  # a dict, or raw argument text (for malformed arguments)


def _json(args: Any) -> str:
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


@dataclass(frozen=True)
class Family:
    """One library schema's format. ``think`` wraps thinking (None: the format has none); ``call`` writes one
    call, ``calls`` wraps the list; ``answer`` wraps content; ``end`` ends the turn. ``markers`` are the format's
    special strings, which never belong in content or thinking; ``prefill`` is the opener a template prefills."""

    name: str
    call: Callable[[str, Any], str]
    markers: tuple[str, ...]
    calls: Callable[[list[str]], str] = "".join
    think: Callable[[str], str] | None = None
    prefill: str = ""
    answer: Callable[[str], str] = str
    end: str = ""
    blank_calls: tuple[str, ...] = ()
    thinking_may_mention: tuple[str, ...] = field(default=())

    def render(self, thinking: str | None = None, content: str = "", calls: tuple[tuple[str, Any], ...] = (),
               after: str = "", end: bool = True) -> str:  # fmt: skip
        parts = []
        if thinking is not None and self.think is not None:
            parts.append(self.think(thinking))
        if content:
            parts.append(self.answer(content))
        if calls:
            parts.append(self.calls([self.call(name, args) for name, args in calls]))
        if after:
            parts.append(after)
        return "".join(parts) + (self.end if end else "")


def _think(opener: str, closer: str) -> Callable[[str], str]:
    return lambda text: f"{opener}\n{text}\n{closer}\n\n"


CHATML_CALL = lambda name, args: f'<tool_call>\n{{"name": "{name}", "arguments": {_json(args)}}}\n</tool_call>\n'  # noqa: E731


def _xml_call(name: str, args: Any) -> str:
    if isinstance(args, str):
        return f"<tool_call>\n<function={name}>\n{args}\n</function>\n</tool_call>\n"
    body = "".join(f"<parameter={key}>\n{_json(value) if not isinstance(value, str) else value}\n</parameter>\n"
                   for key, value in args.items())  # fmt: skip
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>\n"


def _glm_call(name: str, args: Any) -> str:
    if isinstance(args, str):
        return f"<tool_call>{name}\n{args}\n</tool_call>"
    body = "".join(f"<arg_key>{key}</arg_key>\n<arg_value>{value if isinstance(value, str) else _json(value)}"
                   "</arg_value>\n" for key, value in args.items())  # fmt: skip
    return f"<tool_call>{name}\n{body}</tool_call>"


def _gemma_value(value: Any) -> str:
    if isinstance(value, str):
        return f'<|"|>{value}<|"|>'
    if isinstance(value, dict):
        return "{" + ",".join(f"{key}:{_gemma_value(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_gemma_value(item) for item in value) + "]"
    return json.dumps(value)


def _gemma_call(name: str, args: Any) -> str:
    return f"<|tool_call>call:{name}{args if isinstance(args, str) else _gemma_value(args)}<tool_call|>"


def _python_value(value: Any) -> str:
    """A value as Llama 4 writes it in a pythonic call: Python's literals, JSON's strings and containers."""
    if isinstance(value, bool) or value is None:
        return {True: "True", False: "False", None: "None"}[value]
    return json.dumps(value)


def _llama4_call(name: str, args: Any) -> str:
    if isinstance(args, str):
        return f"{name}({args})"
    return f"{name}(" + ", ".join(f"{key}={_python_value(value)}" for key, value in args.items()) + ")"


def _deepseek(words: str) -> str:
    """A DeepSeek special token: fullwidth bars around words joined by U+2581 (``tool calls begin``)."""
    return "<\uff5c" + "\u2581".join(words.split()) + "\uff5c>"


DS = {"CSB": _deepseek("tool calls begin"), "CSE": _deepseek("tool calls end"), "CB": _deepseek("tool call begin"),
      "CE": _deepseek("tool call end"), "SEP": _deepseek("tool sep"), "EOS": _deepseek("end of sentence")}  # fmt: skip
DS_MARKERS = tuple(DS.values())
KIMI = ("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>",
        "<|tool_call_argument_begin|>", "<|tool_call_end|>", "<|im_end|>")  # fmt: skip
HARMONY = ("<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|return|>", "<|call|>", "<|constrain|>")
COHERE = ("<|START_THINKING|>", "<|END_THINKING|>", "<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>",
          "<|END_TEXT|>", "<|START_ACTION|>", "<|END_ACTION|>", "<|END_OF_TURN_TOKEN|>")  # fmt: skip


def _array(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


FAMILIES = [
    Family(
        "hermes",
        CHATML_CALL,
        ("<tool_call>", "</tool_call>", "<|im_end|>"),
        end="<|im_end|>",
        calls=lambda cs: "\n" + "".join(cs),
        blank_calls=(
            "<tool_call>\n{}\n</tool_call>",
            "<tool_call></tool_call>",
            '<tool_call>{"name": "", "arguments": {}}</tool_call>',
        ),
    ),
    Family(
        "qwen3",
        CHATML_CALL,
        ("<think>", "</think>", "<tool_call>", "</tool_call>", "<|im_end|>"),
        think=_think("<think>", "</think>"),
        prefill="<think>\n",
        end="<|im_end|>",
        calls=lambda cs: "\n" + "".join(cs),
        blank_calls=(
            "<tool_call>\n{}\n</tool_call>",
            "<tool_call></tool_call>",
            '<tool_call>{"name": "", "arguments": {}}</tool_call>',
        ),
    ),
    Family(
        "smollm3",
        CHATML_CALL,
        ("<think>", "</think>", "<tool_call>", "</tool_call>", "<|im_end|>"),
        think=_think("<think>", "</think>"),
        end="<|im_end|>",
        calls=lambda cs: "\n" + "".join(cs),
        blank_calls=(
            "<tool_call>\n{}\n</tool_call>",
            "<tool_call></tool_call>",
            '<tool_call>{"name": "", "arguments": {}}</tool_call>',
        ),
    ),
    Family(
        "qwen3-coder",
        _xml_call,
        ("<tool_call>", "</tool_call>", "<function=", "</function>", "<parameter=", "</parameter>", "<|im_end|>"),
        end="<|im_end|>",
        calls=lambda cs: "\n" + "".join(cs),
        blank_calls=("<tool_call>\n<function=>\n</function>\n</tool_call>",),
    ),
    Family(
        "qwen3.5",
        _xml_call,
        (
            "<think>",
            "</think>",
            "<tool_call>",
            "</tool_call>",
            "<function=",
            "</function>",
            "<parameter=",
            "</parameter>",
            "<|im_end|>",
        ),
        think=_think("<think>", "</think>"),
        prefill="<think>\n",
        end="<|im_end|>",
        calls=lambda cs: "\n" + "".join(cs),
        blank_calls=("<tool_call>\n<function=>\n</function>\n</tool_call>",),
    ),
    Family(
        "glm",
        _glm_call,
        (
            "<think>",
            "</think>",
            "<tool_call>",
            "</tool_call>",
            "<arg_key>",
            "</arg_key>",
            "<arg_value>",
            "</arg_value>",
            "<|user|>",
            "<|observation|>",
        ),
        think=lambda t: f"<think>{t}</think>",
        prefill="<think>",
        end="<|user|>",
        blank_calls=("<tool_call>   </tool_call>", "<tool_call></tool_call>"),
    ),
    Family(
        "kimi-k2",
        lambda name, args: (
            f"<|tool_call_begin|>functions.{name}:0<|tool_call_argument_begin|>{_json(args)}<|tool_call_end|>"
        ),
        ("<think>", "</think>", *KIMI),
        calls=lambda cs: "<|tool_calls_section_begin|>" + "".join(cs) + "<|tool_calls_section_end|>",
        think=lambda t: f"<think>{t}</think>",
        prefill="<think>",
        end="<|im_end|>",
        blank_calls=(
            "<|tool_call_begin|>functions.search<|tool_call_argument_begin|>{}<|tool_call_end|>",
            "<|tool_call_begin|><|tool_call_argument_begin|>{}<|tool_call_end|>",
        ),
    ),
    Family(
        "deepseek-v3",
        lambda name, args: f"{DS['CB']}function{DS['SEP']}{name}\n```json\n{_json(args)}\n```{DS['CE']}",
        DS_MARKERS,
        calls=lambda cs: DS["CSB"] + "\n".join(cs) + DS["CSE"],
        end=DS["EOS"],
        blank_calls=(f"{DS['CB']}function{DS['SEP']}\n```json\n{{}}\n```{DS['CE']}",),
    ),
    Family(
        "deepseek-v3.1",
        lambda name, args: f"{DS['CB']}{name}{DS['SEP']}{_json(args)}{DS['CE']}",
        (*DS_MARKERS, "<think>", "</think>"),
        calls=lambda cs: DS["CSB"] + "".join(cs) + DS["CSE"],
        think=lambda t: f"<think>{t}</think>",
        prefill="<think>",
        end=DS["EOS"],
        blank_calls=(f"{DS['CB']}{DS['SEP']}{{}}{DS['CE']}",),
    ),
    Family(
        "deepseek-r1",
        lambda name, args: f"{DS['CB']}function{DS['SEP']}{name}\n```json\n{_json(args)}\n```{DS['CE']}",
        (*DS_MARKERS, "<think>", "</think>"),
        calls=lambda cs: DS["CSB"] + "\n".join(cs) + DS["CSE"],
        think=_think("<think>", "</think>"),
        prefill="<think>\n",
        end=DS["EOS"],
        blank_calls=(f"{DS['CB']}function{DS['SEP']}\n```json\n{{}}\n```{DS['CE']}",),
    ),
    Family(
        "gemma4",
        _gemma_call,
        ("<|channel>", "<channel|>", "<|tool_call>", "<tool_call|>", "<turn|>", '<|"|>'),
        think=lambda t: f"<|channel>thought\n{t}<channel|>",
        end="<turn|>",
        blank_calls=("<|tool_call>call:{}<tool_call|>", "<|tool_call><tool_call|>"),
    ),
    Family(
        "gpt-oss",
        lambda name, args: (
            f"<|start|>assistant<|channel|>commentary to=functions.{name} "
            f"<|constrain|>json<|message|>{_json(args)}<|call|>"
        ),
        HARMONY,
        think=lambda t: f"<|channel|>analysis<|message|>{t}<|end|>",
        answer=lambda t: f"<|start|>assistant<|channel|>final<|message|>{t}<|end|>",
        blank_calls=("<|start|>assistant<|channel|>commentary to=functions. <|constrain|>json<|message|>{}<|call|>",),
    ),
    Family(
        "granite",
        lambda name, args: f'{{"name": "{name}", "arguments": {_json(args)}}}',
        ("<think>", "</think>", "<response>", "</response>", "<|tool_call|>", "<|end_of_text|>"),
        calls=lambda cs: "<|tool_call|>" + _array(cs),
        think=lambda t: f"<think>{t}</think>",
        answer=lambda t: f"<response>{t}</response>",
        end="<|end_of_text|>",
        blank_calls=('<|tool_call|>[{"name": ""}]', "<|tool_call|>[]"),
    ),
    Family(
        "llama3",
        lambda name, args: f'{{"name": "{name}", "parameters": {_json(args)}}}',
        ("<|python_tag|>", "<|eot_id|>", "<|eom_id|>"),
        calls=lambda cs: "<|python_tag|>" + "; ".join(cs),
        end="<|eot_id|>",
        blank_calls=("<|python_tag|>{}", '<|python_tag|>{"name": ""}'),
    ),
    Family(
        "llama4",
        _llama4_call,
        ("<|python_start|>", "<|python_end|>", "<|eot|>", "<|eom|>"),
        calls=lambda cs: "<|python_start|>" + _array(cs) + "<|python_end|>",
        end="<|eot|>",
        blank_calls=("<|python_start|>[()]<|python_end|>", "<|python_start|>[]<|python_end|>"),
    ),
    Family(
        "mistral-v3",
        lambda name, args: f'{{"name": "{name}", "arguments": {_json(args)}, "id": "a1b2c3d4e"}}',
        ("[TOOL_CALLS]", "</s>"),
        calls=lambda cs: "[TOOL_CALLS]" + _array(cs),
        end="</s>",
        blank_calls=("[TOOL_CALLS][{}]", "[TOOL_CALLS][]"),
    ),
    Family(
        "mistral-v11",
        lambda name, args: f"[TOOL_CALLS]{name}[ARGS]{_json(args)}",
        ("[TOOL_CALLS]", "[THINK]", "[/THINK]", "[ARGS]", "[CALL_ID]", "</s>"),
        think=lambda t: f"[THINK]{t}[/THINK]",
        end="</s>",
        blank_calls=("[TOOL_CALLS][ARGS]{}",),
        thinking_may_mention=("[TOOL_CALLS]",),
    ),
    Family(
        "phi4-mini",
        lambda name, args: f'{{"name": "{name}", "arguments": {_json(args)}}}',
        ("<|end|>",),
        calls=lambda cs: "functools" + _array(cs),
        end="<|end|>",
        blank_calls=("functools[{}]", "functools[]"),
    ),
    Family(
        "command-a",
        lambda name, args: f'{{"tool_call_id": "0", "tool_name": "{name}", "parameters": {_json(args)}}}',
        COHERE,
        calls=lambda cs: "<|START_ACTION|>" + _array(cs) + "<|END_ACTION|>",
        think=lambda t: f"<|START_THINKING|>{t}<|END_THINKING|>",
        prefill="<|START_THINKING|>",
        answer=lambda t: f"<|START_RESPONSE|>{t}<|END_RESPONSE|>",
        end="<|END_OF_TURN_TOKEN|>",
        blank_calls=('<|START_ACTION|>[{"tool_name": ""}]<|END_ACTION|>', "<|START_ACTION|>[]<|END_ACTION|>"),
    ),
]
BY_NAME = {family.name: family for family in FAMILIES}


WEATHER = ("get_weather", {"city": "Paris"})
NESTED = (
    "search_flights",
    {"route": {"from": "LIS", "to": "OSL"}, "passengers": 2, "flexible": True, "tags": ["cheap"]},
)


def _broken(family: Family) -> Any:
    """Arguments the format's own parser cannot read: JSON with a trailing comma, or a parameter left open."""
    return {"qwen3-coder": "<parameter=city>\nParis", "qwen3.5": "<parameter=city>\nParis",
            "glm": "<arg_key>city</arg_key>\n<arg_value>Paris", "llama4": 'city="Paris", days=',
            "gemma4": "{city:Paris}"}.get(family.name, '{"city": "Paris",}')  # fmt: skip


def _cut(text: str, after: str) -> str:
    """The text cut off right after ``after``, as a generation stopped by its length limit."""
    return text[: text.index(after) + len(after)]


# The behaviour categories of docs/library-behaviour.md: tag, title, and what a family writes for it as
# (prefix, output), or None where the format has no such thing (thinking in a format without it).
CATEGORIES: list[tuple[str, str, Callable[[Family], tuple[str, str] | None]]] = [
    ("one-call", "one call", lambda f: ("", f.render(calls=(WEATHER,)))),
    (
        "several-calls",
        "several calls",
        lambda f: ("", f.render(calls=(WEATHER, ("get_time", {"zone": "Europe/Oslo"})))),
    ),
    ("no-call", "no call", lambda f: ("", f.render(content="The capital of Norway is Oslo."))),
    ("empty-arguments", "empty arguments", lambda f: ("", f.render(calls=(("get_time", {}),)))),
    ("nested-arguments", "nested and typed arguments", lambda f: ("", f.render(calls=(NESTED,)))),
    ("malformed-arguments", "malformed arguments", lambda f: ("", f.render(calls=(("get_weather", _broken(f)),)))),
    (
        "missing-end",
        "missing end token",
        lambda f: ("", f.render(content="Let me check.", calls=(WEATHER,), end=False)),
    ),
    (
        "truncated-thinking",
        "truncated thinking",
        lambda f: (
            None
            if f.think is None
            else ("", _cut(f.render(thinking="The user wants the weather, so first I check"), "so first I"))
        ),
    ),
    (
        "prefilled-thinking",
        "prefilled thinking",
        lambda f: (
            None
            if not f.prefill
            else (
                f.prefill,
                f.render(thinking="Short question.", content="Oslo.")[
                    len(f.prefill.rstrip("\n")) + (1 if f.prefill.endswith("\n") else 0) :
                ],
            )
        ),
    ),
    (
        "text-around-calls",
        "text before and after calls",
        lambda f: ("", f.render(content="Checking the forecast.", calls=(WEATHER,), after="I will report back.")),
    ),
    (
        "reasoning-and-calls",
        "reasoning plus calls",
        lambda f: None if f.think is None else ("", f.render(thinking="I need the forecast.", calls=(WEATHER,))),
    ),
    ("duplicate-calls", "duplicate calls", lambda f: ("", f.render(calls=(WEATHER, WEATHER)))),
    ("empty-output", "empty output", lambda f: ("", "")),
]
