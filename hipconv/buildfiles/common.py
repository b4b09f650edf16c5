"""What the build-file translators share: the edits of one file, and nvcc flags inside text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from hipconv.buildfiles.nvcc_flags import FlagNote, FlagUnit, map_flags, nvcc_only
from hipconv.diagnostics import Diagnostic
from hipconv.results import FileResult, Replacement
from hipconv.translate.combine import without_overlaps
from hipconv.translate.edits import Edit
from hipconv.translate.source import SourceFile
from hipconv.translate.translator import edited_result

MAKE_REFERENCE = re.compile(r"\$.*")  # $(VAR), ${VAR}, $@, $< ...: kept as written
_NVIDIA_ARCH = re.compile(r"(?:[\w=]*[ ,=])?(?:sm|compute|lto)_\w+|.*\b(?:native|all|all-major)")


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
        found = without_overlaps(self.source, self.edits, self.diagnostics, self.replacements)
        return edited_result(self.source, found.edits, found.diagnostics, found.replacements)


_BLANKS = b" \t"


def flag_edits(
    body: bytes,
    words: Sequence[tuple[str, int]],
    archs: tuple[str, ...],
    *,
    only_nvcc: bool = False,
    blanks: bytes = _BLANKS,
) -> tuple[list[tuple[int, int, str]], list[tuple[int, FlagNote]]]:
    """The nvcc flags among `words` (each with its byte offset in `body`) -> hipcc flags: the edits (start, end,
    new text) and the notes with their offsets. Each flag is rewritten where it is written: what lies between
    the words (line breaks, continuation backslashes, a backslash glued to a word's end) is kept as it is.
    Unknown flags and $-references stay as written. `only_nvcc`: words that may be any compiler's (CMake's
    target_compile_options): only the flags only nvcc takes are mapped (-use_fast_math, -Xptxas -v,
    -arch=sm_80, not -arch arm64), the others kept without a note. `blanks`: what separates words on a line
    (a removed word takes them along; a CMake list's `;` too)."""
    words = [w for w in (_without_continuation(body, word, at) for word, at in words) if w[0]]
    mapped = map_flags([word for word, _ in words], archs, keep_unknown=True, passthrough=MAKE_REFERENCE)
    edits: list[tuple[int, int, str]] = []
    notes: list[tuple[int, FlagNote]] = []
    for unit in mapped.units:
        if only_nvcc and not _nvcc_unit(unit, [word for word, _ in words]):
            continue
        notes += [(words[unit.first][1], note) for note in unit.notes]
        written = words[unit.first : unit.stop]
        if unit.words != tuple(word for word, _ in written):
            edits += _unit_edits(body, written, " ".join(unit.words), edits[-1][1] if edits else 0, blanks)
    return edits, notes


def _nvcc_unit(unit: FlagUnit, words: Sequence[str]) -> bool:
    """Is this flag (with its value) one only nvcc takes; an architecture flag only with an NVIDIA value?"""
    if not nvcc_only(words[unit.first]):
        return False
    return not unit.arch or bool(_NVIDIA_ARCH.fullmatch(" ".join(words[unit.first : unit.stop])))


def holds_nvcc_flag(text: str) -> bool:
    """Does this text hold a flag only nvcc takes (-use_fast_math, -gencode X, not -arch arm64)?"""
    words = text.split()
    return any(
        _nvcc_unit(unit, words) for unit in map_flags(words, keep_unknown=True, passthrough=MAKE_REFERENCE).units
    )


def _without_continuation(body: bytes, word: str, at: int) -> tuple[str, int]:
    """A word less the line continuation glued to its end (`-arch=sm_70\\` at the end of a line)."""
    end = at + len(word.encode("utf-8"))
    if word.endswith("\\") and body[end:].lstrip(_BLANKS)[:1] in (b"\n", b"\r"):
        return word[:-1], at
    return word, at


def _unit_edits(
    body: bytes, words: Sequence[tuple[str, int]], new: str, floor: int, blanks: bytes
) -> list[tuple[int, int, str]]:
    """The edits that write one flag's words as `new`: the words on one line as a whole; a flag written over
    lines (-Xcompiler at the end of one, its value on the next) in its first line, its other lines' words
    removed. A word removed takes the blanks before it (or else, and before a continuation, those after it)
    on its line along, none that an earlier edit (ending at `floor`) took."""
    runs: list[tuple[int, int]] = []
    for word, at in words:
        end = at + len(word.encode("utf-8"))
        if runs and not body[runs[-1][1] : at].strip(blanks):
            runs[-1] = (runs[-1][0], end)
        else:
            runs.append((at, end))
    edits = []
    for n, (start, end) in enumerate(runs):
        if n == 0 and new:
            edits.append((start, end, new))
            floor = end
            continue
        before = len(body[:start].rstrip(blanks))
        after = len(body) - len(body[end:].lstrip(blanks))
        follows = body[after : after + 1]  # a continuation keeps a blank before it (CMake joins lines as they are)
        if before > 0 and body[before - 1 : before] not in (b"\n", b"\r") and follows != b"\\":
            start = max(before, floor)
        elif follows not in (b"\n", b"\r", b""):
            end = after
        edits.append((start, end, ""))
        floor = end
    return edits


def flag_text(text: str, archs: tuple[str, ...], *, only_nvcc: bool = False) -> tuple[str, tuple[FlagNote, ...]]:
    """nvcc flags in a CMake argument's text -> hipcc flags, each where it is written (flag_edits). Its words
    are separated by blanks and by a list's `;` (`-use_fast_math;-lineinfo`), outside a `$<...>` or `${...}`
    word, which is kept whole."""
    data = text.encode("utf-8")
    words = [(m.group().decode("utf-8"), m.start()) for m in re.finditer(rb"\$\S*|[^\s;]+", data)]
    edits, notes = flag_edits(data, words, archs, only_nvcc=only_nvcc, blanks=b" \t;")
    for start, end, new in reversed(edits):
        data = data[:start] + new.encode("utf-8") + data[end:]
    return data.decode("utf-8"), tuple(note for _, note in notes)
