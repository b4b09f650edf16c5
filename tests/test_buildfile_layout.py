"""Build-file translation keeps the layout (issue #27): line continuations and comments are never lost.

Every nvcc flag form the flag mapper rewrites (tests/test_nvcc_flags.py's CASES) is written glued to a line
continuation (`-arch=sm_70\\`), and with its value on the continuation line (`-Xcompiler \\` + `-fPIC`), in
a Makefile variable, a Makefile recipe and a quoted CMake argument: the output keeps every line break and
every backslash where they were, and its words, continuations joined, are the mapping of the input's.
Every command the CMake translator rewrites is given line and bracket comments between its arguments:
each comment is still there, in order.
"""

from __future__ import annotations

import re
import shlex

import pytest
from test_nvcc_flags import ARCHS, CASES

from hipconv.buildfiles import translate_build_file
from hipconv.buildfiles.cmake_syntax import cmake_commands, comment_texts
from hipconv.buildfiles.common import MAKE_REFERENCE
from hipconv.buildfiles.nvcc_flags import WARP_SYNC_DEFINE, map_flags
from hipconv.translate.source import SourceFile

_FLAG_WORDS = [shlex.split(nvcc, posix=False) for nvcc, _, _ in CASES]
# (id, the flag's text glued to a continuation): after the flag, and between a flag and its value
GLUED = [(" ".join(words), " ".join(words) + "\\\n\t") for words in _FLAG_WORDS] + [
    (" ".join(words) + " (value continued)", f"{words[0]}\\\n\t{' '.join(words[1:])}")
    for words in _FLAG_WORDS
    if len(words) > 1
]


def _translate(name: str, text: str) -> str:
    result = translate_build_file(SourceFile.from_bytes(name, text.encode()), ARCHS)
    return (result.output or text.encode()).decode()


def _layout(text: str) -> list[bool]:
    """For each line: does it end with a continuation backslash?"""
    return [line.rstrip(" \t").endswith("\\") for line in text.split("\n")]


def _mapped(words: list[str]) -> list[str]:
    return list(map_flags(words, ARCHS, keep_unknown=True, passthrough=MAKE_REFERENCE).words)


def _joined(text: str) -> list[str]:
    """The words of a logical line, its continuations joined."""
    return re.sub(r"\\[ \t]*\n", " ", text).split()


@pytest.mark.parametrize("flag", [g[1] for g in GLUED], ids=[g[0] for g in GLUED])
def test_makefile_flag_glued_to_a_continuation(flag: str) -> None:
    src = f"NVCC_FLAGS := -O2 {flag}-I../inc\n\nall: a.cu\n\tnvcc -c a.cu {flag}-o a.o\n\techo done\n"
    out = _translate("Makefile", src)
    assert _layout(out) == _layout(src)
    variable, recipe = out.split("\n\nall: a.cu\n")
    words = _joined(src.split("\n\nall")[0])[2:]
    assert _joined(variable) == ["NVCC_FLAGS", ":=", *_mapped(words)]
    recipe_words = _joined(src.split("\tnvcc ")[1].split("\techo")[0])
    assert _joined(recipe.split("\techo")[0]) == ["hipcc", f"-D{WARP_SYNC_DEFINE}", *_mapped(recipe_words)]
    assert recipe.endswith("\techo done\n")


@pytest.mark.parametrize("flag", [g[1] for g in GLUED if '"' not in g[1]], ids=[g[0] for g in GLUED if '"' not in g[1]])
def test_cmake_quoted_flag_glued_to_a_continuation(flag: str) -> None:
    src = f'set(CMAKE_CUDA_FLAGS "-O2 {flag}-I../inc")\n'
    out = _translate("CMakeLists.txt", src)
    assert _layout(out) == _layout(src)
    (command,) = cmake_commands(out.encode())
    assert command.name == "set" and command.args[0].value == "CMAKE_HIP_FLAGS"
    words = _joined(src.split('"')[1])
    assert _joined(command.args[1].value) == _mapped(words)


# every command the CMake translator rewrites, with comments between its arguments
COMMENTED = [
    "find_package(CUDAToolkit # needed for cuBLAS\n  REQUIRED)\n",
    "find_package(CUDAToolkit 11.0 #[[ at least ]] REQUIRED # here\n  COMPONENTS cublas)\n"
    "target_link_libraries(t CUDA::cublas)\n",
    "find_package(CUDA #[==[ the legacy module ]==]\n QUIET)\n",
    "set(CMAKE_CUDA_ARCHITECTURES 70 # volta\n  80)\n",
    "set(CMAKE_CUDA_ARCHITECTURES #[[ first ]] 70 #[[ then ]] 80 # ampere\n  90)\n",
    "set_property(TARGET t PROPERTY CUDA_ARCHITECTURES 70 # volta\n 80)\n",
    "set_target_properties(t PROPERTIES # as before\n CUDA_ARCHITECTURES 70 # volta\n"
    "  CUDA_SEPARABLE_COMPILATION ON)\n",
    'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS}" # nvcc only\n  "--expt-relaxed-constexpr")\n',
    'string(APPEND CMAKE_CUDA_FLAGS # lambdas\n " --expt-extended-lambda")\n',
    "target_compile_options(t PRIVATE # nvcc only\n  $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)\n",
    "target_compile_options(t PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler # host\n -fPIC #[[ pic ]] -lineinfo>)\n",
    "target_link_libraries(t PRIVATE CUDA::cudart # runtime\n  CUDA::cudart_static #[[ twice ]] cudart)\n",
    "find_library(CUBLAS_LIB # blas\n NAMES cublas #[[ static ]] cublas_static\n"
    "  HINTS ${CUDA_TOOLKIT_ROOT_DIR}/lib64 # toolkit\n  /usr/local/cuda/lib64)\n",
    "project(demo LANGUAGES # both\n CXX CUDA)\nadd_executable(demo # the program\n main.cu)\n",
    "file(GLOB SOURCES # all of them\n *.cu *.cpp)\n",
]


@pytest.mark.parametrize("src", COMMENTED)
def test_cmake_comments_in_rewritten_commands_are_kept(src: str) -> None:
    out = _translate("CMakeLists.txt", src)
    assert out != src  # the command was rewritten
    assert comment_texts(out.encode()) == comment_texts(src.encode())


@pytest.mark.parametrize(
    "src",
    [
        "NVCC = \\\n\t$(CUDA_PATH)/bin/nvcc\n",
        "NVCC := -ccbin g++ \\\n\t-O2 \\\n\t/usr/local/cuda/bin/nvcc -arch=sm_70\n",
        "NVCC ?= $(CUDA_HOME)/bin/nvcc\\\n  -O3\n",
    ],
)
def test_makefile_rocm_path_goes_before_a_continued_line(src: str) -> None:
    """The ROCM_PATH default that a rewritten nvcc path needs goes before the whole logical line, never
    between its continuation lines (make: 'recipe commences before first target')."""
    out = _translate("Makefile", src)
    assert out.startswith("ROCM_PATH ?= /opt/rocm\n")
    assert _layout(out.removeprefix("ROCM_PATH ?= /opt/rocm\n")) == _layout(src)


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        (
            "all:\n\tnvcc\\\n\t-arch=sm_70 -c a.cu\n",
            f"all:\n\thipcc -D{WARP_SYNC_DEFINE}\\\n\t--offload-arch=gfx90a --offload-arch=gfx942 -c a.cu\n",
        ),
        ("LIBS := -lm -lcublas\\\n\t-lcufft\n", "LIBS := -lm -lhipblas\\\n\t-lhipfft\n"),
        ("NVCC_FLAGS = -Xcompiler\\\n  -fPIC\n", "NVCC_FLAGS = -fPIC\\\n  \n"),
    ],
)
def test_makefile_words_glued_to_a_continuation(src: str, expected: str) -> None:
    """The compiler and the libraries glued to a continuation are rewritten as well, the backslash kept."""
    assert _translate("Makefile", src) == expected
