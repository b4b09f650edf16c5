"""Every nvcc flag in the table maps as documented; unknown flags are reported, never passed blindly."""

from __future__ import annotations

import shlex

import pytest

from hipconv.buildfiles.flag_table import flag_table_markdown
from hipconv.buildfiles.nvcc_flags import (
    FLAGS,
    LIBRARIES,
    lookup,
    map_flags,
    map_library,
    nvcc_only,
)

ARCHS = ("gfx90a", "gfx942")
OFFLOAD = ("--offload-arch=gfx90a", "--offload-arch=gfx942")

# (nvcc words, hipcc words, codes of the notes)
CASES = [
    ("-arch=sm_80", OFFLOAD, ["HC404"]),
    ("--gpu-architecture sm_90", OFFLOAD, ["HC404"]),
    ("-gencode arch=compute_70,code=sm_70 -gencode=arch=compute_80,code=[compute_80,sm_80]", OFFLOAD, ["HC404"]),
    ("-arch=compute_80 -code=sm_80", OFFLOAD, ["HC404"]),
    ("--generate-code=arch=compute_90,code=sm_90", OFFLOAD, ["HC404"]),
    ("--gpu-code sm_80", OFFLOAD, ["HC404"]),
    ("--expt-relaxed-constexpr", (), ["HC403"]),
    ("-expt-relaxed-constexpr", (), ["HC403"]),
    ("--expt-extended-lambda --extended-lambda", (), ["HC403", "HC403"]),
    ("-rdc=true", ("-fgpu-rdc",), ["HC403"]),  # one-dash spelling clang misreads: said
    ("--relocatable-device-code false", ("-fno-gpu-rdc",), []),
    ("-dc", ("-fgpu-rdc", "-c"), ["HC403"]),
    ("-Xcompiler -fPIC,-Wall", ("-fPIC", "-Wall"), []),
    ("-Xcompiler=-fopenmp", ("-fopenmp",), []),
    ("--compiler-options -O2", ("-O2",), []),
    ("-Xlinker -rpath,/x", ("-Wl,-rpath", "-Wl,/x"), []),
    ("-lineinfo", ("-gline-tables-only",), ["HC403"]),
    ("--generate-line-info", ("-gline-tables-only",), []),
    ("--use_fast_math", ("-ffast-math",), []),
    ("-use_fast_math", ("-ffast-math",), ["HC403"]),  # clang would take it for -u se_fast_math
    ("-ftz=true --ftz false", ("-fgpu-flush-denormals-to-zero", "-fno-gpu-flush-denormals-to-zero"), ["HC403"]),
    ("-prec-div=false --prec-sqrt=true",
     ("-fno-hip-fp32-correctly-rounded-divide-sqrt", "-fhip-fp32-correctly-rounded-divide-sqrt"), ["HC403"]),
    ("-fmad=false --fmad true", ("-ffp-contract=off", "-ffp-contract=fast"), ["HC403"]),
    ("-ftz=maybe", (), ["HC402"]),
    ("-maxrregcount=64", (), ["HC403"]),
    ("--maxrregcount 32", (), ["HC403"]),
    ("-Xptxas -v", (), ["HC403"]),
    ("-ccbin g++-12", (), ["HC403"]),
    ("-cudart static", (), ["HC403"]),
    ("-Wno-deprecated-gpu-targets", (), ["HC403"]),
    ("-forward-unknown-to-host-compiler", (), ["HC403"]),
    ("-t 4", (), ["HC403"]),
    ("-diag-suppress=177", (), ["HC403"]),
    ("--resource-usage", (), ["HC403"]),
    ("-G", ("-g",), []),
    ("--default-stream per-thread", ("-fgpu-default-stream=per-thread",), []),
    ("-default-stream=legacy", ("-fgpu-default-stream=legacy",), ["HC403"]),
    ("-x cu", ("-x", "hip"), []),
    ("-x c++", ("-x", "c++"), []),
    ("-std=c++17", ("-std=c++17",), []),
    ("--std c++20", ("-std=c++20",), []),
    ("-O3", ("-O3",), []),
    ("--optimize 2", ("-O2",), []),
    ("-g", ("-g",), []),
    ("-Iinclude -I /opt/x --include-path=y", ("-Iinclude", "-I/opt/x", "-Iy"), []),
    ("-isystem /sys", ("-isystem", "/sys"), []),
    ("-include pre.h", ("-include", "pre.h"), []),
    ("-DNDEBUG -D X=1 -UFOO", ("-DNDEBUG", "-DX=1", "-UFOO"), []),
    (
        "-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA --define-macro THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP",
        ("-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_HIP", "-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP"),
        [],
    ),
    ("-L/lib64 -lcublas -lm", ("-L/lib64", "-lhipblas", "-lm"), []),
    ("--library cufft", ("-lhipfft",), []),
    ("-c a.cu -o a.o", ("-c", "a.cu", "-o", "a.o"), []),
    ("-E", ("-E",), []),
    ("-M -MD -MMD -MP -MF a.d -MT a.o", ("-M", "-MD", "-MMD", "-MP", "-MF", "a.d", "-MT", "a.o"), []),
    ("-shared -w -m64", ("-shared", "-w", "-m64"), []),
    ("-keep", ("-save-temps",), ["HC403"]),
    ("-ptx", (), ["HC403"]),
    ("-cubin", (), ["HC403"]),
    ("--fatbin", (), ["HC403"]),
    ("--bogus", (), ["HC402"]),
    ("-rdc=maybe", (), ["HC402"]),
    ("-o", (), ["HC402"]),  # a value is missing
    ("-lnvrtc", ("-lnvrtc",), ["HC401"]),
    # MSVC options for nvcc's host compiler (cl.exe): clang's spelling, else dropped (msvc_flags.py)
    ("-Xcompiler /std:c++20", ("-std=c++20",), ["HC406"]),
    ('-Xcompiler "/std:c++17"', ("-std=c++17",), ["HC406"]),
    ('-Xcompiler \\"/std:c++14\\"', ("-std=c++14",), ["HC406"]),  # inside a quoted CMake argument
    ("-Xcompiler=/W4,/WX,/W0,/W3", ("-WCL4", "-Werror", "-w", "-Wall"), ["HC406"] * 4),
    ("--compiler-options /DNOMINMAX,/UNDEBUG,/Iinc,/Od,/Zi,/Z7,/openmp",
     ("-DNOMINMAX", "-UNDEBUG", "-Iinc", "-O0", "-g", "-g", "-fopenmp"), ["HC406"] * 7),
    ("-Xcompiler /EHsc,/MD,/bigobj,/wd4996,/O2,/std:c++latest,-fPIC", ("-fPIC",), ["HC406"] * 6),
    ("-Xcompiler -isystem,/opt -Xcompiler -include,/pre.h", ("-isystem", "/opt", "-include", "/pre.h"), []),
    ("-Xcompiler /usr/lib/x.o", ("/usr/lib/x.o",), []),  # a path, not an option
    ("-Xlinker /NODEFAULTLIB", ("-Wl,/NODEFAULTLIB",), []),  # lld-link takes /options
]  # fmt: skip


@pytest.mark.parametrize(("nvcc", "hip", "codes"), CASES, ids=[c[0] for c in CASES])
def test_flag_mapping(nvcc: str, hip: tuple[str, ...], codes: list[str]) -> None:
    mapped = map_flags(shlex.split(nvcc, posix=False), ARCHS)
    assert mapped.words == hip
    assert [n.code for n in mapped.notes] == codes


def test_every_flag_in_the_table_is_tested() -> None:
    tested = {id(lookup(word)[0]) for nvcc, _, _ in CASES for word in nvcc.split() if lookup(word)}
    untested = [flag.names[0] for flag in FLAGS if id(flag) not in tested]
    assert untested == []


@pytest.mark.parametrize(
    ("nvcc", "message"),
    [
        ("-use_fast_math", "-use_fast_math becomes -ffast-math: hipcc's clang does not take nvcc's one-dash "
         "spelling (clang reads it as -u se_fast_math)"),
        ("-lineinfo", "-lineinfo becomes -gline-tables-only: hipcc's clang does not take nvcc's one-dash "
         "spelling (clang reads it as -l ineinfo)"),
        ("-rdc=true", "-rdc=true becomes -fgpu-rdc: hipcc's clang does not take nvcc's one-dash spelling"),
    ],
)  # fmt: skip
def test_one_dash_spellings_are_said(nvcc: str, message: str) -> None:
    """A flag clang would misread is mapped, and the note says what clang would have made of it."""
    assert [n.message for n in map_flags([nvcc]).notes] == [message]


def test_unknown_flags_are_kept_only_when_asked() -> None:
    assert map_flags(["--bogus", "-ptx"], keep_unknown=True).words == ("--bogus", "-ptx")
    assert map_flags(["--bogus", "-ptx"]).words == ()


def test_arch_flags_become_one_offload_list() -> None:
    mapped = map_flags("-gencode arch=compute_70,code=sm_70 -O2 -arch=sm_90".split(), ("gfx90a",))
    assert mapped.words == ("--offload-arch=gfx90a", "-O2")


@pytest.mark.parametrize("lib", LIBRARIES, ids=[lib.cuda for lib in LIBRARIES])
def test_every_library(lib) -> None:  # type: ignore[no-untyped-def]
    words, note = map_library(lib.cuda)
    assert words == (f"-l{lib.hip or lib.cuda}",)
    assert (note is None) == (lib.hip is not None)


def test_markdown_table_has_every_flag_and_library() -> None:
    text = flag_table_markdown()
    assert all(f"`{flag.names[0]}`" in text for flag in FLAGS)
    assert all(f"`{lib.cuda}`" in text for lib in LIBRARIES)


@pytest.mark.parametrize(
    ("word", "only"),
    [
        ("-arch=sm_70", True),
        ("-gencode", True),
        ("-Xcompiler", True),
        ("--use_fast_math", True),
        ("-rdc=true", True),
        ("--ptxas-options=-v", True),
        ("-lineinfo", True),
        ("-use_fast_math", True),
        ("-ftz=true", True),
        ("-fmad=false", True),
        ("-O3", False),
        ("-Iinclude", False),
        ("-std=c++17", False),
        ("-o", False),
        ("-lcudart", False),
        ("-Wall", False),
    ],
)
def test_nvcc_only(word: str, only: bool) -> None:
    """What makes a Makefile variable nvcc's even when no recipe of the file uses it."""
    assert nvcc_only(word) is only
