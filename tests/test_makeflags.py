"""The flags `hipconv build` reads from Makefiles, statically (make_reader.py, make_expand.py, makeflags.py):
what GNU make would give each source, without running anything from the tree, with or without make."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.builder.makeflags import makefile_flags

SUFFIXES = [".cu", ".cpp"]


def _flags(root: Path, files: dict[str, str], environ: dict[str, str] | None = None) -> dict[str, list[str]]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return makefile_flags(root, list(files), SUFFIXES, environ or {})


# (Makefile, the flags of k.cu): every kind of assignment, expansion and conditional make reads
CASES = [
    pytest.param("k.o: k.cu\n\thipcc -DA=1 -O2 -c k.cu\n", ["-DA=1", "-O2"], id="explicit-rule"),
    pytest.param(
        "OPT = -O$(LEVEL)\nLEVEL := 3\nFLAGS := -DX $(OPT)\nFLAGS += -DY\nFLAGS ?= -DNOT\nB ?= -DB\n"
        "k.o: k.cu\n\thipcc $(FLAGS) ${B} -c $<\n",
        ["-DX", "-O3", "-DY", "-DB"],
        id="assignments",
    ),
    pytest.param(
        "FLAGS = -DA \\\n        -DB\\\n  -DC\nk.o: k.cu\n\thipcc $(FLAGS) \\\n\t  -c $< -o $@\n",
        ["-DA", "-DB", "-DC"],
        id="continuations",
    ),
    pytest.param(
        "ifeq ($(DEBUG),1)\n  F = -g\nelse ifeq ($(OS),Windows_NT)\n  F = -DWIN\nelse\n  F = -O2\nendif\n"
        "ifdef UNSET\nF += -DUNSET\nendif\nifndef UNSET\nF += -DNO_UNSET\nendif\n"
        'ifneq "$(shell uname)" ""\nF += -DRAN_SHELL\nendif\nk.o: k.cu\n\thipcc $(F) -c $<\n',
        ["-O2", "-DNO_UNSET"],
        id="conditionals-as-a-plain-make",
    ),
    pytest.param(
        "SRCS := k.cu other.cu\nOBJS := $(SRCS:.cu=.o)\nall: $(OBJS)\n"
        "%.o: %.cu\n\thipcc $(patsubst %,-D%,$(sort B A)) $(addprefix -I,inc) -c $< -o $@\n",
        ["-DA", "-DB", "-I{root}/inc"],
        id="pattern-rule-and-functions",
    ),
    pytest.param(
        "OBJS = build/k.o\n$(OBJS): build/%.o: %.cu\n\thipcc -DSTEM=$* -c $< -o $@\n",
        ["-DSTEM=k"],
        id="static-pattern-rule",
    ),
    pytest.param(
        "define COMPILE\nhipcc -DDEFINED -c $(1)\nendef\nk.o: k.cu\n\t$(call COMPILE,$<)\n",
        ["-DDEFINED"],
        id="define-and-call",
    ),
    pytest.param(
        "SMS = 70 80\n$(foreach sm,$(SMS),$(eval GEN += -DSM_$(sm)))\nk.o: k.cu ; hipcc $(GEN) -c $<\n",
        ["-DSM_70", "-DSM_80"],
        id="foreach-eval-and-inline-recipe",
    ),
    pytest.param(
        "include config.mk\n-include missing.mk\nk.o: k.cu\n\t@cd . && $(NVCC) $(CFG) -c k.cu\n",
        ["-DFROM_CONFIG"],
        id="include-and-cd",
    ),
    pytest.param("all:\n\t$(MAKE) -C sub LEVEL=2\n", ["-O2", "-DSUB"], id="sub-make-with-a-variable"),
    pytest.param("CXXFLAGS = -DHOST\napp: k.o\n\t$(CXX) $^ -o $@\nk.o: k.cpp\n", ["-DHOST"], id="builtin-rule-for-cpp"),
]


@pytest.mark.parametrize(("makefile", "expected"), CASES)
def test_static_makefile_flags(tmp_path: Path, makefile: str, expected: list[str]) -> None:
    source = "k.cpp" if "k.cpp" in makefile else "k.cu"
    files = {
        "Makefile": makefile,
        "config.mk": "NVCC = hipcc\nCFG = -DFROM_CONFIG\n",
        "sub/Makefile": "LEVEL ?= 0\n../k.o: ../k.cu\n\thipcc -O$(LEVEL) -DSUB -c ../k.cu\n",
        source: "int main() { return 0; }\n",
    }
    if "-C sub" not in makefile:
        del files["sub/Makefile"]
    flags = _flags(tmp_path, files)
    assert flags[source] == [f.format(root=tmp_path.resolve()) for f in expected]


def test_environment_and_command_line_precedence(tmp_path: Path) -> None:
    """The environment is read as make reads it: a Makefile's assignment wins over it, `?=` does not."""
    files = {"Makefile": "A = -DFILE_A\nB ?= -DFILE_B\nk.o: k.cu\n\thipcc $(A) $(B) $(C) -c $<\n", "k.cu": ""}
    flags = _flags(tmp_path, files, {"A": "-DENV_A", "B": "-DENV_B", "C": "-DENV_C"})
    assert flags == {"k.cu": ["-DFILE_A", "-DENV_B", "-DENV_C"]}


def test_makefile_that_compiles_nothing(tmp_path: Path) -> None:
    files = {"Makefile": "all:\n\t@echo nothing to do\nclean:\n\trm -f *.o\n", "k.cu": ""}
    assert _flags(tmp_path, files) == {}


def test_flags_are_read_without_make_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """make is not needed: `hipconv build` with a PATH that holds no make still gives each TU its flags."""
    tree = tmp_path / "tree"
    _flags(tree, {"Makefile": "FLAGS = -DREAD\nk.o: k.cu\n\tnvcc $(FLAGS) -c $<\n", "k.cu": "int k;\n"})
    hipcc = tmp_path / "bin" / "hipcc"
    hipcc.parent.mkdir()
    hipcc.write_text("#!/bin/sh\nexit 0\n")
    hipcc.chmod(0o755)
    monkeypatch.setenv("PATH", str(hipcc.parent))
    assert shutil.which("make") is None
    out = tmp_path / "hip"
    result = run_cli("build", tree, "-o", out, "--check-only", "--rocm-version", "6.3")
    assert result.code == 0, result.stderr
    (entry,) = json.loads((out / "compile_commands.json").read_text())
    assert entry["arguments"][0] == str(hipcc) and "-DREAD" in entry["arguments"]


def _hostile_tree(root: Path, markers: Path) -> None:
    """A tree whose Makefiles run commands as GNU make reads them (`$(shell)`, `!=`, `$(file)`) and as
    `make -n` prints them (a `+` recipe line, a line with `$(MAKE)`): each touches a marker file."""
    (root / "sub").mkdir(parents=True)
    (root / "app.cu").write_text("__global__ void k() {}\nint main() { return 0; }\n")
    (root / "Makefile").write_text(
        f"EAGER := $(shell touch {markers}/shell-simple)\n"
        f"LAZY = $(shell touch {markers}/shell-recursive)\n"
        f"BANG != touch {markers}/shell-assignment\n"
        f"$(file >{markers}/file-function,written)\n"
        f"ifeq ($(shell touch {markers}/shell-condition),)\nCFLAGS = -DFROM_MAKEFILE $(LAZY)\nendif\n"
        "all: app.o sub\n"
        f"app.o: app.cu\n\t+touch {markers}/plus-recipe\n\thipcc $(CFLAGS) -c app.cu -o app.o\n"
        f"sub:\n\t$(MAKE) -C sub; touch {markers}/make-recipe\n"
    )
    (root / "sub" / "Makefile").write_text(f"all:\n\t+touch {markers}/sub-make-recipe\n")


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make not installed")
def test_make_dry_run_runs_commands_from_the_tree(tmp_path: Path) -> None:
    """Why the flags are read statically: `make -n` itself runs all of these (issue #27)."""
    markers = tmp_path / "markers"
    markers.mkdir()
    _hostile_tree(tmp_path / "tree", markers)
    subprocess.run(["make", "-n", "-B", "-k"], cwd=tmp_path / "tree", capture_output=True, timeout=60, check=False)
    assert len(list(markers.iterdir())) == 8


def test_build_runs_nothing_from_the_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`hipconv build --check-only` on an untrusted tree, with make on PATH: no marker is touched, and the flags
    are read all the same."""
    markers = tmp_path / "markers"
    markers.mkdir()
    _hostile_tree(tmp_path / "tree", markers)
    hipcc = tmp_path / "hipcc"
    hipcc.write_text("#!/bin/sh\nexit 0\n")
    hipcc.chmod(0o755)
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")
    out = tmp_path / "hip"
    result = run_cli("build", tmp_path / "tree", "-o", out, "--check-only", "--hipcc", hipcc, "--rocm-version", "6.3")
    assert result.code == 0, result.stderr
    assert sorted(p.name for p in markers.iterdir()) == []
    database = json.loads((out / "compile_commands.json").read_text())
    assert "-DFROM_MAKEFILE" in database[0]["arguments"]
