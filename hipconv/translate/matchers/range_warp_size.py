"""Release ranges that reach ROCm 7.0 (`--rocm-version 5.2..7.2`): HIP's warpSize where C++ needs a constant
(HC038, an error at the use).

Up to ROCm 6.4 warpSize was a `static constexpr int`, so a project's own HIP code could size an array, a template
argument or a case label with it; from 7.0 it is read at run time and such code does not build. A CUDA tree has
these uses only in its HIP branches (nvcc never took warpSize as a constant), which the other matchers leave as
they are: this one reads every branch, through the facts scan's HC307 reads (facts.builtin_warp_size). A run of
one release, or a range that ends before 7.0, returns at once (`hipconv scan` reports a single 7.x release)."""

from __future__ import annotations

from hipconv.diagnostics import RANGE_WARP_SIZE_CONSTANT
from hipconv.resources import releases_between
from hipconv.rules.ranges import range_label
from hipconv.settings import Version
from hipconv.translate.context import FileContext
from hipconv.translate.facts.builtin_warp_size import ROCM_7, warp_size_constant_uses
from hipconv.translate.found import NOTHING, Earlier, Found, MatchResult

FIX = (
    "define the constant per target (64 on gfx9 and older: GCN, CDNA; 32 on gfx10-gfx12: RDNA, wave32 by default), "
    "read warpSize at run time, or end the range before 7.0"
)


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    span = ctx.settings.rocm_range
    if span is None or span[1] < ROCM_7:
        return NOTHING
    uses = [u for u in warp_size_constant_uses(ctx.tokens, ctx.words) if u.where is not None]
    if not uses:
        return NOTHING
    found = Found(ctx, earlier)
    runtime = [r for r in releases_between(*span) if Version.parse(r) >= ROCM_7]
    releases = f"ROCm {runtime[0]}" if len(runtime) == 1 else f"ROCm {', '.join(runtime[:-1])} and {runtime[-1]}"
    for use in uses:
        name = ctx.tokens.text(use.token)
        through = " (defined with warpSize)" if use.through else ""
        message = (
            f"{name}{through} {use.where}, which must be a constant: {releases} (of the range "
            f"{range_label(ctx.settings)}) read warpSize at run time, so this does not build there: {FIX}"
        )
        found.diag(ctx.tokens.starts[use.token], RANGE_WARP_SIZE_CONSTANT, message, None, name)
    return found.result()
