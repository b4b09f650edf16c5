"""Deeply nested rewrites (issue #27): a launch inside a launch's arguments, a shuffle inside a shuffle,
a cuDNN call inside a cuDNN call. Deeper than Python's recursion limit, they must translate whole, as
they do at depth 3; and the indexes that make them linear (bracket partners, directive ends) must give
the answers of the plain scans they replace. bench/bench_pathological.py guards the time."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipconv.results import FileStatus
from hipconv.translate.directives import directive_last_token
from hipconv.translate.lexer import TokenKind, Tokens, lex, unsplice
from hipconv.translate.syntax import matching_close
from tests.test_translate import translate

DEEP = sys.getrecursionlimit() + 500

WIDE_MASK = "0xffffffffffffffffull"
LAUNCH = "hipLaunchKernelGGL"


@pytest.mark.parametrize("depth", [3, DEEP])
@pytest.mark.parametrize(
    ("launch", "cuda", "hip"),
    [
        pytest.param(
            "hip", ("k<<<1,1>>>(", "0", ")"), ("hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, ", ")"), id="launch"
        ),
        pytest.param(
            "chevron",
            ("__shfl_xor_sync(0xffffffff, ", "v", ", 1)"),
            (f"__shfl_xor_sync({WIDE_MASK}, ", ", 1)"),
            id="shuffle",
        ),
        pytest.param(
            "chevron",
            ("cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, ", "1", ", 1, 1, 1)"),
            ("miopenSet4dTensorDescriptor(d, miopenFloat, ", ", 1, 1, 1)"),
            id="cudnn",
        ),
    ],
)
def test_nested_rewrites_translate_at_any_depth(
    launch: str, cuda: tuple[str, str, str], hip: tuple[str, str], depth: int
) -> None:
    head, core, tail = cuda
    call = head * depth + core + tail * depth
    src = f"__global__ void k(int x) {{}}\nvoid f(int v, cudnnTensorDescriptor_t d) {{\n  {call};\n}}\n"
    text, result = translate(src, launch=launch, path="t.cu")
    assert result.status is FileStatus.CONVERTED, [d.message for d in result.diagnostics]
    assert f"\n  {hip[0] * depth + core + hip[1] * depth};\n" in text


def _plain_matching_close(tokens: Tokens, i: int) -> int | None:
    """The scan matching_close replaced: pair brackets from i with a stack."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[str] = []
    for j in range(i, len(tokens)):
        if tokens.kinds[j] != TokenKind.PUNCTUATION:
            continue
        t = tokens.raw(j).decode()
        if t in pairs:
            stack.append(pairs[t])
        elif t in pairs.values():
            if not stack or stack.pop() != t:
                return None
            if not stack:
                return j
    return None


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="()[]{} x,", max_size=40),
    st.randoms(use_true_random=False),
)
def test_matching_close_agrees_with_a_plain_scan_in_any_order(text: str, random) -> None:
    tokens = lex(text.encode())
    order = list(range(len(tokens)))
    random.shuffle(order)  # remembered pairs from one question must not change another's answer
    for i in order:
        assert matching_close(tokens, i) == _plain_matching_close(tokens, i), (text, i)


def _plain_directive_end(tokens: Tokens, hash_i: int) -> int:
    """The walk directive_last_token replaced: token by token to the first gap whose line break is no splice."""
    j = hash_i
    while j + 1 < len(tokens) and b"\n" not in unsplice(tokens.body[tokens.ends[j] : tokens.starts[j + 1]]):
        j += 1
    return j


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["#include <a.h>", "#define X 1", "#", "/* c\n */", "\\", "x", " ", "\n", "\r\n", "// n"]),
        max_size=14,
    )
)
def test_directive_ends_agree_with_a_plain_walk(pieces: list[str]) -> None:
    tokens = lex("".join(pieces).encode())
    for i in range(len(tokens)):
        if tokens.raw(i) == b"#":
            assert directive_last_token(tokens, i) == _plain_directive_end(tokens, i), pieces
