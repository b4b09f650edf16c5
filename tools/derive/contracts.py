"""Argument contracts (tools/curated.yaml `contracts:`) -> hipconv/data/library.contracts, checked against the
inventories and the derived rules.

A contract is a parameter that the CUDA function accepts as a null pointer, with a meaning of its own, and
the HIP function its rule writes does not (hipconv/rules/contracts.py). The derivation checks that the CUDA
function is in an inventory with a parameter of that name, and that a rule translates it to a HIP function
(a contract of a call hipconv leaves as it is would never be reported).

The file: `cuda<TAB>param<TAB>index<TAB>note`, one line per contract, sorted.
"""

from __future__ import annotations

from pathlib import Path

from hipconv.rules.contracts import FILE
from tools.derive.core import Deriver, Family
from tools.derive.write import write_lines


def contract_lines(d: Deriver, families: list[Family]) -> list[str]:
    """A line per curated contract; what does not fit the inventories or the rules goes to d.problems."""
    translated = {r["cuda"] for f in families for r in f.rules if r.get("hip")}
    lines = []
    for cuda, fact in sorted(d.cur.section("contracts").items()):
        params = [p for r in d.inv.cuda.records(cuda) if r["kind"] == "function" for p in [r.get("params") or []]]
        if not params:
            d.problems.append(f"contracts {cuda}: no CUDA function of that name in the inventories")
            continue
        names = [str(p.get("name")) for p in params[0]]
        if cuda not in translated:
            d.problems.append(f"contracts {cuda}: no rule translates it")
        for param in fact["not_null"]:
            if param not in names:
                d.problems.append(f"contracts {cuda}: no parameter {param} (it has {', '.join(names)})")
                continue
            lines.append(f"{cuda}\t{param}\t{names.index(param)}\t{' '.join(str(fact['note']).split())}")
    return lines


def write_contracts(d: Deriver, families: list[Family], out: Path) -> Path:
    return write_lines(out / FILE, contract_lines(d, families))
