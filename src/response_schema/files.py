"""Files as every command reads and writes them: text as strict UTF-8, JSON strictly, standard output as UTF-8,
and outputs written without destroying what is not ours.

An output path is written the way its kind asks: a regular file (or a new one, or one a symlink leads to) is
replaced in one step, so that no reader ever sees half of it and the symlink stays; a FIFO or a device
(``/dev/null``, ``/dev/stdout``, a terminal) is written into, never replaced. Every failure is a ``FileProblem``
with a one-line message that names the file."""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .jsontext import Refused, load_strict

FIFO_WAIT = 10.0  # seconds to wait for a process to open a FIFO for reading before giving up


class FileProblem(Exception):
    """A file that cannot be read or written, or that holds no valid JSON: one line, naming the file."""


def read_text(path: str | Path) -> str:
    """A file's text, or standard input's for '-': bytes decoded as strict UTF-8, nothing converted ([GEN-1])."""
    name = _name(path)
    try:
        if str(path) == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                data = handle.read()
    except OSError as exc:
        raise FileProblem(f"cannot read {name}: {_reason(exc)}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileProblem(f"cannot read {name}: not UTF-8 ({exc.reason} at byte {exc.start})") from None


def read_chunks(path: str | Path, size: int) -> Iterator[str]:
    """A file's text, or standard input's for '-', as it arrives: at most ``size`` bytes a read, decoded as strict
    UTF-8 across the cuts (a character split between two reads comes whole with the second)."""
    name = _name(path)
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    offset = 0
    try:
        with contextlib.ExitStack() as stack:
            handle = sys.stdin.buffer if str(path) == "-" else stack.enter_context(open(path, "rb"))
            read = getattr(handle, "read1", handle.read)
            while True:
                data = read(size)
                text = decoder.decode(data, final=not data)
                offset += len(data)
                if text:
                    yield text
                if not data:
                    return
    except OSError as exc:
        raise FileProblem(f"cannot read {name}: {_reason(exc)}") from None
    except UnicodeDecodeError as exc:
        raise FileProblem(f"cannot read {name}: not UTF-8 ({exc.reason} near byte {offset})") from None


def read_lines(path: str | Path) -> Iterator[str]:
    """A file's lines, or standard input's for '-', one at a time as they arrive (without their line ends), each
    decoded as strict UTF-8: a file of millions of lines is never held whole."""
    name = _name(path)
    number = 0
    try:
        with contextlib.ExitStack() as stack:
            handle = sys.stdin.buffer if str(path) == "-" else stack.enter_context(open(path, "rb"))
            for data in handle:
                number += 1
                yield data.rstrip(b"\r\n").decode("utf-8")
    except OSError as exc:
        raise FileProblem(f"cannot read {name}: {_reason(exc)}") from None
    except UnicodeDecodeError as exc:
        reason = f"line {number} is not UTF-8 ({exc.reason} at byte {exc.start})"
        raise FileProblem(f"cannot read {name}: {reason}") from None


def load_json(path: str | Path) -> Any:
    """A JSON file's value (strict RFC 8259, no repeated keys), or FileProblem naming the file and the problem."""
    text = read_text(path)
    try:
        return load_strict(text)
    except Refused as exc:
        raise FileProblem(f"{_name(path)} {exc}") from None
    except ValueError as exc:
        raise FileProblem(f"{_name(path)} is not valid JSON: {exc}") from None


def write_out(text: str) -> None:
    """Write to standard output as UTF-8, whatever the locale says, all of it (BrokenPipeError when the reader
    went away, even in the middle of a large write, which a buffered write may drop silently)."""
    sys.stdout.flush()
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # a stream without a descriptor (captured in tests)
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.buffer.flush()
        return
    _write_all(descriptor, text.encode("utf-8"))


def write_file(path: str | Path, text: str, name: str = "") -> None:
    """Write ``text`` (UTF-8) to ``path`` as its kind asks (the module's docstring), or raise FileProblem
    (which calls the file ``name``, by default its path)."""
    try:
        if _replaceable(path):
            _replace(Path(os.path.realpath(path)), text)
        else:
            _write_into(path, text.encode("utf-8"))
    except OSError as exc:
        raise FileProblem(f"cannot write {name or path}: {_reason(exc)}") from None


def check_writable(path: str | Path, name: str = "") -> None:
    """Raise FileProblem now if ``write_file(path, ...)`` cannot succeed later; create and open nothing (a FIFO's
    reader is not used up, no empty file is left behind)."""
    try:
        if _replaceable(path):
            real = Path(os.path.realpath(path))
            if real.exists() and not os.access(real, os.W_OK):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
            descriptor, temporary = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
            os.close(descriptor)
            os.unlink(temporary)
        elif not os.access(path, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    except OSError as exc:
        raise FileProblem(f"cannot write {name or path}: {_reason(exc)}") from None


class Outputs:
    """The files a run writes at its end, named by their options: each checked before the run starts, so that
    a run never ends in a file it cannot write, and written only when the run has something to write."""

    def __init__(self, paths: dict[str, Path | None]) -> None:
        self.paths = {option: path for option, path in paths.items() if path is not None}
        for option, path in self.paths.items():
            check_writable(path, f"{option} {path}")

    def write(self, texts: dict[str, Callable[[], str]]) -> None:
        """Render and write the text of each file asked for; a report nobody asked for is not rendered."""
        for option, path in self.paths.items():
            write_file(path, texts[option](), f"{option} {path}")


def _replaceable(path: str | Path) -> bool:
    """Whether ``path`` is a regular file (or none yet) reached by its name, not a descriptor already open (as
    ``/dev/stdout`` and ``/dev/fd/N`` are): only such a file is replaced; FileProblem for a folder or a socket."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return not _through_proc(path)
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "it is a folder")
    if stat.S_ISREG(mode):
        return not _through_proc(path)
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return False
    raise OSError(errno.EINVAL, "not a file, a FIFO or a device")


def _through_proc(path: str | Path) -> bool:
    """Whether ``path`` leads through /proc (``/dev/stdout`` -> ``/proc/self/fd/1``): a descriptor some process
    holds open, whose file must be written into, not replaced behind its back."""
    current = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on a chain of symlinks
        if os.path.realpath(os.path.dirname(current)).startswith("/proc/"):
            return True
        if not os.path.islink(current):
            return False
        current = os.path.join(os.path.dirname(current), os.readlink(current))
    return False


def _replace(path: Path, text: str) -> None:
    """Replace the regular file ``path`` with ``text`` in one step: a temporary file beside it, then a rename.
    The file's permissions are kept. On any failure the old content is untouched."""
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


def _write_into(path: str | Path, data: bytes) -> None:
    """Write into a FIFO or a device (appending, for a file reached through /proc). A FIFO that no process
    reads is waited for FIFO_WAIT seconds, then refused."""
    deadline = time.monotonic() + FIFO_WAIT
    while True:
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
            if time.monotonic() > deadline:
                raise OSError(errno.ENXIO, f"no process read the FIFO within {FIFO_WAIT:.0f} s") from None
            time.sleep(0.05)
    try:
        os.set_blocking(descriptor, True)
        _write_all(descriptor, data)
    finally:
        os.close(descriptor)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def _name(path: str | Path) -> str:
    return "standard input" if str(path) == "-" else str(path)


def _reason(exc: OSError) -> str:
    return str(exc.strerror or exc)
