"""A compiled response schema: parse (SPEC.md sections 4 to 8, walk.py) and trace (trace.py)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from . import batch
from .errors import ParseError
from .fast import compile_fast
from .schema import Node, compile_schema, copied
from .stream import Stream
from .tools import Tools
from .trace import trace
from .walk import Walk

_WALK = Walk()  # stateless: one walk serves every parser


class Parser:
    """A compiled response schema (``response_schema.compile``). Immutable, so reusable and safe to share between
    threads (the fast path's code is made at the first parse; two threads may both make it, to the same effect).
    It pickles as its schema, so the same schema gives the same bytes in every process (``datasets`` fingerprints
    the functions it maps by their pickles), and unpickling compiles it again."""

    __slots__ = ("fast", "root", "schema", "walk")

    def __init__(self, schema: dict[str, Any], walk: Walk = _WALK) -> None:
        """``walk`` is the walk that parse uses: a ``Walk`` subclass may change a step (the fuzz tests plant
        bugs this way). By default parse runs the fast path (fast.py), which computes what the walk does; its code
        is generated at the first parse, so a parser only walked or streamed (the harness) never pays for it."""
        self.root: Node = compile_schema(schema)
        self.schema = copied(schema)  # the compiled document, kept from the caller's later changes
        self.walk = walk
        self.fast: Callable[[Any], Any] = self._first_fast if walk is _WALK else functools.partial(walk.node, self.root)

    def _first_fast(self, content: Any) -> Any:
        fast = compile_fast(self.root)
        self.fast = fast
        return fast(content)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Parser, (self.schema,) if self.walk is _WALK else (self.schema, self.walk))

    def parse(self, text: str, prefix: str = "", tools: Any = None) -> Any:
        """The message that ``text`` parses to ([GEN-1]); ``None`` when the root yields no value ([GEN-3]).
        ``prefix`` is what the assistant turn already held before the output, such as a ``<think>\n`` that the
        chat template prefilled: the parse reads ``prefix + text`` ([GEN-5]). ``tools``, the request's function
        definitions (or ``Tools`` made from them once), type the arguments of calls to them (section 15)."""
        whole = prefix + text if type(text) is str and type(prefix) is str else _whole(text, prefix)
        message = self.fast(whole)
        return message if tools is None else (tools if isinstance(tools, Tools) else Tools(tools)).typed(message)

    def parse_walked(self, text: str, prefix: str = "", tools: Any = None) -> Any:
        """``parse`` by the readable walk (walk.py): the reference that the fast path is checked against, and
        where the harness's reference outcomes come from. Same value, same error."""
        return _typed(self.walk.node(self.root, _whole(text, prefix)), _tools(tools))

    def parse_many(self, texts: Iterable[str], prefix: str = "", tools: Any = None, rows: bool = False) -> list[Any]:
        """``parse`` of each text, with errors as values: each item is the message, or the ``ParseError`` the
        text gave (returned, not raised). ``tools`` are read once for the batch. With ``rows``, each item is a
        row of fixed columns, every value a string or null, for Arrow and ``datasets`` (``batch.row``)."""
        typing = _tools(tools)
        results = batch.parse_many(lambda text: _typed(self.fast(_whole(text, prefix)), typing), texts)
        return [batch.row(result) for result in results] if rows else results

    def stream(self, prefix: str = "", tools: Any = None) -> Stream:
        """A stream that parses an output fed in chunks (SPEC section 14): ``feed(text)`` and ``finish()`` return
        deltas, ``message`` is what was sent so far, always a part of the one-shot result (typed by ``tools``,
        [TOOLS-7]). Streams are independent: any number may run on one parser."""
        return Stream(self, prefix, _tools(tools))

    def trace(self, text: str, prefix: str = "") -> dict[str, Any]:
        """What ``parse`` does, node by node, as data: ``{"value": ...}`` or ``{"error": {...}}``, and ``"root"``,
        the record of the root node. A record has the node's ``path``, a preview of its ``content`` (with its
        ``span`` in ``text`` when it is a slice of it), its ``stages`` (each regex match with its span and groups'
        spans, the parser's and the transform's outputs), its ``children``, and its ``value`` or ``error``."""
        return trace(self.root, _whole(text, prefix))

    def __repr__(self) -> str:  # native data only: the API's repr
        root = self.root
        keys = ", ".join(name for name, _ in root.properties)
        return f"<response_schema.Parser type={root.type or 'any'}{f' properties=[{keys}]' if keys else ''}>"


def _tools(tools: Any) -> Tools | None:
    """The tools of a call: None for none, read now when given as definitions ([TOOLS-1])."""
    return tools if tools is None or isinstance(tools, Tools) else Tools(tools)


def _typed(message: Any, typing: Tools | None) -> Any:
    return message if typing is None else typing.typed(message)


def _whole(text: str, prefix: str) -> str:
    """The text a parse reads: the prefix, then the output ([GEN-5])."""
    if isinstance(text, str) and isinstance(prefix, str):
        return prefix + text
    name, value = ("input", text) if not isinstance(text, str) else ("prefix", prefix)  # native data only
    raise ParseError("type-mismatch", "", f"the {name} must be a string, not {type(value).__name__}")
