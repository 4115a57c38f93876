"""Python source generated from a compiled schema (fast.py) or a JMESPath transform (transforms.py), and run. The
source holds generated identifiers only: what it works on (patterns, keys, literals, nodes) is bound as names in
the namespace it runs in, so schema text never becomes code, and the same shape gives the same source, compiled
once."""

from __future__ import annotations

import functools
from typing import Any


class Source:
    """The lines of a generated source and the values its names stand for."""

    def __init__(self, constants: dict[str, Any] | None = None) -> None:
        self.lines: list[str] = []
        self.constants: dict[str, Any] = dict(constants or {})

    def constant(self, stem: str, value: Any) -> str:
        """A new name for ``value`` in the source: ``stem`` and a number."""
        name = f"{stem}{len(self.constants)}"
        self.constants[name] = value
        return name


def function(source: str, name: str, namespace: dict[str, Any], origin: str) -> Any:
    """The function ``name`` that ``source`` defines, run in ``namespace`` (which it is added to); ``origin`` names
    the source in tracebacks."""
    exec(_compiled(source, origin), namespace)  # generated identifiers only, see the docstring
    return namespace[name]


@functools.lru_cache(maxsize=1024)
def _compiled(source: str, origin: str) -> Any:
    return compile(source, origin, "exec")
