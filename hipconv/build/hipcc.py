"""hipcc: found lazily (never at import), run once per translation unit, its clang diagnostics parsed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from typing import NamedTuple

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
        return found
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


def parse_diagnostics(output: str) -> tuple[ClangDiagnostic, ...]:
    """clang's `file:line:col: severity: message` lines (source excerpts and carets are skipped)."""
    return tuple(
        ClangDiagnostic(m["file"], int(m["line"]), int(m["col"]), m["severity"], m["message"].rstrip())
        for m in _DIAGNOSTIC.finditer(output)
    )


class Compiled(NamedTuple):
    returncode: int
    output: str  # stdout and stderr together
    seconds: float


def run_hipcc(command: Sequence[str], env: Mapping[str, str], *, cwd: str, timeout: float = 1800) -> Compiled:
    started = time.monotonic()
    try:
        done = subprocess.run(
            list(command), env=dict(env), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout
        )
    except subprocess.TimeoutExpired as exc:
        text = (exc.output or b"").decode("utf-8", "replace")
        return Compiled(-1, text + f"\nhipconv: hipcc timed out after {timeout:.0f} s\n", time.monotonic() - started)
    except OSError as exc:
        return Compiled(-1, f"hipconv: cannot run {command[0]}: {exc.strerror or exc}\n", time.monotonic() - started)
    return Compiled(done.returncode, done.stdout.decode("utf-8", "replace"), time.monotonic() - started)
