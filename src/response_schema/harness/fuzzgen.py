"""Random response schemas, and model outputs built from them, for `conformance fuzz` (FUZZING.md).

Plain random text almost never reaches a schema's keywords, so every schema node comes with a sampler that
builds content the node can take: text with its regex's markers around a child's content, JSON for a parser,
`k=v;` pairs for a key-value pattern. The text is then mutated. Everything is drawn from one seeded
``random.Random``, so a seed gives the same pairs every time. A feature the implementation does not declare is
never needed by a generated pair."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Sampler = Callable[[random.Random], Any]
TEXT = string.ascii_letters + string.digits + " .,!?-'"  # no "_": "1_0" is Python-only numeric syntax
TRANSFORMS = ["@", "length(@)", "keys(@)", "values(@)", "to_string(@)", "[0]", "a", "sort(@)", "reverse(@)", "{v: @}"]
BROKEN = [
    ("type", "nope"),
    ("x-regexx", "(a)"),
    ("x-regex", "("),
    ("x-regex", "no group"),
    ("x-regex-iterator", "(a)"),
    ("x-parser", "yaml"),
    ("x-parser-args", {"transform": "foo("}),
    ("items", {}),
    ("additionalProperties", 0),
    ("required", "a"),
    ("prefixItems", []),
    ("x-regex-substitutions", [["a"]]),
    ("x-regex-substitutions", [["(", "x"]]),
    ("x-regex-substitutions", [["(a)", "\\9"]]),
    ("x-regex", "(a)(b)"),
    ("x-regex-key-value", "(?P<key>a)"),
    ("properties", []),
    ("type", ["object"]),
    ("x-parser-args", {"allow_non_json": 1}),
    ("x-parser-args", {"nope": 1}),
    ("x-parser-args", {"transform": "length(@, @)"}),
    ("x-parser-args", {"transform": "nope(@)"}),
    ("x-parser-args", {"transform": 5}),
    ("const", {"k": [1, {"v": None}]}),
]
DEEP_SCHEMA: dict[str, Any] = {"type": "string"}
for _ in range(70):
    DEEP_SCHEMA = {"type": "array", "items": DEEP_SCHEMA}  # deeper than [LIMIT-1]


@dataclass
class Pair:
    """A schema, the inputs to run on it, and the features they need (always among those declared)."""

    schema: Any
    inputs: list[str]
    features: frozenset[str]


class Generator:
    def __init__(self, seed: int, features: frozenset[str], inputs_per_schema: int = 6) -> None:
        self.rng = random.Random(seed)
        self.features = features
        self.inputs_per_schema = inputs_per_schema
        self.markers = 0
        self.used: set[str] = set()

    def pair(self) -> Pair:
        self.markers = 0
        self.used = set()
        rng = self.rng
        schema, sampler = self.text_node(depth=0, root=True)
        if rng.random() < 0.08:
            schema = self.broken(schema)
        originals = [sampler(rng) for _ in range(max(1, self.inputs_per_schema // 2))]
        inputs = originals + [
            self.mutate(rng.choice(originals)) for _ in range(self.inputs_per_schema - len(originals))
        ]
        return Pair(schema, inputs, frozenset(self.used))

    # Nodes that receive a string

    def text_node(self, depth: int, root: bool = False) -> tuple[dict[str, Any], Sampler]:
        rng = self.rng
        choices: list[Callable[[int], tuple[dict[str, Any], Sampler]]] = [self.object_from_text] * (3 if root else 1)
        if depth < 3:
            choices += [self.iterator, self.key_value, self.json_parser, self.named_groups]
            if "gemma4-tool-call" in self.features:
                choices.append(self.gemma_parser)
        if not root:
            choices += [self.leaf_text] * 4
        schema, sampler = rng.choice(choices)(depth)
        if rng.random() < 0.15 and not any(key.startswith("x-regex") for key in schema):
            schema, sampler = self.substitution(schema, sampler)
        return schema, sampler

    def marker(self) -> tuple[str, str]:
        self.markers += 1
        name = f"t{self.markers}"
        return f"<{name}>", f"</{name}>"

    def wrapped(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        """A node that finds its part of the text between two markers, then processes it as a text node."""
        schema, inner = self.text_node(depth + 1)
        opening, closing = self.marker()
        group = self.rng.choice(["(.*?)", "(.*?)", "(.*?)", "(.*)", "(?:!|(.+?))"])  # the last takes no part on "!"
        pattern = f"{_escape(opening)}{group}{_escape(closing)}"
        schema = {"x-regex": pattern, **schema} if "x-regex" not in schema else {"x-regex": pattern, "type": "string"}

        def sample(rng: random.Random) -> str:
            roll = rng.random()
            if roll < 0.8:
                return f"{opening}{inner(rng)}{closing}"
            return f"{opening}!{closing}" if roll < 0.9 else _noise(rng)

        return schema, sample

    def object_from_text(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        rng = self.rng
        names = rng.sample(["role", "content", "thinking", "a", "b", "c", "tool_calls"], rng.randint(1, 3))
        properties: dict[str, Any] = {}
        samplers: list[Sampler] = []
        for name in names:
            if rng.random() < 0.15:
                properties[name] = {"const": rng.choice(["assistant", 1, None, True, [1]])}
                continue
            child, sampler = self.wrapped(depth)
            properties[name] = child
            samplers.append(sampler)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if rng.random() < 0.2:
            schema["required"] = [rng.choice(names)]

        def sample(rng: random.Random) -> str:
            parts = [sampler(rng) for sampler in samplers]
            rng.shuffle(parts)
            return _noise(rng).join(parts) if parts else _noise(rng)

        return schema, sample

    def named_groups(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        rng = self.rng
        leaves = [self.leaf_text(depth) for _ in range(2)]
        if rng.random() < 0.3:
            leaves[1][0]["default"] = "none"
        schema = {
            "type": "object",
            "x-regex": r"(?P<a>[^|]*)\|(?P<b>[^|]*)" if rng.random() < 0.7 else r"(?P<a>[^|]*)\|(?:(?P<b>[^|]+))?",
            "properties": {"a": leaves[0][0], "b": leaves[1][0]},
        }

        def sample(rng: random.Random) -> str:
            return f"{leaves[0][1](rng)}|{leaves[1][1](rng) if rng.random() < 0.8 else ''}"

        return schema, sample

    def iterator(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        item, inner = self.text_node(depth + 1)
        opening, closing = self.marker()
        schema = {"type": "array", "x-regex-iterator": f"{_escape(opening)}(.*?){_escape(closing)}", "items": item}

        def sample(rng: random.Random) -> str:
            return _noise(rng).join(f"{opening}{inner(rng)}{closing}" for _ in range(rng.randint(0, 3)))

        return schema, sample

    def key_value(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        rng = self.rng
        schema: dict[str, Any] = {"type": "object", "x-regex-key-value": r"(?P<key>[a-z]+)=(?P<value>[^;]*);"}
        if rng.random() < 0.5:
            schema["properties"] = {"a": self.leaf_text(depth)[0]}
        if rng.random() < 0.3:
            schema["additionalProperties"] = rng.choice([False, {"type": "string"}])

        def sample(rng: random.Random) -> str:
            return "".join(f"{rng.choice('abc')}={_word(rng)};" for _ in range(rng.randint(0, 4)))

        return schema, sample

    def json_parser(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        rng = self.rng
        schema, inner = self.json_node(depth + 1)
        schema = {**schema, "x-parser": "json"}
        args: dict[str, Any] = {}
        if rng.random() < 0.15:
            args["allow_non_json"] = True
        if rng.random() < 0.15:
            args["transform"] = rng.choice(TRANSFORMS)
            schema = {key: value for key, value in schema.items() if key in ("x-parser",)}  # any shape may come out
        if args:
            schema["x-parser-args"] = args

        def sample(rng: random.Random) -> str:
            return json.dumps(inner(rng), ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, None, 1]))

        return schema, sample

    def gemma_parser(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        self.used.add("gemma4-tool-call")
        schema = {"type": "object", "x-parser": "gemma4-tool-call", "properties": {"city": {"type": "string"}}}

        def sample(rng: random.Random) -> str:
            items = [f'{key}:<|"|>{_word(rng)}<|"|>' for key in rng.sample(["city", "unit", "q"], rng.randint(0, 3))]
            if rng.random() < 0.3:
                items.append(f"n:{rng.randint(-5, 50)}")
            return "{" + ",".join(items) + "}"

        return schema, sample

    def substitution(self, schema: dict[str, Any], inner: Sampler) -> tuple[dict[str, Any], Sampler]:
        pairs = self.rng.choice(
            [[["  +", " "]], [["(a)", "\\1\\1"]], [["x", ""]], [["^ +", ""]], [["(?P<d>[0-9])", "<\\g<d>>"]]]
        )
        return {"x-regex-substitutions": pairs, **schema}, inner

    def leaf_text(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        rng = self.rng
        kind = rng.choice(["string", "string", "integer", "number", "boolean", "any", None])
        schema: dict[str, Any] = {"type": kind} if kind else {}

        def sample(rng: random.Random) -> str:
            if kind == "integer":
                return rng.choice(["", " ", "+", "-"]) + str(rng.randint(0, 10**6)) + rng.choice(["", " ", "\n"])
            if kind == "number":
                return rng.choice([str(rng.randint(-99, 99)), f"{rng.uniform(-1e3, 1e3):.3f}", "1e3", ".5"])
            if kind == "boolean":
                return rng.choice(["true", "false", "True", "FALSE", "1", "0", "yes"])
            return _noise(rng)

        return schema, sample

    # Nodes that receive a JSON value

    def json_node(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        rng = self.rng
        choices: list[Callable[[int], tuple[dict[str, Any], Sampler]]] = [self.json_leaf] * 3
        if depth < 4:
            choices += [self.json_object, self.json_object, self.json_array]
        return rng.choice(choices)(depth)

    def json_object(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        rng = self.rng
        names = rng.sample(["name", "arguments", "a", "b", "id"], rng.randint(1, 3))
        children = {name: self.json_node(depth + 1) for name in names}
        properties: dict[str, Any] = {name: dict(child[0]) for name, child in children.items()}
        for name in names:
            roll = rng.random()
            if roll < 0.12:
                properties[name]["default"] = rng.choice(["d", 0, None, [1]])
            elif roll < 0.2:
                properties[name] = {"const": rng.choice(["function", 1, None])}
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        extra = rng.random()
        if extra < 0.2:
            schema["additionalProperties"] = False
        elif extra < 0.3:
            schema["additionalProperties"] = {"type": "string"}
        if rng.random() < 0.15:
            schema["required"] = [rng.choice(names)]

        def sample(rng: random.Random) -> dict[str, Any]:
            value = {name: child[1](rng) for name, child in children.items() if rng.random() < 0.85}
            if rng.random() < 0.1 and value:
                value[next(iter(value))] = None
            if rng.random() < 0.25:
                value[rng.choice(["x", "extra"])] = rng.choice([_word(rng), 1, None])
            return value

        return schema, sample

    def json_array(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        rng = self.rng
        if rng.random() < 0.7:
            item, inner = self.json_node(depth + 1)
            return {"type": "array", "items": item}, lambda rng: [inner(rng) for _ in range(rng.randint(0, 3))]
        parts = [self.json_node(depth + 1) for _ in range(rng.randint(1, 2))]
        schema = {"type": "array", "prefixItems": [part[0] for part in parts]}

        def sample(rng: random.Random) -> list[Any]:
            values = [part[1](rng) for part in parts]
            return values[:-1] if rng.random() < 0.1 else values

        return schema, sample

    def json_leaf(self, depth: int) -> tuple[dict[str, Any], Sampler]:
        rng = self.rng
        if rng.random() < 0.15:
            return self.wrapped(depth)  # a string in the JSON that a regex takes apart
        kind = rng.choice(["string", "integer", "number", "boolean", "any", None])
        schema: dict[str, Any] = {"type": kind} if kind else {}
        big = "big-integers" in self.features
        whole_doubles = "json-number-kinds" in self.features

        def sample(rng: random.Random) -> Any:
            roll = rng.random()
            if roll < 0.6:
                if kind == "integer":
                    return rng.randint(-(10**20 if big else 10**6), 10**20 if big else 10**6)
                if kind == "number":
                    return rng.choice([rng.randint(-9, 9), round(rng.uniform(-9, 9), 2)])
                if kind == "boolean":
                    return rng.random() < 0.5
                if kind == "string":
                    return _noise(rng)
            pool: list[Any] = [None, True, 0, 1, -3, 2.5, "", "7", "x", [], {}, [1, "a"], {"k": 1}]
            if whole_doubles:
                pool.append(7.0)
            return rng.choice(pool)

        return schema, sample

    # Mutations and broken schemas

    def mutate(self, text: str) -> str:
        rng = self.rng
        pieces = ["", "\n", "<", ">", "{", "}", "[", "]", '"', "\\", ":", ",", ";", "=", "|", "ü", "😀", "\t"]
        numbers = ["1e400", "NaN", "-0", "1.5", "00"]
        if "big-integers" in self.features:
            numbers.append("123456789012345678901234567890")
        roll = rng.random()
        at = rng.randint(0, len(text))
        if roll < 0.2:
            return text[:at]
        if roll < 0.35:
            return text[:at] + text[rng.randint(at, len(text)) :]
        if roll < 0.65:
            return text[:at] + rng.choice(pieces) + text[at:]
        if roll < 0.8:
            return text[:at] + rng.choice(numbers) + text[at:]
        if roll < 0.88:
            return text.replace("[", "[" * 300, 1) if "[" in text else "[" * 300 + text
        if roll < 0.94:
            return ""
        return text + text

    def broken(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The schema with a mistake at its root, or one nested too deep (the const entry is no mistake)."""
        if self.rng.random() < 0.05:
            return {"type": "object", "properties": {"deep": DEEP_SCHEMA}}
        key, value = self.rng.choice(BROKEN)
        return {**schema, key: value}


def _escape(marker: str) -> str:
    return marker.replace("|", "\\|")


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 6)))


def _noise(rng: random.Random) -> str:
    return "".join(rng.choice(TEXT) for _ in range(rng.randint(0, 12)))
