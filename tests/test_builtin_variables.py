"""A C++ source is CUDA (nvcc -x cu; it gets the runtime include) when it reads a built-in variable as one,
not when it declares a host variable, parameter or member of that name (hipconv.translate.builtin_variables)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_translate import RUNTIME, translate

NAMES = ["threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"]
HOST_DECLARATIONS = [  # each with {n} for the name, and a later use of it in host code
    pytest.param("int {n} = 64;\nint f() {{ return 2 * {n}; }}\n", id="variable"),
    pytest.param("static const unsigned {n} = 64u;\nunsigned f() {{ return {n} - 1; }}\n", id="const-variable"),
    pytest.param("struct dim3 {{ int x, y; }};\ndim3 {n}{{4, 4}};\nint f() {{ return {n}.x; }}\n", id="braced"),
    pytest.param(
        "struct dim3 {{ dim3(int, int); int x; }};\ndim3 {n}(4, 4);\nint f() {{ return {n}.x; }}\n", id="dim3"
    ),
    pytest.param("int {n}[3];\nint f() {{ return {n}[0]; }}\n", id="array"),
    pytest.param("int f(int {n}) {{ return {n} * 2; }}\n", id="parameter"),
    pytest.param("int f(int n, const long &{n}) {{ return n % {n}; }}\n", id="reference-parameter"),
    pytest.param("void f(int *{n}) {{ {n}[0] = 1; }}\n", id="pointer-parameter"),
    pytest.param("struct Launch {{ int {n}; }};\nint f(Launch l) {{ return l.{n}; }}\n", id="member"),
    pytest.param("int f(const Props *p) {{ return p->{n}; }}\n", id="member-of-another-type"),
    pytest.param("int f(const Gpu &gpu) {{ return gpu.props.{n}; }}\n", id="member-only"),
    pytest.param("int f(int v[]) {{ int s = 0; for (int {n} : v) s += {n}; return s; }}\n", id="range-for"),
    pytest.param("int {n};\nvoid f() {{ {n} = 8; }}\n", id="assigned"),
    pytest.param(
        "#include <omp.h>\nvoid f(float *a, int n) {{\n  int {n} = 64;\n#pragma omp parallel for\n"
        "  for (int i = 0; i < n; i += {n}) a[i] = 0;\n}}\n",
        id="openmp",
    ),
]
DEVICE_USES = [  # a built-in ({b}: `blockIdx.x`, or `warpSize`) read as one: the runtime include goes in
    pytest.param("HD int f() {{ return {b}; }}\n", id="returned"),  # HD: a macro from a header
    pytest.param("HD int f(int *p) {{ return p[{b}]; }}\n", id="index"),
    pytest.param("#define LANE ({b} % 32)\n", id="in-a-macro"),
    pytest.param("HD void f(int *p) {{ int local = 1; p[0] = {b} + local; }}\n", id="beside-a-local"),
    pytest.param("HD int f(int n) {{ return n * {b}; }}\n", id="product"),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("src", HOST_DECLARATIONS)
def test_a_host_variable_named_as_a_builtin_gets_no_runtime_include_noop(name: str, src: str) -> None:
    text = src.format(n=name)
    assert translate(text, path="host.cpp")[0] == text


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("src", DEVICE_USES)
def test_a_builtin_read_as_one_makes_a_cpp_file_cuda(name: str, src: str) -> None:
    text = src.format(b=name if name == "warpSize" else f"{name}.x")
    assert translate(text, path="k.cpp")[0] == RUNTIME + text


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("int blockDim = 64;\n__global__ void k(int *p) { p[0] = 1; }\n", id="and-a-kernel"),
        pytest.param("struct S { int gridDim; };\nvoid f() { k<<<1, 1>>>(); }\n", id="and-a-launch"),
        pytest.param("int f(int warpSize) { return warpSize; }\nHD int g() { return blockIdx.x; }\n", id="and-another"),
    ],
)
def test_a_host_name_does_not_hide_other_cuda(src: str) -> None:
    assert translate(src, path="k.cpp")[0] == RUNTIME + src


@pytest.mark.parametrize("src", [pytest.param(p.values[0].format(n="blockDim"), id=p.id) for p in HOST_DECLARATIONS])
def test_cu_files_are_decided_as_before(src: str) -> None:
    """A .cu file is CUDA whatever it declares: nvcc includes the runtime into it (the word is enough)."""
    assert translate(src, path="k.cu")[0] == RUNTIME + src


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not found")
def test_the_openmp_port_of_the_fixture_still_builds_as_host_code(tmp_path: Path) -> None:
    """tests/fixtures/host_builtin_names: the translated OpenMP port (its golden) is unchanged and compiles
    with a host compiler alone, as before translation."""
    case = Path(__file__).parent / "fixtures" / "host_builtin_names"
    golden = (case / "hip" / "blur_omp.cpp").read_bytes()
    assert golden == (case / "cuda" / "blur_omp.cpp").read_bytes()
    (tmp_path / "blur_omp.cpp").write_bytes(golden)
    built = subprocess.run(
        ["g++", "-std=c++17", "-fopenmp", "-Wall", "-Werror", "-o", tmp_path / "blur", tmp_path / "blur_omp.cpp"],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    assert subprocess.run([tmp_path / "blur"], capture_output=True, text=True, timeout=60).stdout == "PASS\n"
