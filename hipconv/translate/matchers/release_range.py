"""Release ranges (`--rocm-version LOW..HIGH`): the rewrites that some release of the range cannot build
(HC037, with those releases).

The rule table of a range run (hipconv.rules.ranges.run_table) keeps such a name, or header, as the range's
newest release translates it and says why the others cannot (LookupTable.gaps: no counterpart there, or calls
of other arguments that no one macro spells); the names spelled per release are macros of hipconv_compat.h,
which the identifier and include matchers write. This matcher reads what the earlier ones rewrote (their
replacements), so a HC037 stands exactly where a name was written that not every release has: never at a
member (`x.name`), a name of another namespace, or a comment; a name HIP spells as CUDA does is found by its
tokens. A run of one release has no gaps: it returns at once."""

from __future__ import annotations

from hipconv.diagnostics import RANGE_GAP
from hipconv.rules.ranges import range_label
from hipconv.translate.context import FileContext
from hipconv.translate.found import NOTHING, Earlier, Found, MatchResult
from hipconv.translate.syntax import is_punct, prev_code
from hipconv.translate.words import identifier_tokens, inside


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    gaps = ctx.table.gaps
    if not gaps:
        return NOTHING
    found = Found(ctx, earlier)
    for result in earlier.results:
        for replacement, offset in zip(result.replacements, result.replacement_offsets):
            if replacement.cuda in gaps:
                _report(found, offset, replacement.cuda, gaps[replacement.cuda])
    _kept_spellings(found, ctx, earlier)
    return found.result()


def _kept_spellings(found: Found, ctx: FileContext, earlier: Earlier) -> None:
    """Names that HIP spells as CUDA does (`__float2bfloat16`): a rewrite to the same spelling is no edit and no
    replacement, so their uses are found as the identifier matcher finds names."""
    table, tokens = ctx.table, ctx.tokens
    same = frozenset(
        name.encode()
        for name in table.gaps
        if (resolution := table.identifiers.get(name)) is not None
        and resolution.rule is not None
        and resolution.rule.hip == name
    )
    skip = earlier.skip
    skip_starts = [a for a, _ in skip]
    for i in identifier_tokens(tokens, ctx.words & same):
        if inside(skip, skip_starts, tokens.starts[i]) or is_punct(tokens, prev_code(tokens, i), ".", "->", "::"):
            continue
        name = tokens.text(i)
        _report(found, tokens.starts[i], name, table.gaps[name])


def _report(found: Found, offset: int, name: str, why: str) -> None:
    message = f"{name} does not build on every release of ROCm {range_label(found.settings)}: {why}"
    found.diag(offset, RANGE_GAP, message, None, name)
