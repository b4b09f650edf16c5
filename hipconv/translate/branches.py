"""Preprocessor branches: which #if/#elif/#else branch each place of a file is in, the condition under which
a branch is compiled (spelled with the translated names), and putting code under a condition of its own.

Two things that translation made duplicates (two case labels of one value, two definitions of one
signature) clash only where both are compiled; when one of them goes, it goes exactly where the other is
compiled: always (`#if 0`) when the other is compiled wherever it is, else under `#if !(its condition)`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from hipconv.translate.directives import Directives, directive_last_token, logical_line_end
from hipconv.translate.edits import Edit
from hipconv.translate.found import Found
from hipconv.translate.includes import line_before_splices
from hipconv.translate.lexer import NEWLINE, TokenKind, Tokens, unsplice
from hipconv.translate.syntax import is_punct, next_code, prev_code, starts_line


class Branch(NamedTuple):
    chain: int  # the `#` token of the chain's #if/#ifdef/#ifndef
    number: int  # 0 for that #if, then 1, 2 ... for each #elif/#else of the chain


BranchPath = tuple[Branch, ...]  # the branches around a place, outermost first

_OPENERS = ("if", "ifdef", "ifndef")
_ALTERNATIVES = ("elif", "elifdef", "elifndef", "else")


@dataclass(frozen=True)
class Branches:
    """Where the branch path changes (after each conditional directive) and each branch's own test."""

    starts: tuple[int, ...]  # offsets, ascending: from each on, paths[k] holds
    paths: tuple[BranchPath, ...]
    tests: dict[Branch, str | None]  # the directive's test, translated (`defined(X)`); None for #else

    def path(self, offset: int) -> BranchPath:
        k = bisect.bisect_right(self.starts, offset) - 1
        return self.paths[k] if k >= 0 else ()

    def condition(self, branch: Branch) -> str:
        """When `branch` is compiled, given its chain is: the tests before it fail and its own holds."""
        earlier = [f"!{grouped(self.tests[Branch(branch.chain, n)] or '1')}" for n in range(branch.number)]
        own = self.tests[branch]
        return " && ".join(earlier + ([grouped(own)] if own is not None else [])) or "1"


def branches(c: Found, directives: Directives) -> Branches:
    """The branch structure of the file (an #endif without its #if, or the reverse, is taken as it comes)."""
    tokens = c.tokens
    starts: list[int] = [0]
    paths: list[BranchPath] = [()]
    tests: dict[Branch, str | None] = {}
    stack: list[Branch] = []
    span_starts = [a for a, _ in directives.spans]
    for hash_i, name_i, name in directives.lines:
        if name in _OPENERS:
            stack.append(Branch(hash_i, 0))
        elif name in _ALTERNATIVES and stack:
            stack[-1] = Branch(stack[-1].chain, stack[-1].number + 1)
        elif name == "endif" and stack:
            stack.pop()
        else:
            continue
        end = directives.spans[bisect.bisect_right(span_starts, tokens.starts[hash_i]) - 1][1]
        if name != "endif":
            tests[stack[-1]] = _test(c, name, name_i, bisect.bisect_left(tokens.starts, end))
        starts.append(end)
        paths.append(tuple(stack))
    return Branches(tuple(starts), tuple(paths), tests)


def _test(c: Found, name: str, name_i: int, end: int) -> str | None:
    """The test of a conditional directive whose tokens end before token `end`, as an #if expression."""
    if name == "else":
        return None
    rewritten = c.earlier.rewritten_tests.get(c.tokens.starts[name_i])  # an #ifdef version_tests made an #if
    if rewritten is not None:
        return rewritten[1]
    text = translated_text(c, name_i + 1, end)
    if name in ("ifdef", "elifdef"):
        return f"defined({text})"
    if name in ("ifndef", "elifndef"):
        return f"!defined({text})"
    return text


def translated_text(c: Found, first: int, end: int, *, rename: bool = True) -> str:
    """The code of tokens[first:end] as translation writes it (renamed names, the tests version_tests rewrote;
    comments as a space), or, without `rename`, as written."""
    tokens, identifiers = c.tokens, c.table.identifiers
    out: list[str] = []
    through = -1  # the end offset of a rewritten test being passed over
    for k in range(first, end):
        if tokens.kinds[k] == TokenKind.COMMENT or tokens.starts[k] < through:
            continue
        rewritten = c.earlier.rewritten_tests.get(tokens.starts[k]) if rename else None
        if rewritten is not None:
            through = rewritten[0]
            out.append((" " if out else "") + rewritten[1])
            continue
        text = tokens.text(k)
        resolution = identifiers.get(text) if rename and tokens.kinds[k] == TokenKind.IDENTIFIER else None
        rule = resolution.rule if resolution is not None and resolution.rewrites else None
        if rule is not None and rule.hip and rule.params is None and (not rule.defined_only or _tested(tokens, k)):
            text = rule.hip
        if out and (tokens.starts[k] > tokens.ends[k - 1] or tokens.kinds[k - 1] == TokenKind.COMMENT):
            out.append(" ")
        out.append(text)
    return "".join(out)


def _tested(tokens: Tokens, k: int) -> bool:
    """`defined X`, `defined(X)`, or the name of an #ifdef/#ifndef (the first token of this text)."""
    before = prev_code(tokens, k)
    if before >= 0 and is_punct(tokens, before, "("):
        before = prev_code(tokens, before)
    return before < 0 or tokens.raw(before) in (b"defined", b"ifdef", b"ifndef", b"elifdef", b"elifndef")


def coexist(a: BranchPath, b: BranchPath) -> bool:
    """Whether code at two places can be compiled together: no chain has them in different branches."""
    chains = {branch.chain: branch.number for branch in a}
    return all(chains.get(branch.chain, branch.number) == branch.number for branch in b)


class Verdict(NamedTuple):
    """What becomes of a later duplicate: kept (`earlier` empty), dropped (`condition` None), or kept only
    where `condition` fails (the condition under which one of the earlier ones is compiled)."""

    earlier: tuple[int, ...]  # indices (into the earlier paths) of those it clashes with
    condition: str | None


def later_duplicate(b: Branches, earlier: Sequence[BranchPath], later: BranchPath) -> Verdict:
    """The first wins: a later duplicate stays only where no earlier one is compiled."""
    clashing = tuple(n for n, path in enumerate(earlier) if coexist(path, later))
    if not clashing or any(set(earlier[n]) <= set(later) for n in clashing):
        return Verdict(clashing, None)
    alternatives = [
        " && ".join(grouped(b.condition(branch)) for branch in earlier[n] if branch not in later) for n in clashing
    ]
    return Verdict(clashing, " || ".join(grouped(a) for a in alternatives))


_SIMPLE = re.compile(r"!?(?:defined\(\w+\)|\w+)")


def grouped(condition: str) -> str:
    """The condition in parentheses, unless it is one name or one `defined(X)` (negated or not), or is in
    parentheses already."""
    return condition if _SIMPLE.fullmatch(condition) or _parenthesized(condition) else f"({condition})"


def _parenthesized(text: str) -> bool:
    """Whether the `(` that text starts with closes at its end."""
    depth = 0
    for n, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth == 0:
            return n == len(text) - 1 and n > 0
    return False


# why guard() put nothing (HC109)
CUT_BY_DIRECTIVES = "#if/#else/#endif lines in it pair with lines outside it, so no #if can go around it"


def guard(c: Found, first: int, last: int, condition: str | None, why: str, rule_id: str) -> bool:
    """Put tokens[first..last] under `#if 0` (condition None) or `#if !(condition)`, each directive on a
    line of its own, with `why` as a comment on the #if line; False (nothing put) where the conditional
    directives among those tokens do not pair up among themselves, as the guard's lines would pair with them."""
    if not _pairs_up(c.ctx.directives, first, last):
        return False
    tokens, body = c.tokens, c.tokens.body
    nl = c.source.newline_at(tokens.starts[first])
    opening = ("#if 0" if condition is None else f"#if !{grouped(condition)}") + f"  // hipconv: {why}"
    line_start = line_before_splices(body, tokens.starts[first]) if starts_line(tokens, first) else None
    if line_start is not None and _in_comment(tokens, line_start):
        line_start = None  # the line starts inside a block comment (`/* a` then `b */ case X:`): not there
    if line_start is not None:
        c.edits.append(Edit.replace(line_start, line_start, opening + nl, rule_id))
    else:
        c.edits.append(Edit.replace(tokens.starts[first], tokens.starts[first], nl + opening + nl, rule_id))
    c.edits.append(closing_edit(tokens, last, nl, rule_id))
    return True


def _pairs_up(directives: Directives, first: int, last: int) -> bool:
    """Whether the conditional directives between tokens first and last pair up among themselves: each #if
    with its #endif, an #elif or #else inside one (a function body that holds `#endif` then `#if X`, or an
    `#else` of an #if above it, does not)."""
    lines = directives.lines
    depth = 0
    for k in range(bisect.bisect_left(lines, (first,)), len(lines)):
        hash_i, _, name = lines[k]
        if hash_i > last:
            break
        depth += (name in _OPENERS) - (name == "endif")
        if depth < 0 or (depth == 0 and name in _ALTERNATIVES):
            return False
    return depth == 0


def closing_edit(tokens: Tokens, last: int, nl: str, rule_id: str) -> Edit:
    """The `#endif` of a guard whose code ends at token `last`, on a line of its own (translate.vector_ops too):
    right after the token, with a line break after it when code follows on the line or through a splice."""
    body = tokens.body
    end = tokens.ends[last]
    rest = next_code(tokens, last)
    line_last = directive_last_token(tokens, last)  # the line's last token (a block comment may hold line breaks)
    if rest <= line_last and tokens.text(rest) in ("#", "%:"):
        # what a splice or comments join to the guarded code (`}\` then `#include <x>`, `/* c */#x`) would start a
        # line of its own after the #endif, and so become a directive: it stays with the code, under the guard
        # (the #endif goes at the line's end, before a CRLF's CR; before a comment that runs to the file's end)
        line_end = logical_line_end(body, tokens.ends[line_last])
        unclosed = _OPEN_COMMENT.search(body, tokens.ends[-1])  # after the last token: a `/*` never closed
        if unclosed is not None and unclosed.start() < line_end:
            return Edit.replace(unclosed.start(), unclosed.start(), nl + "#endif" + nl, rule_id)
        line_end -= body[line_end - 1 : line_end] == b"\r"
        return Edit.replace(line_end, line_end, nl + "#endif", rule_id)
    return Edit.replace(end, end, nl + "#endif" + ("" if line_ends_after(tokens, last) else nl), rule_id)


_OPEN_COMMENT = re.compile(rb"/(?:\\\r?\n)*\*")  # `/*`, with line splices between its characters too


def _in_comment(tokens: Tokens, offset: int) -> bool:
    """Whether offset is inside a comment token (a line put there would be part of the comment)."""
    k = bisect.bisect_right(tokens.starts, offset) - 1
    return k >= 0 and tokens.kinds[k] == TokenKind.COMMENT and tokens.starts[k] < offset < tokens.ends[k]


def line_ends_after(tokens: Tokens, last: int) -> bool:
    """Whether only blanks and comments follow token `last` on its line (the line break comes before any
    code, outside comments, and the physical line does not end in a line splice): an #endif put right after
    it does not take code, or the next line, into its line."""
    body = tokens.body
    line_end = body.find(b"\n", tokens.ends[last])
    if line_end > 0 and body[:line_end].removesuffix(b"\r").endswith(b"\\"):
        return False  # `}\` then a blank line: `#endif\` would continue onto it
    k = last
    while k + 1 < len(tokens):
        if NEWLINE in unsplice(body[tokens.ends[k] : tokens.starts[k + 1]]):
            return True
        if tokens.kinds[k + 1] != TokenKind.COMMENT:
            return False
        k += 1
    return True
