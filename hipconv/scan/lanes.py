"""Lane counts that disagree (HC322): a shuffle confined to segments of an explicit width below 64 (`32`,
`16`) in a function that numbers its lanes modulo `warpSize`. On a 32-lane warp the two agree; on a 64-wide
wavefront lane 40 is lane 8 of its shuffle segment, so a test such as `lane >= offset` or `lane == 0` reads
the wrong position (an inclusive scan adds the lane's own value, a segment's sum is never stored)."""

from __future__ import annotations

from collections.abc import Iterator

from hipconv.diagnostics import SHUFFLE_WIDTH_BELOW_64
from hipconv.scan.registry import CheckHit, check
from hipconv.scan.view import SHUFFLES, FileView
from hipconv.translate.syntax import next_code, parse_call, prev_code

_WIDTHS = frozenset({2, 4, 8, 16, 32})  # a width of 64 (or warpSize) is the whole wavefront: no mismatch


@check(SHUFFLE_WIDTH_BELOW_64, "wavefront.warpsize-lane-beside-width", words=SHUFFLES)
def warpsize_lane_beside_width(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """`__shfl_up_sync(mask, v, i, 32)` in a function that takes `% warpSize` or `& (warpSize - 1)`."""
    for i in view.occurrences(words):
        call = parse_call(view.tokens, i)
        if call is None or len(call.args) != (4 if view.text(i).endswith("_sync") else 3):
            continue
        first, last = view.span_tokens(call.args[-1])
        width = view.value(first) if last - first == 1 else None
        if width not in _WIDTHS:
            continue
        lane = _warp_size_lane(view, *view.scope(i))
        if lane is not None:
            yield (
                call.args[-1][0],
                (
                    f"{view.text(i)} shuffles within segments of {width} lanes, but the function numbers lanes "
                    f"`{lane}` (0-63 on a 64-wide wavefront): lane {width + 8} is lane 8 of its segment, so a "
                    f"lane test reads the wrong position (number lanes `% {width}` as well, or shuffle over "
                    "warpSize)"
                ),
            )


def _warp_size_lane(view: FileView, first: int, last: int) -> str | None:
    """`% warpSize` or `& (warpSize - 1)` in tokens[first:last], as written; None when there is neither."""
    tokens = view.tokens
    for k in view.occurrences(("warpSize",)):
        if not first <= k <= last:
            continue
        before = prev_code(tokens, k)
        if view.is_punct(before, "%", "%="):
            return "% warpSize"
        minus = next_code(tokens, k)
        if (
            view.is_punct(before, "(")
            and view.is_punct(prev_code(tokens, before), "&", "&=")
            and view.is_punct(minus, "-")
            and view.value(next_code(tokens, minus)) == 1
        ):
            return "& (warpSize - 1)"
    return None
