"""Diagnostics are data: they travel inside FileResult and are rendered by report.py."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(enum.Enum):
    NOTE = "note"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True)
class Code:
    code: str
    severity: Severity
    title: str
    hint: str = ""  # what to do about it (shown by `hipconv scan`)
    unported: bool = False  # the CUDA API stays untranslated: --strict fails on it, --stats lists it


def _codes(*codes: Code) -> dict[str, Code]:
    return {c.code: c for c in codes}


# Stable codes; the README table is generated from this (`hipconv rules docs`).
CODES = _codes(
    Code("HC001", Severity.WARNING, "CUDA API with no hipconv rule; left unchanged", unported=True),
    Code("HC002", Severity.ERROR, "CUDA API with no HIP equivalent (unsupported); left unchanged", unported=True),
    Code(
        "HC003",
        Severity.ERROR,
        "HIP equivalent does not exist in the targeted ROCm release; left unchanged",
        unported=True,
    ),
    Code("HC004", Severity.WARNING, "deprecated API; translated, but plan to replace it"),
    Code("HC005", Severity.WARNING, "experimental HIP equivalent; left unchanged unless --experimental", unported=True),
    Code("HC006", Severity.ERROR, "API removed from HIP; left unchanged", unported=True),
    Code(
        "HC007",
        Severity.WARNING,
        "call arguments could not be read or do not fit the rule; call left unchanged",
        unported=True,
    ),
    Code("HC008", Severity.WARNING, "kernel launch could not be parsed; left as a <<<...>>> launch"),
    Code("HC009", Severity.ERROR, "two rewrites overlap; the later one was not applied"),
    Code("HC101", Severity.WARNING, "32-bit literal lane mask: on a 64-wide wavefront it covers lanes 0-31 only"),
    Code("HC102", Severity.WARNING, "lane mask argument dropped: the targeted ROCm has only the mask-less form"),
    Code("HC103", Severity.NOTE, "lane mask must be a 64-bit integer for ROCm's *_sync warp builtins"),
    # cuDNN -> MIOpen: rules with a `code` and the templates' leave()/note()
    Code("HC201", Severity.ERROR, "cuDNN API without a faithful MIOpen rewrite; left unchanged", unported=True),
    Code(
        "HC202",
        Severity.ERROR,
        "a cuDNN argument value MIOpen cannot express (e.g. the NHWC layout); call left unchanged",
        unported=True,
    ),
    Code(
        "HC203",
        Severity.WARNING,
        "MIOpen needs a step cuDNN does not (a Find before the first convolution); hipconv wrote it",
    ),
    # `hipconv scan` checks (hipconv/scan/checks.py): wavefront-size hazards, then other AMD incompatibilities.
    Code(
        "HC301",
        Severity.WARNING,
        "literal warp size 32 (or lane mask 31 / 0x1f): AMD wavefronts have 64 lanes",
        "use warpSize (or a constant derived from it) and warpSize - 1",
    ),
    Code(
        "HC302",
        Severity.WARNING,
        "32-bit full lane mask 0xffffffff passed to a *_sync warp intrinsic",
        "use a 64-bit mask (0xffffffffffffffffull, or __activemask()) so lanes 32-63 take part",
    ),
    Code(
        "HC303",
        Severity.WARNING,
        "shuffle reduction starts at offset 16: assumes 32 lanes",
        "start at warpSize / 2 so a 64-wide wavefront reduces all its lanes",
    ),
    Code(
        "HC304",
        Severity.WARNING,
        "warp vote result stored in, or passed as, a 32-bit integer",
        "keep ballots in a 64-bit type (unsigned long long, uint64_t, auto) and count them with __popcll / __ffsll",
    ),
    Code(
        "HC305",
        Severity.WARNING,
        "__activemask(): 64-bit on AMD, and wavefront lanes are not independently scheduled",
        "store the result in a 64-bit type; do not rely on it to detect diverged lanes",
    ),
    Code(
        "HC306",
        Severity.WARNING,
        "shared array sized by 32 per warp beside warp intrinsics",
        "size per-lane arrays by warpSize (64 on AMD) and per-warp arrays by blockDim / warpSize",
    ),
    Code(
        "HC311",
        Severity.ERROR,
        "inline PTX assembly: AMD GPUs cannot run it",
        "use the CUDA/HIP intrinsic for the instruction, or keep the asm for the NVIDIA build only "
        "(#ifdef __HIP_PLATFORM_NVIDIA__)",
    ),
    Code(
        "HC312",
        Severity.WARNING,
        "__CUDA_ARCH__ comparison: compute capabilities do not exist on AMD",
        "HIP never defines __CUDA_ARCH__; test __HIP_DEVICE_COMPILE__ for the device pass, arch macros "
        "(__gfx90a__, __GFX9__) or __has_builtin for features",
    ),
    Code(
        "HC313",
        Severity.WARNING,
        "legacy texture or surface reference (texture<...>): deprecated in HIP, removed in CUDA 12",
        "use texture objects (cudaTextureObject_t with cudaCreateTextureObject / tex1Dfetch<T>)",
    ),
    Code(
        "HC314",
        Severity.ERROR,
        "cudaDeviceProp field that hipDeviceProp_t of the targeted ROCm does not have",
        "query it with hipDeviceGetAttribute where an attribute exists, or guard the access; see --rocm-version",
    ),
    Code(
        "HC315",
        Severity.ERROR,
        "__launch_bounds__ above 1024 threads: AMD's maximum block size is 1024",
        "keep the maximum threads per block at or below 1024",
    ),
    Code(
        "HC316",
        Severity.WARNING,
        "cache or shared-memory configuration that HIP ignores (or cannot honour) on AMD",
        "AMD GPUs have a fixed L1/LDS split and at most 64 KiB of LDS per block: drop the call or keep it for "
        "NVIDIA only",
    ),
    # build files (hipconv/buildfiles/) and `hipconv build`
    Code("HC401", Severity.WARNING, "build file: CUDA construct with no HIP mapping; left unchanged"),
    Code("HC402", Severity.WARNING, "unknown nvcc flag: left unchanged in a build file, not passed to hipcc by build"),
    Code("HC403", Severity.NOTE, "nvcc flag with no hipcc counterpart: dropped"),
    Code("HC404", Severity.NOTE, "NVIDIA GPU architectures replaced by the --offload-arch targets"),
    Code(
        "HC405",
        Severity.NOTE,
        "build file: commands added (.cu sources marked LANGUAGE HIP, -fgpu-rdc for separable compilation)",
    ),
    Code("HC410", Severity.ERROR, "translation unit does not compile with hipcc"),
)


@dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int
    col: int
    code: str
    message: str
    rule_id: str = ""
    symbol: str = ""  # the CUDA spelling concerned, when there is one

    @property
    def severity(self) -> Severity:
        return CODES[self.code].severity

    def format(self) -> str:
        tag = f"{self.code} {self.rule_id}" if self.rule_id else self.code
        return f"{self.path}:{self.line}:{self.col}: {self.severity.value}[{tag}]: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {
            "line": self.line,
            "col": self.col,
            "severity": self.severity.value,
            "code": self.code,
            "rule": self.rule_id,
            "message": self.message,
            "symbol": self.symbol,
        }

    @property
    def unported(self) -> bool:
        return CODES[self.code].unported
