"""Wavefront-size hazards (HC301-HC305): code that assumes 32 lanes, which AMD's 64-wide
wavefronts break. Each check registers itself, with its trigger words, in scan.registry."""

from __future__ import annotations

from collections.abc import Iterator

from hipconv.diagnostics import ACTIVEMASK, LITERAL_WARP_SIZE, SHUFFLE_FROM_16, SYNC_MASK_32, VOTE_IN_32_BITS
from hipconv.scan.constant_warp_size import ROCM_7, constant_warp_size_fix
from hipconv.scan.registry import CheckHit, check
from hipconv.scan.view import SHUFFLES, SYNC_INTRINSICS, WARP_INTRINSICS, FileView, ForLoop, WarpSizeDefinition
from hipconv.translate.lane_masks import MASK_VERDICTS
from hipconv.translate.lexer import TokenKind
from hipconv.translate.syntax import next_code, parse_call, prev_code

_LANE_OPERATORS = ("%", "/", "&", ">>", "%=", "/=", "&=", ">>=")
_LANE_FIXES = {  # operator -> the fix-it of its literal
    "%": "`% warpSize`, or `__lane_id()` for the lane",
    "&": "`& (warpSize - 1)`, or `__lane_id()` for the lane",
    "/": "`/ warpSize`",
    ">>": "`/ warpSize` (e.g. `threadIdx.x / warpSize` for the warp index)",
}
_NARROW_TYPES = frozenset({"int", "unsigned", "uint32_t", "int32_t", "uint", "__uint32_t"})
_WIDE_TYPES = frozenset({"long", "uint64_t", "int64_t", "auto", "size_t", "uintptr_t", "decltype", "lanemask_t"})
_32_BIT_BIT_OPS = ("__popc", "__ffs", "__clz", "__brev")
_LANE_SRC_SHUFFLES = frozenset({"__shfl", "__shfl_sync"})  # their last argument is a source lane, not an offset


@check(LITERAL_WARP_SIZE, "wavefront.warp-size-literal", words=WARP_INTRINSICS | {"threadIdx", "blockDim", "define"})
def warp_size_literal(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """`threadIdx.x % 32`, `& 31`, `/ 32`, `>> 5` in warp code; `#define WARP_SIZE 32`, `kWarpSize = 32`;
    `for (...; lane < 32; ...)` beside warp code."""
    kinds = view.tokens.kinds
    for i in range(len(view.tokens)):
        # the spelling with line splices joined (not is_punct's raw one): `%\<newline>=` is `%=` here
        if kinds[i] == TokenKind.PUNCTUATION and view.text(i) in _LANE_OPERATORS:
            yield from _lane_literal(view, i)
    for definition in view.warp_size_definitions:
        yield _warp_size_definition(view, definition)
    for for_, loop in view.for_loops.items():
        yield from _loop_to_32(view, for_, loop)


def _lane_literal(view: FileView, i: int) -> Iterator[CheckHit]:
    """`% 32`, `/ 32`, `& 31`, `>> 5` at operator i, in lane arithmetic or near warp code."""
    tokens = view.tokens
    op = view.text(i)
    j = next_code(tokens, i)
    wanted = 31 if op.startswith("&") else 5 if op.startswith(">>") else 32
    if view.value(j) != wanted or view.in_shared_dims(i) or view.in_tile_code(i) or view.in_one_warp_block(i):
        return
    lane_math = any(view.text(k) in ("threadIdx", "blockDim") for k in range(view.statement_start(i), i))
    near = view.near_warp_code(i)
    if lane_math and not near and _grouped_between_barriers(view, i):
        return
    if lane_math or near:
        role = (
            "lane mask"
            if wanted == 31
            else "log2 of the warp size (a shift by 5 divides by 32)"
            if wanted == 5
            else "warp size"
        )
        yield (
            tokens.starts[j],
            (
                f"`{op} {view.text(j)}` uses {view.text(j)} as the {role}: a 64-wide wavefront has lanes 0-63 "
                f"(use {_LANE_FIXES[op.rstrip('=')]})"
            ),
        )


def _grouped_between_barriers(view: FileView, i: int) -> bool:
    """The function around token i groups its threads by 32 but meets no warp-level construct: no warp
    intrinsic in the file (a helper it calls may shuffle: warp_sum), no `volatile` (warp-synchronous shared
    memory, which assumes 32 lanes in lockstep), and its threads exchange data through `__syncthreads()`;
    then 32 is a group size of the program's (a shuffle emulated in shared memory over 32-thread segments),
    the same on any wavefront."""
    first, last = view.scope(i)
    if (first, last) == (0, len(view.tokens)) or view.warp_calls:
        return False  # not in a function body, or the file has warp code

    def inside(name: str) -> bool:
        return any(first <= k <= last for k in view.words.get(name, ()))

    return inside("__syncthreads") and not inside("volatile")


def _warp_size_definition(view: FileView, definition: WarpSizeDefinition) -> CheckHit:
    name, value = view.text(definition.name), view.text(definition.literal)
    if definition.log2:
        return (
            view.tokens.starts[definition.literal],
            f"{name} is defined as {value}, log2 of a 32-lane warp; AMD wavefronts have 64 lanes (log2 6: "
            f"{'derive it from warpSize' if view.settings.rocm < ROCM_7 else constant_warp_size_fix(view.settings)})",
        )
    return (
        view.tokens.starts[definition.literal],
        f"{name} is defined as {value}; AMD wavefronts have 64 lanes ({constant_warp_size_fix(view.settings)})",
    )


def _loop_to_32(view: FileView, for_: int, loop: ForLoop) -> Iterator[CheckHit]:
    """`for (...; lane < 32; ...)` (or `<= 31`, `!= 32`) whose body or function uses a warp intrinsic."""
    bound = _bound_32(view, *loop.condition)
    if bound is None:
        return
    shuffle_loop = view.calls_warp_intrinsic(*loop.whole)
    if not shuffle_loop and (not view.near_warp_code(for_) or view.in_tile_code(for_)):
        return
    op = f"{view.text(prev_code(view.tokens, bound))} {view.text(bound)}"
    yield (
        view.tokens.starts[bound],
        f"shuffle loop bound `{op}` stops at the offsets of a 32-lane warp; a 64-wide wavefront needs offset 32 "
        "too (bound it by warpSize)"
        if shuffle_loop
        else f"loop bound `{op}` beside warp code counts the 32 lanes of a warp (or 32 warps); a 64-wide "
        "wavefront has lanes 0-63 (bound it by warpSize, or by blockDim.x / warpSize for warps)",
    )


def _bound_32(view: FileView, first: int, last: int) -> int | None:
    """The bare literal of `< 32`, `<= 31` or `!= 32` in the loop condition tokens[first:last]."""
    tokens = view.tokens
    for j in range(first, last):
        if not view.is_punct(j, "<", "<=", "!="):
            continue
        bound = next_code(tokens, j)
        after = next_code(tokens, bound)
        bare = after >= last or view.is_punct(after, "&&", "||", ")")  # not `i < 32 * n`
        if bare and view.value(bound) == (31 if view.is_punct(j, "<=") else 32):
            return bound
    return None


@check(SYNC_MASK_32, "wavefront.full-mask-32", words=SYNC_INTRINSICS, covered_by=MASK_VERDICTS)
def full_mask_32(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """0xffffffff, or a name defined as it, as the mask of a *_sync intrinsic: for the masks the translator
    cannot see the value of (a name), and the intrinsics it has no lane-mask rule for (__syncwarp)."""
    tokens = view.tokens
    for i in view.occurrences(words):
        call = parse_call(tokens, i)
        if call is None or not call.args or call.args[0][0] == call.args[0][1]:
            continue
        first, last = view.span_tokens(call.args[0])
        if last - first != 1:
            continue
        if view.is_full_mask_32(first) or view.text(first) in view.full_mask_names:
            what = "" if view.text(first).lower().startswith("0x") else " (0xffffffff)"
            yield (
                call.args[0][0],
                (
                    f"{view.text(first)}{what} as the mask of {view.text(i)} covers lanes 0-31 only "
                    "of a 64-wide wavefront"
                ),
            )


@check(SHUFFLE_FROM_16, "wavefront.shuffle-offset-16", words=SHUFFLES)
def shuffle_offset_16(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """`for (int offset = 16; ...) __shfl_down_sync(...)`, and unrolled shuffles by a literal 16."""
    tokens = view.tokens
    for loop in view.for_loops.values():
        start = _loop_from_16(view, loop)
        if start is not None:
            yield (
                tokens.starts[start],
                (
                    "shuffle loop starts at offset 16 (half of a 32-lane warp); on a 64-wide "
                    "wavefront lanes 32-63 are never combined (start at warpSize / 2)"
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
                (
                    f"{view.text(i)} by 16 starts a 32-lane reduction; a 64-wide wavefront needs a step of 32 first "
                    "(loop from warpSize / 2)"
                ),
            )


def _loop_from_16(view: FileView, loop: ForLoop) -> int | None:
    """The literal 16 that the loop starts its variable at, when the loop uses a warp intrinsic."""
    if not view.calls_warp_intrinsic(*loop.whole):
        return None
    start = None
    for j in range(*loop.init):
        if view.is_punct(j, "=", "{", "(") and view.value(next_code(view.tokens, j)) == 16:
            start = next_code(view.tokens, j)
    return start


# the lane masks a warp builtin returns: votes, the active lanes, and the peers of a match (__match_any_sync's
# result, __match_all_sync's), all 64 bits on AMD
@check(
    VOTE_IN_32_BITS,
    "wavefront.ballot-32bit",
    words=("__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync"),
)
def ballot_32bit(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """`unsigned m = __ballot_sync(...)`, `__popc(__ballot_sync(...))`, `__popc(m)` of a name given a vote,
    and a vote compared with a 32-bit full mask (`__activemask() == 0xffffffff`)."""
    tokens = view.tokens
    holders: dict[tuple[int, int], set[str]] = {}  # function body -> the names given a vote in it
    for i in view.occurrences(words):
        call = parse_call(tokens, i)
        if call is not None:
            yield from _compared_with_full_mask(view, i, call.close)
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
        holders.setdefault(view.scope(i), set()).add(view.text(name))
        type_words = {
            view.text(k) for k in range(view.statement_start(name), name) if tokens.kinds[k] != TokenKind.COMMENT
        }
        if type_words & _NARROW_TYPES and not type_words & _WIDE_TYPES:
            yield (
                tokens.starts[i],
                (
                    f"{view.text(i)}'s 64-bit result (one bit per lane of a 64-wide wavefront) "
                    f"is stored in the 32-bit {view.text(name)} (declare it unsigned long long)"
                ),
            )
    for scope, names in holders.items():
        yield from _vote_holder_uses(view, scope, names, words)


def _vote_holder_uses(
    view: FileView, scope: tuple[int, int], names: set[str], votes: frozenset[str]
) -> Iterator[CheckHit]:
    """In the function body `scope`: names given a vote, passed to a 32-bit bit operation or compared with a
    32-bit full mask."""
    tokens = view.tokens
    first, last = scope
    for c in view.occurrences(_32_BIT_BIT_OPS):
        call = parse_call(tokens, c) if first <= c <= last else None
        if call is None or len(call.args) != 1:
            continue
        arg = range(*view.span_tokens(call.args[0]))
        held = [k for k in arg if view.text(k) in names and not view.is_punct(prev_code(tokens, k), ".", "->")]
        if held and not any(view.text(k) in votes for k in arg):  # a vote call in it is reported at the call
            callee, name = view.text(c), view.text(held[0])
            yield (
                tokens.starts[c],
                (
                    f"{callee} takes 32 bits of the vote in {name}: lanes 32-63 of a 64-wide wavefront are "
                    f"dropped (use {callee}ll)"
                ),
            )
    for k in view.occurrences(names):
        if first <= k <= last:
            yield from _compared_with_full_mask(view, k, k)


def _compared_with_full_mask(view: FileView, first: int, last: int) -> Iterator[CheckHit]:
    """The vote in tokens first..last (a call or a name), when `==` or `!=` compares it with a 32-bit full mask
    (0xffffffff, or a name defined as it), on either side."""
    tokens = view.tokens
    after, before = next_code(tokens, last), prev_code(tokens, first)
    for op, mask in ((after, next_code(tokens, after)), (before, prev_code(tokens, before))):
        if not view.is_punct(op, "==", "!="):
            continue
        if view.is_full_mask_32(mask) or view.text(mask) in view.full_mask_names:
            vote = "".join(view.text(k) for k in range(first, last + 1) if tokens.kinds[k] != TokenKind.COMMENT)
            vote = vote if len(vote) <= 24 else f"{view.text(first)}(...)"
            yield (
                tokens.starts[mask],
                (
                    f"`{vote} {view.text(op)} {view.text(mask)}` tests lanes 0-31 only: a 64-wide wavefront's "
                    "vote has 64 bits, 0xffffffffffffffff when all lanes are set (compare with "
                    "0xffffffffffffffffull)"
                ),
            )


@check(ACTIVEMASK, "wavefront.activemask", words=("__activemask",))
def activemask(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
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
