"""One table of file kinds (hipconv.file_kinds): a file is read the same way named alone (pre-commit,
`hipconv translate FILE`) and inside a tree, and `hipconv build` compiles what the translation calls a
source. A `.cp` file (C++ to gcc and clang) used to be translated alone but copied in a tree, and an
`.inc` fragment got a source's define block at its top in a tree where an `.ipp` one got a header's
treatment."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli, tree
from hipconv.builder.plan import plan_tree
from hipconv.file_kinds import FileKind, file_kind

# an included part: CUDA's cooperative groups and a warp shuffle, which needs HIP's warp-sync define
REDUCTION = (
    "// the block reduction step that several kernels include\n"
    "#include <cooperative_groups.h>\n"
    "namespace cg = cooperative_groups;\n"
    "\n"
    "__device__ float block_sum(cg::thread_block block, float v) {\n"
    "    for (int s = 16; s > 0; s /= 2)\n"
    "        v += __shfl_down_sync(0xffffffffu, v, s);\n"
    "    block.sync();\n"
    "    return v;\n"
    "}\n"
)
DEFINE_BLOCK = "#ifndef HIP_ENABLE_WARP_SYNC_BUILTINS\n#define HIP_ENABLE_WARP_SYNC_BUILTINS\n#endif\n"
RUNTIME_ABOVE_GROUPS = "#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n"


def translate_both_ways(tmp_path: Path, name: str) -> tuple[str, str]:
    """(the file translated named alone, the same file translated inside a tree)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / name).write_text(REDUCTION)
    alone = run_cli("translate", src / name, "-o", tmp_path / name, "-qq")
    in_tree = run_cli("translate", src, "-o", tmp_path / "out", "-qq")
    assert alone.code == 0 and in_tree.code == 0, alone.stderr + in_tree.stderr
    return (tmp_path / name).read_text(), tree(tmp_path / "out")[name].decode()


@pytest.mark.parametrize("name", ["reduce.cp", "reduce.CP", "reduce.cpp"])
def test_a_cpp_source_is_translated_alone_and_in_a_tree_alike(tmp_path: Path, name: str) -> None:
    """A C++ source that holds CUDA constructs is one nvcc compiles as CUDA: the runtime and the defines
    its rewrites need go at its top, named alone or in a tree."""
    alone, in_tree = translate_both_ways(tmp_path, name)
    assert alone == in_tree
    assert in_tree.startswith("// the block reduction step that several kernels include\n" + DEFINE_BLOCK)
    assert RUNTIME_ABOVE_GROUPS in in_tree and "0xffffffffffffffffull" in in_tree


@pytest.mark.parametrize("name", ["reduce.inc", "reduce.ipp", "reduce.tpp", "reduce.cuinc", "reduce.h"])
def test_an_included_part_is_a_header_alone_and_in_a_tree(tmp_path: Path, name: str) -> None:
    """An included part's top comes after what the including file put before it: it gets no define block
    (the build defines it), and the runtime goes right above its first HIP include."""
    alone, in_tree = translate_both_ways(tmp_path, name)
    assert alone == in_tree
    assert DEFINE_BLOCK not in in_tree
    assert in_tree.startswith("// the block reduction step that several kernels include\n" + RUNTIME_ABOVE_GROUPS)


def test_what_a_tree_copies_unchanged(tmp_path: Path) -> None:
    """HIP sources and files of no source kind are copied as they are; build files are translated."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("kernel.hip", "notes.txt", "reduce.cu.orig"):
        (src / name).write_text(REDUCTION)
    (src / "CMakeLists.txt").write_text("project(p LANGUAGES CXX CUDA)\nadd_executable(app kernel.hip)\n")
    assert run_cli("translate", src, "-o", tmp_path / "out", "-qq").code == 0
    out = tree(tmp_path / "out")
    assert all(out[name] == REDUCTION.encode() for name in ("kernel.hip", "notes.txt", "reduce.cu.orig"))
    assert b"CUDA" not in out["CMakeLists.txt"]


def test_build_compiles_the_sources_the_translation_reads(tmp_path: Path) -> None:
    """`hipconv build` compiles .cp as C++ and .cu/.hip as HIP, and searches every folder of included parts."""
    for rel in ("app/main.cu", "app/kernels.hip", "app/host.cp", "detail/reduce.tpp", "frag/table.inc", "notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("int x;\n")
    files = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()]
    units, skipped = plan_tree(files, tmp_path, "hipcc", ["gfx90a"], build_dir=tmp_path / "b", check_only=True)
    languages = {u.source: "hip" if "-x" in u.command else "c++" for u in units}
    assert languages == {"app/main.cu": "hip", "app/kernels.hip": "hip", "app/host.cp": "c++"} and not skipped
    words = list(units[0].command)
    searched = {words[n + 1] for n, w in enumerate(words) if w == "-idirafter"}
    assert searched == {str(tmp_path), str(tmp_path / "detail"), str(tmp_path / "frag")}


def test_build_file_names_win_over_suffixes() -> None:
    assert file_kind("proj/CMakeLists.txt") is FileKind.CMAKE and file_kind("proj/cmake/cuda.CMAKE") is FileKind.CMAKE
    assert file_kind("GNUmakefile") is FileKind.MAKE and file_kind("rules.mk") is FileKind.MAKE
    assert file_kind("makefile.txt") is None and file_kind("README") is None
