"""JMESPath transforms ([ARGS-3]) compiled to one generated Python function each, for the fast path: the expressions
the library's schemas use (paths, comparisons, `&&` and `||`, filters, projections, multi-selects, function calls)
become straight-line statements on local names; any other node of the tree is left to jmespath's interpreter, which
evaluates that subtree. Each node's statements do what the interpreter's method for its node does, in its order,
with the interpreter's own equality, truth and functions (tests/test_fast.py compares them on generated values).

As in fast.py, nothing of the expression is written into the source (generated.py): keys, literals, functions and
subtrees reach it as names bound in the namespace it runs in (``K3``, ``L4``), so the source depends only on the
expression's shape. A shape nested deeper than ``_DEPTH`` is left to the interpreter (Python limits nested blocks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jmespath.visitor

from . import generated

Search = Callable[[Any], Any]

_DEPTH = 12  # nested blocks (an `&&`, `||`, filter or projection each opens one); deeper: the interpreter


def compile_search(tree: dict[str, Any], interpreter: Any) -> Search:
    """The function that evaluates ``tree`` (jmespath's parsed expression) as ``interpreter.visit`` does."""
    source = _Source(interpreter)
    result, _ = source.value(tree, "v", 1)
    text = "\n".join(["def search(v):", *source.lines, f"    return {result}"])
    search: Search = generated.function(text, "search", source.constants, "<response_schema.transforms>")
    return search


class _Source(generated.Source):
    """The statements of one search function. ``value`` writes the statements that compute a node of the tree on
    the value named ``current`` and gives the name holding the result, with whether that result is always a boolean
    (a comparison's), whose falsity is then ``not``."""

    def __init__(self, interpreter: Any) -> None:
        functions = interpreter._functions
        super().__init__(
            {
                "visit": interpreter.visit,
                "equals": jmespath.visitor._equals,  # type: ignore[attr-defined]  # the interpreter's own equality
                "functions": functions,
                "call": functions.call_function,
            }
        )
        self.interpreter = interpreter
        self.names = 0

    def name(self, stem: str = "t") -> str:
        self.names += 1
        return f"{stem}{self.names}"

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def value(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        write = _WRITERS.get(tree["type"])
        if write is None or depth > _DEPTH:
            return self.visited(tree, current, depth), False
        return write(self, tree, current, depth)

    def visited(self, tree: dict[str, Any], current: str, depth: int) -> str:
        """The interpreter, exactly, on a node outside the subset."""
        result = self.name()
        self.emit(depth, f"{result} = visit({self.constant('T', tree)}, {current})")
        return result

    def false(self, name: str, boolean: bool) -> str:
        """The interpreter's ``_is_false``, written out: its equality tests, in its order."""
        if boolean:
            return f"not {name}"
        return f"({name} == '' or {name} == [] or {name} == {{}} or {name} is None or {name} is False)"

    def literal(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        return self.constant("L", tree["value"]), False  # the interpreter gives the tree's own object too

    def current(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        return current, False

    def field(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        result, key = self.name(), self.constant("K", tree["value"])
        self.emit(depth, f"{result} = {current}.get({key}) if isinstance({current}, dict) else None")
        return result, False  # a non-object has no fields

    def chain(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        """subexpression, pipe, index_expression: each child on the value before it gives."""
        boolean = False
        for child in tree["children"]:
            current, boolean = self.value(child, current, depth)
        return current, boolean

    def comparator(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        if tree["value"] not in ("eq", "ne"):
            return self.visited(tree, current, depth), False  # ordering: the interpreter's number and string rules
        operator = "==" if tree["value"] == "eq" else "!="
        first, second = tree["children"]
        result = self.name()
        for side, literal in ((first, second), (second, first)):
            if literal["type"] == "literal" and type(literal["value"]) is str:
                # beside a string the interpreter's equality is Python's: its rule for 0, 1, true and false needs none
                name, _ = self.value(side, current, depth)
                self.emit(depth, f"{result} = {name} {operator} {self.constant('L', literal['value'])}")
                return result, True
        left, _ = self.value(first, current, depth)
        right, _ = self.value(second, current, depth)
        negation = "" if operator == "==" else "not "
        self.emit(depth, f"{result} = {negation}equals({left}, {right})")
        return result, True

    def and_(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        first, second = tree["children"]
        left, left_boolean = self.value(first, current, depth)
        result = self.name()
        self.emit(depth, f"if {self.false(left, left_boolean)}:")
        self.emit(depth + 1, f"{result} = {left}")
        self.emit(depth, "else:")
        right, right_boolean = self.value(second, current, depth + 1)
        self.emit(depth + 1, f"{result} = {right}")
        return result, left_boolean and right_boolean

    def or_(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        first, second = tree["children"]
        left, left_boolean = self.value(first, current, depth)
        result = self.name()
        self.emit(depth, f"if {self.false(left, left_boolean)}:")
        right, right_boolean = self.value(second, current, depth + 1)
        self.emit(depth + 1, f"{result} = {right}")
        self.emit(depth, "else:")
        self.emit(depth + 1, f"{result} = {left}")
        return result, left_boolean and right_boolean

    def multi_select_list(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        result = self.name()
        self.emit(depth, f"if {current} is None:")
        self.emit(depth + 1, f"{result} = None")
        self.emit(depth, "else:")
        items = [self.value(child, current, depth + 1)[0] for child in tree["children"]]
        self.emit(depth + 1, f"{result} = [{', '.join(items)}]")
        return result, False

    def multi_select_dict(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        result = self.name()
        self.emit(depth, f"if {current} is None:")
        self.emit(depth + 1, f"{result} = None")
        self.emit(depth, "else:")
        pairs = []
        for child in tree["children"]:  # key_val_pair nodes; a repeated key keeps its last value, as a dict does
            value, _ = self.value(child["children"][0], current, depth + 1)
            pairs.append(f"{self.constant('K', child['value'])}: {value}")
        self.emit(depth + 1, f"{result} = {{{', '.join(pairs)}}}")
        return result, False

    def projection(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        """projection and filter_projection: each item of the base's list (a filter's condition true on it)
        projected; the projections that give null left out."""
        base_tree, project_tree, *condition = tree["children"]
        base, _ = self.value(base_tree, current, depth)
        result, item = self.name(), self.name("i")
        self.emit(depth, f"if not isinstance({base}, list):")
        self.emit(depth + 1, f"{result} = None")
        self.emit(depth, "else:")
        self.emit(depth + 1, f"{result} = []")
        self.emit(depth + 1, f"for {item} in {base}:")
        inner = depth + 2
        if condition:
            test, boolean = self.value(condition[0], item, inner)
            self.emit(inner, f"if {self.false(test, boolean)}:")
            self.emit(inner + 1, "continue")
        projected, _ = self.value(project_tree, item, inner)
        self.emit(inner, f"if {projected} is not None:")
        self.emit(inner + 1, f"{result}.append({projected})")
        return result, False

    def function(self, tree: dict[str, Any], current: str, depth: int) -> tuple[str, bool]:
        if any(child["type"] == "expref" for child in tree["children"]):
            return self.visited(tree, current, depth), False  # sort_by(@, &key) and the like
        functions = self.interpreter._functions
        spec = functions.FUNCTION_TABLE[tree["value"]]
        arguments = ", ".join(self.value(child, current, depth)[0] for child in tree["children"])
        signature = spec["signature"]
        count = len(tree["children"])
        variadic = bool(signature) and signature[-1].get("variadic", False)
        arity = count >= len(signature) if variadic else count == len(signature)
        result = self.name()
        if arity and all(not entry["types"] for entry in signature):
            # Nothing for call_function to check (any type, the right number of arguments): call it directly.
            self.emit(depth, f"{result} = {self.constant('F', spec['function'])}(functions, {arguments})")
        else:
            self.emit(depth, f"{result} = call({self.constant('K', tree['value'])}, [{arguments}])")
        return result, False


_WRITERS: dict[str, Callable[[_Source, dict[str, Any], str, int], tuple[str, bool]]] = {
    "literal": _Source.literal,
    "current": _Source.current,
    "identity": _Source.current,
    "field": _Source.field,
    "subexpression": _Source.chain,
    "pipe": _Source.chain,
    "index_expression": _Source.chain,
    "comparator": _Source.comparator,
    "and_expression": _Source.and_,
    "or_expression": _Source.or_,
    "multi_select_list": _Source.multi_select_list,
    "multi_select_dict": _Source.multi_select_dict,
    "filter_projection": _Source.projection,
    "projection": _Source.projection,
    "function_expression": _Source.function,
}
