"""`hipconv compare --verdicts OUTPUT`: the verdict of a program that checks itself, read from its output.

A self-checking program compares its GPU results with its own CPU reference and prints the outcome
(`Test passed`, `Result = PASS`, `FAILED`, `3 failed`). Without the CUDA program's recorded output (no
NVIDIA machine), such lines are the evidence that the port computes what the CUDA code did. A verdict
line holds a verdict word (PASS, PASSED, FAIL, FAILED, FAILURE, FAILURES, SUCCESS, SUCCESSFUL,
SUCCEEDED); a failure word counted as zero (`0 failed`, `failures: 0`) says nothing failed. ERROR, OK and
MISMATCH do not count: `max error: 1e-6` and `mismatches: 0` are measurements, not verdicts. The output
passes when it has at least one verdict line and no failing one.

Pure functions of text; printing is hipconv.cli's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from hipconv.text_lines import text_lines

SelfCheck = Literal["pass", "fail"]
_PASS = r"pass|passed|success|successful|succeeded"
_FAIL = r"fail|failed|fails|failure|failures"
_WORD = re.compile(rf"(?<![a-z0-9_])(?:(?P<pass>{_PASS})|(?P<fail>{_FAIL}))(?![a-z0-9_])", re.IGNORECASE)
# A failure word with a count of zero next to it: "0 failed", "failed: 0", "failures = 0".
_ZERO = re.compile(
    rf"(?<![\w.])0+\s*(?:{_FAIL})(?![a-z0-9_])|(?<![a-z0-9_])(?:{_FAIL})\s*[:=]?\s*0+(?![\w.])", re.IGNORECASE
)


@dataclass(frozen=True)
class VerdictLine:
    number: int
    text: str  # whitespace collapsed
    verdict: SelfCheck


@dataclass(frozen=True)
class Verdicts:
    name: str  # the path as given, or "-"
    lines: tuple[VerdictLine, ...]

    @property
    def passed(self) -> bool:
        return bool(self.lines) and all(line.verdict == "pass" for line in self.lines)

    @property
    def summary(self) -> str:
        failed = sum(line.verdict == "fail" for line in self.lines)
        if not self.lines:
            return (
                "no verdict: no line says PASS or FAIL (the program does not check itself; compare its output"
                " with the CUDA program's instead)"
            )
        n = len(self.lines)
        if failed:
            return f"failed: {failed} of {n} verdict line{_s(n)} say{'s' if failed == 1 else ''} it failed"
        return f"passed: {n} verdict line{_s(n)}, none failed"


def line_verdict(text: str) -> SelfCheck | None:
    """The line's verdict: fail when a failure word is not counted as zero, else pass when a pass word is
    there; None for a line with no verdict word."""
    found = [m for m in _WORD.finditer(text)]
    if not found:
        return None
    zero_counts = [m.span() for m in _ZERO.finditer(text)]
    for match in found:
        if match.group("fail") and not any(a <= match.start() < b for a, b in zero_counts):
            return "fail"
    return "pass" if any(m.group("pass") for m in found) or zero_counts else None


def read_verdicts(name: str, text: str) -> Verdicts:
    lines = []
    for number, line in enumerate(text_lines(text), 1):
        verdict = line_verdict(line)
        if verdict is not None:
            lines.append(VerdictLine(number, " ".join(line.split()), verdict))
    return Verdicts(name, tuple(lines))


def verdicts_report(verdicts: Verdicts) -> list[str]:
    """A line per verdict line, `line N: PASS|FAIL: text`."""
    return [f"line {v.number}: {v.verdict.upper()}: {v.text}" for v in verdicts.lines]


def verdicts_json(verdicts: Verdicts, version: int) -> dict[str, Any]:
    """The shape of `compare --verdicts --format json` (docs/verify-a-port.md describes it)."""
    return {
        "version": version,
        "mode": "verdicts",
        "path": verdicts.name,
        "passed": verdicts.passed,
        "verdicts": [{"line": v.number, "verdict": v.verdict, "text": v.text} for v in verdicts.lines],
        "summary": verdicts.summary,
    }


def _s(n: int) -> str:
    return "" if n == 1 else "s"
