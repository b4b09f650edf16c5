"""hipconv/data/cg.members and cg.factories: the member functions of CUDA's cooperative groups, and the ROCm
releases whose HIP class has each, the data behind HC014/HC015 (hipconv/translate/cg_members.py).

The groups are the classes `cooperative_groups::NAME` of CUDA's inventories (thread_block, grid_group,
thread_block_tile, ...; those with neither a member in CUDA nor a HIP class of the name left out) and those
HIP's factory functions return (tiled_group).  Their members are those CUDA records on any of them
(`cooperative_groups::grid_group::block_rank`): CUDA's thread_block_tile gets its own from bases in
`details::`, which the inventories leave out, and they are all on some other group too.

A HIP class's members in a release are its own (the records `cooperative_groups::thread_block::sync` of
that release's set) and those of its public bases, which the inventories do not record:
`cooperative_groups: bases:` in tools/curated.yaml lists them, and a base counts in the releases whose set
declares it.  `aliases:` there gives HIP's member of the same meaning where HIP lacks CUDA's name
(num_threads: size), and `requires_define:` the macro HIP's header declares a member under (the votes and
matches of 6.3's groups: HIP_ENABLE_WARP_SYNC_BUILTINS).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from tools.derive.curated import Curated
from tools.derive.inventory import RELEASES, Inventory, Snapshot

NAMESPACE = "cooperative_groups::"
LIBRARY = "cooperative_groups"
# a function record's return type: the signature's words before the qualified name (after a template head)
_RETURN = re.compile(r"^(?:template\s*<.*?>\s*)?(?:static\s+)?(\w+)")


class Member(NamedTuple):
    name: str
    scope: str  # "cg": no other CUDA API has the name, nor is it a common word (curated `ignore:`); else "shared"
    classes: dict[str, list[str]]  # group -> the ROCm releases whose HIP class has the member, oldest first
    alias: str  # HIP's member of the same meaning, where HIP's groups lack the name ("" when none)
    define: str  # the macro HIP declares it under ("" when none)


class Factory(NamedTuple):
    name: str  # cooperative_groups::tiled_partition
    form: str  # "<>": called with template arguments (a template overload); "()": without
    classes: list[str]  # the groups its overloads of that form return (HIP's where HIP declares it)


def _own_classes(snap: Snapshot) -> set[str]:
    """The classes `cooperative_groups::NAME` of a set (one level), by NAME."""
    return {
        r["name"][len(NAMESPACE) :]
        for r in snap.by_lib.get(LIBRARY, [])
        if r["kind"] == "class" and r["name"].startswith(NAMESPACE) and "::" not in r["name"][len(NAMESPACE) :]
    }


def _functions(snap: Snapshot) -> list[tuple[str, str, str]]:
    """(class or "", name, signature) of every function record of the cooperative-groups file."""
    out = []
    for r in snap.by_lib.get(LIBRARY, []):
        if r["kind"] != "function" or not r["name"].startswith(NAMESPACE):
            continue
        owner, _, name = r["name"][len(NAMESPACE) :].rpartition("::")
        out.append((owner, name, r.get("signature", "")))
    return out


def _cuda_members(inv: Inventory) -> dict[str, set[str]]:
    """CUDA group -> the members CUDA declares on it, in any bundled set."""
    found: dict[str, set[str]] = {}
    for snap in inv.cuda_sets.values():
        classes = _own_classes(snap)
        for owner, name, _ in _functions(snap):
            if owner in classes:  # not cooperative_groups::experimental::tiled_partition
                found.setdefault(owner, set()).add(name)
    return found


def factories(inv: Inventory, groups: Iterable[str]) -> list[Factory]:
    """The functions `cooperative_groups::f` that return a group, by form: HIP's overloads where some release
    declares f, else CUDA's (this_cluster)."""
    groups = set(groups)
    hip: dict[tuple[str, str], set[str]] = {}
    for rel in RELEASES:
        _returns(inv.hip[rel], groups, hip)
    cuda: dict[tuple[str, str], set[str]] = {}
    for snap in inv.cuda_sets.values():
        _returns(snap, groups, cuda)
    hip_names = {name for name, _ in hip}
    chosen = {**{k: v for k, v in cuda.items() if k[0] not in hip_names}, **hip}
    return [Factory(NAMESPACE + name, form, sorted(classes)) for (name, form), classes in sorted(chosen.items())]


def _returns(snap: Snapshot, groups: set[str], into: dict[tuple[str, str], set[str]]) -> None:
    for owner, name, signature in _functions(snap):
        m = _RETURN.match(signature)
        if owner or not m or m[1] not in groups:
            continue
        form = "<>" if signature.startswith("template") else "()"
        into.setdefault((name, form), set()).add(m[1])


def hip_members(snap: Snapshot, cls: str, bases: Mapping[str, list[str]]) -> set[str]:
    """The members of HIP's class `cls` (qualified) in a release: its own and its bases' (none where the set
    lacks the class)."""
    if "class" not in snap.kinds(cls):
        return set()
    own = {n for o, n, _ in _functions(snap) if NAMESPACE + o == cls}
    for base in bases.get(cls, []):
        own |= hip_members(snap, base, bases)
    return own


def cg_members(inv: Inventory, cur: Curated) -> tuple[list[Member], list[Factory]]:
    """Every member CUDA's groups declare, with the releases whose HIP groups have it; and the factories."""
    facts = cur.section("cooperative_groups")
    bases: dict[str, list[str]] = facts.get("bases") or {}
    aliases: dict[str, dict[str, str]] = facts.get("aliases") or {}
    defines: dict[str, str] = facts.get("requires_define") or {}
    _check_bases(inv, bases)
    cuda = _cuda_members(inv)
    hip_classes = set().union(*(_own_classes(inv.hip[rel]) for rel in RELEASES))
    made = factories(inv, set(cuda) | hip_classes)
    groups = set(cuda) | {c for f in made for c in f.classes}
    members = sorted(set().union(*cuda.values()))
    table = {(g, rel): hip_members(inv.hip[rel], NAMESPACE + g, bases) for g in sorted(groups) for rel in RELEASES}
    shared = _shared_names(inv) | cur.ignore
    out = []
    for name in members:
        alias = aliases.get(name, {}).get("hip", "")
        if alias and alias not in members:
            raise ValueError(f"tools/curated.yaml cooperative_groups aliases: {name}: {alias} is no group's member")
        classes = {g: [rel for rel in RELEASES if name in table[(g, rel)]] for g in sorted(groups)}
        have = {g: r for g, r in classes.items() if r}
        out.append(Member(name, "shared" if name in shared else "cg", have, alias, defines.get(name, "")))
    if unknown := sorted(set(defines) - set(members)):
        raise ValueError(f"tools/curated.yaml cooperative_groups requires_define: no group's member: {unknown}")
    return out, made


def _check_bases(inv: Inventory, bases: Mapping[str, list[str]]) -> None:
    """Every class the curated bases name is a HIP class of some release."""
    for cls, parents in bases.items():
        for name in [cls, *parents]:
            if not any("class" in inv.hip[rel].kinds(name) for rel in RELEASES):
                raise ValueError(f"tools/curated.yaml cooperative_groups bases: {name} is no HIP class")


def _shared_names(inv: Inventory) -> set[str]:
    """The last part of every CUDA name outside cooperative_groups (thrust's `size`, the device `any`)."""
    return {n.rsplit("::", 1)[-1] for n in inv.cuda.by_name if not n.startswith(NAMESPACE)}
