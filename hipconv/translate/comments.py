"""Comments through rewrites: a rewrite that moves or drops argument text keeps every comment of the
region it replaces, in source order, and never lets a line comment swallow the code after it."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping, Sequence

from hipconv.translate.edits import Part
from hipconv.translate.lexer import Tokens, unsplice
from hipconv.translate.syntax import Span, next_code


def comments_in(tokens: Tokens, region: Span) -> list[Span]:
    """The comment tokens inside region, in order."""
    return [(tokens.starts[i], tokens.ends[i]) for i in tokens.comments_between(*tokens.within(region))]


def keep_comments(tokens: Tokens, region: Span, parts: Sequence[Part], newline: str) -> tuple[Part, ...]:
    """`parts` (the rewrite of region) with each comment that no span part carries put back: before
    the span part it leads in the source (`/*grid=*/ 64`), else after the span part that precedes it,
    else in front. A line comment keeps a line break after it, so the code after it stays code."""
    span_parts = [(n, p) for n, p in enumerate(parts) if not isinstance(p, str)]
    loose = [c for c in comments_in(tokens, region) if not any(a <= c[0] and c[1] <= b for _, (a, b) in span_parts)]
    if not loose:
        return tuple(parts)
    leading: dict[int, list[Span]] = {}  # part index -> the comments just before it
    trailing: dict[int, list[Span]] = {}  # part index (-1: in front of all) -> the comments after it
    for comment in loose:
        code = next_code(tokens, bisect.bisect_left(tokens.starts, comment[0]))
        led = [n for n, p in span_parts if code < len(tokens) and p[0] == tokens.starts[code]]
        if led:
            leading.setdefault(led[0], []).append(comment)
            continue
        before = [(p[1], n) for n, p in span_parts if p[1] <= comment[0]]
        trailing.setdefault(max(before)[1] if before else -1, []).append(comment)
    body = tokens.body
    out: list[Part] = []
    for comment in trailing.get(-1, []):
        out += [comment, _gap(tokens, comment, comment[1], newline) or " "]
    for n, part in enumerate(parts):
        for comment in leading.get(n, []):
            assert not isinstance(part, str)
            out += [comment, _gap(tokens, comment, part[0], newline)]
        out.append(part)
        for comment in trailing.get(n, []):
            assert not isinstance(part, str)
            space = body[part[1] : comment[0]]
            out += [space.decode() if not space.strip() else " ", comment]
            if _is_line_comment(tokens, comment):
                out.append(newline)
    return tuple(out)


def _gap(tokens: Tokens, comment: Span, following: int, newline: str) -> str:
    """What goes between a comment and the code at `following`: the blanks as written when they are
    only blanks, else a space (a line break after a line comment)."""
    text = tokens.body[comment[1] : following]
    line = _is_line_comment(tokens, comment)
    if not text.strip() and (b"\n" in text or not line):
        return text.decode()
    return newline if line else " "


def _is_line_comment(tokens: Tokens, comment: Span) -> bool:
    text = tokens.body[comment[0] : comment[1]]
    return unsplice(text).startswith(b"//")


def code_text(tokens: Tokens, span: Span) -> str:
    """The text of span with each comment turned into a space and line splices removed: the code a
    template (or a check) compares."""
    body, pos = tokens.body, span[0]
    pieces = []
    for start, end in comments_in(tokens, span):
        pieces += [body[pos:start], b" "]
        pos = end
    pieces.append(body[pos : span[1]])
    return unsplice(b"".join(pieces)).decode()


class CodeTexts(Mapping[str, str]):
    """code_text of named spans, each made when first read: a template reads a few of its arguments'
    texts, and making every one up front copies a call nested n deep n times over."""

    def __init__(self, tokens: Tokens, spans: Mapping[str, Span]) -> None:
        self._tokens, self._spans, self._texts = tokens, spans, dict[str, str]()

    def __getitem__(self, name: str) -> str:
        if name not in self._texts:
            self._texts[name] = code_text(self._tokens, self._spans[name])
        return self._texts[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)
