"""Token-level structure: call argument lists and kernel launches.

Works on the lexer's tokens alone (no AST), so it sees code in every
preprocessor branch and inside macro definitions. Results are plain byte
spans; nothing here knows about rules.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass
from typing import NamedTuple

from hipconv.translate.lexer import COMMENT, IDENTIFIER, KEYWORD, NEWLINE, PUNCTUATION, Tokens, unsplice

Span = tuple[int, int]  # byte offsets [start, end) into the body

_OPEN = {"(": ")", "[": "]", "{": "}", "<:": ":>", "<%": "%>"}
_CLOSE = {v: k for k, v in _OPEN.items()}
# Tokens that cannot appear inside template arguments: seeing one means a `<` was a comparison.
_NOT_IN_TEMPLATE = {";", "{", "}", "&&", "||", "<%", "%>"}


@dataclass(frozen=True)
class Call:
    callee: int  # token index of the callee identifier
    open: int  # token index of "("
    close: int  # token index of ")"
    args: tuple[Span, ...]  # one span per argument, whitespace trimmed


@dataclass(frozen=True)
class Launch:
    name: Span  # the kernel expression: `k`, `ns::k`, `k<float, 4>`
    templated: bool
    config: tuple[Span, ...]  # grid, block[, shared memory[, stream]]
    args: tuple[Span, ...]
    inside_parens: Span  # everything between the argument list's parentheses, as written
    start: int  # token index of the first token of the name
    close: int  # token index of the ")" closing the arguments


def next_code(tokens: Tokens, i: int) -> int:
    """Index of the first non-comment token after i, or len(tokens)."""
    kinds = tokens.kinds
    i += 1
    while i < len(kinds) and kinds[i] == COMMENT:
        i += 1
    return i


def prev_code(tokens: Tokens, i: int) -> int:
    kinds = tokens.kinds
    i -= 1
    while i >= 0 and kinds[i] == COMMENT:
        i -= 1
    return i


def code_indices(tokens: Tokens) -> list[int]:
    """The indices of the tokens that are not comments."""
    return [i for i in range(len(tokens)) if tokens.kinds[i] != COMMENT]


def after_parens(tokens: Tokens, code: list[int], k: int) -> int:
    """The index (into `code`, from code_indices) after the parenthesised group that starts at code[k] (a `(`)."""
    depth = 0
    while k < len(code):
        text = tokens.raw(code[k])
        depth += (text == b"(") - (text == b")")
        k += 1
        if depth == 0:
            break
    return k


def is_punct(tokens: Tokens, i: int, *texts: str) -> bool:
    """True when token i exists and is a punctuator spelled as one of texts."""
    kinds = tokens.kinds  # what runs most of all: no method calls
    return (
        0 <= i < len(kinds)
        and kinds[i] == PUNCTUATION
        and tokens.body[tokens.starts[i] : tokens.ends[i]].decode() in texts
    )


class IntLiteral(NamedTuple):
    value: int
    digits: str  # as written, without the suffix
    suffix: str  # lower case: "", "u", "ull", ...


# C++'s integer literals: a digit separator only between two digits; a suffix of at most one `u` with one `l`,
# `ll` or `LL` (never `lL`), or C++23's `z`, before or after it. A pp-number with any other tail (`0xffffZZ`,
# `1lL`, `0xff'`) is no integer: reading it as one, a rewrite of its value dropped the rest of its bytes.
_INT_LITERAL = re.compile(
    r"(0[xX][0-9a-fA-F](?:'?[0-9a-fA-F])*|0[bB][01](?:'?[01])*|[0-9](?:'?[0-9])*)"
    r"((?:[uU](?:ll|LL|[lLzZ])?|(?:ll|LL|[lLzZ])[uU]?)?)"
)


def int_literal(text: str) -> IntLiteral | None:
    """The integer literal spelled `text` (hex, binary, octal or decimal, digit separators allowed), or None
    for any other pp-number."""
    m = _INT_LITERAL.fullmatch(text)
    if m is None:
        return None
    digits = m.group(1).replace("'", "")
    octal = digits.startswith("0") and digits.isdigit() and len(digits) > 1
    try:
        value = int(digits, 8 if octal else 0)
    except ValueError:  # 09, or 0x with no digits
        return None
    return IntLiteral(value, m.group(1), m.group(2).lower())


def matching_close(tokens: Tokens, i: int) -> int | None:
    """For a bracket at i, the index of its partner; None when unbalanced. The openers passed on the way
    are paired and remembered too (tokens.partners), and a remembered pair is stepped over whole: asking
    for each level of a call nested n deep costs one pass, not n."""
    partners, kinds, raw = tokens.partners, tokens.kinds, tokens.raw
    if i in partners:
        return partners[i]
    if not is_punct(tokens, i, *_OPEN):  # a close (no partner after it), or no bracket: the next group's
        j = next((j for j in range(i, len(kinds)) if is_punct(tokens, j, *_OPEN, *_CLOSE)), len(kinds))
        return matching_close(tokens, j) if is_punct(tokens, j, *_OPEN) else None
    opened: list[int] = []  # the openers not yet closed, innermost last
    j = i
    while j < len(kinds):
        if kinds[j] == PUNCTUATION:
            t = raw(j).decode()
            known = partners.get(j, -1) if t in _OPEN else -1
            if known is None:
                break  # an inner group that never closes: none of its openers does
            if known >= 0:
                j = known
            elif t in _OPEN:
                opened.append(j)
            elif t in _CLOSE:
                if _OPEN[raw(opened[-1]).decode()] != t:
                    break
                partners[opened.pop()] = j
                if not opened:
                    return j
        j += 1
    for k in opened:
        partners[k] = None
    return None


class _Unbalanced(Exception):
    """A closing bracket without its opener (or the reverse) inside the range."""


def _top_level(tokens: Tokens, first: int, last: int) -> Generator[tuple[int, str], int | None, None]:
    """Yield (index, text) of each punctuation token of tokens[first:last] outside brackets.

    Bracketed groups are skipped whole; the consumer may `send` an index to resume after it.
    Raises _Unbalanced when the brackets do not pair up inside the range.
    """
    j = first
    while j < last:
        if tokens.kinds[j] == PUNCTUATION:
            t = tokens.raw(j).decode()
            if t in _OPEN or t == "<<<":  # a launch's configuration is bracketed too: k<<<g, b>>>(x)
                close = matching_close(tokens, j) if t != "<<<" else _chevrons_close(tokens, j, last)
                if close is None or close >= last:
                    raise _Unbalanced
                j = close
            elif t in _CLOSE:
                raise _Unbalanced
            else:
                resume = yield j, t
                if resume is not None:
                    j = resume
                    yield j, t  # the value of send(); the consumer's loop continues after it
        j += 1


def _chevrons_close(tokens: Tokens, i: int, limit: int) -> int | None:
    """The `>>>` closing the launch configuration opened by the `<<<` at i."""
    j = i + 1
    while j < limit:
        if tokens.kinds[j] == PUNCTUATION:
            t = tokens.raw(j)
            if t == b">>>":
                return j
            if t.decode() in _OPEN:
                close = matching_close(tokens, j)
                if close is None:
                    return None
                j = close
            elif t.decode() in _CLOSE or t in (b";", b"<<<"):
                return None
        j += 1
    return None


def template_close(tokens: Tokens, i: int, limit: int) -> int | None:
    """If the `<` at i opens template arguments (it follows a name), the index of its `>`."""
    before = prev_code(tokens, i)
    if before < 0 or tokens.kinds[before] not in (IDENTIFIER, KEYWORD):
        return None
    depth = 0
    try:
        for j, t in _top_level(tokens, i, limit):
            if t in _NOT_IN_TEMPLATE:
                return None
            if t == "<":
                depth += 1
            elif t in (">", ">>", ">>>"):  # CUDA mode lexes `>>>` as one token, also where it closes templates
                depth -= len(t)
                if depth <= 0:
                    return j if depth == 0 else None
    except _Unbalanced:
        return None
    return None


def split_top_level(tokens: Tokens, first: int, last: int) -> tuple[Span, ...] | None:
    """Split tokens[first:last] at top-level commas into trimmed byte spans."""
    spans: list[Span] = []
    start_tok = first
    walk = _top_level(tokens, first, last)
    try:
        for j, t in walk:
            if t == "<":
                close = template_close(tokens, j, last)
                if close is not None:
                    walk.send(close)
            elif t == ",":
                spans.append(_span(tokens, start_tok, j))
                start_tok = j + 1
    except _Unbalanced:
        return None
    spans.append(_span(tokens, start_tok, last))
    return () if len(spans) == 1 and spans[0][0] == spans[0][1] else tuple(spans)  # f() and f(/* none */)


def _span(tokens: Tokens, first: int, end: int) -> Span:
    """The code of tokens[first:end]: comments at either edge belong to the gaps, not to the argument."""
    while first < end and tokens.kinds[first] == COMMENT:
        first += 1
    while end > first and tokens.kinds[end - 1] == COMMENT:
        end -= 1
    if first >= end:  # an empty argument, as in f(a, , b)
        pos = tokens.ends[first - 1] if first > 0 else 0
        return (pos, pos)
    return (tokens.starts[first], tokens.ends[end - 1])


def _argument_list(tokens: Tokens, before: int) -> tuple[int, int, tuple[Span, ...]] | None:
    """`(args)` right after token `before`: (index of "(", index of ")", argument spans)."""
    open_ = next_code(tokens, before)
    if not is_punct(tokens, open_, "("):
        return None
    close = matching_close(tokens, open_)
    if close is None:
        return None
    args = split_top_level(tokens, open_ + 1, close)
    return None if args is None else (open_, close, args)


def parse_call(tokens: Tokens, callee: int) -> Call | None:
    """The call whose callee identifier is at `callee`, if a `(` follows it."""
    found = _argument_list(tokens, callee)
    return None if found is None else Call(callee, *found)


def parse_launch(tokens: Tokens, chevron: int, split: tuple[int, int] | None = None) -> Launch | None:
    """The launch `name<<<config>>>(args)` at the `<<<` `chevron`; `split`: split_chevrons' `<` and `>`."""
    start = _kernel_name_start(tokens, prev_code(tokens, chevron))
    if start is None:
        return None
    templated = any(is_punct(tokens, k, "<") for k in range(start, chevron))
    first, end_config = (chevron + 1, chevron + 1) if split is None else (split[0] + 1, split[1])
    while split is None and end_config < len(tokens) and not is_punct(tokens, end_config, ">>>"):
        if is_punct(tokens, end_config, "<<<") or is_punct(tokens, end_config, ";"):
            return None
        end_config += 1
    if end_config >= len(tokens):
        return None
    config = split_top_level(tokens, first, end_config if split is None else end_config - 1)
    if config is None or not 2 <= len(config) <= 4 or any(s == e for s, e in config):
        return None
    found = _argument_list(tokens, end_config)
    if found is None:
        return None
    open_, close, args = found
    name = (tokens.starts[start], tokens.ends[prev_code(tokens, chevron)])
    return Launch(name, templated, config, args, (tokens.ends[open_], tokens.starts[close]), start, close)


def _kernel_name_start(tokens: Tokens, j: int) -> int | None:
    """Walk back over `ns::kernel<T, N>` from its last token."""
    if j < 0:
        return None
    if is_punct(tokens, j, ">", ">>"):
        opener = template_open(tokens, j)
        if opener is None:
            return None
        j = prev_code(tokens, opener)
    if j < 0 or tokens.kinds[j] != IDENTIFIER:
        return None
    while True:
        sep = prev_code(tokens, j)
        if not is_punct(tokens, sep, "::"):
            return j
        qualifier = prev_code(tokens, sep)
        if qualifier >= 0 and tokens.kinds[qualifier] == IDENTIFIER:
            j = qualifier
        else:
            return sep  # a leading `::` (global namespace)


def template_open(tokens: Tokens, j: int) -> int | None:
    """The `<` opening the template arguments that end with the `>` or `>>` at j."""
    depth = 0
    while j >= 0:
        if tokens.kinds[j] == PUNCTUATION:
            t = tokens.raw(j).decode()
            if t in (">", ">>"):
                depth += len(t)
            elif t == "<":
                depth -= 1
            elif t in _CLOSE:
                opener = matching_open(tokens, j)
                if opener is None:
                    return None
                j = opener
            elif t in (";", "{", "}"):
                return None
            if depth == 0:
                return j
        j -= 1
    return None


def matching_open(tokens: Tokens, i: int) -> int | None:
    """For a closing bracket at i, the index of its opener; None when unbalanced."""
    depth = 0
    for j in range(i, -1, -1):
        if tokens.kinds[j] != PUNCTUATION:
            continue
        t = tokens.raw(j).decode()
        if t in _CLOSE:
            depth += 1
        elif t in _OPEN:
            depth -= 1
            if depth == 0:
                return j
    return None


def starts_line(tokens: Tokens, i: int) -> bool:
    """True when only blanks and comments precede token i on its line (comments count as a space); a line
    splice joins two lines into one (` x \\<newline>#include` is no directive)."""
    body, starts, ends = tokens.body, tokens.starts, tokens.ends
    j = i - 1
    while j >= 0:
        gap = body[ends[j] : starts[j + 1]]
        if NEWLINE in gap and NEWLINE in unsplice(gap):
            return True
        if tokens.kinds[j] != COMMENT:
            return False
        j -= 1
    return True


def holds_unterminated_literal(tokens: Tokens, region: Span) -> bool:
    """Whether region holds an unterminated literal: a rewrite that put code after it on its line would
    put that code inside it."""
    return bool(tokens.unterminated_literals_between(*tokens.within(region)))
