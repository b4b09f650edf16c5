"""Fetches through texture references (translate.texture_refs)."""

from __future__ import annotations

from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.texture_refs import match_texture_fetches


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    match_texture_fetches(found, ctx.words)
    return found.result()
