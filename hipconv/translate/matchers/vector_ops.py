"""The project's vector operators that HIP declares (translate.vector_ops)."""

from __future__ import annotations

from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.vector_ops import match_vector_operators


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    match_vector_operators(found, ctx.words)
    return found.result()
