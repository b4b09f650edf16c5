"""ROCm 7's warpSize (HC307): up to ROCm 6.4 HIP declared `static constexpr int warpSize =
__AMDGCN_WAVEFRONT_SIZE;` (hip/amd_detail/amd_warp_functions.h), and HIP code used it where C++ needs a
constant; from ROCm 7.0 it is a run-time value (one binary can hold wave32 and wave64 code), so such code no
longer compiles. CUDA's warpSize never was a constant, so a CUDA tree has these uses only in HIP branches, but a
HIP tree kept after a port is where they gather."""

from __future__ import annotations

from collections.abc import Iterator

from hipconv.scan.registry import Finding, check
from hipconv.scan.view import FileView
from hipconv.settings import Settings, Version
from hipconv.translate.builtin_variables import uses_builtin_variable
from hipconv.translate.lexer import TokenKind
from hipconv.translate.syntax import matching_open, next_code, prev_code, template_close

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


@check("HC307", "wavefront.warp-size-not-constant", words=("warpSize",))
def warp_size_not_constant(view: FileView, words: frozenset[str]) -> Iterator[Finding]:
    """warpSize (or a macro defined with it) as an array bound, a template argument, in static_assert,
    alignas or __launch_bounds__, in a constexpr initialiser or `if constexpr`, as an enumerator or a case
    label, when the target is ROCm 7.0 or later."""
    if view.settings.rocm < ROCM_7 or not uses_builtin_variable(view.tokens, frozenset({b"warpSize"})):
        return
    names = set(words) | _macros_of(view, words)
    for i in view.occurrences(names):
        if view.text(prev_code(view.tokens, i)) == "define":
            continue
        where = _constant_context(view, i)
        if where is not None:
            through = "" if view.text(i) in words else " (defined with warpSize)"
            yield (
                view.tokens.starts[i],
                f"{view.text(i)}{through} {where}, which must be a constant ({constant_warp_size_fix(view.settings)})",
            )


def _macros_of(view: FileView, words: frozenset[str]) -> set[str]:
    """Object-like macros whose body names warpSize: `#define WARPS_PER_BLOCK (1024 / warpSize)`."""
    tokens = view.tokens
    found = set()
    for i in view.occurrences(words):
        j = prev_code(tokens, i)
        while j >= 0 and not view.is_punct(j, ";", "{", "}") and view.text(j) != "define":
            j = prev_code(tokens, j)
        if view.text(j) == "define" and _same_line(view, j, i):
            name = next_code(tokens, j)
            after = next_code(tokens, name)
            if not view.is_punct(after, "(") or tokens.starts[after] != tokens.ends[name]:  # not `NAME(args)`
                found.add(view.text(name))
    return found


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
        elif view.is_punct(j, "{") and "enum" in (view.text(prev_code(tokens, j)), _two_before(view, j)):
            return "as an enumerator's value"
        elif view.is_punct(j, "{") and _brace_initialiser(view, j):
            pass  # `constexpr int k{warpSize}`: the declaration goes on before it
        elif view.is_punct(j, ";", "{", "}") or text == "define" or view.is_punct(j, ":") and _ends_label(view, j):
            return None
        j = prev_code(tokens, j)
    return None


def _brace_initialiser(view: FileView, brace: int) -> bool:
    """The `{` at brace opens a variable's initialiser (`T name{...}`), not a class, namespace or function body."""
    name = prev_code(view.tokens, brace)
    heads = ("struct", "class", "union", "namespace", "enum", "public", "private", "protected", ":")
    return view.tokens.kinds[name] == TokenKind.IDENTIFIER and _two_before(view, brace) not in heads


def _template_arguments_around(view: FileView, less: int, i: int) -> bool:
    """The `<` at less opens template arguments that hold token i (not a comparison: no `?:` between)."""
    close = template_close(view.tokens, less, len(view.tokens))
    return close is not None and close > i and not any(view.is_punct(k, "?", ":") for k in range(less, close))


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
    if not (
        tokens.kinds[type_end] in (TokenKind.IDENTIFIER, TokenKind.KEYWORD) or view.is_punct(type_end, "*", "&", ">")
    ):
        return False
    start = view.statement_start(name)
    before = range(start, name)
    return bool(before) and not any(
        view.text(k) in _NOT_DECLARATIONS or view.is_punct(k, "=", ".", "->", "(", "[", "?", ":") for k in before
    )
