"""CUDA overloads the targeted ROCm lacks while it declares the name for other types (HC033): the 16-bit
`atomicCAS(unsigned short *, unsigned short, unsigned short)`, `__hmax_nan`/`__hmin_nan` on __nv_bfloat16
(hipconv/data/cuda.overloads, derived from the inventories by tools/derive/overloads.py from the curated list).

A call of such a name keeps its name: hipconv_compat.h defines the missing overload under the CUDA name itself
(the shim's template), and C++ overloading picks it for those types while HIP's overloads serve the others.
The file includes the header (runtime_include writes the include) and the call is reported as a note. A call
whose first argument visibly has another type (`int *p` declared above for atomicCAS, a `__half` for
__hmax_nan: a plain name, `&name`, `name[i]`, or a C-style cast, of a fundamental type or the toolkit's own)
is HIP's and gets nothing; one whose type cannot be seen (a template parameter, a project's typedef, a call)
gets the overload, which is harmless where it is not picked.
`--no-compat` turns it off, as it does the other shims."""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass

from hipconv.diagnostics import OVERLOAD_SHIMMED
from hipconv.resources import data_file, expand_spans, hip_releases
from hipconv.results import COMPAT_HEADER
from hipconv.translate.context import FileContext
from hipconv.translate.found import NOTHING, Earlier, Found, MatchResult
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.syntax import Span, is_punct, matching_close, next_code, parse_call, prev_code
from hipconv.translate.words import EXPRESSION_KEYWORDS, WORDY_KINDS, identifier_tokens, inside, is_unqualified_call

OVERLOADS_FILE = "cuda.overloads"
# spellings of one type: CUDA's aliases of the 16-bit float types, and the fixed-width integer typedefs
_ALIASES = {"half": "__half", "nv_bfloat16": "__nv_bfloat16", "uint16_t": "unsigned short", "int16_t": "short"}
_QUALIFIERS = frozenset({"const", "volatile", "__restrict__", "__restrict", "restrict"})
_TAGS = frozenset({"struct", "enum", "union"})  # `struct cudaMemLocation` is cudaMemLocation in C++
# the template parameter of a C++ template overload (cuda_runtime.h's `template <class T> ... (T **pDevice, ...)`):
# any type; the definition is a template too, which overloading passes over where HIP's own function fits
TEMPLATE_PARAMETERS = frozenset({"T"})
_SPECIFIERS = frozenset({"static", "extern", "register", "__shared__", "__device__", "__constant__", "inline"})
_NOT_DECLARED = _SPECIFIERS | EXPRESSION_KEYWORDS  # words a declaration's type does not run past
# the words of a type that can be told apart here: C++'s fundamental types, and the toolkit's reserved ones
# (__half, __nv_bfloat16); a project's typedef or a template parameter may stand for any type
_FUNDAMENTAL = frozenset({"bool", "char", "signed", "unsigned", "short", "int", "long", "float", "double"})


def type_key(text: str, names: dict[str, str] | None = None) -> str:
    """A type for comparison: top-level const dropped, `short int`/`long int` as `short`/`long`, names
    respelled by `names` (a CUDA alias as its type), spaces normalized (`unsigned short *`)."""
    words = [w for w in text.replace("*", " * ").replace("&", " & ").split() if w not in _QUALIFIERS | _TAGS]
    out: list[str] = []
    for word in ((names or {}).get(w, w) for w in words):
        if word == "int" and out and out[-1] in ("short", "long"):
            continue
        out.append(word)
    return " ".join(out)


@dataclass(frozen=True)
class Overload:
    cuda: str  # atomicCAS
    shim: str  # hipconv_atomicCAS_u16: its template defines the overload
    params: tuple[str, ...]  # CUDA's parameter types
    lacking: tuple[str, ...]  # the ROCm releases that lack it
    hip: str = ""  # the name it is defined under: the CUDA name, or the HIP name the call is renamed to
    at: int = 0  # the parameter whose type tells it from HIP's overloads
    direct: str = ""  # a HIP function that takes these parameters as they are (matchers.direct_overloads)
    direct_in: tuple[str, ...] = ()  # the ROCm releases that declare it so

    @property
    def first(self) -> str:
        """The type the telling argument has (its pointee for a pointer): what tells the overload apart."""
        return type_key(self.params[self.at], _ALIASES).replace("*", "").strip()


@functools.cache
def overloads() -> tuple[Overload, ...]:
    """hipconv/data/cuda.overloads (empty when it is missing)."""
    path = data_file(OVERLOADS_FILE)
    if not path.is_file():
        return ()
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cuda, shim, params, spans, hip, at, *direct = line.split("\t")
        name, direct_spans = direct if direct else ("", "")
        releases = hip_releases()
        lacking, direct_in = expand_spans(spans, releases), expand_spans(direct_spans, releases) if name else ()
        out.append(Overload(cuda, shim, tuple(params.split(", ")), lacking, hip, int(at), name, direct_in))
    return tuple(out)


@functools.lru_cache(maxsize=4)
def _lacking(rocm: str) -> dict[bytes, list[Overload]]:
    """The overloads the release lacks, by the CUDA name's bytes (built once a run, not per file)."""
    by_name: dict[bytes, list[Overload]] = {}
    for o in overloads():
        if rocm in o.lacking:
            by_name.setdefault(o.cuda.encode(), []).append(o)
    return by_name


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    rocm = str(ctx.settings.rocm)
    by_name = _lacking(rocm)
    present = [name for name in by_name if name in ctx.words]  # a few names: not the file's words walked
    if not ctx.settings.compat or not present:
        return NOTHING
    found = Found(ctx, earlier)
    tokens = ctx.tokens
    skip = earlier.skip
    skip_starts = [a for a, _ in skip]
    uses = [i for i in identifier_tokens(tokens, frozenset(present)) if not inside(skip, skip_starts, tokens.starts[i])]
    own = {
        (tokens.text(i), first)
        for i in uses
        if not is_unqualified_call(tokens, i) and (first := _declared_first(tokens, i))
    }
    for i in uses:
        if not is_unqualified_call(tokens, i):
            continue
        call = parse_call(tokens, i)
        for o in by_name[tokens.text(i).encode()]:
            if call is None or not o.at < len(call.args) <= len(o.params):
                continue  # too few arguments to be this overload, or too many
            visible = visible_type(tokens, call.args[o.at])
            seen = visible if visible == o.first else _known(visible)
            if o.first in TEMPLATE_PARAMETERS:
                seen = o.first  # any type: the template definition is harmless where HIP's own fits
            if (seen is not None and seen != o.first) or (o.at == 0 and (o.cuda, o.first) in own):
                continue  # visibly another type (HIP's own overload), or the file declares this one itself
            found.shims.add(o.shim)
            unseen = "" if seen is not None else " (this call's argument type cannot be seen here)"
            keeps = (
                "the call keeps its name"
                if o.hip in ("", o.cuda)
                else f"the call becomes {o.hip}, whose own overloads serve the other types"
            )
            found.diag(
                tokens.starts[i],
                OVERLOAD_SHIMMED,
                f"{o.cuda}({', '.join(o.params)}) is not in ROCm {rocm}, which declares {o.hip or o.cuda} for other "
                f"types: {COMPAT_HEADER} adds that overload{unseen}; {keeps}"
                + (", and HIP's overloads serve the other types" if o.hip in ("", o.cuda) else ""),
                None,
                o.cuda,
            )
    return found.result()


def _declared_first(tokens: Tokens, i: int) -> str | None:
    """The first parameter's type (its pointee for a pointer) where token `i` names a function the file declares
    or defines itself (`__device__ __nv_bfloat16 __hmax_nan(__nv_bfloat16 a, ...)`: a project's own polyfill,
    which the compat header's definition would redefine), else None."""
    j = prev_code(tokens, i)
    if j < 0 or tokens.kinds[j] not in WORDY_KINDS or tokens.text(j) in EXPRESSION_KEYWORDS:
        return None
    params = parse_call(tokens, i)
    if params is None or not params.args:
        return None
    start, end = params.args[0]
    words = [
        tokens.text(k)
        for k in range(bisect.bisect_left(tokens.starts, start), bisect.bisect_left(tokens.starts, end))
        if tokens.kinds[k] in WORDY_KINDS or is_punct(tokens, k, "*")
    ]
    if len([w for w in words if w != "*" and w not in _QUALIFIERS]) > 1 and words[-1] != "*":
        words = words[:-1]  # the parameter's name
    return _known(type_key(" ".join(words), _ALIASES).replace("*", "").strip() or None)


def visible_type(tokens: Tokens, span: Span) -> str | None:
    """The type of an argument (its pointee for a pointer, its element for an array) where it can be seen: a
    C-style cast `(unsigned short *)p`, or a name (`p`, `&p`, `p[i]`, `p + i`) declared above; else None."""
    k = next_code(tokens, bisect.bisect_left(tokens.starts, span[0]) - 1)
    if is_punct(tokens, k, "&"):
        k = next_code(tokens, k)
    if k >= len(tokens) or tokens.starts[k] >= span[1]:
        return None
    if is_punct(tokens, k, "("):  # a cast: `(T *)x`
        close = matching_close(tokens, k)
        inner = [tokens.text(j) for j in range(k + 1, close or k) if tokens.kinds[j] != TokenKind.COMMENT]
        text = " ".join(inner).strip()
        if close is None or not inner or not all(_is_type_token(tokens, j) for j in range(k + 1, close)):
            return None
        return type_key(text, _ALIASES).replace("*", "").strip() or None
    if tokens.kinds[k] != TokenKind.IDENTIFIER:
        return None
    after = next_code(tokens, k)
    if after < len(tokens) and tokens.starts[after] < span[1] and not is_punct(tokens, after, "[", "+", "-"):
        return None  # a member, a call: not a plain name
    return _declared_type(tokens, k)


def _is_type_token(tokens: Tokens, j: int) -> bool:
    return tokens.kinds[j] in WORDY_KINDS or is_punct(tokens, j, "*") or tokens.kinds[j] == TokenKind.COMMENT


def _declared_type(tokens: Tokens, name: int) -> str | None:
    """The type of the nearest declaration of the name above token `name` (declarators, qualifiers and
    storage specifiers aside), or None when none can be read."""
    spelling = tokens.text(name)
    for k in reversed([j for j in identifier_tokens(tokens, frozenset({spelling.encode()})) if j < name]):
        if not is_punct(tokens, next_code(tokens, k), "=", ";", ",", ")", "[", "{"):
            continue
        j = prev_code(tokens, k)
        while j >= 0 and (tokens.text(j) in _QUALIFIERS or is_punct(tokens, j, "*", "&")):
            j = prev_code(tokens, j)
        words: list[str] = []
        while j >= 0 and tokens.kinds[j] in WORDY_KINDS and tokens.text(j) not in _NOT_DECLARED:
            if tokens.text(j) not in _QUALIFIERS:
                words.insert(0, tokens.text(j))
            j = prev_code(tokens, j)
        if not words or is_punct(tokens, j, ".", "->", "::"):
            continue
        return type_key(" ".join(words), _ALIASES)
    return None


def _known(type_text: str | None) -> str | None:
    """The type when it can be told apart here (fundamental or the toolkit's), else None."""
    if type_text is None or not all(w in _FUNDAMENTAL or w.startswith("__") for w in type_text.split()):
        return None
    return type_text
