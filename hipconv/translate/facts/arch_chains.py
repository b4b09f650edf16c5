"""Which branch of a chain of version and architecture tests HIP compiles on each pass, decided by what the
branches hold (arch_branches) and by the chain's own HIP branch; matchers.version_macros writes the tests.

nvcc's reading (its host pass; its device pass for a current NVIDIA GPU) is the start. Then, on each pass:
a branch that tests a HIP compiler macro (`#elif defined(__HIPCC__)`) and holds under HIP is the one taken,
the CUDA tests before it made to fail; in a chain that tests __CUDA_ARCH__, a branch that is the fallback
of a feature HIP has (it defines `atomicAdd`, `__hmax_nan`...) is taken on neither pass, and on the AMD
device pass a branch that is NVIDIA-only (inline PTX, wmma) gives way to a portable sibling, the later
ones first (the older architectures' code). Where the NVIDIA-only branch has no portable sibling it stays,
and the construct is an error (HC028). Only the tests of nvcc's macros are rewritten, never the others.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from typing import NamedTuple

from hipconv.diagnostics import ARCH_BRANCH_NVIDIA_ONLY
from hipconv.translate.directives import Directives
from hipconv.translate.facts.arch_branches import Holds, branch_holds
from hipconv.translate.found import Found
from hipconv.translate.lexer import BACKSLASH, TokenKind, Tokens
from hipconv.translate.pp_expr import Node, PPToken, Undecidable, Value, condition_text, evaluate, mentions, parse
from hipconv.translate.syntax import Span, next_code
from hipconv.translate.version_tests import (
    ARCH,
    MACROS,
    Worlds,
    code_of,
    only_defined_arch,
    passes_text,
    pp_tokens,
)

# the HIP compiler's own macros: what a chain's HIP branch tests (project switches such as USE_ROCM are not)
HIP_COMPILER_MACROS = ("__HIPCC__", "__HIP__", "__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__")
HIP_DEVICE_MACRO = "__HIP_DEVICE_COMPILE__"
_NONE = -1  # a pass's selection: no branch of the chain
_OPENERS = ("if", "ifdef", "ifndef")
_ALTERNATIVES = ("elif", "elifdef", "elifndef", "else")


class Arm(NamedTuple):
    """One branch of a chain: its directive and its code."""

    name: str  # the directive: if, ifdef, elif, else ...
    name_i: int  # the token of the directive's name
    span: Span  # the directive line
    region: Span  # the branch: from the end of its line to the next directive of its chain


class ArmChoice(NamedTuple):
    """What one test of nvcc's macros is made to read, and why."""

    chosen: tuple[Value, Value]  # its values on the host and device passes
    why: str  # for the HC020 message: which passes compile its branch, and why
    quiet: bool = False  # HC028 reports the branch instead


class _Reading(NamedTuple):
    kind: str  # "test" (of nvcc's macros: rewritten), "fixed" (`#ifdef __CUDA_ARCH__`), "other", "else"
    nvcc: tuple[int | None, int | None]  # the test's value on each pass of nvcc (None: not 0 or 1)
    hip: tuple[int | None, int | None]  # under HIP (a "test": unused, it is rewritten)
    values: tuple[Value, Value] = (0, 0)  # a "test": nvcc's values as evaluated


def file_chains(tokens: Tokens, directives: Directives) -> list[list[Arm]]:
    """Every #if/#ifdef/#ifndef chain of the file, as its branches in order."""
    span_starts = [a for a, _ in directives.spans]
    open_chains: list[list[Arm]] = []
    chains: list[list[Arm]] = []
    for hash_i, name_i, name in directives.lines:
        if name not in _OPENERS + _ALTERNATIVES + ("endif",):
            continue
        span = directives.spans[bisect.bisect_right(span_starts, tokens.starts[hash_i]) - 1]
        if name in _OPENERS:
            open_chains.append([])
        elif not open_chains:
            continue  # an #else or #endif without its #if
        else:
            arms = open_chains[-1]
            arms[-1] = arms[-1]._replace(region=(arms[-1].region[0], span[0]))
            if name == "endif":
                chains.append(open_chains.pop())
                continue
        open_chains[-1].append(Arm(name, name_i, span, (span[1], span[1])))
    return chains


def plan_chain(c: Found, w: Worlds, chain: list[Arm], features: Mapping[str, str]) -> dict[int, ArmChoice]:
    """By the offset of their directive, the tests of the chain that must read otherwise than nvcc's.
    `features`: the feature macros whose uses hold NVIDIA-only code, with why (facts.feature_macros)."""
    if not any(_names(c, arm, MACROS) for arm in chain):
        return {}  # most chains (include guards, options) test none of nvcc's macros
    readings = [_reading(c, w, arm) for arm in chain]
    if any(r is None for r in readings) or not any(r.kind == "test" for r in readings if r is not None):
        return {}
    read = [r for r in readings if r is not None]
    arch = any(r.kind in ("test", "fixed") and _tests_arch(c, arm) for r, arm in zip(read, chain))
    holds = [_holds(c, arm, features) for arm in chain] if arch else []
    new: list[list[Value]] = [list(r.values) for r in read]
    reasons: list[str] = []
    nvidia_only: tuple[int, Holds] | None = None
    for p in (0, 1):
        nvcc = _select([r.nvcc[p] for r in read])
        if nvcc is None:
            continue
        want, reason = _wanted(c, chain, read, holds, p, nvcc)
        if want is None and p == 1 and holds and nvcc != _NONE and holds[nvcc].nvidia_only:
            nvidia_only = nvcc, holds[nvcc]
        if want is None or want == nvcc:
            continue
        for k, r in enumerate(read):
            if r.kind == "test":
                new[k][p] = int(k == want) if want == _NONE or k <= want else r.values[p]
        reasons += [reason] if reason not in reasons else []
    if nvidia_only is not None:
        _report_nvidia_only(c, chain, nvidia_only[0], nvidia_only[1])
    return _plans(chain, read, new, "; ".join(reasons), nvidia_only[0] if nvidia_only else None)


def _plans(
    chain: list[Arm], read: list[_Reading], new: list[list[Value]], why: str, quiet: int | None
) -> dict[int, ArmChoice]:
    """The plans of the tests whose values changed (`new`), and of the one HC028 reports (`quiet`)."""
    plans: dict[int, ArmChoice] = {}
    for k, (r, arm) in enumerate(zip(read, chain)):
        if r.kind == "test" and (tuple(new[k]) != r.values or quiet == k):
            chosen = (new[k][0], new[k][1])
            plans[arm.span[0]] = ArmChoice(chosen, f"{passes_text(*chosen)}: {why}", quiet == k)
    return plans


def _wanted(
    c: Found, chain: list[Arm], read: list[_Reading], holds: list[Holds], p: int, nvcc: int
) -> tuple[int | None, str]:
    """The branch HIP should take on pass p where it is not nvcc's (None: nvcc's), and why."""
    hip = next((k for k, r in enumerate(read) if r.kind == "other" and r.hip[p] == 1), None)
    if hip is not None:
        if hip != nvcc and _reaches(read, p, hip):
            return hip, f"the chain's own HIP branch ({_shown(c, chain[hip])}) is what HIP compiles"
        return None, ""
    if not holds or nvcc == _NONE or holds[nvcc].portable:
        return None, ""
    own = holds[nvcc]
    later = [*range(nvcc + 1, len(chain)), _NONE, *range(nvcc)]
    if own.provides:  # a fallback of what HIP has: off, on both passes
        for k in later:
            if (k == _NONE or holds[k].portable) and _reaches(read, p, k):
                return k, (
                    f"the branch of line {_line(c, chain[nvcc])} defines {own.provides}, which HIP declares on "
                    f"both passes (ROCm {c.settings.rocm}): a fallback for GPUs without it, compiled on neither "
                    f"pass ({_taken(c, chain, k)})"
                )
        return None, ""
    if p == 0:
        return None, ""
    for k in later:
        if (holds[k].portable if k != _NONE else bool(own.feature)) and _reaches(read, p, k):
            nvcc_takes = f"the branch nvcc compiles for a current NVIDIA GPU (line {_line(c, chain[nvcc])})"
            if own.feature:
                taken = _taken(c, chain, k)
                return k, f"{nvcc_takes} {own.nvidia_only}: AMD devices leave {own.feature} undefined ({taken})"
            portable = f"the portable branch of line {_line(c, chain[k])}"
            return k, f"{nvcc_takes} holds {own.nvidia_only}, so AMD devices take {portable}"
    return None, ""


def _holds(c: Found, arm: Arm, features: Mapping[str, str]) -> Holds:
    """What the branch holds; a portable one that #defines a feature macro of `features` is NVIDIA-only."""
    holds = branch_holds(c.tokens, arm.region, c.table, c.settings.rocm)
    if not holds.portable or not features:
        return holds
    tokens = c.tokens
    for hash_i, name_i, name in c.ctx.directives.lines:
        if name == "define" and arm.region[0] <= tokens.starts[hash_i] < arm.region[1]:
            macro = tokens.text(next_code(tokens, name_i))
            if macro in features:
                return holds._replace(nvidia_only=features[macro], nvidia_at=tokens.starts[hash_i], feature=macro)
    return holds


def _reaches(read: list[_Reading], p: int, want: int) -> bool:
    """Whether HIP takes branch `want` on pass p once the tests of nvcc's macros read as wanted."""
    values = [
        (int(k == want) if want == _NONE or k <= want else 0) if r.kind == "test" else r.hip[p]
        for k, r in enumerate(read)
    ]
    return _select(values) == want


def _select(values: list[int | None]) -> int | None:
    """The branch a chain takes with these test values (_NONE: none; None: not known)."""
    for k, value in enumerate(values):
        if value is None:
            return None
        if value:
            return k
    return _NONE


def _reading(c: Found, w: Worlds, arm: Arm) -> _Reading | None:
    """How nvcc and HIP read the arm's test (None: one that the chain cannot be planned with)."""
    tokens = c.tokens
    if arm.name == "else":
        return _Reading("else", (1, 1), (1, 1))
    first = next_code(tokens, arm.name_i)
    if arm.name in ("ifdef", "ifndef", "elifdef", "elifndef"):
        macro = tokens.text(first) if first < len(tokens) else ""
        negated = arm.name.endswith("ndef")
        pp = [PPToken(t, False) for t in ("!" if negated else "", "defined", "(", macro, ")") if t]
    else:
        code = code_of(tokens, first, bisect.bisect_left(tokens.starts, arm.span[1]))
        pp = pp_tokens(tokens, code)
    try:
        node = parse(pp)
        if not mentions(node, MACROS):
            return _other(node, w)
        if only_defined_arch(pp):
            fixed = (_bit(condition_text(evaluate(node, w.host))), _bit(condition_text(evaluate(node, w.device))))
            return _Reading("fixed", fixed, fixed)  # the rename rule makes HIP read it as nvcc does
        host, device = evaluate(node, w.host), evaluate(node, w.device)
    except Undecidable:
        return None
    return _Reading("test", (_bit(condition_text(host)), _bit(condition_text(device))), (None, None), (host, device))


def _other(node: Node, w: Worlds) -> _Reading:
    """A test of other macros: nvcc defines none of HIP's; HIP defines its compiler's macros on both passes,
    __HIP_DEVICE_COMPILE__ on the device pass. Anything else: not known."""
    nvcc = dict.fromkeys((*HIP_COMPILER_MACROS, HIP_DEVICE_MACRO))
    hip_host = {**dict.fromkeys(HIP_COMPILER_MACROS, 1), HIP_DEVICE_MACRO: None}
    hip_device = {**hip_host, HIP_DEVICE_MACRO: 1}
    known = {name: value for name, value in w.hip.items() if name not in MACROS}
    try:
        values = [_bit(condition_text(evaluate(node, {**known, **world}))) for world in (nvcc, hip_host, hip_device)]
    except Undecidable:
        values = [None, None, None]
    return _Reading("other", (values[0], values[0]), (values[1], values[2]))


def _bit(text: str) -> int | None:
    return int(text) if text in ("0", "1") else None


def _tests_arch(c: Found, arm: Arm) -> bool:
    return _names(c, arm, frozenset((ARCH,)))


def _names(c: Found, arm: Arm, names: frozenset[str]) -> bool:
    """Whether the arm's directive line names one of the names."""
    tokens = c.tokens
    line = tokens.body[arm.span[0] : arm.span[1]]
    if BACKSLASH not in line and not any(name.encode() in line for name in names):
        return False  # most lines: none of them written, found at C speed (a line splice may cut one)
    first, end = tokens.within(arm.span)
    return any(tokens.kinds[k] == TokenKind.IDENTIFIER and tokens.text(k) in names for k in range(first, end))


def _line(c: Found, arm: Arm) -> int:
    return c.source.line_col(arm.span[0])[0]


def _shown(c: Found, arm: Arm) -> str:
    text = c.source.body[arm.span[0] : arm.span[1]].decode(errors="replace").split("//")[0].split("/*")[0]
    return f"`{' '.join(text.split())}`, line {_line(c, arm)}"


def _taken(c: Found, chain: list[Arm], k: int) -> str:
    return "no branch of the chain is taken" if k == _NONE else f"the branch of line {_line(c, chain[k])} is taken"


def _report_nvidia_only(c: Found, chain: list[Arm], k: int, holds: Holds) -> None:
    """HC028 at the NVIDIA-only construct of the branch AMD devices keep compiling (no portable sibling)."""
    c.diag(
        holds.nvidia_at,
        ARCH_BRANCH_NVIDIA_ONLY,
        f"{holds.nvidia_only} in the branch of line {_line(c, chain[k])}, which is compiled for AMD devices as nvcc "
        "compiles it for a current NVIDIA GPU, and no branch of its chain is portable: this does not compile for "
        "AMD; write the branch for AMD devices (a portable #else, or __gfx*__ builtins)",
        symbol=ARCH,
    )
