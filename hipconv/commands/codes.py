"""`hipconv codes [CODE]` and `hipconv --version`: what the codes mean, and what this hipconv is made of,
as lines of text."""

from __future__ import annotations

import platform

from hipconv import __version__
from hipconv.commands.rules import unknown
from hipconv.config import FAIL_ON, fails_on
from hipconv.diagnostics import CODES, Code
from hipconv.errors import ToolNotFound
from hipconv.resources import cuda_releases, hip_releases


def code_lines() -> list[str]:
    """One line per code: code, severity, title (tab-separated)."""
    return [f"{c.code}\t{c.severity.value}\t{c.title}" for c in CODES.values()]


def find_code(name: str) -> Code:
    """The code `name` names, in any case (hc003); else a HipconvError with the closest codes."""
    code = CODES.get(name.strip().upper())
    if code is None:
        raise unknown(f"unknown code {name!r}", name.upper(), list(CODES), otherwise="`hipconv codes` lists them", n=3)
    return code


def explain(code: Code) -> list[str]:
    """What `hipconv codes CODE` prints: the title, severity, what fails on it, the hint and the example."""
    lines = [f"{code.code} ({code.severity.value}): {code.title}"]
    if code.unported:
        lines.append(
            "unported: yes (the CUDA API stays in the code: --strict, --stats, --report and --annotate count it)"
        )
    else:
        lines.append("unported: no (--strict, --stats, --report and --annotate do not count it as unported)")
    levels = [f"--fail-on {level}" for level in FAIL_ON if fails_on(level, code.severity)]
    lines.append(f"exit code 1 with: {', '.join(levels + ['--strict'] * code.unported) or 'no option'}")
    if code.hint:
        lines.append(f"hint: {code.hint}")
    example = code.example
    if example is not None:
        lines.append(f"example: hipconv {' '.join(example.command_line)}")
        lines.append(f"  {example.file}:")
        lines += [f"    {line}" for line in example.source.splitlines()]
        lines.append("  prints:")
        lines.append(f"    {example.diagnostic}")
        if example.note:
            lines.append(f"  ({example.note})")
    return lines


def version_lines() -> list[str]:
    """`hipconv --version`: hipconv, the bundled inventories, libclang (or that it is missing) and Python."""
    from hipconv.translate.lexer import libclang_version  # loads libclang: only when asked

    try:
        libclang = libclang_version()
    except ToolNotFound as exc:
        libclang = f"not found ({exc})"
    rocm = hip_releases()
    return [
        f"hipconv {__version__}",
        f"inventories: CUDA {', '.join(cuda_releases()) or 'none'}; ROCm {', '.join(rocm) or 'none'}"
        + (f" (default --rocm-version {rocm[-1]})" if rocm else ""),
        f"libclang: {libclang}",
        f"Python {platform.python_version()} ({platform.python_implementation()})",
    ]
