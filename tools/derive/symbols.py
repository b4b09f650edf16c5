"""hipconv/data/cuda.symbols (every library symbol and the HIP twin the derivation found) and
miopen-6.3.arity (MIOpen's parameter counts)."""

from __future__ import annotations

import collections

from tools.derive.core import Deriver, Family
from tools.derive.inventory import Inventory
from tools.derive.libspec import LIBRARIES, SYMBOL_LIBS, LibSpec, lib_candidates, qualified_twin
from tools.derive.names import device_candidates
from tools.derive.records import IDENT, Rule


def hidden(name: str) -> bool:
    """Left out of cuda.symbols: implementation details (`__`-prefixed names,
    detail/internal namespaces) and names that are not identifiers (deduction guides)."""
    return any(s.startswith("__") or s in ("detail", "internal") or not IDENT.match(s) for s in name.split("::"))


def rules_by_cuda(families: list[Family]) -> dict[str, list[Rule]]:
    by_cuda: dict[str, list[Rule]] = collections.defaultdict(list)
    for fam in families:
        for r in fam.rules:
            by_cuda[r["cuda"]].append(r)
    return by_cuda


def chain_rule(name: str, by_cuda: dict[str, list[Rule]]) -> tuple[str, Rule] | None:
    """The rule the engine applies to a qualified name: the longest `a::b` prefix with a rule."""
    segs = name.split("::")
    for n in range(len(segs), 0, -1):
        prefix = "::".join(segs[:n])
        rules = [r for r in by_cuda.get(prefix, []) if r["kind"] != "include"]
        if rules:
            latest = [r for r in rules if "until" not in r.get("rocm", {})] or rules
            return prefix, latest[-1]
    return None


def mechanical_twin(inv: Inventory, lib: str, name: str, spec: LibSpec | None) -> str:
    if spec is None:
        cands = device_candidates(name) + [name]
    elif spec.qualified:
        cands = [qualified_twin(name, spec)] if "::" in name else lib_candidates(name, spec) + [name]
    else:
        cands = lib_candidates(name, spec) + ([name] if lib == "nccl" else [])
    same_ok = lib == "nccl" or (spec is not None and spec.qualified)
    return next((c for c in cands if inv.releases_with(c) and (c != name or same_ok)), "")


def symbol_twin(d: Deriver, lib: str, name: str, by_cuda: dict[str, list[Rule]]) -> tuple[str, bool]:
    """The HIP twin of a symbol ("" when none) and whether a rule covers the symbol."""
    if (hit := chain_rule(name, by_cuda)) is not None and ("::" in name or hit[0] == name):
        prefix, rule = hit
        cand = rule["hip"] + name[len(prefix) :] if rule.get("hip") else ""
        return (cand if cand and d.inv.releases_with(cand) else ""), True
    if (lib, name) in d.twins:
        return d.twins[(lib, name)], False
    if name in d.cur.ignore:
        return "", False
    spec = next((s for s in LIBRARIES if lib in s.cuda_libs), None)
    return mechanical_twin(d.inv, lib, name, spec), False


def symbol_rows(d: Deriver, families: list[Family]) -> tuple[list[str], list[str]]:
    """cuda.symbols rows and the symbols whose HIP twin exists but which no rule covers."""
    by_cuda = rules_by_cuda(families)
    rows, missing = [], []
    for lib in SYMBOL_LIBS:
        for name in d.inv.cuda.names(lib):
            if hidden(name):
                continue
            twin, covered = symbol_twin(d, lib, name, by_cuda)
            if twin and not covered and not (twin == name and d.inv.present_everywhere(name)):
                missing.append(f"{lib}\t{name} -> {twin}")
            rows.append(f"{lib}\t{name}\t{twin}")
    return rows, missing


def miopen_arity(inv: Inventory) -> list[str]:
    """`name<TAB>counts` for every MIOpen function of the newest full inventory (hipconv/data/miopen-6.3.arity)."""
    counts: dict[str, set[int]] = collections.defaultdict(set)
    for r in inv.hip[inv.newest_full].by_lib["miopen"]:
        if r["kind"] == "function" and IDENT.match(r["name"]):
            counts[r["name"]].add(len(r.get("params") or []))
    return [f"{n}\t{','.join(map(str, sorted(c)))}" for n, c in sorted(counts.items())]
