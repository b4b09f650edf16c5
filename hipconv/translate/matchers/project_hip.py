"""A project's own HIP path (facts.hip_switches): its switch turned on, its HIP code kept as written.

- Each test of a project switch (`MYLIB_USE_HIP`) is rewritten to its reading with the switch defined,
  the original kept in a comment (`#if 1 /* hipconv: defined(MYLIB_USE_HIP) */`, as version tests are):
  a plain `hipcc file.cu` then compiles the project's AMD branches, whichever of its headers a
  translation unit includes first; hipcc's own macros (`__HIPCC__`) need no rewrite.
- HIP code is kept whole: the branches a switch selects, alias lines (`#define cudaMalloc hipMalloc`)
  wherever they are, and a file written for HIP (it includes a `hip/` header and uses HIP names, and no
  CUDA header). They are this matcher's `kept` spans, which the combiner holds every matcher's edits
  out of (combine.combine), so no renaming matcher needs to know about them.
- HC030 says so at the first test of each switch in a file. With `--project-hip-path off` nothing is
  rewritten or kept, and HC030 says the switch stays off.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterator, Sequence

from hipconv.diagnostics import PROJECT_HIP_PATH
from hipconv.translate.comments import comments_in
from hipconv.translate.context import FileContext
from hipconv.translate.directives import directive_last_token
from hipconv.translate.edits import Edit
from hipconv.translate.facts.hip_switches import (
    COMPILER_SWITCHES,
    HIP_HEADER_PREFIX,
    alias_of,
    directive_code,
    hip_spellings,
    switch_tests,
    tested_names,
)
from hipconv.translate.found import NOTHING, Earlier, Found, MatchResult
from hipconv.translate.include_closure import include_lines
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.syntax import Span, is_punct, next_code, prev_code
from hipconv.translate.version_tests import MACROS as VERSION_MACROS
from hipconv.translate.words import token_occurrences

RULE_ID = "project.hip-switch"
_OPENERS = ("if", "ifdef", "ifndef")
_ALTERNATIVES = ("elif", "elifdef", "elifndef", "else")


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    names = hip_spellings(ctx.table)
    own = switch_tests(ctx.source.body, ctx.table)  # a project's switch says HIP or ROCm: found here too
    hip_words = not ctx.words.isdisjoint(names)  # what an alias line and a file written for HIP need
    if not own.tested and not hip_words:
        return NOTHING
    known = ctx.project_switches  # the run's verdict wins over the file's own (None: the project defines it)
    found_here = own.switches | own.translated
    switches = {n for n in found_here if n not in known} | {n for n, tests in known.items() if tests}
    counts = {n: known.get(n) or t for n, t in own.tested.items() if n in switches}
    found = Found(ctx, earlier)
    keep = ctx.settings.project_hip_path == "keep"
    rewritten: list[Span] = []
    branches: list[Span] = []
    for test in _tests(ctx, frozenset(counts)) if counts else ():
        if keep and test.name not in COMPILER_SWITCHES:
            # a comment inside the test (`#ifdef /* c */ M`, `defined(/* c */ M)`) stays, after the rewrite
            kept = "".join(f" {ctx.tokens.body[a:b].decode()}" for a, b in comments_in(ctx.tokens, test.span))
            found.edits.append(Edit.replace(test.span[0], test.span[1], test.text + kept, RULE_ID))
            rewritten.append(test.span)
            # what a guard built from the test reads there (translate.branches), as a second run reads it
            found.rewritten_tests[test.span[0]] = (test.span[1], test.value)
        if test.name in counts:
            _note(found, test.span[0], test.name, counts.pop(test.name), keep=keep, cuda=test.name in own.translated)
    if not keep:
        return found.result()
    # a switch whose branches here hold CUDA code that becomes HIP, and no HIP code: translated, not kept
    if selecting := switches - own.translated:
        branches += _selected_branches(ctx, selecting)
    if hip_words:  # else no alias line (its body is a HIP spelling), and not a file written for HIP
        branches += _alias_lines(ctx)
        if _written_for_hip(ctx) and not _launches_asked_for(ctx):
            branches.append((0, len(ctx.source.body)))
    found.kept += _without(branches, rewritten)
    return found.result(taken=tuple(rewritten))


def _note(found: Found, offset: int, name: str, tests: int, *, keep: bool, cuda: bool) -> None:
    said = f"this project has its own HIP path ({name}, {tests} test{'s' if tests != 1 else ''}); "
    if not keep:
        said += "translated without it (--project-hip-path off): its CUDA branches are the ones compiled"
    elif name in COMPILER_SWITCHES:
        said += f"its AMD branches are {'translated' if cuda else 'kept as written'} (hipcc defines {name})"
    else:
        branches = "translated (CUDA code here)" if cuda else "kept"
        said += f"its AMD branches are {branches}, and its tests read {name} as defined"
    found.diag(offset, PROJECT_HIP_PATH, said, symbol=name, about_api=False)


class _Test:
    """One test of a switch in a conditional directive: what replaces it, and its value (`1`, `0`)."""

    __slots__ = ("name", "span", "text", "value")

    def __init__(self, name: str, span: Span, text: str, value: str = "1") -> None:
        self.name, self.span, self.text, self.value = name, span, text, value


def _tests(ctx: FileContext, switches: frozenset[str]) -> Iterator[_Test]:
    """The switches' tests in conditional directives, in order, each with its reading as defined."""
    tokens = ctx.tokens
    for hash_i, name_i, directive in ctx.directives.lines:
        if directive in ("define", "undef", "include", "else", "endif") or directive not in (*_OPENERS, *_ALTERNATIVES):
            continue
        last = directive_last_token(tokens, hash_i)
        if any(tokens.text(k) in VERSION_MACROS for k in range(name_i + 1, last + 1)):
            continue  # version_macros rewrites the whole test: a second edit in it would overlap (HC009)
        if directive.endswith("def"):  # #ifdef, #ifndef, #elifdef, #elifndef
            k = next_code(tokens, name_i)
            if k <= last and tokens.text(k) in switches:
                on = "1" if directive.endswith("ifdef") else "0"
                lead = "elif" if directive.startswith("elif") else "if"
                said = f"#{directive} {tokens.text(k)}"
                yield _Test(
                    tokens.text(k), (tokens.starts[name_i], tokens.ends[k]), f"{lead} {on} /* hipconv: {said} */", on
                )
            continue
        yield from _expression_tests(tokens, name_i, last, switches)


def _expression_tests(tokens: Tokens, name_i: int, last: int, switches: frozenset[str]) -> Iterator[_Test]:
    """`defined(M)`, `defined M` and a bare `M` in an #if or #elif expression."""
    k = next_code(tokens, name_i)
    while k <= last:
        if tokens.kinds[k] != TokenKind.IDENTIFIER:
            k = next_code(tokens, k)
            continue
        word = tokens.text(k)
        if word == "defined":
            inner = next_code(tokens, k)
            paren = is_punct(tokens, inner, "(")
            name_k = next_code(tokens, inner) if paren else inner
            close = next_code(tokens, name_k) if paren else name_k
            # (a `)` on the next line, after a line comment, is code: the test ends at the directive's end)
            closed = not paren or (close <= last and is_punct(tokens, close, ")"))
            if name_k <= last and tokens.text(name_k) in switches and closed:
                name = tokens.text(name_k)
                yield _Test(name, (tokens.starts[k], tokens.ends[close]), f"1 /* hipconv: defined({name}) */")
            k = next_code(tokens, close if close <= last else k)
            continue
        if word in switches and not is_punct(tokens, prev_code(tokens, k), "("):
            yield _Test(word, (tokens.starts[k], tokens.ends[k]), f"1 /* hipconv: {word} */")
        k = next_code(tokens, k)


def _selected_branches(ctx: FileContext, switches: Collection[str]) -> list[Span]:
    """The bodies of the branches a switch selects when defined: after a test that names it (not negated),
    and the #else after one that negates it."""
    tokens, spans = ctx.tokens, ctx.directives.spans
    span_starts = [a for a, _ in spans]
    selected: list[Span] = []
    stack: list[tuple[int | None, bool]] = []  # per open chain: where the selected body starts, negated so far
    for hash_i, name_i, directive in ctx.directives.lines:
        if directive not in (*_OPENERS, *_ALTERNATIVES, "endif"):
            continue
        start, end = spans[bisect.bisect_right(span_starts, tokens.starts[hash_i]) - 1]
        if directive not in _OPENERS and stack:
            body_start, negated = stack.pop()
            if body_start is not None:
                selected.append((body_start, start))
        elif directive not in _OPENERS:
            continue
        else:
            negated = False
        if directive == "endif":
            continue
        text = tokens.body[tokens.ends[name_i] : end]
        readings = [on for n, on in tested_names(directive.encode(), directive_code(text)) if n in switches]
        selects = any(readings) or (directive == "else" and negated)
        stack.append((end if selects else None, negated or (bool(readings) and not all(readings))))
    return selected


def _alias_lines(ctx: FileContext) -> list[Span]:
    """Every `#define cudaX hipX` line of the file, wherever it is."""
    tokens, spans = ctx.tokens, ctx.directives.spans
    span_starts = [a for a, _ in spans]
    found: list[Span] = []
    for hash_i, name_i, directive in ctx.directives.lines:
        if directive != "define":
            continue
        last = directive_last_token(tokens, hash_i)
        name_k = next_code(tokens, name_i)
        body_k = next_code(tokens, name_k)
        if body_k == last and tokens.starts[body_k] > tokens.ends[name_k]:  # not `#define f(x)`
            if alias_of(ctx.table, tokens.text(name_k), tokens.text(body_k)):
                found.append(spans[bisect.bisect_right(span_starts, tokens.starts[hash_i]) - 1])
    return found


def _written_for_hip(ctx: FileContext) -> bool:
    """A file written for HIP, of one that uses HIP names: it includes a `hip/` header, and no CUDA header."""
    paths = [path for _, path in include_lines(ctx.source.body)]
    return any(p.startswith(HIP_HEADER_PREFIX) for p in paths) and not any(p in ctx.table.includes for p in paths)


def _launches_asked_for(ctx: FileContext) -> bool:
    """`--kernel-launch hip` on a HIP file with `<<<` launches (a tree hipconv translated, run again to change its
    launches): `<<<` is HIP too, so the file is kept whole only where the user did not ask for the other form."""
    if ctx.settings.kernel_launch != "hip" or b"<<<" not in ctx.source.body:
        return False
    return bool(token_occurrences(ctx.tokens, (b"<<<",), (TokenKind.PUNCTUATION,), first_only=True))  # not in a comment


def _without(spans: Sequence[Span], holes: Sequence[Span]) -> list[Span]:
    """The spans less the holes (the tests rewritten inside a kept branch stay rewritten)."""
    out: list[Span] = []
    for a, b in spans:
        for h, e in sorted(holes):
            if e <= a or h >= b:
                continue
            if h > a:
                out.append((a, h))
            a = max(a, e)
        if a < b:
            out.append((a, b))
    return out
