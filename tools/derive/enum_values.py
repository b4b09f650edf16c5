"""hipconv/data/hip.enumerators: the value of each HIP enumerator a rule writes, in each bundled ROCm release.

Translation reads it to tell whether two case labels of a switch become the same value (a duplicate case
after translation: cudaErrorMemoryAllocation and CUDA_ERROR_OUT_OF_MEMORY become hipErrorMemoryAllocation
and hipErrorOutOfMemory, both 2), hipconv/translate/case_labels.py.  A release has a value for a name when
its set (carried-forward records included) has an enumerator record of that name with one integer value;
the host-only sets read values from hip-python's compiled modules, which lack a few (`"value": null`).
"""

from __future__ import annotations

from tools.derive.core import Family
from tools.derive.inventory import RELEASES, Inventory


def enumerator_values(inv: Inventory, families: list[Family]) -> list[tuple[str, int, list[str]]]:
    """(name, value, the releases where it has that value, oldest first), sorted by name, then by the first
    release: one entry per value a name has in some release."""
    emitted = {r["hip"] for fam in families for r in fam.rules if r.get("hip") and r["kind"] == "enumerator"}
    found: dict[tuple[str, int], list[str]] = {}
    for rel in RELEASES:
        snap = inv.hip[rel]
        for name in emitted:
            values = {r.get("value") for r in snap.records(name) if r["kind"] == "enumerator"}
            if len(values) == 1 and isinstance(value := values.pop(), int):
                found.setdefault((name, value), []).append(rel)
    rows = sorted(found.items(), key=lambda item: (item[0][0], RELEASES.index(item[1][0])))
    return [(name, value, releases) for (name, value), releases in rows]
