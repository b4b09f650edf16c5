"""Portability checks of `hipconv scan`: lexer tokens -> (offset, message) findings.

One small function per check, registered by the `@check` decorator (scan.registry) with its
code, its id and the words that must appear in a file for it to run (files without them
are not looked at). The function gets those words back, so they are written once.
Checks see tokens only, so comments and strings never match and every #if branch is seen.
"""

from __future__ import annotations

from hipconv.scan import amd, constant_warp_size, lanes, per_warp_array, wavefront
from hipconv.scan.registry import Check, CheckHit, registered

CHECKS: tuple[Check, ...] = registered()  # by code: wavefront hazards (HC30x) first, then HC31x
__all__ = ["CHECKS", "Check", "CheckHit", "amd", "constant_warp_size", "lanes", "per_warp_array", "wavefront"]
