"""ROCm 7's warpSize (HC307): up to ROCm 6.4 HIP declared `static constexpr int warpSize =
__AMDGCN_WAVEFRONT_SIZE;` (hip/amd_detail/amd_warp_functions.h), and HIP code used it where C++ needs a
constant; from ROCm 7.0 it is a run-time value (one binary can hold wave32 and wave64 code), so such code no
longer compiles. CUDA's warpSize never was a constant, so a CUDA tree has these uses only in HIP branches, but a
HIP tree kept after a port is where they gather."""

from __future__ import annotations

from collections.abc import Iterator

from hipconv.diagnostics import HOST_WARP_SIZE_CONSTANT, WARP_SIZE_CONSTANT
from hipconv.scan.registry import CheckHit, check
from hipconv.scan.view import FileView
from hipconv.settings import Settings
from hipconv.translate.facts.builtin_warp_size import ROCM_7, warp_size_constant_uses
from hipconv.translate.lexer import TokenKind
from hipconv.translate.syntax import parse_launch, prev_code

__all__ = ["ROCM_7", "constant_warp_size_fix"]


def constant_warp_size_fix(settings: Settings) -> str:
    """What to use for a warp size that must be a constant: warpSize up to ROCm 6.4, a per-target constant from
    7.0, where warpSize is no longer a constant expression."""
    if settings.rocm < ROCM_7:
        return "use warpSize"
    return (
        "from ROCm 7.0 warpSize is no longer a constant expression: define the constant per target, 64 for gfx9 and "
        "older (GCN, CDNA) and 32 for gfx10-gfx12 (RDNA, wave32 by default), or read warpSize at run time"
    )


@check(WARP_SIZE_CONSTANT, "wavefront.warp-size-not-constant", words=("warpSize",))
def warp_size_not_constant(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """warpSize (or a macro defined with it, object- or function-like) as an array bound, a template argument, in
    static_assert, alignas or __launch_bounds__, in a constexpr initialiser or `if constexpr`, as an enumerator or
    a case label, when the target is ROCm 7.0 or later; and in an `#if` at every target, where it is no macro
    (facts.builtin_warp_size, which translate's HC038 reads too)."""
    seen = frozenset(w.encode() for w in words)
    for use in warp_size_constant_uses(view.tokens, seen):
        name = view.text(use.token)
        through = " (defined with warpSize)" if use.through else ""
        if use.directive is not None:
            yield (
                view.tokens.starts[use.token],
                f"{name}{through} in `#{use.directive}`: warpSize is no macro, so the preprocessor reads it as 0 "
                "(test the target instead, e.g. `#if defined(__GFX9__)` for 64-wide wavefronts, or read warpSize "
                "at run time)",
            )
        elif use.where is not None and view.settings.rocm >= ROCM_7:
            yield (
                view.tokens.starts[use.token],
                f"{name}{through} {use.where}, which must be a constant ({constant_warp_size_fix(view.settings)})",
            )


_LAUNCH_SIZES = ("block", "dynamic shared memory")  # the launch arguments after the grid that a warp size sizes
_DEVICE_WORDS = frozenset({"__global__", "__device__"})


@check(HOST_WARP_SIZE_CONSTANT, "wavefront.warp-size-host-launch", words=("define", "const", "constexpr"))
def warp_size_host_launch(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """`k<<<grid, 4 * WARP_SIZE, WARP_SIZE * sizeof(float)>>>` with WARP_SIZE defined as 32: the host sizes the
    launch from a constant warp size, which is right for one wavefront size only (64 on gfx9, 32 on RDNA); where
    device code uses the same constant, it is one constant for both sides, which no AMD GPU family decides."""
    names = view.warp_size_names
    if not names or b"<<<" not in view.tokens.body:
        return
    tokens = view.tokens
    device_use = next((k for k in view.occurrences(names) if _in_device_function(view, k)), None)
    for chevron in range(len(tokens)):
        if tokens.kinds[chevron] != TokenKind.PUNCTUATION or tokens.raw(chevron) != b"<<<":
            continue
        launch = parse_launch(tokens, chevron)
        for what, span in zip(_LAUNCH_SIZES, launch.config[1:3] if launch is not None else ()):
            used = next((k for k in range(*view.span_tokens(span)) if view.text(k) in names), None)
            if used is None:
                continue
            also = ""
            if device_use is not None:
                line = tokens.body.count(b"\n", 0, tokens.starts[device_use]) + 1
                also = (
                    f"; device code uses it too (line {line}), where a per-architecture constant is needed "
                    "(__AMDGCN_WAVEFRONT_SIZE__ on the device pass): one constant cannot serve both"
                )
            yield (
                tokens.starts[used],
                f"{view.text(used)} (32) sizes this launch's {what} on the host, but AMD GPUs run 64-lane wavefronts "
                "(gfx9: CDNA, GCN) or 32-lane ones (gfx10 and later: RDNA), and only the device knows which: read "
                "its size on the host (hipDeviceGetAttribute(&size, hipDeviceAttributeWarpSize, device)) and derive "
                f"the launch from it{also}",
            )


def _in_device_function(view: FileView, k: int) -> bool:
    """Token k is in the body of a __global__ or __device__ function (its declaration names one of them)."""
    first, _ = view.scope(k)
    if first == 0:
        return False
    j = prev_code(view.tokens, first)
    while j >= 0 and not view.is_punct(j, ";", "}") and view.text(j) != "define":
        if view.text(j) in _DEVICE_WORDS:
            return True
        j = prev_code(view.tokens, j)
    return False
