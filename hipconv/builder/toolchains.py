"""The compilers of `hipconv build --backend hip-cpu|nvidia`, found lazily (never at import), each with a
ToolNotFound that says how to get it.

hip-cpu: a host C++17 compiler (--cxx, $CXX, else g++ or clang++ on PATH), a HIP-CPU checkout (AMD's
header-only HIP runtime, https://github.com/ROCm/HIP-CPU) and TBB's headers, which HIP-CPU's parallel
algorithms need. nvidia: nvcc (--nvcc, $CUDA_PATH/bin/nvcc, else on PATH) and a HIP whose headers hold the
NVIDIA platform (include/hip/nvidia_detail).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hipconv.errors import ToolNotFound
from hipconv.resources import build_file

HIP_CPU_HINT = (
    "clone AMD's HIP-CPU runtime (header-only, MIT): `git clone https://github.com/ROCm/HIP-CPU` and pass "
    "--hip-cpu to the checkout (the folder holding include/hip/hip_runtime.h)"
)
CXX_HINT = (
    "install a C++17 compiler (`apt-get install g++`, or clang++) and name it with --cxx or $CXX, "
    "with TBB's headers and library (`apt-get install libtbb-dev`; HIP-CPU's parallel algorithms need them)"
)
NVIDIA_HINT = (
    "install the CUDA toolkit (nvcc; or point --nvcc or $CUDA_PATH at one) and a HIP with its NVIDIA-platform "
    "headers (include/hip/nvidia_detail: Debian's libamdhip64-dev, or ROCm's hip-dev), named by --hip-path, "
    "$HIP_PATH or $ROCM_PATH"
)
_PROBE_TIMEOUT_S = 60


@dataclass(frozen=True)
class CpuToolchain:
    cxx: str  # the host C++ compiler
    hip_cpu: Path  # the HIP-CPU checkout's include folder
    stand_ins: Path  # hipconv's stand-ins for what HIP-CPU lacks (hipcpu_prelude.h, cooperative groups)

    @property
    def prelude(self) -> Path:
        return self.stand_ins / "hipcpu_prelude.h"


@dataclass(frozen=True)
class NvidiaToolchain:
    nvcc: str
    hip_include: Path  # a HIP include folder with hip/nvidia_detail/


def _executable(name: str, environ: Mapping[str, str]) -> str | None:
    if os.sep in name:
        return os.path.abspath(name) if os.path.isfile(name) and os.access(name, os.X_OK) else None
    return shutil.which(name, path=environ.get("PATH", ""))


def _probe(cxx: str, flags: list[str], source: str) -> str | None:
    """Why `cxx` cannot preprocess `source` with `flags` (its last error line), or None when it can."""
    try:
        done = subprocess.run(
            [cxx, *flags, "-E", "-x", "c++", "-", "-o", os.devnull],
            input=source.encode(),
            capture_output=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"exit {done.returncode}"


def find_cpu_toolchain(hip_cpu: Path | None, cxx: str | None, environ: Mapping[str, str]) -> CpuToolchain:
    """The checkout, then the compiler, then TBB: the first one missing stops the build."""
    if hip_cpu is None:
        raise ToolNotFound("--backend hip-cpu needs --hip-cpu DIR (a HIP-CPU checkout)", hint=HIP_CPU_HINT)
    include = hip_cpu.resolve() / "include"
    if not (include / "hip" / "hip_runtime.h").is_file():
        raise ToolNotFound(f"--hip-cpu {hip_cpu}: no include/hip/hip_runtime.h there", hint=HIP_CPU_HINT)
    named = cxx or environ.get("CXX")
    found = _executable(named, environ) if named else _executable("g++", environ) or _executable("clang++", environ)
    if found is None:
        what = f"{'--cxx' if cxx else '$CXX'} {named}: no such executable" if named else "no g++ or clang++ on PATH"
        raise ToolNotFound(what, hint=CXX_HINT)
    problem = _probe(found, ["-std=c++17"], "#if __cplusplus < 201703L\n#error no C++17\n#endif\n")
    if problem is not None:
        raise ToolNotFound(f"{found} does not compile C++17: {problem}", hint=CXX_HINT)
    problem = _probe(found, ["-std=c++17"], "#include <tbb/blocked_range.h>\n")
    if problem is not None:
        raise ToolNotFound(f"{found} does not find TBB's headers: {problem}", hint=CXX_HINT)
    return CpuToolchain(found, include, build_file("hip_cpu_include"))


def _hip_include(hip_path: Path | None, environ: Mapping[str, str]) -> Path | None:
    roots = [hip_path] if hip_path else [Path(environ[k]) for k in ("HIP_PATH", "ROCM_PATH") if environ.get(k)]
    candidates = [root / "include" for root in roots] + (
        [] if hip_path else [Path("/opt/rocm/include"), Path("/usr/include")]
    )
    return next((c for c in candidates if (c / "hip" / "nvidia_detail" / "nvidia_hip_runtime.h").is_file()), None)


def find_nvidia_toolchain(nvcc: str | None, hip_path: Path | None, environ: Mapping[str, str]) -> NvidiaToolchain:
    """nvcc, then HIP's NVIDIA-platform headers."""
    cuda = environ.get("CUDA_PATH")
    found = (
        _executable(nvcc, environ)
        if nvcc
        else (_executable(os.path.join(cuda, "bin", "nvcc"), environ) if cuda else None) or _executable("nvcc", environ)
    )
    if found is None:
        raise ToolNotFound(f"--nvcc {nvcc}: no such executable" if nvcc else "nvcc not found", hint=NVIDIA_HINT)
    include = _hip_include(hip_path, environ)
    if include is None:
        where = f"--hip-path {hip_path}" if hip_path else "$HIP_PATH, $ROCM_PATH, /opt/rocm or /usr"
        raise ToolNotFound(
            f"no HIP with NVIDIA-platform headers (include/hip/nvidia_detail) in {where}", hint=NVIDIA_HINT
        )
    return NvidiaToolchain(found, include)


def no_gpu_reason(environ: Mapping[str, str]) -> str | None:
    """Why no NVIDIA GPU can run a program here (`nvidia-smi -L` fails or lists none), or None."""
    smi = _executable("nvidia-smi", environ)
    if smi is None:
        return "nvidia-smi not found"
    try:
        done = subprocess.run([smi, "-L"], capture_output=True, timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"nvidia-smi failed: {exc}"
    if done.returncode != 0 or b"GPU" not in done.stdout:
        return f"nvidia-smi -L lists no GPU (exit {done.returncode})"
    return None
