"""Preprocessor directives: where each line is, its name, the macros the file defines, and the prose
of #error/#warning lines (read by every matcher through FileContext.directives)."""

from __future__ import annotations

import bisect
from typing import NamedTuple

from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.syntax import Span, next_code, starts_line
from hipconv.translate.words import WORDY_KINDS, token_occurrences

_MESSAGE_DIRECTIVES = (b"error", b"warning")


class Directives(NamedTuple):
    """Immutable all through (tuples and a frozenset): one file's FileContext shares it with every matcher."""

    lines: tuple[tuple[int, int, str], ...]  # (`#` token index, name token index, directive name)
    message_spans: tuple[Span, ...]  # the text of #error / #warning lines, which is prose
    defined: frozenset[str]  # macro names the file #defines
    spans: tuple[Span, ...]  # every preprocessor line, from its `#` to its end (splices and comments followed)


def directive_lines(tokens: Tokens) -> Directives:
    body = tokens.body
    found: list[tuple[int, int, str]] = []
    message_spans: list[Span] = []
    defined: set[str] = set()
    spans: list[Span] = []
    for i in token_occurrences(tokens, (b"#", b"%:"), (TokenKind.PUNCTUATION,)):
        if not starts_line(tokens, i):
            continue
        last = directive_last_token(tokens, i)
        spans.append((tokens.starts[i], logical_line_end(body, tokens.ends[last])))
        j = next_code(tokens, i)
        if j > last or tokens.kinds[j] not in WORDY_KINDS:  # `#` alone on its line: a null directive
            continue
        name = tokens.text(j).encode()  # spliced (`#in\<newline>clude`), the compiler reads it whole
        found.append((i, j, name.decode()))
        if name in _MESSAGE_DIRECTIVES:
            message_spans.append((tokens.ends[j], logical_line_end(body, tokens.ends[j])))
        elif name == b"define":
            k = next_code(tokens, j)
            if k < len(tokens):
                defined.add(tokens.text(k))
    return Directives(tuple(found), tuple(message_spans), frozenset(defined), tuple(spans))


def directive_last_token(tokens: Tokens, hash_i: int) -> int:
    """The last token of the preprocessor line starting at token hash_i: the line ends at the first line
    break outside its tokens (a comment may hold line breaks) and not spliced. Found with `find` and a
    bisect, not by walking the tokens: this runs for every directive, 300,000 `#include`s included."""
    body, starts, ends = tokens.body, tokens.starts, tokens.ends
    pos = ends[hash_i]
    while True:
        nl = body.find(b"\n", pos)
        if nl == -1:
            return len(tokens) - 1
        k = bisect.bisect_right(starts, nl, hash_i) - 1  # the token at or before the line break
        if ends[k] > nl:  # inside the token (a block comment): the line goes on after it
            pos = ends[k]
        elif _spliced(body, ends[k], nl):
            pos = nl + 1
        else:
            return k


def _spliced(body: bytes, gap_start: int, nl: int) -> bool:
    """Whether the line break at nl, in a gap starting at gap_start, follows a backslash of that gap."""
    before = nl - 2 if body[nl - 1 : nl] == b"\r" else nl - 1
    return before >= gap_start and body[before : before + 1] == b"\\"


def logical_line_end(body: bytes, pos: int) -> int:
    """The end of the line holding pos, following line splices."""
    while True:
        nl = body.find(b"\n", pos)
        if nl == -1:
            return len(body)
        if body[nl - 1 : nl] == b"\\" or body[nl - 2 : nl] == b"\\\r":
            pos = nl + 1
            continue
        return nl


class Includes(NamedTuple):
    spans: list[Span]  # the include lines
    runtime: bool  # the runtime header is included, and before every HIP header
    hip: bool  # a HIP header (other than the runtime) is included
    hip_line: int | None  # where the line of the first HIP include starts, when it is at the file's top level
    runtime_end: int | None = None  # where the line of the runtime include ends (its line break), when kept
    quoted: bool = False  # a header is included by a quoted path (a project header, in a .cu file)
