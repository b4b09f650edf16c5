"""ROCm 7's warpSize (HC307): up to ROCm 6.4 HIP declared `static constexpr int warpSize =
__AMDGCN_WAVEFRONT_SIZE;` (hip/amd_detail/amd_warp_functions.h), and HIP code used it where C++ needs a
constant; from ROCm 7.0 it is a run-time value (one binary can hold wave32 and wave64 code), so such code no
longer compiles. CUDA's warpSize never was a constant, so a CUDA tree has these uses only in HIP branches, but a
HIP tree kept after a port is where they gather."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hipconv.diagnostics import HOST_WARP_SIZE_CONSTANT, WARP_SIZE_CONSTANT
from hipconv.scan.registry import CheckHit, check
from hipconv.scan.view import FileView
from hipconv.settings import Settings, Version
from hipconv.translate.builtin_variables import uses_builtin_variable
from hipconv.translate.lexer import TokenKind
from hipconv.translate.syntax import (
    matching_close,
    matching_open,
    next_code,
    parse_launch,
    prev_code,
    template_close,
)

ROCM_7 = Version.parse("7.0")  # the first ROCm whose warpSize is not a constant expression
_CONSTANT_CALLS = {  # a call-like keyword whose arguments must be constant expressions -> how the message says it
    "static_assert": "in a static_assert",
    "alignas": "in alignas",
    "__launch_bounds__": "in __launch_bounds__",
}
_NOT_DECLARATIONS = frozenset({"return", "new", "delete", "throw", "sizeof", "case", "goto", "co_return"})


def constant_warp_size_fix(settings: Settings) -> str:
    """What to use for a warp size that must be a constant: warpSize up to ROCm 6.4, a per-target constant from
    7.0, where warpSize is no longer a constant expression."""
    if settings.rocm < ROCM_7:
        return "use warpSize"
    return (
        "from ROCm 7.0 warpSize is no longer a constant expression: define the constant per target, 64 for gfx9 and "
        "older (GCN, CDNA) and 32 for gfx10-gfx12 (RDNA, wave32 by default), or read warpSize at run time"
    )


@check(WARP_SIZE_CONSTANT, "wavefront.warp-size-not-constant", words=("warpSize",))
def warp_size_not_constant(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """warpSize (or a macro defined with it, object- or function-like) as an array bound, a template argument, in
    static_assert, alignas or __launch_bounds__, in a constexpr initialiser or `if constexpr`, as an enumerator or
    a case label, when the target is ROCm 7.0 or later; and in an `#if` at every target, where it is no macro."""
    if not uses_builtin_variable(view.tokens, frozenset({b"warpSize"})):
        return
    names = _macros_of(view, words)
    for i in view.occurrences(names):
        if view.text(prev_code(view.tokens, i)) == "define":
            continue
        through = "" if view.text(i) in words else " (defined with warpSize)"
        directive = _condition_directive(view, i)
        if directive is not None and (not through or not _tests_definition(view, i, directive)):
            yield (
                view.tokens.starts[i],
                f"{view.text(i)}{through} in `#{directive}`: warpSize is no macro, so the preprocessor reads it as 0 "
                "(test the target instead, e.g. `#if defined(__GFX9__)` for 64-wide wavefronts, or read warpSize "
                "at run time)",
            )
            continue
        where = _constant_context(view, i) if view.settings.rocm >= ROCM_7 else None
        if where is not None:
            yield (
                view.tokens.starts[i],
                f"{view.text(i)}{through} {where}, which must be a constant ({constant_warp_size_fix(view.settings)})",
            )


def _macros_of(view: FileView, words: frozenset[str]) -> set[str]:
    """words, and the macros whose body names one of them or such a macro: `#define WARPS_PER_BLOCK (1024 /
    warpSize)`, `#define WARPS(threads) ((threads) / warpSize)`."""
    tokens = view.tokens
    found, new = set(words), set(words)
    while new:
        defined = set()
        for i in view.occurrences(new):
            j = prev_code(tokens, i)
            while j >= 0 and not view.is_punct(j, ";", "{", "}") and view.text(j) != "define":
                j = prev_code(tokens, j)
            if view.text(j) == "define" and _same_line(view, j, i):
                defined.add(view.text(next_code(tokens, j)))
        new = defined - found
        found |= new
    return found


def _tests_definition(view: FileView, i: int, directive: str) -> bool:
    """The name at token i is only tested for being a macro: `#ifdef NAME`, `defined(NAME)`, `defined NAME`."""
    before = prev_code(view.tokens, i)
    before = prev_code(view.tokens, before) if view.is_punct(before, "(") else before
    return directive in ("ifdef", "ifndef") or view.text(before) == "defined"


def _condition_directive(view: FileView, i: int) -> str | None:
    """The directive (if, elif, ifdef, ifndef) whose condition holds token i, or None."""
    body, start = view.tokens.body, view.tokens.starts[i]
    line = body.rfind(b"\n", 0, start) + 1
    while line > 1 and body[line - 2 : line] == b"\\\n":  # a continued line: the directive starts above
        line = body.rfind(b"\n", 0, line - 2) + 1
    found = re.match(rb"[ \t]*#[ \t]*(if|elif|ifdef|ifndef)\b", body[line:start])
    return found.group(1).decode() if found else None


def _same_line(view: FileView, first: int, last: int) -> bool:
    """Tokens first..last are on one logical line (a directive continued by backslashes counts as one)."""
    between = view.tokens.body[view.tokens.starts[first] : view.tokens.starts[last]]
    return between.count(b"\n") == between.count(b"\\\n")


def _constant_context(view: FileView, i: int) -> str | None:
    """Where the expression holding token i needs a constant: 'as an array bound', 'as a template argument',
    ..., walking out from i to the start of its statement; None at run time."""
    tokens = view.tokens
    j = prev_code(tokens, i)
    while j >= 0:
        text = view.text(j)
        if view.is_punct(j, ")", "]"):
            j = matching_open(tokens, j) or 0
        elif view.is_punct(j, "(") and view.text(prev_code(tokens, j)) in _CONSTANT_CALLS:
            return _CONSTANT_CALLS[view.text(prev_code(tokens, j))]
        elif view.is_punct(j, "[") and _declares_array(view, j):
            return "as an array bound"
        elif view.is_punct(j, "<") and _template_arguments_around(view, j, i):
            return "as a template argument"
        elif text == "constexpr":
            return "in a constant expression (constexpr)"
        elif text == "case":
            return "as a case label"
        elif view.is_punct(j, "{") and _opens_enum(view, j):
            return "as an enumerator's value"
        elif view.is_punct(j, "{") and _brace_initialiser(view, j):
            pass  # `constexpr int k{warpSize}`: the declaration goes on before it
        elif view.is_punct(j, ";", "{", "}") or text == "define" or view.is_punct(j, ":") and _ends_label(view, j):
            return None
        j = prev_code(tokens, j)
    return None


def _opens_enum(view: FileView, brace: int) -> bool:
    """The `{` at brace opens an enumeration: `enum {`, `enum E {`, `enum class E : std::uint8_t {`."""
    j = prev_code(view.tokens, brace)
    for _ in range(8):  # the longest head: enum class E : unsigned long long
        if view.text(j) == "enum":
            return True
        if view.tokens.kinds[j] not in (TokenKind.IDENTIFIER, TokenKind.KEYWORD) and not view.is_punct(j, ":", "::"):
            return False
        j = prev_code(view.tokens, j)
    return False


def _brace_initialiser(view: FileView, brace: int) -> bool:
    """The `{` at brace opens a variable's initialiser (`T name{...}`), not a class, namespace or function body."""
    name = prev_code(view.tokens, brace)
    heads = ("struct", "class", "union", "namespace", "enum", "public", "private", "protected", ":")
    return view.tokens.kinds[name] == TokenKind.IDENTIFIER and _two_before(view, brace) not in heads


def _template_arguments_around(view: FileView, less: int, i: int) -> bool:
    """The `<` at less opens template arguments that hold token i (not a comparison: no `?:` between)."""
    close = template_close(view.tokens, less, len(view.tokens))
    if close is None or close <= i or any(view.is_punct(k, "?", ":") for k in range(less, close)):
        return False
    return not _comparisons_in_call(view, less, close)


def _comparisons_in_call(view: FileView, less: int, greater: int) -> bool:
    """`f(a < warpSize, b > c)`: a `<` and a `>` around a top-level comma, in a call's arguments in a function
    body, with an operand after the `>`, are two comparisons: a template-id followed by a name declares something,
    which a call argument cannot."""
    tokens = view.tokens
    after = next_code(tokens, greater)
    if tokens.kinds[after] not in (TokenKind.IDENTIFIER, TokenKind.LITERAL) or view.scope(less) == (0, len(tokens)):
        return False
    call = view.argument_at(tokens.starts[less])
    if call is None or tokens.kinds[prev_code(tokens, call[0])] != TokenKind.IDENTIFIER:
        return False
    depth = 0
    for k in range(less + 1, greater):
        depth += view.is_punct(k, "(", "[", "{", "<") - view.is_punct(k, ")", "]", "}", ">")
        if depth == 0 and view.is_punct(k, ","):
            return True
    return False


def _two_before(view: FileView, j: int) -> str:
    return view.text(prev_code(view.tokens, prev_code(view.tokens, j)))


def _ends_label(view: FileView, colon: int) -> bool:
    """The `:` at colon ends a `case ...:` or `default:` label (or an access specifier or a goto label)."""
    tokens = view.tokens
    j = colon
    while True:
        k = prev_code(tokens, j)
        if k < 0 or view.is_punct(k, ";", "{", "}") or view.is_punct(k, ":"):
            break
        j = k
    return view.text(j) in ("case", "default", "public", "private", "protected") or next_code(tokens, j) == colon


def _declares_array(view: FileView, bracket: int) -> bool:
    """The `[` at bracket opens a dimension of an array being declared (`__shared__ float s[8][...]`, a member,
    a parameter), not a subscript or a `new T[n]`."""
    tokens = view.tokens
    name = prev_code(tokens, bracket)
    while view.is_punct(name, "]"):  # the earlier dimensions of `s[8][...]`
        name = prev_code(tokens, matching_open(tokens, name) or 0)
    type_end = prev_code(tokens, name)
    if tokens.kinds[name] != TokenKind.IDENTIFIER or type_end < 0:
        return False
    while view.is_punct(type_end, "*", "&"):  # a declarator's `*`/`&` follow a type; `&p[i]` is an address
        type_end = prev_code(tokens, type_end)
    if type_end < 0 or not (
        tokens.kinds[type_end] in (TokenKind.IDENTIFIER, TokenKind.KEYWORD) or view.is_punct(type_end, ">")
    ):
        return False
    start = view.statement_start(name)
    if view.text(prev_code(tokens, start)) == "define":  # a macro's body: after `NAME` or `NAME(params)`
        start = next_code(tokens, start)
        params = matching_close(tokens, start) if view.is_punct(start, "(") else None
        start = start if params is None else params + 1
    before = range(start, name)
    return bool(before) and not any(
        view.text(k) in _NOT_DECLARATIONS or view.is_punct(k, "=", ".", "->", "(", "[", "?", ":") for k in before
    )


_LAUNCH_SIZES = ("block", "dynamic shared memory")  # the launch arguments after the grid that a warp size sizes
_DEVICE_WORDS = frozenset({"__global__", "__device__"})


@check(HOST_WARP_SIZE_CONSTANT, "wavefront.warp-size-host-launch", words=("define", "const", "constexpr"))
def warp_size_host_launch(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """`k<<<grid, 4 * WARP_SIZE, WARP_SIZE * sizeof(float)>>>` with WARP_SIZE defined as 32: the host sizes the
    launch from a constant warp size, which is right for one wavefront size only (64 on gfx9, 32 on RDNA); where
    device code uses the same constant, it is one constant for both sides, which no AMD GPU family decides."""
    names = view.warp_size_names
    if not names or b"<<<" not in view.tokens.body:
        return
    tokens = view.tokens
    device_use = next((k for k in view.occurrences(names) if _in_device_function(view, k)), None)
    for chevron in range(len(tokens)):
        if tokens.kinds[chevron] != TokenKind.PUNCTUATION or tokens.raw(chevron) != b"<<<":
            continue
        launch = parse_launch(tokens, chevron)
        for what, span in zip(_LAUNCH_SIZES, launch.config[1:3] if launch is not None else ()):
            used = next((k for k in range(*view.span_tokens(span)) if view.text(k) in names), None)
            if used is None:
                continue
            also = ""
            if device_use is not None:
                line = tokens.body.count(b"\n", 0, tokens.starts[device_use]) + 1
                also = (
                    f"; device code uses it too (line {line}), where a per-architecture constant is needed "
                    "(__AMDGCN_WAVEFRONT_SIZE__ on the device pass): one constant cannot serve both"
                )
            yield (
                tokens.starts[used],
                f"{view.text(used)} (32) sizes this launch's {what} on the host, but AMD GPUs run 64-lane wavefronts "
                "(gfx9: CDNA, GCN) or 32-lane ones (gfx10 and later: RDNA), and only the device knows which: read "
                "its size on the host (hipDeviceGetAttribute(&size, hipDeviceAttributeWarpSize, device)) and derive "
                f"the launch from it{also}",
            )


def _in_device_function(view: FileView, k: int) -> bool:
    """Token k is in the body of a __global__ or __device__ function (its declaration names one of them)."""
    first, _ = view.scope(k)
    if first == 0:
        return False
    j = prev_code(view.tokens, first)
    while j >= 0 and not view.is_punct(j, ";", "}") and view.text(j) != "define":
        if view.text(j) in _DEVICE_WORDS:
            return True
        j = prev_code(view.tokens, j)
    return False
