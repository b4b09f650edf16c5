"""Shared arrays with one slot per lane or per warp of a 32-wide warp (HC306).

The block reduction of every tutorial keeps `__shared__ float partial[32]`, one slot per warp of a 1024-thread
block, written at a warp id (`partial[wid]`, `wid = threadIdx.x / warpSize`) and read back lane by lane by the
first warp (`partial[lane]`). On AMD a block has blockDim.x / 64 wavefronts: they fill 16 slots at most, and the
first wavefront's lanes 32-63 read past the end, unless the read is guarded by the wavefronts of the block
(`threadIdx.x < blockDim.x / warpSize`), which keeps it in bounds and to the written slots. A guard by 32-wide
warps (`< blockDim.x / 32`) keeps it in bounds, but reads slots no wavefront wrote."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from enum import IntEnum
from typing import NamedTuple

from hipconv.diagnostics import PER_LANE_ARRAY_32
from hipconv.scan.registry import CheckHit, check
from hipconv.scan.view import FileView
from hipconv.translate.lexer import TokenKind
from hipconv.translate.statements import statement_last
from hipconv.translate.syntax import matching_close, matching_open, next_code, prev_code

_AMD_SLOTS = 16  # the wavefronts of a 1024-thread block on AMD: slots 0-15 can be written
_CONTROL = ("if", "while", "for")
_BOUND_ENDS = ("&&", "||", "?", ",", ";", ")", ":")


class Guard(IntEnum):
    """How a lane-by-lane use of a per-warp array is kept to the written slots, worst last."""

    SAFE = 0  # guarded by the block's wavefronts (blockDim.x / warpSize), a warp id, or a slot below 16
    WARPS_32 = 1  # guarded by the block's 32-wide warps (blockDim.x / 32): in bounds, but unwritten slots
    NONE = 2  # not guarded, or passed on where its reads cannot be seen


class _Use(NamedTuple):
    name: int  # the array name's token
    subscript: tuple[int, int] | None  # the tokens inside its `[...]`; None where it is not subscripted
    warp_ids: frozenset[str]  # the names given a warp id in the function around it


@check(PER_LANE_ARRAY_32, "wavefront.per-warp-array-32", words=("__shared__",))
def per_warp_array_32(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """`__shared__ float partial[32]` indexed by a warp id (`[threadIdx.x / 32]`, `[wid]` with `wid = tid /
    warpSize`) and read lane by lane without a guard by the block's wavefronts, or sized 32 or `[BLOCK / 32]` in a
    function (or file) with warp intrinsics, and `[WARP_SIZE]` or `[BLOCK / WARP_SIZE]` wherever WARP_SIZE is
    defined as 32."""
    tokens = view.tokens

    def warp_size(k: int, open_: int) -> bool:
        return view.text(k) in view.warp_size_names or view.value(k) == 32 and view.near_warp_code(open_)

    for open_, close in view.shared_array_dims:
        inner = [k for k in range(open_ + 1, close) if tokens.kinds[k] != TokenKind.COMMENT]
        size = inner[0] if len(inner) == 1 else -1
        uses = _array_uses(view, open_, close) if _warp_slots(view, size) else []
        index = _warp_index(view, uses)
        if index is not None:
            worst = max((_slot_guard(view, use) for use in uses), key=lambda found: found[0])
            if worst[0] != Guard.SAFE:
                yield tokens.starts[size], _per_warp_message(view, size, index, worst)
        elif size >= 0 and warp_size(size, open_):
            yield (
                tokens.starts[size],
                (
                    f"shared array sized {view.text(size)}, one slot per lane of a 32-wide warp; a 64-wide "
                    "wavefront indexes lanes 0-63 (size it for 64 lanes)"
                ),
            )
        else:
            yield from _warps_per_block(view, inner, open_, warp_size)


def _per_warp_message(view: FileView, size: int, index: str, worst: tuple[Guard, str, str]) -> str:
    guard, use, bound = worst
    if guard == Guard.WARPS_32:
        how = (
            f"`{use}` is guarded by `{bound}`, a count of 32-wide warps, so it reads slots from blockDim.x / 64 on, "
            "which no wavefront wrote"
        )
    elif use.endswith("]"):
        how = f"`{use}` reads them with no guard, past the written slots (and past the end, for lanes 32-63)"
    else:
        how = f"`{use}` is passed on, to code that may read them lane by lane, past the end for lanes 32-63"
    return (
        f"shared array of {view.text(size)} slots, one per warp of a 1024-thread block, indexed by the warp id "
        f"`{index}`: 64-wide wavefronts fill blockDim.x / 64 slots (16 at most), and {how} (read only the slots "
        "of the block's wavefronts: guard the read by `threadIdx.x < blockDim.x / warpSize`)"
    )


def _warps_per_block(
    view: FileView, inner: list[int], open_: int, warp_size: Callable[[int, int], bool]
) -> Iterator[CheckHit]:
    """`[BLOCK / 32]`: a shared array sized by the warps of a block."""
    for k in inner:
        if view.is_punct(k, "/") and warp_size(next_code(view.tokens, k), open_):
            yield (
                view.tokens.starts[k],
                (
                    f"shared array sized by `/ {view.text(next_code(view.tokens, k))}` warps per block; on AMD a "
                    "block has blockDim / 64 wavefronts, so warp indices and sizes disagree (divide by 64, "
                    "AMD's wavefront size)"
                ),
            )


def _warp_slots(view: FileView, size: int) -> bool:
    """The dimension token `size` is 32 slots (a literal 32 or a name defined as the warp size)."""
    return size >= 0 and (view.value(size) == 32 or view.text(size) in view.warp_size_names)


def _array_uses(view: FileView, open_: int, close: int) -> list[_Use]:
    """The uses of the one-dimensional shared array whose dimension is tokens open_..close, in the function (or
    file) that declares it, outside 32-wide cooperative-groups tile code."""
    tokens = view.tokens
    name = prev_code(tokens, open_)
    if tokens.kinds[name] != TokenKind.IDENTIFIER or view.is_punct(next_code(tokens, close), "["):
        return []
    first, last = view.scope(open_)
    uses, warp_ids = [], {}
    for use in view.words.get(view.text(name), ()):
        if not first <= use <= last or use == name or view.in_tile_code(use):
            continue
        before, bracket = prev_code(tokens, use), next_code(tokens, use)
        if view.is_punct(before, ".", "->") or view.text(before) == "sizeof":
            continue
        end = matching_close(tokens, bracket) if view.is_punct(bracket, "[") else None
        scope = view.scope(use)
        if scope not in warp_ids:
            warp_ids[scope] = _warp_id_names(view, scope)
        uses.append(_Use(use, None if end is None else (bracket + 1, end), warp_ids[scope]))
    return uses


def _index_tokens(view: FileView, use: _Use) -> list[int]:
    return (
        [] if use.subscript is None else [k for k in range(*use.subscript) if view.tokens.kinds[k] != TokenKind.COMMENT]
    )


def _warp_index(view: FileView, uses: list[_Use]) -> str | None:
    """The spelling of the first warp id among the uses' indices (`threadIdx.x / 32`, `tid >> 5`, `wid` given
    `tid / warpSize`), or None."""
    for use in uses:
        index = _index_tokens(view, use)
        if index and _is_warp_id(view, use):
            return view.tokens.body[view.tokens.starts[index[0]] : view.tokens.ends[index[-1]]].decode()
    return None


def _is_warp_id(view: FileView, use: _Use) -> bool:
    index = _index_tokens(view, use)
    if len(index) == 1:
        return view.text(index[0]) in use.warp_ids
    return use.subscript is not None and _divisor(view, *use.subscript) in ("32", "warpSize")


def _slot_guard(view: FileView, use: _Use) -> tuple[Guard, str, str]:
    """(how use is kept to the written slots, its spelling, the guard's bound)."""
    tokens = view.tokens
    spelling = view.text(use.name)
    if use.subscript is None:
        return Guard.NONE, spelling, ""
    index = _index_tokens(view, use)
    spelling = tokens.body[tokens.starts[use.name] : tokens.ends[use.subscript[1]]].decode()
    slot = view.value(index[0]) if len(index) == 1 else None
    if _is_warp_id(view, use) or slot is not None and slot < _AMD_SLOTS:
        return Guard.SAFE, spelling, ""
    write = view.is_punct(next_code(tokens, use.subscript[1]), "=")
    best = (Guard.NONE, spelling, "")
    for *condition, returns in _conditions(view, use.name):
        for first, last in _bounds(view, *condition, negated=returns):
            guard = _bound_guard(view, first, last, write=write)
            if guard < best[0]:
                best = (guard, spelling, tokens.body[tokens.starts[first] : tokens.ends[last - 1]].decode())
    return best


def _conditions(view: FileView, i: int) -> Iterator[tuple[int, int, bool]]:
    """Token ranges of the conditions that hold where token i runs: of the `?:` whose first branch holds it,
    of the if, while and for statements whose body holds it, and (negated: True) of the early returns before it
    in a block that holds it (`if (threadIdx.x >= warps) return;`: the threads that go on are below `warps`)."""
    tokens = view.tokens
    j = prev_code(tokens, i)
    while j >= 0 and not view.is_punct(j, ";", "{", "}", "(", ",", "=", ":") and view.text(j) != "return":
        if view.is_punct(j, "?"):
            yield _operand_start(view, j), j, False
            break
        j = matching_open(tokens, j) or 0 if view.is_punct(j, ")", "]") else j
        j = prev_code(tokens, j)
    first, _ = view.scope(i)
    for keyword in view.occurrences(_CONTROL):
        open_ = next_code(tokens, keyword)
        close = matching_close(tokens, open_) if first <= keyword < i and view.is_punct(open_, "(") else None
        if close is None:
            continue
        end = statement_last(tokens, next_code(tokens, close), _CONTROL)
        if close < i <= end:
            loop = view.for_loops.get(keyword)
            yield (*(loop.condition if loop is not None else (open_ + 1, close)), False)
        elif end < i and view.text(keyword) == "if" and _returns(view, close, end) and _encloses(view, keyword, i):
            yield open_ + 1, close, True


def _returns(view: FileView, close: int, end: int) -> bool:
    """The if statement whose condition closes at `close` and ends at `end` is `return ...;` (or a block of it)
    with no else, and its condition no `&&` (whose negation would bound nothing)."""
    tokens = view.tokens
    body = next_code(tokens, close)
    body = next_code(tokens, body) if view.is_punct(body, "{") else body
    if view.text(body) != "return" or view.text(next_code(tokens, end)) == "else":
        return False
    return not any(view.is_punct(k, "&&") for k in range(matching_open(tokens, close) or close, close))


def _encloses(view: FileView, k: int, i: int) -> bool:
    """The block that holds token k holds token i too (a return in a block closed before i guards nothing)."""
    tokens = view.tokens
    depth = 0
    for j in range(k - 1, view.scope(i)[0] - 1, -1):
        if view.is_punct(j, "}"):
            depth += 1
        elif view.is_punct(j, "{"):
            if not depth:
                return (matching_close(tokens, j) or 0) > i
            depth -= 1
    return True


def _operand_start(view: FileView, question: int) -> int:
    """The first token of the condition that ends at the `?` at question."""
    tokens = view.tokens
    j = question
    while True:
        k = prev_code(tokens, j)
        if k < 0 or view.is_punct(k, ";", "{", "}", "(", ",", "=", "?", ":") or view.text(k) == "return":
            return j
        j = matching_open(tokens, k) or 0 if view.is_punct(k, ")", "]") else k


def _bounds(view: FileView, first: int, last: int, *, negated: bool = False) -> Iterator[tuple[int, int]]:
    """The upper bounds that the comparisons in tokens[first:last] put on a value: `x < B`, `x <= B`, `B > x`;
    where they are `negated` (an early return's), those their negation does: `x >= B`, `x > B`, `B <= x`."""
    tokens = view.tokens
    below, above = (("<", "<="), (">", ">=")) if not negated else ((">", ">="), ("<", "<="))
    for k in range(first, last):
        if view.is_punct(k, *below):
            end = next_code(tokens, k)
            while end < last and not view.is_punct(end, *_BOUND_ENDS):
                end = (matching_close(tokens, end) or end) + 1 if view.is_punct(end, "(", "[") else end + 1
            yield next_code(tokens, k), end
        elif view.is_punct(k, *above):
            start = k
            while start > first and not view.is_punct(prev_code(tokens, start), *_BOUND_ENDS, "("):
                before = prev_code(tokens, start)
                start = (matching_open(tokens, before) or before) if view.is_punct(before, ")", "]") else before
            yield start, k


def _bound_guard(view: FileView, first: int, last: int, *, write: bool) -> Guard:
    """What a bound (tokens[first:last]) keeps an index to: the block's wavefronts (`blockDim.x / warpSize`, or a
    name given it), its 32-wide warps (`blockDim.x / 32`), or neither. A write below a literal 32 (clearing the
    slots) stays in bounds."""
    code = [k for k in range(first, last) if view.tokens.kinds[k] != TokenKind.COMMENT]
    bound = view.value(code[0]) if len(code) == 1 else None
    if write and bound is not None and bound <= _AMD_SLOTS * 2 - view.is_punct(prev_code(view.tokens, first), "<="):
        return Guard.SAFE
    if len(code) == 1 and view.tokens.kinds[code[0]] == TokenKind.IDENTIFIER:
        value = _value_of(view, code[0])
        if value is not None:
            first, last = value
    divisor = _divisor(view, first, last)
    return Guard.SAFE if divisor in ("warpSize", "64") else Guard.WARPS_32 if divisor == "32" else Guard.NONE


def _value_of(view: FileView, name: int) -> tuple[int, int] | None:
    """The tokens a name is given in its function (`const int warps = blockDim.x / warpSize;`) or by `#define`."""
    tokens = view.tokens
    first, last = view.scope(name)
    for k in view.words.get(view.text(name), ()):
        after = next_code(tokens, k)
        defined = view.text(prev_code(tokens, k)) == "define"
        if k == name or not (defined or first <= k < name and view.is_punct(after, "=")):
            continue
        start, end = (after if defined else next_code(tokens, after)), after
        while end < len(tokens) and not view.is_punct(end, ";", ","):
            if defined and view.tokens.body.count(b"\n", tokens.ends[k], tokens.starts[end]):
                break
            end += 1
        return start, end
    return None


def _divisor(view: FileView, first: int, last: int) -> str | None:
    """What tokens[first:last] divide by into warps: "32" (`/ 32`, `>> 5`, `/ WARP_SIZE` defined as 32),
    "warpSize", "64" (`/ 64`, `>> 6`), or None."""
    for k in range(first, last):
        divisor = next_code(view.tokens, k)
        shift = view.is_punct(k, ">>")
        if not shift and not view.is_punct(k, "/"):
            continue
        value = view.value(divisor)
        if value == (5 if shift else 32) or not shift and view.text(divisor) in view.warp_size_names:
            return "32"
        if value == (6 if shift else 64):
            return "64"
        if not shift and view.text(divisor) == "warpSize":
            return "warpSize"
    return None


def _warp_id_names(view: FileView, scope: tuple[int, int]) -> frozenset[str]:
    """The names given a warp id in the function body `scope`: `int wid = threadIdx.x / warpSize;`."""
    tokens = view.tokens
    names = set()
    for k in range(*scope):
        name = prev_code(tokens, k)
        if not view.is_punct(k, "=") or tokens.kinds[name] != TokenKind.IDENTIFIER:
            continue
        end = k + 1
        while end < scope[1] and not view.is_punct(end, ";", ","):
            end += 1
        if _divisor(view, k + 1, end) in ("32", "warpSize"):
            names.add(view.text(name))
    return frozenset(names)
