"""Property tests over generated token soups: idempotence and untouched non-CUDA input."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_translate import translate

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
