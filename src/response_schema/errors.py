"""The error model of SPEC.md section 10: a phase, a category from a closed list, and a schema path."""

from __future__ import annotations

from typing import Any

# [ERR-2] The closed list of categories, by phase.
SCHEMA_CATEGORIES = frozenset(
    {
        "invalid-keyword",
        "unknown-keyword",
        "invalid-regex",
        "unknown-parser",
        "invalid-transform",
        "schema-too-deep",
    }
)
INPUT_CATEGORIES = frozenset(
    {
        "type-mismatch",
        "invalid-json",
        "invalid-value",
        "missing-required",
        "length-mismatch",
        "unmatched-group",
        "transform-failed",
        "json-too-deep",
    }
)


def pointer(parts: tuple[str | int, ...]) -> str:
    """The JSON Pointer (RFC 6901) of a location given as a sequence of keys and indices."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def shown(path: str) -> str:
    """A JSON Pointer as printed: the root, the empty pointer, as "" (RFC 6901; "/" names the key "")."""
    return path or '""'


class ResponseSchemaError(Exception):
    """Base of every error the reference raises ([ERR-1]). Picklable with every attribute, so errors cross
    process boundaries (a ProcessPoolExecutor, SECURITY.md)."""

    phase = ""

    def __init__(self, category: str, path: str, message: str) -> None:
        super().__init__(f"{category} at {shown(path)}: {message}")
        self.category = category
        self.path = path
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:  # native data only: pickling
        return (type(self), (self.category, self.path, self.message), self.__dict__)


class SchemaError(ResponseSchemaError):
    """The schema is malformed, whatever the input ([ERR-3]).

    ``problems`` lists every problem found in the schema, this one first.
    """

    phase = "schema"

    def __init__(self, category: str, path: str, message: str) -> None:
        assert category in SCHEMA_CATEGORIES, category
        super().__init__(category, path, message)
        self.problems: list[SchemaError] = [self]


class ParseError(ResponseSchemaError):
    """This input does not fit this valid schema ([ERR-4])."""

    phase = "input"

    def __init__(self, category: str, path: str, message: str) -> None:
        assert category in INPUT_CATEGORIES, category
        super().__init__(category, path, message)
