"""One test of CUDA version and architecture macros, read as nvcc reads it and rewritten for HIP.

The worlds (nvcc's host pass, its device pass for a current NVIDIA GPU, HIP) give the macros their
values for the CUDA release the code was written for (Settings.cuda, --cuda-release); `rewrite` puts
the condition that selects nvcc's branches in place of one test (an #if expression, an #ifdef, the
body of a #define tested by #if), the original kept in a comment (HC020), and `report_undecidable`
says what HIP now compiles where no reading is safe (HC021). Shared by version_macros (conditional
directives) and version_uses (code, #define bodies).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from hipconv.diagnostics import VERSION_TEST_REWRITTEN, VERSION_TEST_UNDECIDED
from hipconv.resources import default_cuda
from hipconv.settings import Settings, Version
from hipconv.translate.branches import grouped
from hipconv.translate.directives import Directives
from hipconv.translate.edits import Edit
from hipconv.translate.found import Found
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
    text_tokens,
)
from hipconv.translate.syntax import Span, is_punct, next_code
from hipconv.translate.words import file_words

RULE_ID = "nvcc.version-test"
ARCH = "__CUDA_ARCH__"
DEVICE_TEST = "defined(__HIP_DEVICE_COMPILE__)"
VERSIONS = ("CUDART_VERSION", "CUDA_VERSION", "__CUDART_API_VERSION", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__")
MACROS = frozenset((ARCH, *VERSIONS))
WORDS = frozenset(m.encode() for m in MACROS)
# any of the macros in a text (MACRO_TEXT.search(body, start, end)): one search, where `name in text` for each
# raises and clears a TypeError in CPython 3.11 before it looks (lexer.BACKSLASH)
MACRO_TEXT = re.compile(b"|".join(re.escape(w) for w in sorted(WORDS)))
CODE = (TokenKind.WHITESPACE, TokenKind.COMMENT)  # what is not code


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
    return Worlds(versions | {ARCH: None}, versions | {ARCH: Newest.ARCH}, dict.fromkeys(MACROS), release)


def settings_worlds(settings: Settings) -> Worlds:
    return worlds(str(settings.cuda) if settings.cuda is not None else default_cuda())


def with_macros(w: Worlds, macros: Mapping[str, int]) -> Worlds:
    """The worlds with the project's own integer macros, the same in each (nvcc's macros keep their values)."""
    if not macros:
        return w
    return w._replace(host={**macros, **w.host}, device={**macros, **w.device}, hip={**macros, **w.hip})


def integer_macros(tokens: Tokens, directives: Directives, inherited: Iterable[tuple[str, str]] = ()) -> dict[str, int]:
    """The object-like macros the file defines as an integer constant expression (`#define CC_VOLTA 700`,
    `#define CC_AMD (CC_OFFSET + 1030)`) and those `inherited` from the project headers it includes (name,
    body), folded through each other; one defined twice with different values, or #undef'd, is not known.
    Only the macros a directive that names a version macro can reach are read: a header of a thousand
    #defines (EGL's, an API's constants) costs one search per directive, not a thousand expressions."""
    texts: dict[str, list[str]] = {}
    for macro, text in inherited:
        texts.setdefault(macro, []).append(text)
    ranges: dict[str, list[tuple[int, int]]] = {}  # the file's own: the code tokens of each body
    undefined: set[str] = set()
    body = tokens.body
    wanted = _near_version_words(body)
    span_starts = [a for a, _ in directives.spans]
    for hash_i, name_i, name in directives.lines:
        span = directives.spans[bisect.bisect_right(span_starts, tokens.starts[hash_i]) - 1]
        if name in ("if", "elif", "define") and MACRO_TEXT.search(body, span[0], span[1]):
            wanted.update(w.decode() for w in file_words(body[span[0] : span[1]]))
        if name not in ("define", "undef"):
            continue
        macro_i = next_code(tokens, name_i)
        if macro_i >= len(tokens) or tokens.kinds[macro_i] != TokenKind.IDENTIFIER:
            continue
        macro = tokens.text(macro_i)
        if name == "undef":
            undefined.add(macro)
            continue
        after = macro_i + 1
        if after < len(tokens) and is_punct(tokens, after, "(") and tokens.starts[after] == tokens.ends[macro_i]:
            continue  # function-like
        ranges.setdefault(macro, []).append((after, bisect.bisect_left(tokens.starts, span[1])))
    bodies: dict[str, list[list[PPToken]]] = {}
    todo = list(wanted)
    while todo:  # the wanted macros' bodies, and the macros those name
        macro = todo.pop()
        if macro in bodies or macro in undefined or macro in MACROS or (macro not in ranges and macro not in texts):
            continue
        pps = [text_tokens(text) for text in texts.get(macro, ())]
        pps += [pp_tokens(tokens, code_of(tokens, a, b)) for a, b in ranges.get(macro, ())]
        bodies[macro] = pps
        todo += [t.text for pp in pps for t in pp if t.text not in bodies]
    known: dict[str, int] = {}
    pending = bodies
    while pending:
        found = {name: value for name, pps in pending.items() if (value := _constant(pps, known)) is not None}
        if not found:
            break
        known |= found
        pending = {name: pps for name, pps in pending.items() if name not in found}
    return known


def _near_version_words(body: bytes) -> set[str]:
    """The words on the line of each version macro and the next: what a code comparison
    (`__CUDA_ARCH__ >= CC_VOLTA`) or a one-line test can compare it with."""
    near: set[str] = set()
    for word in WORDS:
        at = body.find(word)
        while at >= 0:
            line = body.rfind(b"\n", 0, at) + 1
            end = body.find(b"\n", body.find(b"\n", at) + 1)
            near.update(w.decode() for w in file_words(body[line : end if end >= 0 else len(body)]))
            at = body.find(word, at + len(word))
    return near


def _constant(bodies: list[list[PPToken]], known: Mapping[str, int]) -> int | None:
    """The one integer all the bodies of a macro evaluate to with the `known` macros (None: not known yet,
    or not one)."""
    values = set()
    for pp in bodies:
        try:
            node = parse(pp) if pp else None
            value = evaluate(node, known) if node is not None and not mentions(node, MACROS) else None
        except Undecidable:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        values.add(value)
    return values.pop() if len(values) == 1 else None


class Test(NamedTuple):
    """One test to rewrite: what it evaluates, what is replaced, and how it is shown."""

    pp: list[PPToken]  # the expression (an #ifdef NAME is `defined(NAME)`)
    span: Span  # the text replaced
    said: str  # the test as written, for the comment and the message: `CUDART_VERSION < 9000`, `#ifdef X`
    where: str  # the directive, for the message: `#if`, `#define NEW_GPU`
    lead: str = ""  # what the new text starts with (`if ` for an #ifdef, which becomes an #if)
    comments: str = ""  # the comments inside the replaced text, kept after it
    device_test: str = DEVICE_TEST  # `__HIP_DEVICE_COMPILE__` in a macro body (no `defined` from an expansion)
    wrap: bool = False  # parenthesize the new condition (a macro body)
    # the values on the host and device passes chosen for the branches' contents (version_macros); None: nvcc's
    chosen: tuple[Value, Value] | None = None
    why: str = ""  # why they were chosen, for the message
    quiet: bool = False  # reported otherwise (HC028): no HC020 note


def code_of(tokens: Tokens, first: int, end: int) -> list[int]:
    """The code tokens among tokens[first:end]."""
    return [k for k in range(first, end) if tokens.kinds[k] not in CODE]


def pp_tokens(tokens: Tokens, code: list[int]) -> list[PPToken]:
    return [PPToken(tokens.text(k), k > 0 and _spaced(tokens, k)) for k in code]


def _spaced(tokens: Tokens, k: int) -> bool:
    return tokens.starts[k] > tokens.ends[k - 1] or tokens.kinds[k - 1] in CODE


def written(pp: list[PPToken]) -> str:
    """The expression as written, without its comments, one space where there was space."""
    return "".join((" " if t.spaced and n else "") + t.text for n, t in enumerate(pp))


def comments_text(tokens: Tokens, code: list[int]) -> str:
    """The comments between the first and the last code token, each after a space (kept by a rewrite)."""
    if not code:
        return ""
    return "".join(" " + tokens.text(k) for k in range(code[0], code[-1]) if tokens.kinds[k] == TokenKind.COMMENT)


def rewrite(c: Found, w: Worlds, test: Test) -> Value:
    """Replace the test with the condition that selects nvcc's branches under HIP and report it (HC020); the
    test's value on nvcc's device pass (Undecidable, untouched, where no reading is safe)."""
    node = parse(test.pp)
    host, device = test.chosen or (evaluate(node, w.host), evaluate(node, w.device))
    new = by_pass(host, device, test.device_test)
    new = grouped(new) if test.wrap else new
    start, end = test.span
    c.edits.append(Edit.replace(start, end, f"{test.lead}{new} /* hipconv: {test.said} */{test.comments}", RULE_ID))
    c.rewritten_tests[start] = (end, new)
    if test.quiet:
        return device
    shown = test.said if test.lead else f"{test.where} {test.said}"
    now = f"#{test.lead.strip()} {new}" if test.lead else f"{test.where} {new}"
    c.diag(
        start,
        VERSION_TEST_REWRITTEN,
        f"{shown} now reads {now}: {'what it selects' if test.wrap else 'its branch'} is "
        + (test.why or _meaning(host, device, test.pp, w)),
        symbol=first_macro(test.pp),
    )
    return device


def first_macro(pp: list[PPToken]) -> str:
    return next(t.text for t in pp if t.text in MACROS)


def _meaning(host: Value, device: Value, pp: list[PPToken], w: Worlds) -> str:
    """Which passes compile the branch now, and for what reading of the macros."""
    names = {t.text for t in pp}
    versions = sorted(names & set(VERSIONS))
    readings = [f"CUDA {w.release}'s {', '.join(versions)} (--cuda-release)"] if versions else []
    if ARCH in names:
        readings.append(
            f"{ARCH} undefined on the host pass and newer than every architecture tested on the device pass"
        )
    return f"{passes_text(host, device)}, as nvcc compiles it with {' and '.join(readings)}"


def passes_text(host: Value, device: Value) -> str:
    """Which passes compile a branch whose test has these values: `compiled on the host pass only`."""
    h, d = condition_text(host), condition_text(device)
    where = {("0", "1"): "compiled for AMD devices only", ("1", "0"): "compiled on the host pass only"}
    if h == d:
        where[h, d] = {"1": "compiled on both passes", "0": "compiled on neither pass"}.get(h, "kept")
    return where.get((h, d), "split by pass")


def only_defined_arch(pp: list[PPToken]) -> bool:
    """Whether the macros the test names are only __CUDA_ARCH__, each as the operand of `defined`."""
    for k, t in enumerate(pp):
        if t.text not in MACROS:
            continue
        before = [u.text for u in pp[max(0, k - 2) : k]]
        if t.text != ARCH or not (before[-1:] == ["defined"] or before == ["defined", "("]):
            return False
    return True


def hip_reading(pp: list[PPToken], w: Worlds) -> bool | None:
    """Whether the test holds under HIP as written (none of the macros defined); None: not known."""
    try:
        value = condition_text(evaluate(parse(pp), w.hip))
    except Undecidable:
        return None
    return None if value not in ("0", "1") else value == "1"


def report_undecidable(c: Found, w: Worlds, where: str, offset: int, pp: list[PPToken], why: str) -> None:
    """HC021 at offset: the test `where` (`#if`, `#define NEW_GPU`) left unchanged, and what HIP reads it as."""
    reading = hip_reading(pp, w)
    now = {True: "holds on both passes", False: "fails on both passes", None: "depends on the other macros"}[reading]
    macro = first_macro(pp)
    message = (
        f"{where} tests {macro} in a way no AMD reading decides ({why}); left unchanged: HIP defines no {macro}, "
        f"so it reads as 0 and this test {now}. Rewrite the test for AMD devices (__HIP_DEVICE_COMPILE__, "
        f"__gfx*__) or for the build (HIP_VERSION)"
    )
    c.diag(offset, VERSION_TEST_UNDECIDED, message, symbol=macro)
