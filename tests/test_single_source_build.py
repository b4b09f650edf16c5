"""Single source for build files (#41, hipconv/buildfiles/backends.py): a CMake file or Makefile keeps its CUDA
build and gains a HIP build beside it, chosen by GPU_BACKEND; reruns change nothing; what cannot be split is
HC414. The fixtures single_build_cmake and single_build_make are built both ways from one tree: the HIP side
with CMake 3.25 and Debian's HIP, and with Debian's hipcc through make; the CUDA side with nvcc where it is
installed. Their sources compile both ways unchanged (a hand-written guarded header), so these tests do not
depend on the source-file part of --single-source."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from helpers import DEBIAN_CMAKE, HAS_DEBIAN_CMAKE_HIP, HIPCC_SYNTAX, check_golden, hipcc_syntax_missing, run_cli
from hipconv.buildfiles import build_file_kind, translate_build_file
from hipconv.buildfiles.backends import drifted_branches
from hipconv.commands.translate import TranslateRequest, translate_paths
from hipconv.config import Config, settings_from
from hipconv.diagnostics import BACKEND_NOT_SPLIT, BACKEND_SPLIT, CODES
from hipconv.results import FileStatus
from hipconv.translate.source import SourceFile

FIXTURES = Path(__file__).parent / "fixtures"
CASES = {"single_build_cmake": ("CMakeLists.txt", "kernels/CMakeLists.txt"), "single_build_make": ("Makefile",)}
NVCC = Path("/usr/local/cuda/bin/nvcc")
NO_NVCC = f"{NVCC} is not installed: the CUDA side is not built here"
NO_CMAKE_HIP = "needs cmake, clang++-15 and Debian's hip-lang (docs/build.md: Building the translated tree with CMake)"


def _split(text: str, name: str = "CMakeLists.txt") -> tuple[str, list[str]]:
    result = translate_build_file(SourceFile.from_bytes(name, text.encode()), single_source=True)
    output = text if result.output is None else result.output.decode()
    return output, [d.format().split(": ", 1)[1] for d in result.diagnostics]


def _unmarked(text: str, name: str = "CMakeLists.txt") -> str:
    """`text` less the digests on the branches' opening lines, after checking that each is its CUDA side's."""
    kind = build_file_kind(name)
    assert kind is not None
    assert drifted_branches(kind, text.encode()) == []
    return _MARKER.sub("", text)


_MARKER = re.compile(r" # hipconv single-source [0-9a-f]{12}$", re.M)


def _rerun_unchanged(text: str, name: str) -> None:
    again = translate_build_file(SourceFile.from_bytes(name, text.encode()), single_source=True)
    assert again.status is FileStatus.UNCHANGED, again.output
    assert BACKEND_SPLIT not in [d.code for d in again.diagnostics]


@pytest.mark.parametrize(
    ("name", "src", "expected"),
    [
        pytest.param(
            "CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX CUDA)\nadd_executable(app main.cu)\n",
            "cmake_minimum_required(VERSION 3.21)\n"
            'set(GPU_BACKEND CUDA CACHE STRING "The GPU build: CUDA (nvcc) or HIP (ROCm)")\n'
            "set_property(CACHE GPU_BACKEND PROPERTY STRINGS CUDA HIP)\n"
            'if(NOT GPU_BACKEND MATCHES "^(CUDA|HIP)$")\n'
            '  message(FATAL_ERROR "GPU_BACKEND is CUDA or HIP, not ${GPU_BACKEND}")\n'
            "endif()\n"
            'if(GPU_BACKEND STREQUAL "HIP")\n'
            "  project(p LANGUAGES CXX HIP)\n"
            "  add_compile_definitions(HIP_ENABLE_WARP_SYNC_BUILTINS)\n"
            "  add_executable(app main.cu)\n"
            "  set_source_files_properties(main.cu PROPERTIES LANGUAGE HIP)\n"
            "else()\n"
            "  project(p LANGUAGES CXX CUDA)\n"
            "  add_executable(app main.cu)\n"
            "endif()\n",
            id="project-and-sources-one-pair-of-branches",
        ),
        pytest.param(
            "CMakeLists.txt",
            "add_library(k k.cu)\n\nif(WITH_BLAS)\n  target_link_libraries(k PRIVATE cublas)\nendif()\n",
            'if(GPU_BACKEND STREQUAL "HIP")\n'
            "  add_library(k k.cu)\n"
            "  set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)\n"
            "else()\n"
            "  add_library(k k.cu)\n"
            "endif()\n\n"
            'if(GPU_BACKEND STREQUAL "HIP")\n'
            "  find_package(hipblas REQUIRED)\n"
            "endif()\n"
            "if(WITH_BLAS)\n"
            '  if(GPU_BACKEND STREQUAL "HIP")\n'
            "    target_link_libraries(k PRIVATE roc::hipblas)\n"
            "  else()\n"
            "    target_link_libraries(k PRIVATE cublas)\n"
            "  endif()\n"
            "endif()\n",
            id="subdirectory-no-declaration-added-package-alone-nested-branch",
        ),
        pytest.param(
            "CMakeLists.txt",
            'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -use_fast_math\n  -lineinfo")\n',
            'if(GPU_BACKEND STREQUAL "HIP")\n'
            'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -ffast-math\n  -gline-tables-only")\n'
            "else()\n"
            'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -use_fast_math\n  -lineinfo")\n'
            "endif()\n",
            id="a-quoted-argument-over-lines-is-not-indented",
        ),
        pytest.param(
            "Makefile",
            "NVCC = nvcc\nFLAGS = -O2 -arch=sm_80\nLIBS = -lcublas\n\n"
            "app: app.cu\n\t$(NVCC) $(FLAGS) -o $@ $< $(LIBS)\n",
            "GPU_BACKEND ?= CUDA\n"
            "$(if $(filter-out CUDA HIP,$(GPU_BACKEND)),$(error GPU_BACKEND is CUDA or HIP, not $(GPU_BACKEND)))\n"
            "ifeq ($(GPU_BACKEND),HIP)\n"
            "NVCC = hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS\n"
            "FLAGS = -O2 --offload-arch=gfx90a\n"
            "LIBS = -lhipblas\n"
            "else\n"
            "NVCC = nvcc\n"
            "FLAGS = -O2 -arch=sm_80\n"
            "LIBS = -lcublas\n"
            "endif\n\n"
            "app: app.cu\n\t$(NVCC) $(FLAGS) -o $@ $< $(LIBS)\n",
            id="make-variables",
        ),
        pytest.param(
            "Makefile",
            "# tools\nall: tool\n\ntool: tool.cu\n\t/usr/local/cuda/bin/nvcc -O2 \\\n\t  -o $@ $<\n",
            "GPU_BACKEND ?= CUDA\n"
            "$(if $(filter-out CUDA HIP,$(GPU_BACKEND)),$(error GPU_BACKEND is CUDA or HIP, not $(GPU_BACKEND)))\n"
            "ifeq ($(GPU_BACKEND),HIP)\n"
            "ROCM_PATH ?= /opt/rocm\n"
            "endif\n"
            "# tools\nall: tool\n\ntool: tool.cu\n"
            "ifeq ($(GPU_BACKEND),HIP)\n"
            "\t$(ROCM_PATH)/bin/hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS -O2 \\\n\t  -o $@ $<\n"
            "else\n"
            "\t/usr/local/cuda/bin/nvcc -O2 \\\n\t  -o $@ $<\n"
            "endif\n",
            id="make-recipe-lines-with-their-continuation",
        ),
        pytest.param(
            "CMakeLists.txt",
            'if(CMAKE_CUDA_COMPILER)\n  message(STATUS "GPU build")\nendif()\n',
            'if((GPU_BACKEND STREQUAL "HIP" AND (CMAKE_HIP_COMPILER)) OR (NOT GPU_BACKEND STREQUAL "HIP" AND '
            '(CMAKE_CUDA_COMPILER)))\n  message(STATUS "GPU build")\nendif()\n',
            id="cmake-condition-tests-the-backend",
        ),
        pytest.param(
            "Makefile",
            "ifneq ($(shell which nvcc),)\nHAVE_GPU = 1\nendif\n",
            "GPU_BACKEND ?= CUDA\n"
            "$(if $(filter-out CUDA HIP,$(GPU_BACKEND)),$(error GPU_BACKEND is CUDA or HIP, not $(GPU_BACKEND)))\n"
            "ifneq ($(if $(filter HIP,$(GPU_BACKEND)),$(shell which hipcc),$(shell which nvcc)),)\n"
            "HAVE_GPU = 1\nendif\n",
            id="make-condition-tests-the-backend",
        ),
    ],
)
def test_split(name: str, src: str, expected: str) -> None:
    output, diagnostics = _split(src, name)
    assert _unmarked(output, name) == expected
    assert output.count(" # hipconv single-source ") == expected.count(
        'if(GPU_BACKEND STREQUAL "HIP")'
    ) + expected.count("ifeq ($(GPU_BACKEND),HIP)")
    assert sum(d.startswith(f"note[{BACKEND_SPLIT}]") for d in diagnostics) == 1
    _rerun_unchanged(output, name)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        pytest.param("CMakeLists.txt", "project(p LANGUAGES CXX)\nadd_executable(app main.cpp)\n", id="cmake-no-cuda"),
        pytest.param("Makefile", "CXX = g++\napp: app.cpp\n\t$(CXX) -O2 -o $@ $<\n", id="make-no-nvcc"),
        pytest.param(
            "Makefile",
            "GPU_BACKEND ?= CUDA\nifeq ($(GPU_BACKEND),HIP)\nNVCC = hipcc\nelse\nNVCC = nvcc\nendif\n",
            id="make-split-by-hand",
        ),
    ],
)
def test_noop(name: str, text: str) -> None:
    output, diagnostics = _split(text, name)
    assert output == text
    assert diagnostics == []


@pytest.mark.parametrize(
    ("name", "src", "kept", "message"),
    [
        pytest.param(
            "CMakeLists.txt",
            "if(USE_GPU)\n  add_definitions(-DGPU)\nendif(CMAKE_CUDA_COMPILER)\n",
            "if(USE_GPU)\n  add_definitions(-DGPU)\nendif(CMAKE_CUDA_COMPILER)\n",
            "CMakeLists.txt:3:1: warning[HC414]: endif(CMAKE_CUDA_COMPILER): the translation changes a line of a "
            "block's structure beyond an if's condition, which cannot be put in a GPU_BACKEND branch; left as the "
            "CUDA build has it (write its HIP side by hand)",
            id="cmake-block-end",
        ),
        pytest.param(
            "Makefile",
            "ifdef CUDA_HOME\nGPU = 1\nelse ifneq ($(shell which nvcc),)\nGPU = 1\nendif\n",
            "ifdef CUDA_HOME\nGPU = 1\nelse ifneq ($(shell which nvcc),)\nGPU = 1\nendif\n",
            "Makefile:3:1: warning[HC414]: else ifneq ($(shell which nvcc),): the translation changes a line of a "
            "block's structure beyond an if's condition, which cannot be put in a GPU_BACKEND branch; left as the "
            "CUDA build has it (write its HIP side by hand)",
            id="make-else-if",
        ),
        pytest.param(
            "CMakeLists.txt",
            "set(GPU_BACKEND cuda)\nproject(p LANGUAGES CUDA)\n",
            "set(GPU_BACKEND cuda)\nproject(p LANGUAGES CUDA)\n",
            "CMakeLists.txt:1:1: warning[HC414]: set(GPU_BACKEND cuda): the file sets GPU_BACKEND itself; not split",
            id="cmake-project-variable",
        ),
        pytest.param(
            "Makefile",
            "GPU_BACKEND := nvidia\nNVCC = nvcc\n",
            "GPU_BACKEND := nvidia\nNVCC = nvcc\n",
            "Makefile:1:1: warning[HC414]: GPU_BACKEND := nvidia: the file sets GPU_BACKEND itself; not split",
            id="make-project-variable",
        ),
    ],
)
def test_not_split(name: str, src: str, kept: str, message: str) -> None:
    """What cannot be split stays as the CUDA build has it, with HC414, and no claim that it was rewritten."""
    result = translate_build_file(SourceFile.from_bytes(name, src.encode()), single_source=True)
    assert (src if result.output is None else result.output.decode()) == kept
    lines = [d.format() for d in result.diagnostics]
    assert message in lines
    assert not [line for line in lines if "HC405" in line or "HC404" in line], lines


def test_a_condition_and_its_body() -> None:
    """The condition tests GPU_BACKEND, the body is split in its own branches: each is what one build reads."""
    output, diagnostics = _split("if(CMAKE_CUDA_COMPILER)\n  add_executable(app main.cu)\nendif()\n")
    assert _unmarked(output) == (
        'if((GPU_BACKEND STREQUAL "HIP" AND (CMAKE_HIP_COMPILER)) OR (NOT GPU_BACKEND STREQUAL "HIP" AND '
        "(CMAKE_CUDA_COMPILER)))\n"
        '  if(GPU_BACKEND STREQUAL "HIP")\n'
        "    add_executable(app main.cu)\n"
        "    set_source_files_properties(main.cu PROPERTIES LANGUAGE HIP)\n"
        "  else()\n"
        "    add_executable(app main.cu)\n"
        "  endif()\n"
        "endif()\n"
    )
    assert [d.split(":", 1)[0] for d in diagnostics] == ["note[HC413]", "note[HC405]"]
    assert "2 stretches" in diagnostics[0]
    _rerun_unchanged(output, "CMakeLists.txt")


@pytest.mark.parametrize("code", [BACKEND_SPLIT, BACKEND_NOT_SPLIT])
def test_code_examples(code: str) -> None:
    """The examples `hipconv codes` shows are what the split reports (tests/test_cli_output.py runs them through
    the command line once `translate --single-source` takes source files)."""
    example = CODES[code].example
    assert example is not None
    result = translate_build_file(
        SourceFile.from_bytes(example.file, (example.source + "\n").encode()), single_source=True
    )
    assert example.diagnostic in [d.format() for d in result.diagnostics]


def _translate_build_files(case: str, out: Path, *, single_source: bool = True) -> list[str]:
    """The case's build files through the translate pipeline (single source), into `out` with the case's
    sources as they are; the diagnostics ("path: code", the path in the tree)."""
    src = out.parent / f"{case}-build-files"
    for name in CASES[case]:
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FIXTURES / case / "cuda" / name, src / name)
    settings = replace(settings_from(Config(), "5.2", None), single_source=single_source)
    request = TranslateRequest((src,), settings, output=out, force=True, keep_files=True)
    outcome = translate_paths(request, Console(file=io.StringIO()), io.BytesIO())
    return [
        f"{Path(d.path).relative_to(src).as_posix()}: {d.code}" for r in outcome.summary.results for d in r.diagnostics
    ]


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case: str, tmp_path: Path, update_golden: bool) -> None:
    out = tmp_path / "out"
    diagnostics = _translate_build_files(case, out)
    got = tmp_path / "single"  # the build files (what the run writes beside them is the source part's)
    for name in CASES[case]:
        (got / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / name, got / name)
    check_golden(got, FIXTURES / case / "single", update=update_golden)
    assert sorted(d.split(":", 1)[0] for d in diagnostics if d.endswith(BACKEND_SPLIT)) == sorted(CASES[case])
    assert not [d for d in diagnostics if d.endswith(BACKEND_NOT_SPLIT)]
    for name in CASES[case]:
        _rerun_unchanged((out / name).read_text(), name)


def test_pipeline_without_single_source_replaces_the_build(tmp_path: Path) -> None:
    _translate_build_files("single_build_make", tmp_path / "hip", single_source=False)
    text = (tmp_path / "hip" / "Makefile").read_text()
    assert "GPU_BACKEND" not in text and "nvcc" not in text.replace("# saxpy with nvcc", "")


def _single_tree(case: str, tmp_path: Path) -> Path:
    """The case's CUDA tree with its build files in their single-source form (the goldens)."""
    out = tmp_path / "tree"
    shutil.copytree(FIXTURES / case / "cuda", out)
    for name in CASES[case]:
        shutil.copyfile(FIXTURES / case / "single" / name, out / name)
    return out


def _run(cmd: list[str], env: Mapping[str, str], cwd: Path | None = None) -> None:
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, " ".join(cmd) + "\n" + done.stdout[-4000:] + done.stderr[-4000:]


@pytest.mark.hipcc
@pytest.mark.skipif(not HAS_DEBIAN_CMAKE_HIP, reason=NO_CMAKE_HIP)
def test_cmake_hip_side_builds(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """`cmake -DGPU_BACKEND=HIP` on the single-source tree, with Debian's HIP. Debian ships no hipBLAS: its
    CMake package is stood in by an empty target, and USE_CUBLAS is off (the cuBLAS path's HIP side is
    syntax-checked against ROCm 6.3's hipBLAS below)."""
    source = _single_tree("single_build_cmake", tmp_path)
    rocm = tmp_path / "rocm-root" / "lib" / "cmake"
    rocm.mkdir(parents=True)
    (rocm / "hip-lang").symlink_to(DEBIAN_CMAKE / "hip-lang")
    stand_in = tmp_path / "stand-in" / "hipblas"
    stand_in.mkdir(parents=True)
    (stand_in / "hipblas-config.cmake").write_text("add_library(roc::hipblas INTERFACE IMPORTED)\n")
    env = {**hip_env, "CMAKE_PREFIX_PATH": f"{DEBIAN_CMAKE}:{stand_in.parent}"}
    build = tmp_path / "build"
    configure = ["cmake", "-S", str(source), "-B", str(build), "-DGPU_BACKEND=HIP", "-DUSE_CUBLAS=OFF"]
    configure += ["-DCMAKE_HIP_COMPILER=clang++-15", f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={rocm.parent.parent}"]
    configure += ["-DCMAKE_HIP_FLAGS=--rocm-path=/usr --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"]
    _run(configure, env)
    _run(["cmake", "--build", str(build), "-j2"], env)
    assert os.access(build / "vecdemo", os.X_OK)
    assert "HIP_FLAGS" in (build / "kernels" / "CMakeFiles" / "vecops.dir" / "flags.make").read_text()


@pytest.mark.skipif(not NVCC.exists() or not shutil.which("cmake"), reason=NO_NVCC)
def test_cmake_cuda_side_builds(tmp_path: Path) -> None:
    """Plain `cmake` on the same tree is the CUDA build it was, with nvcc (USE_CUBLAS off where the toolkit has
    no cuBLAS)."""
    source = _single_tree("single_build_cmake", tmp_path)
    blas = "ON" if any(NVCC.parents[1].glob("lib64/libcublas.so*")) else "OFF"
    build = tmp_path / "build"
    env = dict(os.environ)
    _run(["cmake", "-S", str(source), "-B", str(build), f"-DCMAKE_CUDA_COMPILER={NVCC}", f"-DUSE_CUBLAS={blas}"], env)
    _run(["cmake", "--build", str(build), "-j2"], env)
    assert os.access(build / "vecdemo", os.X_OK)
    assert "CUDA_FLAGS" in (build / "kernels" / "CMakeFiles" / "vecops.dir" / "flags.make").read_text()


@pytest.mark.hipcc
@pytest.mark.skipif(not shutil.which("make"), reason="needs make")
def test_make_hip_side_builds(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """`make GPU_BACKEND=HIP` with Debian's hipcc (USE_CUBLAS=0: Debian ships no hipBLAS)."""
    source = _single_tree("single_build_make", tmp_path)
    _run(["make", "GPU_BACKEND=HIP", "USE_CUBLAS=0", "-j2"], hip_env, cwd=source)
    assert os.access(source / "saxpy", os.X_OK)


@pytest.mark.skipif(not NVCC.exists() or not shutil.which("make"), reason=NO_NVCC)
def test_make_cuda_side_builds(tmp_path: Path) -> None:
    source = _single_tree("single_build_make", tmp_path)
    blas = "1" if any(NVCC.parents[1].glob("lib64/libcublas.so*")) else "0"
    _run(["make", f"NVCC={NVCC}", f"USE_CUBLAS={blas}", "-j2"], dict(os.environ), cwd=source)
    assert os.access(source / "saxpy", os.X_OK)


@pytest.mark.parametrize("case", sorted(CASES))
def test_cublas_path_compiles_for_rocm_63(case: str) -> None:
    """The sources with USE_CUBLAS on compile as HIP against ROCm 6.3's headers (hipBLAS included)."""
    missing = hipcc_syntax_missing()
    if missing is not None:
        print(f"skipped: {missing}")
        pytest.skip(missing)
    root = FIXTURES / case / "cuda"
    units = sorted(root.rglob("*.cu"))
    includes = sorted({str(p.parent) for p in root.rglob("*.h")})
    done = subprocess.run(
        [str(HIPCC_SYNTAX), "-DUSE_CUBLAS", *(f"-I{d}" for d in includes), *map(str, units)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]


DOCS = Path(__file__).parents[1] / "docs" / "build.md"


def _docs_section() -> str:
    text = DOCS.read_text(encoding="utf-8")
    return text.split("## Single source: a HIP build beside the CUDA one\n", 1)[1].split("\n## ", 1)[0]


def test_the_docs_show_the_goldens() -> None:
    """docs/build.md's CMake and Makefile excerpts are the fixtures' goldens, line for line."""
    section = _docs_section()
    for fence, golden in (
        ("cmake", "single_build_cmake/single/CMakeLists.txt"),
        ("make", "single_build_make/single/Makefile"),
    ):
        shown = section.split(f"```{fence}\n", 1)[1].split("```", 1)[0]
        assert shown in (FIXTURES / golden).read_text(), fence


@pytest.mark.hipcc
@pytest.mark.skipif(not shutil.which("make"), reason="needs make")
def test_the_docs_recipe(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """The commands docs/build.md shows: translate --single-source (the source files too), then make with nvcc
    (where installed) and with hipcc, in one output tree."""
    commands = _docs_section().split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert commands[0] == "hipconv translate tests/fixtures/single_build_make/cuda -o /tmp/single --single-source"
    out = tmp_path / "single"
    result = run_cli("translate", FIXTURES / "single_build_make" / "cuda", "-o", out, "--single-source")
    assert result.code == 0, result.stderr
    assert (out / "Makefile").read_bytes() == (FIXTURES / "single_build_make" / "single" / "Makefile").read_bytes()
    if NVCC.exists():
        _run(["make", "-C", str(out), "USE_CUBLAS=0", f"NVCC={NVCC}"], dict(os.environ))
        assert os.access(out / "saxpy", os.X_OK)
        _run(["make", "-C", str(out), "clean"], dict(os.environ))
    else:
        print(f"CUDA side skipped: {NO_NVCC}")
    done = subprocess.run(
        ["make", "-C", str(out), "GPU_BACKEND=HIP", "USE_CUBLAS=0"], env=hip_env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert os.access(out / "saxpy", os.X_OK)


@pytest.mark.hipcc
def test_build_reads_the_hip_side(tmp_path: Path) -> None:
    """`hipconv build --single-source` reads the build files as `cmake -DGPU_BACKEND=HIP` would: main.cu's flags
    are the HIP branch's (-ffast-math from the HIP generator expression), not the CUDA branch's (none for HIP)."""
    out = tmp_path / "out"
    source = FIXTURES / "single_build_cmake" / "cuda"
    result = run_cli("build", source, "-o", out, "--single-source", "--check-only", "--rocm-version", "5.2", "-j", "2")
    assert result.code in (0, 1), result.stderr  # 1: main.cu's cuBLAS path where no hipBLAS is installed
    database = {Path(e["file"]).name: e["arguments"] for e in json.loads((out / "compile_commands.json").read_text())}
    assert sorted(database) == ["main.cu", "reduce.cu", "scale.cu"]
    assert "-ffast-math" in database["main.cu"] and "-DUSE_CUBLAS" in database["main.cu"]
    assert not [a for a in database["main.cu"] if a in ("--use_fast_math", "-lineinfo")]


BUILD_FILE_FIXTURES = sorted(
    p.relative_to(FIXTURES).as_posix()
    for p in FIXTURES.glob("*/cuda/**/*")
    if p.is_file() and build_file_kind(p.name) is not None
)


@pytest.mark.parametrize("name", BUILD_FILE_FIXTURES)
def test_every_build_fixture_splits_and_reruns_unchanged(name: str) -> None:
    """Each CUDA build file of the fixtures (CMake and make, the translation's whole range) is split with a note
    and nothing it cannot split, and its single-source form run through again is unchanged."""
    path = FIXTURES / name
    result = translate_build_file(SourceFile.from_bytes(name, path.read_bytes()), single_source=True)
    assert result.output is not None
    codes = [d.code for d in result.diagnostics]
    assert codes.count(BACKEND_SPLIT) == 1 and BACKEND_NOT_SPLIT not in codes
    _rerun_unchanged(result.output.decode(), name)
