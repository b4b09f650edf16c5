"""Every CUDA API name, plain or qualified, renamed, reshaped as a call, shimmed or reported
(translate.identifiers, translate.calls, translate.lane_masks)."""

from __future__ import annotations

from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.identifiers import match_identifiers


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    uses_api = match_identifiers(found, earlier.skip, ctx.words)
    return found.result(uses_api=uses_api)
