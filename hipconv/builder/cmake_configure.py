"""`hipconv build --cmake configure`: let CMake itself say what a CMake project compiles.

The *translated* tree is configured with CMake's HIP language into the build folder, with
CMAKE_EXPORT_COMPILE_COMMANDS=ON; the units are then exactly the entries of its compile_commands.json, with
their flags (plan.plan_compile_commands). Configuring runs the project's CMake code (execute_process, any
file() it writes), so it is the user's choice, never the default: the static reader (cmakeflags.py) runs
nothing.

CMake needs the HIP language (CMake 3.21 or newer) and ROCm's `hip-lang` CMake config. With ROCm proper
(`$ROCM_PATH/lib/cmake/hip-lang` beside `$ROCM_PATH/llvm/bin/clang++`) CMake finds the rest itself; with
Debian's packages (the config in /usr/lib/<arch>/cmake/hip-lang, clang++-NN) a ROCm root whose
lib/cmake/hip-lang is Debian's is made in the build folder, and the HIP compiler is hipcc's clang (from
`hipcc --version`). The C and C++ compilers are that clang too, as the static reader assumes
(CMAKE_CXX_COMPILER_ID is Clang). Where any of this is missing, or cmake fails, the result says why and
the caller falls back to the static reader (HC412).
"""

from __future__ import annotations

import glob
import json
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hipconv.atomic import write_atomic
from hipconv.diagnostics import CMAKE_CONFIGURE_FALLBACK, CODES

MIN_CMAKE = (3, 21)  # the first with the HIP language
CONFIGURE_TIMEOUT = 600.0
_PROJECT = re.compile(rb"^[ \t]*project[ \t]*\(", re.M | re.I)


@dataclass(frozen=True)
class Configured:
    entries: list[dict[str, Any]] | None  # compile_commands.json's entries; None: not configured
    message: str  # the line to show: what was configured, or `warning[HC412]: ... instead`
    log: Path | None = None  # cmake's output


def _fallback(why: str, log: Path | None = None) -> Configured:
    code = CODES[CMAKE_CONFIGURE_FALLBACK]
    return Configured(
        None,
        f"{code.severity.value}[{code.code}]: --cmake configure: {why}; the flags are read statically instead",
        log,
    )


def cmake_version(cmake: str, environ: Mapping[str, str]) -> tuple[int, ...] | None:
    try:
        done = subprocess.run(
            [cmake, "--version"], env=dict(environ), capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"cmake version (\d+)\.(\d+)", done.stdout)
    return (int(found.group(1)), int(found.group(2))) if found else None


def find_hip_lang(environ: Mapping[str, str]) -> Path | None:
    """ROCm's hip-lang CMake config directory: under $ROCM_PATH, /opt/rocm, or Debian's /usr/lib/<arch>/cmake."""
    roots = [environ.get("ROCM_PATH", ""), environ.get("HIP_PATH", ""), "/opt/rocm"]
    candidates = [Path(r, "lib", "cmake", "hip-lang") for r in roots if r]
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/*/cmake/hip-lang")) + ["/usr/lib/cmake/hip-lang"]]
    return next((c for c in candidates if (c / "hip-lang-config.cmake").is_file()), None)


def hipcc_says(hipcc: str, environ: Mapping[str, str]) -> str:
    """What `hipcc --version` prints ("" when it cannot run)."""
    try:
        done = subprocess.run(
            [hipcc, "--version"], env=dict(environ), capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout + done.stderr


def hip_clang(version_output: str) -> str | None:
    """The clang++ hipcc drives, from `hipcc --version` (clang's `clang version NN` and `InstalledDir:`)."""
    installed = re.search(r"^InstalledDir:\s*(\S+)", version_output, re.M)
    major = re.search(r"clang version (\d+)", version_output)
    if installed is None:
        return None
    names = ([f"clang++-{major.group(1)}"] if major else []) + ["clang++"]
    return next((str(Path(installed.group(1), n)) for n in names if Path(installed.group(1), n).is_file()), None)


def configure_args(
    tree: Path,
    build: Path,
    *,
    hip_lang: Path,
    clang: str | None,
    archs: Sequence[str],
    cache: Mapping[str, str],
    extra: Sequence[str] = (),
) -> tuple[list[str], dict[str, str]]:
    """cmake's arguments after the cmake binary, and the environment variables to add."""
    args = ["-S", str(tree), "-B", str(build), "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"]
    args.append(f"-DCMAKE_HIP_ARCHITECTURES={';'.join(archs)}")
    env: dict[str, str] = {}
    rocm = hip_lang.parents[2]  # <root>/lib/cmake/hip-lang
    if not (rocm / "llvm" / "bin" / "clang++").is_file():  # Debian's layout: a ROCm root of links
        rocm = build / "rocm-root"
        (rocm / "lib" / "cmake").mkdir(parents=True, exist_ok=True)
        link = rocm / "lib" / "cmake" / "hip-lang"
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(hip_lang)
        env["CMAKE_PREFIX_PATH"] = str(hip_lang.parent)
        bitcode = hip_lang.parents[1] / "amdgcn" / "bitcode"
        flags = ["--rocm-path=/usr", *([f"--rocm-device-lib-path={bitcode}"] if bitcode.is_dir() else [])]
        args.append(f"-DCMAKE_HIP_FLAGS={' '.join(flags)}")
    args.append(f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={rocm}")
    if clang:
        c_compiler = re.sub(r"clang\+\+(-\d+)?$", r"clang\1", clang)
        args += [f"-DCMAKE_HIP_COMPILER={clang}", f"-DCMAKE_CXX_COMPILER={clang}", f"-DCMAKE_C_COMPILER={c_compiler}"]
    args += [f"-D{name}={value}" for name, value in cache.items()]
    return [*args, *extra], env


def configure(
    tree: Path,
    build: Path,
    *,
    archs: Sequence[str],
    cache: Mapping[str, str],
    environ: Mapping[str, str],
    hipcc_version: str,
    extra: Sequence[str] = (),
) -> Configured:
    """Configure the translated `tree` into `build` and read the compile database CMake exports."""
    try:
        top = (tree / "CMakeLists.txt").read_bytes()
    except OSError:
        top = b""
    if not _PROJECT.search(top):
        return _fallback("the tree has no top CMakeLists.txt with project()")
    cmake = shutil.which("cmake", path=environ.get("PATH"))
    if cmake is None:
        return _fallback("no cmake on PATH")
    version = cmake_version(cmake, environ)
    if version is None or version < MIN_CMAKE:
        shown = ".".join(map(str, version)) if version else "unknown"
        return _fallback(f"cmake {shown} has no HIP language (3.21 or newer has)")
    hip_lang = find_hip_lang(environ)
    if hip_lang is None:
        return _fallback("no ROCm CMake config (lib/cmake/hip-lang under $ROCM_PATH or /opt/rocm, or Debian's)")
    build.mkdir(parents=True, exist_ok=True)
    args, env = configure_args(
        tree, build, hip_lang=hip_lang, clang=hip_clang(hipcc_version), archs=archs, cache=cache, extra=extra
    )
    log = build / "cmake-configure.log"
    try:
        done = subprocess.run(
            [cmake, *args],
            env={**environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=CONFIGURE_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return _fallback(f"cmake did not finish in {CONFIGURE_TIMEOUT:.0f} s")
    except OSError as exc:
        return _fallback(f"cmake could not run: {exc.strerror or exc}")
    write_atomic(log, done.stdout)
    if done.returncode != 0:
        said = [line for line in done.stdout.decode(errors="replace").splitlines() if "Error" in line][:1]
        return _fallback(
            f"cmake exited with {done.returncode}{': ' + said[0].strip() if said else ''} (see {log})", log
        )
    database = build / "compile_commands.json"
    try:
        entries = json.loads(database.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return _fallback(f"cmake wrote no readable {database.name}: {exc}", log)
    shown = ".".join(map(str, version))
    return Configured(entries, f"hipconv build: configured with cmake {shown} ({len(entries)} TUs listed)", log)
