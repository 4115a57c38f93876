"""Python source generated from a compiled schema (fast.py) or a JMESPath transform (transforms.py), and run. The
source holds generated identifiers only: what it works on (patterns, keys, literals, nodes) is bound as names in
the namespace it runs in, so schema text never becomes code, and the same shape gives the same source, compiled
once."""

from __future__ import annotations

import functools
from typing import Any


def function(source: str, name: str, namespace: dict[str, Any], origin: str) -> Any:
    """The function ``name`` that ``source`` defines, run in ``namespace`` (which it is added to); ``origin`` names
    the source in tracebacks."""
    exec(_compiled(source, origin), namespace)  # generated identifiers only, see the docstring
    return namespace[name]


@functools.lru_cache(maxsize=1024)
def _compiled(source: str, origin: str) -> Any:
    return compile(source, origin, "exec")
