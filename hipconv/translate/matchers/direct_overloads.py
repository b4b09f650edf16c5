"""CUDA overloads a ROCm release has as a HIP function of another name (hipconv/data/cuda.overloads' `direct`):
CUDA 13's cudaMemPrefetchAsync(devPtr, count, cudaMemLocation, flags, stream) is ROCm 7.1+'s
hipMemPrefetchAsync_v2, cudaMemAdvise(devPtr, count, advice, cudaMemLocation) its hipMemAdvise_v2, the same
parameters. Where the target declares it, a call with every argument whose telling one visibly has the overload's
type (a variable declared a cudaMemLocation above, a cast) is renamed to it, exactly; the later matchers leave
the name alone. Any other call (an older target, a type that cannot be seen, a defaulted stream left out) is the
identifiers' rename and overload_shims' definition, as before."""

from __future__ import annotations

import functools

from hipconv.translate.context import FileContext
from hipconv.translate.edits import Edit
from hipconv.translate.found import NOTHING, Earlier, Found, MatchResult
from hipconv.translate.matchers.overload_shims import Overload, overloads, visible_type
from hipconv.translate.syntax import Span, parse_call
from hipconv.translate.words import identifier_tokens, inside, is_unqualified_call


@functools.lru_cache(maxsize=4)
def _direct(rocm: str) -> dict[bytes, Overload]:
    """The overloads the release declares directly, by the CUDA name's bytes (built once a run, not per file)."""
    return {o.cuda.encode(): o for o in overloads() if rocm in o.direct_in}


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    by_name = _direct(str(ctx.settings.rocm))
    present = [name for name in by_name if name in ctx.words]  # a few names: not the file's words walked
    if not present:
        return NOTHING
    found = Found(ctx, earlier)
    tokens, skip = ctx.tokens, earlier.skip
    skip_starts = [a for a, _ in skip]
    taken: list[Span] = []
    for i in identifier_tokens(tokens, frozenset(present)):
        if inside(skip, skip_starts, tokens.starts[i]) or not is_unqualified_call(tokens, i):
            continue
        o: Overload = by_name[tokens.text(i).encode()]
        call = parse_call(tokens, i)
        if call is None or len(call.args) != len(o.params) or visible_type(tokens, call.args[o.at]) != o.first:
            continue
        resolution = ctx.table.identifiers.get(o.cuda)
        rule = resolution.rule if resolution is not None else None
        if rule is None:
            continue
        start, end = tokens.starts[i], tokens.ends[i]
        found.edits.append(Edit.replace(start, end, o.direct, rule.id))
        found.replaced(start, o.cuda, o.direct, rule.id, rule.library)
        taken.append((start, end))
    return found.result(taken=tuple(taken), uses_api=bool(taken))
