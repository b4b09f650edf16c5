"""CMake's syntax, read losslessly: command invocations with their arguments and byte offsets."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

_CMAKE_TOKEN = re.compile(
    rb"""
    (?P<comment>\#\[(?P<eq1>=*)\[.*?\](?P=eq1)\]|\#[^\n]*)
  | (?P<bracket>\[(?P<eq2>=*)\[.*?\](?P=eq2)\])
  | (?P<quoted>"(?:\\.|[^"\\])*")
  | (?P<open>\()
  | (?P<close>\))
  | (?P<space>\s+)
  | (?P<word>(?:\\.|[^\s()\#"\\])(?:\\.|[^\s()"\\])*)
  | (?P<other>.)
""",
    re.X | re.S,
)


class Arg(NamedTuple):
    kind: str  # word | quoted | bracket (| comment: Command.comments)
    text: str  # as written (quotes included)
    start: int
    end: int

    @property
    def value(self) -> str:
        return self.text[1:-1] if self.kind == "quoted" else self.text


class Command(NamedTuple):
    name: str
    start: int
    end: int  # just after the closing parenthesis
    args: tuple[Arg, ...]
    indent: str
    comments: tuple[Arg, ...] = ()  # the comments between its parentheses (kind "comment")


def cmake_commands(body: bytes) -> Iterator[Command]:
    """Every command invocation `name(args)` of a CMake file, comments and nested parentheses handled."""
    tokens = [(m.lastgroup, m.start(), m.end()) for m in _CMAKE_TOKEN.finditer(body)]
    i = 0
    while i < len(tokens):
        kind, start, end = tokens[i]
        i += 1
        if kind != "word" or not re.fullmatch(rb"[A-Za-z_]\w*", body[start:end]):
            continue
        j = i
        while j < len(tokens) and tokens[j][0] == "space" and b"\n" not in body[tokens[j][1] : tokens[j][2]]:
            j += 1
        if j >= len(tokens) or tokens[j][0] != "open":
            continue
        depth, j = 1, j + 1
        args: list[Arg] = []
        comments: list[Arg] = []
        while j < len(tokens) and depth:
            k, s, e = tokens[j]
            depth += (k == "open") - (k == "close")
            if k in ("word", "quoted", "bracket", "comment"):
                (comments if k == "comment" else args).append(Arg(k, body[s:e].decode("utf-8"), s, e))
            j += 1
        line_start = body.rfind(b"\n", 0, start) + 1
        indent = body[line_start:start].decode("utf-8")
        name, indent = body[start:end].decode("utf-8"), indent if not indent.strip() else ""
        yield Command(name, start, tokens[j - 1][2], tuple(args), indent, tuple(comments))
        i = j


def drop_span(body: bytes, start: int, end: int) -> tuple[int, int]:
    """The bytes to delete with body[start:end]: its whole line when nothing else is on it, else the blanks
    before it too."""
    line_start = body.rfind(b"\n", 0, start) + 1
    line_end = body.find(b"\n", end)
    line_end = len(body) if line_end < 0 else line_end
    if not body[line_start:start].strip() and not body[end:line_end].strip():
        return line_start, min(line_end + 1, len(body))
    while start > line_start and body[start - 1 : start] in (b" ", b"\t"):
        start -= 1
    return start, end


def comment_texts(body: bytes) -> list[bytes]:
    """The comments of a CMake file (line and bracket comments), in order."""
    return [m.group() for m in _CMAKE_TOKEN.finditer(body) if m.lastgroup == "comment"]
