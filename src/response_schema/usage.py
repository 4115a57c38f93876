"""What both command lines share: argument parsers whose usage errors take one line, and the argument types."""

from __future__ import annotations

import argparse
import math
import sys
from typing import NoReturn

EXIT_USAGE = 2


class CommandLine(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (exit 2), pointing at --help."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see '{self.prog} --help')", file=sys.stderr)
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
