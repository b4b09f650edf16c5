"""Counterpart enums: group enumerators by enum (and the typedefs that spell it) and match them by name."""

from __future__ import annotations

import collections
from collections.abc import Iterable

from tools.derive.inventory import Snapshot
from tools.derive.names import vendorless, words
from tools.derive.records import TYPEDEF


def enum_groups(snap: Snapshot, libs: list[str]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """alias -> group key, group key -> enumerator names.  A group is an enum tag
    together with the typedef names that spell it."""
    alias: dict[str, str] = {}
    members: dict[str, list[str]] = collections.defaultdict(list)
    recs = [r for lib in libs for r in snap.by_lib.get(lib, [])]
    for r in recs:
        if r["kind"] == "enum":
            alias.setdefault(r["name"], r["name"])
    for r in recs:
        if r["kind"] == "type" and (m := TYPEDEF.match(r.get("signature", ""))) and m[1] in alias:
            alias.setdefault(m[2], alias[m[1]])
    for r in recs:
        if r["kind"] == "enumerator" and r.get("enum"):
            key = alias.setdefault(r["enum"], r["enum"])
            if r["name"] not in members[key]:
                members[key].append(r["name"])
    return alias, members


def group_names(alias: dict[str, str], group: str) -> list[str]:
    """The names (tag and typedefs) of one enum group, sorted."""
    return sorted(n for n, g in alias.items() if g == group)


def strip_common_prefix(names: list[str]) -> dict[str, str]:
    """name -> the words after the prefix shared by all names, joined."""
    split = {n: words(n) for n in names}
    if len(names) < 2:
        return {}
    common = 0
    lists = list(split.values())
    while all(len(w) > common + 1 for w in lists) and len({tuple(w[: common + 1]) for w in lists}) == 1:
        common += 1
    return {n: "".join(w[common:]) for n, w in split.items()}


def unique_index(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    seen: dict[str, set[str]] = collections.defaultdict(set)
    for key, name in pairs:
        if key:
            seen[key].add(name)
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


def match_enumerators(cuda_members: list[str], hip_members: list[str]) -> dict[str, str]:
    """Match enumerators of two counterpart enums by normalised name, unambiguous only."""
    result: dict[str, str] = {}
    indexes = (
        (unique_index((vendorless(n), n) for n in cuda_members), unique_index((vendorless(n), n) for n in hip_members)),
        (
            unique_index((v, k) for k, v in strip_common_prefix(cuda_members).items()),
            unique_index((v, k) for k, v in strip_common_prefix(hip_members).items()),
        ),
    )
    for cidx, hidx in indexes:
        for key, cname in cidx.items():
            if key in hidx and cname not in result and hidx[key] not in result.values():
                result[cname] = hidx[key]
    return result
