"""What CMake itself lists for a CMake project, against what `hipconv build` uses: real CMake (the HIP language
on Debian's HIP) configures the translated tensorlite project, and its compile_commands.json's definitions
and include directories are those the static reader gives each TU; `--cmake configure` compiles exactly
CMake's TUs; where CMake cannot configure, HC412 says why and the static reader is used."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import HAS_DEBIAN_CMAKE_HIP, run_cli
from hipconv.builder.cmake_configure import configure, hip_clang
from hipconv.builder.cmakeflags import read_cmake

PROJECT = Path(__file__).parent / "build_projects" / "tensorlite" / "cuda"
TUS = ["src/backend-cpu/cpu_ops.cpp", "src/backend-cuda/backend.cu", "src/backend-cuda/elementwise.cu",
       "src/backend-cuda/reduce.cu", "src/tensor.cpp"]  # fmt: skip
needs_cmake_hip = pytest.mark.skipif(
    not (HAS_DEBIAN_CMAKE_HIP and shutil.which("hipcc")),
    reason="needs cmake, hipcc, clang++-15 and Debian's hip-lang (docs/build.md: Building the translated tree "
    "with CMake)",
)
# what the hip::host / hip-lang targets add to every HIP TU: CMake's, not the project's
_HIP_TARGETS = ("-D__HIP_PLATFORM_", "-D__HIP_ROCclr__")


def _project_flags(words: list[str]) -> tuple[list[str], list[str]]:
    """The project's definitions (sorted) and include directories (in order) among a command's words."""
    defines = sorted(w for w in words if w.startswith("-D") and not w.startswith(_HIP_TARGETS))
    includes = [os.path.normpath(w[2:]) for w in words if w.startswith("-I")]
    return defines, includes


def _hipcc_version() -> str:
    done = subprocess.run(
        ["hipcc", "--version"], capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"}
    )
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def translated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tensorlite") / "hip"
    result = run_cli("translate", PROJECT, "-o", out, "--rocm-version", "5.2")
    assert result.code == 0, result.stderr
    return out


@needs_cmake_hip
@pytest.mark.parametrize(
    "cache",
    [
        pytest.param({"TL_CUDA": "ON"}, id="defaults"),
        pytest.param(
            {
                "TL_CUDA": "ON",
                "TL_CUDA_F16": "ON",
                "TL_CUDA_GRAPHS": "OFF",
                "TL_MAX_DIMS": "6",
                "TL_EXTRA_DEFINES": "TL_TRACE;TL_LEVEL=2",
                "TL_CPU_OPENMP": "ON",
            },
            id="overrides",
        ),  # fmt: skip
    ],
)
def test_cmake_lists_what_the_static_reader_gives(translated: Path, tmp_path: Path, cache: dict[str, str]) -> None:
    configured = configure(
        translated,
        tmp_path / "build",
        archs=["gfx90a"],
        cache=cache,
        environ=os.environ,
        hipcc_version=_hipcc_version(),
    )
    assert configured.entries is not None, configured.message
    from_cmake = {
        os.path.relpath(e["file"], translated): _project_flags(e["command"].split()) for e in configured.entries
    }
    files = sorted(p.relative_to(translated).as_posix() for p in translated.rglob("*") if p.is_file())
    static = read_cmake(translated, files, [".cu", ".cpp"], source_root=PROJECT, cache=cache)
    assert sorted(from_cmake) == TUS
    assert {tu: _project_flags(static.flags[tu]) for tu in TUS} == from_cmake
    assert static.notes == ()


@needs_cmake_hip
def test_build_configure_compiles_the_tus_cmake_lists(translated: Path, tmp_path: Path) -> None:
    out = tmp_path / "hip"
    result = run_cli(
        "build", PROJECT, "-o", out, "--check-only", "--rocm-version", "5.2", "-j", "2", "--cmake", "configure",
        "-D", "TL_CUDA=ON", "-DTL_CPU=OFF",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    assert "hipconv build: configured with cmake 3." in result.stderr
    database = {
        os.path.relpath(e["file"], out): e["arguments"] for e in json.loads((out / "compile_commands.json").read_text())
    }
    assert sorted(database) == [tu for tu in TUS if "backend-cpu" not in tu]  # TL_CPU=OFF: not configured
    assert "-DTL_PEER_MAX_BATCH=128" in database["src/backend-cuda/reduce.cu"]


@pytest.mark.hipcc
def test_configure_falls_back_to_the_static_reader(tmp_path: Path) -> None:
    """A folder with no project() cannot be configured on its own: said (HC412), and the static reader (which
    reads the project from its root) gives the flags."""
    out = tmp_path / "hip"
    result = run_cli(
        "build", PROJECT / "src" / "backend-cpu", "-o", out, "--check-only", "--rocm-version", "5.2", "--cmake",
        "configure", "-D", "TL_CPU_OPENMP=ON",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    assert (
        "warning[HC412]: --cmake configure: the tree has no top CMakeLists.txt with project(); the flags are read "
        "statically instead" in result.stderr
    )
    (entry,) = json.loads((out / "compile_commands.json").read_text())
    assert "-DTL_CPU_THREADS" in entry["arguments"] and "-DTL_MAX_DIMS=4" in entry["arguments"]


@pytest.mark.parametrize(
    ("tree", "path", "message"),
    [
        pytest.param(PROJECT, "", "no cmake on PATH", id="no-cmake"),
        pytest.param(PROJECT / "src", "", "the tree has no top CMakeLists.txt with project()", id="no-project"),
    ],
)
def test_configure_says_why_it_falls_back(tmp_path: Path, tree: Path, path: str, message: str) -> None:
    configured = configure(tree, tmp_path / "b", archs=["gfx90a"], cache={}, environ={"PATH": path}, hipcc_version="")
    assert configured.entries is None
    assert configured.message == (
        f"warning[HC412]: --cmake configure: {message}; the flags are read statically instead"
    )
    assert not (tmp_path / "b").exists()


def test_hip_clang_from_hipcc_version(tmp_path: Path) -> None:
    """The HIP compiler CMake gets is the clang++ hipcc drives: clang++-NN of `clang version NN`, else clang++."""
    said = f"HIP version: 5.2.21153-0\nDebian clang version 15.0.6\nInstalledDir: {tmp_path}\n"
    assert hip_clang(said) is None
    (tmp_path / "clang++").touch()
    assert hip_clang(said) == f"{tmp_path}/clang++"
    (tmp_path / "clang++-15").touch()
    assert hip_clang(said) == f"{tmp_path}/clang++-15"
    assert hip_clang("HIP version: 5.2\n") is None  # no InstalledDir: CMake chooses
