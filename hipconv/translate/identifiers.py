"""Identifiers: every CUDA API name, plain or qualified (`cub::BlockReduce`), renamed or reported; how
it is used picks the rewrite: a call (by its argument count, for overloads), a type after `struct`, a
macro in a definedness test."""

from __future__ import annotations

import bisect
from collections.abc import Mapping

from hipconv.diagnostics import UNFIT_CALL
from hipconv.rules.model import SCOPE_KINDS, Action, LookupTable, Resolution, Rule, RuleKind
from hipconv.translate.calls import needs_arguments, pick_overload, reshape_call
from hipconv.translate.comments import keep_comments
from hipconv.translate.compat import shim_use
from hipconv.translate.contracts import check_contracts, contracted_names
from hipconv.translate.edits import Edit
from hipconv.translate.found import Found
from hipconv.translate.lexer import IDENTIFIER, KEYWORD, PUNCTUATION, Tokens
from hipconv.translate.status import apply_resolution
from hipconv.translate.syntax import Span, is_punct, next_code, prev_code
from hipconv.translate.texture_refs import TEXTURE, template_use
from hipconv.translate.words import WORDY_KINDS, identifier_tokens, inside

_MAX_QUALIFIERS = 4


def match_identifiers(c: Found, skip: list[Span], words: frozenset[bytes]) -> bool:
    """Rewrite or report every CUDA API name outside `skip`; True when the file uses any."""
    tokens, identifiers = c.tokens, c.table.identifiers
    skip_starts = [s for s, _ in skip]
    starts, ends = tokens.starts, tokens.ends
    uses_api = False
    consumed = 0  # the end of the last qualified name rewritten: its inner names are done
    contracted = contracted_names(words)  # functions of the file with an argument contract (usually none)
    for i in identifier_tokens(tokens, words & c.table.names):
        start = starts[i]
        if start < consumed or (skip and inside(skip, skip_starts, start)) or is_member_or_foreign(tokens, i, c.table):
            continue
        name = tokens.text(i)
        if name in c.table.qualified_heads:
            name, last, resolution = _longest_name(tokens, i, identifiers)
        else:
            last, resolution = i, identifiers.get(name)
        if resolution is None:
            continue
        rule = resolution.rule
        if _other_use(tokens, i, last, name, rule):
            continue
        uses_api = True
        consumed = ends[last]
        called = is_punct(tokens, next_code(tokens, last), "(")
        if resolution.overloads is not None:
            picked = pick_overload(c, i, name, resolution.overloads, called=called)
            if picked is None:
                continue
            resolution, rule = picked, picked.rule
        if rule is None or not resolution.rewrites:
            _not_rewritten(c, i, last, name, resolution)
        else:
            if called and name in contracted:
                check_contracts(c, last, name, rule)
            _rewrite(c, i, last, name, resolution, called=called)
    return uses_api


def _other_use(tokens: Tokens, i: int, last: int, name: str, rule: Rule | None) -> bool:
    """A word the API shares with user code, not used as the API here: a namespace's name not used as one,
    `texture` not used as the template (a variable named texture)."""
    if rule is not None and rule.kind is RuleKind.NAMESPACE:
        return not _used_as_namespace(tokens, i, last)
    return name == TEXTURE and not template_use(tokens, i)


def _rewrite(c: Found, i: int, last: int, name: str, resolution: Resolution, *, called: bool) -> None:
    """The use of a name the target has a HIP counterpart for: a call reshaped, a type, a macro, a rename."""
    rule = resolution.rule
    assert rule is not None
    if rule.params is not None and (called or (not rule.uncalled and needs_arguments(rule))):
        reshape_call(c, i, rule, resolution)
    elif rule.tag is not None:  # a tag, or "" (tagless)
        _type_use(c, i, last, name, resolution, rule)
    elif rule.defined_only and not _tested_for_definition(c, i, name):
        _leave_value_use(c, i, name, rule)
    else:
        apply_resolution(c, c.tokens.starts[i], c.tokens.ends[last], name, resolution, rename=True)


def _not_rewritten(c: Found, i: int, last: int, name: str, resolution: Resolution) -> None:
    """A name the target has no HIP counterpart for: shimmed (translate.compat), or reported."""
    if resolution.action is Action.SHIM:
        shim_use(c, i, last, name, resolution)
    else:
        apply_resolution(c, c.tokens.starts[i], c.tokens.ends[last], name, resolution, rename=True)


_TAG_KEYWORDS = (b"struct", b"union", b"enum", b"class")
_DEFINEDNESS_DIRECTIVES = (b"ifdef", b"ifndef", b"elifdef", b"elifndef")


def _type_use(c: Found, i: int, last: int, name: str, resolution: Resolution, rule: Rule) -> None:
    """A type whose HIP name is a typedef: after `struct`/`union`/`enum`/`class` (an elaborated type
    specifier) it becomes the HIP tag, or, where HIP's typedef names an anonymous type, loses the keyword;
    a declaration or definition of the tag itself cannot lose it, and is reported."""
    tokens = c.tokens
    start, end = tokens.starts[i], tokens.ends[last]
    keyword = prev_code(tokens, i)
    if keyword < 0 or tokens.kinds[keyword] != KEYWORD or tokens.raw(keyword) not in _TAG_KEYWORDS:
        apply_resolution(c, start, end, name, resolution, rename=True)
    elif not rule.tagless and rule.tag is not None:
        apply_resolution(c, start, end, name, resolution, rename=True, spelling=rule.tag)
    elif is_punct(tokens, next_code(tokens, last), ";", "{", ":"):
        word = tokens.text(keyword)
        message = (
            f"`{word} {name}` declares or defines the {word} itself, and {rule.hip} is a typedef of an anonymous "
            f"{word}, which has no tag to declare; left unchanged{f' ({rule.note})' if rule.note else ''}"
        )
        c.diag(start, rule.code or UNFIT_CALL, message, rule, name)
    else:
        region = (tokens.starts[keyword], start)
        kept = keep_comments(tokens, region, (), c.source.newline_at(region[0]))  # `struct /* c */ X`
        c.edits.append(Edit(*region, kept, rule.id))
        apply_resolution(c, start, end, name, resolution, rename=True)


def _tested_for_definition(c: Found, i: int, name: str) -> bool:
    """True when token i is a definedness test (`#ifdef X`, `#ifndef X`, `defined(X)`, `defined X`) on a
    preprocessor line where every use of the name is one: a line that also uses its value stays whole."""
    tokens = c.tokens
    line = c.directive_around(tokens.starts[i])
    if line is None:
        return False
    k = bisect.bisect_left(tokens.starts, line[0])
    while k < len(tokens) and tokens.starts[k] < line[1]:
        if tokens.kinds[k] == IDENTIFIER and tokens.text(k) == name and not _definedness_test(tokens, k):
            return False
        k += 1
    return True


def _definedness_test(tokens: Tokens, k: int) -> bool:
    before = prev_code(tokens, k)
    if before < 0:
        return False
    if tokens.raw(before) == b"defined":
        return True
    if is_punct(tokens, before, "(") and is_punct(tokens, next_code(tokens, k), ")"):
        keyword = prev_code(tokens, before)
        return keyword >= 0 and tokens.raw(keyword) == b"defined"
    return tokens.raw(before) in _DEFINEDNESS_DIRECTIVES and is_punct(tokens, prev_code(tokens, before), "#", "%:")


def _leave_value_use(c: Found, i: int, name: str, rule: Rule) -> None:
    """A macro whose HIP counterpart stands only for its being defined, used here otherwise (for its value,
    or beside such a use on its line): reported where the value is used, kept."""
    if _definedness_test(c.tokens, i):
        return  # its line's value use is reported; the test stays so that the line stays consistent
    note = f" ({rule.note})" if rule.note else ""
    message = (
        f"{name} is used here for its value, not only tested with #ifdef or defined(); {rule.hip} stands only "
        f"for being defined, so {name} is left unchanged{note}"
    )
    c.diag(c.tokens.starts[i], rule.code or UNFIT_CALL, message, rule, name)


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


def is_member_or_foreign(tokens: Tokens, i: int, table: LookupTable) -> bool:
    """`x.cudaFoo`, `p->cudaFoo` and `mylib::cudaFoo` are not the CUDA API, nor is `cudaMalloc::cudaFoo`:
    only a CUDA namespace or type, or the HIP name it becomes, qualifies a CUDA name (a function or value
    before `::` is renamed, and the second run must decide alike)."""
    j = prev_code(tokens, i)
    if j < 0 or tokens.kinds[j] != PUNCTUATION:  # most names: one test (this runs for every API name found)
        return False
    before = tokens.raw(j)
    if before in (b".", b"->"):
        return True
    if before == b"::":
        q = prev_code(tokens, j)
        if q < 0 or tokens.kinds[q] != IDENTIFIER:
            return False
        text = tokens.text(q)
        qualifier = table.identifiers.get(text)
        if qualifier is not None and qualifier.rule is not None and qualifier.rule.kind in SCOPE_KINDS:
            return False
        return text not in table.hip_scopes
    return False
