"""`hipconv build`: hipcc discovery, planning, compiling, grouping of failures, the report; and CMake/make
on the translated build files of tests/fixtures/build_project (Debian's hipcc, clang 15, CMake 3.25)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import HAS_DEBIAN_CMAKE_HIP, cmake_build_with_debian_hip, run_cli
from hipconv.builder.hipcc import parse_diagnostics
from hipconv.builder.makeflags import makefile_flags
from hipconv.builder.plan import (
    Unit,
    UnitResult,
    expand_options_files,
    group_failures,
    plan_compile_commands,
    plan_tree,
)
from hipconv.rules import load_ruleset

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT = FIXTURES / "build_project" / "cuda"
UNPORTED = FIXTURES / "build_unported" / "cuda"
MAKEFILE_PROJECT = FIXTURES / "makefile_project" / "cuda"


# ---------------------------------------------------------------- no hipcc needed


def test_explicit_hipcc_that_does_not_exist(tmp_path: Path) -> None:
    result = run_cli("build", PROJECT, "-o", tmp_path / "hip", "--hipcc", tmp_path / "no" / "hipcc")
    assert result.code == 2
    assert "no such executable" in result.stderr and "apt-get install hipcc" in result.stderr
    assert not (tmp_path / "hip").exists()  # nothing translated before the tool is found


def test_no_hipcc_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "rocm"))
    result = run_cli("build", PROJECT, "-o", tmp_path / "hip")
    assert result.code == 2
    assert f"hipcc not found (looked on PATH and at {tmp_path / 'rocm' / 'bin' / 'hipcc'})" in result.stderr
    assert "hint:" in result.stderr


def fake_rocm_hipcc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> Path:
    """A shell-script hipcc at $ROCM_PATH/bin, the only one hipconv finds (PATH holds none)."""
    fake = tmp_path / "rocm" / "bin" / "hipcc"
    fake.parent.mkdir(parents=True)
    fake.write_text(f"#!/bin/sh\n{script}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "rocm"))
    return fake


def test_hipcc_from_rocm_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$ROCM_PATH/bin/hipcc is used when PATH has none; a fake one that always fails shows the grouping path."""
    fake = fake_rocm_hipcc(tmp_path, monkeypatch, 'echo "$HIP_PLATFORM: hipcc exploded" >&2\nexit 3')
    monkeypatch.delenv("HIP_PLATFORM", raising=False)
    report = tmp_path / "build.json"
    result = run_cli("build", PROJECT, "-o", tmp_path / "hip", "--report", report, "-j", "2")
    assert result.code == 1
    assert "3 TUs fail because of: hipcc failed: amd: hipcc exploded" in result.stderr
    data = json.loads(report.read_text())
    assert data["hipcc"] == str(fake) and data["summary"]["failed"] == 3


def test_bad_compile_database(tmp_path: Path) -> None:
    (tmp_path / "compile_commands.json").write_text("{not json")
    result = run_cli("build", PROJECT, "-o", tmp_path / "hip", "-p", tmp_path, "--hipcc", "/bin/false")
    assert result.code == 2 and "is not valid JSON" in result.stderr


def test_plan_from_compile_commands(tmp_path: Path) -> None:
    """nvcc entries get mapped flags and include paths into the HIP tree; host-compiler entries keep theirs."""
    src, out = tmp_path / "cuda", tmp_path / "hip"
    entries = [
        {
            "directory": str(src / "build"),
            "file": str(src / "src" / "saxpy.cu"),
            "command": f"/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DVECOPS -I{src}/include "
            f"-I/usr/local/include -O3 --generate-code=arch=compute_80,code=[compute_80,sm_80] "
            f"-Xcompiler=-fPIC --expt-relaxed-constexpr -std=c++17 -x cu -c {src}/src/saxpy.cu "
            f"-o CMakeFiles/vecops.dir/src/saxpy.cu.o",
        },
        {
            "directory": str(src / "build"),
            "file": "../src/main.cpp",
            "arguments": ["/usr/bin/c++", "-I../include", "-O2", "-o", "main.o", "-c", "../src/main.cpp"],
        },
        {"directory": "/elsewhere", "file": "/elsewhere/x.cu", "arguments": ["nvcc", "-c", "/elsewhere/x.cu"]},
    ]
    units, skipped = plan_compile_commands(
        entries, src, out, "hipcc", ("gfx90a",), build_dir=tmp_path / "obj", check_only=False
    )
    assert [u.source for u in units] == ["src/saxpy.cu", "src/main.cpp"]
    assert units[0].command == (
        "hipcc",
        "-DHIP_ENABLE_WARP_SYNC_BUILTINS",  # a source file can define it only before its first HIP include
        "-DVECOPS",
        f"-I{out}/include",
        "-I/usr/local/include",
        "-O3",
        "--offload-arch=gfx90a",
        "-fPIC",
        "-std=c++17",
        "-x",
        "hip",
        "-c",
        f"{out}/src/saxpy.cu",
        "-o",
        f"{tmp_path}/obj/src/saxpy.cu.o",
    )
    assert sorted(n.code for n in units[0].notes) == ["HC403", "HC403", "HC404"]
    assert units[1].command == (
        "hipcc",
        "-DHIP_ENABLE_WARP_SYNC_BUILTINS",
        f"-I{out}/include",
        "-O2",
        "--offload-arch=gfx90a",
        "-c",
        f"{out}/src/main.cpp",
        "-o",
        f"{tmp_path}/obj/src/main.cpp.o",
    )
    assert skipped == [f"/elsewhere/x.cu: outside {src}; not built"]


CLANG_OUTPUT = """\
a.cu:3:5: error: use of undeclared identifier 'cudaCtxResetPersistingL2Cache'
  cudaCtxResetPersistingL2Cache();
  ^
a.cu:9:1: warning: unused variable 'x' [-Wunused-variable]
b.cu:2:10: fatal error: 'nvml.h' file not found
#include <nvml.h>
         ^~~~~~~~
c.cu:4:3: error: use of undeclared identifier 'cudaCtxResetPersistingL2Cache'
c.cu:5:3: error: use of undeclared identifier 'hipGraphInstantiateWithParams'
c.cu:6:3: error: unknown type name 'cudaLaunchAttribute'
c.cu:7:3: error: expected ';' after expression
"""


def test_failures_grouped_by_cause() -> None:
    diagnostics = parse_diagnostics(CLANG_OUTPUT)
    assert len(diagnostics) == 7 and diagnostics[1].severity == "warning"

    def result(name: str) -> UnitResult:
        unit = Unit(name, f"/t/{name}", ("hipcc",), "/t", None)
        return UnitResult(unit, False, 0.1, tuple(d for d in diagnostics if d.file == name), "")

    groups = group_failures([result("c.cu"), result("b.cu"), result("a.cu")], load_ruleset())
    summary = [(g.cause.kind, g.cause.name, g.units, g.cause.origin) for g in groups]
    assert summary[0] == (
        "undeclared",
        "cudaCtxResetPersistingL2Cache",
        ("a.cu", "c.cu"),
        "CUDA cudart API with no HIP equivalent: unported",
    )
    nvml = ("missing-header", "nvml.h", ("b.cu",))
    assert next(s[3] for s in summary if s[:3] == nvml).startswith("a CUDA header (NVML) hipconv leaves: ")
    assert ("other", "expected ';' after expression", ("c.cu",), "") in summary
    hip_name = next(s for s in summary if s[1] == "hipGraphInstantiateWithParams")
    assert hip_name[3].startswith("translated from cuGraphInstantiateWithParams / cudaGraphInstantiateWithParams;")
    assert next(s for s in summary if s[1] == "cudaLaunchAttribute")[3].endswith("unported")
    assert groups[0].first.file == "a.cu"  # the first TU in path order, whatever order they finished in


def test_nvcc_options_files_are_expanded(tmp_path: Path) -> None:
    """CMake's Makefile generator hands nvcc its include directories in a response file."""
    (tmp_path / "includes_CUDA.rsp").write_text('-I"/src/include" -isystem /opt/dep\n')
    (tmp_path / "defines.rsp").write_text("-DNDEBUG\n")
    words = ["-O3", "--options-file", "includes_CUDA.rsp", "-optf=defines.rsp", "--options-file", "gone.rsp", "-c"]
    assert expand_options_files(words, str(tmp_path)) == [
        "-O3",
        "-I/src/include",
        "-isystem",
        "/opt/dep",
        "-DNDEBUG",
        "--options-file",
        "gone.rsp",
        "-c",
    ]


# ---------------------------------------------------------------- with Debian's hipcc


@pytest.mark.hipcc
def test_build_project(tmp_path: Path) -> None:
    out, report = tmp_path / "hip", tmp_path / "build.json"
    result = run_cli(
        "build", PROJECT, "-o", out, "--offload-arch", "gfx90a", "--report", report, "-j", "3", "--rocm-version", "5.2"
    )
    assert result.code == 0, result.stderr
    assert "hipconv build" in result.stderr and "failed" in result.stderr
    objects = sorted(p.relative_to(out / ".hipconv-build").as_posix() for p in (out / ".hipconv-build").rglob("*.o"))
    assert objects == ["src/dot.cu.o", "src/main.cpp.o", "src/saxpy.cu.o"]
    data = json.loads(report.read_text())
    assert data["summary"] == {**data["summary"], "units": 3, "compiled": 3, "failed": 0}
    assert {u["status"] for u in data["units"]} == {"compiled"} and data["causes"] == []
    database = json.loads((out / "compile_commands.json").read_text())
    assert sorted(Path(e["file"]).name for e in database) == ["dot.cu", "main.cpp", "saxpy.cu"]
    assert all("--offload-arch=gfx90a" in e["arguments"] for e in database)
    # incremental: a second build rewrites no translated file
    mtimes = {p: p.stat().st_mtime_ns for p in (out / "src").iterdir()}
    again = run_cli("build", PROJECT, "-o", out, "--check-only", "--rocm-version", "5.2")
    assert again.code == 0, again.stderr
    assert {p: p.stat().st_mtime_ns for p in (out / "src").iterdir()} == mtimes
    assert "-fsyntax-only" in json.loads((out / "compile_commands.json").read_text())[0]["arguments"]


@pytest.mark.hipcc
def test_build_with_compile_commands(tmp_path: Path) -> None:
    """The CUDA build's flags (here: what CMake writes for nvcc) are mapped, reported once, and used."""
    src = tmp_path / "cuda"
    shutil.copytree(PROJECT, src)
    nvcc = (
        "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -I{src}/include -O3 -DNDEBUG "
        "--generate-code=arch=compute_80,code=[compute_80,sm_80] --expt-relaxed-constexpr -lineinfo "
        "-maxrregcount=64 -std=c++17 -x cu -c {file} -o {file}.o"
    )
    entries = [
        {
            "directory": str(src),
            "file": str(src / "src" / name),
            "command": nvcc.format(src=src, file=src / "src" / name),
        }
        for name in ("saxpy.cu", "dot.cu")
    ]
    entries.append(
        {
            "directory": str(src),
            "file": "src/main.cpp",
            "arguments": ["c++", "-Iinclude", "-DNDEBUG", "-c", "src/main.cpp", "-o", "main.o"],
        }
    )
    (src / "compile_commands.json").write_text(json.dumps(entries))
    out = tmp_path / "hip"
    result = run_cli("build", src, "-o", out, "-p", src, "--rocm-version", "5.2", "--offload-arch", "gfx90a")
    assert result.code == 0, result.stderr
    assert "note[HC403]: -maxrregcount=64 dropped" in result.stderr and "(2 TUs)" in result.stderr
    database = {Path(e["file"]).name: e["arguments"] for e in json.loads((out / "compile_commands.json").read_text())}
    assert f"-I{out.resolve()}/include" in database["dot.cu"] and "-gline-tables-only" in database["dot.cu"]
    assert "-maxrregcount=64" not in database["dot.cu"]


@pytest.mark.hipcc
def test_unported_calls_are_grouped(tmp_path: Path) -> None:
    out, report = tmp_path / "hip", tmp_path / "build.json"
    result = run_cli("build", UNPORTED, "-o", out, "--report", report, "--rocm-version", "5.2", "--check-only")
    assert result.code == 1
    assert (
        "error[HC410]: 3 TUs fail because of cudaCtxResetPersistingL2Cache "
        "(CUDA cudart API with no HIP equivalent: unported)"
    ) in result.stderr
    assert (
        "error[HC410]: 1 TU fails because of missing header nvml.h: a CUDA header (NVML) hipconv leaves: "
        "HIP has no counterpart; AMD's counterpart is ROCm SMI (rocm_smi/rocm_smi.h), another API\n"
    ) in result.stderr
    assert "1 TU fails because of: cannot initialize a variable of type 'int'" in result.stderr
    assert "TUs: src/l2_gather.cu, src/l2_stream.cu, src/mixed.cu" in result.stderr
    data = json.loads(report.read_text())
    assert data["summary"]["units"] == 5 and data["summary"]["failed"] == 4
    status = {u["file"]: u["status"] for u in data["units"]}
    assert status == {
        "src/l2_gather.cu": "failed",
        "src/l2_stream.cu": "failed",
        "src/mixed.cu": "failed",
        "src/power.cu": "failed",
        "src/scale.cu": "compiled",
    }
    power = next(u for u in data["units"] if u["file"] == "src/power.cu")
    assert power["diagnostics"][0]["message"] == "'nvml.h' file not found" and power["command"][0].endswith("hipcc")
    assert [c["name"] for c in data["causes"]][0] == "cudaCtxResetPersistingL2Cache"
    assert power["exit_status"] == 1 and power["first_error"] == "src/power.cu:3:10: 'nvml.h' file not found"
    assert power["cause"] == {"kind": "missing-header", "name": "nvml.h", "fix": "none"}


@pytest.mark.hipcc
def test_missing_library_names_its_package(tmp_path: Path) -> None:
    """Debian packages no hipBLAS: the TU that uses cuBLAS fails on hipblas.h, and the report says what to install."""
    src = tmp_path / "cuda"
    src.mkdir()
    (src / "axpy.cu").write_text(
        "#include <cublas_v2.h>\n\n"
        "void axpy(cublasHandle_t h, int n, const float *x, float *y) {\n"
        "  const float one = 1.0f;\n"
        "  cublasSaxpy(h, n, &one, x, 1, y, 1);\n"
        "}\n"
    )
    (src / "fill.cu").write_text("__global__ void fill(float *p, float v) { p[threadIdx.x] = v; }\n")
    out, report = tmp_path / "hip", tmp_path / "build.md"
    result = run_cli("build", src, "-o", out, "--check-only", "--rocm-version", "5.2", "--report", report, "-j", "2")
    assert result.code == 1
    assert (
        "error[HC410]: 1 TU fails because of missing header hipblas.h: install ROCm's hipBLAS (Debian 12 has no "
        "package)\n"
    ) in result.stderr
    text = report.read_text()
    assert "| `fill.cu` | 0 |  |  |  |" in text
    assert "| `axpy.cu` | 1 | axpy.cu:2:10: 'hipblas.h' file not found | missing header hipblas.h: install" in text


def _translated(tmp_path: Path) -> Path:
    out = tmp_path / "hip"
    result = run_cli("translate", PROJECT, "-o", out, "--rocm-version", "5.2", "--offload-arch", "gfx90a")
    assert result.code == 0, result.stderr
    return out


@pytest.mark.hipcc
def test_make_builds_the_translated_makefile(tmp_path: Path, hip_env: dict[str, str]) -> None:
    out = _translated(tmp_path)
    done = subprocess.run(["make", "-C", str(out), "-j4"], env=hip_env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("saxpy.o", "dot.o", "main.o", "libvecops.a", "vecops_demo"):
        assert (out / "build" / name).stat().st_size > 0, name
    assert os.access(out / "build" / "vecops_demo", os.X_OK)


@pytest.mark.hipcc
@pytest.mark.skipif(
    not HAS_DEBIAN_CMAKE_HIP,
    reason="needs cmake, clang++-15 and Debian's hip-lang",
)
def test_cmake_builds_the_translated_cmakelists(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """docs/build.md's command for Debian's HIP: a ROCm root whose lib/cmake/hip-lang is Debian's."""
    out = _translated(tmp_path)
    build = cmake_build_with_debian_hip(out, tmp_path, hip_env)
    assert (build / "libvecops.a").stat().st_size > 0
    assert os.access(build / "vecops_demo", os.X_OK)
    assert "--offload-arch=gfx90a" in (build / "CMakeFiles" / "vecops.dir" / "flags.make").read_text()


def _shim_tree(root: Path) -> None:
    """A project with a Windows shim of a POSIX header in win/ (used only on Windows), its own headers in
    inc/ included with "" and <>, and a Makefile that passes -Iinc."""
    for folder in ("win", "inc", "src"):
        (root / folder).mkdir(parents=True)
    (root / "win" / "unistd.h").write_text('#pragma once\n#error "the Windows shim of unistd.h"\n')
    (root / "inc" / "grid.h").write_text("#pragma once\nconstexpr int kBlock = 128;\n")
    (root / "inc" / "config.h").write_text("#pragma once\n#define GRID_CONFIG 1\n")
    (root / "src" / "main.cu").write_text(
        '#include <unistd.h>\n#include <grid.h>\n#include "config.h"\n#include <cuda_runtime.h>\n'
        "__global__ void fill(int *p) { p[threadIdx.x] = kBlock + GRID_CONFIG; }\n"
        "int main() { int *p; cudaMalloc(&p, kBlock * sizeof(int)); fill<<<1, kBlock>>>(p);\n"
        "  cudaFree(p); return getpid() > 0 ? 0 : 1; }\n"
    )


def test_header_directories_come_after_the_system_and_the_build(tmp_path: Path) -> None:
    """The tree's header folders are -idirafter, after the build's own flags: they cannot hide a system header
    or override an -I the build passes."""
    _shim_tree(tmp_path)
    (tmp_path / "Makefile").write_text("app: src/main.cu\n\thipcc -Iinc -DFROM_MAKE src/main.cu -o app\n")
    files = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()]
    (unit,), _ = plan_tree(files, tmp_path, "hipcc", ["gfx90a"], build_dir=tmp_path / "b", check_only=True)
    words = list(unit.command)
    assert "-I" + str(tmp_path / "win") not in words and "-I" + str(tmp_path / "inc") in words
    assert words.index("-DFROM_MAKE") < words.index("-idirafter")
    assert [words[n + 1] for n, w in enumerate(words) if w == "-idirafter"] == [
        str(tmp_path), str(tmp_path / "inc"), str(tmp_path / "win")
    ]  # fmt: skip


def test_header_directories_nearest_the_unit_come_first(tmp_path: Path) -> None:
    """In a suite of projects (Rodinia), each TU finds its own project's common.h before another's."""
    for project in ("alpha", "beta"):
        (tmp_path / project / "common").mkdir(parents=True)
        (tmp_path / project / "common" / "common.h").write_text(f"#define PROJECT_{project.upper()} 1\n")
        (tmp_path / project / "src").mkdir()
        (tmp_path / project / "src" / "main.cu").write_text('#include "common.h"\n')
    files = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()]
    units, _ = plan_tree(files, tmp_path, "hipcc", ["gfx90a"], build_dir=tmp_path / "b", check_only=True)
    for unit in units:
        words = list(unit.command)
        project = unit.source.split("/")[0]
        assert words[words.index("-idirafter") + 1] == str(tmp_path / project / "common"), unit.source


@pytest.mark.hipcc
def test_a_shim_header_does_not_hide_the_system_one(tmp_path: Path) -> None:
    """win/unistd.h does not replace <unistd.h> (it used to, and the error was filed as one nothing can fix);
    the project's own headers are found with or without a build file."""
    _shim_tree(tmp_path / "cuda")
    result = run_cli("build", tmp_path / "cuda", "-o", tmp_path / "hip", "--check-only", "--rocm-version", "5.2")
    assert result.code == 0, result.stderr


@pytest.mark.hipcc
def test_build_uses_the_makefile_flags(tmp_path: Path) -> None:
    """Without -p, each TU gets the translated Makefile's -I/-D/-std flags (TILE is defined nowhere else)."""
    out = tmp_path / "hip"
    result = run_cli("build", MAKEFILE_PROJECT, "-o", out, "--check-only", "--rocm-version", "5.2", "-j", "2")
    assert result.code == 0, result.stderr
    database = {
        Path(e["file"]).relative_to(out.resolve()).as_posix(): e["arguments"]
        for e in json.loads((out / "compile_commands.json").read_text())
    }
    assert sorted(database) == ["src/main.cu", "src/reduce.cu", "src/stencil.cu", "tools/checksum.cu"]
    stencil = database["src/stencil.cu"]
    assert "-DTILE=16" in stencil and "-std=c++14" in stencil and f"-I{out.resolve()}/include" in stencil
    assert "-DCHECKSUM_BLOCK=256" in database["tools/checksum.cu"] and "-fgpu-rdc" in database["tools/checksum.cu"]


@pytest.mark.hipcc
def test_make_builds_the_translated_makefile_project(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """CC = $(CUDA_HOME)/bin/nvcc and $(shell which nvcc) projects build with make and Debian's hipcc."""
    out = tmp_path / "hip"
    result = run_cli("translate", MAKEFILE_PROJECT, "-o", out, "--rocm-version", "5.2")
    assert result.code == 0, result.stderr
    for directory, extra in ((out, ["ROCM_PATH=/usr"]), (out / "tools", [])):
        done = subprocess.run(
            ["make", "-C", str(directory), "-j4", *extra], env=hip_env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "nvcc" not in done.stdout and "-arch=sm_" not in done.stdout
    assert os.access(out / "build" / "heat", os.X_OK)
    assert os.access(out / "tools" / "checksum", os.X_OK)


@pytest.mark.hipcc
def test_make_builds_cpp_sources_compiled_as_cuda(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """`nvcc -x cu` .cpp files with kernels, a launch and runtime calls but no CUDA include get the runtime
    include a .cu file gets, and build with make and Debian's hipcc (relocatable device code across them)."""
    out = tmp_path / "hip"
    result = run_cli("translate", FIXTURES / "cpp_as_cuda" / "cuda", "-o", out, "--rocm-version", "5.2")
    assert result.code == 0, result.stderr
    done = subprocess.run(["make", "-C", str(out)], env=hip_env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "-x hip" in done.stdout and os.access(out / "drift", os.X_OK)


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make not installed")
def test_makefile_flags_keep_what_shapes_the_compilation_only(tmp_path: Path) -> None:
    """A Makefile's linker flags on a compile-and-link line (-export-dynamic, which clang refuses) stay out."""
    (tmp_path / "app.cu").write_text("int main() { return 0; }\n")
    (tmp_path / "Makefile").write_text(
        "all:\n\thipcc -export-dynamic -rdynamic -DUSE_X -DALPHA=0.2f -O2 -fopenmp -std=c++17 -Wall "
        "-Wl,--as-needed -Iinc -ldl -o app app.cu\n"
    )
    flags = makefile_flags(tmp_path, ["Makefile", "app.cu"], [".cu"])
    assert flags == {
        "app.cu": ["-DUSE_X", "-DALPHA=0.2f", "-O2", "-fopenmp", "-std=c++17", "-Wall", f"-I{tmp_path / 'inc'}"]
    }


def test_markdown_report_shows_a_file_name_that_is_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A TU whose name is not UTF-8 is written as \\xNN in the Markdown report, as in translate's."""
    src = tmp_path / "cuda"
    src.mkdir()
    (src / os.fsdecode(b"k\xff.cu")).write_text("__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }\n")
    fake_rocm_hipcc(tmp_path, monkeypatch, "exit 0")
    report = tmp_path / "build.md"
    result = run_cli("build", src, "-o", tmp_path / "hip", "--check-only", "--rocm-version", "5.2", "--report", report)
    assert result.code == 0, result.stderr
    assert "| `k\\xff.cu` | 0 |" in report.read_text()


@pytest.mark.hipcc
def test_a_source_another_file_includes_is_built_as_part_of_it(tmp_path: Path) -> None:
    """Rodinia's layout: main.cu defines the types and includes "kernels/step.cu", which cannot compile on its
    own; a commented-out include and an include of a header change nothing. The report lists what was left out."""
    src = tmp_path / "cuda"
    (src / "kernels").mkdir(parents=True)
    (src / "common.h").write_text("#define BLOCK 128\n")
    (src / "main.cu").write_text(
        '#include "common.h"\ntypedef float fp;\n#include "kernels/step.cu"\n// #include "unused.cu"\n'
        "int main() { fp *d; cudaMalloc(&d, BLOCK * sizeof(fp)); step<<<1, BLOCK>>>(d); return cudaFree(d); }\n"
    )
    (src / "kernels" / "step.cu").write_text("__global__ void step(fp *x) { x[threadIdx.x] *= 2; }\n")
    (src / "unused.cu").write_text("__global__ void unused(float *x) { x[0] = 0; }\n")
    out, report = tmp_path / "hip", tmp_path / "build.json"
    result = run_cli("build", src, "-o", out, "--check-only", "--rocm-version", "5.2", "--report", report, "-v")
    assert result.code == 0, result.stderr
    assert "note: kernels/step.cu: included by main.cu; built as part of it, not on its own" in result.stderr
    data = json.loads(report.read_text())
    assert sorted(u["file"] for u in data["units"]) == ["main.cu", "unused.cu"]
    assert data["summary"] == {**data["summary"], "units": 2, "compiled": 2, "failed": 0}
    assert data["skipped"] == ["kernels/step.cu: included by main.cu; built as part of it, not on its own"]


def test_an_included_source_is_skipped_even_when_a_pattern_rule_could_compile_it(tmp_path: Path) -> None:
    """SHOC's Stencil2Dmain.cpp includes Matrix2DFileSupport.cpp; a `%.o: %.cpp` rule would compile any source,
    so it does not make the included file a TU. A source a CMake target lists stays one."""
    (tmp_path / "main.cpp").write_text('#include "support.cpp"\nint main() { return helper(); }\n')
    (tmp_path / "support.cpp").write_text("static int helper() { return 0; }\n")
    (tmp_path / "Makefile").write_text("app: main.o\n\tg++ $^ -o $@\n%.o: %.cpp\n\tg++ -DFROM_MAKE -c $< -o $@\n")
    files = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()]
    units, skipped = plan_tree(files, tmp_path, "hipcc", ["gfx90a"], build_dir=tmp_path / "b", check_only=True)
    assert [u.source for u in units] == ["main.cpp"] and "-DFROM_MAKE" in units[0].command
    assert skipped == ["support.cpp: included by main.cpp; built as part of it, not on its own"]
    (tmp_path / "CMakeLists.txt").write_text("add_executable(app main.cpp support.cpp)\n")
    units, skipped = plan_tree(
        [*files, "CMakeLists.txt"], tmp_path, "hipcc", ["gfx90a"], build_dir=tmp_path / "b", check_only=True
    )
    assert sorted(u.source for u in units) == ["main.cpp", "support.cpp"] and skipped == []


def test_a_source_included_through_an_include_directory_is_found(tmp_path: Path) -> None:
    """`#include "support.cpp"` found through the build's -I../common: the one file of the tree whose path ends
    with the include's; with two such files, which one is meant cannot be told, and both stay TUs."""
    (tmp_path / "common").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "common" / "support.cpp").write_text("static int helper() { return 0; }\n")
    (tmp_path / "app" / "main.cpp").write_text('#include "support.cpp"\nint main() { return helper(); }\n')
    files = ["app/main.cpp", "common/support.cpp"]
    units, skipped = plan_tree(files, tmp_path, "hipcc", ["gfx90a"], build_dir=tmp_path / "b", check_only=True)
    assert [u.source for u in units] == ["app/main.cpp"] and len(skipped) == 1
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "support.cpp").write_text("int other;\n")
    units, skipped = plan_tree(
        [*files, "other/support.cpp"], tmp_path, "hipcc", ["gfx90a"], build_dir=tmp_path / "b", check_only=True
    )
    assert len(units) == 3 and skipped == []
