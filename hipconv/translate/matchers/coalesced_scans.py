"""Scans over a coalesced_group (HC106): `cg::exclusive_scan(cg::coalesced_threads(), keep)`.

CUDA's coalesced_threads() is the active threads of one 32-thread warp; AMD's is the active lanes of a 64-lane
wavefront, two CUDA warps. hipconv_compat.h's scan shim scans the group it is given, in CUDA's order, so over
a whole wavefront the ranks from lane 32 on continue the lower half's scan where CUDA's start again at 0 (and
the group's size() and thread_rank() count 64 lanes where CUDA's count 32). The scan is exact where the group
lies within one 32-lane half: where every launch the file has of the kernel (or of a kernel that calls the
function) gives blocks of at most 32 threads. Elsewhere it is reported; a thread_block_tile<32> scans the same
lanes in CUDA and on AMD.
"""

from __future__ import annotations

import bisect

from hipconv.diagnostics import COALESCED_SCAN_WAVEFRONT
from hipconv.translate.cg_members import NAMESPACE, facts, receiver_groups
from hipconv.translate.context import FileContext
from hipconv.translate.facts.launch_blocks import launches_around
from hipconv.translate.found import NOTHING, Earlier, Found, MatchResult
from hipconv.translate.lane_masks import file_launches
from hipconv.translate.lexer import TokenKind
from hipconv.translate.syntax import is_punct, parse_call, prev_code
from hipconv.translate.words import token_occurrences

SCANS = (b"inclusive_scan", b"exclusive_scan")
COALESCED = "coalesced_group"
_WARP = 32  # the lanes of a CUDA warp: a block of at most this many threads keeps the group within lanes 0-31


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    if NAMESPACE.encode() not in ctx.words or ctx.words.isdisjoint(SCANS):
        return NOTHING  # (a matcher's findings are made only for a file it may find something in)
    found = Found(ctx, earlier)
    _match_scans(found)
    return found.result()


def _match_scans(c: Found) -> None:
    tokens, known = c.tokens, facts()
    for k in token_occurrences(tokens, SCANS, (TokenKind.IDENTIFIER,)):
        call = parse_call(tokens, k)
        if call is None or not call.args or is_punct(tokens, prev_code(tokens, k), ".", "->"):
            continue
        after_group = bisect.bisect_left(tokens.starts, call.args[0][1])  # the `,` or `)` after the group
        if receiver_groups(tokens, after_group, known) != frozenset({COALESCED}) or _within_one_half(c, k):
            continue
        qualifier = prev_code(tokens, prev_code(tokens, k)) if is_punct(tokens, prev_code(tokens, k), "::") else -1
        name = f"{tokens.text(qualifier)}::{tokens.text(k)}" if qualifier >= 0 else tokens.text(k)
        c.diag(
            call.args[0][0],
            COALESCED_SCAN_WAVEFRONT,
            f"{name} over a coalesced_group: CUDA's group is the active threads of a 32-thread warp, AMD's those "
            "of a 64-lane wavefront, so ranks from lane 32 on continue the lower half's scan where CUDA's start "
            "again at 0 (exact only where the group lies within one 32-lane half, as with blocks of at most 32 "
            "threads; scan a thread_block_tile<32> instead)",
        )


def _within_one_half(c: Found, k: int) -> bool:
    """Every launch the file has of the kernel around token k (or of the kernels that call its function) fixes
    blocks of at most 32 threads, and there is one."""
    launches, _ = launches_around(c.tokens, file_launches(c.ctx), k)
    return bool(launches) and all(launch.threads is not None and launch.threads <= _WARP for launch in launches)
