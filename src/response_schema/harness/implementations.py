"""Implementations under test: the reference or another Python callable in process, or any program that
speaks protocol v1 (conformance/PROTOCOL.md) as a subprocess."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

from .. import FEATURES, __version__, compile
from ..jsontext import TooDeep, dumps, load_strict
from ..stream import Stream
from .corpus import Group, Test
from .expect import Outcome, reference_outcomes
from .protocol import (
    ANSWER_DEPTH,
    LINE_LIMIT,
    Info,
    ProtocolFailure,
    hello_request,
    info_of,
    run_request,
    run_results,
    stream_request,
    stream_results,
)

STDERR_KEEP = 64 * 1024  # how much of an implementation's stderr is kept, from the end


class InProcess:
    """An implementation that runs inside the harness: nothing to start, stop or read stderr from."""

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def stderr_tail(self) -> str:
        return ""


class Reference(InProcess):
    """The bundled reference, in process."""

    info = Info("response-schema", __version__, "python", FEATURES, streams=True)

    def run(self, group: Group, tests: list[Test], timeout: float) -> list[Outcome]:
        return reference_outcomes(group.schema, [test.text for test in tests], [test.tools for test in tests])

    def open_stream(self, schema: Any, prefix: str, tools: Any = None) -> Stream:
        return compile(schema).stream(prefix, tools)


class PythonCallable(InProcess):
    """``MODULE:CALLABLE``, in process: ``callable(schema, text)`` returns the output or raises. An exception
    with ``phase`` and ``category`` attributes is a categorized error. The module may set ``FEATURES`` (an
    iterable of feature names) and ``CATEGORIZES_ERRORS`` (default True), and ``STREAM`` for streaming (SPEC
    section 14): ``STREAM(schema, prefix)`` opens a stream with ``feed(text)``, ``finish()`` and ``message``.
    A test with tools (feature typed-arguments, SPEC section 15) calls both with ``tools=`` too."""

    def __init__(self, spec: str) -> None:
        module_name, _, attribute = spec.partition(":")
        if not module_name or not attribute:
            raise ValueError(f"--python needs MODULE:CALLABLE, not {spec!r}")
        module = importlib.import_module(module_name)
        function = module
        for part in attribute.split("."):
            function = getattr(function, part)
        if not callable(function):
            raise ValueError(f"{spec} is not callable")
        self.function: Callable[..., Any] = function
        # Streaming (conformance run --stream): STREAM(schema, prefix) opens a stream with feed, finish, message.
        self.open_stream: Callable[..., Any] | None = getattr(module, "STREAM", None)
        self.info = Info(
            name=spec,
            version=str(getattr(module, "__version__", "")),
            language="python",
            features=frozenset(getattr(module, "FEATURES", ())),
            categorizes_errors=bool(getattr(module, "CATEGORIZES_ERRORS", True)),
            streams=self.open_stream is not None,
        )

    def run(self, group: Group, tests: list[Test], timeout: float) -> list[Outcome]:
        outcomes: list[Outcome] = []
        for test in tests:
            try:
                tools = {} if test.tools is None else {"tools": test.tools}
                outcomes.append({"output": self.function(group.schema, test.text, **tools)})
            except (Exception, SystemExit) as exc:  # any failure of the implementation is its answer
                error = {"phase": getattr(exc, "phase", None), "category": getattr(exc, "category", None)}
                outcomes.append({"error": error | {"message": f"{type(exc).__name__}: {exc}"}})
        return outcomes


PIPE_BUFFER = 1 << 20  # the pipes' buffers: an implementation's long lines are read (or dropped) in few system calls


class Subprocess:
    """One persistent process speaking protocol v1 over JSON lines on stdin and stdout."""

    def __init__(self, command: str, startup_timeout: float = 10.0, line_limit: int = LINE_LIMIT) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("--command is empty (an unset variable?): name the program to run")
        self.startup_timeout = startup_timeout
        self.line_limit = line_limit
        self.process: subprocess.Popen[bytes] | None = None
        # A SimpleQueue, not a Queue: its get waits in C, so a signal's exception (Ctrl-C, Interrupted) comes out of
        # the wait cleanly; Queue.get waits in Python code that a signal can cut between releasing and taking back
        # its lock (Python 3.10: "RuntimeError: release unlocked lock" instead of the interruption).
        self.lines: queue.SimpleQueue[tuple[str, bytes]] = queue.SimpleQueue()
        self.stderr = bytearray()
        self.stderr_lock = threading.Lock()
        self.seq = 0
        self.info = Info(self.argv[0], "", "", frozenset())

    def start(self) -> None:
        """Start the process and say hello; ProtocolFailure when it does not answer properly."""
        self.lines = queue.SimpleQueue()
        try:
            self.process = subprocess.Popen(  # an argv list, never a shell
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=PIPE_BUFFER,
                start_new_session=True,
            )
        except OSError as exc:
            raise ProtocolFailure("crash", f"cannot start {self.argv[0]}: {exc}") from None
        threading.Thread(target=self._read_stdout, args=(self.process, self.lines), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(self.process,), daemon=True).start()
        self.info = info_of(self.request(hello_request(), self.startup_timeout), self.argv[0])

    def run(self, group: Group, tests: list[Test], timeout: float) -> list[Outcome]:
        self.seq += 1
        answer = self.request(run_request(self.seq, group, tests), timeout * len(tests))
        return run_results(answer, self.seq, len(tests))

    def stream(
        self, group: Group, test: Test, chunkings: list[list[str]], timeout: float
    ) -> list[tuple[list[Any], Any]]:
        """Protocol 2: the test streamed once per chunking."""
        self.seq += 1
        answer = self.request(stream_request(self.seq, group, test, chunkings), timeout * len(chunkings))
        return stream_results(answer, self.seq, chunkings)

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        process = self.process
        assert process is not None and process.stdin is not None
        try:
            process.stdin.write(dumps(message).encode("utf-8") + b"\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise ProtocolFailure("crash", f"the process closed its input (exit code {process.poll()})") from None
        kind, line = self._next_line(process, timeout)
        if kind == "eof":
            with contextlib.suppress(subprocess.TimeoutExpired):  # it may close its output and keep running
                process.wait(timeout=2)
            raise ProtocolFailure("crash", f"the process closed its output (exit code {process.poll()})")
        if kind == "oversize":
            raise ProtocolFailure("error", f"an output line longer than {self.line_limit} bytes")
        try:
            answer = load_strict(line.decode("utf-8"))
        except TooDeep:  # the whole line was read: the process is ready for the next request
            raise ProtocolFailure(
                "error", f"the answer nests deeper than {ANSWER_DEPTH} levels", in_sync=True
            ) from None
        except ValueError as exc:  # not JSON, not UTF-8, a repeated key, NaN
            raise ProtocolFailure("error", f"not a JSON line ({exc}): {_preview(line)}") from None
        if not isinstance(answer, dict):
            raise ProtocolFailure("error", f"not a JSON object: {_preview(line)}")
        return answer

    def _next_line(self, process: subprocess.Popen[bytes], timeout: float) -> tuple[str, bytes]:
        """The next stdout line; a process that exits counts as the end of its output, even when children it
        forked keep the pipe open."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.lines.get(timeout=min(0.05, max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                if process.poll() is not None:
                    try:  # what it wrote before exiting may still be on its way through the reader
                        return self.lines.get(timeout=0.2)
                    except queue.Empty:
                        return ("eof", b"")
                if time.monotonic() >= deadline:
                    raise ProtocolFailure("timeout", f"no answer within {timeout:g} s") from None

    def stop(self) -> None:
        """Ask the process to shut down, then make sure that it and everything it started are gone."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            try:
                assert process.stdin is not None
                process.stdin.write(b'{"cmd": "shutdown"}\n')
                process.stdin.close()
                process.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self) -> None:
        process = self.process
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # the whole group: children it forked go too
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self.process = None

    def stderr_tail(self, limit: int = 2000) -> str:
        with self.stderr_lock:
            return bytes(self.stderr[-limit:]).decode("utf-8", "replace")

    def _read_stdout(self, process: subprocess.Popen[bytes], lines: queue.SimpleQueue[tuple[str, bytes]]) -> None:
        stream = process.stdout
        assert isinstance(stream, io.BufferedReader)
        try:
            while True:
                line = stream.readline(self.line_limit + 1)
                if not line:
                    break
                if len(line) > self.line_limit and not line.endswith(b"\n"):
                    _drop_line(stream)
                    lines.put(("oversize", b""))
                    continue
                lines.put(("line", line))
        except (OSError, ValueError):
            pass
        lines.put(("eof", b""))

    def _read_stderr(self, process: subprocess.Popen[bytes]) -> None:
        stream = process.stderr
        assert isinstance(stream, io.BufferedReader)
        try:
            while chunk := stream.read1(65536):
                with self.stderr_lock:
                    self.stderr += chunk
                    del self.stderr[:-STDERR_KEEP]
        except (OSError, ValueError):
            pass


def _drop_line(stream: io.BufferedReader) -> None:
    """Read up to the end of the current line and throw it away, a buffer at a time (readline would copy it)."""
    while chunk := stream.peek():
        end = chunk.find(b"\n")
        stream.read(len(chunk) if end < 0 else end + 1)
        if end >= 0:
            return


def _preview(line: bytes, limit: int = 120) -> str:
    text = line.decode("utf-8", "replace").rstrip("\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."
