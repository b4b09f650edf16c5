"""Block sizes fixed by the launches of a file: `k<<<n, 32>>>`, `k<<<grid, WARP_SIZE>>>` with `#define WARP_SIZE
32`, `dim3 block(32); k<<<grid, block>>>`, `k<<<grid, dim3(16, 2)>>>`. A block whose thread count is not a
multiple of 64 leaves a wavefront with lanes that do not run (a 32-thread block: lanes 32-63 of its one
wavefront), which a lane mask naming all 64 lanes does not match (translate.lane_masks, HC105), and a
coalesced_group of a wavefront then lies within lanes 0-31, as a CUDA warp's does (matchers.coalesced_scans).
Tokens of one file only: a launch in another file, or a block size computed at run time, is not seen."""

from __future__ import annotations

import bisect
import math
from typing import NamedTuple

from hipconv.translate.lexer import IDENTIFIER, KEYWORD, LITERAL, NEWLINE, TokenKind, Tokens
from hipconv.translate.syntax import (
    int_literal,
    is_punct,
    matching_close,
    matching_open,
    next_code,
    parse_launch,
    prev_code,
    split_top_level,
)
from hipconv.translate.words import token_occurrences

_STATEMENTS = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof", "__launch_bounds__"})


class BlockLaunch(NamedTuple):
    """A `<<<...>>>` launch of the file."""

    kernel: str  # the kernel's name, unqualified
    threads: int | None  # threads per block, where the file fixes it; None where it is not seen
    chevron: int  # the `<<<` token, for where it is


def kernel_launches(tokens: Tokens) -> tuple[BlockLaunch, ...]:
    """Every `<<<...>>>` launch of the file, with its block size where it is a constant the file gives."""
    found = []
    known: _Known = {}
    for i in token_occurrences(tokens, (b"<<<",), (TokenKind.PUNCTUATION,)):  # found by the bytes, not a walk
        launch = parse_launch(tokens, i)
        kernel = _last_identifier(tokens, launch.start, i) if launch is not None else None
        if launch is not None and kernel is not None:
            found.append(BlockLaunch(kernel, _threads(tokens, *_token_range(tokens, launch.config[1]), known), i))
    return tuple(found)


def launches_around(tokens: Tokens, launches: tuple[BlockLaunch, ...], k: int) -> tuple[list[BlockLaunch], bool]:
    """The launches of the kernel whose body holds token k; where there are none, those of the kernels of the file
    that call the function around k (and True: a caller's)."""
    function = function_name(tokens, k) if launches else None
    if function is None:
        return [], False
    own = [launch for launch in launches if launch.kernel == function]
    if own:
        return own, False
    kernels = callers(tokens, function)
    return [launch for launch in launches if launch.kernel in kernels], True


def function_name(tokens: Tokens, k: int) -> str | None:
    """The name of the function whose body holds token k (`__global__ void reduce(...) {`); None outside one."""
    for j in tokens.enclosing_braces(k):
        name = _declared_function(tokens, j)
        if name is not None:
            return name
    return None


def callers(tokens: Tokens, name: str) -> frozenset[str]:
    """The functions of the file whose bodies call `name(`."""
    found = set()
    for k in token_occurrences(tokens, (name.encode(),), (TokenKind.IDENTIFIER,)):
        if is_punct(tokens, next_code(tokens, k), "("):
            caller = function_name(tokens, k)
            if caller is not None and caller != name:
                found.add(caller)
    return frozenset(found)


def _declared_function(tokens: Tokens, brace: int) -> str | None:
    """The function name when the `{` at brace opens a function body: `name(...) {`, `name(...) const {`."""
    j = prev_code(tokens, brace)
    while j >= 0 and tokens.kinds[j] == KEYWORD and tokens.text(j) in ("const", "noexcept", "override"):
        j = prev_code(tokens, j)
    if not is_punct(tokens, j, ")"):
        return None
    opener = matching_open(tokens, j)
    name = prev_code(tokens, opener) if opener is not None else -1
    if name < 0 or tokens.kinds[name] != IDENTIFIER or tokens.text(name) in _STATEMENTS:
        return None
    return tokens.text(name)


def _token_range(tokens: Tokens, span: tuple[int, int]) -> tuple[int, int]:
    """The tokens [first, last) that a byte span covers."""
    return bisect.bisect_left(tokens.starts, span[0]), bisect.bisect_left(tokens.starts, span[1])


def _code(tokens: Tokens, first: int, last: int) -> list[int]:
    return [k for k in range(first, last) if tokens.kinds[k] not in (TokenKind.COMMENT,) and tokens.text(k).strip()]


def _last_identifier(tokens: Tokens, first: int, chevron: int) -> str | None:
    """`ns::kernel<T, 4>` -> kernel: the last identifier before a template's `<`."""
    name = None
    for k in range(first, chevron):
        if is_punct(tokens, k, "<"):
            break
        if tokens.kinds[k] == IDENTIFIER:
            name = tokens.text(k)
    return name


# what a file's launches read so far: each name token's value and each definition's, by (what, token, depth,
# dim3). Its launches read the same few definitions (`dim3 block(WARP_SIZE, 4)` in each kernel's launcher), each
# a chain of names that are searched for (the corpora's .cu and .cuh files: 7,031 definitions read, 1,349 different)
_Known = dict[tuple[str, int, int, bool], "int | None"]


def _threads(tokens: Tokens, first: int, last: int, known: _Known, *, depth: int = 0) -> int | None:
    """The thread count of a block written in tokens[first:last]: a constant, `dim3(x, y, z)`, or a name the
    file defines as one of these."""
    code = _code(tokens, first, last)
    if len(code) == 1:
        return _value(tokens, code[0], known, depth=depth, dim3=True)
    if code and tokens.text(code[0]) == "dim3" and is_punct(tokens, code[1], "(", "{"):
        close = matching_close(tokens, code[1])
        if close == code[-1]:
            return _dims(tokens, code[1], close, known, depth=depth)
    return None


def _dims(tokens: Tokens, open_: int, close: int, known: _Known, *, depth: int) -> int | None:
    """The product of `(x, y, z)`'s constants (y and z default to 1)."""
    parts = split_top_level(tokens, open_ + 1, close)
    if not parts or len(parts) > 3:
        return None
    values = [_threads_of_span(tokens, span, known, depth=depth) for span in parts]
    return None if any(v is None for v in values) else math.prod(v for v in values if v is not None)


def _threads_of_span(tokens: Tokens, span: tuple[int, int], known: _Known, *, depth: int) -> int | None:
    first, last = _token_range(tokens, span)
    code = _code(tokens, first, last)
    return _value(tokens, code[0], known, depth=depth, dim3=False) if len(code) == 1 else None


def _value(tokens: Tokens, k: int, known: _Known, *, depth: int, dim3: bool) -> int | None:
    """An integer literal, or a name the file defines once as a constant (`#define N 32`, `const int n = 32;`)
    or, where a block is read (dim3), as `dim3 name(...)`."""
    if tokens.kinds[k] == LITERAL:
        literal = int_literal(tokens.text(k))
        return None if literal is None else literal.value
    if tokens.kinds[k] != IDENTIFIER or depth > 4:
        return None
    if ("value", k, depth, dim3) in known:
        return known["value", k, depth, dim3]
    name = tokens.text(k)
    values = set()
    for j in token_occurrences(tokens, (name.encode(),), (TokenKind.IDENTIFIER,)):
        value = _definition(tokens, j, known, depth=depth + 1, dim3=dim3) if j != k else None
        if value is not None:
            values.add(value)
    found = known["value", k, depth, dim3] = values.pop() if len(values) == 1 else None
    return found


def _definition(tokens: Tokens, j: int, known: _Known, *, depth: int, dim3: bool) -> int | None:
    if ("definition", j, depth, dim3) not in known:
        known["definition", j, depth, dim3] = _read_definition(tokens, j, known, depth=depth, dim3=dim3)
    return known["definition", j, depth, dim3]


def _read_definition(tokens: Tokens, j: int, known: _Known, *, depth: int, dim3: bool) -> int | None:
    before, after = prev_code(tokens, j), next_code(tokens, j)
    if tokens.text(before) == "define":
        end = after
        while end < len(tokens) and NEWLINE not in tokens.body[tokens.ends[end - 1] : tokens.starts[end]]:
            end += 1
        return (
            _threads(tokens, after, end, known, depth=depth)
            if dim3
            else _single(tokens, after, end, known, depth=depth)
        )
    if dim3 and tokens.text(before) == "dim3" and is_punct(tokens, after, "(", "{"):
        close = matching_close(tokens, after)
        return None if close is None else _dims(tokens, after, close, known, depth=depth)
    if is_punct(tokens, after, "=") and _is_constant_declaration(tokens, before):
        end = after
        while end < len(tokens) and not is_punct(tokens, end, ";", ","):
            end = (matching_close(tokens, end) or end) + 1 if is_punct(tokens, end, "(", "{") else end + 1
        return (
            _threads(tokens, after + 1, end, known, depth=depth)
            if dim3
            else _single(tokens, after + 1, end, known, depth=depth)
        )
    return None


def _single(tokens: Tokens, first: int, last: int, known: _Known, *, depth: int) -> int | None:
    code = [k for k in _code(tokens, first, last) if not is_punct(tokens, k, "(", ")")]
    return _value(tokens, code[0], known, depth=depth, dim3=False) if len(code) == 1 else None


def _is_constant_declaration(tokens: Tokens, type_end: int) -> bool:
    """A `const`/`constexpr` declaration, or a dim3 one, ends its type at type_end."""
    j = type_end
    for _ in range(6):
        if j < 0 or is_punct(tokens, j, ";", "{", "}", "(", ","):
            return False
        if tokens.text(j) in ("const", "constexpr", "dim3"):
            return True
        j = prev_code(tokens, j)
    return False
