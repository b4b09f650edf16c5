"""Statements on the lexer's tokens: where the one holding a token starts and ends. The one home of the idea
for the translator (a rewrite that takes its statement: translate.calls) and `hipconv scan`'s checks
(scan.view.FileView.statement_start, scan.per_warp_array), which import it from here."""

from __future__ import annotations

from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.syntax import is_punct, matching_close, next_code, prev_code

_STATEMENT_HEADS = frozenset({b"if", b"for", b"while", b"do", b"else", b"switch", b"return", b"case", b"default"})
_ENDS = (b";", b"{", b"}")
# what pairs up inside brackets walked over: ( and [ for the whole statement; every bracket, digraphs too,
# for the innermost one (as syntax.matching_open pairs them)
_PAIRED = {b")": 1, b"]": 1, b"(": -1, b"[": -1}
_PAIRED_ALL = {**_PAIRED, b"}": 1, b":>": 1, b"%>": 1, b"{": -1, b"<:": -1, b"<%": -1}


def statement_start(tokens: Tokens, i: int, *, innermost: bool = False) -> int:
    """The first token of the statement (or declaration) that holds token i: the first after the `;`, `{`
    or `}` before it, bracketed text before i walked over whole.

    The translator asks for the whole statement: an unclosed `(` or `[` before i is walked through, to the
    `if (` or `for (` whose head holds i. `innermost` (the scan's checks) stops inside it instead: at the
    start of the argument list, subscript or condition that holds i, at the name a `#define` line defines,
    and after a `)` or `]` whose opener is missing (brackets that #if branches leave unpaired)."""
    paired = _PAIRED_ALL if innermost else _PAIRED
    kinds = tokens.kinds
    depth, unpaired, j = 0, -1, i - 1
    while j >= 0:
        kind = kinds[j]
        if kind == TokenKind.PUNCTUATION:
            t = tokens.raw(j)
            step = paired.get(t, 0) if depth > 0 or t in _PAIRED else 0
            if innermost and depth == 0 and step:
                if step < 0:
                    break  # the `(` or `[` around i
                unpaired = j
            elif t in _ENDS and depth <= 0:
                break
            depth += step
        elif innermost and depth == 0 and kind != TokenKind.COMMENT and _defines(tokens, j):
            break
        j -= 1
    if depth > 0 and innermost:
        j = unpaired
    return next_code(tokens, j)


def _defines(tokens: Tokens, j: int) -> bool:
    return tokens.text(j) == "define" and is_punct(tokens, prev_code(tokens, j), "#")


def statement_bounds(tokens: Tokens, first: int, last: int) -> tuple[int, int] | None:
    """(first token, closing `;`) of the statement around tokens[first..last], or None when it is not a
    plain statement: a control statement's head, a return, or text holding a `#` (only a directive or a
    macro body has one, and a rewrite that adds lines would put it at the start of one)."""
    extent = statement_extent(tokens, first, last)
    if extent is None or tokens.raw(extent[0]) in _STATEMENT_HEADS:
        return None
    begin, end = extent
    if any(is_punct(tokens, k, "#", "%:") for k in range(begin, end)):
        return None
    return extent


def statement_extent(tokens: Tokens, first: int, last: int) -> tuple[int, int] | None:
    """(first token, closing `;`) of the text from the `;`, `{` or `}` before tokens[first..last] to the
    `;` after them, whatever it holds; None when a brace comes first after them."""
    begin = statement_start(tokens, first)
    end = _statement_end(tokens, last)
    return None if begin >= len(tokens) or end is None else (begin, end)


def _statement_end(tokens: Tokens, last: int) -> int | None:
    """The `;` ending the statement that holds token `last`; None when a brace comes first."""
    depth = 0
    for k in range(last + 1, len(tokens)):
        if tokens.kinds[k] != TokenKind.PUNCTUATION:
            continue
        t = tokens.raw(k)
        if t in (b"(", b"["):
            depth += 1
        elif t in (b")", b"]"):
            depth -= 1
        elif t == b";" and depth <= 0:
            return k
        elif t in (b"{", b"}"):
            return None
    return None


def statement_last(tokens: Tokens, j: int, heads: tuple[str, ...]) -> int:
    """The last token of the statement that starts at token j: a block, a control statement (one of `heads`,
    `if`, `while`, `for`, with its parenthesised head and its body), or up to its `;`; len(tokens) when it
    does not end."""
    if is_punct(tokens, j, "{"):
        return matching_close(tokens, j) or len(tokens)
    if 0 <= j < len(tokens) and tokens.text(j) in heads:
        close = matching_close(tokens, next_code(tokens, j))
        return len(tokens) if close is None else statement_last(tokens, next_code(tokens, close), heads)
    while j < len(tokens) and not is_punct(tokens, j, ";"):
        j = (matching_close(tokens, j) or j) if is_punct(tokens, j, "(", "[", "{") else j
        j += 1
    return j
