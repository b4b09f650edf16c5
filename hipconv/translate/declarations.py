"""The declared type of a variable or parameter, read from the nearest declaration of its name above in the
file (`const cudaDataType_t t = ...;`, `void f(unsigned mask)`): what a rewrite needs to know about an
argument given by name. Tokens only: a declaration in another file, a member (`l.type`) or one whose type
is spelled otherwise (a template, a macro) is not seen."""

from __future__ import annotations

from collections.abc import Callable

from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.syntax import is_punct, next_code, prev_code
from hipconv.translate.words import identifier_tokens

# words that may stand among a declaration's type words without being part of the type
QUALIFIERS = frozenset({"const", "constexpr", "static", "__device__", "__constant__", "__host__", "inline"})


DECLARATION_ENDS = ("=", ";", ",", ")", "{")  # what may follow a declared variable's or parameter's name


def declaration_type(tokens: Tokens, name_token: int, type_word: Callable[[int], bool]) -> tuple[int, int] | None:
    """The first and last type-word tokens of the nearest declaration of the name at name_token above it
    (declared_at). None when there is none."""
    name = tokens.text(name_token)
    for k in reversed([j for j in identifier_tokens(tokens, frozenset({name.encode()})) if j < name_token]):
        found = declared_at(tokens, k, type_word)
        if found is not None:
            return found
    return None


def declared_at(
    tokens: Tokens, k: int, type_word: Callable[[int], bool], *, ends: tuple[str, ...] = DECLARATION_ENDS
) -> tuple[int, int] | None:
    """The first and last type-word tokens when the name at token k is declared there: the name after a run of
    type words (`type_word`) and qualifiers that starts a statement, a block or a parameter, and before one of
    `ends`. None when it is not."""
    if not is_punct(tokens, next_code(tokens, k), *ends):
        return None
    words, j = [], prev_code(tokens, k)
    while j >= 0 and (type_word(j) or tokens.text(j) in QUALIFIERS):
        words.append(j)
        j = prev_code(tokens, j)
    type_words = [w for w in words if tokens.text(w) not in QUALIFIERS]
    if type_words and (j < 0 or is_punct(tokens, j, ";", "{", "}", "(", ",")):
        return min(type_words), max(type_words)
    return None


def declared_type_name(tokens: Tokens, name_token: int) -> str | None:
    """The type of the variable or parameter named at name_token when its nearest declaration above spells it
    as one identifier (`cudaDataType_t`, `cublasComputeType_t`); None otherwise."""
    found = declaration_type(tokens, name_token, lambda j: tokens.kinds[j] == TokenKind.IDENTIFIER)
    if found is None or found[0] != found[1]:
        return None
    return tokens.text(found[0])
