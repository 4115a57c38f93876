"""Files the harness writes: replaced in one step, so that no reader ever sees half of one, and checked
before a run starts, so that a run never ends in a file it cannot write."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) in one step: a temporary file beside it, then a rename. The
    file's permissions are kept. On any failure the old content is untouched (OSError says why)."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        if path.exists():
            shutil.copymode(path, temporary)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


class Outputs:
    """Report files named on the command line, each checked by opening it (without truncating it) before the
    run, and written at the end in one step. ``discard`` removes those that did not exist before."""

    def __init__(self, paths: dict[str, Path | None]) -> None:
        self.paths = {option: path for option, path in paths.items() if path is not None}
        self.created: list[Path] = []
        for option, path in self.paths.items():
            existed = path.exists()
            try:
                with path.open("a", encoding="utf-8"):
                    pass
            except OSError as exc:
                self.discard()
                raise OSError(f"cannot write {option} {path}: {exc.strerror or exc}") from None
            if not existed:
                self.created.append(path)

    def write(self, texts: dict[str, str]) -> None:
        for option, path in self.paths.items():
            write_atomic(path, texts[option])

    def discard(self) -> None:
        for path in self.created:
            with contextlib.suppress(OSError):
                path.unlink()
