"""Overloads and definitions that translation would make redefinitions (translate.redefinitions)."""

from __future__ import annotations

from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.redefinitions import match_redefinitions


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    match_redefinitions(found, ctx.directives, ctx.words)
    return found.result()
