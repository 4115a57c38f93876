"""Compiling a response schema: every check of SPEC.md section 3, done once, before any input is seen."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

import jmespath
import jmespath.exceptions
import jmespath.functions
import jmespath.lexer
import jmespath.visitor

from .errors import SchemaError, pointer
from .jsontext import json_equal
from .transforms import Search, compile_search

TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "any"})  # [SCHEMA-4]
PARSERS = frozenset({"json", "gemma4-tool-call"})  # [PARSER-1]
PARSER_ARGS = frozenset({"transform", "allow_non_json"})  # [ARGS-1]
X_KEYWORDS = frozenset(
    {
        "x-regex",
        "x-regex-iterator",
        "x-regex-key-value",
        "x-regex-substitutions",
        "x-parser",
        "x-parser-args",
        "x-mapping",
        "x-mapping-regex",
    }
)
# Keywords that need string content ([NODE-3]).
STRING_KEYWORDS = ("x-regex", "x-regex-iterator", "x-regex-key-value", "x-regex-substitutions")
OBJECT_KEYWORDS = ("properties", "additionalProperties", "required")
ARRAY_KEYWORDS = ("items", "prefixItems")
MAX_SCHEMA_DEPTH = 64  # [LIMIT-1]


class _Functions(jmespath.functions.Functions):
    """The JMESPath functions as [ARGS-6] says them, where Python's jmespath differs."""

    @jmespath.functions.signature({"types": ["array", "string"]}, {"types": []})
    def _func_contains(self, subject: Any, search: Any) -> bool:
        """[ARGS-6] By JSON equality ([JSONB-3]: `true` is not `1`); a string contains only strings."""
        if isinstance(subject, str):
            return isinstance(search, str) and search in subject
        return any(json_equal(item, search) for item in subject)


_FUNCTIONS = _Functions()
_JMESPATH_FUNCTIONS = _FUNCTIONS.FUNCTION_TABLE
# One interpreter applies every transform: it keeps nothing between calls but a cache of its own methods.
_INTERPRETER = jmespath.visitor.TreeInterpreter(jmespath.Options(custom_functions=_FUNCTIONS))
# [ARGS-5] From JSON, only these functions can make a number JSON cannot hold (to_number("inf"), a sum that
# overflows); other functions, paths and projections give JSON from JSON.
_MAY_LEAVE_JSON = frozenset({"to_number", "sum", "avg"})


@dataclass(frozen=True, eq=False)
class Transform:
    """A compiled JMESPath transform ([ARGS-3]); ``checked`` when its result must be checked to be JSON
    ([ARGS-5]): it calls a function of _MAY_LEAVE_JSON (its literals are JSON, [ARGS-7])."""

    parsed: Any  # jmespath's tree
    checked: bool
    fast: Search  # the same evaluation as generated code (transforms.py), for the fast path

    def search(self, value: Any) -> Any:
        return _INTERPRETER.visit(self.parsed, value)


Path = tuple[str | int, ...]


def json_literals(expression: str) -> str:
    """[ARGS-7] ``expression`` with its JSON literals read as this language reads JSON. ``jmespath`` reads a
    literal with Python's ``json``, which takes ``NaN``, ``Infinity`` and ``1e400`` as numbers; such a literal is
    not JSON ([JSON-3]), so it is JMESPath's deprecated raw string literal: its text, leading whitespace removed,
    as the content of a JSON string (ValueError when that is not one either). The expression is rewritten with
    that string; an expression whose literals are all JSON is returned as it is."""
    if "`" not in expression:
        return expression
    try:
        tokens = list(jmespath.lexer.Lexer().tokenize(expression))
    except jmespath.exceptions.JMESPathError:
        return expression  # compiling it says what is wrong
    parts, at = [], 0
    for token in tokens:
        if token["type"] != "literal" or is_json_value(token["value"]):
            continue
        start = end = token["start"]  # the opening backtick; the closing one is the next that is not escaped
        while expression[end := end + 1] != "`":
            end += expression[end] == "\\"
        text = expression[start + 1 : end].replace("\\`", "`")
        end += 1
        try:
            value = json.loads(f'"{text.lstrip()}"')
        except ValueError:
            raise ValueError(f"the literal `{text}` is neither JSON nor a raw string ([ARGS-7])") from None
        parts += [expression[at:start], "`" + json.dumps(value).replace("`", "\\`") + "`"]
        at = end
    return "".join(parts) + expression[at:]


@dataclass(frozen=True, slots=True)
class Node:
    """One compiled schema node. ``None`` or empty means the keyword is absent."""

    path: str
    type: str | None
    has_const: bool
    const: Any
    has_default: bool
    default: Any
    needs_string: bool
    has_stages: bool  # any of steps 3 to 8 of [NODE-1]
    substitutions: tuple[tuple[re.Pattern[str], str], ...]
    regex: re.Pattern[str] | None
    iterator: re.Pattern[str] | None
    key_value: re.Pattern[str] | None
    parser: str | None
    transform: Transform | None
    allow_non_json: bool
    mapping: dict[str, Any] | None
    mapping_regex: tuple[tuple[re.Pattern[str], str], ...] | None
    has_properties: bool
    properties: tuple[tuple[str, Node], ...]
    property_names: frozenset[str]
    additional: Node | bool
    required: tuple[str, ...]
    items: Node | None
    prefix_items: tuple[Node, ...] | None


def compile_schema(schema: Any) -> Node:
    """Compile ``schema``; raise SchemaError listing every problem found ([SCHEMA-1])."""
    compiler = _Compiler()
    node = compiler.node(schema, (), 1)
    if compiler.problems:
        first = compiler.problems[0]
        first.problems = compiler.problems
        raise first
    assert node is not None
    return node


def is_json_value(value: Any) -> bool:
    """True when ``value`` is a JSON value: null, a boolean, a finite number, a string, an array of JSON
    values, or an object with string keys and JSON values ([SCHEMA-13]). Iterative, so depth cannot crash it;
    a container that contains itself is not JSON, and one shared many times is checked once."""
    checked: set[int] = set()  # containers whose whole content is JSON
    open_: set[int] = set()  # containers being checked: meeting one again is a cycle
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, done = stack.pop()
        if done:
            open_.discard(id(item))
            checked.add(id(item))
            continue
        if item is None or isinstance(item, (bool, int, str)):
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return False  # native data only
            continue
        if not isinstance(item, (list, dict)):
            return False  # native data only
        if id(item) in checked:  # native data only: a container shared in the value
            continue
        if id(item) in open_:
            return False  # native data only: a cycle
        if isinstance(item, dict) and not all(isinstance(key, str) for key in item):
            return False  # native data only
        open_.add(id(item))
        stack.append((item, True))
        stack.extend((child, False) for child in (item.values() if isinstance(item, dict) else item))
    return True


def copied(value: Any) -> Any:
    """A copy of ``value`` whose lists and dicts are new (what ``copy.deepcopy`` makes of a schema), made without
    recursion, so depth cannot crash it; a container met twice (shared, or in a cycle) is copied once."""
    copies: dict[int, Any] = {}
    root = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        item = holder[key]
        if not isinstance(item, (list, dict)):
            continue
        if id(item) not in copies:
            copies[id(item)] = new = type(item)(item)
            stack.extend((new, child) for child in (new if isinstance(new, dict) else range(len(new))))
        holder[key] = copies[id(item)]
    return root[0]


class _Compiler:
    def __init__(self) -> None:
        self.problems: list[SchemaError] = []

    def fail(self, category: str, path: Path, message: str) -> None:
        self.problems.append(SchemaError(category, pointer(path), message))

    def node(self, schema: Any, path: Path, depth: int) -> Node | None:
        if not isinstance(schema, dict):  # [SCHEMA-2]
            self.fail("invalid-keyword", path, f"a schema node must be an object, not {json_kind(schema)}")
            return None
        if depth > MAX_SCHEMA_DEPTH:  # [LIMIT-1]
            self.fail("schema-too-deep", path, f"schema nesting exceeds {MAX_SCHEMA_DEPTH} levels")
            return None
        for key in schema:
            if not isinstance(key, str):  # native data only
                self.fail("invalid-keyword", path, f"schema keys must be strings, not {json_kind(key)}")
            elif key.startswith("x-") and key not in X_KEYWORDS:  # [SCHEMA-3]
                self.fail("unknown-keyword", (*path, key), f"unknown keyword {key!r}")

        node_type = self.node_type(schema, path)
        for group, wanted in ((OBJECT_KEYWORDS, "object"), (ARRAY_KEYWORDS, "array")):
            for key in group:
                if key in schema and node_type != wanted:  # [SCHEMA-5]
                    self.fail("invalid-keyword", (*path, key), f"{key!r} needs type {wanted!r}")

        for key in ("const", "default"):  # [SCHEMA-13]
            if key in schema and not is_json_value(schema[key]):  # native data only
                self.fail("invalid-keyword", (*path, key), f"{key!r} must be a JSON value")

        regex = self.pattern(schema, "x-regex", path)
        iterator = self.pattern(schema, "x-regex-iterator", path)
        key_value = self.pattern(schema, "x-regex-key-value", path)
        self.check_groups(regex, iterator, key_value, schema, node_type, path)
        parser, transform, allow_non_json = self.parser(schema, path)
        stages = [key for key in ("x-regex-iterator", "x-regex-key-value", "x-parser") if key in schema]
        if len(stages) > 1:  # [SCHEMA-9]
            self.fail("invalid-keyword", path, f"{' and '.join(stages)} cannot be combined in one node")

        properties = self.properties(schema, path, depth)
        additional = self.additional(schema, path, depth)
        items, prefix_items = self.array_children(schema, node_type, path, depth)
        return Node(
            path=pointer(path),
            type=node_type,
            has_const="const" in schema,
            const=schema.get("const"),
            has_default="default" in schema,
            default=schema.get("default"),
            needs_string=any(key in schema for key in STRING_KEYWORDS),
            has_stages=any(key in schema for key in (*STRING_KEYWORDS, "x-parser", "x-mapping", "x-mapping-regex")),
            substitutions=self.replacements(schema, "x-regex-substitutions", path),
            regex=regex,
            iterator=iterator,
            key_value=key_value,
            parser=parser,
            transform=transform,
            allow_non_json=allow_non_json,
            mapping=self.mapping(schema, path),
            mapping_regex=self.replacements(schema, "x-mapping-regex", path) if "x-mapping-regex" in schema else None,
            has_properties="properties" in schema,
            properties=properties,
            property_names=frozenset(name for name, _ in properties),
            additional=additional,
            required=self.required(schema, path),
            items=items,
            prefix_items=prefix_items,
        )

    def node_type(self, schema: dict[str, Any], path: Path) -> str | None:
        node_type = schema.get("type")
        if node_type is None and "type" not in schema:
            return None
        if not isinstance(node_type, str) or node_type not in TYPES:  # [SCHEMA-4]
            self.fail("invalid-keyword", (*path, "type"), f"unsupported type {node_type!r}")
            return None
        return node_type

    def compile_regex(self, pattern: Any, path: Path) -> re.Pattern[str] | None:
        if not isinstance(pattern, str):  # [SCHEMA-6]
            self.fail("invalid-keyword", path, f"a regex must be a string, not {json_kind(pattern)}")
            return None
        try:
            return re.compile(pattern, re.DOTALL)  # [REGEX-1]
        except (re.error, RecursionError, OverflowError, ValueError) as exc:
            self.fail("invalid-regex", path, f"regex does not compile: {exc}")
            return None

    def pattern(self, schema: dict[str, Any], key: str, path: Path) -> re.Pattern[str] | None:
        if key not in schema:
            return None
        return self.compile_regex(schema[key], (*path, key))

    def check_groups(
        self,
        regex: re.Pattern[str] | None,
        iterator: re.Pattern[str] | None,
        key_value: re.Pattern[str] | None,
        schema: dict[str, Any],
        node_type: str | None,
        path: Path,
    ) -> None:
        chained = any(key in schema for key in ("x-regex-iterator", "x-regex-key-value", "x-parser"))
        if regex is not None:
            where = (*path, "x-regex")
            if regex.groupindex:
                if chained:  # [SCHEMA-10]
                    self.fail(
                        "invalid-regex",
                        where,
                        "an x-regex followed by another stage needs one unnamed group and no named groups",
                    )
                elif node_type in ("string", "integer", "number", "boolean"):  # [SCHEMA-11]
                    self.fail(
                        "invalid-regex", where, f"named groups give an object, which a {node_type} node cannot take"
                    )
            else:
                self.one_unnamed_group(regex, where)  # [REGEX-3]
        if iterator is not None:
            if node_type != "array":  # [ITER-1]
                self.fail("invalid-keyword", (*path, "x-regex-iterator"), "x-regex-iterator needs type 'array'")
            if not iterator.groupindex:
                self.one_unnamed_group(iterator, (*path, "x-regex-iterator"))  # [ITER-3]
        if key_value is not None:
            if node_type != "object":  # [KV-1]
                self.fail("invalid-keyword", (*path, "x-regex-key-value"), "x-regex-key-value needs type 'object'")
            if not {"key", "value"} <= key_value.groupindex.keys():  # [KV-2]
                self.fail(
                    "invalid-regex",
                    (*path, "x-regex-key-value"),
                    "x-regex-key-value needs named groups 'key' and 'value'",
                )

    def one_unnamed_group(self, regex: re.Pattern[str], path: Path) -> None:
        if regex.groups != 1:
            self.fail(
                "invalid-regex",
                path,
                f"a regex without named groups needs exactly one capturing group, not {regex.groups}",
            )

    def replacements(self, schema: dict[str, Any], key: str, path: Path) -> tuple[tuple[re.Pattern[str], str], ...]:
        """x-regex-substitutions ([SUBS-1]) is a list of [pattern, replacement] pairs; x-mapping-regex
        ([MAP-3]) an object of pattern: replacement."""
        if key not in schema:
            return ()
        value, where = schema[key], (*path, key)
        if key == "x-mapping-regex":
            if not isinstance(value, dict):
                self.fail("invalid-keyword", where, "x-mapping-regex must be an object of pattern: replacement")
                return ()
            pairs: list[tuple[Any, Path]] = [([pattern, repl], (*where, pattern)) for pattern, repl in value.items()]
        else:
            if not isinstance(value, list):
                self.fail("invalid-keyword", where, "x-regex-substitutions must be an array of [pattern, replacement]")
                return ()
            pairs = [(pair, (*where, index)) for index, pair in enumerate(value)]
        compiled = []
        for pair, pair_path in pairs:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], str)):
                self.fail("invalid-keyword", pair_path, "a substitution is a [pattern, replacement] pair of strings")
                continue
            pattern = self.compile_regex(pair[0], pair_path)
            if pattern is None:
                continue
            reference = _bad_group_reference(pair[1])
            if reference:  # [SUBS-3] what Python 3.12 refuses, refused on every Python
                self.fail("invalid-regex", pair_path, f"invalid replacement template: {reference}")
                continue
            try:
                pattern.sub(pair[1], "")  # [SUBS-3] compiles the replacement template
            except (re.error, IndexError) as exc:
                self.fail("invalid-regex", pair_path, f"invalid replacement template: {exc}")
                continue
            compiled.append((pattern, pair[1]))
        return tuple(compiled)

    def parser(self, schema: dict[str, Any], path: Path) -> tuple[str | None, Any, bool]:
        args = schema.get("x-parser-args", {})
        if "x-parser-args" in schema:
            if "x-parser" not in schema:  # [ARGS-2]
                self.fail("invalid-keyword", (*path, "x-parser-args"), "x-parser-args needs x-parser")
            if not isinstance(args, dict):
                self.fail("invalid-keyword", (*path, "x-parser-args"), "x-parser-args must be an object")
                args = {}
        for name in args:
            if name not in PARSER_ARGS:  # [ARGS-1]
                self.fail("invalid-keyword", (*path, "x-parser-args", name), f"unknown parser argument {name!r}")
        allow_non_json = args.get("allow_non_json", False)
        if not isinstance(allow_non_json, bool):
            self.fail("invalid-keyword", (*path, "x-parser-args", "allow_non_json"), "allow_non_json must be a boolean")
            allow_non_json = False
        transform = None
        if "transform" in args:
            transform = self.transform(args["transform"], (*path, "x-parser-args", "transform"))
        if "x-parser" not in schema:
            return None, None, False
        parser = schema["x-parser"]
        if not isinstance(parser, str) or parser not in PARSERS:  # [PARSER-1]
            self.fail("unknown-parser", (*path, "x-parser"), f"unknown parser {parser!r}")
            return None, None, False
        return parser, transform, allow_non_json

    def transform(self, expression: Any, path: Path) -> Any:
        """[ARGS-3] A JMESPath expression that compiles and calls only known functions with a valid arity."""
        if not isinstance(expression, str):
            self.fail("invalid-transform", path, "transform must be a JMESPath expression string")
            return None
        try:
            compiled = jmespath.compile(json_literals(expression))
        except (jmespath.exceptions.JMESPathError, ValueError) as exc:
            self.fail("invalid-transform", path, f"invalid JMESPath expression: {exc}")
            return None
        checked = False
        stack = [compiled.parsed]
        while stack:
            ast = stack.pop()
            if ast.get("type") == "function_expression":
                problem = _function_problem(ast["value"], len(ast["children"]))
                if problem:
                    self.fail("invalid-transform", path, problem)
                    return None
                checked = checked or ast["value"] in _MAY_LEAVE_JSON
            stack.extend(child for child in ast.get("children", []) if isinstance(child, dict))
        return Transform(compiled.parsed, checked, compile_search(dict(compiled.parsed), _INTERPRETER))

    def mapping(self, schema: dict[str, Any], path: Path) -> dict[str, Any] | None:
        if "x-mapping" not in schema:
            return None
        mapping = schema["x-mapping"]
        if not isinstance(mapping, dict) or not is_json_value(mapping):  # [MAP-1]
            self.fail("invalid-keyword", (*path, "x-mapping"), "x-mapping must be an object of string: JSON value")
            return None
        return mapping

    def properties(self, schema: dict[str, Any], path: Path, depth: int) -> tuple[tuple[str, Node], ...]:
        if "properties" not in schema:
            return ()
        properties = schema["properties"]
        if not isinstance(properties, dict):  # [SCHEMA-7]
            self.fail("invalid-keyword", (*path, "properties"), "properties must be an object of schemas")
            return ()
        compiled = []
        for name, child in properties.items():
            node = self.node(child, (*path, "properties", name), depth + 1)
            if node is not None:
                compiled.append((name, node))
        return tuple(compiled)

    def additional(self, schema: dict[str, Any], path: Path, depth: int) -> Node | bool:
        value = schema.get("additionalProperties", True)  # [OBJ-6]
        if isinstance(value, bool):
            return value
        if isinstance(value, dict):
            return self.node(value, (*path, "additionalProperties"), depth + 1) or True
        self.fail(
            "invalid-keyword", (*path, "additionalProperties"), "additionalProperties must be a boolean or a schema"
        )
        return True

    def required(self, schema: dict[str, Any], path: Path) -> tuple[str, ...]:
        value = schema.get("required", [])
        if not isinstance(value, list) or not all(isinstance(name, str) for name in value):  # [SCHEMA-7]
            self.fail("invalid-keyword", (*path, "required"), "required must be an array of strings")
            return ()
        return tuple(value)

    def array_children(
        self, schema: dict[str, Any], node_type: str | None, path: Path, depth: int
    ) -> tuple[Node | None, tuple[Node, ...] | None]:
        if node_type != "array":
            return None, None
        if ("items" in schema) == ("prefixItems" in schema):  # [SCHEMA-8]
            self.fail("invalid-keyword", path, "an array node needs exactly one of items and prefixItems")
            return None, None
        if "items" in schema:
            return self.node(schema["items"], (*path, "items"), depth + 1), None
        prefix = schema["prefixItems"]
        if not isinstance(prefix, list) or not prefix:  # [SCHEMA-7]
            self.fail("invalid-keyword", (*path, "prefixItems"), "prefixItems must be a non-empty array of schemas")
            return None, None
        nodes = [self.node(child, (*path, "prefixItems", index), depth + 1) for index, child in enumerate(prefix)]
        return None, tuple(node for node in nodes if node is not None)


def _function_problem(name: str, arity: int) -> str | None:
    entry = _JMESPATH_FUNCTIONS.get(name)
    if entry is None:
        return f"unknown JMESPath function {name}()"
    signature = entry["signature"]
    variadic = bool(signature) and signature[-1].get("variadic", False)
    if arity < len(signature) if variadic else arity != len(signature):
        return (
            f"JMESPath function {name}() takes {len(signature)}{' or more' if variadic else ''} arguments, not {arity}"
        )
    return None


def json_kind(value: Any) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__  # native data only


_TEMPLATE_REFERENCE = re.compile(r"\\\\|\\g<([^>]*)>")  # an escaped backslash, or \g<...>


def _bad_group_reference(template: str) -> str:
    """[SUBS-3] The first ``\\g<...>`` whose inside is neither a group name (an identifier) nor ASCII digits, as
    a message; "" when there is none. (Python 3.10 and 3.11 accept ``\\g< 1>`` and ``\\g<+1>``; 3.12 refuses them.)"""
    for match in _TEMPLATE_REFERENCE.finditer(template):
        inside = match.group(1)
        if inside is not None and not (inside.isascii() and inside.isdigit()) and not inside.isidentifier():
            return f"\\g<{inside}> names no group: a group reference is a name or ASCII digits"
    return ""
