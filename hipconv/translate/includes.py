"""Include directives: the include paths the rules rewrite, and the runtime header kept before the HIP ones."""

from __future__ import annotations

import bisect
from typing import NamedTuple

from hipconv.rules.model import Action, Resolution
from hipconv.translate.compat import shim_include
from hipconv.translate.directives import Directives, Includes, directive_last_token, logical_line_end
from hipconv.translate.edits import Edit, Part
from hipconv.translate.found import Found
from hipconv.translate.lexer import NEWLINE, TokenKind, Tokens, after_splice, unsplice
from hipconv.translate.status import apply_resolution
from hipconv.translate.syntax import Span, next_code

_INCLUDE_DIRECTIVES = ("include", "include_next", "import")
INSERT_RULE_ID = "insert.top"  # the id of the lines inserted at the top (defines, the runtime include) and
# of the removal of a runtime include that came after a HIP header (it moves to the top)


def _include_path(tokens: Tokens, name_i: int, last: int) -> Span | None:
    """The span of the path of `#include "path"` or `#include <path>` (the directive's tokens end at
    `last`); None for a computed include, or none."""
    body = tokens.body
    j = next_code(tokens, name_i)
    if j > last:
        return None
    first = tokens.raw(j)
    if tokens.kinds[j] == TokenKind.LITERAL and first.startswith(b'"'):
        close = first.rfind(b'"')  # not the token's end: `"path"x` carries a suffix
        return (tokens.starts[j] + 1, tokens.starts[j] + close) if close > 0 else None
    if first == b"<":
        close = body.find(b">", tokens.ends[j], logical_line_end(body, tokens.ends[j]))
        return None if close == -1 else (tokens.ends[j], close)
    return None


class _Include(NamedTuple):
    hash_i: int  # the `#` token
    path_span: Span
    path: str  # as written
    resolution: Resolution | None
    written: str  # the path as the translation writes it


def match_includes(c: Found, directives: Directives, *, runtime_first: bool) -> Includes:
    """Rewrite include paths. `runtime_first`: the runtime header must come before the file's first HIP
    header (a .cu file or a header); when the file includes it after one, that include is removed, and
    the caller inserts the runtime again before the first HIP header (Includes.runtime is False)."""
    tokens, body, table = c.tokens, c.tokens.body, c.table
    found = []
    for hash_i, name_i, name in directives.lines:
        if name not in _INCLUDE_DIRECTIVES:
            continue
        path_span = _include_path(tokens, name_i, directive_last_token(tokens, hash_i))
        if path_span is None:
            continue
        path = unsplice(body[path_span[0] : path_span[1]]).decode()  # `<cuda_\<newline>runtime.h>` too
        resolution = table.includes.get(path)
        written = resolution.rule.hip if resolution and resolution.rewrites and resolution.rule else None
        found.append(_Include(hash_i, path_span, path, resolution, written or path))
    runtimes = [n for n, f in enumerate(found) if table.runtime_header in (f.path, f.written)]
    runtime = runtimes[0] if runtimes else None
    hip = next((n for n, f in enumerate(found) if f.written in table.hip_headers and n not in runtimes), None)
    late = runtime is not None and hip is not None and hip < runtime
    moved = found[runtime] if late and runtime_first and runtime is not None else None
    if moved is not None and not _remove_line(c, moved.hash_i):
        moved = None  # a line splice joins code to it: it stays (a second copy, which is harmless)
    for f in found:
        if f.resolution is not None and f.resolution.action is Action.SHIM:
            shim_include(c, f.path_span, f.path, f.resolution)
        elif f.resolution is not None and f is not moved:
            apply_resolution(c, f.path_span[0], f.path_span[1], f.path, f.resolution, rename=True)
    if not runtime_first:  # a .cu file or a header gets the runtime before its first HIP include
        _insert_needed_before(c, found, directives)
    spans = [(tokens.starts[f.hash_i], f.path_span[1] + 1) for f in found]
    hip_line = None
    if hip is not None and found[hip].hash_i in _top_level(tokens, directives):
        hip_line = line_before_splices(body, tokens.starts[found[hip].hash_i])
        hip_line = None if hip_line is None else _after_open_comment(tokens, hip_line)
    runtime_end = None
    if runtime is not None and not (late and runtime_first):
        runtime_end = logical_line_end(body, tokens.ends[directive_last_token(tokens, found[runtime].hash_i)])
        runtime_end -= body[runtime_end - 1 : runtime_end + 1] == b"\r\n"  # a line goes before the whole CRLF
    quoted = any(body[f.path_span[0] - 1 : f.path_span[0]] == b'"' for f in found)
    kept = runtime is not None and not (late and runtime_first)
    return Includes(spans, kept, hip is not None, hip_line, runtime_end, quoted)


def _insert_needed_before(c: Found, found: list[_Include], directives: Directives) -> None:
    """A HIP header that uses what another one declares without including it (its rule's `after`) gets that
    header right above its include, unless the includes before it provide it (that header or the runtime):
    in its #if branch or one around it, or in every branch of an #if group with an #else, as the CUDA header
    it replaces included what it needed itself."""
    by_hash = {f.hash_i: f for f in found}
    levels: list[set[str]] = [set()]  # what the includes so far provide, in each enclosing branch
    groups: list[tuple[list[set[str]], list[bool]]] = []  # per open #if: its finished branches, has an #else
    for hash_i, _, name in directives.lines:
        if name in ("if", "ifdef", "ifndef"):
            groups.append(([], [False]))
            levels.append(set())
        elif name in ("elif", "else", "endif") and groups:
            branches, has_else = groups[-1]
            branches.append(levels.pop())
            has_else[0] |= name == "else"
            if name != "endif":
                levels.append(set())
                continue
            groups.pop()
            if has_else[0]:  # every way through the group includes what each of its branches includes (the
                runtime = c.table.runtime_header  # runtime stands for what a HIP header may need)
                levels[-1] |= {h for h in set().union(*branches) if all(h in b or runtime in b for b in branches)}
        elif (f := by_hash.get(hash_i)) is not None:
            levels[-1] |= _provide_above(c, f, set().union(*levels))


def _provide_above(c: Found, f: _Include, provided: set[str]) -> set[str]:
    """Insert the header f's rule needs above it when `provided` lacks it; what f (and that) provides."""
    rule = f.resolution.rule if f.resolution is not None and f.resolution.rewrites else None
    if rule is None or rule.after is None or provided & {rule.after, c.table.runtime_header}:
        return {f.written}
    line = line_before_splices(c.tokens.body, c.tokens.starts[f.hash_i])
    if line is None:  # a splice joins code to the line: nothing can go above it
        return {f.written}
    line = _after_open_comment(c.tokens, line)
    if line is None:
        return {f.written}
    c.edits.append(Edit.replace(line, line, f"#include <{rule.after}>{c.source.newline_at(line)}", INSERT_RULE_ID))
    return {f.written, rule.after}


def _after_open_comment(tokens: Tokens, line: int) -> int | None:
    """Where a line inserted at `line` is code: after the block comment that the line starts inside, if any
    (`/*` on a line above, `... */#include` on this one), when that comment starts its own line; None when
    code comes before the comment (then the `#include` after it is no directive, and nothing goes there)."""
    k = bisect.bisect_right(tokens.starts, line) - 1
    if k < 0 or tokens.kinds[k] != TokenKind.COMMENT or not tokens.starts[k] < line < tokens.ends[k]:
        return line
    opened = line_before_splices(tokens.body, tokens.starts[k])
    if opened is None or unsplice(tokens.body[opened : tokens.starts[k]]).strip():
        return None
    return tokens.ends[k]


def _top_level(tokens: Tokens, directives: Directives) -> set[int]:
    """The `#` tokens of the directives outside every #if block, the include guard's aside (a first
    `#ifndef X` followed by `#define X`, whose #endif is the file's last directive)."""
    lines = directives.lines
    depths, depth = [], 0  # each directive's depth (an #if and its #endif: the depth outside them)
    for _, _, name in lines:
        depth -= name == "endif"
        depths.append(depth)
        depth += name in ("if", "ifdef", "ifndef")
    guarded = (
        len(lines) >= 3
        and [name for _, _, name in lines[:2]] == ["ifndef", "define"]
        and lines[-1][2] == "endif"
        and depths[-1] == 0
        and min(depths[1:-1]) >= 1
        and tokens.raw(next_code(tokens, lines[0][1])) == tokens.raw(next_code(tokens, lines[1][1]))
    )
    base = 1 if guarded else 0
    return {hash_i for (hash_i, _, _), d in zip(lines, depths) if d == base}


def line_before_splices(body: bytes, pos: int) -> int | None:
    """Where the line holding pos starts, before the blank lines that line splices join to it (a line
    inserted there stays a line of its own); None when a splice joins code to it."""
    line_start = body.rfind(b"\n", 0, pos) + 1
    while after_splice(body, line_start):
        before = body.rfind(b"\n", 0, line_start - 1) + 1
        if unsplice(body[before:line_start]).strip():
            return None
        line_start = before
    return line_start


def _remove_line(c: Found, hash_i: int) -> bool:
    """Remove the preprocessor line starting at token hash_i with its line break, keeping the comments on
    it (on a line of their own), line splices inside it included; False when a splice joins code to it."""
    tokens, body = c.tokens, c.tokens.body
    first, last = hash_i, directive_last_token(tokens, hash_i)
    while (
        first > 0 and tokens.kinds[first - 1] == TokenKind.COMMENT and NEWLINE not in unsplice(_gap(tokens, first - 1))
    ):
        first -= 1  # comments before the `#` on its line
    line_start = body.rfind(b"\n", 0, tokens.starts[first]) + 1
    line_end = logical_line_end(body, tokens.ends[last])
    if line_before_splices(body, line_start) is None:
        return False  # (blank lines spliced onto it stay: joined to the next line, they still read as nothing)
    comments: list[Part] = []
    for k in range(first, last + 1):
        if tokens.kinds[k] == TokenKind.COMMENT:
            comments += [" "] * bool(comments) + [(tokens.starts[k], tokens.ends[k])]
    if comments:  # the line keeps its comments: the code around them does not change
        c.edits.append(Edit(line_start, line_end, tuple(comments), INSERT_RULE_ID))
    else:
        c.edits.append(Edit.replace(line_start, min(line_end + 1, len(body)), "", INSERT_RULE_ID))
    return True


def _gap(tokens: Tokens, k: int) -> bytes:
    """The bytes between token k and the next one."""
    return tokens.body[tokens.ends[k] : tokens.starts[k + 1]]
