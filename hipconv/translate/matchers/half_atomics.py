"""atomicAdd on 16-bit floats (translate.half_atomics)."""

from __future__ import annotations

from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.half_atomics import match_half_atomics


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    match_half_atomics(found, ctx.words)
    return found.result()
