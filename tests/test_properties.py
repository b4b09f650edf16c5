"""Property tests over generated token soups: idempotence and untouched non-CUDA input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_translate import translate

from helpers import run_cli, tree

CUDA_PIECES = [
    "cudaMalloc",
    "cudaFree",
    "cudaStream_t",
    "cudaMemcpyHostToDevice",
    "cuMemAlloc",
    "cuCtxCreate",
    "__shfl_xor_sync",
    "__ballot_sync",
    "__syncwarp",
    "cublasSgemm",
    "__global__",
    "threadIdx",
    "#include <cuda_runtime.h>\n",
    '#include "cuda_fp16.h"\n',
    "k<<<g, b>>>(p);",
    "<<<",
    ">>>",
]
PLAIN_PIECES = [
    "x",
    "foo",
    "int",
    "return",
    "0",
    "0xffffffff",
    "1.5f",
    "(",
    ")",
    ",",
    ";",
    "{",
    "}",
    "<",
    ">",
    "::",
    ".",
    "->",
    "#define M(a) a\n",
    "#if 0\n",
    "#endif\n",
    '"str cudaFree"',
    "'c'",
    "// cudaMalloc\n",
    "/* cudaFree */",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\\\n",
]


def soup(pieces: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=40).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    soup(CUDA_PIECES + PLAIN_PIECES),
    st.sampled_from(["5.2", "6.3"]),
    st.sampled_from(["chevron", "hip"]),
    st.sampled_from(["t.cu", "t.cpp"]),
)
def test_translation_is_idempotent(src: str, rocm: str, launch: str, path: str) -> None:
    once, _ = translate(src, rocm=rocm, launch=launch, path=path)
    twice, _ = translate(once, rocm=rocm, launch=launch, path=path)
    assert twice == once


@settings(max_examples=150, deadline=None)
@given(soup(PLAIN_PIECES), st.booleans())
def test_input_without_cuda_is_unchanged(src: str, bom: bool) -> None:
    assume(not ("<<<" in src and ">>>" in src))  # `<` and `>` pieces can spell a launch
    text = ("\ufeff" if bom else "") + src
    assert translate(text, path="t.cpp")[0] == text


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_line_endings_survive_every_rewrite(newline: str) -> None:
    src = newline.join(
        ["// c", "#include <cuda_runtime.h>", "__global__ void k() {}", "void f() { k<<<1, 1>>>(); cudaFree(0); }", ""]
    )
    out, _ = translate(src, launch="hip", path="t.cu")
    assert out.count(newline) == src.count(newline)
    if newline == "\n":
        assert "\r" not in out


FIXTURES = Path(__file__).parent / "fixtures"


def _fixture_args(case: Path) -> tuple[str, ...]:
    return tuple(str(a) for a in (yaml.safe_load((case / "case.yaml").read_text()) or {}).get("args", []))


FIXTURE_CASES = sorted(
    p.parent
    for p in FIXTURES.glob("*/case.yaml")
    if (p.parent / "cuda").is_dir() and "--rocm-version" not in _fixture_args(p.parent)
)
# the fixtures grouped by their options: one tree of each group is translated twice (a run per case took an hour)
FIXTURE_GROUPS = sorted({_fixture_args(case) for case in FIXTURE_CASES})


@pytest.mark.slow
@pytest.mark.parametrize("rocm", ["5.2", "6.3"])
@pytest.mark.parametrize("args", FIXTURE_GROUPS, ids=[" ".join(a) or "default" for a in FIXTURE_GROUPS])
def test_every_fixture_translates_idempotently_with_annotations(
    args: tuple[str, ...], rocm: str, tmp_path: Path
) -> None:
    """Issue #40 item 12: translate(translate(x)) == translate(x) for every fixture, with --annotate, at 5.2
    and 6.3 (tests/test_fixtures.py checks each fixture's own targets without --annotate): no guard grows, no
    second definition waits for a second pass, no annotation appears late, and hipconv's own
    hipconv_compat.h is left as it is (no HC003 in it). The fixtures of one set of options are one tree, each
    case in its own folder."""
    source, once, twice = tmp_path / "cuda", tmp_path / "once", tmp_path / "twice"
    for case in FIXTURE_CASES:
        if _fixture_args(case) == args:
            shutil.copytree(case / "cuda", source / case.name)
    options = ["--force", "--annotate", "--no-cache", "--rocm-version", rocm, *args]
    first = run_cli("translate", source, "-o", once, *options)
    assert first.code in (0, 1), first.stderr
    second = run_cli("translate", once, "-o", twice, *options)
    assert second.code in (0, 1), second.stderr
    assert tree(twice) == tree(once)
    assert "hipconv_compat.h:" not in second.stderr
