"""Enumerator conversions (tools/curated.yaml `conversions:`) -> hipconv/data/TYPE.conversion, checked
against the inventories.

hipBLAS's v1 API (ROCm 5.x) takes hipblasDatatype_t where cuBLAS's *Ex functions take cudaDataType and
cublasComputeType_t: the same meanings, other values; its GemmEx functions from ROCm 6.0 take
hipblasComputeType_t where C++ overloads of cuBLAS's also take a cudaDataType (code written for CUDA 10).
A rule's `converts:` (found by
tools/derive/calltypes.py) names the parameters whose arguments the translation converts: an enumerator
to its counterpart, anything else through the shim hipconv_TYPE of hipconv_compat.h
(templates/compat/hipconv_TYPE.h.j2), which maps the CUDA values this file lists.

The file: one line per enumerator of the `from` enums in any CUDA set, sorted by name:
`cuda<TAB>value<TAB>hip<TAB>why` (hip empty: none of the same meaning, and why; why empty otherwise).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.derive.compat import shim_template
from tools.derive.core import Deriver
from tools.derive.inventory import RELEASES
from tools.derive.records import Rule

SHARED = Path(__file__).resolve().parents[3] / "shared"
HIPBLAS_V2_HEADER = SHARED / "rocm-6.3" / "include" / "hipblas" / "hipblas.h"
# hipBLAS's own table from hipblasDatatype_t to hipDataType, in its `#ifdef HIPBLAS_V2` block
_V2_DEFINE = re.compile(r"^#define\s+(HIPBLAS_[RC]_\w+)\s+(HIP_[RC]_\w+)\s*$", re.M)
_INVALID = "INVALID"  # HIPBLAS_DATATYPE_INVALID: no data type, reached by no CUDA value


@dataclass(frozen=True)
class Entry:
    cuda: str
    value: int
    hip: str | None
    why: str


@dataclass(frozen=True)
class Conversion:
    target: str  # the HIP parameter type
    sources: frozenset[str]  # the CUDA parameter types (and enums) converted to it
    entries: tuple[Entry, ...]

    @property
    def shim(self) -> str:
        return f"hipconv_{self.target}"

    def lines(self) -> list[str]:
        return [f"{e.cuda}\t{e.value}\t{e.hip or ''}\t{e.why}" for e in self.entries]


def conversions(d: Deriver) -> dict[str, Conversion]:
    """Every curated conversion, checked against the inventories (problems go to d.problems)."""
    out = {}
    for target, fact in sorted(d.cur.section("conversions").items()):
        out[target] = _conversion(d, target, fact)
        if not shim_template(out[target].shim).is_file():
            d.problems.append(f"conversions {target}: no template {shim_template(out[target].shim)}")
    return out


def _conversion(d: Deriver, target: str, fact: dict[str, Any]) -> Conversion:
    sources = frozenset(str(s) for s in fact["from"])
    values: dict[str, str | None] = dict(fact["values"])
    why: dict[str, str] = dict(fact.get("why") or {})
    cuda_values = {
        r["name"]: int(r["value"])
        for recs in d.inv.cuda.by_lib.values()
        for r in recs
        if r["kind"] == "enumerator" and r.get("enum") in sources and r.get("value") is not None
    }
    unreached = frozenset(fact.get("unreached") or {})
    problems = _problems(d, target, values, why, cuda_values, sources, unreached)
    d.problems.extend(f"conversions {target}: {p}" for p in problems)
    _check_v2_table(d, target, values, cuda_values)
    entries = tuple(
        Entry(name, value, values.get(name), "" if values.get(name) else why.get(name, str(fact["otherwise"])))
        for name, value in sorted(cuda_values.items())
    )
    return Conversion(target, sources, entries)


def _problems(
    d: Deriver,
    target: str,
    values: dict[str, str | None],
    why: dict[str, str],
    cuda_values: dict[str, int],
    sources: frozenset[str],
    unreached: frozenset[str],
) -> Iterator[str]:
    """What is wrong with a curated conversion: names that are no enumerators, a null without a `why`, a
    HIP value (other than the invalid one) that no CUDA enumerator reaches and `unreached` does not list,
    or one it lists that is reached or no enumerator."""
    yield from (f"{n} is no enumerator of {sorted(sources)}" for n in values if n not in cuda_values)
    yield from (f"{n} maps to null without a `why`" for n, h in values.items() if h is None and n not in why)
    yield from (f"`why` for {n}, which has a value" for n in why if values.get(n) is not None)
    targets = {str(r["name"]) for rel in RELEASES for r in _enumerators(d, target, rel)}
    yield from (f"{h} is no enumerator of {target}" for h in values.values() if h and h not in targets)
    missed = sorted(t for t in targets if t not in values.values() and _INVALID not in t and t not in unreached)
    if missed:
        yield f"no CUDA enumerator reaches {', '.join(missed)}"
    yield from (f"unreached {h} is no enumerator of {target}" for h in sorted(unreached - targets))
    yield from (f"unreached {h} is reached" for h in sorted(unreached & set(values.values())))


def _enumerators(d: Deriver, enum: str, rel: str) -> list[dict[str, Any]]:
    return [
        r
        for recs in d.inv.hip[rel].by_lib.values()
        for r in recs
        if r["kind"] == "enumerator" and r.get("enum") == enum
    ]


def _check_v2_table(d: Deriver, target: str, values: dict[str, str | None], cuda_values: dict[str, int]) -> None:
    """hipBLAS 2.x's HIPBLAS_V2 block defines each hipblasDatatype_t name as its hipDataType: the CUDA
    enumerator converted to it must have that hipDataType's value (where the ROCm 6.3 headers are here)."""
    if target != "hipblasDatatype_t" or not HIPBLAS_V2_HEADER.is_file():
        return
    hip_values = {str(r["name"]): r.get("value") for r in _enumerators(d, "hipDataType", RELEASES[-1])}
    for hipblas, hip in _V2_DEFINE.findall(HIPBLAS_V2_HEADER.read_text(encoding="utf-8")):
        for cuda, mapped in values.items():
            if mapped == hipblas and cuda.startswith("CUDA_") and cuda_values.get(cuda) != hip_values.get(hip):
                d.problems.append(f"conversions {target}: {cuda} -> {hipblas}, but hipblas.h defines it as {hip}")


def check_converting_rules(d: Deriver, rules: list[Rule], table: dict[str, Conversion]) -> None:
    """Every value a rule's conversion writes exists in each release of the rule."""
    for rule in rules:
        targets = set((rule.get("converts") or {}).values())
        rocm = rule.get("rocm", {})
        since = RELEASES.index(rocm.get("since", RELEASES[0]))
        until = RELEASES.index(rocm["until"]) if "until" in rocm else len(RELEASES)
        for target in targets:
            for rel in RELEASES[since:until]:
                have = {r["name"] for r in _enumerators(d, target, rel)}
                missing = sorted({str(e.hip) for e in table[target].entries if e.hip and e.hip not in have})
                if missing:
                    d.problems.append(f"{rule.get('id', rule['cuda'])}: {', '.join(missing)} not in ROCm {rel}")
