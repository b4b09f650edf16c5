"""HIP's built-in `warpSize` where C++ needs a constant, or in a preprocessor condition: the facts behind scan's
HC307 and translate's HC038 (one detector for both).

Up to ROCm 6.4 HIP declared `static constexpr int warpSize = __AMDGCN_WAVEFRONT_SIZE;`
(hip/amd_detail/amd_warp_functions.h), and HIP code used it where C++ needs a constant; from ROCm 7.0 it is a
run-time value (one binary can hold wave32 and wave64 code), so such code no longer compiles. CUDA's warpSize
never was a constant, so a CUDA tree has these uses only in its own HIP branches. A use through a macro defined
with warpSize (object- or function-like, `#define WARPS (1024 / warpSize)`) counts where the macro is used.
In an `#if`, warpSize is no macro at any release: the preprocessor reads it as 0."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from hipconv.settings import Version
from hipconv.translate.builtin_variables import uses_builtin_variable
from hipconv.translate.lexer import PUNCTUATION, TokenKind, Tokens
from hipconv.translate.statements import statement_start
from hipconv.translate.syntax import is_punct, matching_close, matching_open, next_code, prev_code, template_close
from hipconv.translate.words import token_occurrences

BUILTIN = "warpSize"  # HIP's own: a run-time value from ROCm 7.0 (scan's HC307), never a project constant
_BUILTIN = BUILTIN.encode()
ROCM_7 = Version.parse("7.0")  # the first ROCm whose warpSize is not a constant expression
_CONSTANT_CALLS = {  # a call-like keyword whose arguments must be constant expressions -> how the message says it
    "static_assert": "in a static_assert",
    "alignas": "in alignas",
    "__launch_bounds__": "in __launch_bounds__",
}
_NOT_DECLARATIONS = frozenset({"return", "new", "delete", "throw", "sizeof", "case", "goto", "co_return"})
_WORDS_THAT_END = {  # a word that decides the walk of constant_context: why a constant is needed (None: it is not)
    "constexpr": "in a constant expression (constexpr)",
    "case": "as a case label",
    "define": None,  # a macro's body: its uses decide
}
_CONDITION = re.compile(rb"[ \t]*#[ \t]*(if|elif|ifdef|ifndef)\b")


class WarpSizeConstantUse(NamedTuple):
    token: int  # warpSize, or a macro defined with it
    through: bool  # the token is such a macro, not warpSize itself
    directive: str | None  # 'if', 'elif', 'ifdef', 'ifndef': the use is in that directive's condition
    where: str | None  # why C++ needs a constant there ('as an array bound'); None at run time or in a directive


def warp_size_constant_uses(tokens: Tokens, words: frozenset[bytes]) -> Iterator[WarpSizeConstantUse]:
    """Each use of warpSize (and of the macros defined with it) that is in a preprocessor condition (not a mere
    `defined(NAME)` test of a macro) or where C++ needs a constant, in order; none when the file declares its own
    warpSize."""
    if _BUILTIN not in words or not uses_builtin_variable(tokens, frozenset({_BUILTIN})):
        return
    for i in _occurrences(tokens, _macros_of(tokens)):
        if _text(tokens, prev_code(tokens, i)) == "define":
            continue
        through = tokens.raw(i) != _BUILTIN
        directive = _condition_directive(tokens, i)
        if directive is not None:
            if not through or not _tests_definition(tokens, i, directive):
                yield WarpSizeConstantUse(i, through, directive, None)
            continue
        where = constant_context(tokens, i)
        if where is not None:
            yield WarpSizeConstantUse(i, through, None, where)


def _occurrences(tokens: Tokens, names: set[bytes]) -> list[int]:
    """The non-member identifiers spelled as one of names, in order."""
    found = token_occurrences(tokens, names, (TokenKind.IDENTIFIER,))
    return [i for i in found if not is_punct(tokens, prev_code(tokens, i), ".", "->")]


def _macros_of(tokens: Tokens) -> set[bytes]:
    """warpSize, and the macros whose body names it or such a macro: `#define WARPS_PER_BLOCK (1024 / warpSize)`,
    `#define WARPS(threads) ((threads) / warpSize)`."""
    found, new = {_BUILTIN}, {_BUILTIN}
    while new:
        defined = set()
        for i in _occurrences(tokens, new):
            j = prev_code(tokens, i)
            while j >= 0 and not is_punct(tokens, j, ";", "{", "}") and _text(tokens, j) != "define":
                j = prev_code(tokens, j)
            if j >= 0 and _text(tokens, j) == "define" and _same_line(tokens, j, i):
                defined.add(tokens.raw(next_code(tokens, j)))
        new = defined - found
        found |= new
    return found


def _tests_definition(tokens: Tokens, i: int, directive: str) -> bool:
    """The name at token i is only tested for being a macro: `#ifdef NAME`, `defined(NAME)`, `defined NAME`."""
    before = prev_code(tokens, i)
    before = prev_code(tokens, before) if is_punct(tokens, before, "(") else before
    return directive in ("ifdef", "ifndef") or _text(tokens, before) == "defined"


def _condition_directive(tokens: Tokens, i: int) -> str | None:
    """The directive (if, elif, ifdef, ifndef) whose condition holds token i, or None."""
    body, start = tokens.body, tokens.starts[i]
    line = body.rfind(b"\n", 0, start) + 1
    while line > 1 and body[line - 2 : line] == b"\\\n":  # a continued line: the directive starts above
        line = body.rfind(b"\n", 0, line - 2) + 1
    found = _CONDITION.match(body[line:start])
    return found.group(1).decode() if found else None


def _same_line(tokens: Tokens, first: int, last: int) -> bool:
    """Tokens first..last are on one logical line (a directive continued by backslashes counts as one)."""
    between = tokens.body[tokens.starts[first] : tokens.starts[last]]
    return between.count(b"\n") == between.count(b"\\\n")


def constant_context(tokens: Tokens, i: int) -> str | None:
    """Where the expression holding token i needs a constant: 'as an array bound', 'as a template argument',
    ..., walking out from i to the start of its statement; None at run time. Asked of warpSize here and of a
    project's own warp-size constant by facts.warp_size (one detector for both)."""
    j = prev_code(tokens, i)
    kinds = tokens.kinds
    while j >= 0:
        if kinds[j] != PUNCTUATION:  # each punctuator's spelling read once: this walk runs per use
            text = tokens.text(j)
            if text in _WORDS_THAT_END:
                return _WORDS_THAT_END[text]
        else:
            punct = tokens.raw(j)
            if punct in (b")", b"]"):
                j = matching_open(tokens, j) or 0
            elif punct == b"(" and _text(tokens, prev_code(tokens, j)) in _CONSTANT_CALLS:
                return _CONSTANT_CALLS[_text(tokens, prev_code(tokens, j))]
            elif punct == b"[" and _declares_array(tokens, j):
                return "as an array bound"
            elif punct == b"<" and _template_arguments_around(tokens, j, i):
                return "as a template argument"
            elif punct == b"{" and _opens_enum(tokens, j):
                return "as an enumerator's value"
            elif punct == b"{" and _brace_initialiser(tokens, j):
                pass  # `constexpr int k{warpSize}`: the declaration goes on before it
            elif punct in (b";", b"{", b"}") or punct == b":" and _ends_label(tokens, j):
                return None
        j = prev_code(tokens, j)
    return None


def _opens_enum(tokens: Tokens, brace: int) -> bool:
    """The `{` at brace opens an enumeration: `enum {`, `enum E {`, `enum class E : std::uint8_t {`."""
    j = prev_code(tokens, brace)
    for _ in range(8):  # the longest head: enum class E : unsigned long long
        if _text(tokens, j) == "enum":
            return True
        if tokens.kinds[j] not in (TokenKind.IDENTIFIER, TokenKind.KEYWORD) and not is_punct(tokens, j, ":", "::"):
            return False
        j = prev_code(tokens, j)
    return False


def _brace_initialiser(tokens: Tokens, brace: int) -> bool:
    """The `{` at brace opens a variable's initialiser (`T name{...}`), not a class, namespace or function body."""
    name = prev_code(tokens, brace)
    heads = ("struct", "class", "union", "namespace", "enum", "public", "private", "protected", ":")
    return tokens.kinds[name] == TokenKind.IDENTIFIER and _text(tokens, prev_code(tokens, name)) not in heads


def _template_arguments_around(tokens: Tokens, less: int, i: int) -> bool:
    """The `<` at less opens template arguments that hold token i (not a comparison: no `?:` between)."""
    close = template_close(tokens, less, len(tokens))
    if close is None or close <= i or any(is_punct(tokens, k, "?", ":") for k in range(less, close)):
        return False
    return not _comparisons_in_call(tokens, less, close)


def _comparisons_in_call(tokens: Tokens, less: int, greater: int) -> bool:
    """`f(a < warpSize, b > c)`: a `<` and a `>` around a top-level comma, in a call's arguments in a function
    body, with an operand after the `>`, are two comparisons: a template-id followed by a name declares something,
    which a call argument cannot."""
    after = next_code(tokens, greater)
    if tokens.kinds[after] not in (TokenKind.IDENTIFIER, TokenKind.LITERAL) or not _in_function_body(tokens, less):
        return False
    call = _call_open(tokens, less)
    if call is None or tokens.kinds[prev_code(tokens, call)] != TokenKind.IDENTIFIER:
        return False
    depth = 0
    for k in range(less + 1, greater):
        depth += is_punct(tokens, k, "(", "[", "{", "<") - is_punct(tokens, k, ")", "]", "}", ">")
        if depth == 0 and is_punct(tokens, k, ","):
            return True
    return False


def _in_function_body(tokens: Tokens, i: int) -> bool:
    """Token i is in a block that follows `)`: a function's body (or a statement's block inside one)."""
    return any(is_punct(tokens, prev_code(tokens, brace), ")") for brace in tokens.enclosing_braces(i))


def _call_open(tokens: Tokens, i: int) -> int | None:
    """The `(` of the innermost call (or parenthesis) around token i within its statement, or None."""
    j = i
    while True:
        j = prev_code(tokens, j)
        if j < 0 or is_punct(tokens, j, ";", "{", "["):
            return None
        if is_punct(tokens, j, "("):
            return j
        if is_punct(tokens, j, ")", "]", "}"):
            opener = matching_open(tokens, j)
            if opener is None:
                return None
            j = opener


def _text(tokens: Tokens, i: int) -> str:
    return tokens.text(i) if 0 <= i < len(tokens) else ""


def _ends_label(tokens: Tokens, colon: int) -> bool:
    """The `:` at colon ends a `case ...:` or `default:` label (or an access specifier or a goto label)."""
    j = colon
    while True:
        k = prev_code(tokens, j)
        if k < 0 or is_punct(tokens, k, ";", "{", "}") or is_punct(tokens, k, ":"):
            break
        j = k
    return _text(tokens, j) in ("case", "default", "public", "private", "protected") or next_code(tokens, j) == colon


def _declares_array(tokens: Tokens, bracket: int) -> bool:
    """The `[` at bracket opens a dimension of an array being declared (`__shared__ float s[8][...]`, a member,
    a parameter), not a subscript or a `new T[n]`."""
    name = prev_code(tokens, bracket)
    while is_punct(tokens, name, "]"):  # the earlier dimensions of `s[8][...]`
        name = prev_code(tokens, matching_open(tokens, name) or 0)
    type_end = prev_code(tokens, name)
    if tokens.kinds[name] != TokenKind.IDENTIFIER or type_end < 0:
        return False
    while is_punct(tokens, type_end, "*", "&"):  # a declarator's `*`/`&` follow a type; `&p[i]` is an address
        type_end = prev_code(tokens, type_end)
    if type_end < 0 or not (
        tokens.kinds[type_end] in (TokenKind.IDENTIFIER, TokenKind.KEYWORD) or is_punct(tokens, type_end, ">")
    ):
        return False
    start = statement_start(tokens, name, innermost=True)
    if _text(tokens, prev_code(tokens, start)) == "define":  # a macro's body: after `NAME` or `NAME(params)`
        start = next_code(tokens, start)
        params = matching_close(tokens, start) if is_punct(tokens, start, "(") else None
        start = start if params is None else params + 1
    before = range(start, name)
    return bool(before) and not any(
        _text(tokens, k) in _NOT_DECLARATIONS or is_punct(tokens, k, "=", ".", "->", "(", "[", "?", ":") for k in before
    )
