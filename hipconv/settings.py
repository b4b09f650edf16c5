"""Run settings: one frozen value passed explicitly through the pipeline."""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass
from functools import total_ordering

from hipconv.errors import ConfigError


@total_ordering
@dataclass(frozen=True)
class Version:
    parts: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> Version:
        if not re.fullmatch(r"\d+(\.\d+){0,2}", text.strip()):
            raise ConfigError(f"invalid version {text!r}: expected X.Y or X.Y.Z")
        parts = tuple(int(p) for p in text.strip().split("."))
        while len(parts) > 1 and parts[-1] == 0:
            parts = parts[:-1]
        return cls(parts)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.parts < other.parts

    def __str__(self) -> str:
        return _version_text(self.parts)


@functools.lru_cache(maxsize=64)
def _version_text(parts: tuple[int, ...]) -> str:
    """A release's text, 6.3 for (6, 3) and 7.0 for (7,), spelled once (matchers key tables by it per file)."""
    return ".".join(str(p) for p in parts + (0,) * (2 - len(parts)))


class KernelLaunch(str, enum.Enum):
    """How launches are written: kept as <<<...>>> (valid HIP), or as hipLaunchKernelGGL."""

    CHEVRON = "chevron"
    HIP = "hip"

    @classmethod
    def parse(cls, text: str) -> KernelLaunch:
        try:
            return cls(text)
        except ValueError:
            raise ConfigError(f"unknown kernel launch style {text!r}") from None


KERNEL_LAUNCH_STYLES = tuple(k.value for k in KernelLaunch)
PROJECT_HIP_PATHS = ("keep", "off")  # a project's own HIP path: kept and switched on, or translated as CUDA
DEFAULT_OFFLOAD_ARCHS = ("gfx90a",)  # MI200: known to every ROCm since 4.5 and to Debian's clang 15


@dataclass(frozen=True)
class Settings:
    rocm: Version
    kernel_launch: KernelLaunch = KernelLaunch.CHEVRON
    experimental: bool = False
    jobs: int = 1
    annotate: bool = False  # write a marker comment above each line that still holds unported CUDA
    compat: bool = True  # use the shims of hipconv_compat.h where the target lacks a counterpart (--no-compat)
    cuda: Version | None = None  # the CUDA release the code was written for (--cuda-release); None: the newest bundled
    include_dirs: tuple[str, ...] = ()  # where `#include` looks after the including file's folder (include-dirs)
    offload_archs: tuple[str, ...] = DEFAULT_OFFLOAD_ARCHS  # the AMD targets build files name (--offload-arch)
    project_hip_path: str = "keep"  # one of PROJECT_HIP_PATHS (--project-hip-path, matchers.project_hip)
    # --rocm-version LOW..HIGH: the bundled releases the output must build on (rocm is HIGH, the base that every
    # release of the range agrees with or that hipconv_compat.h guards by HIP_VERSION; hipconv.rules.ranges)
    rocm_range: tuple[Version, Version] | None = None
    single_source: bool = False  # keep the CUDA source; hipcc builds it through a portability header (--single-source)

    def __post_init__(self) -> None:
        if not isinstance(self.kernel_launch, KernelLaunch):  # a plain string from a caller
            object.__setattr__(self, "kernel_launch", KernelLaunch.parse(self.kernel_launch))
        if self.project_hip_path not in PROJECT_HIP_PATHS:
            raise ConfigError(
                f"unknown project HIP path choice {self.project_hip_path!r}: one of {', '.join(PROJECT_HIP_PATHS)}"
            )
