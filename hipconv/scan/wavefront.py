"""Wavefront-size hazards (HC301-HC306): code that assumes 32 lanes, which AMD's 64-wide
wavefronts break. Each check registers itself, with its trigger words, in scan.registry."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hipconv.scan.registry import Finding, check
from hipconv.scan.view import SHUFFLES, SYNC_INTRINSICS, WARP_INTRINSICS, FileView
from hipconv.translate.lane_masks import MASK_VERDICTS
from hipconv.translate.lexer import TokenKind
from hipconv.translate.syntax import matching_close, next_code, parse_call, prev_code

_LANE_OPERATORS = ("%", "/", "&", ">>", "%=", "/=", "&=", ">>=")
_WARP_SIZE_NAME = re.compile(r"(?i)warp_?(size|width|threads|lanes)|threads_?per_?warp|lanes_?per_?warp")
_NARROW_TYPES = frozenset({"int", "unsigned", "uint32_t", "int32_t", "uint", "__uint32_t"})
_WIDE_TYPES = frozenset({"long", "uint64_t", "int64_t", "auto", "size_t", "uintptr_t", "decltype", "lanemask_t"})
_32_BIT_BIT_OPS = ("__popc", "__ffs", "__clz", "__brev")
_LANE_SRC_SHUFFLES = frozenset({"__shfl", "__shfl_sync"})  # their last argument is a source lane, not an offset


@check("HC301", "wavefront.warp-size-literal", words=WARP_INTRINSICS | {"threadIdx", "blockDim", "define"})
def warp_size_literal(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    """`threadIdx.x % 32`, `& 31`, `/ 32`, `>> 5` in warp code; `#define WARP_SIZE 32`, `kWarpSize = 32`."""
    kinds = view.tokens.kinds
    for i in range(len(view.tokens)):
        # the spelling with line splices joined (not is_punct's raw one): `%\<newline>=` is `%=` here
        if kinds[i] == TokenKind.PUNCTUATION and view.text(i) in _LANE_OPERATORS:
            yield from _lane_literal(view, i)
        elif kinds[i] == TokenKind.IDENTIFIER and _WARP_SIZE_NAME.search(view.text(i)):
            yield from _warp_size_definition(view, i)


def _lane_literal(view: FileView, i: int) -> Iterator[Finding]:
    """`% 32`, `/ 32`, `& 31`, `>> 5` at operator i, in lane arithmetic or near warp code."""
    tokens = view.tokens
    op = view.text(i)
    j = next_code(tokens, i)
    wanted = 31 if op.startswith("&") else 5 if op.startswith(">>") else 32
    if view.value(j) != wanted or view.in_shared_dims(i):
        return
    lane_math = any(view.text(k) in ("threadIdx", "blockDim") for k in range(view.statement_start(i), i))
    if lane_math or view.near_warp_code(i):
        role = (
            "lane mask"
            if wanted == 31
            else "log2 of the warp size (a shift by 5 divides by 32)"
            if wanted == 5
            else "warp size"
        )
        yield (
            tokens.starts[j],
            (f"`{op} {view.text(j)}` uses {view.text(j)} as the {role}: a 64-wide wavefront has lanes 0-63"),
        )


def _warp_size_definition(view: FileView, i: int) -> Iterator[Finding]:
    """`#define WARP_SIZE 32`, `kWarpSize = 32`, `warpSize{32}` for the warp-size-like name at i."""
    tokens = view.tokens
    j = next_code(tokens, i)
    define = view.text(prev_code(tokens, i)) == "define"
    if not define and view.is_punct(j, "=", "{", "("):
        j = next_code(tokens, j)
    elif not define:
        return
    if view.value(j) == 32 and (define or not view.is_punct(prev_code(tokens, i), ".", "->")):
        yield tokens.starts[j], f"{view.text(i)} is defined as 32; AMD wavefronts have 64 lanes (warpSize)"


@check("HC302", "wavefront.full-mask-32", words=SYNC_INTRINSICS, covered_by=MASK_VERDICTS)
def full_mask_32(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    """0xffffffff, or a name defined as it, as the mask of a *_sync intrinsic: for the masks the translator
    cannot see the value of (a name), and the intrinsics it has no lane-mask rule for (__syncwarp)."""
    tokens = view.tokens
    mask_names = _full_mask_names(view)
    for i in view.occurrences(words):
        call = parse_call(tokens, i)
        if call is None or not call.args or call.args[0][0] == call.args[0][1]:
            continue
        first, last = view.span_tokens(call.args[0])
        if last - first != 1:
            continue
        if _is_full_mask_32(view, first) or view.text(first) in mask_names:
            what = "" if view.text(first).lower().startswith("0x") else " (0xffffffff)"
            yield (
                call.args[0][0],
                (
                    f"{view.text(first)}{what} as the mask of {view.text(i)} covers lanes 0-31 only "
                    "of a 64-wide wavefront"
                ),
            )


def _full_mask_names(view: FileView) -> set[str]:
    """Names defined as 0xffffffff: `#define FULL 0xffffffff`, `mask = 0xffffffff`, `mask{0xffffffff}`."""
    tokens = view.tokens
    names: set[str] = set()
    for name, where in view.words.items():
        for i in where:
            j = next_code(tokens, i)
            if view.text(prev_code(tokens, i)) != "define" and view.is_punct(j, "=", "{", "("):
                j = next_code(tokens, j)
            if _is_full_mask_32(view, j):
                names.add(name)
    return names


def _is_full_mask_32(view: FileView, i: int) -> bool:
    found = view.int_literal(i)
    return found is not None and found[0] == 0xFFFFFFFF and "ll" not in found[1]


@check("HC303", "wavefront.shuffle-offset-16", words=SHUFFLES)
def shuffle_offset_16(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    """`for (int offset = 16; ...) __shfl_down_sync(...)`, and unrolled shuffles by a literal 16."""
    tokens = view.tokens
    for i in view.words.get("for", ()):
        start = _loop_from_16(view, i)
        if start is not None:
            yield (
                tokens.starts[start],
                (
                    "shuffle loop starts at offset 16 (half of a 32-lane warp); on a 64-wide "
                    "wavefront lanes 32-63 are never combined"
                ),
            )
    for i in view.occurrences(words - _LANE_SRC_SHUFFLES):
        call = parse_call(tokens, i)
        masked = view.text(i).endswith("_sync")
        if call is None or len(call.args) != (3 if masked else 2):
            continue
        first, last = view.span_tokens(call.args[-1])
        if last - first == 1 and view.value(first) == 16:
            yield (
                call.args[-1][0],
                (f"{view.text(i)} by 16 starts a 32-lane reduction; a 64-wide wavefront needs a step of 32 first"),
            )


def _loop_from_16(view: FileView, for_: int) -> int | None:
    """The literal 16 that the `for` at for_ starts its variable at, when the loop uses a warp intrinsic."""
    tokens = view.tokens
    open_ = next_code(tokens, for_)
    close = matching_close(tokens, open_) if view.is_punct(open_, "(") else None
    if close is None:
        return None
    start = None
    for j in range(open_ + 1, close):
        if view.is_punct(j, ";"):
            break
        if view.is_punct(j, "=", "{", "(") and view.value(next_code(tokens, j)) == 16:
            start = next_code(tokens, j)
    if start is None:
        return None
    body_open = next_code(tokens, close)
    body_end = matching_close(tokens, body_open) if view.is_punct(body_open, "{") else None
    if body_end is None:  # a single statement
        body_end = body_open
        while body_end < len(tokens) and not view.is_punct(body_end, ";"):
            body_end += 1
    return start if any(open_ < k < body_end for k in view.warp_calls) else None


@check("HC304", "wavefront.ballot-32bit", words=("__ballot_sync", "__ballot", "__activemask"))
def ballot_32bit(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    """`unsigned m = __ballot_sync(...)`, `__popc(__ballot_sync(...))`."""
    tokens = view.tokens
    for i in view.occurrences(words):
        before = prev_code(tokens, i)
        if view.is_punct(before, "("):
            callee = view.text(prev_code(tokens, before))
            if callee in _32_BIT_BIT_OPS:
                yield (
                    tokens.starts[i],
                    (
                        f"{view.text(i)} passed to {callee}, which takes 32 bits: lanes 32-63 of "
                        f"the 64-bit result are dropped (use {callee}ll)"
                    ),
                )
            continue
        if not view.is_punct(before, "=", "{"):
            continue
        name = prev_code(tokens, before)
        if tokens.kinds[name] != TokenKind.IDENTIFIER:
            continue
        type_words = {
            view.text(k) for k in range(view.statement_start(name), name) if tokens.kinds[k] != TokenKind.COMMENT
        }
        if type_words & _NARROW_TYPES and not type_words & _WIDE_TYPES:
            yield (
                tokens.starts[i],
                (
                    f"{view.text(i)}'s 64-bit result (one bit per lane of a 64-wide wavefront) "
                    f"is stored in the 32-bit {view.text(name)}"
                ),
            )


@check("HC305", "wavefront.activemask", words=("__activemask",))
def activemask(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    for i in view.occurrences(words):
        if not view.is_punct(next_code(view.tokens, i), "("):
            continue
        yield (
            view.tokens.starts[i],
            (
                "__activemask() returns a 64-bit mask on AMD, and lanes of a wavefront run in "
                "lockstep: code that uses it to find diverged lanes behaves differently"
            ),
        )


@check("HC306", "wavefront.per-warp-array-32", words=("__shared__",))
def per_warp_array_32(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    """`__shared__ float partial[32]` or `[BLOCK / 32]` in a function (or file) with warp intrinsics."""
    tokens = view.tokens
    for open_, close in view.shared_array_dims:
        if not view.near_warp_code(open_):
            continue
        inner = [k for k in range(open_ + 1, close) if tokens.kinds[k] != TokenKind.COMMENT]
        if len(inner) == 1 and view.value(inner[0]) == 32:
            yield (
                tokens.starts[inner[0]],
                ("shared array sized 32, one slot per lane of a 32-wide warp; a 64-wide wavefront indexes lanes 0-63"),
            )
        else:
            for k in inner:
                if view.is_punct(k, "/") and view.value(next_code(tokens, k)) == 32:
                    yield (
                        tokens.starts[k],
                        (
                            "shared array sized by `/ 32` warps per block; on AMD a block has "
                            "blockDim / 64 wavefronts, so warp indices and sizes disagree"
                        ),
                    )
