"""Surface boundary modes (translate.surfaces)."""

from __future__ import annotations

from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.surfaces import match_surface_modes


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    match_surface_modes(found, ctx.words)
    return found.result()
