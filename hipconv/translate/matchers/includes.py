"""Include directives: the paths the rules rewrite, the runtime header moved before the first HIP header
(translate.includes); takes the include paths and #error/#warning text from the later matchers."""

from __future__ import annotations

from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.includes import match_includes


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    includes = match_includes(found, ctx.directives, runtime_first=ctx.kind.is_cu or ctx.kind.is_header)
    return found.result(taken=(*includes.spans, *ctx.directives.message_spans), includes=includes)
