"""What both command lines share: argument parsers whose usage errors take one line, and the argument types."""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any, NoReturn

EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a tool whose reader went away (`| head`)


class CommandLine(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (exit 2), pointing at --help, and whose help
    fails in one line too when standard output cannot take it (141 for a closed pipe, as every command)."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see '{self.prog} --help')", file=sys.stderr)
        sys.exit(EXIT_USAGE)

    def _print_message(self, message: str, file: Any = None) -> None:
        stream = file or sys.stdout
        try:
            stream.write(message)
            stream.flush()
        except OSError as exc:
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())  # so that exiting prints no second error
            if isinstance(exc, BrokenPipeError):
                sys.exit(EXIT_BROKEN_PIPE)
            print(f"{self.prog}: cannot write standard output: {exc.strerror or exc}", file=sys.stderr)
            sys.exit(EXIT_USAGE)


def seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def count(text: str) -> int:
    """A whole number, zero or more (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number, zero or more")
    return value


def port(text: str) -> int:
    """A TCP port, 0 to 65535 (argparse type)."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535)")
    return int(text)


def plural(number: int, word: str) -> str:
    """``1 test``, ``2 tests``: a count with its noun (the last word takes the ``s``)."""
    return f"{number} {word}" if number == 1 else f"{number} {word}s"
