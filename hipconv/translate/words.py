"""Finding words in a body and their tokens without walking every token.

`file_words` is the prefilter's view of a file (every identifier-like word, comments
and strings included); the token searches find where those words are real tokens.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator, Sequence

from hipconv.translate.lexer import TokenKind, Tokens, unsplice
from hipconv.translate.syntax import Span, is_punct, next_code, prev_code

WORDY_KINDS = (TokenKind.IDENTIFIER, TokenKind.KEYWORD)
# keywords a name may follow in an expression: after any other word (`float sqrt(`, `T abs(`, `return p;` aside)
# the name is being declared
EXPRESSION_KEYWORDS = frozenset(
    {"return", "case", "sizeof", "else", "do", "goto", "throw", "new", "delete", "co_return", "co_yield", "not"}
)
WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_RUNS = bytes(c if c in WORD_BYTES else 0x20 for c in range(256))  # every other byte becomes a space
_DIGITS = b"0123456789"
# a line splice whose backslash follows a word's byte: the search looks for each backslash as fast as for a
# byte (the pattern starts with it), then looks back, so a file with no splice, or with splices after blanks
# only (a macro's lines), is read once at C speed
_SPLICED_WORD = re.compile(rb"\\(?<=\w\\)\r?\n")


def has_spliced_word(body: bytes) -> bool:
    """Whether a line splice may cut a name of the body (`cuda\\<newline>Malloc`): one after a word's byte."""
    return _SPLICED_WORD.search(body) is not None


def file_words(body: bytes, *, keep: bool = False) -> frozenset[bytes]:
    """Every identifier-like word of a body (comments and strings included), joining line splices: in each
    run of letters, digits and `_`, the part from its first non-digit (`0x1f` holds `x1f`). `keep`: the
    words are kept for the next call with the same bytes (the project pass reads a header, the translation
    reads it again later)."""
    key = (hash(body), len(body)) if keep or _KEPT.words else None
    if key is not None and (kept := _KEPT.take(key)) is not None:
        if keep:
            _KEPT.put(key, kept)
        return frozenset(kept.split())
    if has_spliced_word(body):
        body = unsplice(body)
    runs = set(body.translate(_RUNS).split())  # the C-speed split; numbers are the rare runs to fix
    numeric = {run for run in runs if run[0] in _DIGITS}
    if numeric:
        runs -= numeric
        runs.update(word for word in (run.lstrip(_DIGITS) for run in numeric) if word)
    if key is not None and keep:
        _KEPT.put(key, b" ".join(runs))
    return frozenset(runs)


class _KeptWords:
    """The words of file_words(keep=True), by the bytes' hash and length, until asked for again: each body's as
    one string (a ninth of the set's memory; read back from its unique words, not from every word of the
    body), at most LIMIT bytes of them (a run that reads more computes the rest again)."""

    LIMIT = 4 << 20

    def __init__(self) -> None:
        self.words: dict[tuple[int, int], bytes] = {}
        self.size = 0

    def take(self, key: tuple[int, int]) -> bytes | None:
        words = self.words.pop(key, None)
        self.size -= len(words) if words is not None else 0
        return words

    def put(self, key: tuple[int, int], words: bytes) -> None:
        if key not in self.words and self.size + len(words) <= self.LIMIT:
            self.words[key] = words
            self.size += len(words)


_KEPT = _KeptWords()


def line_directives(
    pattern: re.Pattern[bytes], body: bytes, hashes: re.Pattern[bytes] | None = None
) -> Iterator[re.Match[bytes]]:
    """The pattern's matches at the start of each line whose first byte other than blanks is `#` (a pattern
    of `[ \t]*#...`), in order and not overlapping: what `^` under re.MULTILINE finds, found by searching
    for `#` rather than trying the pattern at every byte (a third of the time on the corpora). `hashes`: a
    pattern that finds (from its `#`) each directive the pattern may match, where most are not (`#[ \t]*define`):
    the others' lines are not looked at."""
    if hashes is not None:
        end = 0  # the end of the last match: a `#` inside it is not a directive's
        for hash_ in hashes.finditer(body):
            if hash_.start() >= end and (found := _directive_at(pattern, body, hash_.start())) is not None:
                end = found.end()
                yield found
        return
    at = body.find(b"#")
    while at >= 0:
        found = _directive_at(pattern, body, at)
        if found is not None:
            yield found
        at = body.find(b"#", found.end() if found is not None else at + 1)


def _directive_at(pattern: re.Pattern[bytes], body: bytes, at: int) -> re.Match[bytes] | None:
    """The pattern's match at the directive whose `#` is at `at` (None: none, or `#` does not start one)."""
    line = body.rfind(b"\n", 0, at) + 1
    before = body[line:at]
    if not before.strip(b" \t"):
        return pattern.match(body, line)
    if b"*/" in before and _after_comments(body, line, at):  # `/* note */#elif`: a directive too
        return pattern.match(body, at)
    return None


# blanks and block comments that start and end on the line
_COMMENTS = re.compile(rb"(?:[ \t]*/\*(?:[^*\n]|\*(?!/))*\*/)*[ \t]*")


def _after_comments(body: bytes, line: int, at: int) -> bool:
    """Whether only block comments and blanks stand before the `#` at `at` on its line, as the preprocessor
    reads it (clang and gcc alike): a comment may start on an earlier line, at that line's start."""
    before = body[line:at]
    if _COMMENTS.fullmatch(before):
        return True
    end = before.find(b"*/")  # the end of a comment opened on an earlier line
    if end < 0 or b"/*" in before[:end] or not _COMMENTS.fullmatch(before, end + 2):
        return False
    start = body.rfind(b"/*", 0, line)
    return start >= 0 and not body[body.rfind(b"\n", 0, start) + 1 : start].strip(b" \t")


def may_include(words: frozenset[bytes], paths: frozenset[str]) -> bool:
    """Whether a body with these words (file_words) may #include one of `paths`: it can only if every word
    of that path is among them. Exact for the common case, a file that includes only other headers."""
    found = _path_words(paths)
    if found is None:
        return True
    longest, index = found
    return any(needed <= words for word in words & longest for needed in index[word])


@functools.lru_cache(maxsize=8)
def _path_words(
    paths: frozenset[str],
) -> tuple[frozenset[bytes], dict[bytes, tuple[frozenset[bytes], ...]]] | None:
    """The words of each path, by its longest word, and those words as a set (a set: `words & index.keys()`
    would walk every word of the body); None: a path has no word, so any body may include it."""
    index: dict[bytes, list[frozenset[bytes]]] = {}
    for path in paths:
        words = file_words(path.encode())
        if not words:
            return None
        index.setdefault(max(sorted(words), key=len), []).append(words)
    return frozenset(index), {word: tuple(sets) for word, sets in index.items()}


def identifier_tokens(tokens: Tokens, present: frozenset[bytes]) -> list[int]:
    """Indices of the identifier tokens spelled as one of `present`, in order."""
    return token_occurrences(tokens, present, WORDY_KINDS)


def token_occurrences(
    tokens: Tokens, spellings: Iterable[bytes], kinds: tuple[int, ...], *, first_only: bool = False
) -> list[int]:
    """Indices of the tokens of one of `kinds` spelled as one of `spellings`, in order.

    Searches the text for the few spellings wanted instead of walking every token, plus the rare
    tokens that hold a line splice (`cuda\\<newline>Malloc`, or a splice before the first character).
    """
    body, starts, ends = tokens.body, tokens.starts, tokens.ends
    found = []
    count = len(starts)
    wanted = spellings if isinstance(spellings, (set, frozenset)) else frozenset(spellings)
    for needle in wanted:
        size = len(needle)
        pos = body.find(needle)
        while pos != -1:  # bytes.find is C-fast; the token check rejects hits inside longer names
            i = bisect.bisect_left(starts, pos)
            if i < count and starts[i] == pos and ends[i] == pos + size and tokens.kinds[i] in kinds:
                found.append(i)
                if first_only:
                    return found
            pos = body.find(needle, pos + size)
    found += [i for i in tokens.spliced if tokens.kinds[i] in kinds and tokens.text(i).encode() in wanted]
    found.sort()
    return found[:1] if first_only else found


def inside(spans: Sequence[Span], span_starts: Sequence[int], pos: int) -> bool:
    """True when pos lies in one of the sorted, disjoint spans (span_starts: their starts)."""
    k = bisect.bisect_right(span_starts, pos) - 1
    return k >= 0 and pos < spans[k][1]


def is_unqualified_call(tokens: Tokens, i: int) -> bool:
    """`name(` called as itself: not a member (`v.abs(`), not qualified (`std::isnan(`), and not declared or
    defined (`float sqrt(float)`, `__half __hmax_nan(__half a, ...)`)."""
    if not is_punct(tokens, next_code(tokens, i), "("):
        return False
    j = prev_code(tokens, i)
    if j < 0:
        return True
    if tokens.kinds[j] in WORDY_KINDS:
        return tokens.text(j) in EXPRESSION_KEYWORDS
    return not is_punct(tokens, j, "::", ".", "->")
