"""In-process implementations run in a forked worker, so that nothing they do can hang the harness: Python's
``re`` holds the interpreter while it backtracks, and no timeout or signal handler can run in the process that
waits for it. The worker is a fork of the harness (no start-up cost, the same imports and ``sys.path``); the
harness waits for its answers with the per-test timeout, kills it when that passes (a ``timeout`` verdict), and
sees its death as a ``crash``. SIGINT, SIGTERM and SIGHUP reach the harness while it waits."""

from __future__ import annotations

import contextlib
import multiprocessing.connection
import os
import pickle
import signal
import sys
import time
from typing import Any

from .corpus import Group, Test
from .expect import Outcome
from .protocol import ProtocolFailure
from .runner import Implementation


class Forked:
    """``inner``'s ``run``, done in a forked worker with a time limit. Implements the runner's Implementation."""

    def __init__(self, inner: Implementation) -> None:
        self.inner = inner
        self.info = inner.info
        self.pid = 0
        self.connection: multiprocessing.connection.Connection | None = None
        self.busy = False  # a request is out: the worker may be stuck in it

    def start(self) -> None:
        mine, theirs = multiprocessing.Pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker: answer until the harness closes the pipe
            mine.close()
            _work(self.inner, theirs)
        theirs.close()
        self.pid, self.connection = pid, mine

    def run(self, group: Group, tests: list[Test], timeout: float) -> list[Outcome]:
        connection = self.connection
        assert connection is not None
        limit = timeout * len(tests)
        self.busy = True
        try:
            connection.send((group, tests))
            if not connection.poll(limit):
                raise ProtocolFailure("timeout", f"no answer within {limit:g} s (the worker was killed)")
            answer: list[Outcome] = connection.recv()
        except (EOFError, OSError):
            raise ProtocolFailure("crash", f"the worker exited ({self._exit_status()})") from None
        self.busy = False
        return answer

    def stop(self) -> None:
        """Close the pipe (an idle worker then exits by itself, as a tool such as coverage needs it to) and kill
        the worker if it is stuck in a request or has not exited within a second."""
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        if self.pid:
            deadline = time.monotonic() + (0 if self.busy else 1)
            with contextlib.suppress(ChildProcessError):
                while os.waitpid(self.pid, os.WNOHANG)[0] == 0:
                    if time.monotonic() >= deadline:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(self.pid, signal.SIGKILL)
                        os.waitpid(self.pid, 0)
                        break
                    time.sleep(0.002)
            self.pid = 0
            self.busy = False

    def stderr_tail(self) -> str:
        return ""  # the worker writes to the harness's own stderr

    def _exit_status(self) -> str:
        """How the worker ended, once it has (it closed the pipe: it is on its way out)."""
        deadline = time.monotonic() + 2
        try:
            while (reaped := os.waitpid(self.pid, os.WNOHANG))[0] == 0:
                if time.monotonic() > deadline:
                    return "it closed the pipe, still running"
                time.sleep(0.01)
        except ChildProcessError:
            return "already reaped"
        status = reaped[1]
        self.pid = 0
        if os.WIFSIGNALED(status):
            return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
        return f"exit code {os.WEXITSTATUS(status)}"


def _picklable(value: Any) -> bool:
    try:
        pickle.dumps(value)
    except Exception:
        return False
    return True


def _work(inner: Implementation, connection: multiprocessing.connection.Connection) -> Any:
    """The worker's loop; it never returns into the harness's code."""
    code = 0
    try:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)  # the harness decides; the worker just dies
        while True:
            try:
                group, tests = connection.recv()
            except EOFError:
                break
            outcomes = inner.run(group, tests, 0)
            try:
                connection.send(outcomes)  # pickled whole before a byte is written
            except (pickle.PicklingError, TypeError, AttributeError):  # a lambda, a generator: judged as not JSON
                connection.send([o if _picklable(o) else {"output": ("not JSON", repr(o)[:200])} for o in outcomes])
    except BaseException:
        code = 70
    finally:
        sys.stdout.flush()
        os._exit(code)
