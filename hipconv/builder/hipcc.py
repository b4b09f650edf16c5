"""hipcc: found lazily (never at import), asked its HIP version once per build, run once per translation
unit, its clang diagnostics parsed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from hipconv.builder.children import Children
from hipconv.errors import ToolNotFound

INSTALL_HINT = (
    "install HIP: on Debian/Ubuntu `apt-get install hipcc libamdhip64-dev`, otherwise ROCm "
    "(https://rocm.docs.amd.com); or point --hipcc or $ROCM_PATH at an installed one"
)


def find_hipcc(explicit: str | None, environ: Mapping[str, str]) -> str:
    """--hipcc PATH, else hipcc on PATH, else $ROCM_PATH/bin/hipcc (ROCM_PATH defaults to /opt/rocm)."""
    if explicit:
        found = (
            shutil.which(explicit)
            if os.sep not in explicit
            else (explicit if os.path.isfile(explicit) and os.access(explicit, os.X_OK) else None)
        )
        if found is None:
            raise ToolNotFound(f"--hipcc {explicit}: no such executable", hint=INSTALL_HINT)
        return os.path.abspath(found)  # hipcc runs in other directories
    on_path = shutil.which("hipcc", path=environ.get("PATH", ""))
    if on_path:
        return on_path
    rocm = os.path.join(environ.get("ROCM_PATH") or "/opt/rocm", "bin", "hipcc")
    if os.path.isfile(rocm) and os.access(rocm, os.X_OK):
        return rocm
    raise ToolNotFound(f"hipcc not found (looked on PATH and at {rocm})", hint=INSTALL_HINT)


def hip_environment(environ: Mapping[str, str], platform: str | None) -> dict[str, str]:
    """The environment hipcc runs in: HIP_PLATFORM=amd unless --hip-platform or $HIP_PLATFORM says otherwise."""
    env = dict(environ)
    env["HIP_PLATFORM"] = platform or environ.get("HIP_PLATFORM") or "amd"
    return env


class ClangDiagnostic(NamedTuple):
    file: str
    line: int
    col: int
    severity: str  # error | fatal error | warning | note
    message: str

    def format(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message}"


_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^\s:][^:\n]*):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<severity>fatal error|error|warning|note): (?P<message>.*)$",
    re.M,
)


_NVCC_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^\s(][^(\n]*)\((?P<line>\d+)\): (?P<severity>fatal error|error|warning): (?P<message>.*)$", re.M
)


def parse_diagnostics(output: str) -> tuple[ClangDiagnostic, ...]:
    """clang's (and g++'s) `file:line:col: severity: message` lines (source excerpts and carets are skipped);
    where there are none, nvcc's `file(line): severity: message` lines (column 0)."""
    found = tuple(
        ClangDiagnostic(m["file"], int(m["line"]), int(m["col"]), m["severity"], m["message"].rstrip())
        for m in _DIAGNOSTIC.finditer(output)
    )
    return found or tuple(
        ClangDiagnostic(m["file"], int(m["line"]), 0, m["severity"], m["message"].rstrip())
        for m in _NVCC_DIAGNOSTIC.finditer(output)
    )


class Compiled(NamedTuple):
    returncode: int
    output: str  # stdout and stderr together
    seconds: float


def run_hipcc(
    command: Sequence[str],
    env: Mapping[str, str],
    *,
    cwd: str,
    timeout: float = 1800,
    children: Children | None = None,
) -> Compiled:
    """Run a compiler (in a process group of its own, among `children`: see hipconv/builder/children.py)."""
    started = time.monotonic()
    try:
        done = (children or Children()).run(command, env=env, cwd=cwd, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        text = (exc.output or b"").decode("utf-8", "replace")
        return Compiled(-1, text + f"\nhipconv: hipcc timed out after {timeout:.0f} s\n", time.monotonic() - started)
    except OSError as exc:
        return Compiled(-1, f"hipconv: cannot run {command[0]}: {exc.strerror or exc}\n", time.monotonic() - started)
    return Compiled(done.returncode, done.stdout.decode("utf-8", "replace"), time.monotonic() - started)


_HIP_VERSION = re.compile(r"^HIP version:\s*(?P<version>\d+\.\d+(?:\.\d+)?)", re.M)


class HipVersion(NamedTuple):
    """What `hipcc --version` says about the HIP it compiles against."""

    version: str | None  # "6.2.41134" from `HIP version: 6.2.41134-...`; None when it says nothing readable
    problem: str = ""  # why not: hipcc failed, or the output has no `HIP version:` line


def parse_hip_version(output: str) -> str | None:
    """The version on the `HIP version: X.Y.Z-...` line that hipcc prints first (ROCm's and Debian's hipcc,
    and ROCm 6.3's hipcc-syntax stand-in); None without one."""
    found = _HIP_VERSION.search(output)
    return found["version"] if found else None


def hip_version(hipcc: str, env: Mapping[str, str], *, cwd: str, timeout: float = 120) -> HipVersion:
    """Run `hipcc --version` (once) and read the HIP version it prints."""
    done = run_hipcc([hipcc, "--version"], env, cwd=cwd, timeout=timeout)
    version = parse_hip_version(done.output)
    if version is not None:
        return HipVersion(version)
    lines = done.output.strip().splitlines()
    if lines and lines[-1].startswith("hipconv: "):  # run_hipcc's: it could not run, or timed out
        return HipVersion(None, lines[-1][len("hipconv: ") :])
    said = f"printed {lines[0].strip()!r}" if lines else "printed nothing"
    failed = f"exited with {done.returncode} and " if done.returncode else ""
    return HipVersion(None, f"`{os.path.basename(hipcc)} --version` {failed}{said}, no `HIP version:` line")
