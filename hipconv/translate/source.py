"""A source file as bytes, split into BOM and body, with an offset -> line/column index.

Offsets are byte offsets into `body` (what the lexer sees); columns are 1-based
byte columns of the file as read, as clang reports them.

A file that is not UTF-8 (about 2% of real trees: a Latin-1 or cp1252 sign in a comment) is
translated all the same: each byte that is not UTF-8 stands in `body` as a private-use character,
U+F780 + (byte - 0x80), so the lexer and the rules see UTF-8, and `output` turns each back into its
byte, so every byte that is not rewritten is written as it was read.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

UTF8_BOM = b"\xef\xbb\xbf"
_ESCAPE_BASE = 0xF700  # + the byte: U+F780..U+F7FF
_ESCAPED = re.compile(b"\xef[\x9e\x9f][\x80-\xbf]")  # U+F780..U+F7FF in UTF-8


class DecodeFailure(ValueError):
    """The bytes are not a text source file hipconv can translate."""


@dataclass(frozen=True)
class SourceFile:
    path: str
    bom: bytes
    body: bytes
    escaped: bool = False  # bytes that are not UTF-8 stand in body as U+F780..U+F7FF
    _line_starts: tuple[int, ...] = field(repr=False, compare=False, default=())

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> SourceFile:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise DecodeFailure(
                "UTF-16 text (it starts with a UTF-16 byte-order mark); convert the file to UTF-8 first"
            )
        if b"\0" in data:
            raise DecodeFailure("binary file (contains NUL bytes)")
        bom = UTF8_BOM if data.startswith(UTF8_BOM) else b""
        body = data[len(bom) :]
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            if _ESCAPED.search(body):
                line = body.count(b"\n", 0, exc.start) + 1
                raise DecodeFailure(
                    f"not valid UTF-8 (byte 0x{body[exc.start]:02x} on line {line}), and it holds private-use "
                    "characters U+F780-U+F7FF, which hipconv uses to keep such bytes; convert the file to UTF-8 first"
                ) from None
            return cls(path, bom, _escape(body), escaped=True)
        return cls(path, bom, body)

    @property
    def data(self) -> bytes:
        """The file as read."""
        return self.output(self.body)

    def output(self, body: bytes) -> bytes:
        """The file to write for a translated `body`: the BOM, and each escaped byte as it was read."""
        if self.escaped:
            body = _ESCAPED.sub(lambda m: bytes((ord(m.group().decode()) - _ESCAPE_BASE,)), body)
        return self.bom + body

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
        if self.escaped:  # each escaped byte is 3 bytes of body and 1 of the file
            col -= 2 * len(_ESCAPED.findall(self.body, starts[line - 1], offset))
        return line, col


def _escape(body: bytes) -> bytes:
    text = body.decode("utf-8", "surrogateescape")  # a byte that is not UTF-8 -> U+DC80..U+DCFF
    return text.translate(_SURROGATE_TO_PRIVATE).encode("utf-8")


_SURROGATE_TO_PRIVATE = {0xDC00 + b: _ESCAPE_BASE + b for b in range(0x80, 0x100)}
