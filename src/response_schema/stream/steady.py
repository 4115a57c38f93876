"""Steady feeds: a feed that only makes the open texts longer is sent without running the analysis.

After a run of the analysis, every position it used came from a state it keeps (a search's registers, a scan's
place, a substitution's certain output), from the start of a text, or is the end of a text that grows. Positions
at the end of their text, or one character before it, move with the text; older ones stay (``pike.relative``).
When, after the next chunk, each kept state is where it was counted that way (its ``shape``), and the run read no
description's text near its end (``Analysis.blind``), the next run would do what this one did, on the same
positions but those at the end: its outcome is this one's with every text that ends at the end of its buffer
longer by what that buffer gained. So the feed sends exactly that: the new characters of those texts ([STREAM-6]:
what the output decides, as the run would send it; [STREAM-3]: nothing sent changes). Any other feed runs.
A substitution's shape is nothing: the analysis reads it only through its output, which only grows and which the
stages after it read with states of their own, and a steady feed advances it as the run would. Only when those
stages read the output to its end is its shape the output's length (``Substitutions.shape``).

A steady feed does not add to what the analysis remembers of its open texts feed by feed (``Analysis.remembered``:
a long text cut from an open one takes the outcome the open text had when the output ended at or before the cut).
So a run that follows steady feeds and needs such an outcome from before its own feed finds an older one, and may
send less than it would have, to be sent later: sound ([STREAM-6] allows less, never more).

Shapes often take turns: a text whose pattern ends ``\\s*$`` holds back a space at the end of the output (it
ends one character before it), then ends with the output again. A stream keeps the steadies of its last few runs
(``Stream._recall``): when the last one does not hold, an earlier one whose states are still the analysis's and
have its shapes again sends the feed (``Steady.holds``), each text from where the stream's sending of it ends,
instead of a run. Marked-up content takes many such turns (a feed that ends at ``<``, at ``</``, at a space), so a
stream keeps eight; one that keeps another shape for the state the last steady tried found changed is passed over
without being tried (``Steady.may_hold``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .analysis import Analysis
from .partial import UNKNOWN, Growing, JSONText, OpenText, array_item, array_length, escaped

if TYPE_CHECKING:
    from . import Delta


class Steady:
    """What the last run of a stream's analysis lets the next feeds send without one, while its states keep their
    shapes (``Analysis.steady``): the texts that grow with their buffers (``_growing``), each with what the stream
    sent of it."""

    __slots__ = ("_analysis", "_by_key", "_changing", "_checks", "_growing", "_texts")

    def __init__(self, analysis: Analysis, checks: list[tuple[Any, ...]], texts: dict[str, Any]) -> None:
        self._analysis, self._checks, self._texts = analysis, checks, texts
        self._changing = analysis.changing(checks)  # what ``feed`` reads (``holds`` reads them all)
        self._by_key = {check[5]: check for check in self._changing}  # (``may_hold``)
        # (op, pointer, buffer, how far before the buffer's end it ends, where it starts, Growing sent or origins)
        self._growing: list[tuple[Any, ...]] = []

    @classmethod
    def after(
        cls,
        analysis: Analysis,
        known: Any,
        texts: dict[str, JSONText],
        sent: Any,
        stream_texts: dict[str, Any],
        settled: dict[str, int],
    ) -> Steady | None:
        """After a run and what the stream sent of it: ``known`` is the outcome's value with its JSON texts taken
        out (None when the root may give no value), ``texts`` those texts (by pointer), ``sent`` what the stream
        has sent, ``stream_texts`` how much of each JSON text it sent, ``settled`` the array items it will not read
        again. None when the next feed must run: the run was not steady, or a growing text is not sent whole."""
        checks = analysis.keep_shapes()
        if checks is None:
            return None
        steady = cls(analysis, checks, stream_texts)
        for path, source in texts.items():  # in the order the feed sends them: JSON texts first
            if path not in stream_texts or stream_texts[path][1] is not source:
                continue  # its value was sent
            if steady._grows(source.text):
                if source.value is not UNKNOWN or stream_texts[path][0] != source.text.length:
                    return None
                steady._add("json", path, source.text, source.origins)
        if known is not None and not steady._appended(known, sent, "", settled):
            return None
        return steady

    @staticmethod
    def _grows(text: OpenText) -> bool:
        """Whether a text ends where its buffer does, or one character before (``Buffer.moving``)."""
        return text.buffer is not None and bool(text.buffer.moving(text.base + text.length))

    def _add(self, op: str, path: str, text: OpenText, kept: Any) -> None:
        self._growing.append((op, path, text.buffer, text.buffer.length - text.base - text.length, text.base, kept))

    def _appended(self, known: Any, sent: Any, path: str, settled: dict[str, int]) -> bool:
        """Find the growing texts ``known`` holds, in the order ``partial.grow`` sends them; False when one of them
        was not sent whole."""
        if isinstance(known, OpenText):
            if not self._grows(known):
                return True
            if not isinstance(sent, Growing) or sent.length != known.length:
                return False
            self._add("append", path, known, sent)
        elif isinstance(known, dict):
            for key, value in known.items():
                if value is not UNKNOWN and not self._appended(value, sent[key], f"{path}/{escaped(key)}", settled):
                    return False
        elif isinstance(known, list):
            for index in range(settled.get(path, 0), array_length(known)):
                if not self._appended(array_item(known, index), sent[index], f"{path}/{index}", settled):
                    return False
        return True

    def feed(self) -> list[Delta] | None:
        """The deltas of the chunk just added to the output, when the analysis stays steady over it; None when it
        does not (the stream runs it)."""
        if not self._analysis.steady(self._changing):
            return None
        deltas: list[Delta] = []
        for op, path, buffer, lag, base, kept in self._growing:
            now = buffer.length - lag
            if op == "json":
                sent = self._texts[path][0]
                if now <= base + sent:
                    continue
                piece = buffer.slice(base + sent, now)
                self._texts[path] = (sent + len(piece), JSONText(OpenText.span(buffer, base, now), kept))
            else:
                if now <= base + kept.length:
                    continue
                piece = buffer.slice(base + kept.length, now)
                kept.add(piece)
            deltas.append({"op": op, "path": path, "text": piece})
        return deltas

    def may_hold(self, differs: tuple[Any, ...] | None) -> bool:
        """False when a check this steady reads is the one a steady tried in this feed found changed
        (``Analysis.differs``: the same state, whose shape holds no text's length) and the shape this steady keeps for
        it is not the one it has now: its ``feed`` would find it changed too. True otherwise."""
        if differs is None:
            return True
        key, state, now = differs
        check = self._by_key.get(key)
        return check is None or check[2] is not state or check[3] is not None or check[4] == now

    def holds(self, sent_at: Callable[[str], Any], ended: set[str]) -> bool:
        """Whether this steady, from a run before the last, may send the next feeds (``Stream``, recalled): the
        states it reads are the ones the next run would read (``Analysis.keeps``), and each text it grows is still
        what the stream sent at its pointer (the same ``Growing``, not ended; a JSON text still open from the
        same place). Then, while its states have its shapes, the next run would do what its run did, and it sends
        each text from where the stream's sending of it ends."""
        if not self._analysis.keeps(self._checks):
            return False
        for op, path, buffer, _, base, kept in self._growing:
            if path in ended:
                return False
            if op == "json":
                if path not in self._texts:
                    return False
                source = self._texts[path][1]
                if source.text.buffer is not buffer or source.text.base != base:
                    return False
            elif sent_at(path) is not kept:
                return False
        return True
