"""The schema library on generated outputs of every family (tests/library_formats.py): whatever the output, a
library schema never returns a marker of its format inside content or thinking, nor a tool call without a
non-empty name ([DESIGN 7]); it reads the text, leaves it as content without the marker, or fails with a
categorized error."""

from __future__ import annotations

from typing import Any

import pytest
from library_formats import CATEGORIES, FAMILIES, WEATHER, Family

import response_schema as rs

STRAYS = ("Before. {marker} After.", "{marker}", "{marker}{marker}")


def outputs(family: Family) -> list[tuple[str, str]]:
    """(prefix, output) pairs: each behaviour category, text after calls, blank calls, stray markers, the
    prefilled opener, then every cut-off point of each."""
    whole: list[tuple[str, str]] = [built for _, _, build in CATEGORIES if (built := build(family)) is not None]
    whole += [("", family.render(content="First.", calls=(WEATHER,) * 3, after="Then this."))]
    whole += [("", f"Intro. {blank} Outro.{family.end}") for blank in family.blank_calls]
    whole += [("", stray.format(marker=marker)) for marker in family.markers for stray in STRAYS]
    if family.think is not None:
        whole += [("", family.render(thinking=f"Odd {marker} inside.", content="Done.")) for marker in family.markers]
    cuts = [(prefix, text[:end]) for prefix, text in whole for end in range(len(text))]
    with_prefill = [(family.prefill, text) for _, text in cuts] if family.prefill else []
    return whole + cuts + with_prefill


def problems(family: Family, message: Any) -> list[str]:
    found = []
    if not isinstance(message, dict):
        return [f"not a message: {message!r}"]
    for key in ("content", "thinking"):
        value = message.get(key)
        allowed = family.thinking_may_mention if key == "thinking" else ()
        for marker in family.markers:
            if isinstance(value, str) and marker in value and marker not in allowed:
                found.append(f"{marker!r} in {key}: {value!r}")
    for call in message.get("tool_calls") or []:
        name = (call or {}).get("function", {}).get("name") if isinstance(call, dict) else None
        if not isinstance(name, str) or not name.strip():
            found.append(f"a tool call without a name: {call!r}")
    return found


@pytest.mark.parametrize("family", FAMILIES, ids=lambda family: family.name)
def test_no_marker_leaks_and_no_nameless_call(family: Family) -> None:
    parser = rs.compile(rs.schemas.load(family.name))
    pairs = outputs(family)
    assert len(pairs) >= 1000
    bad = []
    for prefix, text in pairs:
        try:
            message = parser.parse(text, prefix)
        except rs.ParseError:
            continue  # a categorized error is an honest answer
        bad += [f"{prefix!r} + {text!r}: {problem}" for problem in problems(family, message)]
    assert not bad, f"{len(bad)} of {len(pairs)} outputs:\n" + "\n".join(bad[:20])


def test_every_library_schema_has_a_family() -> None:
    assert sorted(family.name for family in FAMILIES) == rs.schemas.names()


def test_behaviour_table_is_current() -> None:
    from library_table import DOC, render

    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/library-behaviour.md is stale: python tests/library_table.py"
    )


def test_prefills_are_the_library_s_and_its_descriptions_say_them() -> None:
    for family in FAMILIES:
        said = rs.schemas.prefills(family.name)
        if family.prefill:
            assert family.prefill in said.values(), family.name
        description = rs.schemas.load(family.name)["description"]
        for prefix in said.values():
            assert f"'{prefix}'".replace("\n", "\\n") in description, (family.name, prefix)
    with pytest.raises(KeyError):
        rs.schemas.prefills("no-such-family")
