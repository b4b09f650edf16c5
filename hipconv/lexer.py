"""Lossless CUDA lexing with libclang. The only module that imports clang.cindex.

libclang's raw lexer (clang_tokenize) tokenizes every byte range it is given,
including code in inactive preprocessor branches and macro bodies, and keeps
comments. To avoid paying for a parse, the body is wrapped in `#if 0 ... #endif`
so the preprocessor skips it, then the whole body range is tokenized.

Token positions are read straight out of the CXToken array (kind, raw location,
length) instead of one ctypes call per token per attribute; a check against
libclang's own API on the first and last token guards that shortcut, and the
slow path takes over if it ever disagrees.
"""

from __future__ import annotations

import atexit
import bisect
import ctypes
import enum
import functools
import itertools
import operator
from array import array
from dataclasses import dataclass
from typing import Any, Iterator

from hipconv.errors import ToolNotFound

_BATCH_SEPARATOR = b"\n"
_PREFIX = b"#if 0\n"
_SUFFIX = b"\n#endif\n"
_VIRTUAL_NAME = "/__hipconv__/input.cu"
# Host-only CUDA mode without CUDA headers: nothing is read from disk.
_ARGS = ["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17", "-w"]


class TokenKind(enum.IntEnum):
    PUNCTUATION = 0
    KEYWORD = 1
    IDENTIFIER = 2
    LITERAL = 3
    COMMENT = 4
    WHITESPACE = 5  # the gaps between libclang's tokens: blanks, newlines, line splices


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    text: str
    start: int
    end: int


class Tokens:
    """libclang's tokens of one body as parallel arrays (gaps are implicit)."""

    __slots__ = ("body", "kinds", "starts", "ends")

    def __init__(self, body: bytes, kinds: array, starts: array, ends: array) -> None:
        self.body = body
        self.kinds = kinds
        self.starts = starts
        self.ends = ends

    def __len__(self) -> int:
        return len(self.kinds)

    def raw(self, i: int) -> bytes:
        return self.body[self.starts[i]:self.ends[i]]

    def text(self, i: int) -> str:
        """The token's spelling, with line splices removed."""
        raw = self.body[self.starts[i]:self.ends[i]]
        if b"\\" in raw and self.kinds[i] != TokenKind.LITERAL:
            raw = raw.replace(b"\\\r\n", b"").replace(b"\\\n", b"")
        return raw.decode("utf-8")

    def token(self, i: int) -> Token:
        return Token(TokenKind(self.kinds[i]), self.raw(i).decode("utf-8"), self.starts[i], self.ends[i])

    def with_gaps(self) -> Iterator[Token]:
        """Every byte of the body, in order: joining the texts gives the body back."""
        pos = 0
        for i in range(len(self)):
            if self.starts[i] > pos:
                yield Token(TokenKind.WHITESPACE, self.body[pos:self.starts[i]].decode("utf-8"), pos, self.starts[i])
            yield self.token(i)
            pos = self.ends[i]
        if pos < len(self.body):
            yield Token(TokenKind.WHITESPACE, self.body[pos:].decode("utf-8"), pos, len(self.body))


@functools.lru_cache(maxsize=1)
def _clang() -> tuple[Any, Any]:
    try:
        from clang import cindex
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ToolNotFound(
            f"cannot import libclang's Python bindings: {exc}",
            hint="pip install libclang (the PyPI wheel bundles libclang.so)",
        ) from None
    try:
        index = cindex.Index.create()
    except Exception as exc:  # cindex raises LibclangError, a plain Exception subclass
        raise ToolNotFound(
            f"cannot load libclang: {exc}",
            hint="reinstall the 'libclang' wheel from PyPI, or point LIBCLANG_PATH at a libclang.so",
        ) from None
    # Free the index before interpreter teardown, while cindex can still reach libclang.
    atexit.register(_clang.cache_clear)
    return cindex, index


def lex_many(bodies: list[bytes]) -> list[Tokens]:
    """Tokenize several bodies with one libclang translation unit (its set-up dominates for small files).

    The bodies are lexed joined by newlines; a body whose last token runs past its end
    (an unterminated comment or raw string, a line splice at the end) is lexed again alone.
    """
    if len(bodies) < 2:
        return [lex(body) for body in bodies]
    joined = lex(_BATCH_SEPARATOR.join(bodies))
    starts, ends = joined.starts, joined.ends
    out: list[Tokens] = []
    offset = 0
    for n, body in enumerate(bodies):
        end = offset + len(body)
        first = bisect.bisect_left(starts, offset)
        last = bisect.bisect_left(starts, end, lo=first)
        tail = body[ends[last - 1] - offset:] if last > first else body
        if tail.strip(b" \t\r\n\f\v"):  # an unterminated comment or a line splice reaches past the body
            return out + [lex(body)] + lex_many(bodies[n + 1:])
        if (first > 0 and ends[first - 1] > offset) or (last > first and ends[last - 1] > end):
            out.append(lex(body))
        else:
            shift = itertools.repeat(offset, last - first)
            out.append(Tokens(
                body,
                joined.kinds[first:last],
                array("I", map(operator.sub, starts[first:last], shift)),
                array("I", map(operator.sub, ends[first:last], itertools.repeat(offset, last - first))),
            ))
        offset = end + len(_BATCH_SEPARATOR)
    return out


def lex(body: bytes) -> Tokens:
    """Tokenize `body` (UTF-8 bytes, no BOM) as CUDA."""
    cindex, index = _clang()
    content = _PREFIX + body + _SUFFIX
    tu = index.parse(
        _VIRTUAL_NAME,
        args=_ARGS,
        unsaved_files=[(_VIRTUAL_NAME, content)],
        options=cindex.TranslationUnit.PARSE_INCOMPLETE,
    )
    lib = cindex.conf.lib
    file = cindex.File.from_name(tu, _VIRTUAL_NAME)
    begin = lib.clang_getLocationForOffset(tu, file, len(_PREFIX))
    end = lib.clang_getLocationForOffset(tu, file, len(_PREFIX) + len(body))
    extent = cindex.SourceRange.from_locations(begin, end)
    tokens_ptr = ctypes.POINTER(cindex.Token)()
    count = ctypes.c_uint()
    lib.clang_tokenize(tu, extent, ctypes.byref(tokens_ptr), ctypes.byref(count))
    n = count.value
    try:
        if n == 0:
            return Tokens(body, array("B"), array("I"), array("I"))
        return _read_tokens(cindex, tu, tokens_ptr, n, body)
    finally:
        lib.clang_disposeTokens(tu, tokens_ptr, count)


def _read_tokens(cindex: Any, tu: Any, tokens_ptr: Any, n: int, body: bytes) -> Tokens:
    lib = cindex.conf.lib
    words_per_token = ctypes.sizeof(cindex.Token) // 4  # unsigned int_data[4]; void *ptr_data
    raw = (ctypes.c_uint32 * (words_per_token * n)).from_address(ctypes.addressof(tokens_ptr.contents))
    words = memoryview(raw).cast("B").cast("I")
    kinds = words[0::words_per_token].tolist()
    locations = words[1::words_per_token].tolist()
    lengths = words[2::words_per_token].tolist()

    def api_offset(i: int) -> int:
        return int(lib.clang_getTokenLocation(tu, tokens_ptr[i]).offset) - len(_PREFIX)

    base = locations[0] - api_offset(0)
    fast = (
        words_per_token == 6
        and locations[n - 1] - base == api_offset(n - 1)
        and all(k <= TokenKind.COMMENT for k in kinds[:64])
    )
    limit = len(body)
    if fast:
        starts = array("I", map(operator.sub, locations, itertools.repeat(base, n)))
        ends = array("I", map(operator.add, starts, lengths))
        for i in range(n - 1, -1, -1):  # only a token cut off by the end of the body can overrun it
            if ends[i] <= limit:
                break
            ends[i] = limit
    else:  # pragma: no cover - only if libclang's token layout ever changes
        starts = array("I", (api_offset(i) for i in range(n)))
        ends = array(
            "l",
            (min(int(lib.clang_getTokenExtent(tu, tokens_ptr[i]).end.offset) - len(_PREFIX), limit) for i in range(n)),
        )
        kinds = [int(lib.clang_getTokenKind(tokens_ptr[i])) for i in range(n)]
    keep = len(starts)
    while keep and starts[keep - 1] >= limit:  # tokens of the #endif suffix
        keep -= 1
    return Tokens(body, array("B", kinds[:keep]), starts[:keep], ends[:keep])
