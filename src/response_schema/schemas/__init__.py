"""The library of real-format response schemas: one JSON file a model family, each with a title and a
description of facts (the markers it reads, what it cannot express). The corpus's ``fmt.*`` groups use exactly
these schemas (``conformance check`` verifies it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent


def names() -> list[str]:
    """The names of the schemas in the library, sorted."""
    return sorted(path.stem for path in FOLDER.glob("*.json"))


def load(name: str) -> dict[str, Any]:
    """A fresh copy of the library schema ``name`` (KeyError names the choices when there is none)."""
    path = FOLDER / f"{name}.json"
    if name not in names():
        raise KeyError(f"no schema {name!r} in the library; there are: {', '.join(names())}")
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return value
