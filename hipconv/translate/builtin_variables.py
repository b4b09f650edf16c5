"""CUDA's built-in variables (threadIdx, blockIdx, blockDim, gridDim, warpSize) used as such, as opposed to a
host program's own variable, parameter or member of the same name (`int blockDim = 64;`, `dim3 gridDim(4, 4);`,
`void f(int warpSize)`, `cfg.blockDim`): only a use makes a C++ source CUDA (cuda_constructs.cpp_compiled_as_cuda).

A name the file declares or assigns to anywhere is the program's own in the whole file (a built-in is never
declared and is read-only); a member access (`prop.warpSize`, `cfg->blockDim`, `Launch::gridDim`) is never
a built-in. Tokens only: a declaration in a header the file includes is not seen.
"""

from __future__ import annotations

from hipconv.translate.declarations import DECLARATION_ENDS, declared_at
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.syntax import is_punct, next_code, prev_code
from hipconv.translate.words import WORDY_KINDS, token_occurrences

BUILTIN_VARIABLES = frozenset({b"threadIdx", b"blockIdx", b"blockDim", b"gridDim", b"warpSize"})
_TYPE_KEYWORDS = frozenset(
    {
        *("auto", "bool", "char", "char8_t", "char16_t", "char32_t", "wchar_t", "double", "float", "int", "long"),
        *("short", "signed", "unsigned", "void", "class", "enum", "struct", "union", "typename", "extern"),
        *("register", "volatile", "mutable", "thread_local"),
    }
)
_DECLARATOR_PUNCT = ("*", "&", "&&", "::")  # `int *blockDim`, `const Dims& gridDim`, `std::size_t warpSize`
_NAME_ENDS = (*DECLARATION_ENDS, "(", "[", ":")  # `dim3 gridDim(4, 4);`, `int blockDim[3];`, `for (int x : v)`
_ASSIGNMENTS = ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "++", "--")
_MEMBER_ACCESS = (".", "->", "::")


def uses_builtin_variable(tokens: Tokens, words: frozenset[bytes]) -> bool:
    """True when the tokens read one of CUDA's built-in variables that the file does not declare itself."""
    for name in sorted(words & BUILTIN_VARIABLES):
        found = token_occurrences(tokens, (name,), WORDY_KINDS)
        if any(_own_variable(tokens, k) for k in found):
            continue
        if any(not is_punct(tokens, prev_code(tokens, k), *_MEMBER_ACCESS) for k in found):
            return True
    return False


def _own_variable(tokens: Tokens, k: int) -> bool:
    """The name at token k is declared there (after a type) or assigned to (`blockDim = 64;`, `++warpSize`)."""
    if is_punct(tokens, next_code(tokens, k), *_ASSIGNMENTS) or is_punct(tokens, prev_code(tokens, k), "++", "--"):
        return True
    found = declared_at(tokens, k, lambda j: _type_word(tokens, j), ends=_NAME_ENDS)
    return found is not None and tokens.kinds[found[0]] != TokenKind.PUNCTUATION  # a type, not `(*blockDim)`


def _type_word(tokens: Tokens, j: int) -> bool:
    kind = tokens.kinds[j]
    if kind == TokenKind.IDENTIFIER:
        return True
    if kind == TokenKind.KEYWORD:
        return tokens.text(j) in _TYPE_KEYWORDS
    return is_punct(tokens, j, *_DECLARATOR_PUNCT)
