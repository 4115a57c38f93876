"""Reading conformance case files (conformance/case-file.schema.json) into groups and tests.

Every problem is reported with its file and the JSON Pointer inside it, never as a traceback."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import shown
from ..files import FileProblem, read_text
from ..jsontext import Refused, load_strict
from ..tools import Tools, ToolsError

ID = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*(?:\.[a-z0-9]+(?:[-_][a-z0-9]+)*)*$")
RULE = re.compile(r"^[A-Z][A-Z0-9]*-[0-9]+$")
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_FILE_BYTES = 64 * 1024 * 1024
FILE_KEYS = {"$schema", "description", "groups"}
GROUP_KEYS = {"id", "description", "rules", "features", "tags", "schema", "tools", "tests"}
TEST_KEYS = {"id", "description", "rules", "features", "tags", "prefix", "tools", "input", "expect"}
TOOLS_FEATURE = "typed-arguments"  # a test with tools needs it (SPEC section 15)


@dataclass(frozen=True)
class Problem:
    """A problem in a case file: where (file and JSON Pointer) and what."""

    file: str
    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {shown(self.pointer)}: {self.message}"


def categories(expect: dict[str, Any]) -> tuple[str, ...]:
    """The error categories an error expectation accepts: its one category, or any of its list ([SCHEMA-1])."""
    category = expect["error"]["category"]
    return (category,) if isinstance(category, str) else tuple(category)


@dataclass(frozen=True)
class Test:
    __test__ = False  # not a pytest test class

    id: str
    description: str
    rules: tuple[str, ...]
    features: frozenset[str]
    tags: frozenset[str]
    input: str
    expect: dict[str, Any] | None
    file: str
    pointer: str
    group_id: str
    area: str
    prefix: str = ""
    tools: Any = None  # the request's tools: the arguments are typed by them (SPEC section 15)

    @property
    def text(self) -> str:
        """What a one-shot parse of this test reads: the prefix, then the input ([GEN-5])."""
        return self.prefix + self.input


@dataclass(frozen=True)
class Group:
    id: str
    description: str
    schema: Any
    tests: tuple[Test, ...]
    file: str
    pointer: str

    def places(self) -> list[tuple[str, str]]:
        """The ids this group takes, its own and its tests', each with its JSON Pointer in the file."""
        return [(self.id, self.pointer)] + [(test.id, test.pointer) for test in self.tests]


@dataclass
class Corpus:
    groups: list[Group]
    problems: list[Problem]

    @property
    def tests(self) -> Iterator[Test]:
        for group in self.groups:
            yield from group.tests


def corpus_dir() -> Path:
    """The bundled corpus: inside the installed package, or conformance/ in a source checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "corpus", package.parent.parent / "conformance"):
        if (candidate / "features.json").is_file():
            return candidate
    raise FileNotFoundError("the bundled conformance corpus is missing from this installation")


def suite_version(corpus: Path) -> str:
    """The corpus version (its VERSION file)."""
    return (corpus / "VERSION").read_text(encoding="utf-8").strip()


def case_files(paths: Iterable[Path]) -> list[Path]:
    """The case files named by ``paths``: files as given, directories searched for *.json below a cases/
    folder, or below the folder itself when it has none, leaving out hidden files and folders (.git, .tox).
    A file named twice (or reached twice) is taken once."""
    found: dict[Path, Path] = {}
    for path in paths:
        if path.is_dir():
            root = path / "cases" if (path / "cases").is_dir() else path
            for file in sorted(root.rglob("*.json")):
                if not any(part.startswith(".") for part in file.relative_to(root).parts):
                    found.setdefault(file.resolve(), file)
        else:
            found.setdefault(path.resolve(), path)
    return list(found.values())


def load(paths: Iterable[Path]) -> Corpus:
    """The groups of every case file, and every problem that makes a file unusable: unreadable, not JSON, not of
    the case-file shape, or reusing an id that another group or test already has."""
    corpus = Corpus([], [])
    for path in case_files(paths):
        _load_file(path, corpus)
    seen: dict[str, str] = {}
    for group in corpus.groups:
        for identifier, pointer in group.places():
            if identifier in seen:
                message = f"duplicate id {identifier!r} (first at {seen[identifier]})"
                corpus.problems.append(Problem(group.file, pointer, message))
            seen.setdefault(identifier, f"{group.file}:{pointer}")
    return corpus


def _load_file(path: Path, corpus: Corpus) -> None:
    name = str(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            corpus.problems.append(Problem(name, "", f"file larger than {MAX_FILE_BYTES // 2**20} MiB"))
            return
        data = load_strict(read_text(path))
    except OSError as exc:
        corpus.problems.append(Problem(name, "", f"cannot read: {exc.strerror or exc}"))
        return
    except FileProblem as exc:  # as every command words it: "cannot read FILE: not UTF-8 (...)"
        corpus.problems.append(Problem(name, "", str(exc).replace(f" {name}:", ":", 1)))
        return
    except Refused as exc:  # a repeated key, too deep, a byte order mark: said as such
        corpus.problems.append(Problem(name, "", str(exc)))
        return
    except ValueError as exc:
        corpus.problems.append(Problem(name, "", f"not valid JSON: {exc}"))
        return
    checker = _Shape(name, corpus.problems)
    if not checker.object(data, "", FILE_KEYS, {"description", "groups"}):
        return
    checker.text(data["description"], "/description")
    groups = data["groups"]
    if not isinstance(groups, list) or not groups:
        checker.problem("/groups", "must be a non-empty array of groups")
        return
    area = path.parent.name
    for index, group in enumerate(groups):
        loaded = checker.group(group, f"/groups/{index}", area)
        if loaded is not None:
            corpus.groups.append(loaded)


class _Shape:
    """Checks the shape the meta-schema describes, with a precise pointer for each problem."""

    def __init__(self, file: str, problems: list[Problem]) -> None:
        self.file = file
        self.problems = problems

    def problem(self, pointer: str, message: str) -> None:
        self.problems.append(Problem(self.file, pointer, message))

    def object(self, value: Any, pointer: str, allowed: set[str], required: set[str]) -> bool:
        if not isinstance(value, dict):
            self.problem(pointer, "must be an object")
            return False
        for key in value:
            if key not in allowed:
                self.problem(f"{pointer}/{key}", f"unknown key {key!r}")
        for key in sorted(required - value.keys()):
            self.problem(pointer, f"missing required key {key!r}")
        return required <= value.keys()

    def text(self, value: Any, pointer: str) -> bool:
        if not isinstance(value, str) or not value:
            self.problem(pointer, "must be a non-empty string")
            return False
        return True

    def identifier(self, value: Any, pointer: str) -> bool:
        if not isinstance(value, str) or not ID.match(value):
            self.problem(pointer, f"{value!r} is not a valid id (lowercase words joined by '-', '_' and '.')")
            return False
        return True

    def tools(self, holder: dict[str, Any], pointer: str) -> None:
        """A group's or a test's ``tools``: function definitions as [TOOLS-1] reads them."""
        if "tools" in holder:
            try:
                Tools(holder["tools"])
            except ToolsError as exc:
                self.problem(f"{pointer}/tools{exc.path}", f"{exc.message} ([TOOLS-1])")

    def names(self, value: Any, pointer: str, pattern: re.Pattern[str], what: str) -> tuple[str, ...]:
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(item, str) and pattern.match(item) for item in value):
            self.problem(pointer, f"must be an array of {what}")
            return ()
        if len(set(value)) != len(value):
            self.problem(pointer, "has repeated items")
        return tuple(value)

    def group(self, group: Any, pointer: str, area: str) -> Group | None:
        start = len(self.problems)
        if not self.object(group, pointer, GROUP_KEYS, {"id", "description", "schema", "tests"}):
            return None
        self.identifier(group["id"], f"{pointer}/id")
        self.text(group["description"], f"{pointer}/description")
        rules = self.names(group.get("rules"), f"{pointer}/rules", RULE, "rule ids such as 'REGEX-4'")
        features = self.names(group.get("features"), f"{pointer}/features", NAME, "feature names")
        tags = self.names(group.get("tags"), f"{pointer}/tags", NAME, "tag names")
        self.tools(group, pointer)
        tests_value = group["tests"]
        if not isinstance(tests_value, list) or not tests_value:
            self.problem(f"{pointer}/tests", "must be a non-empty array of tests")
            return None
        tests = []
        for index, test in enumerate(tests_value):
            loaded = self.test(
                test, f"{pointer}/tests/{index}", group["id"], area, (rules, features, tags), group.get("tools")
            )
            if loaded is not None:
                tests.append(loaded)
        if len(self.problems) > start:
            return None
        return Group(group["id"], group["description"], group["schema"], tuple(tests), self.file, pointer)

    def test(
        self,
        test: Any,
        pointer: str,
        group_id: Any,
        area: str,
        inherited: tuple[tuple[str, ...], ...],
        group_tools: Any = None,
    ) -> Test | None:
        start = len(self.problems)
        if not self.object(test, pointer, TEST_KEYS, {"id", "description", "input"}):
            return None
        self.identifier(test["id"], f"{pointer}/id")
        self.text(test["description"], f"{pointer}/description")
        if not isinstance(test["input"], str):
            self.problem(f"{pointer}/input", "must be a string")
        if not isinstance(test.get("prefix", ""), str):
            self.problem(f"{pointer}/prefix", "must be a string")
        self.tools(test, pointer)
        tools = test.get("tools", group_tools)  # a group's tools are its tests' unless a test has its own
        rules = self.names(test.get("rules"), f"{pointer}/rules", RULE, "rule ids such as 'REGEX-4'")
        features = self.names(test.get("features"), f"{pointer}/features", NAME, "feature names")
        tags = self.names(test.get("tags"), f"{pointer}/tags", NAME, "tag names")
        all_rules = tuple(dict.fromkeys(inherited[0] + rules))
        if not all_rules:
            self.problem(pointer, "cites no rule: give 'rules' on the test or its group")
        expect = test.get("expect")
        if "expect" in test:
            self.expectation(expect, f"{pointer}/expect")
        if len(self.problems) > start:
            return None
        return Test(
            id=test["id"],
            description=test["description"],
            rules=all_rules,
            features=frozenset(inherited[1] + features + ((TOOLS_FEATURE,) if tools is not None else ())),
            tags=frozenset(inherited[2] + tags),
            input=test["input"],
            expect=expect,
            file=self.file,
            pointer=pointer,
            group_id=str(group_id),
            area=area,
            prefix=test.get("prefix", ""),
            tools=tools,
        )

    def expectation(self, expect: Any, pointer: str) -> None:
        if not isinstance(expect, dict) or len(expect) != 1 or next(iter(expect)) not in ("output", "error"):
            self.problem(pointer, 'must be exactly one of {"output": ...} or {"error": {...}}')
            return
        if "error" in expect:
            error = expect["error"]
            if self.object(error, f"{pointer}/error", {"phase", "category"}, {"phase", "category"}):
                if error["phase"] not in ("schema", "input"):
                    self.problem(f"{pointer}/error/phase", "must be 'schema' or 'input'")
                category = error["category"]
                if not isinstance(category, str) and not (
                    isinstance(category, list)
                    and len(category) >= 2
                    and all(isinstance(item, str) for item in category)
                    and len(set(category)) == len(category)
                ):
                    self.problem(
                        f"{pointer}/error/category", "must be a string, or an array of 2 or more distinct strings"
                    )
