"""The adjustments HIP-CPU needs, made to the staging copy of a CPU build (never to the HIP tree the user
keeps): a dynamic shared array declared in a function (`extern __shared__ T name[];`) becomes
`HIP_DYNAMIC_SHARED(T, name)`, since HIP-CPU's `__shared__` is `thread_local` and an extern one has no
storage. Launches and warp intrinsics are the translator's work (the staging copy is translated for ROCm
5.2, the release whose HIP HIP-CPU implements, with hipLaunchKernelGGL launches).
"""

from __future__ import annotations

from hipconv.translate.lexer import TokenKind, Tokens, lex
from hipconv.translate.syntax import after_parens, code_indices

_FUNCTION_BRACE_AFTER = frozenset({")", "const", "noexcept", "override", "final", "mutable"})
_ATTRIBUTES = frozenset({"__align__", "alignas", "__attribute__", "__declspec"})


def _declaration(tokens: Tokens, code: list[int], k: int) -> tuple[int, bytes] | None:
    """For `extern __shared__ [attributes] TYPE [attributes] NAME [ ] ;` at code[k]: (the index of its `]`,
    the HIP_DYNAMIC_SHARED text); None for any other form."""
    words: list[bytes] = []
    j = k + 2
    while j < len(code) and tokens.raw(code[j]) != b";":
        text = tokens.raw(code[j])
        if text.decode() in _ATTRIBUTES and j + 1 < len(code) and tokens.raw(code[j + 1]) == b"(":
            j = after_parens(tokens, code, j + 1)
            continue
        words.append(text)
        j += 1
    if len(words) < 4 or words[-2:] != [b"[", b"]"] or tokens.kinds[code[j - 3]] != TokenKind.IDENTIFIER:
        return None
    name, type_words = words[-3], words[:-3]
    if b"," in type_words or b"[" in type_words:
        return None
    return code[j - 1], b"HIP_DYNAMIC_SHARED(" + b" ".join(type_words) + b", " + name + b")"


def dynamic_shared(body: bytes) -> bytes:
    """The body with each function-scope `extern __shared__ T name[];` as `HIP_DYNAMIC_SHARED(T, name);`
    (HIP-CPU's macro ends in `;`, so an empty statement follows). A file-scope one is left: the macro holds
    statements, and the link then fails on it."""
    if b"__shared__" not in body or b"extern" not in body:
        return body
    tokens = lex(body)
    code = code_indices(tokens)
    in_function: list[bool] = []
    edits: list[tuple[int, int, bytes]] = []
    for k, i in enumerate(code):
        text = tokens.raw(i)
        if text == b"{":
            before = tokens.raw(code[k - 1]).decode() if k else ""
            in_function.append(bool(in_function and in_function[-1]) or before in _FUNCTION_BRACE_AFTER)
        elif text == b"}" and in_function:
            in_function.pop()
        elif text == b"extern" and in_function and in_function[-1] and k + 1 < len(code):
            if tokens.raw(code[k + 1]) == b"__shared__":
                found = _declaration(tokens, code, k)
                if found is not None:
                    edits.append((tokens.starts[i], tokens.ends[found[0]], found[1]))
    for start, end, new in reversed(edits):
        body = body[:start] + new + body[end:]
    return body
