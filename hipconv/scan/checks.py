"""Portability checks of `hipconv scan`: lexer tokens -> (offset, message) findings.

One small function per check, registered in CHECKS with its code and the words
that must appear in a file for it to fire (files without them are not looked at).
Severity, title and hint live with the code in diagnostics.CODES. Checks see
tokens only, so comments and strings never match and every #if branch is seen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator

from hipconv.scan.view import REDUCES, SHUFFLES, SYNC_INTRINSICS, SYNC_VOTES, WARP_INTRINSICS, FileView
from hipconv.settings import Version
from hipconv.translate.lexer import TokenKind
from hipconv.translate.syntax import matching_close, next_code, parse_call, prev_code

Finding = tuple[int, str]  # (byte offset into the body, message)

_COMPARISONS = frozenset({"<", ">", "<=", ">=", "==", "!="})
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
# cudaDeviceProp fields (CUDA 13) that hipDeviceProp_t lacks, by the first bundled ROCm release that has them
# (None: no bundled release). From ../shared/api-inventory; tests/test_scan_checks.py re-derives it.
DEVICE_PROP_SINCE: dict[str, str | None] = {
    **dict.fromkeys((
        "uuid luid luidDeviceNodeMask maxTexture1DMipmap maxTexture2DMipmap maxTexture2DLinear maxTexture2DGather "
        "maxTexture3DAlt maxTextureCubemap maxTexture1DLayered maxTexture2DLayered maxTextureCubemapLayered maxSurface1D "
        "maxSurface2D maxSurface3D maxSurface1DLayered maxSurface2DLayered maxSurfaceCubemap maxSurfaceCubemapLayered "
        "surfaceAlignment asyncEngineCount unifiedAddressing persistingL2CacheMaxSize streamPrioritiesSupported "
        "globalL1CacheSupported localL1CacheSupported sharedMemPerMultiprocessor regsPerMultiprocessor "
        "multiGpuBoardGroupID hostNativeAtomicSupported computePreemptionSupported canUseHostPointerForRegisteredMem "
        "sharedMemPerBlockOptin maxBlocksPerMultiProcessor accessPolicyMaxWindowSize reservedSharedMemPerBlock "
        "hostRegisterSupported hostRegisterReadOnlySupported timelineSemaphoreInteropSupported memoryPoolsSupported "
        "gpuDirectRDMASupported gpuDirectRDMAFlushWritesOptions gpuDirectRDMAWritesOrdering "
        "memoryPoolSupportedHandleTypes ipcEventSupported clusterLaunch unifiedFunctionPointers reserved").split(), "6.3"),
    **dict.fromkeys((
        "sparseCudaArraySupported deferredMappingCudaArraySupported deviceNumaConfig deviceNumaId mpsEnabled hostNumaId "
        "gpuPciDeviceID gpuPciSubsystemID hostNumaMultinodeIpcSupported").split(), None),
}



# ---------------------------------------------------------------- wavefront-size hazards


def warp_size_literal(view: FileView) -> Iterator[Finding]:
    """`threadIdx.x % 32`, `& 31`, `/ 32` in warp code; `#define WARP_SIZE 32`, `kWarpSize = 32`."""
    tokens = view.tokens
    for i in range(len(tokens)):
        if tokens.kinds[i] == TokenKind.PUNCTUATION:
            op = view.text(i)
            if op not in ("%", "/", "&", "%=", "/=", "&="):
                continue
            j = next_code(tokens, i)
            wanted = 31 if op.startswith("&") else 32
            if view.value(j) != wanted or view.in_shared_dims(i):
                continue
            operand = range(view.statement_start(i), i)
            lane_math = any(view.text(k) in ("threadIdx", "blockDim") for k in operand)
            if lane_math or view.near_warp_code(i):
                role = "lane mask" if wanted == 31 else "warp size"
                yield tokens.starts[j], (f"`{op} {view.text(j)}` uses {view.text(j)} as the {role}: a 64-wide "
                                         "wavefront has lanes 0-63")
        elif tokens.kinds[i] == TokenKind.IDENTIFIER and _WARP_SIZE_NAME.search(view.text(i)):
            j = next_code(tokens, i)
            define = view.text(prev_code(tokens, i)) == "define"
            if not define and view.is_punct(j, "=", "{", "("):
                j = next_code(tokens, j)
            elif not define:
                continue
            if view.value(j) == 32 and (define or not view.is_punct(prev_code(tokens, i), ".", "->")):
                yield tokens.starts[j], f"{view.text(i)} is defined as 32; AMD wavefronts have 64 lanes (warpSize)"


def full_mask_32(view: FileView) -> Iterator[Finding]:
    """0xffffffff, or a name defined as it, as the mask of a *_sync intrinsic."""
    tokens = view.tokens
    mask_names: set[str] = set()
    for name, where in view.words.items():
        for i in where:
            j = next_code(tokens, i)
            if view.text(prev_code(tokens, i)) != "define" and view.is_punct(j, "=", "{", "("):
                j = next_code(tokens, j)
            if _is_full_mask_32(view, j):
                mask_names.add(name)
    for i in view.occurrences(SYNC_INTRINSICS):
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


def _is_full_mask_32(view: FileView, i: int) -> bool:
    found = view.int_literal(i)
    return found is not None and found[0] == 0xFFFFFFFF and "ll" not in found[1]


def shuffle_offset_16(view: FileView) -> Iterator[Finding]:
    """`for (int offset = 16; ...) __shfl_down_sync(...)`, and unrolled shuffles by a literal 16."""
    tokens = view.tokens
    shuffles = frozenset(s for s in SHUFFLES if s != "__shfl" and s != "__shfl_sync")
    for i in view.words.get("for", ()):
        open_ = next_code(tokens, i)
        close = matching_close(tokens, open_) if view.is_punct(open_, "(") else None
        if close is None:
            continue
        start = None
        for j in range(open_ + 1, close):
            if view.is_punct(j, ";"):
                break
            if view.is_punct(j, "=", "{", "(") and view.value(next_code(tokens, j)) == 16:
                start = next_code(tokens, j)
        if start is None:
            continue
        body_open = next_code(tokens, close)
        body_end = matching_close(tokens, body_open) if view.is_punct(body_open, "{") else None
        if body_end is None:  # a single statement
            body_end = body_open
            while body_end < len(tokens) and not view.is_punct(body_end, ";"):
                body_end += 1
        if any(open_ < k < body_end for k in view.occurrences(WARP_INTRINSICS)):
            yield tokens.starts[start], ("shuffle loop starts at offset 16 (half of a 32-lane warp); on a 64-wide "
                                         "wavefront lanes 32-63 are never combined")
    for i in view.occurrences(shuffles):
        call = parse_call(tokens, i)
        masked = view.text(i).endswith("_sync")
        if call is None or len(call.args) != (3 if masked else 2):
            continue
        first, last = view.span_tokens(call.args[-1])
        if last - first == 1 and view.value(first) == 16:
            yield call.args[-1][0], (f"{view.text(i)} by 16 starts a 32-lane reduction; a 64-wide wavefront "
                                     "needs a step of 32 first")


def ballot_32bit(view: FileView) -> Iterator[Finding]:
    """`unsigned m = __ballot_sync(...)`, `__popc(__ballot_sync(...))`."""
    tokens = view.tokens
    narrow = {"int", "unsigned", "uint32_t", "int32_t", "uint", "__uint32_t"}
    wide = {"long", "uint64_t", "int64_t", "auto", "size_t", "uintptr_t", "decltype", "lanemask_t"}
    for i in view.occurrences(("__ballot_sync", "__ballot", "__activemask")):
        before = prev_code(tokens, i)
        if view.is_punct(before, "("):
            callee = view.text(prev_code(tokens, before))
            if callee in ("__popc", "__ffs", "__clz", "__brev"):
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
        if type_words & narrow and not type_words & wide:
            yield tokens.starts[i], (f"{view.text(i)}'s 64-bit result (one bit per lane of a 64-wide wavefront) "
                                     f"is stored in the 32-bit {view.text(name)}")


def activemask(view: FileView) -> Iterator[Finding]:
    for i in view.occurrences(("__activemask",)):
        if not view.is_punct(next_code(view.tokens, i), "("):
            continue
        yield view.tokens.starts[i], ("__activemask() returns a 64-bit mask on AMD, and lanes of a wavefront run in "
                                      "lockstep: code that uses it to find diverged lanes behaves differently")


def per_warp_array_32(view: FileView) -> Iterator[Finding]:
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


def inline_ptx(view: FileView) -> Iterator[Finding]:
    tokens = view.tokens
    for i in view.occurrences(("asm", "__asm__", "__asm")):
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


def cuda_arch_compare(view: FileView) -> Iterator[Finding]:
    tokens = view.tokens
    for i in view.occurrences(("__CUDA_ARCH__",)):
        if view.is_punct(next_code(tokens, i), *_COMPARISONS) or view.is_punct(prev_code(tokens, i), *_COMPARISONS):
            yield tokens.starts[i], ("__CUDA_ARCH__ compared with a compute capability: HIP does not define it for "
                                     "AMD, so this branch is never taken there")


def texture_reference(view: FileView) -> Iterator[Finding]:
    tokens = view.tokens
    for i in view.occurrences(("texture", "surface")):
        before = prev_code(tokens, i)
        qualified = view.is_punct(before, "::") and view.text(prev_code(tokens, before)) not in ("", ",", "(")
        if view.is_punct(next_code(tokens, i), "<") and not qualified:
            yield tokens.starts[i], (f"legacy {view.text(i)} reference: removed in CUDA 12 and deprecated in HIP; "
                                     f"{view.text(i)} objects port")


def device_prop_field(view: FileView) -> Iterator[Finding]:
    """`prop.luid` where prop is declared as a cudaDeviceProp (value, pointer or reference)."""
    tokens = view.tokens
    target = view.settings.rocm
    props = set()
    for i in view.occurrences(("cudaDeviceProp", "hipDeviceProp_t")):
        j = next_code(tokens, i)
        while view.is_punct(j, "*", "&") or view.text(j) == "const":
            j = next_code(tokens, j)
        if tokens.kinds[j] == TokenKind.IDENTIFIER:
            props.add(view.text(j))
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


def launch_bounds(view: FileView) -> Iterator[Finding]:
    tokens = view.tokens
    for i in view.occurrences(("__launch_bounds__",)):
        call = parse_call(tokens, i)
        if call is None or not call.args:
            continue
        threads = view.constant(*view.span_tokens(call.args[0]))
        if threads is not None and threads > _MAX_BLOCK:
            yield call.args[0][0], f"__launch_bounds__ asks for {threads} threads per block; AMD allows {_MAX_BLOCK}"


def ignored_func_config(view: FileView) -> Iterator[Finding]:
    tokens = view.tokens
    for i in view.occurrences(_IGNORED_CONFIG_CALLS):
        yield tokens.starts[i], f"{view.text(i)} is accepted and ignored by HIP on AMD GPUs"
    for i in view.occurrences(("cudaFuncSetAttribute", "hipFuncSetAttribute")):
        call = parse_call(tokens, i)
        if call is None or len(call.args) != 3:
            continue
        attr = tokens.body[call.args[1][0]:call.args[1][1]].decode()
        if attr.endswith("FuncAttributePreferredSharedMemoryCarveout"):
            yield call.args[1][0], f"{attr} is ignored by HIP on AMD GPUs (the L1/LDS split is fixed)"
        elif attr.endswith("FuncAttributeMaxDynamicSharedMemorySize"):
            size = view.constant(*view.span_tokens(call.args[2]))
            if size is not None and size > _MAX_LDS:
                yield call.args[2][0], (f"{size} bytes of dynamic shared memory: an AMD block gets at most "
                                        f"{_MAX_LDS} bytes of LDS, so the launch will fail")


# ---------------------------------------------------------------- the table


@dataclass(frozen=True)
class Check:
    code: str  # its severity, title and hint: diagnostics.CODES[code]
    id: str
    words: frozenset[bytes]  # the file must contain one of these words for the check to run
    find: Callable[[FileView], Iterator[Finding]]


def _check(code: str, check_id: str, words: frozenset[str] | tuple[str, ...],
           find: Callable[[FileView], Iterator[Finding]]) -> Check:
    return Check(code, check_id, frozenset(w.encode() for w in words), find)


_LANE_WORDS = WARP_INTRINSICS | {"threadIdx", "blockDim", "define"}
CHECKS: tuple[Check, ...] = (
    _check("HC301", "wavefront.warp-size-literal", _LANE_WORDS, warp_size_literal),
    _check("HC302", "wavefront.full-mask-32", SYNC_INTRINSICS, full_mask_32),
    _check("HC303", "wavefront.shuffle-offset-16", SHUFFLES, shuffle_offset_16),
    _check("HC304", "wavefront.ballot-32bit", ("__ballot_sync", "__ballot", "__activemask"), ballot_32bit),
    _check("HC305", "wavefront.activemask", ("__activemask",), activemask),
    _check("HC306", "wavefront.per-warp-array-32", ("__shared__",), per_warp_array_32),
    _check("HC311", "amd.inline-ptx", ("asm", "__asm__", "__asm"), inline_ptx),
    _check("HC312", "amd.cuda-arch-compare", ("__CUDA_ARCH__",), cuda_arch_compare),
    _check("HC313", "amd.texture-reference", ("texture", "surface"), texture_reference),
    _check("HC314", "amd.device-prop-field", ("cudaDeviceProp", "hipDeviceProp_t"), device_prop_field),
    _check("HC315", "amd.launch-bounds-1024", ("__launch_bounds__",), launch_bounds),
    _check("HC316", "amd.ignored-func-config", _IGNORED_CONFIG_CALLS | {"cudaFuncSetAttribute", "hipFuncSetAttribute"},
           ignored_func_config),
)
CHECK_WORDS = frozenset().union(*(c.words for c in CHECKS))
