"""Preprocessor directives: where they are, and the include paths the rules rewrite."""

from __future__ import annotations

from typing import NamedTuple

from hipconv.translate.collector import MatchCollector, apply_resolution
from hipconv.translate.lexer import TokenKind, Tokens, unsplice
from hipconv.translate.syntax import Span, next_code, starts_line
from hipconv.translate.words import WORDY_KINDS, token_occurrences

_MESSAGE_DIRECTIVES = (b"error", b"warning")
_INCLUDE_DIRECTIVES = ("include", "include_next", "import")


class Directives(NamedTuple):
    lines: list[tuple[int, int, str]]  # (`#` token index, name token index, directive name)
    message_spans: list[Span]  # the text of #error / #warning lines, which is prose
    defined: set[str]  # macro names the file #defines
    spans: list[Span]  # every preprocessor line, from its `#` to its end (splices and comments followed)


def directive_lines(tokens: Tokens) -> Directives:
    body = tokens.body
    found = []
    message_spans: list[Span] = []
    defined: set[str] = set()
    spans: list[Span] = []
    for i in token_occurrences(tokens, (b"#", b"%:"), (TokenKind.PUNCTUATION,)):
        if not starts_line(tokens, i):
            continue
        last = _directive_last_token(tokens, i)
        spans.append((tokens.starts[i], logical_line_end(body, tokens.ends[last])))
        j = next_code(tokens, i)
        if j > last or tokens.kinds[j] not in WORDY_KINDS:  # `#` alone on its line: a null directive
            continue
        name = tokens.raw(j)
        found.append((i, j, name.decode()))
        if name in _MESSAGE_DIRECTIVES:
            message_spans.append((tokens.ends[j], logical_line_end(body, tokens.ends[j])))
        elif name == b"define":
            k = next_code(tokens, j)
            if k < len(tokens):
                defined.add(tokens.text(k))
    return Directives(found, message_spans, defined, spans)


def _directive_last_token(tokens: Tokens, hash_i: int) -> int:
    """The last token of the preprocessor line starting at token hash_i: the line ends at the first line
    break outside its tokens (a comment may hold line breaks) and not spliced."""
    body, starts, ends = tokens.body, tokens.starts, tokens.ends
    j = hash_i
    while j + 1 < len(tokens) and not _breaks_line(body[ends[j] : starts[j + 1]]):
        j += 1
    return j


def _breaks_line(gap: bytes) -> bool:
    return b"\n" in unsplice(gap)


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


def _include_path(tokens: Tokens, name_i: int) -> Span | None:
    """The span of the path of `#include "path"` or `#include <path>`; None for a computed include."""
    body = tokens.body
    j = next_code(tokens, name_i)
    if j >= len(tokens):
        return None
    first = tokens.raw(j)
    if tokens.kinds[j] == TokenKind.LITERAL and first.startswith(b'"'):
        close = first.rfind(b'"')  # not the token's end: `"path"x` carries a suffix
        return (tokens.starts[j] + 1, tokens.starts[j] + close) if close > 0 else None
    if first == b"<":
        close = body.find(b">", tokens.ends[j], logical_line_end(body, tokens.ends[j]))
        return None if close == -1 else (tokens.ends[j], close)
    return None


def match_includes(c: MatchCollector, directives: Directives) -> tuple[list[Span], bool]:
    """Rewrite include paths; (the spans of the include lines, whether the runtime header is included)."""
    tokens, body = c.tokens, c.tokens.body
    spans: list[Span] = []
    has_runtime = False
    for hash_i, name_i, name in directives.lines:
        if name not in _INCLUDE_DIRECTIVES:
            continue
        path_span = _include_path(tokens, name_i)
        if path_span is None:
            continue
        spans.append((tokens.starts[hash_i], path_span[1] + 1))
        path = body[path_span[0] : path_span[1]].decode()
        resolution = c.table.includes.get(path)
        translated = resolution.rule.hip if resolution and resolution.rewrites and resolution.rule else None
        has_runtime = has_runtime or c.table.runtime_header in (path, translated)
        if resolution is not None:
            apply_resolution(c, path_span[0], path_span[1], path, resolution, rename=True)
    return spans, has_runtime
