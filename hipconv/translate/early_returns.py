"""Threads that leave a function before a warp builtin: the `return` statements above a call in the same
function body. A 32-bit full lane mask widened to the 64-bit one names every lane of the wavefront; where
some threads of a wavefront returned first (a CUDA warp that returns as a whole is half a wavefront), the
mask names lanes that do not run the call, which ROCm's *_sync mask check refuses (hipconv.translate.lane_masks,
HC026)."""

from __future__ import annotations

from hipconv.translate.lexer import KEYWORD, PUNCTUATION, Tokens
from hipconv.translate.syntax import is_punct, matching_open, prev_code

_STATEMENTS = frozenset({"if", "for", "while", "switch", "catch"})  # `(...) {` that opens no function body
_BLOCK_WORDS = frozenset({"else", "do", "try"})


def return_above(tokens: Tokens, k: int) -> int | None:
    """The token of the nearest `return` above token k in the function body around it; None when there is
    none. The walk goes out through the blocks around k that are statements (`if (...) {`, `for`, `else {`,
    a plain `{`) and stops at any other `{`: the function's body (or a lambda's, a namespace's)."""
    depth, found, own_statement = 0, None, True  # the call's own statement (`return f(__shfl_sync(...))`)
    kinds = tokens.kinds
    j = prev_code(tokens, k)
    while j >= 0:
        punct = tokens.raw(j) if kinds[j] == PUNCTUATION else None  # read once: the walk runs per mask
        if punct == b"}":
            depth += 1
        elif punct == b"{":
            depth -= 1
            if depth < 0 and not _opens_statement_block(tokens, j):
                return found
        elif found is None and not own_statement and kinds[j] == KEYWORD:
            found = j if tokens.text(j) == "return" else None
        own_statement = own_statement and punct not in (b";", b"{", b"}")
        j = prev_code(tokens, j)
    return None


def _opens_statement_block(tokens: Tokens, brace: int) -> bool:
    """`{` of a statement: after `)` of if/for/while/switch, after else/do/try, or a plain block."""
    j = prev_code(tokens, brace)
    if j < 0:
        return False
    if is_punct(tokens, j, ";", "{", "}", ":"):
        return True
    if tokens.text(j) in _BLOCK_WORDS:
        return True
    if not is_punct(tokens, j, ")"):
        return False
    opener = matching_open(tokens, j)
    return opener is not None and tokens.text(prev_code(tokens, opener)) in _STATEMENTS
