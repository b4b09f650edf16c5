"""What a project's own HIP path is: the facts the project pass gathers (project.FileFacts) and the
matcher project_hip reads; scan reports them through the translator's HC030.

A *switch* is a macro the project tests (`#ifdef M`, `#if defined(M)`, `#ifndef M`, `#if M`), not one
HIP declares, whose name says HIP or ROCm (`GGML_USE_HIP`, `USE_ROCM`, `BNB_HIP`: not `_WIN32` or
`NDEBUG`, which also guard HIP code now and then) and one of whose branches taken when it is defined
holds HIP code: an include of a `hip/` header, a HIP spelling of the rule set (`hipMalloc`,
`hipStream_t`), an alias line (`#define cudaMalloc hipMalloc`), or an AMD builtin
(`__builtin_amdgcn_perm`). Weaker evidence makes it a switch too: CUDA code there that the translation
turns into such HIP code (`#include <cuda_runtime.h>`, `cudaMalloc`), so the first run already reads the
test as the second run, which sees the HIP code, does; a file where this is all there is of the switch
has its branches translated, not kept (SwitchTests.translated). hipcc's own macros
(COMPILER_SWITCHES) are switches the same way but need no turning on. A macro the project #defines
itself (derived from the switch and the target) is the project's decision, never a build switch: forcing
it on would take a branch the project keeps for some AMD targets only. Read from the bytes with a
line-based reading of the directives (the project pass lexes nothing); the matcher reads the tokens for
what it writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import NamedTuple

from hipconv.resources import hip_names
from hipconv.rules.model import LookupTable
from hipconv.translate.lexer import BACKSLASH, unsplice
from hipconv.translate.words import file_words, line_directives

COMPILER_SWITCHES = frozenset(
    ("__HIPCC__", "__HIP__", "__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__", "__HIP_DEVICE_COMPILE__")
)
# what a switch's name says; not AMD: AMD_MFMA_AVAILABLE is a feature the project derives
SWITCH_NAME = re.compile(r"(?:^|_)(?:HIP|ROCM)", re.IGNORECASE)
_NOT_SWITCHES = re.compile(r"_*(?:CUDA|NVCC|NVCOMPILER)")  # CUDA's own macros never are
# blanks and block comments on a line: what may stand between a directive's `#` and its name (`#/* c */ifdef`)
_BLANKS = rb"(?:[ \t]|/\*(?:[^*\n]|\*(?!/))*\*/)*"
# a directive at a line start (words.line_directives): its name, and its text to the end of its last line
DIRECTIVE = re.compile(rb"[ \t]*#" + _BLANKS + rb"(\w+)([^\n]*(?:(?<=\\)\n[^\n]*)*)")
COMMENTS = re.compile(rb"/\*.*?\*/|//[^\n]*", re.DOTALL)  # block and line comments
_TESTED = re.compile(rb"(!\s*)?(?:\bdefined\s*\(\s*(\w+)\s*\)|\bdefined\s+(\w+))")
# a test or #define whose words may say HIP or ROCm (SWITCH_NAME): a file with "chip" in a comment is not walked
_MAY_NAME_SWITCH = re.compile(
    rb"[ \t]*#" + _BLANKS + rb"(?:if|elif|define)(?:[^\n]|\\\n)*?(?:(?<![A-Za-z0-9_])|_)(?:hip|rocm)", re.IGNORECASE
)
CONDITIONALS = (b"if", b"ifdef", b"ifndef", b"elif", b"elifdef", b"elifndef", b"else", b"endif")
HIP_HEADER_PREFIX = "hip/"


class SwitchTests(NamedTuple):
    """One file's tests of macros that may be switches: each name, how many tests name it, and whether a
    branch it selects holds HIP code here; the macros that may be switches that it #defines; and the
    switches whose branches here hold CUDA code that translates to HIP, and no HIP code (not in
    `switches`: their branches are translated, as a second run, which sees that HIP code, keeps them)."""

    tested: Mapping[str, int]
    switches: frozenset[str]
    defined: frozenset[str] = frozenset()
    translated: frozenset[str] = frozenset()


NO_TESTS = SwitchTests({}, frozenset())


class HipTest(NamedTuple):
    """What one file tells the project about one macro that may be a switch (project.FileFacts)."""

    name: str
    tests: int  # its tests in the file
    switch: bool  # a branch it selects holds HIP code here, or CUDA code that translates to it
    defined: bool  # the file #defines it: the project's decision, not a build switch


def hip_tests(body: bytes, table: LookupTable) -> tuple[HipTest, ...]:
    """switch_tests of the body, as the data the project pass keeps per file."""
    found = switch_tests(body, table)
    names = sorted(found.tested.keys() | found.defined)
    switches = found.switches | found.translated
    return tuple(HipTest(n, found.tested.get(n, 0), n in switches, n in found.defined) for n in names)


def project_switches(tests: Iterable[HipTest]) -> dict[str, int | None]:
    """The run's switches, from every file's HipTests: each macro with HIP code in a branch it selects in
    some file and defined by none, with the number of its tests in the run; and, with None, the macros
    that may look like one in a file but that the project #defines (no switch anywhere)."""
    counts: dict[str, int] = {}
    switches: set[str] = set()
    defined: set[str] = set()
    for t in tests:
        counts[t.name] = counts.get(t.name, 0) + t.tests
        if t.switch:
            switches.add(t.name)
        if t.defined:
            defined.add(t.name)
    found: dict[str, int | None] = {name: counts[name] for name in sorted(switches - defined)}
    return found | dict.fromkeys(sorted(defined & counts.keys()))


AMD_BUILTIN = b"__builtin_amdgcn_"


def may_be_switch(name: str) -> bool:
    """A name that says HIP or ROCm, not CUDA's, and not one HIP declares (HIPRAND_VERSION, a HIP header's
    guard: what a translated header-guard test reads), other than hipcc's own macros."""
    if not SWITCH_NAME.search(name) or _NOT_SWITCHES.match(name) or name[:1].isdigit():
        return False  # (`#ifdef 0USE_HIP` tests a number, no macro)
    return name in COMPILER_SWITCHES or name not in hip_names()


def hip_spellings(table: LookupTable) -> frozenset[bytes]:
    """The HIP spellings the rules write (hipMalloc, hipStream_t), as bytes: evidence of HIP code."""
    return _evidence(table).hip


class _Evidence(NamedTuple):
    """What tells HIP code, and CUDA code that becomes it, for one table (as bytes)."""

    hip: frozenset[bytes]  # the HIP spellings the rules write
    cuda: frozenset[bytes]  # the CUDA names this run renames to one of them (cudaMalloc)
    says_hip: frozenset[bytes]  # those of them whose HIP spelling has `hip` in it (_holds_hip's first test)
    includes: frozenset[bytes]  # the CUDA headers this run includes a `hip/` header for (cuda_runtime.h)


def _evidence(table: LookupTable) -> _Evidence:
    kept = _EVIDENCE.get(id(table))
    if kept is not None and kept[0] is table:
        return kept[1]
    spelled = [
        (cuda, r.rule.hip, r.rewrites)
        for cuda, r in table.identifiers.items()
        if r.rule is not None and r.rule.hip and r.rule.hip.isidentifier() and r.rule.hip != r.rule.cuda
    ]
    renamed = [(cuda.encode(), hip) for cuda, hip, rewrites in spelled if rewrites and cuda.isidentifier()]
    found = _Evidence(
        frozenset(hip.encode() for _, hip, _ in spelled),
        frozenset(cuda for cuda, _ in renamed),
        frozenset(cuda for cuda, hip in renamed if "hip" in hip),
        frozenset(
            path.encode()
            for path, r in table.includes.items()
            if r.rewrites and r.rule is not None and (r.rule.hip or "").startswith(HIP_HEADER_PREFIX)
        ),
    )
    _EVIDENCE.clear()
    _EVIDENCE[id(table)] = (table, found)
    return found


_EVIDENCE: dict[int, tuple[LookupTable, _Evidence]] = {}


def alias_of(table: LookupTable, name: str, body: str) -> bool:
    """Whether `#define name body` is an alias line: a CUDA name the rules know defined as a HIP spelling."""
    return name in table.identifiers and body.encode() in hip_spellings(table)


_SLASH = ord("/")  # a byte's value: lexer.BACKSLASH says why


def directive_code(text: bytes) -> bytes:
    """A directive's text after its name, without comments and line splices; a test project_hip rewrote
    (`1 /* hipconv: defined(M) */`) read as written, so a second run keeps what the first kept."""
    if _SLASH not in text:  # most directives: no comment, so no rewritten test either
        return text.replace(b"\\\n", b" ") if BACKSLASH in text else text
    return COMMENTS.sub(b" ", _REWRITTEN.sub(_as_written, text)).replace(b"\\\n", b" ")


_REWRITTEN = re.compile(rb"\b[01] /\* hipconv: (?:#(?:el)?if(n?)def (\w+)|defined\((\w+)\)|(\w+)) \*/")


def _as_written(m: re.Match[bytes]) -> bytes:
    if m[2]:
        return (b"!" if m[1] else b"") + b"defined(" + m[2] + b")"
    return b"defined(" + m[3] + b")" if m[3] else m[4]


def tested_names(directive: bytes, rest: bytes) -> Iterator[tuple[str, bool]]:
    """The macros a conditional directive tests, each with whether the directive's branch is taken when it
    is defined (`#ifdef M`, `defined(M)`, `#if M`) or when it is not (`#ifndef M`, `!defined(M)`)."""
    rest = rest.strip()
    if directive == b"else":
        return
    if directive in (b"ifdef", b"elifdef", b"ifndef", b"elifndef"):
        word = re.match(rb"\w+", rest)
        if word:
            yield word.group().decode(), not directive.endswith(b"ndef")
        return
    if re.fullmatch(rb"!?\s*\w+", rest):  # `#if M`, `#if !M`
        yield rest.lstrip(b"!").strip().decode(), not rest.startswith(b"!")
        return
    for m in _TESTED.finditer(rest):
        yield (m.group(2) or m.group(3)).decode(), m.group(1) is None


def switch_tests(body: bytes, table: LookupTable) -> SwitchTests:
    """The file's tests of macros that may be switches (may_be_switch), and those whose branches hold HIP
    code here. Cheap for a file with no such test: one search for the words HIP and ROCm. A file that has
    them is read once a run: the project pass and project_hip both ask (kept by its bytes' hash and length,
    for the run's one table; a file without one too, so that the second ask is one lookup)."""
    if b"#" not in body:
        return NO_TESTS
    global _READ_WITH
    if _READ_WITH is not table:
        _READ.clear()
        _READ_WITH = table
    key = (hash(body), len(body))
    found = _READ.get(key)
    if found is None:
        found = _switch_tests(body, table) if _may_name_switch(body) else NO_TESTS
        if len(_READ) < _READ_LIMIT:
            _READ[key] = found
    return found


def _may_name_switch(body: bytes) -> bool:
    """Whether HIP or ROCm is written on a line that may be a directive (one that starts with `#`, follows a
    comment or continues the line above): the cheap test before _MAY_NAME_SWITCH's reading of each
    directive. Most CUDA files say neither, or say it in comments and code only ("chip", a tool's name)."""
    lowered = body.lower()
    for word in (b"hip", b"rocm"):
        at = lowered.find(word)
        while at >= 0:
            line = body.rfind(b"\n", 0, at) + 1
            head = body[line:at].lstrip(b" \t")
            if head.startswith(b"#") or b"*/" in head or body[max(line - 3, 0) : line].rstrip(b"\r\n").endswith(b"\\"):
                return True
            at = lowered.find(word, at + len(word))
    return False


_READ: dict[tuple[int, int], SwitchTests] = {}
_READ_WITH: LookupTable | None = None
_READ_LIMIT = 1 << 14  # files that a run keeps the reading of


def _switch_tests(body: bytes, table: LookupTable) -> SwitchTests:
    body = unsplice(body)  # the lines the preprocessor reads (`#\\<newline>ifdef M`, `#ifdef M\\<newline>#include`)
    if not any(line_directives(_MAY_NAME_SWITCH, body)):
        return NO_TESTS
    evidence = _evidence(table)
    tested: dict[str, int] = {}
    held: dict[int, set[str]] = {HIP_CODE: set(), CUDA_CODE: set()}  # the switches with such code in a branch
    defined: set[str] = set()
    stack: list[tuple[set[str], set[str]]] = []  # per open chain: (selecting the branch now, negated so far)
    at = 0
    for m in line_directives(DIRECTIVE, body):
        if stack and any(on for on, _ in stack) and (code := _holds(body[at : m.start()], evidence)):
            held[code].update(*(on for on, _ in stack))
        at = m.end()
        directive, rest = m.group(1), directive_code(m.group(2))
        if directive not in CONDITIONALS:
            if stack and any(on for on, _ in stack) and (code := _hip_directive(directive, rest, table, evidence)):
                held[code].update(*(on for on, _ in stack))
            elif (
                directive == b"define"
                and (word := re.match(rb"\s*(\w+)", rest))
                and may_be_switch(name := word[1].decode())
            ):
                defined.add(name)
            continue
        if directive == b"endif":
            stack and stack.pop()
            continue
        found = [(n, on) for n, on in tested_names(directive, rest) if may_be_switch(n)]
        for name, _ in found:
            tested[name] = tested.get(name, 0) + 1
        selecting = {n for n, on in found if on}
        negated = {n for n, on in found if not on}
        if directive in (b"if", b"ifdef", b"ifndef"):
            stack.append((selecting, negated))
        elif stack:
            earlier = stack[-1][1]
            stack[-1] = (earlier | selecting if directive == b"else" else selecting, earlier | negated)
    if stack and any(on for on, _ in stack) and (code := _holds(body[at:], evidence)):
        held[code].update(*(on for on, _ in stack))
    return _found(tested, held, defined)


def _found(tested: dict[str, int], held: Mapping[int, set[str]], defined: set[str]) -> SwitchTests:
    """A macro the file defines is no switch; one with HIP code in a branch here has no weaker evidence."""
    if not tested and not defined:
        return NO_TESTS
    switches = held[HIP_CODE] - defined
    return SwitchTests(tested, frozenset(switches), frozenset(defined), frozenset(held[CUDA_CODE] - switches - defined))


# what a branch's code or directive holds (_holds, _hip_directive): HIP code, CUDA code that becomes HIP, or 0
HIP_CODE, CUDA_CODE = 1, 2


def _holds(code: bytes, evidence: _Evidence) -> int:
    """HIP names, or an AMD builtin (a branch of AMD device code may use no HIP API at all): HIP_CODE; else
    CUDA names that this run renames to HIP names, read by a second run as HIP code (so with `hip` in the
    code, or in one of the HIP names): CUDA_CODE."""
    if AMD_BUILTIN in code:
        return HIP_CODE
    words = file_words(code)
    hip = b"hip" in code
    if hip and not words.isdisjoint(evidence.hip):
        return HIP_CODE
    if words.isdisjoint(evidence.cuda):
        return 0
    words = file_words(_UNTRANSLATED.sub(b" ", code))  # a name in a comment or a string stays CUDA's
    return CUDA_CODE if not words.isdisjoint(evidence.says_hip) or (hip and not words.isdisjoint(evidence.cuda)) else 0


# comments and string or character literals, which translation leaves as written: line splices continue them,
# and one with no end runs to the end of its line (the lexer's unknown token) or, for a block comment, the code's
_UNTRANSLATED = re.compile(
    rb"/\*.*?(?:\*/|\Z)|//(?:\\\r?\n|\\.|[^\\\n])*|\"(?:\\\r?\n|\\.|[^\"\\\n])*\"?|'(?:\\\r?\n|\\.|[^'\\\n])*'?",
    re.DOTALL,
)


def _hip_directive(directive: bytes, rest: bytes, table: LookupTable, evidence: _Evidence) -> int:
    """An include of a HIP header, or an alias line: HIP_CODE; an include this run makes one: CUDA_CODE."""
    if directive == b"include":
        path = re.match(rb'\s*[<"]([^>"]+)', rest)
        if path is not None and path[1].startswith(HIP_HEADER_PREFIX.encode()):
            return HIP_CODE
        return CUDA_CODE if path is not None and path[1] in evidence.includes else 0
    if directive == b"define":
        parts = rest.split()
        alias = len(parts) == 2 and alias_of(
            table, parts[0].decode(errors="replace"), parts[1].decode(errors="replace")
        )
        return HIP_CODE if alias else 0
    return 0
