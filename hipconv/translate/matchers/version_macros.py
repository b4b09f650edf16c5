"""CUDA version and architecture macros tested by value (`#if __CUDA_ARCH__ >= 700`, `#if CUDART_VERSION <
9000`): HIP defines none of them, so as written every such test reads them as 0 and quietly selects the
other branch.

Each #if/#elif that tests one is evaluated (pp_expr) as nvcc would on its host pass and on the device pass
of a current NVIDIA GPU (newer than every architecture a test names), with the version macros of the CUDA
release the code was written for (--cuda-release, else the newest bundled inventory's), and rewritten to the
condition that selects those branches under HIP: `defined(__HIP_DEVICE_COMPILE__)` for the device pass, the
original kept in a comment (HC020; version_tests). `#ifdef CUDART_VERSION` (defined by nvcc, never by HIP) is
rewritten as `#if defined(CUDART_VERSION)` is. A test that cannot be read so (`== 800`, the number computed
with) is left as it is and reported with the branch HIP now compiles (HC021). Uses outside conditional
directives, in code and in #define bodies, are version_uses'. A kernel whose whole body is in a branch that is
not compiled for AMD devices is an error (HC022).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from typing import NamedTuple

from hipconv.diagnostics import ARCH_BRANCH_NVIDIA_ONLY, KERNEL_BODY_NOT_COMPILED
from hipconv.translate.context import FileContext
from hipconv.translate.directives import Directives
from hipconv.translate.facts.arch_branches import nvidia_only
from hipconv.translate.facts.arch_chains import Arm, ArmChoice, file_chains, plan_chain
from hipconv.translate.facts.feature_macros import file_features, positive_arms
from hipconv.translate.facts.hip_switches import directive_code
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.pp_expr import PPToken, Undecidable, condition_text, evaluate, mentions, parse
from hipconv.translate.syntax import Span, is_punct, matching_close, next_code, prev_code
from hipconv.translate.version_tests import (
    ARCH,
    MACROS,
    VERSIONS,
    WORDS,
    Test,
    Worlds,
    code_of,
    comments_text,
    hip_reading,
    integer_macros,
    only_defined_arch,
    pp_tokens,
    report_undecidable,
    rewrite,
    settings_worlds,
    with_macros,
    written,
)
from hipconv.translate.version_uses import match_code_uses, match_defines
from hipconv.translate.words import token_occurrences

__all__ = ["WORDS", "match", "match_version_macros"]
_CODE = (TokenKind.WHITESPACE, TokenKind.COMMENT)
_CONDITIONALS = ("if", "elif")
_OPENERS = ("if", "ifdef", "ifndef")
_ALTERNATIVES = ("elif", "elifdef", "elifndef", "else")


class MacroBranch(NamedTuple):
    region: Span  # from the end of its directive line to the next directive of its chain
    line: int  # the offset of its directive
    live: bool | None  # compiled for AMD devices after translation (None: not known)


def match_version_macros(c: Found, directives: Directives, words: frozenset[bytes]) -> list[Span]:
    """Rewrite or report the version and architecture tests; the directive lines done (for others to skip)."""
    features = file_features(c.source, c.ctx.project_features)
    tested = not words.isdisjoint(WORDS)
    named = bool(features) and not words.isdisjoint(name.encode() for name in features)
    chains = file_chains(c.tokens, directives) if tested or named else []  # (most files: neither)
    # branches taken only where a feature macro AMD devices leave undefined is defined
    off = _uses_without_fallback(c, chains, features) if named else []
    if not tested:
        return []
    w = with_macros(settings_worlds(c.settings), integer_macros(c.tokens, directives, c.ctx.project_macros))
    plans: dict[int, ArmChoice] = {}
    for chain in chains:
        if not any(a <= chain[0].span[0] < b for a, b in off):  # compiled on neither pass: nvcc's reading
            plans |= plan_chain(c, w, chain, features)
    done: list[Span] = []
    branches: list[MacroBranch] = []
    stack: list[tuple[int, bool | None]] = []  # per open chain: its current branch, whether one was taken
    span_starts = [a for a, _ in directives.spans]
    for hash_i, name_i, name in directives.lines:
        if name not in _OPENERS + _ALTERNATIVES + ("endif",):
            continue
        span = directives.spans[bisect.bisect_right(span_starts, c.tokens.starts[hash_i]) - 1]
        plan = plans.get(span[0])
        test = _device_test(c, w, name, name_i, span, done, plan) if name != "endif" else None
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
            branches.append(MacroBranch((span[1], span[1]), span[0], live))
    _dead_kernels(c, [b for b in branches if b.live is False])
    match_defines(c, w, directives, done)
    match_code_uses(c, w, done)
    return done


def _uses_without_fallback(c: Found, chains: list[list[Arm]], features: Mapping[str, str]) -> list[Span]:
    """HC028 at the NVIDIA-only code of a test of a feature macro (left undefined on AMD devices) whose
    chain has no portable branch: AMD devices compile none of the work it does. The branches taken only
    where such a macro is defined (`#ifdef M`, `defined(M)` alone, the #else of `#ifndef M`): on neither
    pass."""
    off: list[Span] = []
    for chain in chains:
        for name, arm in positive_arms(c.tokens, chain):
            if name not in features:
                continue
            if _only(c, arm if arm.name != "else" else chain[chain.index(arm) - 1], name):
                off.append(arm.region)
            what, at = nvidia_only(c.tokens, arm.region, c.table)
            others = [a for a in chain if a is not arm]
            if what and not any(not nvidia_only(c.tokens, a.region, c.table)[0] for a in others):
                line = c.source.line_col(arm.span[0])[0]
                c.diag(
                    at,
                    ARCH_BRANCH_NVIDIA_ONLY,
                    f"{what} in the branch of line {line}, taken where {name} is defined, which AMD devices leave "
                    f"undefined (it is a feature macro: {features[name]}), and no branch of its chain is portable: "
                    "AMD devices compile none of this work; write a branch for AMD devices (#else)",
                    symbol=name,
                )
    return off


def _only(c: Found, arm: Arm, name: str) -> bool:
    """Whether the arm's test is of the macro alone: `#ifdef M`, `#ifndef M`, `#if defined(M)`, `#if !defined M`."""
    text = directive_code(c.source.body[c.tokens.ends[arm.name_i] : arm.span[1]]).decode(errors="replace")
    alone = rf"\s*!?\s*(?:defined\s*\(\s*{name}\s*\)|defined\s+{name}|{name})\s*"
    return re.fullmatch(alone, text) is not None


def _device_test(
    c: Found, w: Worlds, name: str, name_i: int, span: Span, done: list[Span], plan: ArmChoice | None
) -> bool | None:
    """Rewrite or report one conditional directive; whether it holds on the AMD device pass after translation."""
    tokens = c.tokens
    if name == "else":
        return True
    first = next_code(tokens, name_i)
    if name in ("ifdef", "ifndef", "elifdef", "elifndef"):
        return _defined_test(c, w, name, name_i, first, done, plan)
    if name not in _CONDITIONALS:
        return None
    code = code_of(tokens, first, bisect.bisect_left(tokens.starts, span[1]))
    if not any(tokens.text(k) in MACROS for k in code):
        return None
    pp = pp_tokens(tokens, code)
    try:
        if not mentions(parse(pp), MACROS):
            return None
        if only_defined_arch(pp):  # the rename rule's `defined(__HIP_DEVICE_COMPILE__)` is exact
            return _device_value(pp, w)
        done.append(span)
        pp = _renamed(c, pp)
        said = (tokens.starts[code[0]], tokens.ends[code[-1]])
        test = Test(pp, said, written(pp), f"#{name}", comments=comments_text(tokens, code))
        device = rewrite(c, w, _planned(test, plan))
    except Undecidable as why:
        offset = tokens.starts[next(k for k in code if tokens.text(k) in MACROS)]
        report_undecidable(c, w, f"#{name}", offset, pp, str(why))
        return hip_reading(pp, w)
    value = condition_text(device)
    return None if value not in ("0", "1") else value == "1"


def _planned(test: Test, plan: ArmChoice | None) -> Test:
    return test if plan is None else test._replace(chosen=plan.chosen, why=plan.why, quiet=plan.quiet)


def _device_value(pp: list[PPToken], w: Worlds) -> bool | None:
    """Whether the test holds on nvcc's device pass, where that is known."""
    value = condition_text(evaluate(parse(pp), w.device))
    return None if value not in ("0", "1") else value == "1"


def _renamed(c: Found, pp: list[PPToken]) -> list[PPToken]:
    """The test with the other names the rules rename (`__CUDACC__`) in their HIP spelling: the rewritten
    line is not matched again."""
    out = []
    for t in pp:
        found = c.table.identifiers.get(t.text) if t.text not in MACROS else None
        hip = found.rule.hip if found is not None and found.rewrites and found.rule is not None else ""
        out.append(t._replace(text=hip) if hip else t)
    return out


def _defined_test(
    c: Found, w: Worlds, name: str, name_i: int, first: int, done: list[Span], plan: ArmChoice | None
) -> bool | None:
    """`#ifdef M`: __CUDA_ARCH__ is renamed to __HIP_DEVICE_COMPILE__ (rules); a version macro, which nvcc
    always defines (cuda_runtime_api.h, the compiler) and HIP never does, is rewritten as `defined(M)` is."""
    tokens = c.tokens
    macro = tokens.text(first) if first < len(tokens) else ""
    if macro == ARCH:
        return name.endswith("ifdef")
    if macro not in VERSIONS:
        return None
    span = (tokens.starts[name_i], tokens.ends[first])
    done.append(span)
    negated = "!" if name.endswith("ifndef") else ""
    pp = [PPToken(t, False) for t in (negated, "defined", "(", macro, ")") if t]
    lead = "elif " if name.startswith("elif") else "if "
    device = rewrite(c, w, _planned(Test(pp, span, f"#{name} {macro}", f"#{name}", lead), plan))
    return condition_text(device) == "1"


def _dead_kernels(c: Found, dead: list[MacroBranch]) -> None:
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
        name, brace = body
        k = brace + 1
        while k < len(tokens) and (tokens.kinds[k] in _CODE or c.directive_around(tokens.starts[k]) is not None):
            k += 1
        if k >= len(tokens) or _covering(regions, region_starts, tokens.starts[k]) is None:
            continue  # its first code is compiled: known without finding where the body ends
        close = matching_close(tokens, brace)
        first = _all_covered(c, regions, region_starts, brace + 1, close) if close is not None else None
        if first is not None:
            line = c.source.line_col(next(b.line for b in dead if b.region == first))[0]
            c.diag(
                tokens.starts[name],
                KERNEL_BODY_NOT_COMPILED,
                f"the whole body of kernel {tokens.text(name)} is in a branch that is not compiled for AMD devices "
                f"(line {line}): the kernel compiles empty, and every launch of it computes nothing",
                symbol=tokens.text(name),
            )


def _all_covered(c: Found, regions: list[Span], region_starts: list[int], first: int, last: int) -> Span | None:
    """The region holding the first code token of tokens[first:last] when every one of them is in a region
    (None: one is not, or there is none); it stops at the first that is not, as most kernels' first does."""
    tokens, found = c.tokens, None
    for k in range(first, last):
        if tokens.kinds[k] in _CODE or c.directive_around(tokens.starts[k]) is not None:
            continue
        region = _covering(regions, region_starts, tokens.starts[k])
        if region is None:
            return None
        found = region if found is None else found
    return found


def _covering(regions: list[Span], starts: list[int], pos: int) -> Span | None:
    """The outermost region that holds pos (regions nest)."""
    k = bisect.bisect_right(starts, pos)
    return next((r for r in regions[:k] if r[0] <= pos < r[1]), None)


def _body(tokens: Tokens, i: int) -> tuple[int, int] | None:
    """The kernel declared at `__global__` token i: (its name token, `{`); None for a declaration."""
    j, name = next_code(tokens, i), -1
    for _ in range(256):
        if j >= len(tokens) or is_punct(tokens, j, ";", "}"):
            return None
        if is_punct(tokens, j, "{"):
            return None if name < 0 else (name, j)
        if is_punct(tokens, j, "(", "["):
            before = prev_code(tokens, j)
            if is_punct(tokens, j, "(") and before >= 0 and tokens.kinds[before] == TokenKind.IDENTIFIER:
                name = before
            j = matching_close(tokens, j) or len(tokens)
        j = next_code(tokens, j)
    return None


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    """The matcher: runs before the names, as it takes over their lines, and tells the later matchers the tests
    it rewrote (Earlier.rewritten_tests)."""
    found = Found(ctx, earlier)
    tested = match_version_macros(found, ctx.directives, ctx.words)
    return found.result(taken=tuple(tested))
