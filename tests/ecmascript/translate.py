"""SPEC.md appendix A.5, as code: a pattern of the corpus's dialect (Python `re`, DOTALL) as an ECMAScript
pattern for the flags `u` and `s`. Used by the tests to show that every core pattern of the corpus translates and
then matches exactly as Python does. Constructs behind a feature raise Untranslatable."""

from __future__ import annotations

import re

WORD = r"\p{L}\p{N}_"
SPACE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
CLASSES = {"d": r"\p{Nd}", "w": WORD, "s": SPACE}  # contents, to go inside brackets
SYNTAX = set("^$\\.*+?()[]{}|/")
QUANTIFIER = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")


class Untranslatable(ValueError):
    """A construct that A.5 does not translate: it is behind a feature (A.4)."""


def translate(pattern: str) -> tuple[str, str]:
    """The ECMAScript source and extra flags (``i`` or nothing) for ``pattern``."""
    flags, position = "", 0
    multiline = False
    while match := re.match(r"\(\?([a-zA-Z]+)\)", pattern[position:]):
        for flag in match.group(1):
            if flag == "i":
                flags = "i"
            elif flag == "m":
                multiline = True
            elif flag != "s":
                raise Untranslatable(f"inline flag {flag}")
        position += match.end()
    return _Translator(pattern, position, multiline).run(), flags


class _Translator:
    def __init__(self, pattern: str, position: int, multiline: bool) -> None:
        self.pattern = pattern
        self.at = position
        self.multiline = multiline
        self.out: list[str] = []

    def run(self) -> str:
        while self.at < len(self.pattern):
            char = self.pattern[self.at]
            self.at += 1
            if char == "\\":
                self.out.append(self.escape(in_class=False))
            elif char == "[":
                self.char_class()
            elif char == "(":
                self.group()
            elif char == "{":
                self.brace()
            elif char == "}":
                self.out.append("\\}")
            elif char == "^":
                self.out.append(r"(?<![^\n])" if self.multiline else "^")
            elif char == "$":
                self.out.append(r"(?=\n|(?![\s\S]))" if self.multiline else r"(?=\n?(?![\s\S]))")
            elif char in "*+?":
                self.out.append(char)
                self.quantifier_suffix()
            else:
                self.out.append(char)
        return "".join(self.out)

    def quantifier_suffix(self) -> None:
        if self.pattern.startswith("+", self.at):
            raise Untranslatable("possessive quantifier")
        if self.pattern.startswith("?", self.at):
            self.out.append("?")
            self.at += 1

    def brace(self) -> None:
        match = QUANTIFIER.match(self.pattern, self.at - 1)
        if match is None or (not match.group(1) and not match.group(3)):
            self.out.append("\\{")  # Python reads a brace that starts no quantifier as itself
            return
        low, comma, high = match.group(1) or "0", match.group(2) or "", match.group(3) or ""
        self.out.append("{" + low + comma + high + "}")
        self.at = match.end()
        self.quantifier_suffix()

    def group(self) -> None:
        rest = self.pattern[self.at :]
        if named := re.match(r"\?P<(\w+)>", rest):
            self.out.append(f"(?<{named.group(1)}>")
            self.at += named.end()
        elif reference := re.match(r"\?P=(\w+)\)", rest):
            self.out.append(f"\\k<{reference.group(1)}>")
            self.at += reference.end()
        elif rest.startswith("?#"):
            self.at = self.pattern.index(")", self.at) + 1
        elif rest.startswith(("?:", "?=", "?!", "?<=", "?<!")) or not rest.startswith("?"):
            self.out.append("(")
        else:
            raise Untranslatable(f"group ({rest[:3]}")

    def char_class(self) -> None:
        self.out.append("[")
        if self.pattern.startswith("^", self.at):
            self.out.append("^")
            self.at += 1
        first = True
        while True:
            char = self.pattern[self.at]
            self.at += 1
            if char == "]" and not first:
                break
            first = False
            if char == "\\":
                self.out.append(self.escape(in_class=True))
            elif char in "[]":
                self.out.append("\\" + char)
            else:
                self.out.append(char)
        self.out.append("]")

    def escape(self, in_class: bool) -> str:
        char = self.pattern[self.at]
        self.at += 1
        if char.lower() in CLASSES:
            return self.class_escape(char, in_class)
        if char in "0123456789":
            octal = re.match(r"0[0-7]{0,2}|[0-7]{3}", self.pattern[self.at - 1 :])
            if octal and (char == "0" or in_class or len(octal.group()) == 3):
                self.at += len(octal.group()) - 1
                return f"\\u{{{int(octal.group(), 8):x}}}"
            digits = re.match(r"\d{1,2}", self.pattern[self.at - 1 :])
            assert digits is not None
            self.at += len(digits.group()) - 1
            return "\\" + digits.group()
        if char in "bB":
            if in_class:
                return r"\x08" if char == "b" else "B"
            word = f"[{WORD}]"
            boundary = f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"
            return boundary if char == "b" else f"(?!{boundary})"
        simple = {"A": r"(?<![\s\S])", "Z": r"(?![\s\S])", "a": r"\x07"}
        if char in simple:
            return simple[char]
        if char in "nrtfv":
            return "\\" + char
        if char in "xu":
            width = 2 if char == "x" else 4
            return "\\" + char + self.take(width)
        if char == "U":
            return "\\u{" + self.take(8).lstrip("0") + "}"
        if char == "N":
            raise Untranslatable("\\N{NAME}")
        if char in SYNTAX or (in_class and char == "-"):
            return "\\" + char
        return char

    def class_escape(self, char: str, in_class: bool) -> str:
        contents = CLASSES[char.lower()]
        if char.islower():
            return contents if in_class else f"[{contents}]"
        if in_class:
            if char == "D":
                return r"\P{Nd}"
            raise Untranslatable(f"\\{char} inside a class")
        return f"[^{contents}]"

    def take(self, count: int) -> str:
        text = self.pattern[self.at : self.at + count]
        self.at += count
        return text
