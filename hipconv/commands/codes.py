"""`hipconv codes [CODE]` and `hipconv --version`: what the codes mean, and what this hipconv is made of,
as lines of text."""

from __future__ import annotations

import platform

from hipconv.commands.rules import unknown
from hipconv.diagnostics import CODES, Code
from hipconv.errors import ToolNotFound
from hipconv.resources import cuda_releases, hip_releases
from hipconv.version import __version__


def code_table_lines() -> list[str]:
    """One line per code: code, severity, title (tab-separated)."""
    return [f"{c.code}\t{c.severity.value}\t{c.title}" for c in CODES.values()]


def find_code(name: str) -> Code:
    """The code `name` names, in any case (hc003); else a HipconvError with the closest codes."""
    code = CODES.get(name.strip().upper())
    if code is None:
        raise unknown(f"unknown code {name!r}", name.upper(), list(CODES), otherwise="`hipconv codes` lists them", n=3)
    return code


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
