"""What the matchers of one file produce, and the status policy that turns a rule's resolution
into an edit and/or a diagnostic (decided here, in one place)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hipconv.diagnostics import DEPRECATED, EXPERIMENTAL, NO_RULE, NOT_IN_TARGET, REMOVED, UNSUPPORTED, Diagnostic
from hipconv.results import Replacement
from hipconv.rules.model import Action, LookupTable, Resolution, Rule, RuleStatus
from hipconv.settings import Settings
from hipconv.translate.comments import keep_comments
from hipconv.translate.edits import Edit, Part
from hipconv.translate.lexer import Tokens
from hipconv.translate.source import SourceFile
from hipconv.translate.syntax import Span

if TYPE_CHECKING:
    from hipconv.translate.mask_names import MaskName, ProjectMask


@dataclass(frozen=True)
class FileMatches:
    edits: tuple[Edit, ...]
    diagnostics: tuple[Diagnostic, ...]
    replacements: tuple[Replacement, ...]
    shims: frozenset[str] = frozenset()  # the shims of hipconv_compat.h the file uses (translate.compat)


@dataclass
class MatchCollector:
    """One file's tokens and table in; its edits, diagnostics and replacements accumulate here."""

    source: SourceFile
    tokens: Tokens
    table: LookupTable
    settings: Settings
    edits: list[Edit] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    replacements: list[Replacement] = field(default_factory=list)
    defines_needed: set[str] = field(default_factory=set)
    dropped: list[Span] = field(default_factory=list)  # arguments a rewrite left out of its output
    kept: list[Span] = field(default_factory=list)  # calls a rewrite left as they are, arguments included
    directive_spans: list[Span] = field(default_factory=list)  # the preprocessor lines, in order
    # (callee, statement) of each call whose template takes its statement (calls._statement_calls)
    statement_calls: list[tuple[int, Span | None]] | None = None
    compat_include: str = "hipconv_compat.h"  # how the file includes hipconv_compat.h (translate.compat)
    shims: set[str] = field(default_factory=set)  # the shims the file uses
    compat_included: bool = False  # a CUDA header's include became the include of hipconv_compat.h
    mask_names: dict[str, MaskName | None] | None = None  # lane masks given by name (mask_names.mask_name)
    project_masks: Mapping[str, ProjectMask] = field(default_factory=dict)  # ... as the run's files define them
    widened_definitions: set[int] = field(default_factory=set)  # their definitions widened, by name token
    # the tests version_tests.rewrite replaced: start offset -> (end offset, the condition written there)
    rewritten_tests: dict[int, tuple[int, str]] = field(default_factory=dict)
    # where each diagnostic points, and whether it is about the API there (forgotten when that API is dropped)
    _anchors: list[tuple[int, bool]] = field(default_factory=list)
    _replacement_offsets: list[int] = field(default_factory=list)  # likewise for the replacements

    def diag(
        self,
        offset: int,
        code: str,
        message: str,
        rule: Rule | None = None,
        symbol: str = "",
        *,
        about_api: bool = True,
    ) -> None:
        """Report at offset; `about_api=False` for findings about an argument (a lane mask), which stay
        even when the argument is dropped."""
        line, col = self.source.line_col(offset)
        self.diagnostics.append(Diagnostic(self.source.path, line, col, code, message, rule.id if rule else "", symbol))
        self._anchors.append((offset, about_api))

    def replaced(self, offset: int, cuda: str, hip: str, rule_id: str, library: str) -> None:
        line, col = self.source.line_col(offset)
        self.replacements.append(Replacement(line, col, cuda, hip, rule_id, library))
        self._replacement_offsets.append(offset)

    def crosses_directive(self, start: int, end: int, *, inside_ok: bool = True) -> bool:
        """True when [start, end) holds part of a preprocessor line: rewriting it would move or drop the
        directive. With inside_ok, a range wholly inside one (a call in a macro body) does not count."""
        k = bisect.bisect_left(self.directive_spans, (end,))
        for a, b in reversed(self.directive_spans[:k]):
            if b <= start:
                return False
            if not (inside_ok and a <= start and end <= b):
                return True
        return False

    def directive_around(self, offset: int) -> Span | None:
        """The preprocessor line that holds offset (None in code)."""
        k = bisect.bisect_right(self.directive_spans, (offset, len(self.source.body) + 1)) - 1
        if k >= 0 and self.directive_spans[k][0] <= offset < self.directive_spans[k][1]:
            return self.directive_spans[k]
        return None

    def keep_whole(self, start: int, end: int) -> None:
        """A call left as it is stays as it is: no rename inside it applies, nor counts."""
        self.kept.append((start, end))

    def forget_dropped(self) -> None:
        """What was found inside an argument the rewrite dropped is not in the output: neither an
        API to report nor a replacement to count. Inside a call kept whole, the names stay and are
        reported, but nothing is replaced."""
        if not self.dropped and not self.kept:
            return

        dropped, kept = _Cover(self.dropped), _Cover(self.kept)

        def gone(offset: int) -> bool:  # inside a dropped argument: a <= offset < b
            return dropped.furthest(offset, True) > offset

        def untouched(edit: Edit) -> bool:  # not inside a kept call, as Edit.contains has it
            if not edit.parts:  # a deletion may be a kept range itself, which does not contain itself
                return not any(Edit(a, b, ()).contains(edit) for a, b in self.kept)
            if edit.start == edit.end:
                return kept.furthest(edit.start, False) <= edit.start
            return kept.furthest(edit.start, True) < edit.end

        keep = [not (about_api and gone(offset)) for offset, about_api in self._anchors]
        self.diagnostics = [d for d, k in zip(self.diagnostics, keep) if k]
        self.replacements = [
            r
            for r, o in zip(self.replacements, self._replacement_offsets)
            if not gone(o) and not kept.furthest(o, False) > o
        ]
        self.edits = [e for e in self.edits if untouched(e)]

    def result(self) -> FileMatches:
        self.forget_dropped()
        return FileMatches(tuple(self.edits), tuple(self.diagnostics), tuple(self.replacements), frozenset(self.shims))


def apply_resolution(
    c: MatchCollector,
    start: int,
    end: int,
    cuda: str,
    resolution: Resolution,
    *,
    rename: bool,
    spelling: str | None = None,
) -> None:
    """Turn one resolution into an edit and/or a diagnostic: the status policy lives here. `spelling`: what
    a rename writes instead of the rule's HIP name (the HIP tag, after `struct`)."""
    rule, action = resolution.rule, resolution.action
    assert action is not Action.OVERLOADED, "pick the overload first (calls.pick_overload)"
    if action is Action.REWRITE and rename:  # the hot path: a plain rename
        assert rule is not None and rule.hip is not None
        _rename(c, start, end, cuda, rule, spelling)
        return
    if action is Action.NO_RULE:
        c.diag(
            start,
            NO_RULE,
            f"{cuda} ({resolution.library}) is CUDA API with no hipconv rule; left unchanged",
            symbol=cuda,
        )
        return
    assert rule is not None
    message = status_message(c, cuda, rule, action)
    if message is not None and not (rename and rule.rewrite_code and action is Action.REWRITE_DEPRECATED):
        # a rewrite with a code of its own (HC027) says it once, with the deprecation in its note
        code, text = message
        c.diag(start, code, text, rule, cuda)
    if action in (Action.REWRITE, Action.REWRITE_DEPRECATED):
        if rename:
            _rename(c, start, end, cuda, rule, spelling)
        elif rule.requires_define:  # a reshaped call: the caller writes the edit
            c.defines_needed.add(rule.requires_define)


def _rename(c: MatchCollector, start: int, end: int, cuda: str, rule: Rule, spelling: str | None) -> None:
    if rule.requires_define:
        c.defines_needed.add(rule.requires_define)
    hip = spelling or rule.hip
    if hip and hip != cuda:
        parts: tuple[Part, ...] = (hip,)
        if end - start > len(cuda):  # `cub:: /* why */ DeviceReduce`: a name with blanks or comments inside
            parts = keep_comments(c.tokens, (start, end), parts, c.source.newline_at(start))
        c.edits.append(Edit(start, end, parts, rule.id))
        c.replaced(start, cuda, hip, rule.id, rule.library)
        if rule.rewrite_code:  # a rewrite worth a note (a CUDA header guard's test: HC010)
            said = f" ({rule.note})" if rule.note else ""
            c.diag(start, rule.rewrite_code, f"{cuda} rewritten to {hip}{said}", rule, cuda)


# libraries NVIDIA versions apart from the CUDA toolkit: a rule's `nvidia:` versions are theirs
_NVIDIA_PRODUCTS = {"cudnn": "cuDNN", "nccl": "NCCL"}


def nvidia_status(rule: Rule) -> str:
    """What NVIDIA did with the CUDA name, for every diagnostic about it: `deprecated in CUDA 11.8, removed
    in CUDA 13.0` (the rule's `nvidia:` block); empty when CUDA still declares it, not deprecated."""
    product = _NVIDIA_PRODUCTS.get(rule.library, "CUDA")
    words = [f"{key} in {product} {rule.nvidia[key]}" for key in ("deprecated", "removed") if key in rule.nvidia]
    return ", ".join(words)


def status_message(c: MatchCollector, cuda: str, rule: Rule, action: Action) -> tuple[str, str] | None:
    """The (code, message) a resolution reports, if any."""
    said = "; ".join(filter(None, (nvidia_status(rule), rule.note)))
    note = f" ({said})" if said else ""
    if action is Action.UNSUPPORTED:
        return rule.code or UNSUPPORTED, f"{cuda} has no HIP equivalent; left unchanged{note}"
    if action is Action.REMOVED:
        if rule.status is not RuleStatus.REMOVED:  # its range ended at or before the target
            return (
                rule.code or REMOVED,
                f"{rule.hip} was removed in ROCm {rule.rocm.until}; {cuda} left unchanged{note}",
            )
        when = f" in ROCm {rule.rocm.removed}" if rule.rocm.removed else ""
        return rule.code or REMOVED, f"{cuda} was removed from HIP{when}; left unchanged{note}"
    if action is Action.UNAVAILABLE:
        first = f"; first in {rule.rocm.since}" if rule.rocm.since else ""
        return NOT_IN_TARGET, f"{rule.hip} is not in ROCm {c.settings.rocm}{first}; {cuda} left unchanged{note}"
    if action is Action.KEEP_EXPERIMENTAL:
        return EXPERIMENTAL, (
            f"{rule.hip} is experimental{note}; {cuda} left unchanged (pass --experimental to translate it)"
        )
    if action is Action.REWRITE_DEPRECATED:
        done = f"translated to {rule.hip}" if rule.hip != cuda else "HIP declares it too"
        return DEPRECATED, f"{cuda} is deprecated; {done}{note}"
    return None


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
