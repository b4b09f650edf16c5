"""The static CMake reader (builder/cmake*.py) follows CMake's semantics for what it evaluates, on
the host hipconv build runs on (Linux, ROCm's clang): platform branches, option() and cache defaults, -D
overrides, parent directories' variables, a backend folder built on its own; what it cannot evaluate it
reports with its line (HC409), and expansions that blow up are cut (HC411)."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.builder.cmakeflags import read_cmake
from hipconv.builder.makeflags import read_makefiles

PROJECT = Path(__file__).parent / "build_projects" / "tensorlite" / "cuda"
SUFFIXES = [".cu", ".cpp"]


def _write(root: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return sorted(files)


def _read(root: Path, files: dict[str, str], **options: object) -> tuple[dict[str, list[str]], tuple[str, ...]]:
    found = read_cmake(root, _write(root, files), SUFFIXES, **options)  # type: ignore[arg-type]
    return found.flags, found.notes


def _defines(flags: list[str]) -> list[str]:
    return [w for w in flags if w.startswith("-D")]


# (the CMake code before add_executable(app app.cpp), the definitions app.cpp gets on Linux with ROCm's clang)
PLATFORM_CASES = [
    pytest.param("if (MINGW)\n  add_compile_definitions(_WIN32_WINNT=0x602)\nendif()\n", [], id="mingw"),
    pytest.param("if (WIN32 OR APPLE OR MSVC OR CYGWIN)\n  add_definitions(-DNOT_HERE)\nendif()\n", [], id="others"),
    pytest.param('if (CMAKE_SYSTEM_NAME MATCHES "OpenBSD")\n  add_compile_definitions(BSD)\nendif()\n', [], id="bsd"),
    pytest.param(
        'if (CMAKE_SYSTEM_NAME MATCHES "Linux|Android")\n  add_compile_definitions(LINUXISH)\nendif()\n',
        ["-DLINUXISH"],
        id="matches-alternatives",
    ),
    pytest.param(
        'if (NOT CMAKE_SYSTEM_NAME STREQUAL "Windows" AND UNIX)\n  add_compile_definitions(POSIX)\nendif()\n',
        ["-DPOSIX"],
        id="not-and",
    ),
    pytest.param(
        'if (CMAKE_CXX_COMPILER_ID STREQUAL "GNU")\n  add_compile_definitions(GCC)\n'
        'elseif (CMAKE_CXX_COMPILER_ID MATCHES "Clang")\n  add_compile_definitions(CLANG)\nendif()\n',
        ["-DCLANG"],
        id="compiler-id",
    ),
    pytest.param(
        "if (DEFINED WIN32)\n  add_compile_definitions(W)\nelse()\n  add_compile_definitions(NW)\nendif()\n",
        ["-DNW"],
        id="defined-win32",
    ),  # fmt: skip
    pytest.param(
        'if ((UNIX AND NOT APPLE) OR "${X}" STREQUAL "")\n  add_compile_definitions(PAREN)\nendif()\n',
        ["-DPAREN"],
        id="parentheses",
    ),
    pytest.param(
        "if (CMAKE_BUILD_TYPE STREQUAL Debug)\n  add_compile_definitions(DBG)\nelse()\n"
        "  add_compile_definitions(REL)\nendif()\n",
        ["-DREL"],
        id="build-type-empty",
    ),
    pytest.param(
        'set(V 3.10)\nif (V VERSION_GREATER_EQUAL 3.9 AND V VERSION_LESS "4")\n'
        "  add_compile_definitions(NEW)\nendif()\n"
        "if (2 GREATER 10)\n  add_compile_definitions(STRING_ORDER)\nendif()\n",
        ["-DNEW"],
        id="numbers-and-versions",
    ),
    pytest.param(
        "set(L a b c)\nif (b IN_LIST L)\n  add_compile_definitions(IN)\nendif()\nif (UNDEFINED_VAR)\n"
        "  add_compile_definitions(UNDEF)\nendif()\n",
        ["-DIN"],
        id="in-list-undefined",
    ),
]


@pytest.mark.parametrize(("code", "expected"), PLATFORM_CASES)
def test_platform_branches(tmp_path: Path, code: str, expected: list[str]) -> None:
    flags, notes = _read(
        tmp_path, {"CMakeLists.txt": f"project(p CXX)\n{code}add_executable(app app.cpp)\n", "app.cpp": ""}
    )
    assert _defines(flags["app.cpp"]) == expected
    assert notes == ()


def test_platform_branches_noop(tmp_path: Path) -> None:
    """A project with nothing to decide: its flags as written, nothing reported."""
    flags, notes = _read(
        tmp_path,
        {
            "CMakeLists.txt": "project(p CXX)\nadd_compile_definitions(A=1)\ninclude_directories(inc)\n"
            "add_executable(app app.cpp)\n",
            "app.cpp": "",
        },
    )
    assert flags == {"app.cpp": ["-DA=1", f"-I{tmp_path}/inc"]}
    assert notes == ()


def test_an_empty_expansion_gives_no_argument(tmp_path: Path) -> None:
    """No bare -D, -I or -D=: CMake skips an empty item (the issue's `macro name must be an identifier`)."""
    flags, _ = _read(
        tmp_path,
        {
            "CMakeLists.txt": 'project(p CXX)\nset(EXTRA "")\nadd_compile_definitions(${EXTRA})\n'
            'add_compile_definitions("${EXTRA}")\nadd_definitions(-D${EXTRA})\ninclude_directories("${EXTRA}")\n'
            "add_executable(app app.cpp)\ntarget_compile_definitions(app PRIVATE ${EXTRA} =1 KEPT=${EXTRA})\n"
            "target_compile_options(app PRIVATE ${EXTRA} $<$<CONFIG:Debug>:-O0>)\n",
            "app.cpp": "",
        },
    )
    assert flags["app.cpp"] == ["-DKEPT="]  # an empty value is a definition; an empty name is not


def test_options_cache_and_parent_scope(tmp_path: Path) -> None:
    flags, notes = _read(
        tmp_path,
        {
            "CMakeLists.txt": 'project(p CXX)\noption(USE_A "a" ON)\noption(USE_B "b" OFF)\n'
            'option(USE_C "no default")\n'
            'set(N 1 CACHE STRING "n")\nset(N 2 CACHE STRING "n")\nset(M 1 CACHE STRING "")\n'
            'set(M 2 CACHE STRING "" FORCE)\nset(USE_D ON)\noption(USE_D "a normal variable wins" OFF)\n'
            "function(pick out)\n  set(${out} picked PARENT_SCOPE)\n  set(LOCAL_ONLY 1)\nendfunction()\n"
            "pick(CHOSEN)\n"
            "foreach(o USE_A USE_B USE_C USE_D LOCAL_ONLY)\n  if (${o})\n    add_compile_definitions(${o})\n"
            "  endif()\nendforeach()\nadd_compile_definitions(N=${N} M=${M} CHOSEN=${CHOSEN})\n"
            "add_executable(app app.cpp)\n",
            "app.cpp": "",
        },
    )
    assert _defines(flags["app.cpp"]) == ["-DUSE_A", "-DUSE_D", "-DN=1", "-DM=2", "-DCHOSEN=picked"]
    assert notes == ()


def test_d_overrides_option_and_cache_defaults(tmp_path: Path) -> None:
    files = {
        "CMakeLists.txt": 'project(p CXX)\noption(FAST "fast" OFF)\nset(DIMS 4 CACHE STRING "dims")\n'
        "if (FAST)\n  add_compile_definitions(FAST)\nendif()\nadd_compile_definitions(DIMS=${DIMS})\n"
        "add_executable(app app.cpp)\n",
        "app.cpp": "",
    }
    assert _defines(_read(tmp_path, files)[0]["app.cpp"]) == ["-DDIMS=4"]
    overridden = _read(tmp_path, files, cache={"FAST": "ON", "DIMS": "8"})[0]
    assert _defines(overridden["app.cpp"]) == ["-DFAST", "-DDIMS=8"]


def _translated_copy(tmp_path: Path, folder: str) -> Path:
    """A stand-in for the translated tree of `folder` (the static reader reads the copy's CMake files)."""
    out = tmp_path / "hip"
    shutil.copytree(PROJECT / folder, out)
    return out


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_a_backend_folder_built_alone_reads_the_project_from_its_root(tmp_path: Path) -> None:
    """src/backend-cuda has no project(): the root's options (at their defaults, not all on), cache variables,
    platform branches and include directories one folder up (as the source tree holds them) apply."""
    out = _translated_copy(tmp_path, "src/backend-cuda")
    found = read_cmake(out, _files(out), SUFFIXES, source_root=PROJECT / "src" / "backend-cuda")
    expected_defines = ["-DTL_ON_LINUX", "-DTL_MAX_DIMS=4", "-DTL_VERSION_MAJOR=0", "-DTL_USE_GRAPHS",
                        "-DTL_PEER_MAX_BATCH=128", "-DTL_CUDA_DIMS=4"]  # fmt: skip
    source = PROJECT.resolve()
    for tu in ("backend.cu", "elementwise.cu", "reduce.cu"):
        flags = found.flags[tu]
        assert _defines(flags) == expected_defines, tu
        assert [w for w in flags if w.startswith("-I")] == [f"-I{source}/src", f"-I{source}/include"]
    # TL_CUDA is OFF by default, so the root does not add the folder: said, and read below src/ all the same
    assert found.notes == (
        f"warning[HC409]: no add_subdirectory() from {source} reaches backend-cuda/ with these options; read with "
        "its parent above",
    )
    on = read_cmake(out, _files(out), SUFFIXES, source_root=PROJECT / "src" / "backend-cuda", cache={"TL_CUDA": "ON"})
    assert on.notes == ()
    assert on.flags == found.flags


def test_a_backend_folder_with_overrides(tmp_path: Path) -> None:
    out = _translated_copy(tmp_path, "src/backend-cuda")
    cache = {
        "TL_CUDA": "ON",
        "TL_CUDA_F16": "ON",
        "TL_CUDA_GRAPHS": "OFF",
        "TL_MAX_DIMS": "6",
        "TL_EXTRA_DEFINES": "X;Y=2",
    }
    found = read_cmake(out, _files(out), SUFFIXES, source_root=PROJECT / "src" / "backend-cuda", cache=cache)
    assert _defines(found.flags["reduce.cu"]) == ["-DTL_ON_LINUX", "-DX", "-DY=2", "-DTL_MAX_DIMS=6",
                                                  "-DTL_VERSION_MAJOR=0", "-DTL_CUDA_F16", "-DTL_PEER_MAX_BATCH=128",
                                                  "-DTL_CUDA_DIMS=6"]  # fmt: skip


UNDECIDED_CASES = [
    pytest.param(
        "find_package(Foo)\nif (Foo_FOUND)\n  add_compile_definitions(HAVE_FOO)\nendif()\n",
        "CMakeLists.txt:3: if(Foo_FOUND): find_package(Foo) is not run; read as if it held",
        ["-DHAVE_FOO"],
        id="find-package",
    ),
    pytest.param(
        "if (TARGET CUDA::cublas)\n  add_compile_definitions(BLAS)\nendif()\n",
        "CMakeLists.txt:2: if(TARGET CUDA::cublas): TARGET CUDA::cublas: it may come from a package or module the "
        "reader does not run; read as if it held",
        ["-DBLAS"],
        id="imported-target",
    ),
    pytest.param(
        "execute_process(COMMAND git rev-parse HEAD OUTPUT_VARIABLE REV)\nif (REV)\n  add_compile_definitions(R)\n"
        "elseif (UNIX)\n  add_compile_definitions(U)\nendif()\n",
        "CMakeLists.txt:3: if(REV): REV is set by execute_process(), which the static reader does not run; read as "
        "if it held",
        ["-DR"],
        id="process-output",
    ),
    pytest.param(
        "include(CheckCXXCompilerFlag)\ncheck_cxx_compiler_flag(-mavx2 HAS_AVX2)\n"
        'if (HAS_AVX2 AND NOT CMAKE_SYSTEM_NAME STREQUAL "Darwin")\n  add_compile_options(-mavx2)\nendif()\n',
        'CMakeLists.txt:4: if(HAS_AVX2 AND NOT CMAKE_SYSTEM_NAME STREQUAL "Darwin"): HAS_AVX2 is set by '
        "check_cxx_compiler_flag(), which the static reader does not run; read as if it held",
        [],
        id="compiler-check",
    ),
    pytest.param(
        "while (X)\n  add_compile_definitions(LOOP)\nendwhile()\n",
        "CMakeLists.txt:2: while() is not run by the static reader; its body is not read",
        [],
        id="while",
    ),
]


@pytest.mark.parametrize(("code", "note", "defines"), UNDECIDED_CASES)
def test_what_cannot_be_evaluated_is_reported_with_its_line(
    tmp_path: Path, code: str, note: str, defines: list[str]
) -> None:
    flags, notes = _read(
        tmp_path, {"CMakeLists.txt": f"project(p CXX)\n{code}add_executable(app app.cpp)\n", "app.cpp": ""}
    )
    assert notes == (f"warning[HC409]: {note}",)
    assert _defines(flags["app.cpp"]) == defines


def test_find_package_required_is_found(tmp_path: Path) -> None:
    """REQUIRED: CMake stops when it is not found, so where the build goes on, it was."""
    flags, notes = _read(
        tmp_path,
        {
            "CMakeLists.txt": "project(p CXX)\nfind_package(hip REQUIRED)\nif (hip_FOUND)\n"
            "  add_compile_definitions(HIP)\nendif()\nadd_executable(app app.cpp)\n",
            "app.cpp": "",
        },
    )
    assert (_defines(flags["app.cpp"]), notes) == (["-DHIP"], ())


# ---------------------------------------------------------------- bounds (#40 item 13)


def test_a_doubling_cmake_file_is_cut(tmp_path: Path) -> None:
    """30 lines that double a variable: 2**30 characters before; cut at 1 MiB, reported, in well under a second."""
    lines = ["project(p CXX)", "set(A x)", *['set(A "${A}${A}")'] * 30, "add_compile_definitions(BIG=${A} SMALL=1)"]
    started = time.monotonic()
    flags, notes = _read(
        tmp_path, {"CMakeLists.txt": "\n".join([*lines, "add_executable(app app.cpp)"]), "app.cpp": ""}
    )
    assert time.monotonic() - started < 20
    assert notes[0] == "warning[HC411]: CMakeLists.txt:23: an expansion grows past 1,048,576 characters; left empty"
    assert "-DSMALL=1" in flags["app.cpp"]
    assert sum(map(len, flags["app.cpp"])) < 4 << 20


def test_a_function_calling_itself_twice_is_cut(tmp_path: Path) -> None:
    code = "project(p CXX)\nfunction(grow)\n  grow()\n  grow()\nendfunction()\ngrow()\nadd_executable(app app.cpp)\n"
    started = time.monotonic()
    _, notes = _read(tmp_path, {"CMakeLists.txt": code, "app.cpp": ""})
    assert time.monotonic() - started < 60
    assert len(notes) == 1
    assert re.fullmatch(
        r"warning\[HC411\]: CMakeLists.txt:[34]: more than 200,000 commands run; the rest is not read", notes[0]
    )


def test_a_doubling_makefile_is_cut(tmp_path: Path) -> None:
    """`A1 = $(A0)$(A0)` ... `A29`: 2**29 characters and references before (it ran out of memory); cut."""
    lines = ["A0 = x", *(f"A{i} = $(A{i - 1})$(A{i - 1})" for i in range(1, 30)), "app.o: app.cpp"]
    _write(tmp_path, {"Makefile": "\n".join([*lines, "\thipcc -DBIG=$(A29) -c app.cpp", ""]), "app.cpp": ""})
    started = time.monotonic()
    found = read_makefiles(tmp_path, ["Makefile", "app.cpp"], SUFFIXES, {})
    assert time.monotonic() - started < 60
    assert found.notes == (
        "warning[HC411]: Makefile: an expansion grows past 1,048,576 characters; the rest is left empty",
    )


def test_a_doubling_simple_makefile_variable_is_cut(tmp_path: Path) -> None:
    lines = ["A := x", *["A := $(A)$(A)"] * 30, "app.o: app.cpp", "\thipcc -DSMALL -c app.cpp", ""]
    _write(tmp_path, {"Makefile": "\n".join(lines), "app.cpp": ""})
    found = read_makefiles(tmp_path, ["Makefile", "app.cpp"], SUFFIXES, {})
    assert found.flags == {"app.cpp": ["-DSMALL"]}
    assert [n.split(":")[0] for n in found.notes] == ["warning[HC411]"]


def test_makefile_bounds_noop(tmp_path: Path) -> None:
    _write(tmp_path, {"Makefile": "F = -DA $(G)\nG = -DB\napp.o: app.cpp\n\thipcc $(F) -c app.cpp\n", "app.cpp": ""})
    assert read_makefiles(tmp_path, ["Makefile", "app.cpp"], SUFFIXES, {}) == ({"app.cpp": ["-DA", "-DB"]}, ())


# ---------------------------------------------------------------- the command line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-D", "NOVALUE"], "'NOVALUE': give NAME=VALUE, as to cmake -D"),
        (["-D", "=1"], "'=1': give NAME=VALUE, as to cmake -D"),
        (["-p", "."], "-p and --cmake configure: give one"),
        (["--backend", "hip-cpu", "-D", "A=1"], "-D: only with --backend hipcc, not hip-cpu"),
    ],
)
def test_bad_cmake_options(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "src").mkdir()
    extra = ["--cmake", "configure"] if "-p" in args else []
    result = run_cli("build", tmp_path / "src", "-o", tmp_path / "out", *args, *extra)
    assert result.code == 2
    assert message in result.stderr
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- the fixture compiles with what the reader gives


@pytest.mark.hipcc
def test_the_backend_folder_built_alone_compiles(tmp_path: Path) -> None:
    """The sources #error on another platform's definitions, a missing TL_ON_LINUX, or a TL_CUDA_DIMS that is
    not the root's TL_MAX_DIMS; their headers are one and two folders up."""
    out = tmp_path / "hip"
    result = run_cli(
        "build", PROJECT / "src" / "backend-cuda", "-o", out, "--check-only", "--rocm-version", "5.2", "-j", "2",
        "-D", "TL_CUDA=ON",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    assert "HC409" not in result.stderr and "HC410" not in result.stderr
    database = json.loads((out / "compile_commands.json").read_text())
    assert sorted(Path(e["file"]).name for e in database) == ["backend.cu", "elementwise.cu", "reduce.cu"]
    assert all("-D" not in e["arguments"] for e in database)
