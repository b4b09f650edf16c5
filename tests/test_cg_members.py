"""Member calls on cooperative groups that the targeted HIP lacks (hipconv/translate/cg_members.py, HC014 and
HC015): what is reported and rewritten, look-alikes that stay silent, and the data (hipconv/data/cg.members,
cg.factories) against the inventories and against the real headers of ROCm 5.2 (Debian's) and 6.3."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from conftest import SHARED_INVENTORY
from test_translate import translate

from helpers import HIPCC_SYNTAX, debian_hipcc, hipcc_syntax_missing
from hipconv.resources import hip_releases
from hipconv.translate.cg_members import facts

HEAD = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"


def findings(src: str, rocm: str) -> list[tuple[int, str, str]]:
    """(line, code, message) of the HC014/HC015 findings, lines counted from the body after HEAD."""
    _, result = translate(HEAD + src, rocm=rocm, path="k.cu")
    return [(d.line - 2, d.code, d.message) for d in result.diagnostics if d.code in ("HC014", "HC015")]


@pytest.mark.parametrize(
    ("src", "rocm", "expected"),
    [
        pytest.param(
            "__device__ int f() {\n  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());"
            "\n  return tile.meta_group_rank();\n}\n",
            "5.2",
            [
                (
                    3,
                    "HC014",
                    "meta_group_rank() is a member of HIP's thread_block_tile from ROCm 5.7; the targeted 5.2 lacks "
                    "it; left unchanged",
                )
            ],
            id="declared-tile",
        ),
        pytest.param(
            "__device__ int f(cg::thread_block b) { return cg::tiled_partition<16>(b).meta_group_size(); }\n",
            "5.2",
            [
                (
                    1,
                    "HC014",
                    "meta_group_size() is a member of HIP's thread_block_tile from ROCm 5.7; the targeted 5.2 lacks "
                    "it; left unchanged",
                )
            ],
            id="call-on-a-factory-call",
        ),
        pytest.param(
            "__device__ long f() { auto g = cg::this_grid(); return g.block_rank(); }\n",
            "7.2",
            [(1, "HC014", "block_rank() is a member of CUDA's grid_group that no HIP release has; left unchanged")],
            id="auto-from-a-factory",
        ),
        pytest.param(
            "__device__ dim3 f(const cg::thread_block *b) { return b->group_dim(); }\n",
            "5.2",
            [
                (
                    1,
                    "HC014",
                    "group_dim() is a member of HIP's thread_block from ROCm 5.7; the targeted 5.2 lacks it; left "
                    "unchanged",
                )
            ],
            id="pointer-parameter",
        ),
        pytest.param(
            "template <typename G>\n__device__ int f(const G &g) { return g.meta_group_rank(); }\n",
            "5.2",
            [
                (
                    2,
                    "HC014",
                    "meta_group_rank() is a member of HIP's coalesced_group, thread_block_tile from ROCm 5.7; the "
                    "targeted 5.2 lacks it; left unchanged",
                )
            ],
            id="template-parameter",
        ),
        pytest.param(
            "template <typename G>\n__device__ int f(const G &g) { return g.num_threads(); }\n",
            "6.3",
            [
                (
                    2,
                    "HC014",
                    "num_threads() is a member of CUDA's cooperative groups that no HIP release has; left unchanged "
                    "(HIP's groups call it size())",
                )
            ],
            id="alias-not-applied-without-a-known-group",
        ),
        pytest.param(
            "__device__ int f() { cg::coalesced_group a = cg::coalesced_threads(); return a.ballot(1); }\n",
            "6.2",
            [
                (
                    1,
                    "HC014",
                    "ballot() is a member of HIP's coalesced_group from ROCm 6.3; the targeted 6.2 lacks it; left "
                    "unchanged",
                )
            ],
            id="shared-name-on-a-known-group",
        ),
    ],
)
def test_reported(src: str, rocm: str, expected: list[tuple[int, str, str]]) -> None:
    assert findings(src, rocm) == expected


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "__device__ int f(cg::thread_block b) { return b.num_threads(); }",
            "__device__ int f(cg::thread_block b) { return b.size(); }",
            id="parameter",
        ),
        pytest.param(
            "__device__ long f() { return cg::this_grid().num_threads(); }",
            "__device__ long f() { return cg::this_grid().size(); }",
            id="factory-call",
        ),
        pytest.param(
            "__device__ int f() { auto t = cg::tiled_partition<8>(cg::this_thread_block()); return t.num_threads(); }",
            "__device__ int f() { auto t = cg::tiled_partition<8>(cg::this_thread_block()); return t.size(); }",
            id="auto-tile",
        ),
    ],
)
def test_num_threads_rewritten_to_size(src: str, expected: str) -> None:
    text, result = translate(HEAD + src, rocm="5.2", path="k.cu")
    assert text.endswith(expected)
    assert [(d.code, d.message.split(",")[0]) for d in result.diagnostics if d.code.startswith("HC01")] == [
        ("HC015", "num_threads() rewritten to size()")
    ]


@pytest.mark.parametrize(
    "src",
    [
        pytest.param(
            "struct Pool { int num_threads() const; int block_rank() const; };\n"
            "int f(Pool p, const Pool *q) { return p.num_threads() + q->block_rank(); }\n",
            id="a-project-class",
        ),
        pytest.param("#include <bitset>\nbool f(std::bitset<8> b) { return b.any() || b.all(); }\n", id="bitset"),
        pytest.param("template <class G> __device__ int f(G g) { return g.size() + g.any(1); }\n", id="shared-names"),
        pytest.param(
            "__device__ void f() { auto b = cg::this_thread_block(); b.sync(); int r = b.thread_rank(); (void)r; }\n",
            id="members-every-release-has",
        ),
        pytest.param(
            "struct Splitter {\n  int meta_group_rank() const { return 0; }\n"
            "  int g() const { return meta_group_rank(); }\n};\n",
            id="declarations-and-unqualified-calls",
        ),
        pytest.param(
            "struct T { int n; int num_threads() { return this->n; } int m() { return this->num_threads(); } };\n",
            id="this",
        ),
        pytest.param("int f(int meta_group_rank) { return meta_group_rank; }\n", id="a-variable"),
    ],
)
def test_silent(src: str) -> None:
    assert findings(src, "5.2") == []
    assert translate(HEAD + src, rocm="5.2", path="k.cu")[0].endswith(src)


WARP_SYNC = "#ifndef HIP_ENABLE_WARP_SYNC_BUILTINS\n#define HIP_ENABLE_WARP_SYNC_BUILTINS\n#endif\n"


def test_votes_get_the_define_hip_declares_them_under() -> None:
    """6.3's groups declare any/all/ballot/match_* under #ifdef HIP_ENABLE_WARP_SYNC_BUILTINS; 5.2's have none."""
    src = "__device__ int f(cg::thread_block_tile<32> t) { return t.ballot(t.thread_rank() & 1) != 0; }\n"
    text, _ = translate(HEAD + src, rocm="6.3", path="k.cu")
    assert text.startswith(WARP_SYNC) and text.endswith(src)
    assert findings(src, "6.3") == []
    assert [code for _, code, _ in findings(src, "5.2")] == ["HC014"]
    assert not translate(HEAD + src, rocm="5.2", path="k.cu")[0].startswith(WARP_SYNC)
    project = "struct Votes { bool any() const; };\nbool f(const Votes &v) { return v.any(); }\n"
    assert not translate(HEAD + project, rocm="6.3", path="k.cu")[0].startswith(WARP_SYNC)


def test_files_without_cooperative_groups_are_not_read() -> None:
    src = "struct P { int num_threads(); };\nint f(P p) { return p.num_threads(); }\n"
    text, result = translate(src, rocm="5.2", path="k.cpp")
    assert (text, result.diagnostics) == (src, ())


def test_later_releases_are_silent_where_hip_has_the_member() -> None:
    src = "__device__ int f(cg::thread_block_tile<32> t) { return t.meta_group_rank() + t.meta_group_size(); }\n"
    assert [r for r in hip_releases() if findings(src, r)] == ["5.2"]


# --- the data ---------------------------------------------------------------------------------------------

NO_INVENTORY = f"{SHARED_INVENTORY} is not on this machine: the data cannot be checked against the inventories"


def _records(folder: str) -> list[dict[str, str]]:
    path = SHARED_INVENTORY / folder / "cooperative_groups.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.skipif(not SHARED_INVENTORY.is_dir(), reason=NO_INVENTORY)
def test_members_against_the_inventories() -> None:
    """Every member listed is one CUDA declares on a group; every group a release is said to have it in is a
    HIP class of that release; and the members no HIP release has are declared by no HIP record at all."""
    cuda = {r["name"].rsplit("::", 1)[-1] for s in ("cuda-11.8", "cuda-12.9", "cuda") for r in _records(s)}
    hip_folders = {"6.3": "hip", **{r: f"hip-{r}" for r in ("5.2", "5.7", "6.0", "6.1", "6.2")}}
    hip = {rel: _records(folder) for rel, folder in hip_folders.items()}
    for name, member in facts().members.items():
        assert name in cuda, name
        for group, releases in member.groups.items():
            for rel in set(releases) & set(hip):
                assert f"cooperative_groups::{group}" in {r["name"] for r in hip[rel] if r["kind"] == "class"}
        if not member.groups:
            assert not [r["name"] for rs in hip.values() for r in rs if r["name"].endswith(f"::{name}")], name
    meta = facts().members["meta_group_rank"].groups
    assert min(meta["thread_block_tile"], key=hip_releases().index) == "5.7"
    assert not [r for r in hip["5.2"] if r["name"].endswith("::meta_group_rank")]


# One struct per (group, member) that names the member with a using-declaration: it compiles exactly where
# the group has a public member of that name, whatever its parameters, overloads or templates.
GROUP_TYPES = {
    "thread_group": ["thread_group"],
    "thread_block": ["thread_block"],
    "grid_group": ["grid_group"],
    "multi_grid_group": ["multi_grid_group"],
    "coalesced_group": ["coalesced_group"],
    "tiled_group": ["tiled_group"],
    "thread_block_tile": ["thread_block_tile<32, thread_block>", "thread_block_tile<32, void>"],
}


def _probe(define: str = "") -> tuple[str, dict[int, tuple[str, str]]]:
    lines = [f"#define {define}" if define else "", "#include <hip/hip_runtime.h>"]
    lines += ["#include <hip/hip_cooperative_groups.h>", "using namespace cooperative_groups;"]
    where: dict[int, tuple[str, str]] = {}
    for group, spellings in GROUP_TYPES.items():
        for spelling in spellings:
            for name in facts().members:
                lines.append(f"struct P{len(lines)} : {spelling} {{ using {spelling}::{name}; }};")
                where[len(lines)] = (group, name)
    return "\n".join(lines) + "\n", where


def _missing_in(output: str, where: dict[int, tuple[str, str]], unit: Path) -> set[tuple[str, str]]:
    lines = {int(m[1]) for m in re.finditer(rf"^{re.escape(str(unit))}:(\d+):\d+: error:", output, re.MULTILINE)}
    assert lines <= set(where), output[:2000]
    return {where[n] for n in lines}


def _said_missing(release: str, *, defined: bool = True) -> set[tuple[str, str]]:
    """The (group, member) pairs the data says HIP lacks in `release` (without `defined`: counting those it
    declares under a macro as missing)."""
    return {
        (g, n)
        for g in GROUP_TYPES
        for n, m in facts().members.items()
        if release not in m.groups.get(g, ()) or (m.define and not defined)
    }


@pytest.mark.hipcc
def test_members_against_debian_hip_52_headers(tmp_path: Path, hip_env: dict[str, str]) -> None:
    text, where = _probe()
    unit = tmp_path / "probe.hip"
    unit.write_text(text)
    env = {**hip_env, "HIPCC_COMPILE_FLAGS_APPEND": "-fsyntax-only -ferror-limit=0"}
    done = debian_hipcc(unit, tmp_path / "probe.o", env)
    assert _missing_in(done.stdout + done.stderr, where, unit) == _said_missing("5.2")


@pytest.mark.hipcc
@pytest.mark.skipif(hipcc_syntax_missing() is not None, reason=hipcc_syntax_missing() or "")
@pytest.mark.parametrize("defined", [True, False], ids=["with-define", "without-define"])
def test_members_against_rocm_63_headers(tmp_path: Path, defined: bool) -> None:
    """The members ROCm 6.3's groups have, and those they have only with the define the data names."""
    defines = {m.define for m in facts().members.values() if m.define}
    assert len(defines) == 1
    text, where = _probe(defines.pop() if defined else "")
    unit = tmp_path / "probe.hip"
    unit.write_text(text)
    cmd = [str(HIPCC_SYNTAX), "-std=c++17", "-ferror-limit=0", str(unit)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert _missing_in(done.stdout + done.stderr, where, unit) == _said_missing("6.3", defined=defined)
