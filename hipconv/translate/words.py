"""Finding words in a body and their tokens without walking every token.

`file_words` is the prefilter's view of a file (every identifier-like word, comments
and strings included); the token searches find where those words are real tokens.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence

from hipconv.translate.lexer import TokenKind, Tokens, unsplice
from hipconv.translate.syntax import Span

WORDY_KINDS = (TokenKind.IDENTIFIER, TokenKind.KEYWORD)
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
SPLICED_WORD = re.compile(rb"[A-Za-z0-9_]\\\r?\n")  # a line splice right after a name may cut it


def file_words(body: bytes) -> frozenset[bytes]:
    """Every identifier-like word of a body (comments and strings included), joining line splices."""
    if SPLICED_WORD.search(body):
        body = unsplice(body)
    return frozenset(_WORD.findall(body))


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
