"""cudaDeviceProp's members and the ROCm releases whose hipDeviceProp_t has them: the data behind check HC314
(amd.device-prop-field), read from hipconv/data/cuda-device-prop.fields (derived by `python -m tools.derive`
from ../shared/api-inventory; tests/test_scan_checks.py checks it against the inventories)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from hipconv.resources import cuda_releases, data_file, expand_spans, hip_releases
from hipconv.settings import Version


@dataclass(frozen=True)
class DeviceProp:
    """One member of cudaDeviceProp in the bundled CUDA and ROCm releases."""

    member: str
    cuda: tuple[str, ...]  # the CUDA releases whose cudaDeviceProp has it
    hip: tuple[str, ...]  # the ROCm releases whose hipDeviceProp_t has it, as `spelling`
    spelling: str  # hipDeviceProp_t's name for it (sparseCudaArraySupported: sparseHipArraySupported)

    def problem(self, target: Version) -> str | None:
        """Why `prop.member` does not compile against hipDeviceProp_t of ROCm `target` (None: it does)."""
        have = [Version.parse(rel) for rel in self.hip]
        if target in have and self.spelling == self.member:
            return None
        if not have:
            why = "no bundled ROCm release has it"
        elif target in have:
            why = f"hipDeviceProp_t spells it {self.spelling}, from ROCm {self.hip[0]} on"
        else:
            as_spelled = f" as {self.spelling}" if self.spelling != self.member else ""
            why = f"it appears in ROCm {self.hip[0]}{as_spelled}"
            if dropped := self._dropped_by(target):
                why += f"; ROCm {dropped} removed it"
        if gone := self._cuda_removed():
            why += f"; CUDA {gone} removed it from cudaDeviceProp"
        named = " of that name" if target in have else ""
        return f"cudaDeviceProp::{self.member} has no hipDeviceProp_t counterpart{named} in ROCm {target} ({why})"

    def _dropped_by(self, target: Version) -> str | None:
        """The last bundled release up to `target` that lacks the member its predecessor had."""
        releases = [rel for rel in hip_releases() if Version.parse(rel) <= target]
        drops = [new for old, new in zip(releases, releases[1:]) if old in self.hip and new not in self.hip]
        return drops[-1] if drops else None

    def _cuda_removed(self) -> str | None:
        """The first bundled CUDA release after the last that has the member, if one lacks it."""
        releases = cuda_releases()
        later = releases[releases.index(self.cuda[-1]) + 1 :] if self.cuda and self.cuda[-1] in releases else []
        return later[0] if later else None


@functools.cache
def device_props() -> Mapping[str, DeviceProp]:
    """Every member of cudaDeviceProp of a bundled CUDA release, by name."""
    path = data_file("cuda-device-prop.fields")
    if not path.is_file():
        return {}
    cuda, hip = cuda_releases(), hip_releases()
    table = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        member, cuda_spans, hip_spans, spelling = (line.split("\t") + [""])[:4]
        table[member] = DeviceProp(
            member, expand_spans(cuda_spans, cuda), expand_spans(hip_spans, hip), spelling or member
        )
    return table
