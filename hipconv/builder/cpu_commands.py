"""The commands of the backends that link programs: a TU planned as for hipcc (plan.plan_tree: the project's
flags from its Makefiles or CMake files, the tree's header folders) recompiled with the host C++ compiler
against HIP-CPU, or with nvcc against HIP's NVIDIA-platform headers; then one link per program.

Of the planned flags, the project's defines, include folders and forced includes are kept, and its -std
(raised to C++17, which HIP-CPU needs); the others (GPU targets, optimisation, hipcc's own) are hipcc's or
the GPU's and are dropped.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from hipconv.builder.children import Children
from hipconv.builder.hipcc import ClangDiagnostic
from hipconv.builder.plan import Unit, UnitResult
from hipconv.builder.programs import Program
from hipconv.builder.toolchains import CpuToolchain, NvidiaToolchain
from hipconv.file_kinds import COMPILED_AS_HIP, file_kind
from hipconv.resources import cache_dir

_WITH_VALUE = frozenset({"-I", "-isystem", "-iquote", "-idirafter", "-include", "-D", "-U"})
_GLUED = ("-I", "-D", "-U")
_PLAIN = frozenset({"-iquote", "-idirafter"})
_OLD_STD = re.compile(r"-std=(?:c|gnu)\+\+(?:98|03|0x|11|1y|14)$")
_PCH_TIMEOUT_S = 600
CPU_FLAGS = ("-std=c++17", "-O1", "-w")
CPU_LIBS = ("-ltbb", "-lpthread")
_LINK_ERROR = re.compile(r"(undefined reference to|multiple definition of) [`']([^'`]+)'")


def project_flags(command: Sequence[str], *, plain_includes: bool = False) -> list[str]:
    """The project's defines, include folders, forced includes and -std of a planned hipcc command; with
    `plain_includes` (nvcc, which knows only -I and -isystem), -iquote and -idirafter folders as -I."""
    out: list[str] = []
    words = list(command[1:])
    i = 0
    while i < len(words):
        word = words[i]
        if word in _WITH_VALUE and i + 1 < len(words):
            out += ["-I" if plain_includes and word in _PLAIN else word, words[i + 1]]
            i += 2
            continue
        if word.startswith(_GLUED) or word.startswith("-std="):
            out.append("-std=c++17" if _OLD_STD.match(word) else word)
        i += 1
    return out


@dataclass(frozen=True)
class Toolchain:
    compiler: str
    flags: tuple[str, ...]  # before the project's
    language: tuple[str, ...]  # how a HIP source is compiled (-x c++, -x cu)
    libraries: tuple[str, ...] = ()
    prelude: Path | None = None  # force-included (HIP-CPU's stand-ins), precompiled by prepare()
    plain_includes: bool = False  # the compiler knows only -I and -isystem (nvcc)

    def prepare(self, stage: Path, environ: Mapping[str, str]) -> Toolchain:
        """The prelude precompiled once per compiler, flags and prelude, in hipconv's cache (else in the
        stage): HIP-CPU's headers take most of each compile. A failed precompile only costs time (the
        compiler then reads the header)."""
        if self.prelude is None:
            return self
        key = hashlib.sha256(
            "\0".join([self.compiler, *self.flags, str(_mtime(self.compiler))]).encode()
            + self.prelude.read_bytes()
            + b"".join(p.read_bytes() for p in sorted(self.prelude.parent.rglob("*.h")))  # what it includes
        ).hexdigest()[:24]
        for folder in (cache_dir() / "hip-cpu-pch" / key, stage / "pch"):
            header = folder / self.prelude.name
            if Path(f"{header}.gch").is_file():
                return replace(self, prelude=header)
            try:
                folder.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(self.prelude, header)
            except OSError:
                continue
            self._precompile(header, environ)
            return replace(self, prelude=header)
        return self

    def _precompile(self, header: Path, environ: Mapping[str, str]) -> None:
        partial = header.with_name(f"{header.name}.{os.getpid()}.tmp")
        command = [self.compiler, *self.flags, "-x", "c++-header", str(header), "-o", str(partial)]
        try:
            done = Children().run(command, env=environ, timeout=_PCH_TIMEOUT_S)
            if done.returncode == 0:
                os.replace(partial, f"{header}.gch")
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            partial.unlink(missing_ok=True)

    def compile_unit(self, unit: Unit) -> Unit:
        assert unit.output is not None
        forced = ["-include", str(self.prelude)] if self.prelude else []
        language = list(self.language) if file_kind(unit.file) in COMPILED_AS_HIP else []
        command = [
            self.compiler,
            *self.flags,
            *project_flags(unit.command, plain_includes=self.plain_includes),
            *forced,
            *language,
        ]
        return replace(unit, command=(*command, "-c", unit.file, "-o", unit.output))

    def link_unit(self, program: Program, units: Sequence[Unit], binary: Path) -> Unit:
        objects = [str(u.output) for u in units]
        command = (self.compiler, *objects, "-o", str(binary), *self.libraries)
        return Unit(program.name, units[0].file, command, units[0].directory, str(binary))


def cpu_toolchain(found: CpuToolchain) -> Toolchain:
    flags = (*CPU_FLAGS, f"-I{found.stand_ins}", f"-I{found.hip_cpu}")
    return Toolchain(found.cxx, flags, ("-x", "c++"), CPU_LIBS, found.prelude)


def nvidia_toolchain(found: NvidiaToolchain) -> Toolchain:
    flags = ("-std=c++17", "-D__HIP_PLATFORM_NVIDIA__", "-D__HIP_PLATFORM_NVCC__", f"-I{found.hip_include}", "-w")
    return Toolchain(found.nvcc, flags, ("-x", "cu"), plain_includes=True)


def link_diagnostics(result: UnitResult) -> tuple[ClangDiagnostic, ...]:
    """A failed link's first unresolved or doubly defined symbol, as a diagnostic of the program."""
    found = _LINK_ERROR.search(result.output)
    if found is None:
        lines = result.output.strip().splitlines()
        message = f"link failed: {lines[-1] if lines else 'no output'}"
    else:
        message = f"link failed: {found.group(1)} {found.group(2)}"
    return (ClangDiagnostic(result.unit.source, 0, 0, "error", message),)


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0
