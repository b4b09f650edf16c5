"""Case labels that translation would make duplicates (translate.case_labels)."""

from __future__ import annotations

from hipconv.translate.case_labels import match_case_labels
from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    match_case_labels(found, ctx.directives, ctx.words)
    return found.result()
