"""What makes a file CUDA without a CUDA include: a kernel launch, a CUDA keyword or built-in variable
(nvcc includes the CUDA runtime into such a file; the translation puts the HIP runtime there)."""

from __future__ import annotations

from hipconv.translate.builtin_variables import BUILTIN_VARIABLES, uses_builtin_variable
from hipconv.translate.directives import Directives
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.nvcc_syntax import glued_keyword
from hipconv.translate.words import WORDY_KINDS, token_occurrences

# Constructs that make a .cu file CUDA even when it includes no CUDA header.
CUDA_CONSTRUCTS = frozenset(
    {
        "__global__",
        "__device__",
        "__shared__",
        "__constant__",
        "__managed__",
        "__launch_bounds__",
        "threadIdx",
        "blockIdx",
        "blockDim",
        "gridDim",
        "__syncthreads",
        "warpSize",
    }
)
CUDA_CONSTRUCT_WORDS = frozenset(w.encode() for w in CUDA_CONSTRUCTS)


def cpp_compiled_as_cuda(tokens: Tokens, words: frozenset[bytes], directives: Directives) -> bool:
    """A C++ source that holds what no host compiler accepts, a kernel launch, a CUDA keyword or a built-in
    variable read as one (not a host variable of that name: builtin_variables), is built with `nvcc -x cu`,
    which includes the CUDA runtime, unless it #defines one of them itself, for a host compiler."""
    return directives.defined.isdisjoint(CUDA_CONSTRUCTS) and (
        uses_cuda_constructs(tokens, words - BUILTIN_VARIABLES) or uses_builtin_variable(tokens, words)
    )


def uses_cuda_constructs(tokens: Tokens, words: frozenset[bytes]) -> bool:
    """A kernel launch (`<<<` closed by `>>>`: C++ has `operator<<<T>`), or a CUDA keyword or built-in
    variable, as a token (not in a comment)."""
    punct = (TokenKind.PUNCTUATION,)
    opens = token_occurrences(tokens, (b"<<<",), punct, first_only=True)
    return bool(
        (opens and any(k > opens[0] for k in token_occurrences(tokens, (b">>>",), punct)))
        or token_occurrences(tokens, words & CUDA_CONSTRUCT_WORDS, WORDY_KINDS, first_only=True)
        or glued_keyword(tokens, words)  # `extern "C"__global__`: a keyword for nvcc, a literal suffix here
    )
