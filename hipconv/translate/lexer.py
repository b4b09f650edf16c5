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
import re
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

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


# The kinds as plain ints, for the loops that run per token (syntax, words, the matchers' walks): on Python
# 3.11 every `TokenKind.X` goes through EnumType.__getattr__'s attribute hook, several times a global's cost.
PUNCTUATION = int(TokenKind.PUNCTUATION)
KEYWORD = int(TokenKind.KEYWORD)
IDENTIFIER = int(TokenKind.IDENTIFIER)
LITERAL = int(TokenKind.LITERAL)
COMMENT = int(TokenKind.COMMENT)


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    text: str
    start: int
    end: int


_QUOTE = re.compile(rb"[\"']")
# a brace of either kind, found as `{` in the body with each `}` read as one: a search for one byte skips to
# it, where one for a set of bytes ([{}]) tries each byte (the scan takes a third of the instructions)
_BRACES_AS_OPEN = bytes.maketrans(b"}", b"{")
_OPEN_BRACE = re.compile(rb"\{")
_START = operator.methodcaller("start")
_CLOSE_BRACE = ord("}")
# bytes' values: `value in data` is one search, where `b"\\" in data` first tries the one-byte string as an
# integer, which raises (and clears) a TypeError in CPython 3.11: seven times as long on a token's text
BACKSLASH, NEWLINE = ord("\\"), ord("\n")
_UNTERMINATED_LITERAL = re.compile(rb"(?:u8|[uUL])?R?[\"']")


class Tokens:
    """libclang's tokens of one body as parallel arrays (gaps are implicit)."""

    __slots__ = (
        "body",
        "kinds",
        "starts",
        "ends",
        "spliced",
        "partners",
        "_comments",
        "_unterminated",
        "_braces",
        "_outer",
    )

    def __init__(
        self, body: bytes, kinds: array[int], starts: array[int], ends: array[int], spliced: tuple[int, ...] = ()
    ) -> None:
        self.body = body
        self.kinds = kinds
        self.starts = starts
        self.ends = ends
        self.spliced = spliced  # the tokens a line splice cuts in two (`cuda\<newline>Malloc`), in order
        self.partners: dict[int, int | None] = {}  # syntax.matching_close's answers, filled as it pairs brackets
        self._comments: array[int] | None = None
        self._unterminated: array[int] | None = None
        self._braces: array[int] | None = None
        self._outer: array[int] | None = None

    def __len__(self) -> int:
        return len(self.kinds)

    def comments_between(self, first: int, last: int) -> array[int]:
        """The indices of the comment tokens among tokens[first:last], from an index built once: nested
        rewrites each ask about their own region, and together they must not rescan the file per level."""
        if self._comments is None:
            mark = bytes((TokenKind.COMMENT,))
            self._comments = array("I", (m.start() for m in re.finditer(re.escape(mark), self.kinds.tobytes())))
        lo = bisect.bisect_left(self._comments, first)
        return self._comments[lo : bisect.bisect_left(self._comments, last, lo)]

    def unterminated_literals_between(self, first: int, last: int) -> array[int]:
        """The indices of the unterminated string or character literals among tokens[first:last] (the
        lexer makes each one punctuation token running to the end of its line), from an index built once."""
        if self._unterminated is None:
            found = {
                i
                for m in _QUOTE.finditer(self.body)
                if (i := bisect.bisect_right(self.starts, m.start()) - 1) >= 0
                and self.kinds[i] == TokenKind.PUNCTUATION
                and _UNTERMINATED_LITERAL.match(self.raw(i))
            }
            self._unterminated = array("I", sorted(found))
        lo = bisect.bisect_left(self._unterminated, first)
        return self._unterminated[lo : bisect.bisect_left(self._unterminated, last, lo)]

    def braces(self) -> array[int]:
        """The indices of the `{` and `}` tokens, in order, from an index built once: a walk out of the code
        around a token (facts.launch_blocks.function_name) steps over braces, not over every token."""
        if self._braces is None:
            starts, ends, kinds, size = self.starts, self.ends, self.kinds, len(self.kinds)
            at = list(map(_START, _OPEN_BRACE.finditer(self.body.translate(_BRACES_AS_OPEN))))
            tokens = map(bisect.bisect_left, itertools.repeat(starts), at)  # the token at or after each brace
            self._braces = array(
                "I",  # not one in a comment or a literal
                [
                    i
                    for i, p in zip(tokens, at)
                    if i < size and starts[i] == p and ends[i] == p + 1 and kinds[i] == PUNCTUATION
                ],
            )
        return self._braces

    def enclosing_braces(self, k: int) -> Iterator[int]:
        """The `{` tokens whose blocks hold token k, innermost first: read back from k as braces pair up (a `}`
        steps over its block; one never opened steps over the rest), over an index built once per file."""
        braces, outer = self.braces(), self._outer_braces()
        at = outer[bisect.bisect_left(braces, k)]
        while at:
            yield braces[at - 1]
            at = outer[at - 1]

    def _outer_braces(self) -> array[int]:
        """outer[p]: 1 + the position in braces() of the innermost `{` that a walk back from before position p
        meets unpaired (0: none). For a `{` at p that is outer[p + 1] = p + 1; for a `}`, the walk steps over
        its block to before the `{` it pairs with."""
        if self._outer is None:
            braces, body, starts = self.braces(), self.body, self.starts
            outer = array("I", [0]) * (len(braces) + 1)
            for p, j in enumerate(braces):
                if body[starts[j]] != _CLOSE_BRACE:
                    outer[p + 1] = p + 1
                else:
                    opened = outer[p]  # the `{` this `}` pairs with, read backwards
                    outer[p + 1] = outer[opened - 1] if opened else 0
            self._outer = outer
        return self._outer

    def closing_brace(self, brace: int) -> int | None:
        """The `}` that closes the `{` at token index brace, counting braces only (over the braces index, not
        every token: a function's body is stepped over by its blocks); None when it is not closed."""
        braces, body, starts = self.braces(), self.body, self.starts
        depth = 0
        for at in range(bisect.bisect_left(braces, brace), len(braces)):
            if body[starts[braces[at]]] == _CLOSE_BRACE:
                depth -= 1
                if depth == 0:
                    return braces[at]
            else:
                depth += 1
        return None

    def within(self, region: tuple[int, int]) -> tuple[int, int]:
        """(first, last): tokens[first:last] are the tokens lying wholly inside the byte region."""
        first = bisect.bisect_left(self.starts, region[0])
        return first, bisect.bisect_right(self.ends, region[1], first)

    def raw(self, i: int) -> bytes:
        return self.body[self.starts[i] : self.ends[i]]

    def text(self, i: int) -> str:
        """The token's spelling, with line splices removed."""
        raw = self.body[self.starts[i] : self.ends[i]]
        if BACKSLASH in raw and self.kinds[i] != LITERAL:
            raw = unsplice(raw)
        return raw.decode()

    def token(self, i: int) -> Token:
        return Token(TokenKind(self.kinds[i]), self.raw(i).decode("utf-8"), self.starts[i], self.ends[i])

    def with_gaps(self) -> Iterator[Token]:
        """Every byte of the body, in order: joining the texts gives the body back."""
        pos = 0
        for i in range(len(self)):
            if self.starts[i] > pos:
                yield Token(TokenKind.WHITESPACE, self.body[pos : self.starts[i]].decode("utf-8"), pos, self.starts[i])
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


@functools.lru_cache(maxsize=1)
def libclang_version() -> str:
    """libclang's own version string and the library file, e.g. `clang version 18.1.1 (/.../libclang.so)`;
    ToolNotFound when libclang cannot be loaded."""
    cindex, _ = _clang()
    # Not among the functions cindex declares: without its CXString result type ctypes would read an int.
    get_version = cindex.conf.lib.clang_getClangVersion
    get_version.argtypes, get_version.restype = [], cindex._CXString
    get_version.errcheck = cindex._CXString.from_result  # the text, then clang_disposeString
    return f"{get_version()} ({cindex.conf.get_filename()})"


@dataclass(frozen=True)
class _Raw:
    """libclang's tokens of a buffer: kinds (a byte each), locations and lengths; `base` is the location of
    offset 0."""

    kinds: bytes
    locations: array[int]
    lengths: array[int]
    base: int

    def end(self, i: int) -> int:
        return self.locations[i] + self.lengths[i] - self.base

    def tokens(self, body: bytes, offset: int = 0) -> Tokens:
        """The tokens lying in body, which starts at `offset` of the lexed buffer."""
        first = bisect.bisect_left(self.locations, self.base + offset)
        last = bisect.bisect_left(self.locations, self.base + offset + len(body), lo=first)
        count = last - first
        # lane-wise on the packed 32-bit arrays, as one integer each (C speed, not a step per token): no
        # lane borrows (a location in the body is at least its own) or carries (an end fits 32 bits)
        locations = int.from_bytes(self.locations[first:last].tobytes(), _ORDER)
        starts_value = locations - int.from_bytes((self.base + offset).to_bytes(4, _ORDER) * count, _ORDER)
        ends_value = starts_value + int.from_bytes(self.lengths[first:last].tobytes(), _ORDER)
        starts, ends = array("I"), array("I")
        starts.frombytes(starts_value.to_bytes(4 * count, _ORDER))
        ends.frombytes(ends_value.to_bytes(4 * count, _ORDER))
        for i in range(count - 1, -1, -1):  # only a token cut off by the end of the body can overrun it
            if ends[i] <= len(body):
                break
            ends[i] = len(body)
        spliced = _place_splices(body, starts, ends) if LINE_SPLICE.search(body) else ()  # one scan, not two `in`
        return Tokens(body, array("B", self.kinds[first:last]), starts, ends, spliced)

    def crosses_start(self, offset: int) -> bool:
        """True when a token that starts before `offset` runs past it."""
        first = bisect.bisect_left(self.locations, self.base + offset)
        return first > 0 and self.end(first - 1) > offset

    def tail_start(self, offset: int, size: int) -> int:
        """Where the text after the last token starting in [offset, offset + size) begins."""
        first = bisect.bisect_left(self.locations, self.base + offset)
        last = bisect.bisect_left(self.locations, self.base + offset + size, lo=first)
        return self.end(last - 1) if last > first else offset


_ORDER = sys.byteorder  # the arrays' (native) byte order
assert array("I").itemsize == 4, "a 32-bit array('I') is assumed by _Raw.tokens"


LINE_SPLICE = re.compile(rb"\\\r?\n")


def unsplice(text: bytes) -> bytes:
    """text without its line splices (backslash-newline), as the compiler reads it."""
    return text.replace(b"\\\r\n", b"").replace(b"\\\n", b"") if BACKSLASH in text else text


def after_splice(body: bytes, line_start: int) -> bool:
    """True when the line before the one at line_start ends with a line splice: the two are one logical line."""
    return body[max(line_start - 3, 0) : line_start].endswith((b"\\\n", b"\\\r\n"))


def _place_splices(body: bytes, starts: array[int], ends: array[int]) -> tuple[int, ...]:
    """libclang starts a token at a line splice right before it (`\\<newline>,`): move the start past it,
    since the splice belongs to the gap. Returns the tokens a splice cuts in two, which are the only
    ones whose bytes differ from their spelling."""
    cut: list[int] = []
    for m in LINE_SPLICE.finditer(body):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i < 0 or m.start() >= ends[i]:
            continue  # in a gap
        if starts[i] == m.start():
            starts[i] = m.end()
        elif not cut or cut[-1] != i:
            cut.append(i)
    return tuple(cut)


def lex_many(bodies: list[bytes]) -> list[Tokens]:
    """Tokenize several bodies with one libclang translation unit (its set-up dominates for small files).

    The bodies are lexed joined by newlines. A body whose tokens do not end cleanly
    inside it (an unterminated comment or raw string, a line splice at its end) is lexed
    alone, and so is everything after it.
    """
    if len(bodies) < 2:
        return [lex(body) for body in bodies]
    joined = _BATCH_SEPARATOR.join(bodies)
    raw = _lex_raw(joined)
    out: list[Tokens] = []
    offset = 0
    for n, body in enumerate(bodies):
        end = offset + len(body)
        tail = raw.tail_start(offset, len(body))
        if tail > end or joined[tail:end].strip(b" \t\r\n\f\v"):
            return out + [lex(body)] + lex_many(bodies[n + 1 :])
        out.append(lex(body) if raw.crosses_start(offset) else raw.tokens(body, offset))
        offset = end + len(_BATCH_SEPARATOR)
    return out


def lex(body: bytes) -> Tokens:
    """Tokenize `body` (UTF-8 bytes, no BOM) as CUDA."""
    return _lex_raw(body).tokens(body)


def _lex_raw(body: bytes) -> _Raw:
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
            return _Raw(b"", array("I"), array("I"), 0)
        return _read_tokens(cindex, tu, tokens_ptr, n)
    finally:
        lib.clang_disposeTokens(tu, tokens_ptr, count)


def _read_tokens(cindex: Any, tu: Any, tokens_ptr: Any, n: int) -> _Raw:
    lib = cindex.conf.lib
    words_per_token = ctypes.sizeof(cindex.Token) // 4  # unsigned int_data[4]; void *ptr_data
    raw = (ctypes.c_uint32 * (words_per_token * n)).from_address(ctypes.addressof(tokens_ptr.contents))
    words = memoryview(raw).cast("B").cast("I")
    locations, lengths = array("I"), array("I")
    locations.frombytes(words[1::words_per_token].tobytes())
    lengths.frombytes(words[2::words_per_token].tobytes())

    def api_offset(i: int) -> int:
        return int(lib.clang_getTokenLocation(tu, tokens_ptr[i]).offset) - len(_PREFIX)

    base = locations[0] - api_offset(0)
    if (
        words_per_token == 6
        and locations[n - 1] - base == api_offset(n - 1)
        and all(k <= TokenKind.COMMENT for k in words[0 : 64 * words_per_token : words_per_token].tolist())
    ):
        kinds = words[0::words_per_token].tobytes()[0 if _ORDER == "little" else 3 :: 4]  # each kind's low byte
        return _Raw(kinds, locations, lengths, base)
    # pragma: no cover - only if libclang's token layout ever changes: ask the API token by token
    starts = [api_offset(i) for i in range(n)]
    ends = [int(lib.clang_getTokenExtent(tu, tokens_ptr[i]).end.offset) - len(_PREFIX) for i in range(n)]
    return _Raw(
        bytes(int(lib.clang_getTokenKind(tokens_ptr[i])) for i in range(n)),
        array("I", starts),
        array("I", [e - s for s, e in zip(starts, ends)]),
        0,
    )
