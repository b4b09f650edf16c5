"""Fuzzing the build-file translators with generated Makefiles and CMake files (issue #27).

Files are built from the nvcc flags and CUDA names the translators rewrite (nvcc, -arch=, -gencode,
-Xcompiler, --use_fast_math, CUDA::cublas, CMAKE_CUDA_FLAGS, $<$<COMPILE_LANGUAGE:CUDA>:...>, ...) and
written with line continuations (between words, glued to a word's end, and ending a comment or an assignment
right before the next line, which may be nvcc's), comments inside commands and
after them (line and bracket comments in CMake), conditionals and generator expressions. Each is translated,
and:

  1. what parses still parses: a Makefile that GNU make reads without a syntax error is read without one
     after translation (make is given a goal that does not exist, and the generated files hold nothing make
     runs while reading: no $(shell), !=, include, $(eval) or $(file); `check_make` asserts it), and it keeps
     its layout: the same lines, each ending with a continuation exactly where it did (one added line,
     ROCM_PATH's default, allowed, but never after a continued line, a comment's included: make would read
     it as part of that line); a CMake file that CMake's grammar accepts (`cmake_problem`, written here
     from the grammar in cmake-language(7), not the translator's tokenizer) is accepted after translation;
  2. comments survive: every comment of the input is in the output, in order, byte for byte.

(Not idempotence: a generated `-Xcompiler -arch=sm_70` passes -arch=sm_70 on to the host compiler, and a
second translation then maps it, as it should.)

`check_make()` and `check_cmake()` return a list of problems (empty when every property holds).

Both lanes are derandomized, as in tests/test_fuzz.py; HIPCONV_FUZZ_RANDOM=1 has the `slow` lane draw fresh
examples.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from hipconv.buildfiles import translate_build_file
from hipconv.translate.source import SourceFile

FAST_EXAMPLES = 150  # per kind of build file; the fast lane takes about 10 s
SLOW_EXAMPLES = 3_000
MAKE = shutil.which("make")
ROCM_PATH_LINE = "ROCM_PATH ?= /opt/rocm"  # the line the Makefile translator may insert

# ---------------------------------------------------------------- fragments

FLAGS = [
    "-arch=sm_70", "-arch", "sm_80", "-arch=$(ARCH)", "--gpu-architecture=compute_80", "-gencode",
    "arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=sm_90", "-code=sm_70", "--use_fast_math",
    "-use_fast_math", "-Xcompiler", "-fPIC,-Wall", "-Xcompiler=-fopenmp", "-Xlinker", "-rpath,/x", "-rdc=true",
    "-rdc", "true", "-dc", "--expt-relaxed-constexpr", "--extended-lambda", "-lineinfo", "-G", "-O3", "-O",
    "2", "-Xptxas", "-v", "-maxrregcount=32", "-ccbin", "g++", "-DNDEBUG", "-D", "N=4", "-I../inc", "-isystem",
    "/opt/x", "-lcublas", "-lcudart", "-lnvrtc", "-L/usr/local/cuda/lib64", "--bogus", "-std=c++17", "--std",
    "c++20", "-x", "cu", "--default-stream", "per-thread", "-ptx", "-c", "-o", "a.o", "a.cu", "-",
]  # fmt: skip
COMMENT_TEXTS = ["# needed for cuBLAS", "# -arch=sm_70 nvcc --use_fast_math", "#", "# CUDA::cublas (keep)", "# é"]

# Makefiles
MAKE_VARIABLES = ["NVCC", "NVCC_FLAGS", "NVCCFLAGS", "CFLAGS", "GENCODE", "LDFLAGS", "LIBS", "CUDA_PATH", "ARCH"]
MAKE_WORDS = FLAGS + [
    "$(NVCC_FLAGS)", "$(GENCODE)", "$(ARCH)", "$(CFLAGS)", "$(CUDA_PATH)/bin/nvcc", "nvcc",
    "/usr/local/cuda/include", "-I$(CUDA_PATH)/include", "$@", "$<", "$^", "$(LIBS)", "${LDFLAGS}",
]  # fmt: skip
MAKE_FORBIDDEN = re.compile(r"\$[({](?:shell|eval|file|guile)\b|!=|^\s*-?include\b|\$[({]MAKE[)}]|^\t[@-]*\+", re.M)
_MAKE_ERROR = re.compile(r"^Makefile:\d+: \*\*\*", re.M)

# CMake files
CMAKE_COMMANDS = {  # command -> its first arguments (one list drawn)
    "project": [["demo", "LANGUAGES", "CXX", "CUDA"], ["demo", "CUDA"]],
    "enable_language": [["CUDA"]],
    "find_package": [["CUDAToolkit", "REQUIRED"], ["CUDA", "11.0"], ["CUDAToolkit", "QUIET", "COMPONENTS", "cublas"]],
    "set": [["CMAKE_CUDA_FLAGS"], ["CMAKE_CUDA_ARCHITECTURES", "70"], ["LIBS"], ["CMAKE_CUDA_STANDARD", "17"]],
    "string": [["APPEND", "CMAKE_CUDA_FLAGS"]],
    "list": [["APPEND", "LIBS"], ["APPEND", "CMAKE_CUDA_FLAGS"]],
    "target_compile_options": [["t", "PRIVATE"], ["t", "PUBLIC"]],
    "target_link_libraries": [["t", "PRIVATE"], ["t"]],
    "add_executable": [["t", "a.cu"], ["t", "b.cpp"]],
    "find_library": [["CUBLAS_LIB", "NAMES"], ["CUBLAS_LIB", "cublas", "HINTS"]],
    "set_target_properties": [["t", "PROPERTIES"]],
    "set_property": [["TARGET", "t", "PROPERTY", "CUDA_ARCHITECTURES"]],
    "target_compile_features": [["t", "PUBLIC"]],
    "file": [["GLOB", "SRC"]],
    "add_compile_options": [[]],
    "add_sample": [["demo"]],
}
CMAKE_WORDS = [
    "CUDA::cublas", "CUDA::cudart", "CUDA::cudart_static", "cublas", "cudart", "nvToolsExt", "${CUDA_LIBRARIES}",
    "${CUDA_CUBLAS_LIBRARIES}", "${CMAKE_CUDA_FLAGS}", "CMAKE_CUDA_FLAGS", "CUDA_ARCHITECTURES", "70", "80",
    "CUDA_SEPARABLE_COMPILATION", "ON", "CUDA_STANDARD", "LANGUAGE", "CUDA", "REQUIRED", "a.cu", "k.cu", "*.cu",
    "b.cpp", "cuda_std_17", "${CUDA_TOOLKIT_ROOT_DIR}/lib64", "/usr/local/cuda/lib64", "PRIVATE", "$<CONFIG>",
]  # fmt: skip


@st.composite
def separators(draw: st.DrawFn, *, make: bool) -> str:
    """What lies between two words: blanks, a continuation (glued to the word before or not), a newline."""
    glued = "\\\n" + draw(st.sampled_from(["\t", "  ", " "]))
    choices = [" ", "  ", "\t", " \\\n\t", glued] if make else [" ", "\n  ", "\t"]
    return draw(st.sampled_from(choices))


@st.composite
def make_values(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(MAKE_WORDS), max_size=7))
    text = ""
    for word in words:
        text += draw(separators(make=True)) + word
    return text


@st.composite
def make_lines(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["assign", "assign", "rule", "comment", "blank", "cond", "spliced"]))
    comment = draw(st.sampled_from(["", "", *[" " + c for c in COMMENT_TEXTS]]))
    if kind == "assign":
        name, op = draw(st.sampled_from(MAKE_VARIABLES)), draw(st.sampled_from(["=", ":=", "+=", "?="]))
        return f"{name} {op}{draw(make_values())}{comment}\n"
    if kind == "rule":
        recipes = draw(st.lists(make_values(), min_size=1, max_size=3))
        lead = draw(st.sampled_from(["nvcc", "$(NVCC)", "@$(NVCC)", "-nvcc", "$(CUDA_PATH)/bin/nvcc", "echo"]))
        return f"all: a.cu{comment}\n" + "".join(f"\t{lead}{recipe}\n" for recipe in recipes)
    if kind == "comment":
        return draw(st.sampled_from(COMMENT_TEXTS)) + "\n"
    if kind == "spliced":  # a comment or an assignment continued onto the next line, which may be nvcc's
        first = draw(st.sampled_from([*COMMENT_TEXTS, "NVCC_FLAGS = -O3", "LIBS +="]))
        return first + draw(st.sampled_from([" \\\n", "\\\n"])) + draw(make_lines()).lstrip("\t")
    if kind == "cond":
        inner = draw(st.lists(make_lines().filter(lambda t: not t.startswith("all")), max_size=2))
        return "ifeq ($(ARCH),sm_70)\n" + "".join(inner) + "else\n" + "endif\n"
    return "\n"


@st.composite
def makefiles(draw: st.DrawFn) -> bytes:
    return "".join(draw(st.lists(make_lines(), min_size=1, max_size=8))).encode()


@st.composite
def cmake_args(draw: st.DrawFn) -> list[str]:
    """Arguments: words, quoted nvcc flags (with continuations), bracket arguments, generator expressions."""
    kind = draw(st.sampled_from(["word", "word", "flags", "quoted", "genex", "spread", "bracket"]))
    flags = draw(st.lists(st.sampled_from([f for f in FLAGS if "$" not in f]), min_size=1, max_size=4))
    if kind == "word":
        return [draw(st.sampled_from(CMAKE_WORDS))]
    if kind == "flags":
        return flags
    if kind == "quoted":
        seps = [draw(st.sampled_from([" ", "\\\n ", " \\\n  ", "\n"])) for _ in flags]
        return ['"' + "".join(s + f for s, f in zip(seps, flags, strict=True)).lstrip(" ") + '"']
    if kind == "genex":
        return ["$<$<COMPILE_LANGUAGE:CUDA>:" + ";".join(flags) + ">"]
    if kind == "spread":  # a generator expression written over several arguments
        return ["$<$<COMPILE_LANGUAGE:CUDA>:" + flags[0], *flags[1:-1], flags[-1] + ">"] if len(flags) > 1 else []
    return [draw(st.sampled_from(["[[-arch=sm_70 CUDA::cublas]]", "[=[ nvcc\n]=]"]))]


@st.composite
def cmake_files(draw: st.DrawFn) -> bytes:
    text = ""
    for _ in range(draw(st.integers(1, 6))):
        name = draw(st.sampled_from(sorted(CMAKE_COMMANDS)))
        args = list(draw(st.sampled_from(CMAKE_COMMANDS[name])))
        for _ in range(draw(st.integers(0, 4))):
            args += draw(cmake_args())
        gaps = [
            draw(
                st.sampled_from([" ", " ", "\n  ", " # c1\n  ", " #[[ -arch=sm_70 ]] ", "\t", " #[=[ two\nlines ]=] "])
            )
            for _ in args
        ]
        inside = "".join(g + a for g, a in zip(gaps, args, strict=True)).lstrip(" ")
        after = draw(st.sampled_from(["", "", " # after", " #[[ b ]]"]))
        text += draw(st.sampled_from(["", "# top\n", "  "])) + f"{name}({inside}){after}\n"
    return text.encode()


# ---------------------------------------------------------------- the checks


def _translate(name: str, data: bytes) -> bytes:
    result = translate_build_file(SourceFile.from_bytes(name, data))
    return data if result.output is None else result.output


def make_problem(data: bytes) -> str | None:
    """GNU make's syntax error for a Makefile (None: it reads it). Only for files make can read without
    running anything: nothing forbidden by MAKE_FORBIDDEN, and a goal that does not exist."""
    assert not MAKE_FORBIDDEN.search(data.decode("utf-8")), data
    assert MAKE is not None
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "Makefile").write_bytes(data)
        env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
        run = subprocess.run(
            [MAKE, "-n", "-r", "-R", "-f", "Makefile", "hipconv-no-such-goal"],
            cwd=tmp, env=env, capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    error = _MAKE_ERROR.search(run.stderr)
    return None if error is None else run.stderr.strip()


def _make_comments(data: bytes) -> list[str]:
    return [line[line.index("#") :] for line in data.decode("utf-8").split("\n") if "#" in line]


def check_make(data: bytes) -> list[str]:
    out = _translate("Makefile", data)
    problems = []
    if MAKE is not None and make_problem(data) is None and (error := make_problem(out)) is not None:
        problems.append(f"make reads the input but not the output: {error}")
    out_lines = out.decode("utf-8").split("\n")
    for n, line in enumerate(out_lines):  # the inserted line stands alone: no continuation into it or out of it
        if line == ROCM_PATH_LINE and n and (len(out_lines[n - 1]) - len(out_lines[n - 1].rstrip("\\"))) % 2:
            problems.append(f"{ROCM_PATH_LINE!r} inserted into a continued line: {out_lines[n - 1]!r}")
    lines = [line for line in out_lines if line != ROCM_PATH_LINE]
    ends = [line.endswith("\\") for line in lines]
    if ends != [line.endswith("\\") for line in data.decode("utf-8").split("\n")]:
        problems.append("the lines or their continuations changed")
    if _make_comments(out) != _make_comments(data):
        problems.append(f"comments changed: {_make_comments(data)} -> {_make_comments(out)}")
    return problems


_CMAKE_TOKEN = re.compile(
    r"""(?P<comment>\#\[(?P<e1>=*)\[.*?\](?P=e1)\]|\#(?!\[=*\[)[^\n]*)
      | (?P<bracket>\[(?P<e2>=*)\[.*?\](?P=e2)\])
      | (?P<quoted>"(?:\\.|[^"\\])*")
      | (?P<open>\() | (?P<close>\)) | (?P<newline>\n) | (?P<space>[ \t]+)
      | (?P<unquoted>(?:\\[^A-Za-z0-9]|\\[trn;]|[^\s()\#"\\])+)""",
    re.X | re.S,
)


def cmake_problem(data: bytes) -> tuple[str | None, list[str]]:
    """A CMake file against cmake-language(7): (the first error or None, its comments in order). A file is
    commands `name(...)`, each ending its line, with balanced parentheses, closed quoted and bracket
    arguments, and comments."""
    text, at, comments = data.decode("utf-8"), 0, []
    depth, state = 0, "line"  # line: a command may start; name: after its name; end: after its ')'
    while at < len(text):
        m = _CMAKE_TOKEN.match(text, at)
        if m is None:
            return f"unexpected {text[at : at + 10]!r} at {at}", comments
        kind, at = m.lastgroup, m.end()
        if kind == "comment":
            comments.append(m.group())
        elif kind == "newline" and not depth:
            state = "line"
        elif kind == "open":
            if not depth and state != "name":
                return f"'(' without a command at {m.start()}", comments
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth < 0:
                return f"unbalanced ')' at {m.start()}", comments
            state = "end" if not depth else state
        elif kind in ("unquoted", "quoted", "bracket") and not depth:
            if state != "line" or kind != "unquoted" or not re.fullmatch(r"[A-Za-z_]\w*", m.group()):
                return f"{m.group()!r} outside a command at {m.start()}", comments
            state = "name"
    return ("unclosed command" if depth or state == "name" else None), comments


def check_cmake(data: bytes) -> list[str]:
    out = _translate("CMakeLists.txt", data)
    (before, comments), (after, out_comments) = cmake_problem(data), cmake_problem(out)
    problems = []
    if before is None and after is not None:
        problems.append(f"CMake's grammar accepts the input but not the output: {after}")
    if out_comments != comments:
        problems.append(f"comments changed: {comments} -> {out_comments}")
    return problems


# ---------------------------------------------------------------- the tests

_FAST = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_SLOW = settings(_FAST, derandomize=os.environ.get("HIPCONV_FUZZ_RANDOM") != "1")


def _assert_none(problems: list[str], data: bytes) -> None:
    note(f"input {data!r}")
    assert not problems, "\n".join(problems)


def test_the_oracles_see_what_they_check() -> None:
    """The checks fail where they should: a make syntax error, a CMake grammar error, a lost comment."""
    if MAKE is not None:
        assert make_problem(b"A := x\n-I../inc\n") is not None
        assert make_problem(b"A := x\\\n\t-I../inc\nall:\n\techo $(A)\n") is None
    assert cmake_problem(b"set(A 1) set(B 2)\n")[0] is not None
    assert cmake_problem(b'set(A "x)\n')[0] is not None
    assert cmake_problem(b"set(A #[[ c ]] 1 # d\n 2)\n") == (None, ["#[[ c ]]", "# d"])


# inputs the slow lane found, fixed
FOUND = [
    # a flag missing its value took the next argument, and the line break after a continuation was stripped:
    # the backslash then escaped the closing quote
    ("CMakeLists.txt", b'list(APPEND CMAKE_CUDA_FLAGS "-arch=sm_70 -arch=sm_70\\\n -arch" CUDA::cublas)\n'),
    # ROCM_PATH's default was put between the continuation lines of nvcc's assignment
    ("Makefile", b"NVCC = -arch=sm_70 \\\n\t$(CUDA_PATH)/bin/nvcc\n"),
]


@pytest.mark.parametrize(("name", "data"), FOUND)
def test_found_inputs(name: str, data: bytes) -> None:
    assert (check_make if name == "Makefile" else check_cmake)(data) == []


@settings(_FAST, max_examples=FAST_EXAMPLES)
@given(makefiles())
def test_fuzz_makefiles(data: bytes) -> None:
    _assert_none(check_make(data), data)


@settings(_FAST, max_examples=FAST_EXAMPLES)
@given(cmake_files())
def test_fuzz_cmake_files(data: bytes) -> None:
    _assert_none(check_cmake(data), data)


@pytest.mark.slow
@settings(_SLOW, max_examples=SLOW_EXAMPLES)
@given(makefiles())
def test_fuzz_makefiles_slow(data: bytes) -> None:
    _assert_none(check_make(data), data)


@pytest.mark.slow
@settings(_SLOW, max_examples=SLOW_EXAMPLES)
@given(cmake_files())
def test_fuzz_cmake_files_slow(data: bytes) -> None:
    _assert_none(check_cmake(data), data)
