"""What one branch of an architecture test holds, for choosing the branch AMD compiles (matchers.version_macros).

Two facts decide it. A branch is NVIDIA-only when it holds inline assembly (nvcc compiles device `asm` as
PTX), a name of the NVIDIA-only APIs below, or a CUDA name whose rule says the targeted ROCm has no
counterpart (unsupported, removed, newer than the target): AMD devices cannot compile it. A branch is the
fallback of a feature HIP has when it defines a function whose name HIP declares for the targeted release
(`atomicAdd`, `__hmax_nan`, `__shfl_down`): written for the architectures that lacked it, it would be a
second definition of what HIP's headers declare on both passes.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from hipconv.resources import hip_names
from hipconv.rules.model import Action, LookupTable
from hipconv.settings import Version
from hipconv.translate.lexer import IDENTIFIER, KEYWORD, LITERAL, PUNCTUATION, Tokens
from hipconv.translate.syntax import Span, is_punct, matching_close, next_code, prev_code
from hipconv.translate.words import WORD_BYTES, WORDY_KINDS, file_words, token_occurrences

# names of NVIDIA-only APIs that no rule names (a namespace, compiler builtins), and what they are
NVIDIA_ONLY_NAMES = {
    "nvcuda": "the nvcuda::wmma tensor-core API (rocWMMA is a separate library)",
    "wmma": "the nvcuda::wmma tensor-core API (rocWMMA is a separate library)",
}
NVIDIA_ONLY_PREFIXES = {
    "__nvvm_": "an NVVM compiler builtin",
    "__pipeline_": "the cp.async pipeline primitives",
}
ASM = frozenset({"asm", "__asm__", "__asm"})
ASM_QUALIFIERS = frozenset({"volatile", "__volatile__", "inline", "goto"})
_NOT_PORTABLE = frozenset({Action.UNSUPPORTED, Action.REMOVED, Action.UNAVAILABLE})
_PTX_MNEMONIC = re.compile(r"[a-z][a-z0-9_]*\.[a-z0-9_]+")  # mma.sync, ld.global, cp.async, mov.u32
_AFTER_PARAMETERS = frozenset({"const", "noexcept", "override", "final", "volatile", "&", "&&"})


class Holds(NamedTuple):
    """What a branch holds that decides whether AMD compiles it."""

    nvidia_only: str = ""  # what AMD cannot compile there (`inline PTX (mma.sync.aligned)`); "": nothing
    nvidia_at: int = -1  # its offset
    provides: str = ""  # a function it defines that HIP declares for the target; "": none
    feature: str = ""  # a feature macro it defines whose uses hold NVIDIA-only code (facts.feature_macros)

    @property
    def portable(self) -> bool:
        return not self.nvidia_only and not self.provides


def branch_holds(tokens: Tokens, region: Span, table: LookupTable, rocm: Version) -> Holds:
    """What the code in the byte region (a branch, its nested directives included) holds."""
    code = tokens.body[region[0] : region[1]]
    words = file_words(code)
    suspects = _suspects(words, table)
    may_provide = _may_define_hip_name(code, words)
    if not suspects and not may_provide:
        return Holds()  # most branches: nothing that could make them NVIDIA-only or a fallback, found at C speed
    first, end = tokens.within(region)
    if not may_provide:  # the first NVIDIA-only construct is all there is to know
        return Holds(*_first_nvidia_only(tokens, suspects, (first, end), table))
    nvidia, at, provides, depth = "", -1, "", 0
    kinds = tokens.kinds
    for k in range(first, end):
        kind = kinds[k]
        if kind == PUNCTUATION:
            text = tokens.raw(k)
            depth += (text == b"{") - (text == b"}")
            continue
        if kind != IDENTIFIER and kind != KEYWORD:
            continue
        name = tokens.text(k)
        if not nvidia and name.encode() in suspects:
            nvidia = _nvidia_only(tokens, k, name, end, table)
            at = tokens.starts[k] if nvidia else -1
        if may_provide and not provides and depth == 0 and kind == IDENTIFIER and _hip_declares(name, rocm):
            provides = name if _defines(tokens, k, end) else ""
        if nvidia and (provides or not may_provide):
            break  # both facts known
    return Holds(nvidia, at, provides)


def nvidia_only(tokens: Tokens, region: Span, table: LookupTable) -> tuple[str, int]:
    """The first NVIDIA-only construct of the byte region and its offset (("", -1): none)."""
    words = file_words(tokens.body[region[0] : region[1]])
    return _first_nvidia_only(tokens, _suspects(words, table), tokens.within(region), table)


def _suspects(words: frozenset[bytes], table: LookupTable) -> frozenset[bytes]:
    """The words of a region that may make it NVIDIA-only: those _nvidia_only names, and the prefixed ones."""
    return (words & _nvidia_words(table)).union(w for w in words if w.startswith(_PREFIX_BYTES))


def _first_nvidia_only(
    tokens: Tokens, suspects: frozenset[bytes], within: tuple[int, int], table: LookupTable
) -> tuple[str, int]:
    """The first NVIDIA-only construct in tokens[first:end] (`within`), and its offset: only the tokens spelled as
    a suspect are read, found at C speed (("", -1): none)."""
    first, end = within
    for k in token_occurrences(tokens, suspects, WORDY_KINDS) if suspects else ():
        if first <= k < end:
            what = _nvidia_only(tokens, k, tokens.text(k), end, table)
            if what:
                return what, tokens.starts[k]
    return "", -1


def _nvidia_only(tokens: Tokens, k: int, name: str, end: int, table: LookupTable) -> str:
    if name in ASM:
        return _asm(tokens, k, end)
    said = nvidia_name(name)
    if said:
        return said
    found = table.identifiers.get(name)
    if found is not None and found.action in _NOT_PORTABLE:
        return f"`{name}`, which HIP lacks ({found.action.value} for this target)"
    return ""


def nvidia_name(name: str) -> str:
    """What the name is when it is one of the NVIDIA-only APIs no rule names ("": not one)."""
    if name in NVIDIA_ONLY_NAMES:
        return f"`{name}`, {NVIDIA_ONLY_NAMES[name]}"
    prefix = next((p for p in NVIDIA_ONLY_PREFIXES if name.startswith(p)), "")
    return f"`{name}`, {NVIDIA_ONLY_PREFIXES[prefix]}" if prefix else ""


def _asm(tokens: Tokens, k: int, end: int) -> str:
    """`asm [volatile] ("ptx" ...)`: inline PTX, named by its first instruction."""
    j = next_code(tokens, k)
    while j < end and tokens.text(j) in ASM_QUALIFIERS:
        j = next_code(tokens, j)
    if j >= end or not is_punct(tokens, j, "("):
        return ""
    literal = next_code(tokens, j)
    return ptx_named(tokens.text(literal) if literal < end and tokens.kinds[literal] == LITERAL else "")


def ptx_named(literal: str) -> str:
    """Inline assembly whose first string literal is `literal`, named by its first instruction."""
    mnemonic = _PTX_MNEMONIC.search(literal)
    return f"inline PTX ({mnemonic.group(0)})" if mnemonic else "inline PTX"


def _defines(tokens: Tokens, k: int, end: int) -> bool:
    """Whether the identifier at k names a function defined there: `name(...) {`, not a call or a member."""
    before = prev_code(tokens, k)
    if before >= 0 and is_punct(tokens, before, ".", "->", "::", "=", "(", ",", "return"):
        return False
    if before >= 0 and tokens.text(before) == "return":
        return False
    j = next_code(tokens, k)
    if j >= end or not is_punct(tokens, j, "("):
        return False
    close = matching_close(tokens, j)
    if close is None or close >= end:
        return False
    j = next_code(tokens, close)
    while j < end and tokens.text(j) in _AFTER_PARAMETERS:
        j = next_code(tokens, j)
    return j < end and is_punct(tokens, j, "{")


_PREFIX_BYTES = tuple(p.encode() for p in NVIDIA_ONLY_PREFIXES)
_NVIDIA_WORDS: dict[int, tuple[LookupTable, frozenset[bytes]]] = {}


def _nvidia_words(table: LookupTable) -> frozenset[bytes]:
    """The words without which code holds nothing _nvidia_only names (but for NVIDIA_ONLY_PREFIXES): inline
    assembly, the NVIDIA-only names, and the names the rules say the target lacks."""
    kept = _NVIDIA_WORDS.get(id(table))
    if kept is not None and kept[0] is table:
        return kept[1]
    lacking = (name for name, found in table.identifiers.items() if found.action in _NOT_PORTABLE)
    words = frozenset(w.encode() for w in (*ASM, *NVIDIA_ONLY_NAMES, *lacking))
    _NVIDIA_WORDS.clear()
    _NVIDIA_WORDS[id(table)] = (table, words)
    return words


def _may_define_hip_name(code: bytes, words: frozenset[bytes]) -> bool:
    """Whether the code may define a function of a name HIP declares (`name(...) {`, `name(...) const {`):
    a superset of _defines, searched for by name (a branch uses a few dozen HIP names), each place the name
    is written tried with one pattern for what follows it."""
    for name in words & _hip_name_bytes():
        at = code.find(name)
        while at >= 0:
            if (at == 0 or code[at - 1] not in WORD_BYTES) and _DEFINITION_TAIL.match(code, at + len(name)):
                return True
            at = code.find(name, at + 1)
    return False


@functools.cache
def _hip_name_bytes() -> frozenset[bytes]:
    return frozenset(name.encode() for name in hip_names())


_DEFINITION_TAIL = re.compile(rb"\s*\([^;{}]*\)[^;{}()]*\{")  # after a name: its parameters, then a body


def _hip_declares(name: str, rocm: Version) -> bool:
    presence = hip_names().get(name)
    return presence is not None and ".".join(str(p) for p in (rocm.parts + (0,))[:2]) in presence.releases
