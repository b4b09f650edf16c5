"""Portability checks of `hipconv scan`: lexer tokens -> (offset, message) findings.

One small function per check, registered in CHECKS by the `@check` decorator with its
code, its id and the words that must appear in a file for it to run (files without them
are not looked at). The function gets those words back, so they are written once.
Registration order is CHECKS order, which decides the finding kept when two checks fire
at one position. Severity, title and hint live with the code in diagnostics.CODES.
Checks see tokens only, so comments and strings never match and every #if branch is seen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from hipconv.scan.device_props import DEVICE_PROP_SINCE
from hipconv.scan.view import SHUFFLES, SYNC_INTRINSICS, WARP_INTRINSICS, FileView
from hipconv.settings import Version
from hipconv.translate.lexer import TokenKind
from hipconv.translate.syntax import matching_close, next_code, parse_call, prev_code

Finding = tuple[int, str]  # (byte offset into the body, message)
FindFunction = Callable[[FileView, frozenset[str]], Iterator[Finding]]  # (view, the check's words) -> findings


@dataclass(frozen=True)
class Check:
    code: str  # its severity, title and hint: diagnostics.CODES[code]
    id: str
    names: frozenset[str]  # the file must contain one of these words for the check to run
    find: FindFunction
    words: frozenset[bytes] = field(init=False, repr=False)  # names, encoded: what the scanner's prefilter compares

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", frozenset(name.encode() for name in self.names))

    def run(self, view: FileView) -> Iterator[Finding]:
        return self.find(view, self.names)


_REGISTERED: list[Check] = []


def check(code: str, check_id: str, *, words: Iterable[str]) -> Callable[[FindFunction], FindFunction]:
    """Register the decorated function as check `code`, run on files that contain one of `words`."""
    def register(find: FindFunction) -> FindFunction:
        _REGISTERED.append(Check(code, check_id, frozenset(words), find))
        return find
    return register


_COMPARISONS = frozenset({"<", ">", "<=", ">=", "==", "!="})
_LANE_OPERATORS = ("%", "/", "&", "%=", "/=", "&=")
_WARP_SIZE_NAME = re.compile(r"(?i)warp_?(size|width|threads|lanes)|threads_?per_?warp|lanes_?per_?warp")
_PTX = re.compile(
    r"%(?:laneid|warpid|nwarpid|smid|nsmid|tid|ntid|ctaid|nctaid|clock|clock64|globaltimer|lanemask_[a-z]+)\b"
    r"|\.reg\b|\b(?:mov|ld|st|add|sub|mul|mad|fma|div|shfl|vote|bar|membar|atom|red|cvt|setp?|selp|prmt|bfe|bfi|brev"
    r"|popc|clz|cp|mma|wmma|ldmatrix|stmatrix|activemask|redux|elect|fence|tex|suld|sust|lop3|shf|dp4a)\.[a-z0-9_.]+"
)
_MAX_BLOCK = 1024
_MAX_LDS = 64 * 1024
_IGNORED_CONFIG_CALLS = frozenset({"cudaFuncSetCacheConfig", "cudaDeviceSetCacheConfig", "cudaFuncSetSharedMemConfig",
                                   "cudaDeviceSetSharedMemConfig", "hipFuncSetCacheConfig", "hipDeviceSetCacheConfig",
                                   "hipFuncSetSharedMemConfig", "hipDeviceSetSharedMemConfig"})
_SET_ATTRIBUTE_CALLS = frozenset({"cudaFuncSetAttribute", "hipFuncSetAttribute"})
_NARROW_TYPES = frozenset({"int", "unsigned", "uint32_t", "int32_t", "uint", "__uint32_t"})
_WIDE_TYPES = frozenset({"long", "uint64_t", "int64_t", "auto", "size_t", "uintptr_t", "decltype", "lanemask_t"})
_32_BIT_BIT_OPS = ("__popc", "__ffs", "__clz", "__brev")
_LANE_SRC_SHUFFLES = frozenset({"__shfl", "__shfl_sync"})  # their last argument is a source lane, not an offset


# ---------------------------------------------------------------- wavefront-size hazards


@check("HC301", "wavefront.warp-size-literal", words=WARP_INTRINSICS | {"threadIdx", "blockDim", "define"})
def warp_size_literal(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    """`threadIdx.x % 32`, `& 31`, `/ 32` in warp code; `#define WARP_SIZE 32`, `kWarpSize = 32`."""
    kinds = view.tokens.kinds
    for i in range(len(view.tokens)):
        # the spelling with line splices joined (not is_punct's raw one): `%\<newline>=` is `%=` here
        if kinds[i] == TokenKind.PUNCTUATION and view.text(i) in _LANE_OPERATORS:
            yield from _lane_literal(view, i)
        elif kinds[i] == TokenKind.IDENTIFIER and _WARP_SIZE_NAME.search(view.text(i)):
            yield from _warp_size_definition(view, i)


def _lane_literal(view: FileView, i: int) -> Iterator[Finding]:
    """`% 32`, `/ 32`, `& 31` at operator i, in lane arithmetic or near warp code."""
    tokens = view.tokens
    op = view.text(i)
    j = next_code(tokens, i)
    wanted = 31 if op.startswith("&") else 32
    if view.value(j) != wanted or view.in_shared_dims(i):
        return
    lane_math = any(view.text(k) in ("threadIdx", "blockDim") for k in range(view.statement_start(i), i))
    if lane_math or view.near_warp_code(i):
        role = "lane mask" if wanted == 31 else "warp size"
        yield tokens.starts[j], (f"`{op} {view.text(j)}` uses {view.text(j)} as the {role}: a 64-wide "
                                 "wavefront has lanes 0-63")


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


@check("HC302", "wavefront.full-mask-32", words=SYNC_INTRINSICS)
def full_mask_32(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    """0xffffffff, or a name defined as it, as the mask of a *_sync intrinsic."""
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
            yield call.args[0][0], (f"{view.text(first)}{what} as the mask of {view.text(i)} covers lanes 0-31 only "
                                    "of a 64-wide wavefront")


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
            yield tokens.starts[start], ("shuffle loop starts at offset 16 (half of a 32-lane warp); on a 64-wide "
                                         "wavefront lanes 32-63 are never combined")
    for i in view.occurrences(words - _LANE_SRC_SHUFFLES):
        call = parse_call(tokens, i)
        masked = view.text(i).endswith("_sync")
        if call is None or len(call.args) != (3 if masked else 2):
            continue
        first, last = view.span_tokens(call.args[-1])
        if last - first == 1 and view.value(first) == 16:
            yield call.args[-1][0], (f"{view.text(i)} by 16 starts a 32-lane reduction; a 64-wide wavefront "
                                     "needs a step of 32 first")


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
                yield tokens.starts[i], (f"{view.text(i)} passed to {callee}, which takes 32 bits: lanes 32-63 of "
                                         f"the 64-bit result are dropped (use {callee}ll)")
            continue
        if not view.is_punct(before, "=", "{"):
            continue
        name = prev_code(tokens, before)
        if tokens.kinds[name] != TokenKind.IDENTIFIER:
            continue
        type_words = {view.text(k) for k in range(view.statement_start(name), name)
                      if tokens.kinds[k] != TokenKind.COMMENT}
        if type_words & _NARROW_TYPES and not type_words & _WIDE_TYPES:
            yield tokens.starts[i], (f"{view.text(i)}'s 64-bit result (one bit per lane of a 64-wide wavefront) "
                                     f"is stored in the 32-bit {view.text(name)}")


@check("HC305", "wavefront.activemask", words=("__activemask",))
def activemask(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    for i in view.occurrences(words):
        if not view.is_punct(next_code(view.tokens, i), "("):
            continue
        yield view.tokens.starts[i], ("__activemask() returns a 64-bit mask on AMD, and lanes of a wavefront run in "
                                      "lockstep: code that uses it to find diverged lanes behaves differently")


@check("HC306", "wavefront.per-warp-array-32", words=("__shared__",))
def per_warp_array_32(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    """`__shared__ float partial[32]` or `[BLOCK / 32]` in a function (or file) with warp intrinsics."""
    tokens = view.tokens
    for open_, close in view.shared_array_dims:
        if not view.near_warp_code(open_):
            continue
        inner = [k for k in range(open_ + 1, close) if tokens.kinds[k] != TokenKind.COMMENT]
        if len(inner) == 1 and view.value(inner[0]) == 32:
            yield tokens.starts[inner[0]], ("shared array sized 32, one slot per lane of a 32-wide warp; a 64-wide "
                                            "wavefront indexes lanes 0-63")
        else:
            for k in inner:
                if view.is_punct(k, "/") and view.value(next_code(tokens, k)) == 32:
                    yield tokens.starts[k], ("shared array sized by `/ 32` warps per block; on AMD a block has "
                                             "blockDim / 64 wavefronts, so warp indices and sizes disagree")


# ---------------------------------------------------------------- other AMD incompatibilities


@check("HC311", "amd.inline-ptx", words=("asm", "__asm__", "__asm"))
def inline_ptx(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    tokens = view.tokens
    for i in view.occurrences(words):
        j = next_code(tokens, i)
        while view.text(j) in ("volatile", "__volatile__", "goto", "inline"):
            j = next_code(tokens, j)
        close = matching_close(tokens, j) if view.is_punct(j, "(") else None
        if close is None:
            continue
        template = "".join(view.text(k) for k in range(j + 1, close) if tokens.kinds[k] == TokenKind.LITERAL
                           and not any(view.is_punct(m, ":") for m in range(j + 1, k)))
        if _PTX.search(template):
            yield tokens.starts[i], "inline PTX assembly: hipcc for AMD GPUs cannot assemble it"


@check("HC312", "amd.cuda-arch-compare", words=("__CUDA_ARCH__",))
def cuda_arch_compare(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    tokens = view.tokens
    for i in view.occurrences(words):
        if view.is_punct(next_code(tokens, i), *_COMPARISONS) or view.is_punct(prev_code(tokens, i), *_COMPARISONS):
            yield tokens.starts[i], ("__CUDA_ARCH__ compared with a compute capability: HIP does not define it for "
                                     "AMD, so this branch is never taken there")


@check("HC313", "amd.texture-reference", words=("texture", "surface"))
def texture_reference(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    tokens = view.tokens
    for i in view.occurrences(words):
        before = prev_code(tokens, i)
        qualified = view.is_punct(before, "::") and view.text(prev_code(tokens, before)) not in ("", ",", "(")
        if view.is_punct(next_code(tokens, i), "<") and not qualified:
            yield tokens.starts[i], (f"legacy {view.text(i)} reference: removed in CUDA 12 and deprecated in HIP; "
                                     f"{view.text(i)} objects port")


@check("HC314", "amd.device-prop-field", words=("cudaDeviceProp", "hipDeviceProp_t"))
def device_prop_field(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    """`prop.luid` where prop is declared as a cudaDeviceProp (value, pointer or reference)."""
    tokens = view.tokens
    target = view.settings.rocm
    props = _declared_names(view, words)
    for i in range(len(tokens)):
        if tokens.kinds[i] != TokenKind.IDENTIFIER or view.text(i) not in DEVICE_PROP_SINCE:
            continue
        dot = prev_code(tokens, i)
        if not view.is_punct(dot, ".", "->") or view.text(prev_code(tokens, dot)) not in props:
            continue
        since = DEVICE_PROP_SINCE[view.text(i)]
        if since is not None and Version.parse(since) <= target:
            continue
        when = f"it appears in ROCm {since}" if since else "no ROCm release has it"
        yield tokens.starts[i], (f"cudaDeviceProp::{view.text(i)} has no hipDeviceProp_t counterpart in ROCm "
                                 f"{target} ({when})")


def _declared_names(view: FileView, types: frozenset[str]) -> set[str]:
    """Names declared with one of types: `T x`, `T* x`, `const T& x`."""
    tokens = view.tokens
    names: set[str] = set()
    for i in view.occurrences(types):
        j = next_code(tokens, i)
        while view.is_punct(j, "*", "&") or view.text(j) == "const":
            j = next_code(tokens, j)
        if tokens.kinds[j] == TokenKind.IDENTIFIER:
            names.add(view.text(j))
    return names


@check("HC315", "amd.launch-bounds-1024", words=("__launch_bounds__",))
def launch_bounds(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    tokens = view.tokens
    for i in view.occurrences(words):
        call = parse_call(tokens, i)
        if call is None or not call.args:
            continue
        threads = view.constant(*view.span_tokens(call.args[0]))
        if threads is not None and threads > _MAX_BLOCK:
            yield call.args[0][0], f"__launch_bounds__ asks for {threads} threads per block; AMD allows {_MAX_BLOCK}"


@check("HC316", "amd.ignored-func-config", words=_IGNORED_CONFIG_CALLS | _SET_ATTRIBUTE_CALLS)
def ignored_func_config(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    for i in view.occurrences(words):
        if view.text(i) in _SET_ATTRIBUTE_CALLS:
            yield from _ignored_func_attribute(view, i)
        else:
            yield view.tokens.starts[i], f"{view.text(i)} is accepted and ignored by HIP on AMD GPUs"


def _ignored_func_attribute(view: FileView, i: int) -> Iterator[Finding]:
    """`cudaFuncSetAttribute(k, attr, value)` at i with an attribute AMD ignores or a value it cannot honour."""
    tokens = view.tokens
    call = parse_call(tokens, i)
    if call is None or len(call.args) != 3:
        return
    attr = tokens.body[call.args[1][0]:call.args[1][1]].decode()
    if attr.endswith("FuncAttributePreferredSharedMemoryCarveout"):
        yield call.args[1][0], f"{attr} is ignored by HIP on AMD GPUs (the L1/LDS split is fixed)"
    elif attr.endswith("FuncAttributeMaxDynamicSharedMemorySize"):
        size = view.constant(*view.span_tokens(call.args[2]))
        if size is not None and size > _MAX_LDS:
            yield call.args[2][0], (f"{size} bytes of dynamic shared memory: an AMD block gets at most "
                                    f"{_MAX_LDS} bytes of LDS, so the launch will fail")


CHECKS: tuple[Check, ...] = tuple(_REGISTERED)  # in registration order: the first wins at one position
