"""Identifiers: every CUDA API name, plain or qualified (`cub::BlockReduce`), renamed or reported."""

from __future__ import annotations

from collections.abc import Mapping

from hipconv.rules.model import Resolution, RuleKind
from hipconv.translate.calls import reshape_call
from hipconv.translate.collector import MatchCollector, apply_resolution
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.syntax import Span, is_punct, next_code, prev_code
from hipconv.translate.words import WORDY_KINDS, identifier_tokens, inside

_MAX_QUALIFIERS = 4


def match_identifiers(c: MatchCollector, skip: list[Span], words: frozenset[bytes]) -> bool:
    """Rewrite or report every CUDA API name outside `skip`; True when the file uses any."""
    tokens, identifiers = c.tokens, c.table.identifiers
    skip_starts = [s for s, _ in skip]
    starts, ends = tokens.starts, tokens.ends
    uses_api = False
    consumed = 0  # the end of the last qualified name rewritten: its inner names are done
    for i in identifier_tokens(tokens, words & c.table.names):
        start = starts[i]
        if (
            start < consumed
            or (skip and inside(skip, skip_starts, start))
            or _is_member_or_foreign(tokens, i, identifiers)
        ):
            continue
        if tokens.text(i) in c.table.qualified_heads:
            name, last, resolution = _longest_name(tokens, i, identifiers)
        else:
            name, last = tokens.text(i), i
            resolution = identifiers.get(name)
        if resolution is None:
            continue
        rule = resolution.rule
        if rule is not None and rule.kind is RuleKind.NAMESPACE and not _used_as_namespace(tokens, i, last):
            continue
        uses_api = True
        consumed = ends[last]
        if rule is not None and rule.params is not None and resolution.rewrites:
            reshape_call(c, i, rule, resolution)
        else:
            apply_resolution(c, start, ends[last], name, resolution, rename=True)
    return uses_api


def _longest_name(tokens: Tokens, i: int, identifiers: Mapping[str, Resolution]) -> tuple[str, int, Resolution | None]:
    """The longest `a::b::c` starting at token i that the table knows: (spelling, last token, resolution)."""
    chain = [(i, tokens.text(i))]
    j = i
    while len(chain) < _MAX_QUALIFIERS:
        sep = next_code(tokens, j)
        nxt = next_code(tokens, sep)
        if not (is_punct(tokens, sep, "::") and nxt < len(tokens) and tokens.kinds[nxt] in WORDY_KINDS):
            break
        chain.append((nxt, tokens.text(nxt)))
        j = nxt
    for n in range(len(chain), 0, -1):
        spelling = "::".join(text for _, text in chain[:n])
        resolution = identifiers.get(spelling)
        if resolution is not None:
            return spelling, chain[n - 1][0], resolution
    return chain[0][1], i, None


def _used_as_namespace(tokens: Tokens, first: int, last: int) -> bool:
    """`ns::x`, `using namespace ns;` or `namespace alias = ns;`: not a variable that happens to be named ns."""
    if is_punct(tokens, next_code(tokens, last), "::"):
        return True
    before = prev_code(tokens, first)
    if before >= 0 and tokens.raw(before) == b"namespace":
        return True
    if not is_punct(tokens, before, "="):
        return False
    keyword = prev_code(tokens, prev_code(tokens, before))
    return keyword >= 0 and tokens.raw(keyword) == b"namespace"


def _is_member_or_foreign(tokens: Tokens, i: int, identifiers: Mapping[str, Resolution]) -> bool:
    """`x.cudaFoo`, `p->cudaFoo` and `mylib::cudaFoo` are not the CUDA API."""
    j = prev_code(tokens, i)
    if is_punct(tokens, j, ".", "->"):
        return True
    if is_punct(tokens, j, "::"):
        q = prev_code(tokens, j)
        return q >= 0 and tokens.kinds[q] == TokenKind.IDENTIFIER and tokens.text(q) not in identifiers
    return False
