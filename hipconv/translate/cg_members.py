"""Member functions of CUDA's cooperative groups that HIP's group lacks in the targeted ROCm (HC014, HC015).

`tile.meta_group_rank()` compiles with CUDA, and with HIP from ROCm 5.7 only; `grid.block_rank()` and
`block.dim_threads()` with no HIP release. Which HIP group has which member in which release is data:
hipconv/data/cg.members (every member CUDA's groups declare, with the releases of each HIP group that has
it, through its bases too) and cg.factories (the group each factory function returns), derived from the
inventories by tools/derive/cg_members.py.

A member call `x.name(` or `x->name(` in a file that uses cooperative groups is checked against the group
`x` is: the one its declaration names (`cg::thread_block_tile<32> tile`, `const thread_block &b`), or the one
the factory that initialises it returns (`auto g = cg::this_grid()`), or, for a call on a call, the one
the factory returns (`cg::tiled_partition<32>(block).meta_group_size()`). A receiver declared with another
type is no group: nothing is said. One whose type is not visible (a template parameter, a member) may be any
group, and is checked only for names no other CUDA API has (`meta_group_rank`, not `size` or `any`): it is
reported when no HIP group has the member in the targeted release.

Reported: an error (HC014), the call left as it is. Where HIP's groups have the member under another
name of the same meaning (CUDA's `num_threads()`: HIP's `size()`), and the receiver is known to be a
group that has it, the name is rewritten (HC015). A member HIP declares only under a macro (`tile.ballot()`
in 6.3: HIP_ENABLE_WARP_SYNC_BUILTINS) gets it defined at the top of the file, as the warp-sync rules do.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import NamedTuple

from hipconv.diagnostics import CG_MEMBER_MISSING, CG_MEMBER_RESPELLED
from hipconv.resources import data_file, expand_spans, hip_releases, span_text
from hipconv.translate.edits import Edit
from hipconv.translate.found import Found
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.syntax import is_punct, matching_open, next_code, prev_code, template_close, template_open
from hipconv.translate.words import WORDY_KINDS, token_occurrences

MISSING_CODE = CG_MEMBER_MISSING
RENAMED_CODE = CG_MEMBER_RESPELLED
RULE_ID = "cooperative_groups.member"
NAMESPACE = "cooperative_groups"
_USES_CG = NAMESPACE.encode()  # the include, the namespace and its alias all spell it
# words before a name that make it no declaration (`return x;`), or a type's (`typename T`)
_NOT_TYPES = frozenset({"return", "case", "throw", "else", "do", "new", "delete", "sizeof", "goto", "co_return"})
_TYPE_PARAMETER = frozenset({"typename", "class"})
_QUALIFIERS = frozenset({"const", "volatile", "__restrict__", "__restrict"})
_DECLARATOR_END = frozenset({"=", ";", ",", ")", "(", "{", "[", ":"})


class Member(NamedTuple):
    scope: str  # "cg": no other CUDA API has the name; "shared": another one has it, or a common word
    groups: Mapping[str, frozenset[str]]  # HIP group -> the bundled releases whose group has the member
    alias: str  # HIP's name of the same meaning ("" when none)
    define: str  # the macro HIP's header declares it under ("" when none)


class Facts(NamedTuple):
    members: Mapping[str, Member]
    factories: Mapping[tuple[str, str], frozenset[str]]  # (function, "<>" or "()") -> the groups it returns
    groups: frozenset[str]  # every group the data knows
    words: frozenset[bytes]  # the members' names, for the prefilter


@functools.cache
def facts() -> Facts:
    """hipconv/data/cg.members and cg.factories (empty where they are missing)."""
    bundled = hip_releases()
    members: dict[str, Member] = {}
    path = data_file("cg.members")
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else ():
        name, scope, have, alias, define = line.split("\t")
        spans = dict(entry.split("=") for entry in have.split())
        groups = {g: frozenset(expand_spans(s, bundled)) for g, s in spans.items()}
        members[name] = Member(scope, groups, alias, define)
    factories: dict[tuple[str, str], frozenset[str]] = {}
    path = data_file("cg.factories")
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else ():
        function, form, returned = line.split("\t")
        factories[(function.rpartition("::")[2], form)] = frozenset(returned.split(","))
    every = {g for m in members.values() for g in m.groups} | {g for gs in factories.values() for g in gs}
    return Facts(members, factories, frozenset(every), frozenset(name.encode() for name in members))


def may_call_members(words: frozenset[bytes]) -> bool:
    """The prefilter's test: the file uses cooperative groups and names one of their members."""
    return _USES_CG in words and not words.isdisjoint(facts().words)


def match_cg_members(c: Found, words: frozenset[bytes]) -> None:
    """Report (or rewrite) the member calls on cooperative groups that the targeted HIP group lacks."""
    if not may_call_members(words):
        return
    known = facts()
    tokens, release = c.tokens, str(c.settings.rocm)
    for i in token_occurrences(tokens, words & known.words, (TokenKind.IDENTIFIER,)):
        dot = prev_code(tokens, i)
        if not is_punct(tokens, dot, ".", "->") or not is_punct(tokens, next_code(tokens, i), "("):
            continue
        name = tokens.text(i)
        member = known.members[name]
        groups = receiver_groups(tokens, dot, known)
        if groups is None and member.scope != "cg":
            continue  # a receiver of unknown type, and a name other APIs have (`size`, `any`)
        candidates = known.groups if groups is None else groups
        if not candidates:
            continue
        if any(release in member.groups.get(g, ()) for g in candidates):
            if member.define:  # HIP declares it under an #ifdef (the votes of 6.3's groups)
                c.defines.add(member.define)
            continue
        if groups is not None and _alias_serves(known, member, candidates, release):
            _rename(c, i, name, member.alias, candidates)
        else:
            c.diag(
                tokens.starts[i], MISSING_CODE, _missing(name, member, groups, release), symbol=_symbol(name, groups)
            )


def _alias_serves(known: Facts, member: Member, groups: frozenset[str], release: str) -> bool:
    alias = known.members.get(member.alias)
    return alias is not None and all(release in alias.groups.get(g, ()) for g in groups)


def _rename(c: Found, i: int, name: str, alias: str, groups: frozenset[str]) -> None:
    tokens = c.tokens
    c.edits.append(Edit.replace(tokens.starts[i], tokens.ends[i], alias, RULE_ID))
    c.replaced(tokens.starts[i], name, alias, RULE_ID, NAMESPACE)
    message = f"{name}() rewritten to {alias}(), HIP's name for it in {_names(groups)}"
    c.diag(tokens.starts[i], RENAMED_CODE, message, symbol=_symbol(name, groups))


def _missing(name: str, member: Member, groups: frozenset[str] | None, release: str) -> str:
    """HC014's message: which HIP groups have the member in which releases, or that none has."""
    whose = f"HIP's {_names(groups)}" if groups is not None else "HIP's cooperative groups"
    have = {g: r for g, r in member.groups.items() if groups is None or g in groups}
    hint = f" (HIP's groups call it {member.alias}())" if member.alias else ""
    if not have:
        cuda = f"CUDA's {_names(groups)}" if groups is not None else "CUDA's cooperative groups"
        return f"{name}() is a member of {cuda} that no HIP release has; left unchanged{hint}"
    by_when: dict[str, list[str]] = {}
    for group, releases in sorted(have.items()):
        by_when.setdefault(_when(releases), []).append(group)
    where = "; ".join(f"HIP's {', '.join(gs)} {when}" for when, gs in by_when.items())
    if groups is not None and len(groups) == 1:
        where = f"{whose} {next(iter(by_when))}"
    return f"{name}() is a member of {where}; the targeted {release} lacks it; left unchanged{hint}"


def _when(releases: frozenset[str]) -> str:
    """`from ROCm 5.7` (every bundled release from there on), else `in ROCm 5.7–6.1`."""
    bundled = hip_releases()
    first = min(releases, key=bundled.index)
    if set(bundled[bundled.index(first) :]) == releases:
        return f"from ROCm {first}"
    return f"in ROCm {span_text(releases)}"


def _names(groups: frozenset[str] | None) -> str:
    return " or ".join(sorted(groups or ()))


def _symbol(name: str, groups: frozenset[str] | None) -> str:
    if groups is not None and len(groups) == 1:
        return f"{NAMESPACE}::{next(iter(groups))}::{name}"
    return f"{NAMESPACE}::{name}"


def receiver_groups(tokens: Tokens, dot: int, known: Facts) -> frozenset[str] | None:
    """The groups the receiver before the `.`/`->` at `dot` may be: None when its type is not visible, empty
    when it is no group."""
    r = prev_code(tokens, dot)
    if is_punct(tokens, r, ")"):
        opener = matching_open(tokens, r)
        return None if opener is None else _factory_groups(tokens, prev_code(tokens, opener), known)
    if r >= 0 and tokens.text(r) == "this":
        return frozenset()  # the project's class
    if r < 0 or tokens.kinds[r] != TokenKind.IDENTIFIER:
        return None  # `a[i].`, ...
    return _declared_groups(tokens, r, known)


def _factory_groups(tokens: Tokens, callee: int, known: Facts) -> frozenset[str] | None:
    """The groups a call returns whose callee (its name, or the `>` closing its template arguments) is at
    `callee`: a factory's (`cg::this_grid()`, `tiled_partition<32>(b)`); None for any other call."""
    form = "()"
    if is_punct(tokens, callee, ">", ">>"):
        opener = template_open(tokens, callee)
        if opener is None:
            return None
        callee, form = prev_code(tokens, opener), "<>"
    if callee < 0 or tokens.kinds[callee] != TokenKind.IDENTIFIER or is_punct(tokens, prev_code(tokens, callee), "."):
        return None
    name = tokens.text(callee)
    found = known.factories.get((name, form))
    if found is None:  # called the other way (a deduced template): any overload's
        found = known.factories.get((name, "<>" if form == "()" else "()"))
    return found


def _declared_groups(tokens: Tokens, use: int, known: Facts) -> frozenset[str] | None:
    """The groups the variable named at `use` may be, from its nearest declaration before it."""
    for k in reversed(token_occurrences(tokens, (tokens.raw(use),), (TokenKind.IDENTIFIER,))):
        if k >= use:
            continue
        after = next_code(tokens, k)
        if not is_punct(tokens, after, *_DECLARATOR_END):
            continue  # a use (`x.sync()`, `x + 1`), not a declarator
        declared = _declaration_type(tokens, k, after, known)
        if declared is not _NOT_DECLARED:
            return declared
    return None


_NOT_DECLARED: frozenset[str] = frozenset({"<not declared here>"})


def _declaration_type(tokens: Tokens, k: int, after: int, known: Facts) -> frozenset[str] | None:
    """What the name at `k` is declared as, when `k` is a declarator: the groups of its type (empty: another
    type; None: a type not visible, `auto` without a factory, a template parameter); else _NOT_DECLARED."""
    t = prev_code(tokens, k)
    while is_punct(tokens, t, "&", "&&", "*") or (t >= 0 and tokens.text(t) in _QUALIFIERS):
        t = prev_code(tokens, t)
    if is_punct(tokens, t, ">", ">>"):  # a template's arguments: `thread_block_tile<32> tile`
        opener = template_open(tokens, t)
        t = prev_code(tokens, opener) if opener is not None else -1
    if t < 0 or tokens.kinds[t] not in WORDY_KINDS:
        return _NOT_DECLARED
    word = tokens.text(t)
    if word in _NOT_TYPES or word in _TYPE_PARAMETER or is_punct(tokens, prev_code(tokens, t), ".", "->"):
        return _NOT_DECLARED
    if word in known.groups:
        return frozenset({word})
    if word == "auto":
        return _initialiser_groups(tokens, after, known) if is_punct(tokens, after, "=") else None
    if tokens.kinds[t] == TokenKind.IDENTIFIER and _is_type_parameter(tokens, t):
        return None
    return frozenset()


def _initialiser_groups(tokens: Tokens, equals: int, known: Facts) -> frozenset[str] | None:
    """The groups `= [cg::]factory[<...>](...)` makes."""
    k = next_code(tokens, equals)
    while k + 1 < len(tokens) and is_punct(tokens, next_code(tokens, k), "::"):
        k = next_code(tokens, next_code(tokens, k))  # cg::this_grid, ::cooperative_groups::this_grid
    after = next_code(tokens, k)
    if is_punct(tokens, after, "<"):
        close = template_close(tokens, after, len(tokens))
        if close is None:
            return None
        return _factory_groups(tokens, close, known) if is_punct(tokens, next_code(tokens, close), "(") else None
    return _factory_groups(tokens, k, known) if is_punct(tokens, after, "(") else None


def _is_type_parameter(tokens: Tokens, t: int) -> bool:
    """The identifier at `t` is declared `typename T` or `class T` somewhere in the file."""
    for k in token_occurrences(tokens, (tokens.raw(t),), (TokenKind.IDENTIFIER,)):
        before = prev_code(tokens, k)
        if (
            before >= 0
            and tokens.text(before) in _TYPE_PARAMETER
            and is_punct(tokens, next_code(tokens, k), ",", ">", "=")
        ):
            return True
    return False
