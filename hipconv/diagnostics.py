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


def _codes(*codes: Code) -> dict[str, Code]:
    return {c.code: c for c in codes}


# Stable codes; the README table is generated from this (`hipconv rules docs`).
CODES = _codes(
    Code("HC001", Severity.WARNING, "CUDA API with no hipconv rule; left unchanged"),
    Code("HC002", Severity.ERROR, "CUDA API with no HIP equivalent (unsupported); left unchanged"),
    Code("HC003", Severity.ERROR, "HIP equivalent does not exist in the targeted ROCm release; left unchanged"),
    Code("HC004", Severity.WARNING, "deprecated API; translated, but plan to replace it"),
    Code("HC005", Severity.WARNING, "experimental HIP equivalent; left unchanged unless --experimental"),
    Code("HC006", Severity.ERROR, "API removed from HIP; left unchanged"),
    Code("HC007", Severity.WARNING, "call arguments could not be read or do not fit the rule; call left unchanged"),
    Code("HC008", Severity.WARNING, "kernel launch could not be parsed; left as a <<<...>>> launch"),
    Code("HC009", Severity.ERROR, "two rewrites overlap; the later one was not applied"),
    Code("HC101", Severity.WARNING, "32-bit literal lane mask: on a 64-wide wavefront it covers lanes 0-31 only"),
    Code("HC102", Severity.WARNING, "lane mask argument dropped: the targeted ROCm has only the mask-less form"),
    Code("HC103", Severity.NOTE, "lane mask must be a 64-bit integer for ROCm's *_sync warp builtins"),
    # build files (hipconv/buildfiles.py) and `hipconv build`
    Code("HC401", Severity.WARNING, "build file: CUDA construct with no HIP mapping; left unchanged"),
    Code("HC402", Severity.WARNING, "unknown nvcc flag: left unchanged in a build file, not passed to hipcc by build"),
    Code("HC403", Severity.NOTE, "nvcc flag with no hipcc counterpart: dropped"),
    Code("HC404", Severity.NOTE, "NVIDIA GPU architectures replaced by the --offload-arch targets"),
    Code("HC405", Severity.NOTE, "build file: commands added (.cu sources marked LANGUAGE HIP, -fgpu-rdc for separable compilation)"),
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


# Codes that mean "this CUDA API was not ported" (what --strict fails on, what --stats lists).
UNPORTED_CODES = frozenset({"HC001", "HC002", "HC003", "HC005", "HC006", "HC007"})
