"""Build-file translation: golden CMake/Makefile trees, every diagnostic, no-ops and idempotence.

tests/fixtures/build_files: every construct hipconv maps or reports (translate only).
tests/fixtures/build_project: the realistic project that tests/test_build.py also builds.
tests/fixtures/build_inference: an inference engine's CMake project (tests/test_cmake.py checks what it reports
and builds).
`pytest --update-golden` rewrites their hip/ trees.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import check_golden, run_cli, tree
from hipconv.buildfiles import build_file_kind, translate_build_file
from hipconv.buildfiles.cmake_syntax import cmake_commands
from hipconv.buildfiles.make import make_words
from hipconv.results import FileStatus
from hipconv.translate.source import SourceFile

FIXTURES = Path(__file__).parent / "fixtures"
BUILD_CASES = [
    "build_files",
    "build_project",
    "makefile_project",
    "cmake_project",
    "cpp_as_cuda",
    "build_inference",
    "build_thrust_define",
]


def translate_tree(case: str, out: Path, *extra: str) -> str:
    result = run_cli("translate", FIXTURES / case / "cuda", "-o", out, "--force", "--rocm-version", "5.2", *extra)
    assert result.code == 0, result.stderr
    return result.stderr


@pytest.mark.parametrize("case", BUILD_CASES)
def test_golden(case: str, tmp_path: Path, update_golden: bool) -> None:
    out = tmp_path / "hip"
    translate_tree(case, out)
    check_golden(out, FIXTURES / case / "hip", update=update_golden)


@pytest.mark.parametrize("case", BUILD_CASES)
def test_idempotent(case: str, tmp_path: Path) -> None:
    once, twice = tmp_path / "once", tmp_path / "twice"
    translate_tree(case, once)
    result = run_cli("translate", once, "-o", twice, "--offload-arch", "gfx90a")
    assert result.code == 0, result.stderr
    assert tree(twice) == tree(once)


def test_every_build_file_diagnostic(tmp_path: Path) -> None:
    """What cannot be mapped is reported where it is, with its code."""
    stderr = translate_tree("build_files", tmp_path / "hip")
    lines = {
        line.split(": ", 1)[0].split("/cuda/", 1)[1] + " " + line.split(": ", 2)[1]
        for line in stderr.splitlines()
        if "/cuda/" in line
    }
    expected = {
        "CMakeLists.txt:9:30 note[HC404]",
        "CMakeLists.txt:10:5 warning[HC401]",
        "CMakeLists.txt:11:32 warning[HC402]",
        "CMakeLists.txt:11:32 note[HC403]",
        "CMakeLists.txt:12:5 warning[HC401]",
        "CMakeLists.txt:14:1 note[HC405]",
        "CMakeLists.txt:16:1 note[HC405]",
        "CMakeLists.txt:18:3 note[HC405]",
        "CMakeLists.txt:20:3 warning[HC401]",
        "CMakeLists.txt:21:22 warning[HC401]",
        "CMakeLists.txt:22:63 note[HC404]",
        "CMakeLists.txt:24:43 warning[HC401]",
        "CMakeLists.txt:25:43 warning[HC401]",
        "CMakeLists.txt:27:43 warning[HC401]",
        "CMakeLists.txt:27:54 warning[HC401]",
        "Makefile:2:1 warning[HC401]",
        "Makefile:2:14 warning[HC401]",
        "Makefile:3:9 note[HC405]",
        "Makefile:3:30 note[HC405]",  # -DHIP_ENABLE_WARP_SYNC_BUILTINS after nvcc
        "Makefile:16:7 note[HC405]",
        "CMakeLists.txt:3:1 note[HC405]",  # add_compile_definitions(HIP_ENABLE_WARP_SYNC_BUILTINS)
        "Makefile:4:18 note[HC404]",
        "Makefile:5:49 note[HC403]",  # -use_fast_math becomes -ffast-math: said
        "Makefile:5:59 note[HC403]",
        "Makefile:6:39 note[HC403]",
        "Makefile:16:39 note[HC403]",
        "cmake/gpu.cmake:6:23 note[HC403]",
        "Makefile:5:70 warning[HC402]",
        "Makefile:7:12 warning[HC401]",
        "Makefile:8:37 warning[HC401]",
        "Makefile:10:1 warning[HC401]",
        "Makefile:19:13 warning[HC401]",
        "rules.mk:2:12 note[HC403]",
        "rules.mk:2:37 note[HC404]",
        "CMakeLists.txt:35:41 note[HC406]",  # -Xcompiler=/W4,/EHsc: one mapped, one dropped
        "CMakeLists.txt:35:89 note[HC406]",
        "Makefile:23:15 note[HC406]",
        "Makefile:23:39 note[HC406]",
        "legacy/CMakeLists.txt:2:1 warning[HC401]",
        "legacy/CMakeLists.txt:3:1 warning[HC401]",
        "legacy/CMakeLists.txt:3:1 note[HC405]",  # cuda_add_executable's main.cu marked LANGUAGE HIP
    }
    assert lines == expected
    assert "-ptx" not in stderr  # a shell comment in a recipe is not read as flags


def test_offload_arch_reaches_build_files(tmp_path: Path) -> None:
    translate_tree("build_project", tmp_path / "hip", "--offload-arch", "gfx90a,gfx942")
    assert "set(CMAKE_HIP_ARCHITECTURES gfx90a;gfx942)" in (tmp_path / "hip" / "CMakeLists.txt").read_text()
    assert "--offload-arch=gfx90a --offload-arch=gfx942" in (tmp_path / "hip" / "Makefile").read_text()


def test_bad_offload_arch_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli(
        "translate", FIXTURES / "build_project" / "cuda", "-o", tmp_path / "hip", "--offload-arch", "sm_80"
    )
    assert result.code == 2
    assert "not an AMD GPU target" in result.stderr
    assert not (tmp_path / "hip").exists()


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("CMakeLists.txt", "cmake"),
        ("cmake/FindFoo.cmake", "cmake"),
        ("Makefile", "make"),
        ("makefile", "make"),
        ("GNUmakefile", "make"),
        ("rules.mk", "make"),
        ("CMakeLists.txt.in", None),
        ("build.ninja", None),
        ("main.cu", None),
    ],
)
def test_build_file_kind(name: str, kind: str | None) -> None:
    assert build_file_kind(name) == kind


@pytest.mark.parametrize(
    ("name", "text"),
    [
        pytest.param(
            "CMakeLists.txt", "project(host LANGUAGES CXX)\nadd_executable(app main.cpp)\n", id="cmake-no-cuda"
        ),
        pytest.param(
            "CMakeLists.txt", "# CUDA::cudart CMAKE_CUDA_FLAGS\n#[[ project(x CUDA) ]]\n", id="cmake-comments"
        ),
        pytest.param("CMakeLists.txt", "set(X [=[CUDA::cublas]=])\n", id="cmake-bracket-argument"),
        pytest.param(
            "CMakeLists.txt", "project(x LANGUAGES HIP)\r\nfind_package(hip REQUIRED)\r\n", id="cmake-crlf-hip"
        ),
        pytest.param("Makefile", "CXXFLAGS := -O2 -Wall\napp: main.o\n\t$(CXX) $^ -o $@ -lm\n", id="make-host-only"),
        pytest.param("Makefile", "# nvcc -arch=sm_80 -lcudart\n", id="make-comment"),
        pytest.param(
            "Makefile", "NV := $(shell which nvcc-wrapper)\nX := $(shell nvcc --version)\n", id="make-not-a-lookup"
        ),
        # other backends, another macro's value, and the value in a comment stay as written
        pytest.param(
            "CMakeLists.txt",
            "target_compile_definitions(t PRIVATE THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP\n"
            "  MY_THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA)\n# THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA\n",
            id="cmake-thrust-other-backend",
        ),
        pytest.param(
            "Makefile", "CXXFLAGS := -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_TBB\n", id="make-thrust-host-backend"
        ),
    ],
)
def test_noop(name: str, text: str) -> None:
    result = translate_build_file(SourceFile.from_bytes(name, text.encode()))
    assert result.status is FileStatus.UNCHANGED and result.output is None and result.diagnostics == ()


@pytest.mark.parametrize(
    ("name", "src", "expected"),
    [
        pytest.param(
            "CMakeLists.txt",
            "project(p CUDA)\n",
            "project(p HIP)\nadd_compile_definitions(HIP_ENABLE_WARP_SYNC_BUILTINS)\n",
            id="project-language",
        ),
        pytest.param(
            "x.cmake",
            "set_property(SOURCE a.cpp PROPERTY LANGUAGE CUDA)\n",
            "set_property(SOURCE a.cpp PROPERTY LANGUAGE HIP)\n",
            id="source-language",
        ),
        pytest.param(
            "CMakeLists.txt",
            "set_target_properties(t PROPERTIES LINKER_LANGUAGE CUDA)\n",
            "set_target_properties(t PROPERTIES LINKER_LANGUAGE HIP)\n",
            id="linker-language",
        ),
        pytest.param(
            "CMakeLists.txt",
            "target_compile_features(t PUBLIC cuda_std_20)\n",
            "target_compile_features(t PUBLIC hip_std_20)\n",
            id="compile-feature",
        ),
        pytest.param(
            "CMakeLists.txt",
            "set_target_properties(t PROPERTIES CUDA_ARCHITECTURES native)\n",
            "set_target_properties(t PROPERTIES HIP_ARCHITECTURES gfx90a)\n",
            id="native-arch",
        ),
        pytest.param(
            "CMakeLists.txt",
            "find_package(CUDAToolkit QUIET)\ntarget_link_libraries(t CUDA::cublas_static)\n",
            "find_package(hip QUIET)\nfind_package(hipblas QUIET)\ntarget_link_libraries(t roc::hipblas)\n",
            id="find-package-quiet",
        ),
        pytest.param(
            "Makefile",
            "\tnvcc -x cu -c a.cpp -o a.o\n",
            "\thipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS -x hip -c a.cpp -o a.o\n",
            id="make-x-cu",
        ),
        pytest.param(
            "Makefile",
            "NVCCFLAGS += -arch sm_80 \\\n\t-lineinfo\n",
            "NVCCFLAGS += --offload-arch=gfx90a \\\n\t-gline-tables-only\n",
            id="make-continuation",
        ),
        pytest.param(
            "Makefile", "LIBS = -lcudart_static -lcuda\n", "LIBS = -lamdhip64 -lamdhip64\n", id="make-libraries"
        ),
        pytest.param(
            "Makefile",
            "CC = nvcc\nCFLAGS = -O2 -arch=sm_60 -Iinc\napp: app.cu\n\t$(CC) $(CFLAGS) $< -o $@\n",
            "CC = hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS\nCFLAGS = -O2 --offload-arch=gfx90a -Iinc\n"
            "app: app.cu\n\t$(CC) $(CFLAGS) $< -o $@\n",
            id="make-cc-is-nvcc",
        ),
        pytest.param(
            "Makefile",
            "NVCC := /usr/local/cuda/bin/nvcc\nBASE ?= -Xcompiler -fPIC\nOPTS := $(BASE) --use_fast_math\n"
            "OPTS += -rdc=true\nx.o: x.cu\n\t$(NVCC) $(OPTS) -c $<\n",
            "ROCM_PATH ?= /opt/rocm\nNVCC := $(ROCM_PATH)/bin/hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS\n"
            "BASE ?= -fPIC\nOPTS := $(BASE) -ffast-math\n"
            "OPTS += -fgpu-rdc\nx.o: x.cu\n\t$(NVCC) $(OPTS) -c $<\n",
            id="make-nested-references",
        ),
        pytest.param(
            "Makefile",
            "NVCC = $(CUDA_DIR)/bin/nvcc\nNVCC_FLAGS = -I.\nifeq ($(dbg),1)\n\tNVCC_FLAGS += -G -O0\nendif\n",
            "ROCM_PATH ?= /opt/rocm\nNVCC = $(ROCM_PATH)/bin/hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS\n"
            "NVCC_FLAGS = -I.\nifeq ($(dbg),1)\n"
            "\tNVCC_FLAGS += -g -O0\nendif\n",
            id="make-tab-assignment-in-conditional",
        ),
        pytest.param(
            "Makefile",
            "ROCM_PATH = /opt/rocm-6.3.0\nall:\n\t$(CUDA_HOME)/bin/nvcc -maxrregcount=32 a.cu\n",
            "ROCM_PATH = /opt/rocm-6.3.0\nall:\n\t$(ROCM_PATH)/bin/hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS a.cu\n",
            id="make-rocm-path-already-set",
        ),
        pytest.param(  # make reads a comment's line splice as part of the comment: that nvcc line is no code
            "Makefile",
            "# the CUDA compiler \\\nNVCC = $(CUDA_PATH)/bin/nvcc\nall:\n\t$(NVCC) -arch=sm_70 a.cu\n",
            "# the CUDA compiler \\\nNVCC = $(CUDA_PATH)/bin/nvcc\nall:\n\t$(NVCC) --offload-arch=gfx90a a.cu\n",
            id="make-comment-continued-onto-a-line",
        ),
        pytest.param(  # ... an escaped backslash is no splice: ROCM_PATH goes on a line of its own, not in the comment
            "Makefile",
            "X = 1 # c \\\\\nNVCC = $(CUDA_PATH)/bin/nvcc\n",
            "X = 1 # c \\\\\nROCM_PATH ?= /opt/rocm\nNVCC = $(ROCM_PATH)/bin/hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS\n",
            id="make-comment-ending-in-an-escaped-backslash",
        ),
        pytest.param(
            "Makefile",
            "all:\n\t/usr/local/cuda/bin/nvcc --ptxas-options=-v a.cu\n",
            "ROCM_PATH ?= /opt/rocm\nall:\n\t$(ROCM_PATH)/bin/hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS a.cu\n",
            id="make-nvcc-path-in-recipe",
        ),
        pytest.param(
            "Makefile",
            "NVCC ?= $(shell command -v nvcc)\nFLAGS = -O3 -expt-extended-lambda\nall:\n\t$(NVCC) $(FLAGS) a.cu\n",
            "NVCC ?= $(patsubst %,% -DHIP_ENABLE_WARP_SYNC_BUILTINS,$(shell command -v hipcc))\nFLAGS = -O3\n"
            "all:\n\t$(NVCC) $(FLAGS) a.cu\n",
            id="make-shell-command-v",
        ),
        pytest.param(
            "Makefile",
            "NVCC := $(shell which nvcc 2>/dev/null)\nifeq ($(NVCC),)\n  NVCC := /usr/local/cuda/bin/nvcc\nendif\n"
            "all:\n\t$(NVCC) -arch=sm_80 a.cu\n",
            "NVCC := $(patsubst %,% -DHIP_ENABLE_WARP_SYNC_BUILTINS,$(shell which hipcc 2>/dev/null))\n"
            "ifeq ($(NVCC),)\nROCM_PATH ?= /opt/rocm\n"
            "  NVCC := $(ROCM_PATH)/bin/hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS\n"
            "endif\nall:\n\t$(NVCC) --offload-arch=gfx90a a.cu\n",
            id="make-shell-which-with-a-fallback",
        ),
        pytest.param(
            "Makefile",
            "NVCC ?= $(shell command -v nvcc 2> /dev/null || echo nvcc)\n"
            "CU := $(shell whereis -b nvcc | cut -d' ' -f2)\n"
            "CUDA_BIN = $(shell dirname $(shell type -P nvcc))\nifneq ($(shell which nvcc 2>/dev/null),)\n"
            "all:\n\t$(NVCC) -lineinfo a.cu\nendif\n",
            "NVCC ?= $(patsubst %,% -DHIP_ENABLE_WARP_SYNC_BUILTINS,"
            "$(shell command -v hipcc 2> /dev/null || echo hipcc))\n"
            "CU := $(patsubst %,% -DHIP_ENABLE_WARP_SYNC_BUILTINS,$(shell whereis -b hipcc | cut -d' ' -f2))\n"
            "CUDA_BIN = $(shell dirname $(shell type -P hipcc))\nifneq ($(shell which hipcc 2>/dev/null),)\n"
            "all:\n\t$(NVCC) -gline-tables-only a.cu\nendif\n",
            id="make-shell-lookups-in-every-form",
        ),
        pytest.param(
            "common.mk",
            "# flags for the including Makefile\nGPU_FLAGS = -gencode arch=compute_80,code=sm_80 -DUSE_GPU\n",
            "# flags for the including Makefile\nGPU_FLAGS = --offload-arch=gfx90a -DUSE_GPU\n",
            id="make-fragment-nvcc-only-flag",
        ),
        # Thrust's device system: the CUDA backend becomes rocThrust's HIP backend wherever it is defined
        pytest.param(
            "Makefile",
            "NVCCFLAGS := -O3 -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA\nall:\n"
            "\tnvcc $(NVCCFLAGS) -D THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA a.cu\n",
            "NVCCFLAGS := -O3 -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_HIP\nall:\n"
            "\thipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS $(NVCCFLAGS) "
            "-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_HIP a.cu\n",
            id="make-thrust-device-system",
        ),
        pytest.param(
            "CMakeLists.txt",
            "target_compile_definitions(t PRIVATE THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA)\n"
            "add_compile_definitions(-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA)\n"
            'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA")\n',
            "target_compile_definitions(t PRIVATE THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_HIP)\n"
            "add_compile_definitions(-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_HIP)\n"
            'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_HIP")\n',
            id="cmake-thrust-device-system",
        ),
    ],
)
def test_mapping(name: str, src: str, expected: str) -> None:
    result = translate_build_file(SourceFile.from_bytes(name, src.encode()))
    assert result.output is not None and result.output.decode() == expected


def _diagnostics(name: str, text: str) -> list[str]:
    result = translate_build_file(SourceFile.from_bytes(name, text.encode()))
    return [f"{d.line}:{d.col} {d.code} {d.message}" for d in result.diagnostics]


def test_make_host_compiler_variables_are_not_nvcc_flags() -> None:
    """A variable that only reaches gcc keeps its host flags without a report; nvcc's variables are mapped."""
    text = (
        "CC = gcc\nCFLAGS = -O2 -fopenmp -Wall\nNVCC = nvcc\nNVCCFLAGS = -O2 --frobnicate\n"
        "app: main.o k.o\n\t$(CC) $(CFLAGS) $^ -o $@ -lcudart\n"
        "k.o: k.cu\n\t$(NVCC) $(NVCCFLAGS) -c $<\n"
    )
    result = translate_build_file(SourceFile.from_bytes("Makefile", text.encode()))
    assert result.output is not None
    assert "CFLAGS = -O2 -fopenmp -Wall\n" in result.output.decode()
    assert "$^ -o $@ -lamdhip64\n" in result.output.decode()
    assert _diagnostics("Makefile", text) == [
        "3:12 HC405 -DHIP_ENABLE_WARP_SYNC_BUILTINS added after nvcc: HIP declares the *_sync warp builtins only "
        "with it (ROCm 6.2+)",
        "4:17 HC402 unknown nvcc flag --frobnicate; left unchanged",
    ]


def test_make_compiler_rewrites_are_reported() -> None:
    assert _diagnostics("Makefile", "NVCC := $(shell which nvcc)\n") == [
        "1:9 HC405 $(shell which nvcc): replaced by $(shell which hipcc)",
        "1:9 HC405 -DHIP_ENABLE_WARP_SYNC_BUILTINS added after $(shell which nvcc): HIP declares the *_sync warp "
        "builtins only with it (ROCm 6.2+)",
    ]
    assert _diagnostics("Makefile", "CC := $(CUDA_PATH)/bin/nvcc\n") == [
        "1:7 HC405 $(CUDA_PATH)/bin/nvcc: replaced by $(ROCM_PATH)/bin/hipcc; ROCM_PATH defaults to /opt/rocm "
        "(set it where ROCm is installed)",
        "1:28 HC405 -DHIP_ENABLE_WARP_SYNC_BUILTINS added after $(CUDA_PATH)/bin/nvcc: HIP declares the *_sync "
        "warp builtins only with it (ROCm 6.2+)",
    ]


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make not installed")
def test_make_nvcc_lookup_keeps_its_fallback(tmp_path: Path) -> None:
    """A translated `$(shell which nvcc)` lookup finds hipcc where it is on PATH, and is still empty where it
    is not, so that `ifeq ($(NVCC),)` takes its fallback (run with GNU make)."""
    source = "NVCC := $(shell which nvcc 2>/dev/null)\nifeq ($(NVCC),)\n  NVCC := fallback-nvcc\nendif\n"
    result = translate_build_file(SourceFile.from_bytes("Makefile", source.encode()))
    assert result.output is not None
    (tmp_path / "Makefile").write_bytes(result.output + b"$(info [$(NVCC)])\nshow: ;\n")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "hipcc").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "hipcc").chmod(0o755)
    make = shutil.which("make")
    assert make is not None
    found = f"[{tmp_path}/bin/hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS]"
    for path, expected in ((f"{tmp_path / 'bin'}:/usr/bin:/bin", found), ("/nowhere", "[fallback-nvcc]")):
        done = subprocess.run([make, "-s", "-C", str(tmp_path), "show"], env={"PATH": path}, capture_output=True,
                              text=True, timeout=60, check=False)  # fmt: skip
        assert done.stdout.strip() == expected, done.stdout + done.stderr


def test_makefile_project_diagnostics(tmp_path: Path) -> None:
    """Flags that reach nvcc through CC, nested variables and an included fragment are mapped and reported."""
    stderr = translate_tree("makefile_project", tmp_path / "hip")
    lines = [line.split("/cuda/", 1)[1] for line in stderr.splitlines() if "/cuda/" in line]
    assert lines == [
        "Makefile:4:7: note[HC405]: $(CUDA_HOME)/bin/nvcc: replaced by $(ROCM_PATH)/bin/hipcc; "
        "ROCM_PATH defaults to /opt/rocm (set it where ROCm is installed)",
        "Makefile:4:28: note[HC405]: -DHIP_ENABLE_WARP_SYNC_BUILTINS added after $(CUDA_HOME)/bin/nvcc: "
        "HIP declares the *_sync warp builtins only with it (ROCm 6.2+)",
        "Makefile:5:12: note[HC403]: -lineinfo becomes -gline-tables-only: hipcc's clang does not take nvcc's "
        "one-dash spelling (clang reads it as -l ineinfo)",
        "config.mk:2:1: warning[HC401]: CUDA_HOME: a CUDA toolkit path; point it at ROCm (such as /opt/rocm) by hand",
        "config.mk:2:14: warning[HC401]: /usr/local/cuda: a CUDA toolkit path; point it at ROCm (such as /opt/rocm) "
        "by hand",
        "config.mk:4:11: note[HC404]: -gencode arch=compute_$(SM),code=sm_$(SM): NVIDIA architecture replaced by "
        "--offload-arch=gfx90a",
        "config.mk:5:16: note[HC403]: --ptxas-options=-v dropped: PTX assembler options have no AMD counterpart",
        "tools/Makefile:2:9: note[HC405]: $(shell which nvcc 2>/dev/null): replaced by $(shell which hipcc "
        "2>/dev/null)",
        "tools/Makefile:2:9: note[HC405]: -DHIP_ENABLE_WARP_SYNC_BUILTINS added after $(shell which nvcc "
        "2>/dev/null): HIP declares the *_sync warp builtins only with it (ROCm 6.2+)",
        "tools/Makefile:4:11: note[HC405]: $(CUDA_HOME)/bin/nvcc: replaced by $(ROCM_PATH)/bin/hipcc; "
        "ROCM_PATH defaults to /opt/rocm (set it where ROCm is installed)",
        "tools/Makefile:4:32: note[HC405]: -DHIP_ENABLE_WARP_SYNC_BUILTINS added after $(CUDA_HOME)/bin/nvcc: "
        "HIP declares the *_sync warp builtins only with it (ROCm 6.2+)",
        "tools/Makefile:6:15: note[HC404]: -arch=sm_60: NVIDIA architecture replaced by --offload-arch=gfx90a",
        "tools/Makefile:7:23: note[HC403]: -rdc=true becomes -fgpu-rdc: hipcc's clang does not take nvcc's "
        "one-dash spelling",
        "tools/Makefile:10:10: note[HC404]: -arch=sm_60: NVIDIA architecture replaced by --offload-arch=gfx90a",
        "tools/Makefile:10:22: note[HC403]: -rdc=true becomes -fgpu-rdc: hipcc's clang does not take nvcc's "
        "one-dash spelling",
    ]


def test_cmake_commands_and_make_words() -> None:
    body = b'foo(a "b c" [[d]] (e f)) # x(y)\nbar ()\n'
    assert [(c.name, [a.text for a in c.args]) for c in cmake_commands(body)] == [
        ("foo", ["a", '"b c"', "[[d]]", "e", "f"]),
        ("bar", []),
    ]
    assert [w for w, _ in make_words("$(NVCC) $(patsubst %.cu, %.o, $(SRC)) -o $@")] == [
        "$(NVCC)",
        "$(patsubst %.cu, %.o, $(SRC))",
        "-o",
        "$@",
    ]


def _make_words_by_events(line: str) -> list[tuple[str, int]]:
    """make_words as a scan of each reference's start and end and each blank: what the split-based reading
    must give (offsets included) on every line."""
    words: list[tuple[str, int]] = []
    depth, start, plain = 0, None, 0  # plain: where the text not yet looked at starts
    for m in re.finditer(r"\$[({]|[)}]|\s+", line):
        at, event = m.start(), m.group()
        if start is None and at > plain:
            start = plain
        if event[0] == "$":
            depth += 1
            start = at if start is None else start
        elif event in ")}":
            depth -= depth > 0
            start = at if start is None else start
        elif not depth and start is not None:
            words.append((line[start:at], start))
            start = None
        plain = m.end()
    if start is None and plain < len(line):
        start = plain
    if start is not None:
        words.append((line[start:], start))
    return words


_MAKE_PARTS = ["$(", "${", ")", "}", " ", "\t", "  ", "nvcc", "-o", "$@", "x", "\u00a0", "\u00e9", "\u2003"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_MAKE_PARTS), max_size=16))
def test_make_words_split_as_references_and_blanks_say(parts: list[str]) -> None:
    """Words split at blanks (any Unicode blank, as make's reading of the line by str.split), never inside a
    reference; a reference left open runs to the line's end."""
    line = "".join(parts)
    assert make_words(line) == _make_words_by_events(line)
