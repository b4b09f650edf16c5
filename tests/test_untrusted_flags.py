"""Flags read from an untrusted tree never load code (issue #40 item 3, HC407): a tree's Makefile, CMake files
or compilation database that pass a compiler plugin, a program directory or another loader to hipcc lose that
flag (with its value, in each spelling: joined, split, through -Xclang, -Xlinker or -Wl,), with a warning
naming it and the build file line; flags the user passes with --hipcc-arg are kept. hipcc is a stand-in
(a shell script), so no ROCm is needed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.builder.untrusted_flags import drop_loading_flags
from hipconv.diagnostics import CODES

XARCH_B = ["-Xarch_gfx90a", "-B", "-Xarch_gfx90a", "d"]  # -B's value given through the same wrapper
HIPCC = """#!/bin/sh
for a in "$@"; do [ "$a" = "--version" ] && { echo "HIP version: 5.2.0-stand-in"; exit 0; }; done
exit 0
"""


@pytest.mark.parametrize(
    ("words", "dropped"),
    [
        pytest.param(["-fplugin=./p.so"], [["-fplugin=./p.so"]], id="fplugin"),
        pytest.param(["-fplugin-arg-p-x=1"], [["-fplugin-arg-p-x=1"]], id="fplugin-arg"),
        pytest.param(["-fpass-plugin=lib/pass.so"], [["-fpass-plugin=lib/pass.so"]], id="fpass-plugin"),
        pytest.param(
            ["-Xclang", "-load", "-Xclang", "x.so"], [["-Xclang", "-load", "-Xclang", "x.so"]], id="xclang-load"
        ),
        pytest.param(["-Xclang=-load", "-Xclang=x.so"], [["-Xclang=-load", "-Xclang=x.so"]], id="xclang-eq-load"),
        pytest.param(
            ["-Xclang", "-plugin", "-Xclang", "p"], [["-Xclang", "-plugin", "-Xclang", "p"]], id="xclang-plugin"
        ),
        pytest.param(
            ["-Xclang", "-add-plugin", "-Xclang", "p"], [["-Xclang", "-add-plugin", "-Xclang", "p"]], id="add"
        ),
        pytest.param(["-Xclang", "-plugin-arg-p"], [["-Xclang", "-plugin-arg-p"]], id="xclang-plugin-arg"),
        pytest.param(["-Xclang", "-fpass-plugin=x.so"], [["-Xclang", "-fpass-plugin=x.so"]], id="xclang-pass-plugin"),
        pytest.param(["-B", "tools/"], [["-B", "tools/"]], id="B-split"),
        pytest.param(["-Btools/"], [["-Btools/"]], id="B-joined"),
        pytest.param(["--prefix=tools"], [["--prefix=tools"]], id="prefix"),
        pytest.param(["--gcc-toolchain=./gcc"], [["--gcc-toolchain=./gcc"]], id="gcc-toolchain"),
        pytest.param(["--gcc-toolchain", "./gcc"], [["--gcc-toolchain", "./gcc"]], id="gcc-toolchain-split"),
        pytest.param(["--gcc-install-dir=./gcc/13"], [["--gcc-install-dir=./gcc/13"]], id="gcc-install-dir"),
        pytest.param(["-ccc-install-dir", "bin"], [["-ccc-install-dir", "bin"]], id="ccc-install-dir"),
        pytest.param(["--sysroot=./root"], [["--sysroot=./root"]], id="sysroot"),
        pytest.param(["--sysroot", "./root"], [["--sysroot", "./root"]], id="sysroot-split"),
        pytest.param(["-specs=x.specs"], [["-specs=x.specs"]], id="specs"),
        pytest.param(["--config=x.cfg"], [["--config=x.cfg"]], id="config"),
        pytest.param(["--config", "x.cfg"], [["--config", "x.cfg"]], id="config-split"),
        pytest.param(["@flags.rsp"], [["@flags.rsp"]], id="response-file"),
        pytest.param(["-fuse-ld=./ld"], [["-fuse-ld=./ld"]], id="fuse-ld-path"),
        pytest.param(["--ld-path=./ld"], [["--ld-path=./ld"]], id="ld-path"),
        pytest.param(["-Wl,-plugin,x.so"], [["-Wl,-plugin,x.so"]], id="wl-plugin"),
        pytest.param(["-Wl,-plugin", "-Wl,x.so"], [["-Wl,-plugin", "-Wl,x.so"]], id="wl-plugin-split"),
        pytest.param(["-Wl,--plugin=x.so"], [["-Wl,--plugin=x.so"]], id="wl-plugin-eq"),
        pytest.param(["-Wl,--load-pass-plugin=x.so"], [["-Wl,--load-pass-plugin=x.so"]], id="wl-pass-plugin"),
        pytest.param(
            ["-Xlinker", "-plugin", "-Xlinker", "x.so"], [["-Xlinker", "-plugin", "-Xlinker", "x.so"]], id="xl"
        ),
        pytest.param(["-Xarch_host", "-fplugin=x.so"], [["-Xarch_host", "-fplugin=x.so"]], id="xarch-host"),
        pytest.param(XARCH_B, [XARCH_B], id="xarch-target"),
    ],
)
def test_each_loading_flag_is_dropped_with_its_value(words: list[str], dropped: list[list[str]]) -> None:
    around = ["-O2", *words, "-DX=1"]
    kept, found = drop_loading_flags(around)
    assert [list(d.words) for d in found] == dropped
    assert kept == [w for w in around if w not in {w for d in dropped for w in d}]
    assert kept[0] == "-O2" and kept[-1] == "-DX=1" and all(d.what for d in found)


@pytest.mark.parametrize(
    "words",
    [
        pytest.param(["-I", "inc", "-Iinc", "-isystem", "sys", "-include", "pre.h", "-isysroot", "r"], id="includes"),
        pytest.param(["-Wl,-rpath,/opt/lib", "-Wl,--as-needed", "-Xlinker", "-zdefs"], id="linker-options"),
        pytest.param(["-Xclang", "-fno-pch-timestamp", "-Xclang=-ast-dump"], id="cc1-options"),
        pytest.param(["-fopenmp", "-fuse-ld=lld", "-fPIC", "-std=c++17", "-O3", "-g"], id="f-options"),
        pytest.param(["-Xarch_host", "-O3", "-DB=1", "-Dplugin=1", "-Wno-load"], id="look-alikes"),
    ],
)
def test_flags_that_load_nothing_are_kept_noop(words: list[str]) -> None:
    assert drop_loading_flags(words) == (words, [])


@pytest.fixture
def hipcc(tmp_path: Path) -> Path:
    path = tmp_path / "hipcc"
    path.write_text(HIPCC)
    path.chmod(0o755)
    return path


def _arguments(out: Path) -> list[str]:
    entries = json.loads((out / "compile_commands.json").read_text())
    arguments: list[str] = entries[0]["arguments"]
    return arguments


def test_the_codes_example_is_what_build_prints(tmp_path: Path, hipcc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HC407's example (hipconv codes HC407), run with a source beside its Makefile."""
    example = CODES["HC407"].example
    assert example is not None
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / example.file).write_text(example.source + "\n")
    (tmp_path / "src" / "k.cu").write_text("__global__ void k() {}\n")
    result = run_cli(*example.command_line, "--hipcc", hipcc)
    assert result.code == 0, result.stderr
    assert example.diagnostic in result.stderr.splitlines()
    assert not any(w.startswith("-fplugin") for w in _arguments(tmp_path / "hip"))
    assert "-O2" in _arguments(tmp_path / "hip")


def test_the_users_hipcc_arg_is_trusted(tmp_path: Path, hipcc: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "Makefile").write_text("k.o: k.cu\n\thipcc -O2 -fplugin=tree.so -c k.cu\n")
    (src / "k.cu").write_text("__global__ void k() {}\n")
    args = ("build", src, "-o", tmp_path / "hip", "--check-only", "--hipcc", hipcc)
    result = run_cli(*args, "--hipcc-arg=-fplugin=/opt/mine.so", "--hipcc-arg=-B/opt/bin")
    assert result.code == 0, result.stderr
    arguments = _arguments(tmp_path / "hip")
    assert "-fplugin=/opt/mine.so" in arguments and "-B/opt/bin" in arguments and "-fplugin=tree.so" not in arguments
    assert "warning[HC407]: -fplugin=tree.so (from Makefile:2) dropped" in result.stderr
    assert "mine.so" not in result.stderr


def test_a_cmake_projects_plugin_is_dropped(tmp_path: Path, hipcc: Path) -> None:
    """Named with the line of the translated CMakeLists.txt (the one the HIP build reads) that holds it."""
    src, out = tmp_path / "src", tmp_path / "hip"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\nadd_executable(app k.cu)\n"
        "target_compile_options(app PRIVATE -O2 -fplugin=${CMAKE_SOURCE_DIR}/check.so)\n"
    )
    (src / "k.cu").write_text("__global__ void k() {}\n")
    result = run_cli("build", src, "-o", out, "--check-only", "--hipcc", hipcc)
    assert result.code == 0, result.stderr
    assert "-O2" in _arguments(out) and not any(w.startswith("-fplugin") for w in _arguments(out))
    line = next(n for n, text in enumerate((out / "CMakeLists.txt").read_text().splitlines(), 1) if "-fplugin" in text)
    warned = [w for w in result.stderr.splitlines() if w.startswith("warning[HC407]: -fplugin=")]
    assert len(warned) == 1 and f"/check.so (from CMakeLists.txt:{line}) dropped" in warned[0], result.stderr


def test_a_compilation_databases_loader_is_dropped(tmp_path: Path, hipcc: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k() {}\n")
    database = tmp_path / "compile_commands.json"
    command = ["clang++", "-O2", "-Xclang", "-load", "-Xclang", "x.so", "-Btools", "-c", "k.cu", "-o", "k.o"]
    database.write_text(json.dumps([{"directory": str(src), "file": "k.cu", "arguments": command}]))
    result = run_cli("build", src, "-o", tmp_path / "hip", "--check-only", "--hipcc", hipcc, "-p", database)
    assert result.code == 0, result.stderr
    arguments = _arguments(tmp_path / "hip")
    assert "-O2" in arguments and "-load" not in arguments and "x.so" not in arguments and "-Btools" not in arguments
    assert "warning[HC407]: -Xclang -load -Xclang x.so (from the compilation database) dropped" in result.stderr
    assert "warning[HC407]: -Btools (from the compilation database) dropped" in result.stderr
