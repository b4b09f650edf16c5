"""`translate --annotate`: a one-line marker comment above each line that still holds unported CUDA.

    // hipconv: HC002 cudaDeviceFlushGPUDirectRDMAWrites has no HIP equivalent; left unchanged

The markers are edits planned from the findings (diagnostics whose code is `unported`) of the translated
text, the lines as they are written out (annotated: a stage of its own, after the matchers' results are
combined and applied). A marker holds every unported finding
of its line, in column order, joined by `; `, and is indented like that line. It never lands inside a
construct that spans lines: a line continued by a line splice (a `#define` body, a directive) or a
multi-line comment or string literal; it goes above the line where that construct starts.

Markers are idempotent: a marker identical to the one wanted, directly above its line, is kept. A marker
line of an earlier run that is not (the line was fixed, or its findings changed) is removed.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from hipconv.diagnostics import Diagnostic
from hipconv.results import FileResult, FileStatus
from hipconv.translate.edits import Edit, apply
from hipconv.translate.lexer import TokenKind, Tokens, after_splice, lex
from hipconv.translate.source import SourceFile

MARKER_PREFIX = "// hipconv: "
ANNOTATE_RULE_ID = "annotate.marker"  # the id of the edits that write and remove markers
_MARKER_START = b"// hipconv: HC"
_MARKER = re.compile(r"// hipconv: HC\d{3} ")
_BLANKS = b" \t"


def has_markers(body: bytes) -> bool:
    """True when the body may hold markers of an earlier run (the prefilter's question)."""
    return _MARKER_START in body


def annotated(
    result: FileResult,
    source: SourceFile,
    tokens: Tokens,
    findings: Callable[[SourceFile, Tokens], Sequence[Diagnostic]],
) -> FileResult:
    """The translation of source (`result`, `tokens` its tokens) with a marker comment above each line
    that still holds unported CUDA, and without the stale markers of an earlier run (--annotate).

    The markers are planned on the translated text, from its own tokens and `findings` (matching it again
    changes nothing, translation being idempotent, but tells where the findings are now): each then sits
    directly above its line as written out, even where a rewrite added or joined lines, and a second run
    finds it there. The diagnostics reported stay those of the source."""
    found: Sequence[Diagnostic]
    if result.output is None:
        text, text_tokens, found = source, tokens, result.diagnostics
    elif any(d.unported for d in result.diagnostics) or has_markers(result.output):
        text = SourceFile.from_bytes(source.path, result.output)
        text_tokens = lex(text.body)
        found = findings(text, text_tokens)
    else:
        return result
    markers = marker_edits(text, text_tokens, found)
    if not markers:
        return result
    return replace(result, status=FileStatus.CONVERTED, output=text.output(apply(text.body, markers).data))


def marker_text(findings: Sequence[Diagnostic]) -> str:
    """The marker comment for one line's unported findings (in the order given, each once)."""
    entries: list[str] = []
    for d in findings:
        entry = " ".join(f"{d.code} {d.message}".split())  # one line, whatever the message holds
        if entry not in entries:
            entries.append(entry)
    # a backslash at the end would splice the next line into the comment (a blank may separate them)
    return (MARKER_PREFIX + "; ".join(entries)).rstrip("\\ \t")


def marker_edits(source: SourceFile, tokens: Tokens, diagnostics: Sequence[Diagnostic]) -> list[Edit]:
    """The edits that write a marker above each line holding unported findings, and remove the marker
    lines of an earlier run that no longer apply."""
    body = tokens.body
    lines = _Lines(tokens)
    wanted: dict[int, list[Diagnostic]] = {}  # line start -> the findings its marker reports
    for d in sorted((d for d in diagnostics if d.unported), key=lambda d: (d.line, d.col)):
        wanted.setdefault(lines.anchor(lines.offset(d.line, d.col)), []).append(d)
    present = _markers(tokens)
    out = []
    for pos, findings in sorted(wanted.items()):
        text = marker_text(findings)
        old = present.get(pos)
        if old is not None and old[1] == text:
            del present[pos]
            continue
        indent = body[pos : pos + _indent(body, pos)].decode()
        out.append(Edit.replace(pos, pos, indent + text + source.newline_at(pos), ANNOTATE_RULE_ID))
    out += [Edit.replace(start, after, "", ANNOTATE_RULE_ID) for after, (start, _) in present.items()]
    return out


class _Lines:
    """Line starts of one body, and where a line's marker may go."""

    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens
        self.starts = [0] + [m.end() for m in re.finditer(b"\n", tokens.body)]

    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col - 1

    def line_start(self, offset: int) -> int:
        return self.starts[bisect.bisect_right(self.starts, offset) - 1]

    def anchor(self, offset: int) -> int:
        """The start of the line above which the finding at offset is reported: its own line, or the
        first line of the construct that line belongs to."""
        pos = self.line_start(offset)
        while (up := self._continues(pos)) is not None:
            pos = self.line_start(up)
        return pos

    def _continues(self, pos: int) -> int | None:
        """An offset on an earlier line when the line starting at pos continues a construct (a line
        splice, or a token spanning lines); None when it does not."""
        body, tokens = self.tokens.body, self.tokens
        if after_splice(body, pos):
            return pos - 1
        i = bisect.bisect_left(tokens.starts, pos) - 1
        if i >= 0 and tokens.ends[i] > pos:  # a block comment, a raw string, a token cut by a splice
            return tokens.starts[i]
        return None


def _markers(tokens: Tokens) -> dict[int, tuple[int, str]]:
    """The marker lines of an earlier run: the start of the line after each -> (its start, its comment).

    A marker line is a `// hipconv: HCnnn ...` comment alone on its line, on a line that no splice joins
    to the one before (removing it leaves every other line as it was)."""
    body, starts = tokens.body, tokens.starts
    found: dict[int, tuple[int, str]] = {}
    pos = body.find(_MARKER_START)
    while pos != -1:
        i = bisect.bisect_left(starts, pos)
        if i < len(tokens) and starts[i] == pos and tokens.kinds[i] == TokenKind.COMMENT:
            comment = tokens.raw(i).decode()
            line_start = body.rfind(b"\n", 0, pos) + 1
            line_end = body.find(b"\n", tokens.ends[i])
            line_end = len(body) if line_end == -1 else line_end
            if (
                _MARKER.match(comment)
                and "\n" not in comment
                and not body[line_start:pos].strip(_BLANKS)
                and not body[tokens.ends[i] : line_end].strip(_BLANKS + b"\r")
                and not after_splice(body, line_start)
            ):
                found[min(line_end + 1, len(body))] = (line_start, comment.rstrip())
        pos = body.find(_MARKER_START, pos + 1)
    return found


def _indent(body: bytes, pos: int) -> int:
    """The length of the blanks that start the line at pos."""
    end = pos
    while end < len(body) and body[end] in _BLANKS:
        end += 1
    return end - pos
