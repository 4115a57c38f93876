"""SPEC.md appendix A.5 holds: every core pattern of the corpus translates to ECMAScript by the JavaScript
implementation's translation (js/src/regex.js), and, iterated as A.2 says, gives exactly Python's matches on every
input of its group (run in Node.js)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from response_schema.harness.corpus import corpus_dir, load

NODE = shutil.which("node")
MATCH = Path(__file__).parent / "ecmascript" / "match.mjs"
# Features whose constructs A.5 does not translate (A.4); a pattern of a group that needs one is not core.
UNTRANSLATED = {
    "regex-backreference-unset",
    "regex-capture-in-repeat",
    "regex-scoped-flags",
    "regex-verbose",
    "regex-atomic",
    "regex-python-only",
}
REGEX_KEYS = ("x-regex", "x-regex-iterator", "x-regex-key-value")


def patterns(schema: Any) -> list[str]:
    """Every pattern in a schema: the regex keywords and the substitution and mapping patterns."""
    found: list[str] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found += [node[key] for key in REGEX_KEYS if isinstance(node.get(key), str)]
            for pair in (
                node.get("x-regex-substitutions", []) if isinstance(node.get("x-regex-substitutions"), list) else []
            ):
                if isinstance(pair, list) and pair and isinstance(pair[0], str):
                    found.append(pair[0])
            if isinstance(node.get("x-mapping-regex"), dict):
                found += list(node["x-mapping-regex"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def core_jobs() -> list[dict[str, Any]]:
    jobs = []
    for group in load([corpus_dir()]).groups:
        inputs = [test.text for test in group.tests if not test.features & UNTRANSLATED]
        if not inputs:
            continue
        for pattern in patterns(group.schema):
            try:
                compiled = re.compile(pattern, re.DOTALL)
            except re.error:
                continue  # a case about an invalid pattern
            expected = [[[m.group(0), list(m.groups())] for m in compiled.finditer(text)] for text in inputs]
            jobs.append({"group": group.id, "pattern": pattern, "inputs": inputs, "expected": expected})
    return jobs


def node_matches(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if NODE is None:
        pytest.fail("node is not installed: .ci/run needs Node.js for the ECMAScript translation test")
    answer = subprocess.run(
        [NODE, str(MATCH)], input=json.dumps(jobs), capture_output=True, text=True, timeout=300, check=False
    )
    assert answer.returncode == 0, answer.stderr
    return list(json.loads(answer.stdout))


def python_matches(pattern: str, text: str) -> list[list[Any]]:
    return [[m.group(0), list(m.groups())] for m in re.finditer(pattern, text, re.DOTALL)]


def test_every_core_pattern_translates_and_matches_as_python() -> None:
    jobs = core_jobs()
    assert len(jobs) > 150  # the corpus's patterns, not a handful
    answers = node_matches([{"pattern": job["pattern"], "inputs": job["inputs"]} for job in jobs])
    problems = []
    for job, answer in zip(jobs, answers, strict=True):
        if "untranslatable" in answer:
            problems.append(f"{job['group']}: {job['pattern']!r}: {answer['untranslatable']}")
        elif answer["results"] != job["expected"]:
            problems.append(f"{job['group']}: {job['pattern']!r} -> {answer['source']!r}: different matches")
    assert problems == []


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("(x*?)", "xx"),
        ("(|x)", "xxy"),
        ("(x*)", "ab"),
        (r"(\w*)", "é😀a b"),
        (r"(.*?)$", "abc\n"),
        (r"(?m)^(\w+)$", "a\nbc\r\nd"),
        (r"(\b\w+\b)", "naïve café"),
        (r"(\d+)", "x٣٤y12"),
        (r"(\s+)", "a\x1c\u0085\ufeffb"),
        (r"([\w.-]+)@", "ü.x-y@z"),
        (r"(a{,2})", "aaa"),
        (r"(\{x\})", "{x}"),
        (r"(?i)(straße)", "STRASSE Straße"),
        (r"(\Aa|b\Z)", "ab"),
        (r"(?P<q>['\"])(.*?)(?P=q)", "say 'hi' \"x\""),
    ],
)
def test_translation_of_the_awkward_parts(pattern: str, text: str) -> None:
    (answer,) = node_matches([{"pattern": pattern, "inputs": [text]}])
    assert answer.get("results") == [python_matches(pattern, text)], answer


@pytest.mark.parametrize(
    "pattern", [r"(?x) (a)", r"((?i:a)b)", r"(?>(a))", r"(a++)", r"(\N{EM DASH})", r"(?(1)a|b)", r"([\W])"]
)
def test_what_is_behind_a_feature_does_not_translate(pattern: str) -> None:
    (answer,) = node_matches([{"pattern": pattern, "inputs": []}])
    assert "untranslatable" in answer
