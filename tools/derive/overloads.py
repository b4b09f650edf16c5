"""CUDA overloads a ROCm release lacks while it declares the name for other types -> hipconv/data/cuda.overloads.

A name-based rule cannot say this: HIP declares atomicCAS (for int, unsigned, unsigned long long, float,
double ...) but not CUDA's 16-bit `atomicCAS(unsigned short *, unsigned short, unsigned short)`
(crt/sm_70_rt.h), and __hmax_nan for __half but not for __nv_bfloat16 (cuda_bf16.h). The curated
`overloads:` of tools/curated.yaml name the overloads hipconv_compat.h can define exactly (a shim each, whose
template defines the CUDA name itself, so C++ overloading keeps HIP's own overloads for the other types);
this module checks each against the inventories and finds, per ROCm release, whether it lacks the overload:

- CUDA declares the overload (a function record of the name with those parameter types, in 11.8, 12.9 or 13.0);
- a full ROCm inventory (5.2, 5.7, 6.0-6.3) lacks it where it declares the name (a function) and every type
  the overload takes (a CUDA type by the HIP name its rule writes: __nv_bfloat16 -> __hip_bfloat16), without a
  declaration of those parameter types (top-level const and `int` after short or long aside). A release that
  lacks the name is left to the name's rule; one that lacks a type cannot take the definition (5.2 has no
  __hip_bfloat16);
- the host-only inventories (6.4-7.2) cannot see device code: they carry the answer of the full release they
  carry forward (6.3).

An overload that no release lacks, that CUDA does not declare, or whose template is missing is a problem.
The file: `cuda<TAB>shim<TAB>params (", ")<TAB>releases lacking it (spans)`, one overload a line, sorted by
shim (read by hipconv/translate/matchers/overload_shims.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hipconv.translate.matchers.overload_shims import OVERLOADS_FILE, TEMPLATE_PARAMETERS, type_key
from tools.derive.compat import shim_template
from tools.derive.core import Deriver, Family
from tools.derive.inventory import RELEASES, Inventory, Snapshot
from tools.derive.write import span_list, write_lines

SECTION = "overloads"
_BUILTIN = frozenset(
    {"void", "bool", "char", "signed", "unsigned", "short", "int", "long", "float", "double", "size_t"}
)
_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class OverloadFact:
    cuda: str
    shim: str
    params: tuple[str, ...]  # CUDA's parameter types, as curated
    lacking: tuple[str, ...]  # the ROCm releases that lack it (and take the definition)
    hip: str  # the name the overload is defined under: the CUDA name, or the HIP name its rule writes
    at: int  # the parameter whose type tells it from the overloads HIP declares
    direct: str = ""  # a HIP function that takes the overload's parameters as they are (hipMemPrefetchAsync_v2)
    direct_in: tuple[str, ...] = ()  # the ROCm releases that declare it so

    def line(self) -> str:
        fields = (self.cuda, self.shim, ", ".join(self.params), span_list(list(self.lacking)), self.hip, str(self.at))
        direct = (self.direct, span_list(list(self.direct_in))) if self.direct_in else ()
        return "\t".join(fields + direct)


def hip_type_names(families: list[Family]) -> dict[str, str]:
    """CUDA type name -> the HIP name its rule writes (the derived type rules)."""
    return {
        r["cuda"]: r["hip"]
        for fam in families
        for r in fam.rules
        if r.get("kind") in ("type", "class", "enum") and isinstance(r.get("hip"), str)
    }


def hip_function_names(families: list[Family]) -> dict[str, str]:
    """CUDA function name -> the HIP name its newest rule writes (cudaMemAdvise -> hipMemAdvise)."""
    return {
        r["cuda"]: r["hip"]
        for fam in families
        for r in fam.rules
        if r.get("kind") == "function" and isinstance(r.get("hip"), str) and "until" not in r.get("rocm", {})
    }


def telling_parameter(snap: Snapshot, name: str, params: tuple[str, ...], hip_types: dict[str, str]) -> int:
    """The first parameter whose type no function of the name that the release declares takes there: what tells
    the overload from HIP's own (0 where the release declares none)."""
    wanted = [type_key(p, hip_types) for p in params]
    records = [r.get("params", []) for r in snap.records(name) if r["kind"] == "function"]
    for n, want in enumerate(wanted):
        if all(n >= len(ps) or type_key(ps[n]["type"]) != want for ps in records):
            return n
    return 0


def lacks(snap: Snapshot, cuda: str, params: tuple[str, ...], hip_types: dict[str, str]) -> bool:
    """True when the release declares the name (a function) and the overload's types, but not the overload."""
    records = [r for r in snap.records(cuda) if r["kind"] == "function"]
    wanted = tuple(type_key(p, hip_types) for p in params)
    words = {w for p in wanted for w in _WORD.findall(p)} - _BUILTIN - TEMPLATE_PARAMETERS
    if not records or not all(snap.has(w) for w in words):
        return False
    return all(tuple(type_key(p["type"]) for p in r.get("params", [])) != wanted for r in records)


def declares_form(snap: Snapshot, name: str, params: tuple[str, ...], hip_types: dict[str, str]) -> bool:
    """The release declares the function `name` with the overload's parameter types, through the type rules
    (size_t as `unsigned long`, as ROCm 6.4-7.2's host-only sets spell it)."""
    wanted = [_sized(type_key(p, hip_types)) for p in params]
    return any(
        [_sized(type_key(p["type"])) for p in r.get("params", [])] == wanted
        for r in snap.records(name)
        if r["kind"] == "function"
    )


def _sized(type_text: str) -> str:
    return re.sub(r"\bsize_t\b", "unsigned long", type_text)


def cuda_declares(inv: Inventory, cuda: str, params: tuple[str, ...]) -> bool:
    wanted = tuple(type_key(p) for p in params)
    return any(
        tuple(type_key(p["type"]) for p in r.get("params", [])) == wanted
        for snap in inv.cuda_sets.values()
        for r in snap.records(cuda)
        if r["kind"] == "function"
    )


def overload_facts(
    inv: Inventory,
    curated: Mapping[str, Mapping[str, Any]],
    hip_types: dict[str, str],
    hip_names: Mapping[str, str] | None = None,
) -> tuple[list[OverloadFact], list[str]]:
    """The curated overloads with the releases that lack them, and the problems found. A runtime function
    (`hip_names`: the HIP name its rule writes) gets the overload under that HIP name."""
    facts: list[OverloadFact] = []
    problems: list[str] = []
    for shim, entry in sorted(curated.items()):
        cuda, params = entry["cuda"], tuple(entry["params"])
        where = f"overloads {shim} ({cuda})"
        if not shim.startswith("hipconv_"):
            problems.append(f"{where}: the shim must start with hipconv_")
        if not shim_template(shim).is_file():
            problems.append(f"{where}: no template {shim_template(shim)}")
        if not cuda_declares(inv, cuda, params):
            problems.append(f"{where}: no CUDA inventory declares {cuda}({', '.join(params)})")
        name = (hip_names or {}).get(cuda, cuda)
        full = {rel: lacks(inv.hip[rel], name, params, hip_types) for rel in RELEASES if rel not in inv.host_only}
        lacking = tuple(rel for rel in RELEASES if full[inv.host_only.get(rel, rel)])
        if not lacking:
            problems.append(f"{where}: every ROCm release declares it, or lacks the name or a type it takes")
            continue
        at = telling_parameter(inv.hip[max(full, key=RELEASES.index)], name, params, hip_types)
        direct = entry.get("direct", "")
        direct_in = tuple(rel for rel in RELEASES if direct and declares_form(inv.hip[rel], direct, params, hip_types))
        if direct and not direct_in:
            problems.append(f"{where}: no ROCm release declares {direct} with its parameters")
        facts.append(OverloadFact(cuda, shim, params, lacking, name, at, direct, direct_in))
    return facts, problems


def write_overloads(d: Deriver, families: list[Family], out: Path) -> Path:
    facts, problems = overload_facts(
        d.inv, d.cur.section(SECTION), hip_type_names(families), hip_function_names(families)
    )
    d.problems.extend(problems)
    return write_lines(out / OVERLOADS_FILE, [f.line() for f in facts])
