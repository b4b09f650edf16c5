"""A source file as bytes, split into BOM and body, with an offset -> line/column index.

Offsets are byte offsets into `body` (what the lexer sees); columns are 1-based
byte columns of the file as read, as clang reports them.

A file that is not UTF-8 (about 2% of real trees: a Latin-1 or cp1252 sign in a comment) is
translated all the same: each byte that is not UTF-8 stands in `body` as a private-use character,
U+F780 + (byte - 0x80), so the lexer and the rules see UTF-8, and `output` turns each back into its
byte, so every byte that is not rewritten is written as it was read.

A file whose lines all end with a CR alone (old Mac OS line endings, which compilers read as line
endings too) has each CR as an LF in `body`, so every stage sees lines as it does in other files, and
`output` turns each LF back into a CR: the lines hipconv inserts end with a CR, as the file's do.
"""

from __future__ import annotations

import bisect
import codecs
import itertools
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
    cr_lines: bool = False  # the file's lines end with a CR alone, each an LF in body
    _line_starts: tuple[int, ...] = field(repr=False, compare=False, default=())

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> SourceFile:
        wide = _wide_text(data)
        if wide is not None:
            raise DecodeFailure(f"{wide}; convert the file to UTF-8 first")
        if b"\0" in data:
            raise DecodeFailure("binary file (contains NUL bytes)")
        bom = UTF8_BOM if data.startswith(UTF8_BOM) else b""
        body = data[len(bom) :]
        cr_lines = b"\r" in body and b"\n" not in body
        if cr_lines:
            body = body.replace(b"\r", b"\n")
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            if _ESCAPED.search(body):
                line = body.count(b"\n", 0, exc.start) + 1
                raise DecodeFailure(
                    f"not valid UTF-8 (byte 0x{body[exc.start]:02x} on line {line}), and it holds private-use "
                    "characters U+F780-U+F7FF, which hipconv uses to keep such bytes; convert the file to UTF-8 first"
                ) from None
            return cls(path, bom, _escape(body), escaped=True, cr_lines=cr_lines)
        return cls(path, bom, body, cr_lines=cr_lines)

    @property
    def data(self) -> bytes:
        """The file as read."""
        return self.output(self.body)

    def output(self, body: bytes) -> bytes:
        """The file to write for a translated `body`: the BOM, each escaped byte as it was read, and each line
        ending as the file's are."""
        if self.escaped:
            body = _ESCAPED.sub(lambda m: bytes((ord(m.group().decode()) - _ESCAPE_BASE,)), body)
        if self.cr_lines:
            body = body.replace(b"\n", b"\r")
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
        if not starts:  # each line's start: the running sum of the line lengths, summed at C speed
            starts = (0, *itertools.accumulate(map((1).__add__, map(len, self.body.split(b"\n")[:-1]))))
            object.__setattr__(self, "_line_starts", starts)
        line = bisect.bisect_right(starts, offset)
        col = offset - starts[line - 1] + 1
        if self.escaped:  # each escaped byte is 3 bytes of body and 1 of the file
            col -= 2 * len(_ESCAPED.findall(self.body, starts[line - 1], offset))
        return line, col


# Byte-order marks of the text encodings with NUL bytes in ASCII text, UTF-32 first (its little-endian mark
# starts with UTF-16's).
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32", "little"),
    (b"\x00\x00\xfe\xff", "UTF-32", "big"),
    (b"\xff\xfe", "UTF-16", "little"),
    (b"\xfe\xff", "UTF-16", "big"),
)
_SNIFF = 4096  # bytes looked at for a text encoding without a byte-order mark


def _wide_text(data: bytes) -> str | None:
    """What the file is when it is UTF-16 or UTF-32 text: with a byte-order mark, or without one (mostly
    ASCII text, recognised by where its NUL bytes fall); None when it is neither."""
    for bom, name, order in _WIDE_BOMS:
        if data.startswith(bom):
            return f"{name} text ({order}-endian: it starts with a {name} byte-order mark)"
    sample = data[: _SNIFF - _SNIFF % 4]
    if b"\0" not in sample:
        return None
    for width, name in ((4, "UTF-32"), (2, "UTF-16")):
        endian = _byte_order(sample[: len(sample) - len(sample) % width], width)
        if endian is not None:
            return f"{name} text ({endian}-endian, without a byte-order mark: its NUL bytes fall where {name}'s do)"
    return None


def _byte_order(sample: bytes, width: int) -> str | None:
    """ "little" or "big" when sample reads as mostly ASCII text in characters of `width` bytes: the low byte
    of most characters set, every other byte NUL."""
    if len(sample) < 2 * width:
        return None
    lanes = [sample[i::width] for i in range(width)]  # byte i of each character
    for order, low, high in (("little", lanes[0], lanes[1:]), ("big", lanes[-1], lanes[:-1])):
        if low.count(0) * 4 < len(low) and not any(lane.strip(b"\0") for lane in high):
            return order
    return None


def _escape(body: bytes) -> bytes:
    return body.decode("utf-8", _ESCAPE_ERRORS).encode("utf-8")  # a byte that is not UTF-8 -> U+F780..U+F7FF


def _escape_bytes(error: UnicodeError) -> tuple[str, int]:
    """The codec error handler of _escape: each byte that is not UTF-8 becomes _ESCAPE_BASE + the byte."""
    assert isinstance(error, UnicodeDecodeError)
    return "".join(chr(_ESCAPE_BASE + b) for b in error.object[error.start : error.end]), error.end


_ESCAPE_ERRORS = "hipconv-escape"
codecs.register_error(_ESCAPE_ERRORS, _escape_bytes)
