"""The library of real-format response schemas: one JSON file a model family, each with a title and a
description of facts (the markers it reads, what it cannot express). The corpus's ``fmt.*`` groups use exactly
these schemas (``conformance check`` verifies it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent

# What the chat templates of a family put at the end of the prompt, after the assistant header, by mode: the
# output starts after it, so a parse needs it as its prefix (SPEC [GEN-5]). Families not listed prefill nothing
# the schema reads. Each schema's description says the same in words.
PREFILLS: dict[str, dict[str, str]] = {
    "qwen3": {"thinking (Qwen3-Thinking-2507)": "<think>\n", "non-thinking": "<think>\n\n</think>\n\n"},
    "qwen3.5": {"thinking": "<think>\n", "non-thinking": "<think>\n\n</think>\n\n"},
    "smollm3": {"non-thinking (/no_think)": "<think>\n\n</think>\n"},
    "glm": {"thinking (GLM-4.7)": "<think>", "non-thinking": "<think></think>"},
    "kimi-k2": {"thinking (K2 Thinking)": "<think>"},
    "deepseek-v3.1": {"thinking": "<think>", "non-thinking": "</think>"},
    "deepseek-r1": {"thinking (R1-0528, distills)": "<think>\n"},
    "command-a": {"reasoning (Cohere2)": "<|START_THINKING|>"},
}


def names() -> list[str]:
    """The names of the schemas in the library, sorted."""
    return sorted(path.stem for path in FOLDER.glob("*.json"))


def prefills(name: str) -> dict[str, str]:
    """What the templates of library family ``name`` prefill, by mode (``{}``: nothing); pass the one your
    template used as ``parse(..., prefix=...)``."""
    if name not in names():
        raise KeyError(f"no schema {name!r} in the library; there are: {', '.join(names())}")
    return dict(PREFILLS.get(name, {}))


def load(name: str) -> dict[str, Any]:
    """A fresh copy of the library schema ``name`` (KeyError names the choices when there is none)."""
    path = FOLDER / f"{name}.json"
    if name not in names():
        raise KeyError(f"no schema {name!r} in the library; there are: {', '.join(names())}")
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return value
