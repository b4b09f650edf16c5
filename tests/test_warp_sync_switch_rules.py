"""Which rules need HIP_ENABLE_WARP_SYNC_BUILTINS (issue #11): every HIP name ROCm 6.3's headers declare
only under `#ifdef HIP_ENABLE_WARP_SYNC_BUILTINS` has it as `requires_define` in the committed rules, and
the derivation takes it from the inventory's condition, or from curated.yaml where the inventory missed
the `#ifdef` (`__activemask`)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from conftest import SHARED_INVENTORY

from helpers import SHARED, ruleset
from hipconv.settings import Version
from tools.derive.core import Deriver
from tools.derive.curated import Curated
from tools.derive.inventory import Inventory

SWITCH = "HIP_ENABLE_WARP_SYNC_BUILTINS"
ROCM63_DETAIL = SHARED / "rocm-6.3" / "include" / "hip" / "amd_detail"
REPO = Path(__file__).resolve().parents[1]
# a declaration that starts a line: `unsigned long long __activemask() {`, `T __shfl_sync(MaskT mask, ...`
DECLARATION = re.compile(r"^(?![#/}\s])[\w:<>,*& ]*?\b(\w+)\s*\(")


def names_under_switch(header: Path) -> set[str]:
    """The functions a header declares at file scope inside `#ifdef HIP_ENABLE_WARP_SYNC_BUILTINS`."""
    names, stack = set(), []
    for line in header.read_text(encoding="utf-8", errors="replace").splitlines():
        directive = line.strip()
        if directive.startswith(("#if", "# if")):
            stack.append(directive.split()[-1] == SWITCH and directive.startswith("#ifdef"))
        elif directive.startswith("#endif") and stack:
            stack.pop()
        elif any(stack) and (m := DECLARATION.match(line)):
            names.add(m[1])
    return names


@pytest.mark.skipif(not ROCM63_DETAIL.is_dir(), reason=f"{ROCM63_DETAIL} not found (../shared is absent)")
def test_every_rule_to_a_name_behind_the_switch_requires_it() -> None:
    behind = set().union(*(names_under_switch(h) for h in sorted(ROCM63_DETAIL.glob("*.h"))))
    assert {"__activemask", "__shfl_sync", "__match_any_sync"} <= behind  # the reader sees both headers
    rocm63 = Version.parse("6.3")
    rules = [r for r in ruleset().rules if r.hip in behind and r.rocm.covers(rocm63) and r.rocm.available(rocm63)]
    assert {r.cuda for r in rules} >= {"__activemask", "__shfl_xor_sync", "__ballot_sync", "__match_all_sync"}
    assert [r.id for r in rules if r.requires_define != SWITCH] == []


@functools.cache
def deriver() -> Deriver:
    return Deriver(Inventory.load(SHARED_INVENTORY), Curated.load(REPO / "tools" / "curated.yaml"))


@pytest.mark.skipif(
    not (SHARED_INVENTORY / "MANIFEST.json").is_file(), reason=f"{SHARED_INVENTORY} is not on this machine"
)
@pytest.mark.parametrize(
    ("hip", "fact", "define", "problem"),
    [
        ("__shfl_sync", {}, SWITCH, False),  # the inventory records the #ifdef
        ("__activemask", {"requires_define": SWITCH}, SWITCH, False),  # it does not: curated
        ("__activemask", {}, None, False),
        ("__activemask", {"requires_define": "HIP_ENABLE_WARP_SYNC"}, "HIP_ENABLE_WARP_SYNC", True),  # misspelled
    ],
)
def test_the_derivation_takes_the_switch_from_the_inventory_or_curated(
    hip: str, fact: dict[str, object], define: str | None, problem: bool
) -> None:
    d = deriver()
    before = len(d.problems)
    assert d.opt_in(hip, fact) == define
    assert (len(d.problems) > before) == problem, d.problems[before:]
