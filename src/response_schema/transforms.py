"""JMESPath transforms ([ARGS-3]) compiled to closures for the fast path: the expressions the library's schemas
use (paths, comparisons, `&&` and `||`, filters, projections, multi-selects, function calls) become nested Python
functions; any other node of the tree is left to jmespath's interpreter, which evaluates that subtree. Each
closure does what the interpreter's method for its node does, with the interpreter's own equality, truth and
functions (tests/test_fast.py compares them on generated values)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jmespath.visitor

Search = Callable[[Any], Any]


def compile_search(tree: dict[str, Any], interpreter: Any) -> Search:
    """The closure that evaluates ``tree`` (jmespath's parsed expression) as ``interpreter.visit`` does."""
    compiler = _COMPILERS.get(tree["type"])
    if compiler is None:
        return lambda value: interpreter.visit(tree, value)  # not in the subset: the interpreter, exactly
    return compiler(tree, interpreter)


def _children(tree: dict[str, Any], interpreter: Any) -> list[Search]:
    return [compile_search(child, interpreter) for child in tree["children"]]


def _literal(tree: dict[str, Any], interpreter: Any) -> Search:
    literal = tree["value"]
    return lambda value: literal


def _current(tree: dict[str, Any], interpreter: Any) -> Search:
    return lambda value: value


def _field(tree: dict[str, Any], interpreter: Any) -> Search:
    key = tree["value"]

    def field(value: Any) -> Any:
        return value.get(key) if isinstance(value, dict) else None  # a non-object has no fields

    return field


def _chain(tree: dict[str, Any], interpreter: Any) -> Search:  # subexpression, pipe, index_expression
    steps = _children(tree, interpreter)

    def chain(value: Any) -> Any:
        for step in steps:
            value = step(value)
        return value

    return chain


def _comparator(tree: dict[str, Any], interpreter: Any) -> Search:
    if tree["value"] not in ("eq", "ne"):
        return lambda value: interpreter.visit(tree, value)  # ordering: the interpreter's number and string rules
    left, right = _children(tree, interpreter)
    equals = jmespath.visitor._equals  # type: ignore[attr-defined]  # the interpreter's own equality
    first, second = tree["children"]
    for side, literal in ((left, second), (right, first)):
        if literal["type"] == "literal" and type(literal["value"]) is str:
            # beside a string the interpreter's equality is Python's: its rule for 0, 1, true and false needs none
            text = literal["value"]
            if tree["value"] == "eq":
                return lambda value: side(value) == text
            return lambda value: side(value) != text
    if tree["value"] == "eq":
        return lambda value: equals(left(value), right(value))
    return lambda value: not equals(left(value), right(value))


def _and(tree: dict[str, Any], interpreter: Any) -> Search:
    left, right = _children(tree, interpreter)
    is_false = interpreter._is_false

    def and_(value: Any) -> Any:
        matched = left(value)
        return matched if is_false(matched) else right(value)

    return and_


def _or(tree: dict[str, Any], interpreter: Any) -> Search:
    left, right = _children(tree, interpreter)
    is_false = interpreter._is_false

    def or_(value: Any) -> Any:
        matched = left(value)
        return right(value) if is_false(matched) else matched

    return or_


def _multi_select_list(tree: dict[str, Any], interpreter: Any) -> Search:
    items = _children(tree, interpreter)
    return lambda value: None if value is None else [item(value) for item in items]


def _multi_select_dict(tree: dict[str, Any], interpreter: Any) -> Search:
    pairs = [(child["value"], compile_search(child["children"][0], interpreter)) for child in tree["children"]]
    return lambda value: None if value is None else {key: search(value) for key, search in pairs}


def _filter_projection(tree: dict[str, Any], interpreter: Any) -> Search:
    base, project, condition = _children(tree, interpreter)
    is_false = interpreter._is_false

    def filter_projection(value: Any) -> Any:
        items = base(value)
        if not isinstance(items, list):
            return None
        collected = []
        for item in items:
            if not is_false(condition(item)):
                projected = project(item)
                if projected is not None:
                    collected.append(projected)
        return collected

    return filter_projection


def _projection(tree: dict[str, Any], interpreter: Any) -> Search:
    base, project = _children(tree, interpreter)

    def projection(value: Any) -> Any:
        items = base(value)
        if not isinstance(items, list):
            return None
        return [projected for projected in map(project, items) if projected is not None]

    return projection


def _function(tree: dict[str, Any], interpreter: Any) -> Search:
    functions = interpreter._functions
    name = tree["value"]
    if any(child["type"] == "expref" for child in tree["children"]):
        return lambda value: interpreter.visit(tree, value)  # sort_by(@, &key) and the like
    arguments = _children(tree, interpreter)
    spec = functions.FUNCTION_TABLE[name]
    signature = spec["signature"]
    variadic = bool(signature) and signature[-1].get("variadic", False)
    arity = len(arguments) >= len(signature) if variadic else len(arguments) == len(signature)
    if arity and all(not entry["types"] for entry in signature):
        # Nothing for call_function to check (any type, the right number of arguments): call it directly.
        function = spec["function"]
        return lambda value: function(functions, *[argument(value) for argument in arguments])
    call = functions.call_function
    return lambda value: call(name, [argument(value) for argument in arguments])


_COMPILERS: dict[str, Callable[[dict[str, Any], Any], Search]] = {
    "literal": _literal,
    "current": _current,
    "identity": _current,
    "field": _field,
    "subexpression": _chain,
    "pipe": _chain,
    "index_expression": _chain,
    "comparator": _comparator,
    "and_expression": _and,
    "or_expression": _or,
    "multi_select_list": _multi_select_list,
    "multi_select_dict": _multi_select_dict,
    "filter_projection": _filter_projection,
    "projection": _projection,
    "function_expression": _function,
}
