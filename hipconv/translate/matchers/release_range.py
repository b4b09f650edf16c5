"""Release ranges (`--rocm-version LOW..HIGH`): the uses of a name, or includes of a header, that some release of
the range cannot build (HC037, with those releases).

The rule table of a range run (hipconv.rules.ranges.run_table) keeps such a name as the range's newest release
translates it and says why the others cannot (LookupTable.gaps: no counterpart there, or a call of other
arguments that no one macro spells); the names spelled per release are macros of hipconv_compat.h, which the
identifier and include matchers write. Uses are found as the identifier matcher finds names: not a member
(`x.name`), not qualified by another namespace (`ns::name`), not in what earlier matchers took (include
paths, #error text, version tests). A run of one release has no gaps: this matcher returns at once."""

from __future__ import annotations

import re

from hipconv.diagnostics import RANGE_GAP
from hipconv.rules.ranges import range_label
from hipconv.translate.context import FileContext
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.syntax import is_punct, prev_code
from hipconv.translate.words import identifier_tokens, inside

_INCLUDE_PATH = re.compile(rb'\s*[<"]([^>"\n]+)[>"]')


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    gaps = ctx.table.gaps
    if not gaps:
        return found.result()
    _includes(found, ctx)
    present = ctx.words & frozenset(name.encode() for name in gaps)
    if not present:
        return found.result()
    tokens = ctx.tokens
    skip = earlier.skip
    skip_starts = [a for a, _ in skip]
    for i in identifier_tokens(tokens, present):
        if inside(skip, skip_starts, tokens.starts[i]) or is_punct(tokens, prev_code(tokens, i), ".", "->", "::"):
            continue
        name = tokens.text(i)
        _report(found, tokens.starts[i], name, gaps[name])
    return found.result()


def _includes(found: Found, ctx: FileContext) -> None:
    """`#include <cuda_bf16.h>` where some release of the range has no header for it."""
    tokens, gaps = ctx.tokens, ctx.table.gaps
    for hash_i, name_i, name in ctx.directives.lines:
        if name != "include":
            continue
        line = ctx.directive_around(tokens.starts[hash_i])
        path = _INCLUDE_PATH.match(tokens.body, tokens.ends[name_i], line[1] if line else len(tokens.body))
        if path is not None and path[1].decode(errors="replace") in gaps:
            header = path[1].decode()
            _report(found, path.start(1), header, gaps[header])


def _report(found: Found, offset: int, name: str, why: str) -> None:
    message = f"{name} does not build on every release of ROCm {range_label(found.settings)}: {why}"
    found.diag(offset, RANGE_GAP, message, None, name)
