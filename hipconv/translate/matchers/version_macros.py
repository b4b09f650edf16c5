"""CUDA version and architecture tests (translate.version_macros), before the names: it takes over
their lines, and tells the later matchers the tests it rewrote (Earlier.rewritten_tests)."""

from __future__ import annotations

from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.version_macros import match_version_macros


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    tested = match_version_macros(found, ctx.directives, ctx.words)
    return found.result(taken=tuple(tested))
