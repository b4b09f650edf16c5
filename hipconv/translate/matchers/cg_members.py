"""Member calls on cooperative groups the targeted HIP lacks (translate.cg_members)."""

from __future__ import annotations

from hipconv.translate.cg_members import match_cg_members
from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    match_cg_members(found, ctx.words)
    return found.result()
