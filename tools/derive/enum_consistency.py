"""An enum type and its enumerators land on one HIP enum (issue #10): `CUresourceViewFormat` must not map
to the runtime's hipResourceViewFormat while CU_RES_VIEW_FORMAT_* map to HIPresourceViewFormat_enum's
HIP_RES_VIEW_FORMAT_*, or code that declares a variable of the type and assigns an enumerator breaks
in C++ (no implicit conversion between enums).

For every CUDA enum of the runtime and driver (its tag with the typedefs that spell it), the HIP enums
that its mapped names land on (the type rules' HIP enum, and each enumerator rule's HIP `enum`) must be
one; each split is a derivation problem, so a new one fails the run."""

from __future__ import annotations

import collections

from tools.derive.core import Family
from tools.derive.enums import enum_groups, group_names
from tools.derive.inventory import RELEASES, Inventory

HOST_LIBS = ["cuda_runtime", "cuda_driver"]


def hip_enum_of(inv: Inventory) -> dict[str, str]:
    """HIP name (enum tag, its typedefs, its enumerators) -> the enum group it belongs to, every release."""
    out: dict[str, str] = {}
    for rel in RELEASES:
        if rel in inv.host_only:
            continue
        alias, members = enum_groups(inv.hip[rel], ["hip_runtime"])
        for name, group in alias.items():
            out.setdefault(name, group)
        for group, names in members.items():
            for name in names:
                out.setdefault(name, group)
    return out


def enum_splits(inv: Inventory, families: list[Family]) -> list[str]:
    """`CUDA enum: type -> HIP enum, enumerators -> HIP enums` for each CUDA enum split across HIP enums."""
    hip_of = hip_enum_of(inv)
    mapped: dict[str, str] = {}  # CUDA name -> HIP name (its newest span's)
    for fam in families:
        for r in fam.rules:
            if "hip" in r and "until" not in r.get("rocm", {}):
                mapped[r["cuda"]] = r["hip"]
    alias, members = enum_groups(inv.cuda, HOST_LIBS)
    problems = []
    for group in sorted(members):
        types = {hip_of[h] for n in group_names(alias, group) if (h := mapped.get(n)) in hip_of}
        by_enum: dict[str, list[str]] = collections.defaultdict(list)
        for name in members[group]:
            if (h := mapped.get(name)) in hip_of:
                by_enum[hip_of[h]].append(name)
        targets = types | set(by_enum)
        if len(targets) > 1:
            detail = ", ".join(f"{len(v)} enumerator(s) to {k} (e.g. {v[0]})" for k, v in sorted(by_enum.items()))
            problems.append(
                f"enum {group}: the type maps to {', '.join(sorted(types)) or 'no HIP enum'}, {detail}: "
                "map the type and its enumerators to one HIP enum (tools/curated.yaml)"
            )
    return problems
