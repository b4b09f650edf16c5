"""CUDA version and architecture macros tested by value (`#if __CUDA_ARCH__ >= 700`, `#if CUDART_VERSION <
9000`): HIP defines none of them, so as written every such test reads them as 0 and quietly selects the
other branch.

Each #if/#elif that tests one is evaluated (pp_expr) as nvcc would on its host pass and on the device pass
of a current NVIDIA GPU (newer than every architecture a test names), with the version macros of the CUDA
release the code was written for (the newest bundled inventory's), and rewritten to the condition that
selects those branches under HIP: `defined(__HIP_DEVICE_COMPILE__)` for the device pass, the original kept
in a comment (HC020). A test that cannot be read so (`== 800`, the number computed with) is left as it is
and reported with the branch HIP now compiles (HC021); so is a comparison in C++ code. A kernel whose whole
body is in a branch that is not compiled for AMD devices is an error (HC022).
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

from hipconv.resources import cuda_releases
from hipconv.settings import Version
from hipconv.translate.collector import MatchCollector
from hipconv.translate.edits import Edit
from hipconv.translate.includes import Directives
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.pp_expr import (
    Known,
    Newest,
    PPToken,
    Undecidable,
    Value,
    by_pass,
    condition_text,
    evaluate,
    mentions,
    parse,
)
from hipconv.translate.syntax import Span, is_punct, matching_close, next_code, prev_code
from hipconv.translate.words import token_occurrences

RULE_ID = "nvcc.version-test"
_COMPARISONS = ("<", ">", "<=", ">=", "==", "!=")
_LOOSER = ("(", ")", "&&", "||", "?", ":", ",", ";", "=", "{", "}")
ARCH = "__CUDA_ARCH__"
DEVICE_TEST = "defined(__HIP_DEVICE_COMPILE__)"
_VERSIONS = ("CUDART_VERSION", "CUDA_VERSION", "__CUDART_API_VERSION", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__")
MACROS = frozenset((ARCH, *_VERSIONS))
WORDS = frozenset(m.encode() for m in MACROS)
_CODE = (TokenKind.WHITESPACE, TokenKind.COMMENT)
_CONDITIONALS = ("if", "elif")
_OPENERS = ("if", "ifdef", "ifndef")
_ALTERNATIVES = ("elif", "elifdef", "elifndef", "else")


class Worlds(NamedTuple):
    host: Known  # nvcc's host pass
    device: Known  # nvcc's device pass for a current NVIDIA GPU
    hip: Known  # HIP, either pass: none of them defined
    release: str  # the CUDA release of the version macros


def worlds(release: str) -> Worlds:
    """The values of the macros for CUDA `release` (CUDART_VERSION = major * 1000 + minor * 10)."""
    parts = Version.parse(release).parts + (0,)
    number = parts[0] * 1000 + parts[1] * 10
    versions: dict[str, int | Newest | None] = dict.fromkeys(("CUDART_VERSION", "CUDA_VERSION"), number)
    versions |= {"__CUDART_API_VERSION": number, "__CUDACC_VER_MAJOR__": parts[0], "__CUDACC_VER_MINOR__": parts[1]}
    return Worlds(
        versions | {ARCH: None},
        versions | {ARCH: Newest.ARCH},
        dict.fromkeys(MACROS),
        release,
    )


class Branch(NamedTuple):
    region: Span  # from the end of its directive line to the next directive of its chain
    line: int  # the offset of its directive
    live: bool | None  # compiled for AMD devices after translation (None: not known)


def match_version_macros(c: MatchCollector, directives: Directives, words: frozenset[bytes]) -> list[Span]:
    """Rewrite or report the version and architecture tests; the directive lines done (for others to skip)."""
    if words.isdisjoint(WORDS):
        return []
    releases = cuda_releases()
    w = worlds(releases[-1] if releases else "13.0")
    done: list[Span] = []
    branches: list[Branch] = []
    stack: list[tuple[int, bool | None]] = []  # per open chain: its current branch, whether one was taken
    span_starts = [a for a, _ in directives.spans]
    for hash_i, name_i, name in directives.lines:
        if name not in _OPENERS + _ALTERNATIVES + ("endif",):
            continue
        span = directives.spans[bisect.bisect_right(span_starts, c.tokens.starts[hash_i]) - 1]
        test = _device_test(c, w, name, name_i, span, done) if name != "endif" else None
        if name not in _OPENERS and stack:  # the chain's current branch ends here
            current, taken = stack.pop()
            branches[current] = branches[current]._replace(region=(branches[current].region[0], span[0]))
        elif name in _OPENERS:
            taken = False
        else:
            continue
        if name != "endif":
            live = False if taken else (test if taken is False else (None if test is not False else False))
            stack.append(
                (len(branches), True if (taken or test) else (None if taken is None or test is None else False))
            )
            branches.append(Branch((span[1], span[1]), span[0], live))
    _dead_kernels(c, [b for b in branches if b.live is False])
    _code_uses(c, w, done)
    return done


def _device_test(c: MatchCollector, w: Worlds, name: str, name_i: int, span: Span, done: list[Span]) -> bool | None:
    """Rewrite or report one conditional directive; whether it holds on the AMD device pass after translation."""
    tokens = c.tokens
    if name == "else":
        return True
    first = next_code(tokens, name_i)
    if name in ("ifdef", "ifndef", "elifdef", "elifndef"):
        if first < len(tokens) and tokens.text(first) == ARCH:  # renamed to __HIP_DEVICE_COMPILE__ (rules)
            return name.endswith("ifdef")
        return None
    if name not in _CONDITIONALS:
        return None
    code = [k for k in range(first, bisect.bisect_left(tokens.starts, span[1])) if tokens.kinds[k] not in _CODE]
    if not any(tokens.text(k) in MACROS for k in code):
        return None
    done.append(span)
    pp = [PPToken(tokens.text(k), _spaced(tokens, k)) for k in code]
    old = "".join((" " if t.spaced and n else "") + t.text for n, t in enumerate(pp))
    try:
        node = parse(pp)
        if not mentions(node, MACROS):
            return None
        host, device = evaluate(node, w.host), evaluate(node, w.device)
    except Undecidable as why:
        _report_undecidable(c, w, name, code, pp, str(why))
        return _hip_reading(pp, w)
    new = by_pass(host, device, DEVICE_TEST)
    start, end = tokens.starts[code[0]], tokens.ends[code[-1]]
    c.edits.append(Edit.replace(start, end, f"{new} /* hipconv: {old} */", RULE_ID))
    c.diag(
        start,
        "HC020",
        f"#{name} {old} now reads #{name} {new}: its branch is {_meaning(host, device, pp, w)}",
        symbol=_first(pp),
    )
    value = condition_text(device)
    return None if value not in ("0", "1") else value == "1"


def _spaced(tokens: Tokens, k: int) -> bool:
    return k > 0 and (tokens.starts[k] > tokens.ends[k - 1] or tokens.kinds[k - 1] in _CODE)


def _first(pp: list[PPToken]) -> str:
    return next(t.text for t in pp if t.text in MACROS)


def _meaning(host: Value, device: Value, pp: list[PPToken], w: Worlds) -> str:
    """Which passes compile the branch now, and for what reading of the macros."""
    names = {t.text for t in pp}
    readings = [f"CUDA {w.release}'s {', '.join(sorted(names & set(_VERSIONS)))}"] if names & set(_VERSIONS) else []
    if ARCH in names:
        readings.append(
            f"{ARCH} undefined on the host pass and newer than every architecture tested on the device pass"
        )
    h, d = condition_text(host), condition_text(device)
    where = {("0", "1"): "compiled for AMD devices only", ("1", "0"): "compiled on the host pass only"}
    if h == d:
        where[h, d] = {"1": "compiled on both passes", "0": "compiled on neither pass"}.get(h, "kept")
    return f"{where.get((h, d), 'split by pass')}, as nvcc compiles it with {' and '.join(readings)}"


def _hip_reading(pp: list[PPToken], w: Worlds) -> bool | None:
    try:
        value = condition_text(evaluate(parse(pp), w.hip))
    except Undecidable:
        return None
    return None if value not in ("0", "1") else value == "1"


def _report_undecidable(c: MatchCollector, w: Worlds, name: str, code: list[int], pp: list[PPToken], why: str) -> None:
    reading = _hip_reading(pp, w)
    now = {True: "holds on both passes", False: "fails on both passes", None: "depends on the other macros"}[reading]
    macro = _first(pp)
    offset = c.tokens.starts[next(k for k in code if c.tokens.text(k) in MACROS)]
    message = (
        f"#{name} tests {macro} in a way no AMD reading decides ({why}); left unchanged: HIP defines no {macro}, "
        f"so it reads as 0 and this test {now}. Rewrite the test for AMD devices (__HIP_DEVICE_COMPILE__, "
        f"__gfx*__) or for the build (HIP_VERSION)"
    )
    c.diag(offset, "HC021", message, symbol=macro)


def _dead_kernels(c: MatchCollector, dead: list[Branch]) -> None:
    """HC022 for each __global__ function whose whole body is in branches not compiled for AMD devices."""
    if not dead:
        return
    tokens = c.tokens
    regions = sorted(b.region for b in dead)
    region_starts = [a for a, _ in regions]
    for i in token_occurrences(tokens, (b"__global__",), (TokenKind.KEYWORD, TokenKind.IDENTIFIER)):
        body = _body(tokens, i)
        if body is None or _covering(regions, region_starts, tokens.starts[i]) is not None:
            continue  # a declaration, or a definition not compiled for AMD devices itself (another is)
        name, brace, close = body
        code = [
            tokens.starts[k]
            for k in range(brace + 1, close)
            if tokens.kinds[k] not in _CODE and c.directive_around(tokens.starts[k]) is None
        ]
        covering = [_covering(regions, region_starts, pos) for pos in code]
        if code and all(r is not None for r in covering):
            line = c.source.line_col(next(b.line for b in dead if b.region == covering[0]))[0]
            c.diag(
                tokens.starts[name],
                "HC022",
                f"the whole body of kernel {tokens.text(name)} is in a branch that is not compiled for AMD devices "
                f"(line {line}): the kernel compiles empty, and every launch of it computes nothing",
                symbol=tokens.text(name),
            )


def _covering(regions: list[Span], starts: list[int], pos: int) -> Span | None:
    """The outermost region that holds pos (regions nest)."""
    k = bisect.bisect_right(starts, pos)
    return next((r for r in regions[:k] if r[0] <= pos < r[1]), None)


def _body(tokens: Tokens, i: int) -> tuple[int, int, int] | None:
    """The kernel declared at `__global__` token i: (its name token, `{`, `}`); None for a declaration."""
    j, name = next_code(tokens, i), -1
    for _ in range(256):
        if j >= len(tokens) or is_punct(tokens, j, ";", "}"):
            return None
        if is_punct(tokens, j, "{"):
            close = matching_close(tokens, j)
            return None if close is None or name < 0 else (name, j, close)
        if is_punct(tokens, j, "(", "["):
            before = prev_code(tokens, j)
            if is_punct(tokens, j, "(") and before >= 0 and tokens.kinds[before] == TokenKind.IDENTIFIER:
                name = before
            j = matching_close(tokens, j) or len(tokens)
        j = next_code(tokens, j)
    return None


def _code_uses(c: MatchCollector, w: Worlds, done: list[Span]) -> None:
    """__CUDA_ARCH__ in C++ code (nvcc compiles it on the device pass only): a comparison with a number is
    rewritten to its value there; any other use is reported."""
    tokens = c.tokens
    for i in token_occurrences(tokens, (ARCH.encode(),), (TokenKind.IDENTIFIER,)):
        if c.directive_around(tokens.starts[i]) is not None:
            continue
        done.append((tokens.starts[i], tokens.ends[i]))  # reported here, not as HC312 as well
        compared = _comparison(tokens, i)
        if compared is None:
            c.diag(
                tokens.starts[i],
                "HC021",
                f"{ARCH}'s value is used in code; HIP defines no {ARCH}, so this does not compile for AMD: compute "
                "what it stands for another way (__HIP_DEVICE_COMPILE__, __gfx*__, warpSize)",
                symbol=ARCH,
            )
            continue
        first, last = compared
        pp = [
            PPToken(tokens.text(k), _spaced(tokens, k)) for k in range(first, last + 1) if tokens.kinds[k] not in _CODE
        ]
        old = "".join((" " if t.spaced and n else "") + t.text for n, t in enumerate(pp))
        try:
            value = condition_text(evaluate(parse(pp), w.device))
        except Undecidable as why:
            c.diag(tokens.starts[i], "HC021", f"{old}: {why}; HIP defines no {ARCH}: left unchanged", symbol=ARCH)
            continue
        start, end = tokens.starts[first], tokens.ends[last]
        c.edits.append(Edit.replace(start, end, f"{value} /* hipconv: {old} */", RULE_ID))
        c.diag(
            start,
            "HC020",
            f"{old} now reads {value}, its value on the device pass of a current NVIDIA GPU "
            "(newer than every architecture tested), where nvcc compiles this code",
            symbol=ARCH,
        )


def _comparison(tokens: Tokens, i: int) -> tuple[int, int] | None:
    """`__CUDA_ARCH__ OP number` or `number OP __CUDA_ARCH__` around token i: its first and last tokens."""
    after, before = next_code(tokens, i), prev_code(tokens, i)
    if is_punct(tokens, after, *_COMPARISONS) and tokens.kinds[next_code(tokens, after)] == TokenKind.LITERAL:
        first, last = i, next_code(tokens, after)
    elif (
        before >= 0
        and is_punct(tokens, before, *_COMPARISONS)
        and tokens.kinds[prev_code(tokens, before)] == TokenKind.LITERAL
    ):
        first, last = prev_code(tokens, before), i
    else:
        return None
    outside = prev_code(tokens, first), next_code(tokens, last)  # nothing binding tighter around it
    if _binds_looser(tokens, outside[0]) and _binds_looser(tokens, outside[1]):
        return first, last
    return None


def _binds_looser(tokens: Tokens, k: int) -> bool:
    return k < 0 or k >= len(tokens) or is_punct(tokens, k, *_LOOSER) or tokens.raw(k) == b"return"
