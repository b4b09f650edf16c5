"""Surface functions' boundary mode (HC024, HC025). CUDA's surf1Dread ... surfCubemapwrite take a last
argument, the cudaSurfaceBoundaryMode of an out-of-range access: trap (the default), clamp to the edge, or
zero (reads give 0, writes are dropped). HIP's take none that does anything: HIP 5.2's accept an
`int boundaryMode` and ignore it, and from ROCm 6.0 they no longer have the parameter (but surf1Dread), so a
call with it stops compiling (hip/amd_detail/amd_surface_functions.h of Debian's HIP 5.2 and ROCm 6.3).
Within the surface every mode is the same access, so the argument is dropped where the mode only says what
an out-of-range access does and a correct program makes none (trap, zero: a warning naming what is lost);
clamping makes edge reads of coordinates outside the surface part of the computation, so a clamp (or a mode
that cannot be seen) is reported as an error and left as it is."""

from __future__ import annotations

from hipconv.diagnostics import SURFACE_MODE_DROPPED, SURFACE_MODE_UNSUPPORTED
from hipconv.translate.comments import code_text
from hipconv.translate.edits import Edit
from hipconv.translate.found import Found
from hipconv.translate.syntax import is_punct, next_code, parse_call, prev_code
from hipconv.translate.words import identifier_tokens

DROPPED_CODE, KEPT_CODE = SURFACE_MODE_DROPPED, SURFACE_MODE_UNSUPPORTED
# CUDA's surface functions -> the arguments HIP's take (data, surface, coordinates); CUDA's take one more, the
# boundary mode. (The cubemap-layered ones are left out: CUDA's take one layer-face index, HIP's two.)
HIP_ARITY = {
    "surf1Dread": 3,
    "surf1Dwrite": 3,
    "surf2Dread": 4,
    "surf2Dwrite": 4,
    "surf3Dread": 5,
    "surf3Dwrite": 5,
    "surf1DLayeredread": 4,
    "surf1DLayeredwrite": 4,
    "surf2DLayeredread": 5,
    "surf2DLayeredwrite": 5,
    "surfCubemapread": 5,
    "surfCubemapwrite": 5,
}
_WORDS = frozenset(name.encode() for name in HIP_ARITY)
_DROPPABLE = {
    "cudaBoundaryModeTrap": "an out-of-range access no longer traps",
    "cudaBoundaryModeZero": "an out-of-range access is what AMD's image instructions make of it (HIP documents no "
    "zero mode)",
}


def match_surface_modes(c: Found, words: frozenset[bytes]) -> None:
    """Drop or report the boundary-mode argument of each surface function call that has one."""
    found = _WORDS & words
    if not found:
        return
    tokens = c.tokens
    for i in identifier_tokens(tokens, found):
        if is_punct(tokens, prev_code(tokens, i), ".", "->", "::") or not is_punct(tokens, next_code(tokens, i), "("):
            continue
        name = tokens.text(i)
        call = parse_call(tokens, i)
        if call is None or len(call.args) != HIP_ARITY[name] + 1:
            continue
        mode_span = call.args[-1]
        mode = code_text(tokens, mode_span).strip().removeprefix("::")
        where = f"{name}'s boundary mode {mode}: HIP's {name} takes none (5.2 ignores it; ROCm 6 has no parameter)"
        lost = _DROPPABLE.get(mode)
        if lost is None:
            message = (
                f"{where}, so accesses outside the surface compute otherwise; the argument is left in place: "
                "clamp the coordinates before the call and drop it"
            )
            c.diag(tokens.starts[i], KEPT_CODE, message, None, name)
            continue
        c.edits.append(Edit(call.args[-2][1], mode_span[1], ()))
        c.dropped.append(mode_span)
        c.diag(tokens.starts[i], DROPPED_CODE, f"{where}: dropped; accesses inside the surface are the same, {lost}")
