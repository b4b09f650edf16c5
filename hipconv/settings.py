"""Run settings: one frozen value passed explicitly through the pipeline."""

from __future__ import annotations

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
        parts = self.parts + (0,) * (2 - len(self.parts))
        return ".".join(str(p) for p in parts)


KERNEL_LAUNCH_STYLES = ("chevron", "hip")


@dataclass(frozen=True)
class Settings:
    rocm: Version
    kernel_launch: str = "chevron"
    experimental: bool = False
    jobs: int = 1

    def __post_init__(self) -> None:
        if self.kernel_launch not in KERNEL_LAUNCH_STYLES:
            raise ConfigError(f"unknown kernel launch style {self.kernel_launch!r}")
