"""What the build-file translators share: the edits of one file, and nvcc flags inside text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from hipconv.buildfiles.nvcc_flags import FlagNote, map_flags
from hipconv.diagnostics import Diagnostic
from hipconv.results import FileResult, Replacement
from hipconv.translate.edits import Edit
from hipconv.translate.source import SourceFile
from hipconv.translate.translator import edited_result

MAKE_REFERENCE = re.compile(r"\$.*")  # $(VAR), ${VAR}, $@, $< ...: kept as written


@dataclass
class BuildFileEdits:
    """Edits, diagnostics and replacements of one build file."""

    source: SourceFile
    library: str  # "cmake" or "make": the family counted in --stats
    edits: list[Edit] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    replacements: list[Replacement] = field(default_factory=list)

    def rewrite(self, start: int, end: int, new: str, rule: str) -> None:
        old = self.source.body[start:end].decode("utf-8")
        if new == old:
            return
        self.edits.append(Edit.replace(start, end, new, f"{self.library}.{rule}"))
        line, col = self.source.line_col(start)
        self.replacements.append(Replacement(line, col, old, new, f"{self.library}.{rule}", self.library))

    def report(self, offset: int, code: str, message: str, symbol: str = "") -> None:
        """One diagnostic; the same one at the same place (a name written twice in one argument) only once."""
        line, col = self.source.line_col(offset)
        diagnostic = Diagnostic(self.source.path, line, col, code, message, symbol=symbol)
        if diagnostic not in self.diagnostics:
            self.diagnostics.append(diagnostic)

    def notes(self, offset: int, notes: Sequence[FlagNote]) -> None:
        for note in notes:
            self.report(offset, note.code, note.message, note.flag)

    def result(self) -> FileResult:
        return edited_result(self.source, self.edits, self.diagnostics, self.replacements)


def flag_text(text: str, archs: tuple[str, ...]) -> tuple[str, tuple[FlagNote, ...]]:
    """nvcc flags in a build file's text -> hipcc flags; unknown flags and $-references stay as written."""
    words = text.split()
    mapped = map_flags(words, archs, keep_unknown=True, passthrough=MAKE_REFERENCE)
    if list(mapped.words) == words:
        return text, mapped.notes
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()) :]
    return lead + " ".join(mapped.words) + trail, mapped.notes
