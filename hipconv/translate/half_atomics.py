"""atomicAdd on a 16-bit float (HC017): CUDA declares atomicAdd for __half, __half2, __nv_bfloat16 and
__nv_bfloat162 (cuda_fp16.hpp, cuda_bf16.hpp); no HIP release does (the hip-5.2 ... hip-6.3 inventories), so
such a call does not build. HIP's atomicAdd takes the same name for the other types, so the call is reported
only where its pointer is visibly one of these types: the first argument is `p`, `&p`, `p + i`, `&p[i]`, and
the nearest declaration of `p` above it in the file gives it one of them (`__half *p`, `__nv_bfloat16 p[N]`).
A pointer whose type cannot be seen (a template parameter, a member, a cast) is left to the compiler."""

from __future__ import annotations

import bisect

from hipconv.diagnostics import HALF_ATOMIC_ADD
from hipconv.translate.found import Found
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.syntax import is_punct, next_code, parse_call, prev_code
from hipconv.translate.words import EXPRESSION_KEYWORDS, WORDY_KINDS, identifier_tokens

CODE = HALF_ATOMIC_ADD
_ATOMICS = frozenset({b"atomicAdd"})
HALF_TYPES = frozenset(
    {"__half", "__half2", "half", "half2", "__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16", "nv_bfloat162"}
)
_HALF_WORDS = frozenset(t.encode() for t in HALF_TYPES)
_DECLARATOR = frozenset({"*", "&", "const", "volatile", "__restrict__", "__restrict", "restrict"})


def match_half_atomics(c: Found, words: frozenset[bytes]) -> None:
    """Report each atomicAdd whose first argument is visibly a pointer to a 16-bit float type."""
    if not (_ATOMICS & words) or not (_HALF_WORDS & words):
        return
    tokens = c.tokens
    for i in identifier_tokens(tokens, _ATOMICS):
        if is_punct(tokens, prev_code(tokens, i), ".", "->", "::") or not is_punct(tokens, next_code(tokens, i), "("):
            continue
        call = parse_call(tokens, i)
        if call is None or not call.args:
            continue
        name = _pointer_name(tokens, call.args[0])
        half = _declared_type(tokens, name) if name is not None else None
        if name is None or half is None:
            continue
        message = (
            f"atomicAdd on {tokens.text(name)} ({half}*): no ROCm release declares atomicAdd for {half} (HIP has it "
            "for 32- and 64-bit types only); left unchanged: write it as a CAS loop on the 32-bit word that holds it"
        )
        c.diag(tokens.starts[i], CODE, message, None, "atomicAdd")


def _pointer_name(tokens: Tokens, span: tuple[int, int]) -> int | None:
    """The token of `p` in `p`, `&p`, `p + i`, `&p[i]` (the argument's span); None for other forms."""
    k = next_code(tokens, _index_at(tokens, span[0]) - 1)
    if is_punct(tokens, k, "&"):
        k = next_code(tokens, k)
    if k >= len(tokens) or tokens.starts[k] >= span[1] or tokens.kinds[k] != TokenKind.IDENTIFIER:
        return None
    after = next_code(tokens, k)
    if after < len(tokens) and tokens.starts[after] < span[1] and not is_punct(tokens, after, "[", "+", "-"):
        return None  # a member, a call, a cast: not a plain name
    return k


def _index_at(tokens: Tokens, offset: int) -> int:
    return bisect.bisect_left(tokens.starts, offset)


def _declared_type(tokens: Tokens, name: int) -> str | None:
    """The 16-bit float type of the nearest declaration of the name above token `name`, or None (another type,
    or no declaration that can be read)."""
    spelling = tokens.text(name)
    for k in reversed([j for j in identifier_tokens(tokens, frozenset({spelling.encode()})) if j < name]):
        if not is_punct(tokens, next_code(tokens, k), "=", ";", ",", ")", "[", "{"):
            continue
        j = prev_code(tokens, k)
        while j >= 0 and tokens.text(j) in _DECLARATOR:
            j = prev_code(tokens, j)
        if (
            j < 0
            or tokens.kinds[j] not in WORDY_KINDS
            or tokens.text(j) in EXPRESSION_KEYWORDS
            or is_punct(tokens, prev_code(tokens, j), ".", "->")
        ):
            continue
        return tokens.text(j) if tokens.text(j) in HALF_TYPES else None
    return None
