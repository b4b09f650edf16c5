"""if() and elseif() conditions as CMake evaluates them, for the static CMake reader (cmakeflags.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from hipconv.builder.cmake_values import UNKNOWN


class Undecided(Exception):
    """An if() condition the static reader cannot evaluate; the message says why."""


_UNARY = frozenset({"EXISTS", "COMMAND", "DEFINED", "TARGET", "POLICY", "TEST", "IS_DIRECTORY", "IS_ABSOLUTE",
                    "IS_SYMLINK"})  # fmt: skip
_BINARY = frozenset(
    {"EQUAL", "LESS", "GREATER", "LESS_EQUAL", "GREATER_EQUAL", "STREQUAL", "STRLESS", "STRGREATER",
     "STRLESS_EQUAL", "STRGREATER_EQUAL", "VERSION_EQUAL", "VERSION_LESS", "VERSION_GREATER",
     "VERSION_LESS_EQUAL", "VERSION_GREATER_EQUAL", "MATCHES", "IN_LIST", "IS_NEWER_THAN", "PATH_EQUAL"}
)  # fmt: skip
_TRUE_VALUES = frozenset({"1", "ON", "YES", "TRUE", "Y"})
FALSE_VALUES = frozenset({"", "0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND"})


class Word(NamedTuple):
    text: str
    quoted: bool  # a quoted argument is never read as a variable's name (CMP0054)


class Condition:
    """if()/elseif() as CMake evaluates it: parentheses, the unary tests, the binary comparisons, NOT, AND, OR,
    variables named by unquoted words; `lookup(name)` gives a variable's value, None when it is not defined.

    Undecided is raised for what depends on what the reader does not run (a variable find_package() sets,
    an imported target, a command CMake may provide)."""

    def __init__(self, lookup: Callable[[str], str | None], known: Callable[[str, str], bool | None]) -> None:
        self.lookup = lookup
        self.known = known  # (COMMAND|TARGET|TEST, name) -> defined, None: cannot tell

    def holds(self, words: Sequence[Word]) -> bool:
        if not words:
            return False
        self.words, self.at = list(words), 0
        value = self._or()
        if self.at < len(self.words):
            raise Undecided(f"cannot read {' '.join(w.text for w in self.words[self.at :])!r}")
        return value

    def _next(self, *keywords: str) -> bool:
        if self.at < len(self.words) and not self.words[self.at].quoted and self.words[self.at].text in keywords:
            self.at += 1
            return True
        return False

    def _or(self) -> bool:
        value = self._and()
        while self._next("OR"):
            value = self._and() or value
        return value

    def _and(self) -> bool:
        value = self._not()
        while self._next("AND"):
            value = self._not() and value
        return value

    def _not(self) -> bool:
        if self._next("NOT"):
            return not self._not()
        return self._primary()

    def _take(self) -> Word:
        if self.at >= len(self.words):
            raise Undecided("an operand is missing")
        self.at += 1
        return self.words[self.at - 1]

    def _primary(self) -> bool:
        if self._next("("):
            value = self._or()
            if not self._next(")"):
                raise Undecided("a parenthesis is not closed")
            return value
        word = self._take()
        if not word.quoted and word.text in _UNARY and self.at < len(self.words):
            return self._unary(word.text, self._take())
        if self.at < len(self.words) and not self.words[self.at].quoted and self.words[self.at].text in _BINARY:
            operator = self._take().text
            return self._binary(word, operator, self._take())
        return self._truth(word)

    def _value(self, word: Word) -> str:
        """An operand: the variable it names (unquoted), else itself."""
        value = word.text if word.quoted else self.lookup(word.text)
        value = word.text if value is None else value
        _decided(value)
        return value

    def _truth(self, word: Word) -> bool:
        _decided(word.text)
        upper = word.text.upper()
        if re.fullmatch(r"-?\d+(\.\d+)?", word.text):
            return float(word.text) != 0
        if upper in _TRUE_VALUES:
            return True
        if is_false(word.text):
            return False
        if word.quoted:
            return False
        value = self.lookup(word.text)
        if value is None:
            return False  # an undefined variable, as CMake reads it
        _decided(value)
        return not is_false(value)

    def _unary(self, test: str, word: Word) -> bool:
        _decided(word.text)
        if test == "DEFINED":
            name = word.text
            if name.startswith("ENV{") and name.endswith("}"):
                raise Undecided(f"{name}: the environment CMake would run in is not known")
            name = name[6:-1] if name.startswith("CACHE{") and name.endswith("}") else name
            value = self.lookup(name)
            if value is not None:
                _decided(value)
            return value is not None
        if test in ("COMMAND", "TARGET", "TEST"):
            known = self.known(test, word.text)
            if known is None:
                raise Undecided(f"{test} {word.text}: it may come from a package or module the reader does not run")
            return known
        if test == "POLICY":
            return bool(re.fullmatch(r"CMP0(0\d\d|1[0-3]\d|14[0-3])", word.text))  # those of CMake 3.25
        path = Path(word.text)
        if test == "IS_ABSOLUTE":
            return path.is_absolute()
        if not path.is_absolute():
            return False
        return {"EXISTS": path.exists, "IS_DIRECTORY": path.is_dir, "IS_SYMLINK": path.is_symlink}[test]()

    def _binary(self, left: Word, operator: str, right: Word) -> bool:
        a, b = self._value(left), self._value(right)
        if operator == "MATCHES":
            try:
                return re.search(b, a) is not None
            except re.error as exc:
                raise Undecided(f"MATCHES {b!r}: {exc}") from None
        if operator in ("EQUAL", "LESS", "GREATER", "LESS_EQUAL", "GREATER_EQUAL"):
            try:
                x, y = float(a), float(b)
            except ValueError:
                return False
            return _compare(operator, (x > y) - (x < y))
        if operator.startswith("STR") or operator == "PATH_EQUAL":
            return _compare(operator.removeprefix("STR").replace("PATH_", ""), (a > b) - (a < b))
        if operator.startswith("VERSION_"):
            v, w = _version(a), _version(b)
            return _compare(operator.removeprefix("VERSION_"), (v > w) - (v < w))
        if operator == "IN_LIST":
            items = self.lookup(right.text) if not right.quoted else None
            _decided(items or "")
            return a in (items or "").split(";")
        raise Undecided(f"{operator}: file times are not compared")


def _compare(operator: str, order: int) -> bool:
    return {
        "EQUAL": order == 0,
        "EQ": order == 0,
        "LESS": order < 0,
        "GREATER": order > 0,
        "LESS_EQUAL": order <= 0,
        "GREATER_EQUAL": order >= 0,
    }.get(operator, order == 0)


def _version(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in re.findall(r"\d+", text)[:4]]
    return tuple(parts + [0] * (4 - len(parts)))


def _decided(value: str) -> None:
    """A value the reader cannot know (cmake_values.UNKNOWN) leaves the condition undecided."""
    if UNKNOWN in value:
        raise Undecided(value.split(UNKNOWN)[1])


def is_false(text: str) -> bool:
    """A constant CMake reads as false."""
    return text.upper() in FALSE_VALUES or text.upper().endswith("-NOTFOUND")
