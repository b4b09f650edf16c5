"""CUDA-looking names no inventory knows, and `##` pasting CUDA names (HC001; translate.unknown_api)."""

from __future__ import annotations

from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.unknown_api import match_unknown_api


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    match_unknown_api(found, earlier.skip, ctx.words, ctx.directives, ctx.project_names)
    return found.result()
