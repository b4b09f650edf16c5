"""HC001 for what looks like CUDA API but no inventory knows: an identifier with a CUDA prefix
(`cudaFooBar`, `cuFoo`, `CU_FOO`, `CUDA_FOO`, `cublasFoo`, `nvtxFoo`, ...) or a cache-hinted load or
store intrinsic (`__ldxx`, `__stxx`) that neither a rule nor the CUDA name list covers, and a CUDA name
made by token pasting in a macro (`cuda##name`). Names the file declares itself (a `#define`, a
macro parameter, a variable, parameter, function or type declared in it: `cudaStatus`, `CUDA_CHECK`)
are the user's, not API, and stay quiet; so do the names that the files it includes declare, named in
the run or not (`project_names`: `#define cudaCheckError(msg)` in a header, called in every .cu file)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence

from hipconv.diagnostics import NO_RULE
from hipconv.resources import cuda_releases
from hipconv.translate.directives import Directives, directive_lines
from hipconv.translate.found import Found
from hipconv.translate.identifiers import is_member_or_foreign
from hipconv.translate.lexer import TokenKind, Tokens, lex_many
from hipconv.translate.syntax import Span, is_punct, next_code, prev_code
from hipconv.translate.words import identifier_tokens, inside, token_occurrences

# the prefixes of NVIDIA's APIs, in the cases the APIs spell them: camel case after a lower-case prefix
# (cudaMalloc, cuMemAlloc, cublasSgemm, ncclAllReduce, nvtxRangePushA), `_` after an upper-case one
# (CU_DEVICE_ATTRIBUTE_..., CUDA_R_32F, CUBLAS_OP_N, NVTX_VERSION); the cache-hinted load/store intrinsics
_LOWER = ("cuda", "cu", "cublas", "cufft", "curand", "cusparse", "cusolver", "cudnn", "nccl", "nvrtc", "nvtx")
_UPPER = ("CU", "CUDA", "CUBLAS", "CUFFT", "CURAND", "CUSPARSE", "CUSOLVER", "CUDNN", "NCCL", "NVRTC", "NVTX")
CUDA_LOOKING = re.compile(
    rb"(?:%s)[A-Z0-9]\w*|(?:%s)_\w+|__(?:ld|st)[a-z]{1,3}"
    % (b"|".join(p.encode() for p in _LOWER), b"|".join(p.encode() for p in _UPPER))
)
# the left operand of `##` that makes a CUDA name (`cuda##name`, `CU_##x`): a prefix, or a CUDA-looking name
_PASTE_STEMS = frozenset({*_LOWER, *_UPPER, *(p + "_" for p in _UPPER), "__ld", "__st"})
_PASTE_WORDS = frozenset(p.encode() for p in _PASTE_STEMS)

# keywords after which a name is being declared (`int cudaDev`, `struct cudaX`, `auto cudaStatus = ...`)
_DECLARING_KEYWORDS = frozenset(
    b"auto bool char char16_t char32_t char8_t class const constexpr double enum extern float inline int long "
    b"mutable register short signed static struct thread_local typedef typename union unsigned void volatile "
    b"wchar_t".split()
)
# what follows a declared name: its initializer, the end of the declaration, its parameters or its bounds
_AFTER_DECLARATOR = ("=", ";", ",", ")", "(", "[", "{", ":")


# a word between line ends: the search skips from one line end to the next, where `^` under re.MULTILINE
# was tried at every byte (28% fewer instructions on the corpora's words)
_CUDA_LOOKING_LINE = re.compile(rb"\n(%s)(?=\n)" % CUDA_LOOKING.pattern)


def cuda_looking(words: Iterable[bytes]) -> frozenset[bytes]:
    """The words spelled like CUDA API (the prefilter's and the matcher's test): one search of the words
    a line each, not a match per word."""
    return frozenset(_CUDA_LOOKING_LINE.findall(b"\n" + b"\n".join(words) + b"\n"))


def pastes_cuda_name(body: bytes, words: frozenset[bytes]) -> bool:
    """True when the body may paste a CUDA name together (`cuda##name`): worth lexing."""
    return b"##" in body and not words.isdisjoint(_PASTE_WORDS | cuda_looking(words))


def match_unknown_api(
    c: Found,
    skip: list[Span],
    words: frozenset[bytes],
    directives: Directives,
    project: frozenset[str] = frozenset(),
) -> None:
    """Report (HC001) every CUDA-looking name outside `skip` that no rule and no inventory knows and
    neither the file nor the project (`project`: project_names of the files it includes) declares, and every
    `##` that pastes a CUDA name together."""
    tokens = c.tokens
    skip_starts = [s for s, _ in skip]
    releases = cuda_releases()
    known = f"CUDA {releases[0]}–{releases[-1]}" if releases else "CUDA"
    unknown = cuda_looking(words) - c.table.names
    found = [
        i
        for i in identifier_tokens(tokens, unknown)
        if not (skip and inside(skip, skip_starts, tokens.starts[i]))
        and not is_member_or_foreign(tokens, i, c.table)
        and tokens.text(i) not in project
    ]
    if found:
        declared = _declared(tokens, found, directives)
        for i in found:
            name = tokens.text(i)
            if name not in declared:
                message = f"{name} looks like CUDA API but is in no {known} inventory; left unchanged"
                c.diag(tokens.starts[i], NO_RULE, message, symbol=name)
    if b"##" in tokens.body:
        _pasted_names(c, known, skip, skip_starts)


def _pasted_names(c: Found, known: str, skip: list[Span], skip_starts: list[int]) -> None:
    tokens = c.tokens
    for i in token_occurrences(tokens, (b"##", b"%:%:"), (TokenKind.PUNCTUATION,)):
        left = prev_code(tokens, i)
        if left < 0 or tokens.kinds[left] not in (TokenKind.IDENTIFIER, TokenKind.KEYWORD):
            continue
        if skip and inside(skip, skip_starts, tokens.starts[left]):
            continue  # a paste whose uses are translated (matchers.pasted_names)
        stem = tokens.text(left)
        if stem in _PASTE_STEMS or CUDA_LOOKING.fullmatch(stem.encode()):
            message = (
                f"{stem}## pastes a CUDA API name together in a macro: the name it makes is translated nowhere "
                f"(hipconv renames {known} names where they are spelled out); left unchanged"
            )
            c.diag(tokens.starts[left], NO_RULE, message, symbol=f"{stem}##")


def project_names(bodies: Sequence[tuple[bytes, frozenset[bytes]]], known: frozenset[bytes]) -> list[frozenset[str]]:
    """For each body (with its file_words), the CUDA-looking names that no rule knows (`known`: the table's
    names) and it declares (declared_names: #defined, or in a declarator position): the project's own,
    quiet in every file that includes it (project.reached_names). One pass over the bytes keeps the few
    bodies where such a name follows a word, `*`, `&` or `>` on its line, or `#define`; only those are
    lexed, and their tokens decide."""
    candidates: list[tuple[int, bytes, frozenset[bytes]]] = []
    for n, (body, words) in enumerate(bodies):
        unknown = cuda_looking(words) - known
        if unknown and _may_declare(body, unknown):
            candidates.append((n, body, unknown))
    names = [frozenset[str]()] * len(bodies)
    for start in range(0, len(candidates), _LEX_BATCH):
        batch = candidates[start : start + _LEX_BATCH]
        for (n, _, unknown), tokens in zip(batch, lex_many([body for _, body, _ in batch])):
            found = identifier_tokens(tokens, unknown)
            names[n] = frozenset(declared_names(tokens, found, directive_lines(tokens)))
    return names


_LEX_BATCH = 64  # bodies lexed with one libclang call (pipeline.BATCH_FILES)


def _may_declare(body: bytes, unknown: frozenset[bytes]) -> bool:
    """One of the names after a word, `*`, `&` or `>` on its line (`void cudaCheck(`, `int *cudaBuf;`,
    `#define cudaCheckError(msg)`): where a declaration of it may be."""
    names = b"|".join(re.escape(w) for w in sorted(unknown))
    return re.search(rb"[\w*&>][ \t]*\b(?:%s)\b" % names, body) is not None


def declared_names(tokens: Tokens, found: Sequence[int], directives: Directives) -> set[str]:
    """The names among the tokens `found` that the file declares for all to use: #defined in it, or in a
    declarator position (after a type: `cudaError_t cudaStatus;`, `int cudaDev)`, `struct cudaX {`,
    `void cudaCheck(const char *msg)`)."""
    names = {tokens.text(i) for i in found}
    declared = names & directives.defined
    lines = _DirectiveLines(tokens, directives)
    for i in found:
        name = tokens.text(i)
        if name not in declared and _declarator(tokens, i, lines):
            declared.add(name)
    return declared


def _declared(tokens: Tokens, found: list[int], directives: Directives) -> set[str]:
    """The names among the tokens `found` that are the user's: declared in the file (declared_names), a
    macro's parameter, or an upper-case name called like a function-like macro (`CUDA_SAFE_CALL(...)`,
    defined in a header of the project: NVIDIA's function-like macros are all in the inventories, so an
    unknown one is not API)."""
    declared = declared_names(tokens, found, directives) | _macro_parameters(tokens, directives)
    for i in found:
        name = tokens.text(i)
        if name not in declared and name.isupper() and is_punct(tokens, next_code(tokens, i), "("):
            declared.add(name)
    return declared


def _declarator(tokens: Tokens, i: int, lines: _DirectiveLines) -> bool:
    after = next_code(tokens, i)
    if not is_punct(tokens, after, *_AFTER_DECLARATOR):
        return False
    before = prev_code(tokens, i)
    while is_punct(tokens, before, "*", "&", "&&"):  # `cudaStream_t *cudaStreams`
        before = prev_code(tokens, before)
    if before < 0 or before in lines.heads or not lines.same_line(before, i, after):
        return False  # `#endif` then `cudaFoo(x);`, `#define POP nvtxRangePop();`: no type before the name
    if tokens.kinds[before] == TokenKind.IDENTIFIER:
        return True  # two names in a row: a type, then the name it declares
    if tokens.kinds[before] == TokenKind.KEYWORD:
        return tokens.raw(before) in _DECLARING_KEYWORDS
    return is_punct(tokens, before, ">")  # `std::vector<int> cudaBuffers;`


class _DirectiveLines:
    """Which preprocessor line a token is on, and the words that head one (`ifdef`, `define` and the
    name it defines): a declaration lies wholly in code or wholly in one directive, after no head."""

    def __init__(self, tokens: Tokens, directives: Directives) -> None:
        self.tokens = tokens
        self.spans = directives.spans
        self.span_starts = [s for s, _ in directives.spans]
        self.heads = {name_i for _, name_i, _ in directives.lines}
        self.heads |= {next_code(tokens, name_i) for _, name_i, d in directives.lines if d == "define"}

    def same_line(self, *indices: int) -> bool:
        return len({self._line(i) for i in indices}) == 1

    def _line(self, i: int) -> int:
        if i >= len(self.tokens):
            return -1
        pos = self.tokens.starts[i]
        k = bisect.bisect_right(self.span_starts, pos) - 1
        return k if k >= 0 and pos < self.spans[k][1] else -1


def _macro_parameters(tokens: Tokens, directives: Directives) -> set[str]:
    """The parameters of the file's function-like macros (`#define CHECK(cudaCall) ...`)."""
    params: set[str] = set()
    for _, name_i, directive in directives.lines:
        if directive != "define":
            continue
        k = next_code(tokens, name_i)
        paren = k + 1
        if k >= len(tokens) or paren >= len(tokens) or tokens.starts[paren] != tokens.ends[k]:
            continue
        if not is_punct(tokens, paren, "("):
            continue
        j = next_code(tokens, paren)
        while j < len(tokens) and not is_punct(tokens, j, ")"):
            if tokens.kinds[j] == TokenKind.IDENTIFIER:
                params.add(tokens.text(j))
            j = next_code(tokens, j)
    return params
