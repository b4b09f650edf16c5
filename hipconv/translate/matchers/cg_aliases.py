"""Names of cooperative_groups spelled through a namespace alias (`cg::reduce`) that a shim stands
for (translate.compat)."""

from __future__ import annotations

from hipconv.translate.compat import match_aliased
from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    match_aliased(found, earlier.skip, ctx.words)
    return found.result()
