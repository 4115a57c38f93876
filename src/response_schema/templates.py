"""Replacement templates ([SUBS-3], appendix A.3) as Python's ``re`` reads them: the literal texts and the numbers of
the groups they insert, in order. What a substitution inserts for a match is these parts joined, each group's
text in its place (a group that took no part inserts nothing)."""

from __future__ import annotations

import re
import sys
from typing import Any

if sys.version_info >= (3, 11):
    from re._parser import parse_template  # type: ignore[import-not-found]
else:  # pragma: no cover - Python 3.10
    from sre_parse import parse_template


def template_parts(replacement: str, pattern: re.Pattern[str]) -> list[str | int]:
    """The replacement, a template valid for ``pattern``, as literal texts and group numbers, in order (no empty
    text)."""
    parsed = parse_template(replacement, pattern)
    if isinstance(parsed, list):  # Python 3.12 and later: literal, group, literal, ...
        return [part for part in parsed if part != ""]
    groups, literals = parsed  # pragma: no cover - Python 3.10 and 3.11
    parts: list[Any] = list(literals)
    for index, number in groups:
        parts[index] = number
    return [part for part in parts if part is not None and part != ""]
