"""C++ that nvcc's front end accepts and clang (hipcc) rejects, respelled the way both accept, with the
same meaning (note HC019):

- the `register` storage class: C++17 removed it, nvcc ignores it, clang stops with "ISO C++17 does not
  allow 'register' storage class specifier". It means nothing in C++ (and in C only forbids taking the
  address), so it is dropped; a GNU explicit register variable (`register int r asm("...")`) needs it
  and keeps it;
- a CUDA keyword or a macro glued to a string literal (`extern "C"__global__`, `"node "FMT"\n"` with FMT
  #defined in the file, `"%"PRId64`): clang reads `"C"__global__` as a string literal with a user-defined
  suffix, and a suffix without a leading `_` as an error (C++11 reserves it), where gcc and nvcc read two
  tokens; a space separates them (a real literal suffix, `"..."s` or `"..."_km`, is no macro and stays);
- a kernel launch whose chevrons a formatter split (`k << < grid, block >> > (args)`): nvcc reads it as a
  launch, clang only as `<<<` ... `>>>` written whole; the blanks inside the chevrons go.
"""

from __future__ import annotations

import bisect
import re

from hipconv.diagnostics import NVCC_SYNTAX
from hipconv.translate.edits import Edit
from hipconv.translate.found import Found
from hipconv.translate.lexer import TokenKind, Tokens, unsplice
from hipconv.translate.syntax import Span, next_code
from hipconv.translate.words import inside, token_occurrences

CODE = NVCC_SYNTAX
RULE_ID = "compiler.nvcc-syntax"
_REGISTER = b"register"
_ASM = frozenset({"asm", "__asm__", "__asm"})
# the CUDA execution-space and memory-space keywords: glued to a string they read as a literal suffix
GLUED_KEYWORDS = (b"__global__", b"__device__", b"__host__", b"__shared__", b"__constant__", b"__managed__")
_GLUED = re.compile(rb'"(' + b"|".join(GLUED_KEYWORDS) + rb")(?![A-Za-z0-9_])")
_GLUED_NAME = re.compile(rb'"([A-Za-z_][A-Za-z0-9_]*)')
_DEFINE = re.compile(rb"#[ \t]*define\b")
_FORMAT_MACRO = re.compile(rb"(?:PRI|SCN)[diouxXa-z]\w*")  # PRId64, SCNu32: <inttypes.h>
_SPACED_OPEN = re.compile(rb"<<[ \t]+<(?!<)")
WORDS = frozenset({_REGISTER, *GLUED_KEYWORDS})


def may_respell(body: bytes, words: frozenset[bytes]) -> bool:
    """The prefilter's test: the file may hold something to respell."""
    return (
        _REGISTER in words
        or (not words.isdisjoint(GLUED_KEYWORDS) and _GLUED.search(body) is not None)
        or (b"<<" in body and _SPACED_OPEN.search(body) is not None)
    )


def glued_keyword(tokens: Tokens, words: frozenset[bytes]) -> bool:
    """A CUDA keyword glued to the end of a string literal: a keyword for nvcc, a literal suffix for clang."""
    if words.isdisjoint(GLUED_KEYWORDS):
        return False
    for m in _GLUED.finditer(tokens.body):
        i = bisect.bisect_right(tokens.starts, m.start(1) - 1) - 1
        if i >= 0 and tokens.kinds[i] == TokenKind.LITERAL and tokens.ends[i] in (m.start(1), m.end(1)):
            return True
    return False


def match_nvcc_syntax(c: Found, skip: list[Span], words: frozenset[bytes], defined: frozenset[str]) -> None:
    """Drop `register` and separate glued keywords (only files naming them pay for the search); `skip`:
    the spans of include paths and directive messages, which hold no code."""
    if _REGISTER in words:
        _drop_register(c, skip)
    if b'"' in c.tokens.body:
        _separate_glued_names(c, defined)
    if b"<<" in c.tokens.body:
        _join_spaced_chevrons(c)


def _drop_register(c: Found, skip: list[Span]) -> None:
    tokens = c.tokens
    skip_starts = [s for s, _ in skip]
    for i in token_occurrences(tokens, (_REGISTER,), (TokenKind.KEYWORD,)):
        if (skip and inside(skip, skip_starts, tokens.starts[i])) or _explicit_register_variable(c, i):
            continue
        end = tokens.ends[i]
        gap_end = tokens.starts[i + 1] if i + 1 < len(tokens) else len(tokens.body)
        if not tokens.body[end:gap_end].strip(b" \t"):  # the blanks of the same line go with it
            end = gap_end
        c.edits.append(Edit.replace(tokens.starts[i], end, "", RULE_ID))
        message = "register storage class dropped: C++17 removed it and clang rejects it (it has no effect)"
        c.diag(tokens.starts[i], CODE, message)


def _explicit_register_variable(c: Found, i: int) -> bool:
    """`register T name asm("reg")`: the declaration, up to its `;`, `{` or `)`, names asm."""
    tokens = c.tokens
    k = next_code(tokens, i)
    while k < len(tokens) and tokens.text(k) not in (";", "{", ")"):
        if tokens.text(k) in _ASM:
            return True
        k = next_code(tokens, k)
    return False


def _separate_glued_names(c: Found, defined: frozenset[str]) -> None:
    """A CUDA keyword, a macro the file #defines or an <inttypes.h> format macro glued to a string literal
    (any other name would not compile as two tokens either)."""
    tokens, body = c.tokens, c.tokens.body
    for m in _GLUED_NAME.finditer(body):
        at, name = m.start(1), m.group(1)
        if name not in GLUED_KEYWORDS and name.decode() not in defined and not _FORMAT_MACRO.fullmatch(name):
            continue
        i = bisect.bisect_right(tokens.starts, at - 1) - 1  # the token holding the quote
        if i < 0 or tokens.kinds[i] != TokenKind.LITERAL or tokens.ends[i] not in (at, m.end(1)):
            continue  # an opening quote, in a comment: not a string literal's end (suffix read or not)
        if _in_directive_other_than_define(c, at):
            continue  # an include path, a #pragma or #error text: no C++ to respell
        c.edits.append(Edit.replace(at, at, " ", RULE_ID))
        keyword = name.decode()
        message = f"space put between a string literal and {keyword}: clang reads them glued as a literal suffix"
        c.diag(at, CODE, message)


def _in_directive_other_than_define(c: Found, pos: int) -> bool:
    spans = c.ctx.directives.spans
    k = bisect.bisect_right(spans, (pos, len(c.tokens.body))) - 1
    if k < 0 or pos >= spans[k][1]:
        return False
    return _DEFINE.match(unsplice(c.tokens.body[spans[k][0] : spans[k][1]])) is None


def _join_spaced_chevrons(c: Found) -> None:
    """`name << < config >> > (` and the mixed forms: the chevrons of a launch, written whole."""
    tokens, body = c.tokens, c.tokens.body
    for m in _SPACED_OPEN.finditer(body):
        i = bisect.bisect_left(tokens.starts, m.start())
        if i >= len(tokens) or tokens.starts[i] != m.start():
            continue  # in a comment or a literal
        split = split_chevrons(c, i)
        if split is None:
            continue
        for first in (i, split[1] - 1):  # the blanks between the two halves of each chevron
            c.edits.append(Edit.replace(tokens.ends[first], tokens.starts[first + 1], "", RULE_ID))
        message = "kernel launch chevrons written whole (<<< and >>>): clang does not read `<< <` as a launch"
        c.diag(tokens.starts[i], CODE, message)


def split_chevrons(c: Found, i: int) -> tuple[int, int] | None:
    """For a launch whose chevrons a formatter split, `name << < config >> > (`, with its `<<` at token i: the
    indexes of the `<` and of the `>` (launches.py rewrites it whole with --kernel-launch hip)."""
    tokens, body = c.tokens, c.tokens.body
    if i < 1 or i + 1 >= len(tokens) or tokens.text(i) != "<<" or tokens.text(i + 1) != "<":
        return None
    if body[tokens.ends[i] : tokens.starts[i + 1]].strip(b" \t"):
        return None
    if tokens.text(i - 1) == "operator" or tokens.kinds[i - 1] not in (TokenKind.IDENTIFIER, TokenKind.PUNCTUATION):
        return None
    close = _spaced_close(c, i + 2)
    return None if close is None else (i + 1, close + 1)


def _spaced_close(c: Found, k: int) -> int | None:
    """The `>>` of a `>> >` closing the launch configuration that starts at token k, when `(` follows it."""
    tokens, body = c.tokens, c.tokens.body
    depth = 0
    while k + 1 < len(tokens):
        text = tokens.text(k)
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return None
        elif text == ";" or text == ">>>":
            return None
        elif text == ">>" and depth == 0 and tokens.text(k + 1) == ">":
            if body[tokens.ends[k] : tokens.starts[k + 1]].strip(b" \t"):
                return None
            after = next_code(tokens, k + 1)
            return k if after < len(tokens) and tokens.text(after) == "(" else None
        k += 1
    return None
