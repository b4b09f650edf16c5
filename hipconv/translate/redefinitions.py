"""Overloads that translation makes one function (issue #22): the CUDA samples' `_cudaGetErrorEnum(cudaError_t)`
and `_cudaGetErrorEnum(CUresult)` both become `_cudaGetErrorEnum(hipError_t)`, a redefinition.

Definitions of one name in one scope of a file whose parameter types differ in CUDA and are the same once
translated: the first stays, and the later one goes where the first is compiled (translate.branches): under
`#if 0`, or `#if !(the first one's condition)`. Its code is still translated, so that a second run changes
nothing. Each is a note (HC013). Only the types that become a type another one becomes too
(LookupTable.merged_types) are looked at, and only in the files that name two of them.
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

from hipconv.diagnostics import UNGUARDED_DUPLICATE
from hipconv.translate.branches import CUT_BY_DIRECTIVES, branches, guard, later_duplicate, translated_text
from hipconv.translate.case_labels import CODE
from hipconv.translate.directives import Directives
from hipconv.translate.found import Found
from hipconv.translate.lexer import COMMENT, IDENTIFIER, KEYWORD, PUNCTUATION, TokenKind, Tokens
from hipconv.translate.syntax import is_punct, matching_close, next_code, prev_code, split_top_level
from hipconv.translate.words import identifier_tokens, inside, token_occurrences

RULE_ID = "overload.redefinition"
# keywords a function name cannot follow (an expression or a statement comes before it)
_NOT_BEFORE_NAME = frozenset({b"return", b"else", b"do", b"case", b"new", b"delete", b"throw", b"sizeof", b"goto"})
# what a parameter's last identifier can follow and still be part of its type, not its name
_TYPE_PREFIXES = frozenset({b"const", b"volatile", b"struct", b"enum", b"class", b"union", b"typename", b"::"})


class _Definition(NamedTuple):
    first: int  # the first token of the declaration
    name: int  # the token of its (last) name
    close: int  # the `}` ending its body
    head: int  # the first token of its (qualified) name
    signature: tuple[str, tuple[str, ...]]  # its name and its parameter types translated
    cuda: tuple[str, ...]  # its parameter types as written


def match_redefinitions(c: Found, directives: Directives, words: frozenset[bytes]) -> None:
    """Guard out the later of two definitions that translation gives one signature (in a file whose words
    hold two types that become one)."""
    types = words & c.table.merged_types
    if len(types) < 2:
        return
    tokens = c.tokens
    starts = [a for a, _ in directives.spans]
    found: dict[int, _Definition] = {}
    for i in identifier_tokens(tokens, types):
        if not inside(directives.spans, starts, tokens.starts[i]) and (d := _definition_around(c, i)):
            found.setdefault(d.name, d)
    scopes = _scopes(tokens, [d.head for d in found.values()])
    groups: dict[tuple[int, tuple[str, tuple[str, ...]]], list[_Definition]] = {}
    for d in sorted(found.values()):  # the same signature in the same braces (or both at the top level)
        groups.setdefault((scopes[d.head], d.signature), []).append(d)
    clashing = [group for group in groups.values() if len({d.cuda for d in group}) > 1]
    if clashing:
        where = branches(c, directives)
        for group in clashing:
            kept: list[_Definition] = []
            for d in group:
                earlier = [e for e in kept if e.cuda != d.cuda]
                paths = [where.path(tokens.starts[e.first]) for e in earlier]
                verdict = later_duplicate(where, paths, where.path(tokens.starts[d.first]))
                if verdict.condition is not None or not verdict.earlier:
                    kept.append(d)
                if verdict.earlier:
                    _drop(c, d, earlier[verdict.earlier[0]], verdict.condition)


def _drop(c: Found, d: _Definition, first: _Definition, condition: str | None) -> None:
    tokens = c.tokens
    name, types = d.signature
    hip = f"{name}({', '.join(types)})"
    line = c.source.line_col(tokens.starts[first.name])[0]
    same = f"it becomes {hip}, as does {name}({', '.join(first.cuda)}) of line {line}"
    at = tokens.starts[d.name]
    if not guard(c, d.first, d.close, condition, f"as translated, a redefinition of {hip} above", RULE_ID):
        written = f"{name}({', '.join(d.cuda)}) left as it is, a redefinition on HIP: {same}; {CUT_BY_DIRECTIVES}"
        c.diag(at, UNGUARDED_DUPLICATE, f"{written}: leave one out of the HIP build by hand", about_api=False)
        return
    if condition is None:
        c.dropped.append((tokens.starts[d.first], tokens.ends[d.close]))  # what it reports is gone with it
        c.diag(at, CODE, f"{name}({', '.join(d.cuda)}) dropped (#if 0; a redefinition on HIP): {same}", about_api=False)
    else:
        where = f"kept only where line {line}'s is not compiled"
        c.diag(at, CODE, f"{name}({', '.join(d.cuda)}) {where} (a redefinition on HIP): {same}", about_api=False)


def _definition_around(c: Found, i: int) -> _Definition | None:
    """The function definition `... name(..., T, ...) { ... }` whose parameter list holds token i."""
    tokens = c.tokens
    open_ = _opening_paren(tokens, i)
    name = prev_code(tokens, open_) if open_ is not None else -1
    if name < 0 or tokens.kinds[name] != IDENTIFIER:
        return None
    close = matching_close(tokens, open_) if open_ is not None else None
    brace = next_code(tokens, close) if close is not None else -1
    end = matching_close(tokens, brace) if is_punct(tokens, brace, "{") else None
    head = _name_start(tokens, name)
    before = prev_code(tokens, head)
    if end is None or close is None or open_ is None or not _declares(tokens, before):
        return None
    if c.directive_around(tokens.starts[before]) is not None:
        return None  # `T *` `#if X` `name(...)`: the return type is cut by a directive line; its guard would be too
    params = split_top_level(tokens, open_ + 1, close)
    if params is None:
        return None
    ranges = [_parameter_type(tokens, span) for span in params]
    qualified = "".join(tokens.text(k) for k in range(head, name + 1) if tokens.kinds[k] != COMMENT)
    hip = tuple(translated_text(c, a, b) for a, b in ranges)
    cuda = tuple(translated_text(c, a, b, rename=False) for a, b in ranges)
    return _Definition(_declaration_start(c, before), name, end, head, (qualified, hip), cuda)


def _opening_paren(tokens: Tokens, i: int) -> int | None:
    """The `(` whose parentheses hold token i, unless a `;` or a brace comes first."""
    depth = 0
    for j in range(i - 1, -1, -1):
        if tokens.kinds[j] != PUNCTUATION:
            continue
        t = tokens.raw(j)
        if t == b")":
            depth += 1
        elif t == b"(":
            if depth == 0:
                return j
            depth -= 1
        elif t in (b";", b"{", b"}"):
            return None
    return None


def _name_start(tokens: Tokens, name: int) -> int:
    """The first token of `A::B::name`."""
    while is_punct(tokens, sep := prev_code(tokens, name), "::") and tokens.kinds[prev_code(tokens, sep)] in (
        TokenKind.IDENTIFIER,
        TokenKind.KEYWORD,
    ):
        name = prev_code(tokens, sep)
    return name


def _declares(tokens: Tokens, before: int) -> bool:
    """Whether the token before a function's name ends a return type (not an expression, not a statement)."""
    if before < 0:
        return False
    if tokens.kinds[before] in (IDENTIFIER, KEYWORD):
        return tokens.raw(before) not in _NOT_BEFORE_NAME
    return is_punct(tokens, before, "*", "&", "&&", ">")


def _declaration_start(c: Found, last: int) -> int:
    """The first token of the declaration whose return type ends at token `last`: after the `;` or brace
    before it, or the preprocessor line, comments left out."""
    tokens = c.tokens
    k = last
    while True:
        j = prev_code(tokens, k)
        if j < 0 or is_punct(tokens, j, ";", "{", "}") or c.directive_around(tokens.starts[j]) is not None:
            return k
        k = j


def _scopes(tokens: Tokens, heads: list[int]) -> dict[int, int]:
    """For each token index of `heads`, the `{` of the innermost braces around it (-1: the file's top level):
    one pass over the file's braces, not a walk back to the file's start for each."""
    braces = token_occurrences(tokens, (b"{", b"}"), (TokenKind.PUNCTUATION,))
    found: dict[int, int] = {}
    opened: list[int] = []
    k = 0
    for head in sorted(heads):
        while k < len(braces) and braces[k] < head:
            if tokens.raw(braces[k]) == b"{":
                opened.append(braces[k])
            elif opened:  # a `}` without its `{` closes nothing
                opened.pop()
            k += 1
        found[head] = opened[-1] if opened else -1
    return found


def _parameter_type(tokens: Tokens, span: tuple[int, int]) -> tuple[int, int]:
    """The tokens [first, end) of a parameter's type: without its default argument and its name."""
    first = bisect.bisect_left(tokens.starts, span[0])
    end = bisect.bisect_left(tokens.starts, span[1])
    code = [k for k in range(first, end) if tokens.kinds[k] != COMMENT]
    equals = next((n for n, k in enumerate(code) if is_punct(tokens, k, "=")), len(code))
    code = code[:equals]
    if len(code) >= 2 and tokens.kinds[code[-1]] == IDENTIFIER and tokens.raw(code[-2]) not in _TYPE_PREFIXES:
        code = code[:-1]
    return (code[0], code[-1] + 1) if code else (first, first)
