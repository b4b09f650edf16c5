"""Kernel launches (`<<<...>>>`) as hipLaunchKernelGGL, with --kernel-launch hip (translate.launches)."""

from __future__ import annotations

from hipconv.settings import KernelLaunch
from hipconv.translate.context import FileContext
from hipconv.translate.found import NOTHING, Earlier, Found, MatchResult
from hipconv.translate.launches import match_launches


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    if ctx.settings.kernel_launch is not KernelLaunch.HIP:
        return NOTHING
    found = Found(ctx, earlier)
    match_launches(found)
    return found.result()
