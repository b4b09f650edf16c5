"""Texture references: `texture<T, dim, mode> name;` declarations and the fetches through them
(`tex1Dfetch(name, i)`, `tex2D(name, x, y)` ...). CUDA 12.0 removed them (cuda-11.8/
cuda_texture_types.h); HIP declares the same template and fetch functions, while every call that binds one
(hipBindTexture ...) is deprecated. The rule `cudart.texture` holds those facts per ROCm release: the
identifier matcher reports each declaration with it (HC004 where the release declares the template, HC006
where not), and the fetches through a reference declared in the file are reported here with the same rule.

Only `texture` followed by `<` and not qualified nor a member is CUDA's (as scan's HC313 has it): a variable
named texture is not. A fetch is any `tex...(name, ...)` call whose first argument is such a reference: the
texture-object forms (`tex1Dfetch<float>(obj, i)`) take an object, never a reference, and stay quiet."""

from __future__ import annotations

from hipconv.translate.found import Found
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.status import status_message
from hipconv.translate.syntax import is_punct, next_code, parse_call, prev_code, template_close
from hipconv.translate.words import identifier_tokens

TEXTURE = "texture"
WORDS = frozenset({TEXTURE.encode()})
_SPECIFIERS = frozenset({"static", "extern", "const", "volatile", "__device__"})


def template_use(tokens: Tokens, i: int) -> bool:
    """`texture<` at token i, not `ns::texture<`, `x.texture<` or `p->texture<`."""
    before = prev_code(tokens, i)
    if is_punct(tokens, before, ".", "->"):
        return False
    qualified = is_punct(tokens, before, "::") and tokens.text(prev_code(tokens, before)) not in ("", ",", "(")
    return not qualified and is_punct(tokens, next_code(tokens, i), "<")


def declared_references(tokens: Tokens) -> dict[str, int]:
    """The names `texture<...> a, b;` declares, with the index of their `texture` token."""
    names: dict[str, int] = {}
    for i in identifier_tokens(tokens, WORDS):
        if not template_use(tokens, i):
            continue
        close = template_close(tokens, next_code(tokens, i), len(tokens))
        j = next_code(tokens, close) if close is not None else len(tokens)
        while j < len(tokens):
            while j < len(tokens) and (is_punct(tokens, j, "&", "*") or tokens.text(j) in _SPECIFIERS):
                j = next_code(tokens, j)
            if j >= len(tokens) or tokens.kinds[j] != TokenKind.IDENTIFIER:
                break
            names[tokens.text(j)] = i
            j = next_code(tokens, j)
            if not is_punct(tokens, j, ","):
                break
            j = next_code(tokens, j)
    return names


def match_texture_fetches(c: Found, words: frozenset[bytes]) -> None:
    """Report each `tex...(ref, ...)` call whose first argument is a texture reference the file declares."""
    resolution = c.table.identifiers.get(TEXTURE)
    if not (WORDS & words) or resolution is None or resolution.rule is None:
        return
    tokens = c.tokens
    references = declared_references(tokens)
    if not references:
        return
    message = status_message(c, TEXTURE, resolution.rule, resolution.action)
    if message is None:
        return
    code, text = message
    for name in references:
        for k in identifier_tokens(tokens, frozenset({name.encode()})):
            paren = prev_code(tokens, k)
            callee = prev_code(tokens, paren) if is_punct(tokens, paren, "(") else -1
            if callee < 0 or not tokens.text(callee).startswith("tex") or tokens.kinds[callee] != TokenKind.IDENTIFIER:
                continue
            call = parse_call(tokens, callee)
            if call is None or not call.args or call.args[0] != (tokens.starts[k], tokens.ends[k]):
                continue
            fetch = tokens.text(callee)
            said = f"{fetch} reads the texture reference {name}; {text}"
            c.diag(tokens.starts[callee], code, said, resolution.rule, fetch)
