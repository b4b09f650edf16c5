"""One file's tokens as `hipconv scan`'s checks see them, with the structure several checks share
(function bodies, statements, __shared__ array dimensions) computed on first use."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable
from typing import NamedTuple

from hipconv.settings import Settings
from hipconv.translate.full_masks import is_full_mask_32
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.statements import statement_start
from hipconv.translate.syntax import (
    IntLiteral,
    int_literal,
    is_punct,
    matching_close,
    matching_open,
    next_code,
    parse_call,
    prev_code,
    template_close,
)

SYNC_VOTES = ("__ballot_sync", "__any_sync", "__all_sync", "__uni_sync", "__match_any_sync", "__match_all_sync")
SHUFFLES = (
    "__shfl",
    "__shfl_up",
    "__shfl_down",
    "__shfl_xor",
    "__shfl_sync",
    "__shfl_up_sync",
    "__shfl_down_sync",
    "__shfl_xor_sync",
)
REDUCES = (
    "__reduce_add_sync",
    "__reduce_min_sync",
    "__reduce_max_sync",
    "__reduce_and_sync",
    "__reduce_or_sync",
    "__reduce_xor_sync",
)
SYNC_INTRINSICS = frozenset(SYNC_VOTES + REDUCES + ("__syncwarp",) + tuple(s for s in SHUFFLES if s.endswith("_sync")))
WARP_INTRINSICS = SYNC_INTRINSICS | frozenset(SHUFFLES) | {"__ballot", "__any", "__all", "__activemask", "__lane_id"}
# names that say "the warp size" (WARP_SIZE, kWarpSize, THREADS_PER_WARP) and "its log2" (WARP_LOG_SIZE, LOG_WARP_SIZE)
_WARP_SIZE_NAME = re.compile(r"(?i)warp_?(size|width|threads|lanes)|threads_?per_?warp|lanes_?per_?warp")
_WARP_LOG_NAME = re.compile(r"(?i)warp_?log|log2?_?warp")
_TILE_TEMPLATES = ("thread_block_tile", "tiled_partition")  # cooperative groups' fixed-size tiles
_TILE_RANKS = frozenset({"thread_rank", "meta_group_rank"})  # a tile's lane and index, as members


class ForLoop(NamedTuple):
    """A `for (init; condition; step) body` statement, as token index ranges [first, last)."""

    init: tuple[int, int]
    condition: tuple[int, int]
    body: tuple[int, int]  # the `{...}` block, or the single statement up to its `;`

    @property
    def whole(self) -> tuple[int, int]:
        """From the first token inside the parentheses to the end of the body."""
        return self.init[0], self.body[1]


class WarpSizeDefinition(NamedTuple):
    """`#define WARP_SIZE 32`, `kWarpSize = 32`, `WARP_LOG_SIZE 5`: a name defined as a 32-lane warp's size."""

    name: int  # token index of the name
    literal: int  # token index of the literal: 32, or 5 for a log2
    log2: bool


class FileView:
    """One file's tokens plus the structure several checks share, computed on first use."""

    def __init__(self, tokens: Tokens, settings: Settings) -> None:
        self.tokens = tokens
        self.settings = settings

    def text(self, i: int) -> str:
        return self.tokens.text(i) if 0 <= i < len(self.tokens) else ""

    def is_punct(self, i: int, *texts: str) -> bool:
        return is_punct(self.tokens, i, *texts)

    @functools.cached_property
    def words(self) -> dict[str, list[int]]:
        """Identifier and keyword spellings -> their token indices, in order."""
        found: dict[str, list[int]] = {}
        kinds = self.tokens.kinds
        for i in range(len(self.tokens)):
            if kinds[i] in (TokenKind.IDENTIFIER, TokenKind.KEYWORD):
                found.setdefault(self.tokens.text(i), []).append(i)
        return found

    def occurrences(self, names: Iterable[str]) -> list[int]:
        """Token indices of the (non-member) identifiers spelled as one of names, in order."""
        found = [i for name in names for i in self.words.get(name, ())]
        return sorted(i for i in found if not self.is_punct(prev_code(self.tokens, i), ".", "->"))

    def int_literal(self, i: int) -> IntLiteral | None:
        """The integer literal at i."""
        if not (0 <= i < len(self.tokens)) or self.tokens.kinds[i] != TokenKind.LITERAL:
            return None
        return int_literal(self.text(i))

    def value(self, i: int) -> int | None:
        found = self.int_literal(i)
        return found.value if found else None

    def constant(self, first: int, last: int) -> int | None:
        """The value of tokens[first:last] when they are integer literals joined by `*` (e.g. `96 * 1024`)."""
        product, expect_number = 1, True
        for j in range(first, last):
            if self.tokens.kinds[j] == TokenKind.COMMENT:
                continue
            if expect_number:
                v = self.value(j)
                if v is None:
                    return None
                product *= v
            elif not self.is_punct(j, "*"):
                return None
            expect_number = not expect_number
        return None if expect_number else product

    def argument_at(self, offset: int) -> tuple[int, int] | None:
        """(index of the `(` of the innermost call around the byte offset, which argument of it holds the
        offset), or None outside a call: what two findings about one argument have in common, wherever
        in it they point."""
        tokens = self.tokens
        argument, j = 0, bisect.bisect_right(tokens.starts, offset) - 1
        while True:
            j = prev_code(tokens, j)
            if j < 0 or self.is_punct(j, ";", "{", "["):
                return None
            if self.is_punct(j, "("):
                return j, argument
            if self.is_punct(j, ")", "]", "}"):
                opener = matching_open(tokens, j)
                if opener is None:
                    return None
                j = opener
            elif self.is_punct(j, ","):
                argument += 1

    def span_tokens(self, span: tuple[int, int]) -> tuple[int, int]:
        """Token index range [first, last) covering a byte span."""
        starts = self.tokens.starts
        return bisect.bisect_left(starts, span[0]), bisect.bisect_left(starts, span[1])

    @functools.cached_property
    def _function_bodies(self) -> list[tuple[int, int]]:
        """(open, close) of each outermost `{...}` that follows `)`: function bodies, sorted.

        Pairs braces only, in one pass, on purpose: syntax.matching_close pairs every bracket kind and gives
        up on a mismatch, which #if branches that each open a `(` cause inside a body."""
        bodies: list[tuple[int, int]] = []
        stack: list[int] = []
        for i in range(len(self.tokens)):
            if self.is_punct(i, "{"):
                stack.append(i)
            elif self.is_punct(i, "}") and stack:
                open_ = stack.pop()
                if self.is_punct(prev_code(self.tokens, open_), ")"):
                    while bodies and bodies[-1][0] > open_:  # bodies nested in this one (lambdas, loops)
                        bodies.pop()
                    bodies.append((open_, i))
        return bodies

    def body_after(self, i: int) -> tuple[int, int] | None:
        """The function body that token i, in a function's signature (a parameter, __launch_bounds__), opens
        onto: the next body, when no `;` or `}` comes between."""
        bodies = self._function_bodies
        k = bisect.bisect_right(bodies, (i, len(self.tokens)))
        if k == len(bodies) or any(self.is_punct(j, ";", "}") for j in range(i, bodies[k][0])):
            return None
        return bodies[k]

    def scope(self, i: int) -> tuple[int, int]:
        """The function body around token i, or the whole file."""
        bodies = self._function_bodies
        k = bisect.bisect_right(bodies, (i, len(self.tokens))) - 1
        if k >= 0 and bodies[k][0] <= i <= bodies[k][1]:
            return bodies[k]
        return (0, len(self.tokens))

    @functools.cached_property
    def warp_calls(self) -> list[int]:
        """Token indices of the warp intrinsics (non-member uses), in order."""
        return self.occurrences(WARP_INTRINSICS)

    def calls_warp_intrinsic(self, first: int, last: int) -> bool:
        """True when tokens[first:last] hold a warp intrinsic."""
        k = bisect.bisect_left(self.warp_calls, first)
        return k < len(self.warp_calls) and self.warp_calls[k] < last

    def near_warp_code(self, i: int) -> bool:
        """True when the function around i (or the file) uses a warp intrinsic."""
        first, last = self.scope(i)
        return self.calls_warp_intrinsic(first, last + 1)

    @functools.cached_property
    def for_loops(self) -> dict[int, ForLoop]:
        """The parts of each `for` statement, by the token index of its `for`, in order (a range-for or a
        malformed one is left out)."""
        tokens = self.tokens
        loops = {}
        for for_ in self.words.get("for", ()):
            open_ = next_code(tokens, for_)
            close = matching_close(tokens, open_) if self.is_punct(open_, "(") else None
            if close is None:
                continue
            semicolons = [j for j in range(open_ + 1, close) if self.is_punct(j, ";")]
            if len(semicolons) != 2:
                continue
            body_open = next_code(tokens, close)
            body_end = matching_close(tokens, body_open) if self.is_punct(body_open, "{") else None
            if body_end is None:  # a single statement
                body_end = body_open
                while body_end < len(tokens) and not self.is_punct(body_end, ";"):
                    body_end += 1
            first, second = semicolons
            loops[for_] = ForLoop((open_ + 1, first), (first + 1, second), (body_open, body_end + 1))
        return loops

    @functools.cached_property
    def warp_size_definitions(self) -> list[WarpSizeDefinition]:
        """`#define WARP_SIZE 32`, `kWarpSize = 32`, `warpSize{32}`, `#define WARP_LOG_SIZE 5`, in order."""
        tokens = self.tokens
        found = []
        for name, where in self.words.items():
            log2 = bool(_WARP_LOG_NAME.search(name))
            if not log2 and not _WARP_SIZE_NAME.search(name):
                continue
            for i in where:
                before = prev_code(tokens, i)
                define = self.text(before) == "define"
                j = next_code(tokens, i)
                if not define:
                    if self.is_punct(before, ".", "->") or not self.is_punct(j, "=", "{", "("):
                        continue
                    j = next_code(tokens, j)
                if self.value(j) == (5 if log2 else 32):
                    found.append(WarpSizeDefinition(i, j, log2))
        return sorted(found)

    @functools.cached_property
    def warp_size_names(self) -> frozenset[str]:
        """The names warp_size_definitions defines as 32."""
        return frozenset(self.text(d.name) for d in self.warp_size_definitions if not d.log2)

    def is_full_mask_32(self, i: int) -> bool:
        """True when token i is the literal 0xffffffff, the full mask of a 32-lane warp (no `ll` suffix)."""
        found = self.int_literal(i)
        return found is not None and is_full_mask_32(found)

    @functools.cached_property
    def full_mask_names(self) -> frozenset[str]:
        """Names defined as 0xffffffff: `#define FULL 0xffffffff`, `mask = 0xffffffff`, `mask{0xffffffff}`."""
        tokens = self.tokens
        names = set()
        for name, where in self.words.items():
            for i in where:
                j = next_code(tokens, i)
                if self.text(prev_code(tokens, i)) != "define" and self.is_punct(j, "=", "{", "("):
                    j = next_code(tokens, j)
                if self.is_full_mask_32(j):
                    names.add(name)
        return frozenset(names)

    def statement_start(self, i: int) -> int:
        """Index of the first token of the statement (or declaration) that contains i, inside the brackets
        around i (statements.statement_start, innermost)."""
        return statement_start(self.tokens, i, innermost=True)

    @functools.cached_property
    def shared_array_dims(self) -> list[tuple[int, int]]:
        """(`[`, `]`) token pairs of the dimensions of __shared__ array declarations."""
        dims = []
        for i in self.words.get("__shared__", ()):
            j = i
            while j < len(self.tokens) and not self.is_punct(j, ";", "{", "="):
                if self.is_punct(j, "["):
                    close = matching_close(self.tokens, j)
                    if close is None:
                        break
                    dims.append((j, close))
                    j = close
                j += 1
        return dims

    def statement_words(self, i: int) -> set[str]:
        """The identifiers of the statement around token i, to its `;` (or the `{` or `}` that ends it)."""
        tokens, j, found = self.tokens, self.statement_start(i), set()
        while j < len(tokens) and not self.is_punct(j, ";", "{", "}"):
            if tokens.kinds[j] == TokenKind.IDENTIFIER:
                found.add(self.text(j))
            j += 1
        return found

    @functools.cached_property
    def tile_32_scopes(self) -> dict[tuple[int, int], frozenset[str]]:
        """Function bodies that work on 32-wide cooperative-groups tiles (`thread_block_tile<32>`,
        `tiled_partition<32>(block)`, `tiled_partition(block, 32)`, also in a parameter) -> the names of their
        tile variables."""
        tokens = self.tokens
        found: dict[tuple[int, int], set[str]] = {}
        for i in self.occurrences(_TILE_TEMPLATES):
            j = next_code(tokens, i)
            if self.is_punct(j, "<"):
                close = template_close(tokens, j, len(tokens))
            else:
                close = matching_close(tokens, j) if self.is_punct(j, "(") else None
            if close is None or not any(self._is_32(k) for k in range(j + 1, close)):
                continue
            body = self.body_after(i) if self.scope(i) == (0, len(tokens)) else self.scope(i)
            if body is None:
                continue
            names = found.setdefault(body, set())
            start, after = self.statement_start(i), next_code(tokens, close)
            assigned = [k for k in range(start, i) if self.is_punct(k, "=")]
            if assigned:
                names.add(self.text(prev_code(tokens, assigned[0])))
            elif tokens.kinds[after] == TokenKind.IDENTIFIER:
                names.add(self.text(after))
        return {body: frozenset(names | _TILE_RANKS) for body, names in found.items()}

    def _is_32(self, k: int) -> bool:
        """Token k is a tile width of 32 (`<32>`, `(block, 32)`, a name defined as 32), not a part of one."""
        before, after = prev_code(self.tokens, k), next_code(self.tokens, k)
        alone = self.is_punct(before, "<", ",", "(") and self.is_punct(after, ">", ")", ",")
        return alone and (self.value(k) == 32 or self.text(k) in self.warp_size_names)

    def in_tile_code(self, i: int) -> bool:
        """Token i is in code that works on 32-wide cooperative-groups tiles, where 32 is the tile's width
        (right on ROCm, whose tiles keep their width on a 64-wide wavefront): a function with a 32-tile and
        no warp intrinsic, or a statement that uses the tile (or a thread_rank) in one with both."""
        names = self.tile_32_scopes.get(self.scope(i))
        if names is None:
            return False
        return not self.near_warp_code(i) or not names.isdisjoint(self.statement_words(i))

    @functools.cached_property
    def _launch_bounds(self) -> dict[tuple[int, int], int]:
        """Function bodies -> the maximum threads per block their `__launch_bounds__` declares."""
        found = {}
        for i in self.words.get("__launch_bounds__", ()):
            call = parse_call(self.tokens, i)
            body = self.body_after(i)
            threads = self.constant(*self.span_tokens(call.args[0])) if call is not None and call.args else None
            if body is not None and threads is not None:
                found[body] = threads
        return found

    def in_one_warp_block(self, i: int) -> bool:
        """Token i is in a kernel whose __launch_bounds__ allows at most 32 threads per block: one wavefront on
        AMD, whose threadIdx.x is its lane (0-31) there too."""
        threads = self._launch_bounds.get(self.scope(i))
        return threads is not None and threads <= 32

    def in_shared_dims(self, i: int) -> bool:
        return any(open_ < i < close for open_, close in self.shared_array_dims)
