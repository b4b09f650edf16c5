"""Runtime calls made by a project's token-pasting macro: `#define cuda(fn) cuda##fn` used as
`cuda(MallocHost(&p, n))`, `#define CU(x) cu##x` as `CU(Init(0))`. Each use's pasted name (`cuda` + `MallocHost`)
is looked up as a whole CUDA name in the rule table, and its rule applies to the use as to a direct call.

Where every use in the file is renamed (a HIP name, `hip...`) the macro keeps working: its body pastes `hip##`
instead, and a use whose HIP name differs beyond the prefix gets the HIP suffix (`cuda(MallocHost(...))` ->
`cuda(HostMalloc(...))`, making hipHostMalloc). Where one use cannot be (a name with no rule, one the target
lacks, a call its rule reshapes), the macro stays as it is and each renamed use is written out whole
(`hipHostMalloc(&p, n)`); the others are reported and left. A deprecated HIP name is reported as for a direct
call (HC004), an overload hipconv_compat.h adds (hipconv/data/cuda.overloads) is added for a pasted use too
(HC033). The macro is the file's own `#define` whose whole body is `PREFIX ## parameter`; others are reported by
unknown_api (HC001) as before."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hipconv.diagnostics import NO_RULE, OVERLOAD_SHIMMED, UNFIT_CALL
from hipconv.results import COMPAT_HEADER
from hipconv.rules.model import Action, Resolution
from hipconv.translate.calls import needs_arguments
from hipconv.translate.context import FileContext
from hipconv.translate.edits import Edit
from hipconv.translate.found import NOTHING, Earlier, Found, MatchResult
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.matchers.overload_shims import overloads
from hipconv.translate.status import status_message
from hipconv.translate.syntax import Span, is_punct, next_code, parse_call
from hipconv.translate.words import identifier_tokens, inside

# the prefixes a macro pastes onto a CUDA name's rest (unknown_api reports every `##` after one of them)
PREFIXES = frozenset({"cuda", "cu", "cublas", "cufft", "curand", "cusparse", "cusolver", "nccl", "nvrtc"})
_HIP = "hip"


@dataclass(frozen=True)
class PasteMacro:
    name: str  # cuda
    prefix: str  # cuda
    prefix_token: int  # the prefix in the body
    line: Span  # the #define line


@dataclass(frozen=True)
class PastedUse:
    callee: int  # the macro's name at the use
    suffix: int  # the argument's first token (MallocHost)
    close: int  # the macro call's `)`
    cuda: str  # cudaMallocHost
    resolution: Resolution | None


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    if b"##" not in ctx.tokens.body or not any(p.encode() in ctx.words for p in PREFIXES):
        return NOTHING
    found = Found(ctx, earlier)
    taken: list[Span] = []
    for macro in paste_macros(ctx):
        uses = _uses(ctx, macro, earlier.skip)
        if uses:
            _translate(found, macro, uses)
            taken.append((ctx.tokens.starts[macro.prefix_token], ctx.tokens.ends[macro.prefix_token]))
    return found.result(taken=tuple(taken), uses_api=bool(taken))


def paste_macros(ctx: FileContext) -> list[PasteMacro]:
    """The file's `#define NAME(P) PREFIX ## P`: one parameter, pasted whole onto a CUDA prefix."""
    tokens, out = ctx.tokens, []
    for _, name_i, directive in ctx.directives.lines:
        if directive != "define":
            continue
        line = ctx.directive_around(tokens.starts[name_i])
        name = next_code(tokens, name_i)
        if line is None or name >= len(tokens) or tokens.kinds[name] != TokenKind.IDENTIFIER:
            continue
        code = _code_until(tokens, name + 1, line[1])
        if len(code) != 6 or tokens.starts[code[0]] != tokens.ends[name]:  # `(` right after the name
            continue
        open_, param, close, prefix, paste, pasted = code
        if not (is_punct(tokens, open_, "(") and is_punct(tokens, close, ")") and is_punct(tokens, paste, "##")):
            continue
        if tokens.text(prefix) in PREFIXES and tokens.text(param) == tokens.text(pasted):
            out.append(PasteMacro(tokens.text(name), tokens.text(prefix), prefix, line))
    return out


def _code_until(tokens: Tokens, i: int, end: int) -> list[int]:
    out = []
    while i < len(tokens) and tokens.starts[i] < end:
        if tokens.kinds[i] != TokenKind.COMMENT:
            out.append(i)
        i += 1
    return out


def _uses(ctx: FileContext, macro: PasteMacro, skip: list[Span]) -> list[PastedUse]:
    tokens, out = ctx.tokens, []
    skip_starts = [a for a, _ in skip]
    for i in identifier_tokens(tokens, frozenset({macro.name.encode()})):
        start = tokens.starts[i]
        if macro.line[0] <= start < macro.line[1] or (skip and inside(skip, skip_starts, start)):
            continue
        call = parse_call(tokens, i) if is_punct(tokens, next_code(tokens, i), "(") else None
        if call is None or len(call.args) != 1:
            continue
        first = next_code(tokens, next_code(tokens, i))
        if tokens.kinds[first] != TokenKind.IDENTIFIER:
            continue
        cuda = macro.prefix + tokens.text(first)
        out.append(PastedUse(i, first, call.close, cuda, _resolved(ctx, first, cuda)))
    return out


def _resolved(ctx: FileContext, first: int, cuda: str) -> Resolution | None:
    """The name's resolution; for overloads by argument count (cudaEventCreate), the one the pasted call's count
    picks (None when none fits)."""
    resolution = ctx.table.identifiers.get(cuda)
    if resolution is None or resolution.overloads is None:
        return resolution
    if not is_punct(ctx.tokens, next_code(ctx.tokens, first), "("):
        return resolution.overloads.uncalled
    inner = parse_call(ctx.tokens, first)
    return None if inner is None else resolution.overloads.by_count.get(len(inner.args))


def _renamed(use: PastedUse) -> str | None:
    """The HIP name a use becomes: a rename its rule writes as for a direct call (no reshape, no shim)."""
    r = use.resolution
    rule = r.rule if r is not None else None
    if r is None or rule is None or not r.rewrites or r.action is Action.SHIM or rule.hip is None:
        return None
    if rule.params is not None and needs_arguments(rule) or r.overloads is not None:
        return None
    return rule.hip


def _translate(c: Found, macro: PasteMacro, uses: list[PastedUse]) -> None:
    tokens = c.tokens
    names = [_renamed(u) for u in uses]
    keeps_macro = all(n is not None and n.startswith(_HIP) for n in names)
    if keeps_macro:
        prefix = (tokens.starts[macro.prefix_token], tokens.ends[macro.prefix_token])
        c.edits.append(Edit.replace(*prefix, _HIP, "pasted." + macro.name))
    for use, hip in zip(uses, names):
        start = tokens.starts[use.callee]
        if hip is None:
            _report(c, macro, use)
            continue
        assert use.resolution is not None and use.resolution.rule is not None
        rule = use.resolution.rule
        if keeps_macro:
            suffix = hip[len(_HIP) :]
            if suffix != tokens.text(use.suffix):
                c.edits.append(Edit.replace(tokens.starts[use.suffix], tokens.ends[use.suffix], suffix, rule.id))
        else:  # written out whole: `cuda(MallocHost(&p, n))` -> `hipHostMalloc(&p, n)`
            c.edits.append(Edit.replace(start, tokens.ends[use.suffix], hip, rule.id))
            c.edits.append(Edit.replace(tokens.starts[use.close], tokens.ends[use.close], "", rule.id))
        c.replaced(start, use.cuda, hip, rule.id, rule.library)
        said = status_message(c, use.cuda, rule, use.resolution.action)
        if said is not None:
            c.diag(start, said[0], f"{macro.name}(...) pastes {use.cuda}: {said[1]}", rule, use.cuda)
        _overloads(c, use, hip)


def _report(c: Found, macro: PasteMacro, use: PastedUse) -> None:
    start, r = c.tokens.starts[use.callee], use.resolution
    rule = r.rule if r is not None else None
    suffix = c.tokens.text(use.suffix)
    pasted = f"{macro.name}(...) pastes {macro.prefix}##{suffix}, {use.cuda}"
    if (r is None or r.action is Action.NO_RULE) and _parameter_of_definition(c, start, suffix):
        c.diag(
            start,
            NO_RULE,
            f"{macro.name}({suffix}) pastes {macro.prefix}## onto a parameter of the macro defined here: the CUDA "
            f"name is formed where that macro is used, which hipconv does not follow; left unchanged (so is "
            f"{macro.name})",
            symbol=use.cuda,
        )
    elif r is None or r.action is Action.NO_RULE:
        c.diag(start, NO_RULE, f"{pasted}, which no rule knows; left unchanged (so is the macro)", symbol=use.cuda)
    elif rule is not None and (said := status_message(c, use.cuda, rule, r.action)) is not None:
        c.diag(start, said[0], f"{pasted}: {said[1]}", rule, use.cuda)
    else:
        message = f"{pasted}, whose HIP call is not a rename (its arguments move, or it has overloads); left unchanged"
        c.diag(start, UNFIT_CALL, message, rule, use.cuda)


def _overloads(c: Found, use: PastedUse, hip: str) -> None:
    """An overload hipconv_compat.h adds for the name where the target lacks it (overload_shims), for the pasted
    use as for a direct call; the argument types are not read here."""
    if not c.settings.compat:
        return
    rocm = str(c.settings.rocm)
    for o in overloads():
        if o.cuda == use.cuda and rocm in o.lacking:
            c.shims.add(o.shim)
            message = (
                f"{o.cuda}({', '.join(o.params)}) is not in ROCm {rocm}, which declares {o.hip or o.cuda} for other "
                f"types: {COMPAT_HEADER} adds that overload (a pasted call: its argument types are not read); "
                f"the call becomes {hip}"
            )
            c.diag(c.tokens.starts[use.callee], OVERLOAD_SHIMMED, message, None, o.cuda)


_DEFINED_WITH = re.compile(rb"\s*#\s*define\s+\w+\(([^)]*)\)")


def _parameter_of_definition(c: Found, offset: int, name: str) -> bool:
    """Whether the use at `offset` sits in a function-like #define that takes `name` as a parameter."""
    span = c.ctx.directive_around(offset)
    found = _DEFINED_WITH.match(c.tokens.body, span[0]) if span is not None else None
    return found is not None and name.encode() in (p.strip() for p in found.group(1).split(b","))
