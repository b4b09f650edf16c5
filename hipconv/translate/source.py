"""A source file as bytes, split into BOM and body, with an offset -> line/column index.

Offsets are byte offsets into `body` (what the lexer sees); columns are 1-based
byte columns, as clang reports them.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

UTF8_BOM = b"\xef\xbb\xbf"


class DecodeFailure(ValueError):
    """The bytes are not a text source file hipconv can translate."""


@dataclass(frozen=True)
class SourceFile:
    path: str
    bom: bytes
    body: bytes
    _line_starts: tuple[int, ...] = field(repr=False, compare=False, default=())

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> SourceFile:
        if b"\0" in data:
            raise DecodeFailure("binary file (contains NUL bytes)")
        bom = UTF8_BOM if data.startswith(UTF8_BOM) else b""
        body = data[len(bom) :]
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = body.count(b"\n", 0, exc.start) + 1
            raise DecodeFailure(
                f"not valid UTF-8 (byte 0x{body[exc.start]:02x} on line {line}); convert the file to UTF-8 first"
            ) from None
        return cls(path, bom, body)

    @property
    def data(self) -> bytes:
        return self.bom + self.body

    def newline_at(self, offset: int) -> str:
        """The line ending of the line holding offset (of the line before, on a last line without one),
        for text inserted there: a file may mix line endings."""
        body = self.body
        end = body.find(b"\n", offset)
        if end == -1:
            end = body.rfind(b"\n", 0, offset)
        return "\r\n" if end > 0 and body[end - 1 : end] == b"\r" else "\n"

    def line_col(self, offset: int) -> tuple[int, int]:
        starts = self._line_starts
        if not starts:
            found = [0]
            pos = self.body.find(b"\n")
            while pos != -1:
                found.append(pos + 1)
                pos = self.body.find(b"\n", pos + 1)
            starts = tuple(found)
            object.__setattr__(self, "_line_starts", starts)
        line = bisect.bisect_right(starts, offset)
        col = offset - starts[line - 1] + 1
        return line, col
