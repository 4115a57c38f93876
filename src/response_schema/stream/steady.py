"""Steady feeds: a feed that only makes the open texts longer is sent without running the analysis.

After a run of the analysis, every position it used came from a state it keeps (a search's registers, a scan's
place, a substitution's certain output), from the start of a text, or is the end of a text that grows. Positions
at the end of their text, or one character before it, move with the text; older ones stay (``pike.relative``).
When, after the next chunk, each kept state is where it was counted that way (its ``shape``), and the run read no
description's text near its end (``Analysis.blind``), the next run would do what this one did, on the same
positions but those at the end: its outcome is this one's with every text that ends at the end of its buffer
longer by what that buffer gained. So the feed sends exactly that: the new characters of those texts ([STREAM-6]:
what the output decides, as the run would send it; [STREAM-3]: nothing sent changes). Any other feed runs.

A steady feed does not add to what the analysis remembers of its open texts feed by feed (``Analysis.remembered``:
a long text cut from an open one takes the outcome the open text had when the output ended at or before the cut).
So a run that follows steady feeds and needs such an outcome from before its own feed finds an older one, and may
send less than it would have, to be sent later: sound ([STREAM-6] allows less, never more)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .analysis import Analysis
from .partial import UNKNOWN, Growing, JSONText, OpenText, array_item, array_length, escaped

if TYPE_CHECKING:
    from . import Delta


class Steady:
    """What the last run of a stream's analysis lets the next feeds send without one, while its states keep their
    shapes (``Analysis.steady``): the texts that grow with their buffers (``_growing``), each with what the stream
    sent of it."""

    __slots__ = ("_analysis", "_growing", "_texts")

    def __init__(self, analysis: Analysis, texts: dict[str, Any]) -> None:
        self._analysis, self._texts = analysis, texts
        # [op, pointer, buffer, how far before the buffer's end it ends, where it ends, Growing sent or origins]
        self._growing: list[list[Any]] = []

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
        if not analysis.keep_shapes():
            return None
        steady = cls(analysis, stream_texts)
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
        end = text.base + text.length
        self._growing.append([op, path, text.buffer, text.buffer.length - end, end, kept])

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
        if not self._analysis.steady():
            return None
        deltas: list[Delta] = []
        for growing in self._growing:
            op, path, buffer, lag, end, kept = growing
            now = buffer.length - lag
            if now <= end:
                continue
            piece = buffer.slice(end, now)
            growing[4] = now
            if op == "json":
                sent, source = self._texts[path]
                text = OpenText.span(buffer, source.text.base, now)
                self._texts[path] = (sent + len(piece), JSONText(text, kept))
            else:
                kept.add(piece)
            deltas.append({"op": op, "path": path, "text": piece})
        return deltas
