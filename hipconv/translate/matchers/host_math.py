"""Host math that nvcc makes visible: a host function of a .cu file calls `isfinite(x)`, `abs(x)` on a float,
`sqrt(x)` on a float with only <stdio.h> included, because nvcc's runtime header brings C++ math overloads
into the global namespace. HIP's does not (clang declares them for device code only): such a file gets
`#include <math.h>` beside the runtime include (runtime_include writes it), and a note (HC032).

The names are hipconv/data/cuda.host-math, derived from CUDA's inventories (tools/derive/host_math.py).
A call counts when it is unqualified (not `std::isnan`, not a member) and not in device-only code (a
`__global__` function, or a `__device__` one that is not `__host__` too), in a file nvcc compiles or a
header that includes a CUDA header (another header is plain C++, and a .cu file with no #include a fragment of
another: both are left as they are), that includes no <math.h> itself (<cmath> puts the overloads in std only)."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from hipconv.diagnostics import HOST_MATH_INCLUDED
from hipconv.resources import data_file
from hipconv.translate.context import FileContext
from hipconv.translate.cuda_constructs import CUDA_CONSTRUCT_WORDS
from hipconv.translate.found import NOTHING, Earlier, Found, MatchResult
from hipconv.translate.include_closure import include_lines
from hipconv.translate.lexer import PUNCTUATION, Tokens
from hipconv.translate.syntax import Span, is_punct, matching_close, next_code, prev_code
from hipconv.translate.words import WORDY_KINDS, identifier_tokens, inside, is_unqualified_call, token_occurrences

NAMES_FILE = "cuda.host-math"
HEADER = "math.h"
_DEVICE_ONLY = (b"__global__", b"__device__")
_HOST = "__host__"
_DECLARATION_END = (b";", b"{", b"}")


@functools.cache
def names() -> frozenset[bytes]:
    """hipconv/data/cuda.host-math (empty when it is missing)."""
    path = data_file(NAMES_FILE)
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    return frozenset(line.encode() for line in lines)


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    present = ctx.words & names()
    if not present or not (ctx.kind.nvcc_compiles or ctx.kind.is_header):
        return NOTHING
    if not _translated(ctx, earlier) or any(path == HEADER for _, path in include_lines(ctx.tokens.body)):
        return NOTHING
    found = Found(ctx, earlier)
    tokens = ctx.tokens
    device = _device_bodies(tokens)  # in order, found as far as the calls need: most files stop at the first
    body: Span | None = (-1, -1)
    skip = earlier.skip  # include paths, #error text, version tests
    skip_starts = [a for a, _ in skip]
    for i in identifier_tokens(tokens, present):
        if inside(skip, skip_starts, tokens.starts[i]) or not is_unqualified_call(tokens, i):
            continue
        while body is not None and body[1] <= i:
            body = next(device, None)
        if body is not None and body[0] <= i:
            continue  # in device-only code
        name = tokens.text(i)
        found.headers.add(HEADER)
        found.diag(
            tokens.starts[i],
            HOST_MATH_INCLUDED,
            f"{name}(...) in host code: nvcc's runtime header declares the C++ math overloads ({name} for "
            f"float among them) in the global namespace, HIP's does not: #include <{HEADER}> added",
            about_api=False,
        )
        break
    return found.result()


def _device_bodies(tokens: Tokens) -> Iterator[Span]:
    """The token ranges [`{`, `}`] of device-only function bodies (and device lambdas), in order."""
    last: Span = (-1, -1)
    kinds, size = tokens.kinds, len(tokens)
    for q in token_occurrences(tokens, _DEVICE_ONLY, WORDY_KINDS):
        if last[0] < q < last[1]:
            continue  # a lambda or a call inside a body already found
        host, j = False, prev_code(tokens, q)
        while j >= 0 and kinds[j] != PUNCTUATION:  # the specifiers before it
            host = host or tokens.text(j) == _HOST
            j = prev_code(tokens, j)
        j = next_code(tokens, q)
        while j < size:  # on to the end of the declaration: each punctuator's spelling read once
            if kinds[j] != PUNCTUATION:
                host = host or tokens.text(j) == _HOST
            elif (punct := tokens.raw(j)) in _DECLARATION_END:
                break
            elif punct in (b"(", b"["):
                j = matching_close(tokens, j) or size
            j = next_code(tokens, j)
        if not host and is_punct(tokens, j, "{") and (close := tokens.closing_brace(j)) is not None:
            last = (j, close)
            yield last


def _translated(ctx: FileContext, earlier: Earlier) -> bool:
    """A header that includes a CUDA header, or a .cu file with an #include or CUDA in it. Another header is
    plain C++, and a .cu file with neither a fragment that another one includes: the prefilter leaves both
    as they are, and so does this."""
    includes = earlier.includes
    if includes is None:
        return False
    if ctx.kind.is_header:
        return includes.hip or includes.runtime
    return bool(includes.spans) or not (
        ctx.words.isdisjoint(CUDA_CONSTRUCT_WORDS) and ctx.words.isdisjoint(ctx.table.names)
    )
