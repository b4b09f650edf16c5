"""cuDNN -> MIOpen (rules/cudnn.yaml).

The two are not name-for-name twins (argument order, descriptors, the algorithm enums and the Find
step differ), so nothing is mechanical here: a cuDNN name gets a rewrite only from `cudnn.rules` in
curated.yaml (a rename, an `args` reshape or a template), checked against both inventories'
prototypes, from the first ROCm release on which it fits through the newest (MIOpen is carried
forward from 6.3 to the host-only releases; `cudnn.since`, when set, is a lower bound); every other
cuDNN function, type and enumerator is unsupported, with the note of the first matching
`cudnn.unsupported_notes` pattern and the code HC201.  Macros without a rule are left
to HC001.  What the rule loader checks (templates exist, `args`/`drops` cover `params`) is left to it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hipconv.resources import templates_dir
from hipconv.settings import Version
from tools.derive.core import Deriver, Family, ordered
from tools.derive.curated import first_note
from tools.derive.inventory import RELEASES, Snapshot
from tools.derive.names import is_internal
from tools.derive.records import IDENT, Record, Rule, kind_of, param_counts


def cudnn_family(d: Deriver, fam: Family) -> None:
    fact = d.cur.section("cudnn")
    curated: dict[str, dict[str, Any]] = fact.get("rules", {})
    names = d.inv.cuda.names("cudnn")
    for name in sorted(set(curated) - set(names)):
        d.problems.append(f"cudnn.rules: {name} is not in the cuDNN inventory")
    for cuda in names:
        if not IDENT.match(cuda) or cuda in d.cur.ignore or is_internal(cuda):
            continue
        recs = d.cuda_records(cuda, "cudnn")
        kind = kind_of(recs)
        if kind is None:
            continue
        rule: Rule = {"cuda": cuda, "kind": kind, "library": "cudnn", "section": Path(recs[0].get("header", "")).stem}
        entry = curated.get(cuda)
        if entry is None:
            if kind == "macro":
                continue
            note = first_note(fact.get("unsupported_notes", {}), cuda)
            if note is None:
                d.problems.append(f"{cuda}: cuDNN name with neither a rule nor an unsupported note")
            rule.update(status="unsupported", code="HC201", note=note or "no MIOpen counterpart")
        else:
            rule.update(entry)
            if "hip" in rule:
                since = miopen_since(d, cuda, rule, recs)
                if since is None:
                    problems = cudnn_checks(cuda, rule, recs, d.inv.latest)
                    d.problems.extend(problems or [f"{cuda} -> {rule['hip']}: a name its template writes is missing"])
                    continue
                lower = fact.get("since")
                rule["rocm"] = {"since": lower if lower and Version.parse(lower) > Version.parse(since) else since}
        d.claimed.add(cuda)
        fam.rules.append(ordered(d.add_nvidia(rule, recs)))


def miopen_since(d: Deriver, cuda: str, rule: Rule, recs: list[Record]) -> str | None:
    """The first ROCm release from which on, through the newest, the rule fits MIOpen (cudnn_checks) and
    every MIOpen name its template writes exists; None when it fits not even the newest."""
    names = {rule["hip"]} | template_names(rule.get("template"), d)
    fits = [
        not cudnn_checks(cuda, rule, recs, d.inv.hip[rel]) and all(d.inv.hip[rel].has(n) for n in names)
        for rel in RELEASES
    ]
    if not fits[-1]:
        return None
    first = len(fits) - 1
    while first > 0 and fits[first - 1]:
        first -= 1
    return RELEASES[first]


def template_names(template: str | None, d: Deriver) -> set[str]:
    """The MIOpen names a template writes: its `miopen*` words that some release declares."""
    if template is None:
        return set()
    words = set(re.findall(r"\bmiopen\w+", (templates_dir() / template).read_text(encoding="utf-8")))
    return {w for w in words if d.inv.releases_with(w)}


def cudnn_checks(cuda: str, rule: Rule, recs: list[Record], miopen: Snapshot) -> list[str]:
    """A curated cuDNN rule against the prototypes: the MIOpen name exists, `params` names every
    cuDNN parameter, and the call it writes has as many arguments as the MIOpen prototype."""
    if rule.get("status") == "unsupported":
        if not rule.get("note") or not rule.get("code"):
            return [f"{cuda}: an unsupported cuDNN rule needs a note and a code"]
        return []
    hip = rule.get("hip")
    if not hip or not miopen.has(hip):
        return [f"{cuda} -> {hip}: not in the MIOpen inventory"]
    if rule["kind"] != "function":
        return []
    problems = []
    counts = param_counts(recs)
    hip_counts = param_counts([r for r in miopen.records(hip) if r["kind"] == "function"])
    params = rule.get("params")
    if params is not None and {len(params)} != counts:
        problems.append(f"{cuda}: params {len(params)} != cuDNN prototype {counts}")
    if "template" in rule:  # the template writes the call
        return problems
    if "args" in rule and {len(rule["args"])} != hip_counts:
        problems.append(f"{cuda}: args do not fit {hip}{hip_counts}")
    elif "args" not in rule and counts != hip_counts:
        problems.append(f"{cuda} -> {hip}: parameter counts {counts} != {hip_counts}")
    return problems
