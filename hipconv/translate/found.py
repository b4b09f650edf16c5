"""What one matcher finds in one file: a Found it fills alone while it runs, frozen into its MatchResult.

A matcher (translate.matchers) reads a FileContext and what the matchers before it reported (Earlier),
and returns a MatchResult; nothing is shared between matchers but those frozen values. The results are
joined, and the overlap policy applied, by translate.combine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from hipconv.diagnostics import Diagnostic
from hipconv.results import Replacement
from hipconv.rules.model import Rule
from hipconv.translate.context import FileContext
from hipconv.translate.directives import Includes
from hipconv.translate.edits import Edit
from hipconv.translate.syntax import Span

_NO_TESTS: Mapping[int, tuple[int, str]] = MappingProxyType({})


@dataclass(frozen=True)
class MatchResult:
    edits: tuple[Edit, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    # where each diagnostic points, and whether it is about the API there (forgotten when that API is dropped)
    anchors: tuple[tuple[int, bool], ...] = ()
    replacements: tuple[Replacement, ...] = ()
    replacement_offsets: tuple[int, ...] = ()  # where each replacement is, likewise
    shims: frozenset[str] = frozenset()  # the shims of hipconv_compat.h it uses (translate.compat)
    defines: frozenset[str] = frozenset()  # the defines its rewrites need before the runtime header
    dropped: tuple[Span, ...] = ()  # arguments a rewrite left out of its output
    kept: tuple[Span, ...] = ()  # calls a rewrite left as they are, arguments included
    taken: tuple[Span, ...] = ()  # what the later matchers leave alone (include paths, version tests)
    # the tests version_tests.rewrite replaced: start offset -> (end offset, the condition written there)
    rewritten_tests: Mapping[int, tuple[int, str]] = field(default_factory=lambda: _NO_TESTS)
    compat_included: bool = False  # a CUDA header's include became the include of hipconv_compat.h
    uses_api: bool = False  # the file uses a CUDA API (the identifiers matcher)
    includes: Includes | None = None  # the file's include lines (the includes matcher)
    headers: frozenset[str] = frozenset()  # system headers it needs beside the runtime include (<math.h>)


NOTHING = MatchResult()


class Earlier:
    """The results of the matchers that ran before one, in order, and what they tell the later ones (each
    worked out once, when first asked). A plain class: one is made for each matcher on each file, and most
    matchers read none of it."""

    __slots__ = ("results", "_skip", "_tests")

    def __init__(self, results: tuple[MatchResult, ...] = ()) -> None:
        self.results = results
        self._skip: list[Span] | None = None
        self._tests: Mapping[int, tuple[int, str]] | None = None

    @property
    def skip(self) -> list[Span]:
        """The spans the earlier matchers took (include paths, #error/#warning text, version tests), in order."""
        if self._skip is None:
            self._skip = sorted(span for r in self.results for span in r.taken)
        return self._skip

    @property
    def rewritten_tests(self) -> Mapping[int, tuple[int, str]]:
        """The version tests rewritten (version_macros): what a later matcher reads as the translated text."""
        if self._tests is None:
            found = [r.rewritten_tests for r in self.results if r.rewritten_tests]
            self._tests = found[0] if len(found) == 1 else {k: v for tests in found for k, v in tests.items()}
        return self._tests

    @property
    def includes(self) -> Includes | None:
        return next((r.includes for r in self.results if r.includes is not None), None)


class Found:
    """One matcher's findings in one file while it runs: its own, never handed to another matcher."""

    __slots__ = (
        "ctx",
        "earlier",
        "source",
        "tokens",
        "table",
        "settings",
        "edits",
        "diagnostics",
        "anchors",
        "replacements",
        "replacement_offsets",
        "shims",
        "defines",
        "headers",
        "dropped",
        "kept",
        "compat_included",
        "rewritten_tests",
    )

    def __init__(self, ctx: FileContext, earlier: Earlier | None = None) -> None:
        self.ctx, self.earlier = ctx, earlier if earlier is not None else Earlier()
        self.source, self.tokens, self.table, self.settings = ctx.source, ctx.tokens, ctx.table, ctx.settings
        self.edits: list[Edit] = []
        self.diagnostics: list[Diagnostic] = []
        self.anchors: list[tuple[int, bool]] = []
        self.replacements: list[Replacement] = []
        self.replacement_offsets: list[int] = []
        self.shims: set[str] = set()
        self.defines: set[str] = set()
        self.headers: set[str] = set()  # the system headers runtime_include adds beside the runtime include
        self.dropped: list[Span] = []
        self.kept: list[Span] = []
        self.compat_included = False
        self.rewritten_tests: dict[int, tuple[int, str]] = {}  # version_tests.rewrite

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
        self.anchors.append((offset, about_api))

    def replaced(self, offset: int, cuda: str, hip: str, rule_id: str, library: str) -> None:
        line, col = self.source.line_col(offset)
        self.replacements.append(Replacement(line, col, cuda, hip, rule_id, library))
        self.replacement_offsets.append(offset)

    def keep_whole(self, start: int, end: int) -> None:
        """A call left as it is stays as it is: no rename inside it applies, nor counts."""
        self.kept.append((start, end))

    def crosses_directive(self, start: int, end: int, *, inside_ok: bool = True) -> bool:
        return self.ctx.crosses_directive(start, end, inside_ok=inside_ok)

    def directive_around(self, offset: int) -> Span | None:
        return self.ctx.directive_around(offset)

    def result(
        self,
        *,
        taken: tuple[Span, ...] = (),
        uses_api: bool = False,
        includes: Includes | None = None,
    ) -> MatchResult:
        """Frozen, with the facts a matcher reports beside its findings."""
        found = self.edits or self.diagnostics or self.replacements or self.shims or self.defines or self.headers
        facts = taken or self.rewritten_tests or uses_api or includes is not None
        if not (found or facts or self.dropped or self.kept or self.compat_included):
            return NOTHING
        return MatchResult(
            tuple(self.edits),
            tuple(self.diagnostics),
            tuple(self.anchors),
            tuple(self.replacements),
            tuple(self.replacement_offsets),
            frozenset(self.shims),
            frozenset(self.defines),
            tuple(self.dropped),
            tuple(self.kept),
            taken,
            MappingProxyType(self.rewritten_tests) if self.rewritten_tests else _NO_TESTS,
            self.compat_included,
            uses_api,
            includes,
            frozenset(self.headers),
        )
