"""The C++ nvcc accepts and clang does not (`register`, keywords glued to literals), in the files nvcc
compiles only: a host compiler's files are its own business (translate.nvcc_syntax)."""

from __future__ import annotations

from hipconv.translate.context import FileContext
from hipconv.translate.found import NOTHING, Earlier, Found, MatchResult
from hipconv.translate.nvcc_syntax import match_nvcc_syntax


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    if not ctx.kind.nvcc_compiles:
        return NOTHING
    found = Found(ctx, earlier)
    match_nvcc_syntax(found, earlier.skip, ctx.words, ctx.directives.defined)
    return found.result()
