"""The warp size on the host and on the device (issue #39 item 6): a project constant `#define WARP_SIZE 32` used on
both sides is split, never one constant for both.

- In device code (facts.warp_size.WarpSide.DEVICE) a use becomes `hipconv_warp_size`, hipconv_compat.h's constant of
  the architecture compiled for (clang's __AMDGCN_WAVEFRONT_SIZE__ on the device pass: 64 on gfx9, 32 on gfx10 and
  later), which serves where C++ needs a constant (an array bound, a template argument) as well as at run time.
- In host code a use where a run-time value will do (a launch's block, a shared-memory size, a host variable)
  becomes `hipconv_device_warp_size()`, the current device's hipDeviceAttributeWarpSize, read once per device.
- A host use that needs a constant (a host array bound, a template argument, a const that is used as one) is kept
  and reported (HC317, with the reason); a use whose side the tokens do not decide (a __host__ __device__
  function, a macro's body, a preprocessor condition, a file-scope declaration) is kept and reported (HC108).

Each rewrite is a note (HC107). `--no-compat` (no hipconv_compat.h) leaves every use and reports the host ones.
"""

from __future__ import annotations

from hipconv.diagnostics import HOST_WARP_SIZE_CONSTANT, WARP_SIZE_SIDE_UNDECIDED, WARP_SIZE_SPLIT
from hipconv.translate.context import FileContext
from hipconv.translate.edits import Edit
from hipconv.translate.facts.warp_size import WarpSide, WarpSizeUse, warp_size_constants, warp_size_uses
from hipconv.translate.found import NOTHING, Earlier, Found, MatchResult
from hipconv.translate.words import inside

DEVICE_CONSTANT = "hipconv_warp_size"  # the shim (templates/compat/hipconv_warp_size.h.j2) and its name
HOST_VALUE = "hipconv_device_warp_size"  # the shim (templates/compat/hipconv_device_warp_size.h.j2)
RULE_ID = "wavefront.warp-size-split"
_FAMILIES = "AMD GPUs run 64-lane wavefronts (gfx9: CDNA, GCN) or 32-lane ones (gfx10 and later: RDNA)"


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    names = warp_size_constants(ctx.tokens, ctx.words, ctx.project_macros)
    if not names:
        return NOTHING
    found = Found(ctx, earlier)
    skip = earlier.skip  # what the earlier matchers took: a project's own HIP code, version tests
    starts = [start for start, _ in skip]
    for use in warp_size_uses(ctx.tokens, names):
        if not (skip and inside(skip, starts, ctx.tokens.starts[use.token])):
            _split(found, use, names)
    return found.result()


def _split(c: Found, use: WarpSizeUse, names: dict[str, int]) -> None:
    tokens = c.tokens
    start, end = tokens.starts[use.token], tokens.ends[use.token]
    name = tokens.text(use.token)
    spelled = f"{name} ({names[name]})"
    if use.side is WarpSide.UNDECIDED:
        message = (
            f"{spelled} {use.why}: hipconv cannot tell whether host or device code reads it, and {_FAMILIES}; "
            f"left as it is (device code: {DEVICE_CONSTANT}; host code: {HOST_VALUE}(), from {_COMPAT})"
        )
        c.diag(start, WARP_SIZE_SIDE_UNDECIDED, message, symbol=name)
    elif use.side is WarpSide.DEVICE and c.settings.compat:
        _replace(c, start, end, DEVICE_CONSTANT, name)
        message = (
            f"{spelled} in device code: {DEVICE_CONSTANT}, the wavefront size of the architecture compiled for "
            "(64 on gfx9, 32 on gfx10 and later)"
        )
        c.diag(start, WARP_SIZE_SPLIT, message, symbol=name)
    elif use.side is WarpSide.HOST and use.constant is None and c.settings.compat:
        _replace(c, start, end, f"{HOST_VALUE}()", name)
        message = (
            f"{spelled} on the host: {HOST_VALUE}(), the current device's wavefront size "
            "(hipDeviceGetAttribute(&size, hipDeviceAttributeWarpSize, device), read once per device)"
        )
        c.diag(start, WARP_SIZE_SPLIT, message, symbol=name)
    elif use.side is WarpSide.HOST:
        why = use.constant if use.constant is not None else "left as it is (--no-compat)"
        needs = ", where C++ needs a constant, so hipconv keeps it" if use.constant is not None else ""
        message = (
            f"{spelled} on the host {why}{needs}, but {_FAMILIES}, and only the device knows which: read its size "
            f"at run time ({HOST_VALUE}() or hipDeviceGetAttribute(&size, hipDeviceAttributeWarpSize, device))"
        )
        c.diag(start, HOST_WARP_SIZE_CONSTANT, message, symbol=name)


_COMPAT = "hipconv_compat.h"


def _replace(c: Found, start: int, end: int, text: str, name: str) -> None:
    c.edits.append(Edit.replace(start, end, text, RULE_ID))
    c.shims.add(text.removesuffix("()"))
