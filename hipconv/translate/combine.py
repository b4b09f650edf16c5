"""The combiner: the matchers' results of one file (translate.matchers, in their order) joined into its
edits, diagnostics and replacements, under the policy on what a rewrite leaves out or keeps whole, and on
edits that overlap (HC009): applying the edits (translator.edited_result) receives none that do."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from hipconv.diagnostics import OVERLAP, Diagnostic
from hipconv.results import Replacement
from hipconv.translate.edits import Edit, overlapping
from hipconv.translate.found import MatchResult
from hipconv.translate.includes import INSERT_RULE_ID
from hipconv.translate.source import SourceFile
from hipconv.translate.syntax import Span


@dataclass(frozen=True)
class FileMatches:
    edits: tuple[Edit, ...]
    diagnostics: tuple[Diagnostic, ...]
    replacements: tuple[Replacement, ...]
    shims: frozenset[str] = frozenset()  # the shims of hipconv_compat.h the file uses (translate.compat)


def combine(results: Sequence[MatchResult], source: SourceFile) -> FileMatches:
    """All the matchers' findings in source, in order, less what was found inside an argument a rewrite
    dropped (not in the output: neither an API to report nor a replacement to count), the replacements and
    edits inside a call kept whole (its names stay, and are reported, but nothing is replaced), and the
    edits that overlap another (without_overlaps)."""
    edits = [e for r in results for e in r.edits]
    diagnostics = [d for r in results for d in r.diagnostics]
    replacements = [x for r in results for x in r.replacements]
    dropped = [s for r in results for s in r.dropped]
    kept = [s for r in results for s in r.kept]
    if not dropped and not kept:
        shims = frozenset().union(*(r.shims for r in results))
        return without_overlaps(source, edits, diagnostics, replacements, shims)
    gone, inside_kept = _Cover(dropped), _Cover(kept)

    def lost(offset: int) -> bool:  # inside a dropped argument: a <= offset < b
        return gone.furthest(offset, True) > offset

    def untouched(edit: Edit) -> bool:  # not inside a kept call, as Edit.contains has it
        if not edit.parts:  # a deletion may be a kept range itself, which does not contain itself
            return not any(Edit(a, b, ()).contains(edit) for a, b in kept)
        if edit.start == edit.end:  # lines inserted (the runtime include a HIP header needs) rewrite no kept code
            return edit.rule_id == INSERT_RULE_ID or inside_kept.furthest(edit.start, False) <= edit.start
        return inside_kept.furthest(edit.start, True) < edit.end

    anchors = [a for r in results for a in r.anchors]
    offsets = [o for r in results for o in r.replacement_offsets]
    return without_overlaps(
        source,
        [e for e in edits if untouched(e)],
        [d for d, (offset, about_api) in zip(diagnostics, anchors) if not (about_api and lost(offset))],
        # (a name at a kept range's start is in it, as its edit is: a file kept whole that starts with one)
        [x for x, o in zip(replacements, offsets) if not lost(o) and not inside_kept.furthest(o, True) > o],
        used_shims(results),
    )


def used_shims(results: Sequence[MatchResult]) -> frozenset[str]:
    """The shims of hipconv_compat.h the matchers' results use, less those whose every rename lies in an argument
    a rewrite dropped or in a call kept whole (`(CUctxCreateParams *)0`, dropped): nothing left names them."""
    shims = frozenset().union(*(r.shims for r in results))
    dropped = [s for r in results for s in r.dropped]
    kept = [s for r in results for s in r.kept]
    if not shims or not (dropped or kept):
        return shims
    gone, inside_kept = _Cover(dropped), _Cover(kept)
    named: dict[str, bool] = {}  # shim -> whether a rename of it is left
    for r in results:
        for x, o in zip(r.replacements, r.replacement_offsets):
            if x.hip in shims:
                left = not gone.furthest(o, True) > o and not inside_kept.furthest(o, False) > o
                named[x.hip] = named.get(x.hip, False) or left
    return shims - {shim for shim, left in named.items() if not left}


def without_overlaps(
    source: SourceFile,
    edits: Sequence[Edit],
    diagnostics: Sequence[Diagnostic],
    replacements: Sequence[Replacement],
    shims: frozenset[str] = frozenset(),
) -> FileMatches:
    """The overlap policy (for build files too): an edit that overlaps an earlier one (edits.overlapping)
    is left out and reported as HC009 at its start, and the replacements of its rule are not counted."""
    rejected = overlapping(edits)
    if not rejected:
        return FileMatches(tuple(edits), tuple(diagnostics), tuple(replacements), shims)
    message = "this rewrite overlaps another one and was not applied"
    found = list(diagnostics)
    for edit in rejected:
        line, col = source.line_col(edit.start)
        found.append(Diagnostic(source.path, line, col, OVERLAP, message, edit.rule_id))
    left_out, rules = frozenset(rejected), {e.rule_id for e in rejected}
    return FileMatches(
        tuple(e for e in edits if e not in left_out),
        tuple(found),
        tuple(r for r in replacements if r.rule_id not in rules),
        shims,
    )


class _Cover:
    """Ranges, asked which one starting at or before an offset reaches furthest: one sort and a
    bisect per question, where scanning every range per question grows with the square of nested
    rewrites (each level drops or keeps a range)."""

    def __init__(self, ranges: list[Span]) -> None:
        ordered = sorted(ranges)
        self.starts = [a for a, _ in ordered]
        self.reach = list(itertools.accumulate((b for _, b in ordered), max))

    def furthest(self, offset: int, inclusive: bool) -> int:
        """The largest end among the ranges that start before offset (at it too, when inclusive); -1 if none."""
        k = (bisect.bisect_right if inclusive else bisect.bisect_left)(self.starts, offset)
        return self.reach[k - 1] if k else -1
