#!/usr/bin/env python3
"""Derive hipconv's rule files and name lists from the API inventories.

    python tools/derive_rules.py [--inventory ../shared/api-inventory]

Inputs: the JSONL inventories (cuda/, hip/ = ROCm 6.3, hip-debian-5.2/ = ROCm 5.2)
and tools/curated.yaml (hand-written facts, each with a note on its evidence).
Outputs (deterministic, sorted): rules/{runtime,driver,device,complex,fp16,includes}.yaml
and hipconv/data/{hip-6.3.names,hip-5.2.names,hip-6.3.headers,hip-5.2.headers,cuda-13.names}.

Every HIP name that a rule emits is checked against the HIP snapshot of every
release in the rule's [since, until) range; a failed check aborts the run.

Runtime/driver mappings are split by ROCm release where the HIP name is deprecated
or missing in a release that has a non-deprecated sibling spelling with the same
parameter types or value (ROCm 5.2 hipHostFree / 6.3 hipFreeHost), or where the
deprecation of the HIP name changes between releases (the engine reads `status`
per rule, not `rocm.deprecated`).
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
RELEASES = ("5.2", "6.3")                      # ROCm snapshots we have, oldest first
SNAPSHOT_DIR = {"5.2": "hip-debian-5.2", "6.3": "hip"}
CUDA_VERSION = "13.0"

TYPEISH = {"type", "enum", "class"}
KEY_ORDER = ("cuda", "hip", "id", "kind", "status", "library", "section", "rocm",
             "nvidia", "requires_define", "params", "args", "drops", "template", "scope", "lane_mask", "code", "note")
IDENT = re.compile(r"^[A-Za-z_]\w*$")


def vkey(version: str) -> tuple:
    return tuple(int(p) for p in version.split("."))


# --------------------------------------------------------------------------- inventory

class Snapshot:
    """All records of one side (cuda, or one HIP release), indexed by name."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.by_name: dict[str, list[dict]] = collections.defaultdict(list)
        self.by_lib: dict[str, list[dict]] = {}
        for path in sorted(folder.glob("*.jsonl")):
            lib = path.stem
            recs = []
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    rec = json.loads(line)
                    rec["lib"] = lib
                    recs.append(rec)
                    self.by_name[rec["name"]].append(rec)
            self.by_lib[lib] = recs

    def has(self, name: str) -> bool:
        return name in self.by_name

    def records(self, name: str, lib: str | None = None) -> list[dict]:
        recs = self.by_name.get(name, [])
        return [r for r in recs if lib is None or r["lib"] == lib]

    def kinds(self, name: str) -> set[str]:
        return {r["kind"] for r in self.by_name.get(name, [])}

    def fields(self, name: str, depth: int = 0) -> set[str] | None:
        """Normalised data-member names of a struct type, following typedefs/aliases."""
        recs = self.by_name.get(name, [])
        for r in recs:
            if r.get("fields"):
                return {f.lower().replace("_", "") for f in r["fields"]}
        if depth > 4:
            return None
        for r in recs:
            target = r.get("alias_of")
            if not target and r["kind"] == "type" and (m := TYPEDEF.match(r.get("signature", ""))):
                target = m[1]
            if target and target != name:
                if (found := self.fields(target, depth + 1)) is not None:
                    return found
        return None

    def plain_names(self) -> list[str]:
        """Identifiers, C++ names qualified with `::` whose every part is one
        (hipcub::BlockReduce, thrust::hip::par), and the names of nested namespaces."""
        names = {n for n in self.by_name if all(IDENT.match(p) for p in n.split("::"))}
        # a nested namespace declares its own identifier too (thrust::hip declares `hip`)
        names |= {n.split("::")[-1] for n in names if "::" in n and "namespace" in self.kinds(n)}
        return sorted(names)

    def headers(self, extra: list[str]) -> list[str]:
        hdrs = {r["header"] for recs in self.by_lib.values() for r in recs if r.get("header")}
        hdrs.update(extra)
        return sorted(h for h in hdrs if not h.startswith("@clang/"))


@dataclass
class Inventory:
    cuda: Snapshot
    hip: dict[str, Snapshot]                     # release -> snapshot
    entry_headers: dict[str, list[str]]          # release -> public headers parsed (MANIFEST)

    @classmethod
    def load(cls, root: Path) -> "Inventory":
        manifest = json.loads((root / "MANIFEST.json").read_text())
        entries: dict[str, set[str]] = {rel: set() for rel in RELEASES}
        for fname, info in manifest["files"].items():
            for rel, folder in SNAPSHOT_DIR.items():
                if fname.startswith(folder + "/"):
                    for h in info.get("parse", {}).get("entry_headers", []):
                        if "/" in h:          # skip clang's wrapper, keep hip/..., hiprand/...
                            entries[rel].add(h)
        return cls(cuda=Snapshot(root / "cuda"),
                   hip={rel: Snapshot(root / d) for rel, d in SNAPSHOT_DIR.items()},
                   entry_headers={rel: sorted(v) for rel, v in entries.items()})

    @property
    def latest(self) -> Snapshot:
        return self.hip[RELEASES[-1]]

    def releases_with(self, name: str) -> list[str]:
        return [rel for rel in RELEASES if self.hip[rel].has(name)]

    def public_headers(self, rel: str) -> set[str]:
        return {h for h in self.hip[rel].headers(self.entry_headers[rel]) if "/amd_detail/" not in h}


# --------------------------------------------------------------------------- curated facts

@dataclass
class Curated:
    raw: dict

    @classmethod
    def load(cls, path: Path) -> "Curated":
        return cls(yaml.safe_load(path.read_text()) or {})

    def section(self, key: str, default=None):
        return self.raw.get(key, default if default is not None else {})

    @property
    def ignore(self) -> set[str]:
        return set(self.section("ignore"))

    def mapping(self, name: str) -> dict | None:
        return self.section("mappings").get(name)

    def since(self, hip_name: str) -> str | None:
        return self.section("rocm_since").get(hip_name)


# --------------------------------------------------------------------------- helpers

def is_internal(name: str) -> bool:
    """Implementation details a user never writes."""
    return bool(re.match(r"^(__cuda|_+[A-Z])", name)          # __cudaLaunch..., __CUDA_ALIGN__
                or re.search(r"_pt(sz|ds)$", name)               # per-thread-stream variants picked by macros
                or re.match(r"^__(i|u|ll|ull|ill|f|d|f2|f4|us|u128)Atomic", name)   # atomics' helpers
                or "_internal" in name)


def rule_kind(kinds: set[str]) -> str | None:
    """The kind a user sees; an alias macro that also has a function record is a function."""
    for k in ("function", "enumerator", "enum", "type", "class", "variable", "macro"):
        if k in kinds:
            return "type" if k == "class" else k
    return None


def param_counts(recs: list[dict]) -> set[int] | None:
    counts = {len(r["params"]) for r in recs if r["kind"] == "function" and "params" in r}
    return counts or None


def object_like_macro(recs: list[dict]) -> bool:
    return any(r["kind"] == "macro" and not r.get("params") for r in recs)


def constant_value(recs: list[dict]) -> int | None:
    """Integer value of an enumerator or object-like macro, None when not a plain number."""
    for r in recs:
        if r["kind"] == "enumerator" or (r["kind"] == "macro" and not r.get("params")):
            text = str(r.get("value", "")).strip().strip("()")
            text = re.sub(r"(?<=[0-9a-fA-F])[uUlL]+$", "", text)
            try:
                return int(text, 0)
            except ValueError:
                continue
    return None


def param_types(recs: list[dict]) -> set[tuple[str, ...]]:
    """Parameter type lists of a function's overloads (spacing normalised)."""
    return {tuple(re.sub(r"\s+", "", p["type"]) for p in r["params"])
            for r in recs if r["kind"] == "function" and "params" in r}


def sibling_key(name: str) -> tuple[str, ...]:
    """The words of a HIP name, unordered, Malloc read as Alloc."""
    return tuple(sorted("alloc" if w == "malloc" else w for w in words(name)))


def type_shape(recs: list[dict]) -> str | None:
    """What a type name denotes: a struct tag/value, a pointer handle, a function pointer,
    an enum.  None when the records do not tell."""
    shapes = set()
    for r in recs:
        sig = r.get("signature", "")
        if r["kind"] == "enum" or sig.startswith("typedef enum"):
            shapes.add("enum")
        elif r["kind"] == "class" or re.match(r"^(struct|union)\s+\w+$", sig):
            shapes.add("struct")
        elif sig.startswith("typedef") and "(*" in sig:
            shapes.add("funcptr")
        elif sig.startswith("typedef") and "*" in sig:
            shapes.add("pointer")
        elif re.match(r"^typedef\s+(struct|union)\s+\w+\s+\w+$", sig):
            shapes.add("struct")
    for s in ("pointer", "funcptr", "enum", "struct"):
        if s in shapes:
            return s
    return None


def compatible(cuda_recs: list[dict], hip_recs: list[dict], cuda_fields=None, hip_fields=None) -> bool:
    """Kind (and for functions, parameter count; for types, shape and members) of a
    HIP name fits the CUDA name."""
    ck = rule_kind({r["kind"] for r in cuda_recs})
    hk = {r["kind"] for r in hip_recs}
    if ck == "function":
        if "function" not in hk:
            return False
        cc, hc = param_counts(cuda_recs), param_counts(hip_recs)
        return cc is None or hc is None or bool(cc & hc)
    if ck in TYPEISH:
        if not hk & TYPEISH:
            return False
        cs, hs = type_shape(cuda_recs), type_shape(hip_recs)
        if cs and hs and cs != hs:
            return False
        if cuda_fields and hip_fields:       # same members, give or take: Jaccard >= 1/2
            return 2 * len(cuda_fields & hip_fields) >= len(cuda_fields | hip_fields)
        return True
    if ck == "enumerator":
        return "enumerator" in hk or object_like_macro(hip_recs)
    if ck == "macro":
        return "macro" in hk or ("enumerator" in hk and object_like_macro(cuda_recs))
    if ck == "variable":
        return "variable" in hk
    return False


def ordered(rule: dict) -> dict:
    return {k: rule[k] for k in KEY_ORDER if k in rule}


def section_for(name: str, header: str) -> str:
    """A coarse, informative grouping from keywords in the name (first match wins)."""
    low = name.lower()
    table = (
        ("error", ("error", "result", "success")), ("graph", ("graph",)),
        ("stream", ("stream",)), ("event", ("event",)),
        ("texture", ("tex", "surf", "channel", "resview", "resource_view", "address_mode", "filter_mode")),
        ("interop", ("gl", "egl", "vdpau", "graphics", "external", "ipc", "d3d", "nvsci")),
        ("context", ("ctx", "context", "primary")),
        ("module", ("module", "library", "kernel", "link", "jit")),
        ("execution", ("launch", "func", "occupancy", "cooperative", "cluster")),
        ("memory", ("mem", "malloc", "free", "array", "pitch", "extent", "host", "pointer", "ptr", "alloc")),
        ("device", ("device", "dev", "limit", "cache", "p2p", "peer")),
        ("version", ("version", "init")), ("profiler", ("profiler",)),
    )
    for section, keys in table:
        if any(k in low for k in keys):
            return section
    return Path(header or "misc").stem


# --------------------------------------------------------------------------- name candidates

def host_candidates(name: str) -> list[str]:
    """Mechanical HIP spellings for a runtime or driver API name, best first."""
    out: list[str] = []
    base = re.sub(r"_v\d+$", "", name)
    for n in dict.fromkeys([name, base]):
        if m := re.match(r"^cudaDevAttr(\w+)$", n):
            out.append("hipDeviceAttribute" + m[1])
        if m := re.match(r"^cuda([A-Z]\w*)$", n):
            out += ["hip" + m[1], "hip" + m[1] + "_t"]
        if m := re.match(r"^cu([A-Z]\w*)$", n):
            out += ["hip" + m[1], "hipModule" + m[1], "hipDrv" + m[1]]
        if m := re.match(r"^CU(?!DA_|_)([A-Za-z]\w*?)(_st|_enum)?$", n):
            cap = m[1][0].upper() + m[1][1:]
            out += ["hip" + cap + "_t", "hip" + cap] if not m[2] else ["hip" + cap, "hip" + cap + "_t"]
        if m := re.match(r"^(CUDA|CU)_([A-Z0-9_]+?)(_st)?$", n):
            out.append("HIP_" + m[2])
        if m := re.match(r"^make_cuda(\w+)$", n):
            out.append("make_hip" + m[1])
    return list(dict.fromkeys(c for c in out if c != name))


def device_candidates(name: str) -> list[str]:
    out = []
    if m := re.match(r"^CUDART_(\w+)$", name):
        out.append("HIP_" + m[1])
    if m := re.match(r"^__nv_(\w+)$", name):
        out.append("__hip_" + m[1])
    if m := re.match(r"^cu(C\w+)$", name):       # cuComplex family: cuCadd -> hipCadd
        out.append("hip" + m[1])
    if m := re.match(r"^cu(\w*Complex\w*)$", name):
        out.append("hip" + m[1][0].upper() + m[1][1:])
    if m := re.match(r"^make_cu(\w+)$", name):
        out.append("make_hip" + m[1])
    return out


# --------------------------------------------------------------------------- enums

TYPEDEF = re.compile(r"^typedef\s+(?:enum|struct|union)?\s*(\w+)\s+(\w+)$")


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
        if r["kind"] == "type" and (m := TYPEDEF.match(r.get("signature", ""))):
            tag, name = m[1], m[2]
            if tag in alias:
                alias.setdefault(name, alias[tag])
    for r in recs:
        if r["kind"] == "enumerator" and r.get("enum"):
            key = alias.setdefault(r["enum"], r["enum"])
            if r["name"] not in members[key]:
                members[key].append(r["name"])
    return alias, members


def fuzzy_key(name: str) -> str:
    return re.sub(r"(_t|_enum|_st)$", "", name).lower().replace("_", "")


def words(name: str) -> list[str]:
    if "_" in name and name.upper() == name:
        return [w.lower() for w in name.split("_") if w]
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|\d+", name)]


def strip_common_prefix(names: list[str]) -> dict[str, str]:
    """name -> the words after the prefix shared by all names, joined."""
    split = {n: words(n) for n in names}
    if len(names) < 2:
        return {}
    common = 0
    lists = list(split.values())
    while all(len(w) > common + 1 for w in lists) and len({tuple(w[:common + 1]) for w in lists}) == 1:
        common += 1
    return {n: "".join(w[common:]) for n, w in split.items()}


def vendorless(name: str) -> str:
    return re.sub(r"^(cuda|cu|hip)", "", name.lower().replace("_", ""))


def unique_index(pairs) -> dict[str, str]:
    seen: dict[str, set[str]] = collections.defaultdict(set)
    for key, name in pairs:
        if key:
            seen[key].add(name)
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


def match_enumerators(cuda_members: list[str], hip_members: list[str]) -> dict[str, str]:
    """Match enumerators of two counterpart enums by normalised name, unambiguous only."""
    result: dict[str, str] = {}
    for norm in (vendorless, None):
        if norm:
            cidx = unique_index((norm(n), n) for n in cuda_members)
            hidx = unique_index((norm(n), n) for n in hip_members)
        else:
            cidx = unique_index((v, k) for k, v in strip_common_prefix(cuda_members).items())
            hidx = unique_index((v, k) for k, v in strip_common_prefix(hip_members).items())
        for key, cname in cidx.items():
            if key in hidx and cname not in result and hidx[key] not in result.values():
                result[cname] = hidx[key]
    return result


# --------------------------------------------------------------------------- rule building

@dataclass
class Family:
    """One rule file."""
    file: str
    library: str
    header_comment: str
    rules: list[dict] = field(default_factory=list)


class Deriver:
    def __init__(self, inv: Inventory, cur: Curated):
        self.inv = inv
        self.cur = cur
        self.claimed: set[str] = set()             # CUDA names already given rules
        self.problems: list[str] = []
        self._fuzzy: dict[str, set[str]] | None = None
        self._constants: dict[str, set[str]] | None = None
        self._siblings: dict[str, dict[tuple, set[str]]] | None = None
        self.family_library = ""
        self.libraries: "LibraryDeriver | None" = None

    # -- availability and status of a HIP name ---------------------------------------
    def hip_span(self, hip: str) -> dict:
        """rocm: {since, until} for a HIP spelling from the snapshots (+ curated since)."""
        rels = self.inv.releases_with(hip)
        if not rels:
            raise KeyError(hip)
        rocm = {"since": self.cur.since(hip) or rels[0]}
        if rels[-1] != RELEASES[-1]:
            rocm["until"] = RELEASES[RELEASES.index(rels[-1]) + 1]
        return rocm

    def hip_deprecation(self, hip: str) -> str | None:
        """First snapshot in which every (non-macro) declaration of `hip` is deprecated."""
        for rel in RELEASES:
            recs = self.inv.hip[rel].records(hip)
            funcs = [r for r in recs if r["kind"] != "macro"] or recs
            if funcs and all(r.get("deprecated") for r in funcs):
                return rel
        return None

    def mapped_rule(self, cuda: str, hip: str, kind: str, header: str, note: str | None = None) -> dict:
        rocm = self.hip_span(hip)
        rule = {"cuda": cuda, "hip": hip, "kind": kind, "section": section_for(cuda, header),
                "rocm": rocm}
        if dep := self.hip_deprecation(hip):
            rule["status"] = "deprecated"
            rocm["deprecated"] = dep
        if note:
            rule["note"] = note
        return rule

    def unsupported_rule(self, cuda: str, kind: str, header: str, note: str | None = None) -> dict:
        rule = {"cuda": cuda, "kind": kind, "status": "unsupported", "section": section_for(cuda, header)}
        if note:
            rule["note"] = note
        return rule

    def add_nvidia(self, rule: dict, cuda_recs: list[dict]) -> dict:
        main = [r for r in cuda_recs if r["kind"] != "macro"] or cuda_recs
        if main and all(r.get("deprecated") for r in main):
            rule["nvidia"] = {"deprecated": CUDA_VERSION}
        return rule

    # -- matching -------------------------------------------------------------------
    def find_hip(self, cuda: str, cuda_recs: list[dict], candidates: list[str]) -> str | None:
        for cand in candidates:
            if self.fits(cuda, cuda_recs, cand):
                return cand
        return None

    def fits(self, cuda: str, cuda_recs: list[dict], hip: str) -> bool:
        hip_recs = self.latest_or_any(hip)
        if not hip_recs:
            return False
        hip_fields = next((f for rel in reversed(RELEASES) if (f := self.inv.hip[rel].fields(hip))), None)
        return compatible(cuda_recs, hip_recs, self.inv.cuda.fields(cuda), hip_fields)

    def latest_or_any(self, name: str) -> list[dict]:
        for rel in reversed(RELEASES):
            if recs := self.inv.hip[rel].records(name):
                return recs
        return []

    def curated_rule(self, cuda: str, kind: str, header: str, cuda_recs: list[dict]) -> dict | None:
        fact = self.cur.mapping(cuda)
        if fact is None:
            return None
        if fact.get("hip") is None:
            return self.unsupported_rule(cuda, kind, header, fact.get("note"))
        hip = fact["hip"]
        hip_recs = self.latest_or_any(hip)
        if not hip_recs:
            self.problems.append(f"curated {cuda} -> {hip}: HIP name not in inventory")
            return None
        if not self.fits(cuda, cuda_recs, hip) and not fact.get("signature_differs") and not fact.get("legacy_form"):
            self.problems.append(f"curated {cuda} -> {hip}: kind/parameter mismatch without signature_differs")
            return None
        cval, hval = constant_value(cuda_recs), constant_value(hip_recs)
        flag = object_like_macro(cuda_recs) or object_like_macro(hip_recs)   # enum values may differ by design
        if flag and cval is not None and hval is not None and cval != hval and not fact.get("value_differs"):
            self.problems.append(f"curated {cuda} -> {hip}: values differ ({cval} vs {hval})")
            return None
        rule = self.mapped_rule(cuda, hip, kind, header, fact.get("note"))
        if fact.get("status") and rule.get("status") != "deprecated":
            rule["status"] = fact["status"]
        if fact.get("legacy_form"):
            self.legacy_form(cuda, cuda_recs, hip, rule)
        return rule

    def legacy_form(self, cuda: str, cuda_recs: list[dict], hip: str, rule: dict) -> None:
        """CUDA 13 changed the signature; HIP has the earlier form that existing code
        calls.  `params` = `args` = HIP's parameters: calls with that many arguments or
        fewer are translated, calls with more (the CUDA 13 form) are left with a diagnostic."""
        counts = {len(r["params"]) for r in self.latest_or_any(hip) if r["kind"] == "function" and "params" in r}
        hip_params = [[p["name"] for p in r["params"]] for rel in RELEASES
                      for r in self.inv.hip[rel].records(hip) if r["kind"] == "function"]
        cuda_counts = param_counts(cuda_recs) or set()
        if len(counts) != 1 or not cuda_counts or min(cuda_counts) <= min(counts):
            self.problems.append(f"legacy form {cuda} -> {hip}: needs one HIP parameter count below "
                                 f"CUDA 13's (HIP {sorted(counts)}, CUDA {sorted(cuda_counts)})")
            return
        params = next(ps for ps in hip_params if len(ps) in counts)
        rule["params"] = params
        rule["args"] = list(params)

    # -- families ---------------------------------------------------------------------
    def host_family(self, fam: Family, cuda_lib: str, enum_map: dict[str, str]) -> None:
        """runtime / driver: every public name gets a rule."""
        names = sorted({r["name"] for r in self.inv.cuda.by_lib[cuda_lib]})
        self.family_library = fam.library
        for cuda in names:
            if not IDENT.match(cuda) or cuda in self.claimed or cuda in self.cur.ignore:
                continue
            if is_internal(cuda):
                continue
            recs = self.cuda_records(cuda, cuda_lib)
            kind = rule_kind({r["kind"] for r in recs})
            if kind is None:
                continue
            header = recs[0].get("header", "")
            rule = self.curated_rule(cuda, kind, header, recs)
            if rule is None and self.present_everywhere(cuda):
                continue                                    # HIP shares the spelling: nothing to do
            if rule is None:
                hip = self.resolve(cuda, recs, enum_map)
                rule = (self.mapped_rule(cuda, hip, kind, header) if hip
                        else self.unsupported_rule(cuda, kind, header, self.unsupported_note(cuda, recs)))
            for part in self.release_spans(cuda, recs, rule):
                self.claim_mapped(fam, self.add_nvidia(part, recs))

    # -- per-release spellings: deprecated or missing twins ---------------------------
    def deprecated_in(self, hip: str, rel: str) -> bool:
        recs = self.inv.hip[rel].records(hip)
        main = [r for r in recs if r["kind"] != "macro"] or recs
        return bool(main) and all(r.get("deprecated") for r in main)

    @property
    def siblings(self) -> dict[str, dict[tuple, set[str]]]:
        """release -> sibling key -> HIP names (functions and constants)."""
        if self._siblings is None:
            self._siblings = {}
            for rel in RELEASES:
                index: dict[tuple, set[str]] = collections.defaultdict(set)
                for name, recs in self.inv.hip[rel].by_name.items():
                    if re.match(r"^hip[A-Z]\w*$", name) and any(
                            r["kind"] in ("function", "enumerator") or (r["kind"] == "macro" and not r.get("params"))
                            for r in recs):
                        index[sibling_key(name)].add(name)
                self._siblings[rel] = index
        return self._siblings

    def sibling(self, cuda: str, cuda_recs: list[dict], hip: str, rel: str) -> str | None:
        """A non-deprecated spelling of `hip` in release `rel`: the same words in another
        order or with Alloc/Malloc (hipFreeHost ~ hipHostFree, hipHostAlloc ~
        hipHostMalloc, hipHostAllocMapped ~ hipHostMallocMapped), the same parameter
        types (functions) or the same value (constants), fitting the CUDA name.
        Unambiguous hits only."""
        model = self.latest_or_any(hip)
        kind = rule_kind({r["kind"] for r in model})
        hits = []
        for cand in sorted(self.siblings[rel].get(sibling_key(hip), ())):
            if cand == hip or self.deprecated_in(cand, rel):
                continue
            crecs = self.inv.hip[rel].records(cand)
            if kind == "function":
                if not (param_types(model) & param_types(crecs)) or not self.fits(cuda, cuda_recs, cand):
                    continue
            else:
                value = constant_value(model)
                if value is None or constant_value(crecs) != value or constant_value(cuda_recs) not in (None, value):
                    continue
            hits.append(cand)
        return hits[0] if len(hits) == 1 else None

    def release_spans(self, cuda: str, cuda_recs: list[dict], rule: dict) -> list[dict]:
        """Split a mapping rule by ROCm release where its HIP name is deprecated or missing
        in a release that has a sibling spelling (see `sibling`), or where the
        deprecation of the HIP name changes between releases."""
        hip = rule.get("hip")
        if hip is None or "params" in rule:
            return [rule]
        # a curated signature_differs mapping rests on what the inventory does not record
        # (a default argument): a sibling need not share it
        siblings = not (self.cur.mapping(cuda) or {}).get("signature_differs")
        choice: list[tuple[str, bool] | None] = []
        for rel in RELEASES:
            name = hip
            if siblings and (not self.inv.hip[rel].has(hip) or self.deprecated_in(hip, rel)):
                name = self.sibling(cuda, cuda_recs, hip, rel) or hip
            choice.append((name, self.deprecated_in(name, rel)) if self.inv.hip[rel].has(name) else None)
        if len({c for c in choice if c}) <= 1:
            return [rule]
        spans: list[tuple[tuple[str, bool], str, str | None]] = []
        for rel, c in zip(RELEASES, choice):
            if spans and spans[-1][0] == c:
                continue
            if spans and spans[-1][2] is None:
                spans[-1] = (spans[-1][0], spans[-1][1], rel)
            spans.append((c, rel, None))
        out = []
        base = {k: v for k, v in rule.items() if k not in ("hip", "rocm", "status")}
        for c, since, until in spans:
            if c is None:
                if out:                                  # the spelling vanished from a later release
                    out.append({"cuda": cuda, "id": f"{out[-1]['id'].split('@')[0]}.removed", "kind": rule["kind"],
                                "status": "removed", "library": rule.get("library"), "section": rule.get("section"),
                                "rocm": {"since": since, "removed": since} | ({"until": until} if until else {}),
                                "note": f"{out[-1]['hip']} is not in the ROCm {since} headers"})
                continue
            name, deprecated = c
            part = dict(base, hip=name, id=f"{rule.get('library', self.family_library)}.{cuda}@{since}",
                        rocm={"since": self.cur.since(name) or since} | ({"until": until} if until else {}))
            if deprecated:
                part["status"] = "deprecated"
                part["rocm"]["deprecated"] = since
            if name != hip:
                why = "deprecated" if self.inv.hip[since].has(hip) else "missing"
                same = "the same call" if rule["kind"] == "function" else "the same value"
                extra = f"{hip} is {why} in ROCm {since}; {name} is {same}"
                part["note"] = f"{part['note']}; {extra}" if part.get("note") else extra
            out.append(part)
        return out

    def cuda_records(self, name: str, lib: str) -> list[dict]:
        """Records of a CUDA name; a macro that only forwards to a function
        (`#define cuMemcpyHtoD __CUDA_API_PTDS(cuMemcpyHtoD_v2)`) stands for that function."""
        recs = self.inv.cuda.records(name, lib)
        if {r["kind"] for r in recs} == {"macro"}:
            m = re.match(r"^(?:__CUDA_API_PT\w+\(\s*)?(\w+)\s*\)?$", recs[0].get("value") or "")
            if m and (target := [r for r in self.inv.cuda.records(m[1], lib) if r["kind"] == "function"]):
                return [dict(r, name=name, alias_of=m[1]) for r in target] + recs
        return recs

    def resolve(self, cuda: str, recs: list[dict], enum_map: dict[str, str]) -> str | None:
        """HIP counterpart of a runtime/driver name: the counterpart-enum match for
        enumerators, exact mechanical spellings, then (types only) a case/underscore-
        insensitive spelling."""
        if cuda in enum_map and (hip := self.find_hip(cuda, recs, [enum_map[cuda]])):
            return hip
        cands = host_candidates(cuda)
        if hip := self.find_hip(cuda, recs, cands):
            return hip
        kind = rule_kind({r["kind"] for r in recs})
        if kind in TYPEISH:
            for cand in cands:
                hits = self.fuzzy.get(fuzzy_key(cand), set())
                if len(hits) == 1 and (hip := self.find_hip(cuda, recs, sorted(hits))):
                    return hip
        if kind in ("enumerator", "macro") and re.match(r"^(CUDA|CU)_[A-Z0-9_]+$", cuda):
            # CU_STREAM_NON_BLOCKING -> hipStreamNonBlocking: snake to camel case, compared
            # case-insensitively against HIP constants; unambiguous hits only
            hits = self.constants.get(vendorless(cuda), set())
            if len(hits) == 1 and (hip := self.find_hip(cuda, recs, sorted(hits))):
                return hip
        return None

    @property
    def constants(self) -> dict[str, set[str]]:
        if self._constants is None:
            self._constants = collections.defaultdict(set)
            for rel in RELEASES:
                for name, recs in self.inv.hip[rel].by_name.items():
                    if re.match(r"^hip[A-Z]", name) and (any(r["kind"] == "enumerator" for r in recs)
                                                         or object_like_macro(recs)):
                        self._constants[vendorless(name)].add(name)
        return self._constants

    @property
    def fuzzy(self) -> dict[str, set[str]]:
        if self._fuzzy is None:
            self._fuzzy = collections.defaultdict(set)
            for rel in RELEASES:
                for name, recs in self.inv.hip[rel].by_name.items():
                    if IDENT.match(name) and any(r["kind"] in TYPEISH for r in recs):
                        self._fuzzy[fuzzy_key(name)].add(name)
        return self._fuzzy

    def present_everywhere(self, name: str) -> bool:
        return all(self.inv.hip[rel].has(name) for rel in RELEASES)

    def unsupported_note(self, cuda: str, recs: list[dict]) -> str | None:
        if cuda.startswith("PFN_"):
            return "cudaTypedefs.h function-pointer type; HIP has no counterpart"
        return None

    def device_family(self, fam: Family, libs: list[str], lib_of: dict[str, str]) -> None:
        """device / complex / fp16 / bf16: only names HIP spells differently, lacks,
        or has in some releases only."""
        names = sorted({r["name"] for lib in libs for r in self.inv.cuda.by_lib[lib]})
        for cuda in names:
            if (not IDENT.match(cuda) or cuda in self.claimed or cuda in self.cur.ignore
                    or is_internal(cuda) or cuda in self.cur.section("warp_sync")):
                continue
            recs = [r for lib in libs for r in self.inv.cuda.records(cuda, lib)]
            kind = rule_kind({r["kind"] for r in recs})
            if kind is None or (kind == "macro" and not self.public_device_macro(cuda)):
                continue
            header = recs[0].get("header", "")
            rule = self.curated_rule(cuda, kind, header, recs)
            if rule is None:
                if self.present_everywhere(cuda):
                    continue
                if self.inv.releases_with(cuda):
                    rule = self.mapped_rule(cuda, cuda, kind, header)      # identity, some releases only
                elif hip := self.find_hip(cuda, recs, self.device_candidates(cuda, recs)):
                    rule = self.mapped_rule(cuda, hip, kind, header)
                else:
                    rule = self.unsupported_rule(cuda, kind, header)
            rule["library"] = lib_of[recs[0]["lib"]]
            rule["section"] = Path(header).stem
            self.claim_mapped(fam, self.add_nvidia(rule, recs))

    def device_candidates(self, cuda: str, recs: list[dict]) -> list[str]:
        """Mechanical spellings, plus what a CUDA typedef names (`typedef __half nv_half`:
        nv_half means __half, which HIP spells the same or maps in turn)."""
        cands = device_candidates(cuda)
        for r in recs:
            if r["kind"] == "type" and (m := TYPEDEF.match(r.get("signature", ""))) and m[2] == cuda:
                cands += [m[1]] + device_candidates(m[1])
        return list(dict.fromkeys(cands))

    @staticmethod
    def public_device_macro(name: str) -> bool:
        return name.startswith("CUDART_")

    def warp_sync_family(self, fam: Family) -> None:
        """__shfl_*_sync & co: mask-less HIP builtin before the opt-in release, the
        same spelling (behind the opt-in macro) from it on."""
        spec = self.cur.section("warp_sync")
        for cuda in sorted(spec):
            fact = spec[cuda]
            recs = self.inv.cuda.records(cuda, "device")
            params = [p["name"] for p in recs[0]["params"]]
            slug = cuda.strip("_").replace("_", "-")
            since = fact["since"]
            hip_recs = self.inv.latest.records(cuda)
            define = self.opt_in_define(hip_recs)
            hip_params = [p["name"] for p in hip_recs[0]["params"]]
            if hip_params[0] != params[0] or len(hip_params) != len(params):
                self.problems.append(f"warp {cuda}: HIP params {hip_params} vs CUDA {params}")
            if maskless := fact.get("maskless"):
                args = params[1:]
                ml_recs = self.latest_or_any(maskless)
                if param_counts(ml_recs) != {len(args)}:
                    self.problems.append(f"warp {maskless}: parameter count != {len(args)}")
                rocm = self.hip_span(maskless)
                rocm["until"] = since
                self.claim(fam, {
                    "cuda": cuda, "hip": maskless, "id": f"device.{slug}-maskless",
                    "kind": "function", "library": "device", "section": "warp", "rocm": rocm,
                    "params": params, "args": args, "drops": [params[0]], "lane_mask": params[0],
                    "note": fact.get("maskless_note"),
                })
            self.claim(fam, {
                "cuda": cuda, "hip": cuda, "id": f"device.{slug}", "kind": "function",
                "status": fact.get("status", "supported"), "library": "device", "section": "warp",
                "rocm": {"since": since}, "requires_define": define,
                "params": params, "args": params, "lane_mask": params[0],
                "note": fact.get("note"),
            })

    @staticmethod
    def opt_in_define(recs: list[dict]) -> str | None:
        for r in recs:
            if m := re.search(r"#ifdef\s+(\w+)", r.get("condition", "")):
                return m[1]
        return None

    def include_family(self, default: Family, by_library: dict[str, Family] | None = None) -> None:
        """Include rules; a library's headers go to that library's rule file."""
        by_library = by_library or {}
        spec = self.cur.section("includes")
        cuda_headers = {r["header"].removeprefix("cccl/") for recs in self.inv.cuda.by_lib.values()
                        for r in recs if r.get("header")}
        for cuda_h in sorted(spec):
            fact = spec[cuda_h]
            if cuda_h not in cuda_headers and not fact.get("not_in_inventory"):
                self.problems.append(f"include {cuda_h}: not a header of the CUDA inventory")
            lib = fact.get("library", default.library)
            fam = by_library.get(lib, default)
            targets = fact.get("hip")
            if targets is None:
                self.claim(fam, {"cuda": cuda_h, "kind": "include", "status": "unsupported",
                                 "library": lib, "note": fact.get("note")})
                continue
            spans = self.header_spans(targets if isinstance(targets, list) else [targets])
            for hip_h, rocm in spans:
                rule = {"cuda": cuda_h, "hip": hip_h, "kind": "include", "status": fact.get("status"),
                        "library": lib, "rocm": rocm, "note": fact.get("note")}
                if len(spans) > 1:
                    rule["id"] = f"include.{cuda_h}@{rocm['since']}"
                self.claim(fam, rule)

    def header_spans(self, targets: list[str]) -> list[tuple[str, dict]]:
        """For each release pick the first target header present in it; consecutive
        releases with the same header form one [since, until) span."""
        spans: list[tuple[str | None, dict]] = []
        for rel in RELEASES:
            pub = self.inv.public_headers(rel)
            hdr = next((t for t in targets if t in pub), None)
            if spans and spans[-1][0] == hdr:
                continue
            if spans and spans[-1][0] is not None:
                spans[-1][1]["until"] = rel
            spans.append((hdr, {"since": rel}))
        found = [(h, r) for h, r in spans if h is not None]
        if not found:
            self.problems.append(f"include targets {targets}: none exists in any release")
        return found

    def claim_mapped(self, fam: Family, rule: dict) -> None:
        """Claim a rule; if its HIP name vanished from a later snapshot, the mapping
        gets an id and the later releases get a `removed` rule."""
        until = rule.get("rocm", {}).get("until")
        if until is None or "id" in rule:
            return self.claim(fam, rule)
        base = f"{rule.get('library', fam.library)}.{rule['cuda']}"
        self.claim(fam, dict(rule, id=base))
        self.claim(fam, {"cuda": rule["cuda"], "id": f"{base}.removed", "kind": rule["kind"],
                         "status": "removed", "library": rule.get("library"), "section": rule.get("section"),
                         "rocm": {"since": until, "removed": until},
                         "note": f"{rule['hip']} is not in the ROCm {until} headers"})

    def claim(self, fam: Family, rule: dict) -> None:
        rule = {k: v for k, v in rule.items() if v is not None}
        if rule.get("library") == fam.library:
            del rule["library"]
        if rule.get("status") == "supported":
            del rule["status"]
        self.claimed.add(rule["cuda"])
        fam.rules.append(ordered(rule))

    # -- enum counterparts (runtime and driver) ---------------------------------------
    def enumerator_map(self, cuda_libs: list[str]) -> dict[str, str]:
        calias, cmembers = enum_groups(self.inv.cuda, cuda_libs)
        halias, hmembers = enum_groups(self.inv.latest, ["hip_runtime"])
        result: dict[str, str] = {}
        for group in sorted(cmembers):
            names = sorted(n for n, g in calias.items() if g == group)
            hip_group = None
            for n in names:
                fact = self.cur.mapping(n) or {}
                recs = [r for lib in cuda_libs for r in self.inv.cuda.records(n, lib)]
                hip = fact.get("hip") or self.resolve(n, recs, {})
                if hip in halias:
                    hip_group = halias[hip]
                    break
            if hip_group:
                for c, h in match_enumerators(cmembers[group], hmembers[hip_group]).items():
                    result.setdefault(c, h)
        for group, via in sorted(self.cur.section("enum_bridges").items()):
            self.bridge_enumerators(cmembers.get(calias.get(group, group), []),
                                    cmembers.get(calias.get(via, via), []), result)
        return result

    def bridge_enumerators(self, members: list[str], via: list[str], result: dict[str, str]) -> None:
        """Map the unmatched enumerators of one CUDA enum through the enumerator of
        another CUDA enum with the same value that already has a HIP counterpart
        (CUDA_ERROR_LAUNCH_FAILED = 719 = cudaErrorLaunchFailure -> hipErrorLaunchFailure).
        Unambiguous only: one enumerator with that value, and no HIP name used twice."""
        by_value: dict[int, list[str]] = collections.defaultdict(list)
        for name in via:
            if (v := constant_value(self.inv.cuda.records(name))) is not None:
                by_value[v].append(name)
        taken = collections.Counter(result[m] for m in members if m in result)
        proposed: dict[str, str] = {}
        for name in members:
            if name in result or (v := constant_value(self.inv.cuda.records(name))) is None:
                continue
            bridge = by_value.get(v, [])
            if len(bridge) == 1 and (hip := result.get(bridge[0]) or (self.cur.mapping(bridge[0]) or {}).get("hip")):
                proposed[name] = hip
        counts = collections.Counter(proposed.values()) + taken
        for name, hip in sorted(proposed.items()):
            if counts[hip] == 1:
                result[name] = hip


# --------------------------------------------------------------------------- libraries

@dataclass(frozen=True)
class LibSpec:
    """One CUDA library and its HIP counterpart."""
    file: str                     # rules/<file>
    library: str                  # default `library` of its rules
    cuda_libs: tuple[str, ...]    # cuda/<lib>.jsonl files
    hip_libs: tuple[str, ...]     # hip/<lib>.jsonl files of the counterpart
    prefixes: tuple[tuple[str, str], ...] = ()   # C libraries: CUDA prefix -> HIP prefix
    qualified: bool = False       # C++ library (cub, thrust): `ns::name` records
    title: str = ""


LIBRARIES = (
    LibSpec("cublas.yaml", "cublas", ("cublas",), ("hipblas",),
            (("cublas", "hipblas"), ("CUBLAS_", "HIPBLAS_")), title="cuBLAS (cublas_v2.h, cublas_api.h, legacy cublas.h) -> hipBLAS"),
    LibSpec("cublaslt.yaml", "cublaslt", ("cublaslt",), ("hipblaslt",),
            (("cublasLt", "hipblasLt"), ("CUBLASLT_", "HIPBLASLT_"), ("cublas", "hipblas"), ("CUBLAS_", "HIPBLAS_")),
            title="cuBLASLt (cublasLt.h) -> hipBLASLt"),
    LibSpec("curand.yaml", "curand", ("curand", "curand_kernel"), ("hiprand", "hiprand_kernel"),
            (("curand", "hiprand"), ("CURAND_", "HIPRAND_")), title="cuRAND host (curand.h) and device (curand_kernel.h) API -> hipRAND"),
    LibSpec("cufft.yaml", "cufft", ("cufft",), ("hipfft",),
            (("cufft", "hipfft"), ("CUFFT_", "HIPFFT_"), ("cudaLibXt", "hipLibXt"), ("cudaXt", "hipXt")),
            title="cuFFT (cufft.h, cufftXt.h) -> hipFFT"),
    LibSpec("cusparse.yaml", "cusparse", ("cusparse",), ("hipsparse",),
            (("cusparse", "hipsparse"), ("CUSPARSE_", "HIPSPARSE_")), title="cuSPARSE (cusparse.h) -> hipSPARSE"),
    LibSpec("cusolver.yaml", "cusolver", ("cusolver",), ("hipsolver",),
            (("cusolver", "hipsolver"), ("CUSOLVER_", "HIPSOLVER_"), ("CUSOLVERRF_", "HIPSOLVERRF_"),
             ("CUBLAS_", "HIPSOLVER_")), title="cuSOLVER (cusolverDn.h, cusolverSp.h, cusolverRf.h) -> hipSOLVER"),
    LibSpec("nccl.yaml", "nccl", ("nccl",), ("rccl",), (("", ""),),
            title="NCCL (nccl.h) -> RCCL (rccl/rccl.h), which keeps the nccl* names"),
    LibSpec("nvrtc.yaml", "nvrtc", ("nvrtc",), ("hiprtc",),
            (("nvrtc", "hiprtc"), ("NVRTC_", "HIPRTC_")), title="NVRTC (nvrtc.h) -> hiprtc (hip/hiprtc.h)"),
    LibSpec("cub.yaml", "cub", ("cub",), ("hipcub",), (("CUB_", "HIPCUB_"),), qualified=True,
            title="CUB (cub::, cub/*.cuh) -> hipCUB (hipcub::, hipcub/*.hpp)"),
    LibSpec("thrust.yaml", "thrust", ("thrust",), ("rocthrust",), qualified=True,
            title="Thrust -> rocThrust: thrust:: stays; the CUDA system (thrust::cuda, thrust::system::cuda) becomes the HIP one"),
)
# symbols listed in hipconv/data/cuda-13.symbols (inventory file stems)
SYMBOL_LIBS = ("cublas", "cublaslt", "curand", "curand_kernel", "cufft", "cusparse", "cusolver",
               "nccl", "nvrtc", "cub", "thrust", "cuda_complex", "cudnn")
# thrust namespace segments of the CUDA system and their rocThrust spelling
THRUST_SEGMENTS = {"cuda": "hip", "cuda_cub": "hip_rocprim"}
QUALIFIED_KIND_ORDER = ("namespace", "class", "type", "enum", "function", "enumerator", "variable", "macro")


def strip_v2(name: str) -> str:
    """cublasSgemm_v2 -> cublasSgemm, cublasSgemm_v2_64 -> cublasSgemm_64."""
    return re.sub(r"_v2(?=(_64)?$)", "", name)


def lib_candidates(name: str, spec: LibSpec) -> list[str]:
    out = []
    for base in dict.fromkeys([name, strip_v2(name)]):
        for cuda_p, hip_p in spec.prefixes:
            if base.startswith(cuda_p):
                out.append(hip_p + base[len(cuda_p):])
    return list(dict.fromkeys(out))


def qualified_twin(name: str, spec: LibSpec) -> str:
    """The mechanical HIP spelling of a cub/thrust name."""
    segs = name.split("::")
    if spec.library == "cub":
        return "::".join(["hipcub" if segs[0] == "cub" else segs[0]] + segs[1:])
    return "::".join(segs[:1] + [THRUST_SEGMENTS.get(s, s) for s in segs[1:]])


class LibraryDeriver:
    """Rules for the CUDA libraries; shares `claimed`, `problems` and the helpers of Deriver."""

    def __init__(self, d: "Deriver"):
        self.d = d
        self.inv, self.cur = d.inv, d.cur
        self.twins: dict[tuple[str, str], str] = {}      # (cuda lib, name) -> accepted HIP twin

    def lib_fact(self, spec: LibSpec) -> dict:
        return self.cur.section("libraries").get(spec.library, {})

    def unsupported_note(self, spec: LibSpec, name: str) -> str | None:
        for pattern, note in self.lib_fact(spec).get("unsupported_notes", {}).items():
            if re.search(pattern, name):
                return note
        return None

    def hip_has(self, spec: LibSpec, name: str) -> bool:
        return any(self.inv.hip[rel].records(name, lib) for rel in RELEASES for lib in spec.hip_libs)

    # -- enums: match enumerators of counterpart enums (CUBLAS_OP_HERMITAN ~ HIPBLAS_OP_C)
    def enumerator_map(self, spec: LibSpec) -> dict[str, str]:
        calias, cmembers = enum_groups(self.inv.cuda, list(spec.cuda_libs))
        halias, hmembers = enum_groups(self.inv.latest, list(spec.hip_libs))
        result: dict[str, str] = {}
        for group in sorted(cmembers):
            names = sorted(n for n, g in calias.items() if g == group)
            hip_group = None
            for n in names:
                hip = (self.cur.mapping(n) or {}).get("hip")
                for cand in ([hip] if hip else []) + lib_candidates(n, spec):
                    if cand in halias:
                        hip_group = halias[cand]
                        break
                if hip_group:
                    break
            if hip_group:
                for c, h in match_enumerators(cmembers[group], hmembers[hip_group]).items():
                    result.setdefault(c, h)
        return result

    # -- C libraries ------------------------------------------------------------------
    def c_family(self, fam: Family, spec: LibSpec) -> None:
        d = self.d
        enum_map = self.enumerator_map(spec)
        for lib in spec.cuda_libs:
            d.family_library = lib
            for cuda in sorted({r["name"] for r in self.inv.cuda.by_lib[lib]}):
                if not IDENT.match(cuda) or cuda in self.cur.ignore or cuda in d.claimed:
                    continue
                recs = d.cuda_records(cuda, lib)
                if (target := self.alias_target(recs)) and target != cuda:
                    # `#define cublasSgemm cublasSgemm_v2` (cublas_v2.h) next to the legacy
                    # cublas.h cublasSgemm: the alias target's signature counts as well
                    recs = recs + [r for r in self.inv.cuda.records(target, lib) if r["kind"] == "function"]
                kind = rule_kind({r["kind"] for r in recs})
                if kind is None:
                    continue
                header = recs[0].get("header", "")
                rule = d.curated_rule(cuda, kind, header, recs)
                if rule is None:
                    cands = ([enum_map[cuda]] if cuda in enum_map else []) + lib_candidates(cuda, spec)
                    if spec.library == "nccl" or self.inv.releases_with(cuda):
                        cands.append(cuda)                 # HIP spells it the same
                    hip = d.find_hip(cuda, recs, cands)
                    if hip is None and kind == "macro" and (target := self.alias_target(recs)):
                        # `#define cublasCrotg_64 cublasCrotg_v2_64` names a function the CUDA
                        # headers do not declare: the HIP function of the same name stands for it
                        hip = next((c for c in cands if "function" in {r["kind"] for r in d.latest_or_any(c)}), None)
                        if hip:
                            kind = "function"
                            rule = d.mapped_rule(cuda, hip, kind, header, f"CUDA's macro names {target}, which the CUDA 13 headers do not declare")
                    if rule is not None:
                        pass
                    elif hip:
                        rule = d.mapped_rule(cuda, hip, kind, header)
                    elif kind == "macro" or is_internal(cuda):
                        continue                           # no counterpart: HC001 via cuda-13.names
                    else:
                        rule = d.unsupported_rule(cuda, kind, header, self.unsupported_note(spec, cuda))
                rule["library"] = lib
                rule["section"] = Path(header).stem
                if "hip" in rule:
                    self.twins[(lib, cuda)] = rule["hip"]
                for part in d.release_spans(cuda, recs, rule):
                    d.claim_mapped(fam, d.add_nvidia(part, recs))

    @staticmethod
    def alias_target(recs: list[dict]) -> str | None:
        for r in recs:
            if r["kind"] == "macro" and not r.get("params") and IDENT.match(str(r.get("value", ""))):
                return r["value"]
        return None

    # -- C++ libraries (cub, thrust) --------------------------------------------------
    def cxx_family(self, fam: Family, spec: LibSpec) -> None:
        d = self.d
        lib = spec.cuda_libs[0]
        recs_by_name: dict[str, list[dict]] = collections.defaultdict(list)
        for r in self.inv.cuda.by_lib[lib]:
            recs_by_name[r["name"]].append(r)
        namespaces = {n for n, rs in recs_by_name.items() if any(r["kind"] == "namespace" for r in rs)}
        root = "cub" if spec.library == "cub" else "thrust"

        def twin_of(name: str) -> str | None:
            fact = self.cur.mapping(name)
            if fact is not None:
                return fact.get("hip")
            qualified = "::" in name or name in namespaces
            cands = [qualified_twin(name, spec)] if qualified else lib_candidates(name, spec) + [name]
            return next((c for c in cands if self.hip_has(spec, c)), None)

        for name in sorted(recs_by_name):
            if name in self.cur.ignore or name in d.claimed:
                continue
            segs = name.split("::")
            if any(s.startswith("_") or s in ("detail", "internal") or not IDENT.match(s) for s in segs):
                continue
            recs = recs_by_name[name]
            kinds = {r["kind"] for r in recs}
            kind = next(k for k in QUALIFIED_KIND_ORDER if k in kinds)
            if kind == "class" and "::" not in name:
                kind = "type"
            header = recs[0].get("header", "")
            section = Path(header).stem
            twin = twin_of(name)
            parent = "::".join(segs[:-1])
            fact = self.cur.mapping(name) or {}
            if len(segs) > 1 and parent not in namespaces:
                # a member: its class's rule covers it, unless the HIP class lacks it
                if twin or not twin_of(parent):
                    continue
                rule = d.unsupported_rule(name, kind, header, f"{qualified_twin(parent, spec)} has no member {segs[-1]}")
            elif twin:
                rule = d.mapped_rule(name, twin, kind, header, fact.get("note"))
                if fact.get("status") and rule.get("status") != "deprecated":
                    rule["status"] = fact["status"]
                self.twins[(lib, name)] = twin
            elif kind == "macro" and not fact:
                continue
            elif len(segs) > 1 and parent != root and not twin_of(parent):
                continue                                   # the namespace's own rule reports it
            else:
                rule = d.unsupported_rule(name, kind, header, fact.get("note") or self.unsupported_note(spec, name))
            rule["library"] = lib
            rule["section"] = section
            d.claim(fam, d.add_nvidia(rule, recs))

    # -- includes ----------------------------------------------------------------------
    def cxx_includes(self, fam: Family, spec: LibSpec) -> None:
        """cub/X.cuh -> hipcub/X.hpp (or the umbrella hipcub/hipcub.hpp when the
        inventory has no such hipCUB header); thrust/system/cuda/X -> thrust/system/hip/X."""
        latest_headers = self.inv.public_headers(RELEASES[-1])
        curated = self.cur.section("includes")
        lib = spec.cuda_libs[0]
        headers = sorted({r["header"].removeprefix("cccl/") for r in self.inv.cuda.by_lib[lib] if r.get("header")})
        for cuda_h in headers:
            if cuda_h in curated:
                continue
            if spec.library == "cub":
                if "/detail/" in cuda_h or not cuda_h.startswith("cub/"):
                    continue
                own = "hipcub/" + cuda_h[len("cub/"):].rsplit(".", 1)[0] + ".hpp"
                hip_h = own if own in latest_headers else "hipcub/hipcub.hpp"
                note = None if hip_h == own else f"the inventory has no {own}; the umbrella header declares hipCUB's API"
            else:
                if not cuda_h.startswith("thrust/system/cuda/"):
                    continue
                hip_h = "thrust/system/hip/" + cuda_h[len("thrust/system/cuda/"):]
                note = None
                if hip_h not in latest_headers:
                    self.d.claim(fam, {"cuda": cuda_h, "kind": "include", "status": "unsupported",
                                       "library": lib, "note": f"rocThrust has no {hip_h}"})
                    continue
            for h, rocm in self.d.header_spans([hip_h]):
                self.d.claim(fam, {"cuda": cuda_h, "hip": h, "kind": "include", "library": lib,
                                   "rocm": rocm, "note": note})


def hidden(name: str) -> bool:
    """Left out of cuda-13.symbols: implementation details (`__`-prefixed names,
    detail/internal namespaces) and names that are not identifiers (deduction guides)."""
    return any(s.startswith("__") or s in ("detail", "internal") or not IDENT.match(s) for s in name.split("::"))


def chain_rule(name: str, by_cuda: dict[str, list[dict]]) -> tuple[str, dict] | None:
    """The rule the engine applies to a qualified name: the longest `a::b` prefix with a rule."""
    segs = name.split("::")
    for n in range(len(segs), 0, -1):
        prefix = "::".join(segs[:n])
        rules = [r for r in by_cuda.get(prefix, []) if r["kind"] != "include"]
        if rules:
            latest = [r for r in rules if "until" not in r.get("rocm", {})] or rules
            return prefix, latest[-1]
    return None


# --------------------------------------------------------------------------- cuDNN -> MIOpen

CUDNN_RULE_KEYS = ("hip", "params", "args", "drops", "template", "scope", "status", "note", "code")


def cudnn_family(d: "Deriver", fam: Family) -> None:
    """cuDNN -> MIOpen.  The two are not name-for-name twins (argument order, descriptors, the
    algorithm enums and the Find step differ), so nothing is mechanical here: a cuDNN name gets
    a rewrite only from `cudnn.rules` in curated.yaml (a rename, an `args` reshape or a template),
    checked against both inventories' prototypes; every other cuDNN function, type and
    enumerator is unsupported, with the note of the first matching `cudnn.unsupported_notes`
    pattern and the code HC201.  Macros without a rule are left to HC001."""
    fact = d.cur.section("cudnn", {})
    curated: dict = fact.get("rules", {})
    notes: dict = fact.get("unsupported_notes", {})
    since = fact.get("since", "6.3")
    miopen = d.inv.hip[RELEASES[-1]]
    templates = REPO / "templates"
    names = sorted({r["name"] for r in d.inv.cuda.by_lib["cudnn"]})
    for name in sorted(set(curated) - set(names)):
        d.problems.append(f"cudnn.rules: {name} is not in the cuDNN inventory")
    for cuda in names:
        if not IDENT.match(cuda) or cuda in d.cur.ignore or is_internal(cuda):
            continue
        recs = d.cuda_records(cuda, "cudnn")
        kind = rule_kind({r["kind"] for r in recs})
        if kind is None:
            continue
        header = recs[0].get("header", "")
        rule: dict = {"cuda": cuda, "kind": kind, "library": "cudnn", "section": Path(header).stem}
        entry = curated.get(cuda)
        if entry is None:
            if kind == "macro":
                continue
            note = next((n for pattern, n in notes.items() if re.search(pattern, cuda)), None)
            if note is None:
                d.problems.append(f"{cuda}: cuDNN name with neither a rule nor an unsupported note")
            rule.update(status="unsupported", code="HC201", note=note or "no MIOpen counterpart")
        else:
            unknown = set(entry) - set(CUDNN_RULE_KEYS)
            if unknown:
                d.problems.append(f"cudnn.rules.{cuda}: unknown keys {sorted(unknown)}")
            rule.update({k: entry[k] for k in CUDNN_RULE_KEYS if k in entry})
            if "hip" in rule:
                rule["rocm"] = {"since": since}
            d.problems.extend(cudnn_checks(cuda, rule, recs, miopen, templates))
        d.claimed.add(cuda)
        fam.rules.append(ordered(rule))


def cudnn_checks(cuda: str, rule: dict, recs: list[dict], miopen: Snapshot, templates: Path) -> list[str]:
    """A curated cuDNN rule against the prototypes: the MIOpen name exists, `params` names every
    cuDNN parameter, and the call it writes has as many arguments as the MIOpen prototype."""
    problems = []
    if rule.get("status") == "unsupported":
        if not rule.get("note") or not rule.get("code"):
            problems.append(f"{cuda}: an unsupported cuDNN rule needs a note and a code")
        return problems
    hip = rule.get("hip")
    if not hip or not miopen.has(hip):
        return [f"{cuda} -> {hip}: not in the MIOpen inventory"]
    if rule["kind"] != "function":
        return problems
    counts = param_counts(recs)
    hip_counts = param_counts([r for r in miopen.records(hip) if r["kind"] == "function"])
    params = rule.get("params")
    if params is not None and {len(params)} != counts:
        problems.append(f"{cuda}: params {len(params)} != cuDNN prototype {counts}")
    if "template" in rule:
        if templates.is_dir() and not (templates / rule["template"]).is_file():   # (a copy of tools/ alone has none)
            problems.append(f"{cuda}: template {rule['template']} missing")
    elif "args" in rule:
        if {len(rule["args"])} != hip_counts or not set(rule["args"]) <= set(params or ()):
            problems.append(f"{cuda}: args do not fit {hip}{hip_counts}")
        if set(rule["args"]) | set(rule.get("drops", ())) != set(params or ()):
            problems.append(f"{cuda}: params not covered by args+drops")
    elif counts != hip_counts:
        problems.append(f"{cuda} -> {hip}: parameter counts {counts} != {hip_counts}")
    return problems


def miopen_arity(inv: Inventory) -> list[str]:
    """`name<TAB>counts` for every MIOpen function (hipconv/data/miopen-6.3.arity)."""
    counts: dict[str, set[int]] = collections.defaultdict(set)
    for r in inv.hip[RELEASES[-1]].by_lib["miopen"]:
        if r["kind"] == "function" and IDENT.match(r["name"]):
            counts[r["name"]].add(len(r.get("params") or []))
    return [f"{n}\t{','.join(map(str, sorted(c)))}" for n, c in sorted(counts.items())]


def symbol_rows(lib_d: LibraryDeriver, families: list[Family]) -> tuple[list[str], list[str]]:
    """cuda-13.symbols rows and the symbols whose HIP twin exists but which no rule covers."""
    by_cuda: dict[str, list[dict]] = collections.defaultdict(list)
    for fam in families:
        for r in fam.rules:
            by_cuda[r["cuda"]].append(r)
    inv = lib_d.inv
    spec_of = {lib: spec for spec in LIBRARIES for lib in spec.cuda_libs}
    rows, missing = [], []
    for lib in SYMBOL_LIBS:
        spec = spec_of.get(lib)
        for name in sorted({r["name"] for r in inv.cuda.by_lib[lib]}):
            if hidden(name):
                continue
            twin, covered = "", False
            if (hit := chain_rule(name, by_cuda)) is not None and ("::" in name or hit[0] == name):
                prefix, rule = hit
                covered = True
                if rule.get("hip"):
                    cand = rule["hip"] + name[len(prefix):]
                    if inv.releases_with(cand):
                        twin = cand
            elif (lib, name) in lib_d.twins:
                twin = lib_d.twins[(lib, name)]
            elif name not in lib_d.cur.ignore:
                if spec is None:
                    cands = device_candidates(name) + [name]
                elif spec.qualified:
                    cands = [qualified_twin(name, spec)] if "::" in name else lib_candidates(name, spec) + [name]
                else:
                    cands = lib_candidates(name, spec) + ([name] if lib == "nccl" else [])
                for cand in cands:
                    if inv.releases_with(cand) and (cand != name or lib == "nccl" or spec and spec.qualified):
                        twin = cand
                        break
            if twin and not covered and not (twin == name and all(inv.hip[rel].has(name) for rel in RELEASES)):
                missing.append(f"{lib}\t{name} -> {twin}")
            rows.append(f"{lib}\t{name}\t{twin}")
    return rows, missing


def library_report(families: list[Family], rows: list[str], missing: list[str]) -> list[str]:
    by_cuda: dict[str, list[dict]] = collections.defaultdict(list)
    for fam in families:
        for r in fam.rules:
            if r["kind"] != "include":
                by_cuda[r["cuda"]].append(r)
    out = [f"{'library':<15}{'symbols':>8}{'ruled':>7}{'supported':>10}{'unsupported':>12}{'twin-no-rule':>13}"]
    per = collections.defaultdict(lambda: collections.Counter())
    for row in rows:
        lib, name, _ = row.split("\t")
        c = per[lib]
        c["symbols"] += 1
        if name in by_cuda:
            c["ruled"] += 1
            status = by_cuda[name][-1].get("status", "supported")
            c["unsupported" if status in ("unsupported", "removed") else "supported"] += 1
    for m in missing:
        per[m.split("\t")[0]]["missing"] += 1
    for lib in SYMBOL_LIBS:
        c = per[lib]
        out.append(f"{lib:<15}{c['symbols']:>8}{c['ruled']:>7}{c['supported']:>10}{c['unsupported']:>12}{c['missing']:>13}")
    return out


# --------------------------------------------------------------------------- output

class FlowDict(dict):
    pass


class FlowList(list):
    pass


class RuleDumper(yaml.SafeDumper):
    pass


RuleDumper.add_representer(FlowDict, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", v, flow_style=True))
RuleDumper.add_representer(FlowList, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True))


def flow(rule: dict) -> dict:
    return {k: FlowDict(v) if isinstance(v, dict) else FlowList(v) if isinstance(v, list) else v
            for k, v in rule.items()}


def write_rules(fam: Family, out_dir: Path) -> None:
    fam.rules.sort(key=lambda r: (r["cuda"], r.get("rocm", {}).get("since", ""), r.get("id", "")))
    doc = {"defaults": FlowDict({"library": fam.library, "status": "supported"}),
           "rules": [flow(r) for r in fam.rules]}
    body = yaml.dump(doc, Dumper=RuleDumper, sort_keys=False, width=1 << 16, allow_unicode=True)
    text = "# yaml-language-server: $schema=schema.json\n" + fam.header_comment + body
    (out_dir / fam.file).write_text(text, encoding="utf-8", newline="\n")


def write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8", newline="\n")


def write_data(inv: Inventory, cur: Curated, out: Path, symbols: list[str] | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for rel in RELEASES:
        write_lines(out / f"hip-{rel}.names", inv.hip[rel].plain_names())
        write_lines(out / f"hip-{rel}.headers", inv.hip[rel].headers(inv.entry_headers[rel]))
    latest = inv.latest
    rows = sorted({f"{r['lib']}\t{r['name']}" for recs in inv.cuda.by_lib.values() for r in recs
                   if IDENT.match(r["name"]) and not latest.has(r["name"]) and r["name"] not in cur.ignore})
    write_lines(out / "cuda-13.names", rows)
    if symbols is not None:
        write_lines(out / "cuda-13.symbols", symbols)
    write_lines(out / f"miopen-{RELEASES[-1]}.arity", miopen_arity(inv))


# --------------------------------------------------------------------------- checks

def check_rules(families: list[Family], inv: Inventory) -> list[str]:
    problems = []
    spans: dict[str, list[tuple]] = collections.defaultdict(list)
    for fam in families:
        for r in fam.rules:
            rocm = r.get("rocm", {})
            lo, hi = rocm.get("since", "0.0"), rocm.get("until", "999.0")
            for prev_lo, prev_hi, prev_file in spans[r["cuda"]]:
                if vkey(lo) < vkey(prev_hi) and vkey(prev_lo) < vkey(hi):
                    problems.append(f"{r['cuda']}: overlapping rules in {prev_file} and {fam.file}")
            spans[r["cuda"]].append((lo, hi, fam.file))
            if "hip" in r:
                for rel in RELEASES:
                    if vkey(lo) <= vkey(rel) < vkey(hi):
                        ok = (r["hip"] in inv.public_headers(rel) if r["kind"] == "include"
                              else inv.hip[rel].has(r["hip"]))
                        if not ok:
                            problems.append(f"{r['cuda']} -> {r['hip']}: missing in ROCm {rel}")
            if "params" in r and "template" not in r:
                used = set(r.get("args", [])) | set(r.get("drops", []))
                if used != set(r["params"]):
                    problems.append(f"{r['cuda']}: params not covered by args+drops")
    return problems


def missed_twins(d: "Deriver", families: list[Family]) -> list[str]:
    """Runtime/driver names with a mechanical HIP twin (same checks as the derivation)
    that got no mapping rule, unless curated.yaml says otherwise."""
    mapped = {r["cuda"] for f in families for r in f.rules if "hip" in r}
    covered = {r["cuda"] for f in families for r in f.rules}
    missed = []
    for lib in ("cuda_runtime", "cuda_driver"):
        for name in sorted({r["name"] for r in d.inv.cuda.by_lib[lib]}):
            if (name in mapped or not IDENT.match(name) or name in d.cur.ignore or is_internal(name)
                    or d.cur.mapping(name) is not None):
                continue
            if name not in covered and d.present_everywhere(name):
                continue                       # HIP spells it the same in every release
            recs = d.cuda_records(name, lib)
            if cand := d.find_hip(name, recs, host_candidates(name)):
                missed.append(f"{name} -> {cand}")
    return missed


def report(families: list[Family]) -> None:
    print(f"{'file':<16}{'rules':>7}{'supported':>11}{'unsupported':>13}{'deprecated':>12}")
    for fam in families:
        c = collections.Counter(r.get("status", "supported") for r in fam.rules)
        print(f"{fam.file:<16}{len(fam.rules):>7}{c['supported']:>11}{c['unsupported']:>13}{c['deprecated']:>12}")


# --------------------------------------------------------------------------- main

def derive(inv: Inventory, cur: Curated) -> tuple[list[Family], "Deriver"]:
    d = Deriver(inv, cur)
    runtime = Family("runtime.yaml", "cudart", "# CUDA runtime API (cuda/cuda_runtime.jsonl) -> HIP. Generated by tools/derive_rules.py; edit tools/curated.yaml instead.\n")
    driver = Family("driver.yaml", "cuda_driver", "# CUDA driver API (cuda/cuda_driver.jsonl) -> HIP. Generated by tools/derive_rules.py; edit tools/curated.yaml instead.\n")
    device = Family("device.yaml", "device", "# Device functions whose HIP spelling differs, is missing, or exists in some releases only.\n# Generated by tools/derive_rules.py; edit tools/curated.yaml instead.\n")
    complex_ = Family("complex.yaml", "cuda_complex", "# cuComplex.h -> hip/hip_complex.h. Generated by tools/derive_rules.py.\n")
    fp16 = Family("fp16.yaml", "fp16", "# cuda_fp16.h / cuda_bf16.h -> hip_fp16.h / hip_bf16.h. Generated by tools/derive_rules.py.\n")
    includes = Family("includes.yaml", "includes", "# #include rewrites; HIP headers per ROCm release. Generated by tools/derive_rules.py.\n")

    enum_map = d.enumerator_map(["cuda_runtime", "cuda_driver"])
    d.host_family(runtime, "cuda_runtime", enum_map)
    d.host_family(driver, "cuda_driver", enum_map)
    d.warp_sync_family(device)
    d.device_family(device, ["device"], {"device": "device"})
    d.device_family(complex_, ["cuda_complex"], {"cuda_complex": "cuda_complex"})
    d.device_family(fp16, ["fp16", "bf16"], {"fp16": "fp16", "bf16": "bf16"})
    libs = LibraryDeriver(d)
    lib_families = []
    for spec in LIBRARIES:
        fam = Family(spec.file, spec.library,
                     f"# {spec.title}.\n# Generated by tools/derive_rules.py from the API inventories; edit tools/curated.yaml instead.\n")
        if spec.qualified:
            libs.cxx_family(fam, spec)
        else:
            libs.c_family(fam, spec)
        lib_families.append((spec, fam))
    by_library = {lib: fam for spec, fam in lib_families for lib in spec.cuda_libs}
    cudnn = Family("cudnn.yaml", "cudnn", "# cuDNN 9 (cudnn*.h) -> MIOpen 3.3 (ROCm 6.3); MIOpen is absent from the ROCm 5.2 snapshot.\n"
                   "# Generated by tools/derive_rules.py from tools/curated.yaml (cudnn:); templates under templates/cudnn/.\n")
    cudnn_family(d, cudnn)
    lib_families.append((None, cudnn))
    by_library["cudnn"] = cudnn
    d.include_family(includes, by_library)
    for spec, fam in lib_families:
        if spec is not None and spec.qualified:
            libs.cxx_includes(fam, spec)
    families = [runtime, driver, device, complex_, fp16, includes] + [fam for _, fam in lib_families]
    d.libraries = libs
    return families, d


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inventory", type=Path, default=REPO.parent / "shared" / "api-inventory")
    ap.add_argument("--curated", type=Path, default=REPO / "tools" / "curated.yaml")
    args = ap.parse_args(argv)

    inv = Inventory.load(args.inventory)
    cur = Curated.load(args.curated)
    families, deriver = derive(inv, cur)
    problems = deriver.problems + check_rules(families, inv)
    rules_dir = REPO / "rules"
    rules_dir.mkdir(exist_ok=True)
    for fam in families:
        write_rules(fam, rules_dir)
    symbols, missing_twins = symbol_rows(deriver.libraries, families)
    write_data(inv, cur, REPO / "hipconv" / "data", symbols)

    report(families)
    print("\n".join(library_report(families, symbols, missing_twins)))
    print(f"library symbols with a HIP twin but no rule: {len(missing_twins)}")
    for m in missing_twins:
        print("  ", m.replace("\t", " "))
    missed = missed_twins(deriver, families)
    print(f"runtime/driver names with a mechanical HIP twin but no rule: {len(missed)}")
    for m in missed:
        print("  ", m)
    for p in problems:
        print("PROBLEM:", p, file=sys.stderr)
    return 1 if problems or missed or missing_twins else 0


if __name__ == "__main__":
    sys.exit(main())
