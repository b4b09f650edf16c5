"""Call-level rewrites of the runtime and driver rules (issue #10), applied once the families are derived:

- curated `call_forms:` (tools/curated.yaml): another HIP target, checked by parameter types and by the
  members of the structs they point to (cuMemcpy2D -> hipMemcpyParam2D, cuMemcpy3D -> hipDrvMemcpy3D,
  cuOccupancy* -> hipModuleOccupancy*); overloads told apart by argument
  count (cudaEventCreate, cudaGraphInstantiate), their `params` checked against CUDA's prototypes of
  that count (CUDA 11.8, 12.9, 13); `optional` parameters that CUDA's C++ declaration defaults;
- kernel-pointer casts, derived: a parameter that CUDA's cuda_runtime.h template takes as a kernel
  (`T *func`) where HIP's function takes `const void *` and has no template of its own, in every ROCm
  release of the rule -> `casts: {func: const void*}`;
- argument counts of the C libraries, derived: a cuBLAS, cuRAND (host), cuFFT, cuSPARSE or cuSOLVER
  function rule whose HIP function takes one number of parameters in every ROCm release of the rule
  gets `params` (the names of CUDA's prototype of that count), so a call with another number of
  arguments (the legacy cublas.h cublasSgemm's 13, where hipblasSgemm takes a handle and 14) is left
  with HC007.  C headers declare no default arguments; a template, a variadic function, a function-like
  macro (on either side) or a curated `signature_differs` mapping (a defaulted HIP parameter the
  inventory does not record) gets none;
- elaborated type specifiers, derived: a CUDA struct/union/enum tag whose HIP name is a typedef of
  another tag (`typedef struct _hipGraphicsResource hipGraphicsResource`) -> `tag:`;
- curated `compiler_macros:` -> rules/compiler.yaml.
"""

from __future__ import annotations

import json
import re
from functools import cached_property
from pathlib import Path
from typing import Any

from hipconv.settings import Version
from tools.derive.core import Deriver, Family
from tools.derive.inventory import RELEASES
from tools.derive.libraries import alias_target
from tools.derive.records import TYPEDEF, Record, Rule

CUDA_SETS = ("cuda", "cuda-12.9", "cuda-11.8")  # newest first: a prototype's names come from the newest
HOST_FILES = ("cuda_runtime", "cuda_driver")
# C libraries whose calls are checked by argument count (their headers declare no default arguments)
C_LIBRARIES = ("cublas", "curand", "cufft", "cusparse", "cusolver")
KERNEL_PARAM = re.compile(r"^(?:const\s+)?T\s*\*?$")  # `T *func`, `const T *func`, `T func` (template <class T>)
# what CUDA's templates name a kernel parameter; a data pointer (`T *devPtr`) converts to const void* by itself
KERNEL_NAMES = ("func", "entry")
VOID_PTR = "const void*"
TAG = re.compile(r"^(struct|union|enum)\s+(\w+)$")


def rule_releases(rule: Rule) -> list[str]:
    """The ROCm releases of a rule's range (`rocm: {since, until}`)."""
    rocm = rule.get("rocm", {})
    lo, hi = Version.parse(rocm.get("since", "0.0")), Version.parse(rocm.get("until", "999.0"))
    return [rel for rel in RELEASES if lo <= Version.parse(rel) < hi]


def fixed_arity(rec: Record) -> bool:
    """A C function of one number of parameters: no template, not variadic."""
    return (
        "params" in rec
        and not rec["signature"].startswith("template")
        and not any("..." in f"{p['type']} {p['name']}" for p in rec["params"])
    )


def normal_type(text: str) -> str:
    """A parameter type without spacing, `const`, tag keywords and size_t's spellings."""
    text = re.sub(r"\b(const|struct|enum|union)\b", "", text)
    text = re.sub(r"\bsize_t\b", "unsigned long", text)
    return re.sub(r"\s+", "", text)


class CallForms:
    def __init__(self, d: Deriver) -> None:
        self.d = d
        self.inv, self.cur = d.inv, d.cur
        self.hip_types: dict[str, str] = {}  # CUDA type -> HIP type (learn_types)

    def apply(self, runtime: Family, driver: Family, families: list[Family]) -> Family:
        """Rewrite the runtime and driver rules in place; the compiler-macro family."""
        host = {"cudart": runtime, "cuda_driver": driver}
        self.learn_types(families)
        for cuda, fact in sorted(self.cur.section("call_forms").items()):
            fam = next((f for f in host.values() if any(r["cuda"] == cuda for r in f.rules)), None)
            if fam is None:
                self.d.problems.append(f"call_forms {cuda}: no runtime or driver rule to rewrite")
                continue
            self.curated(fam, cuda, fact)
        self.casts(runtime)
        for fam in families:
            self.tags(fam)
            self.arity(fam)
        return self.compiler_family()

    # -- CUDA prototypes of every CUDA release --------------------------------------------------
    @cached_property
    def cuda_protos(self) -> dict[str, list[Record]]:
        """Function records of the runtime, the driver and the C libraries, CUDA 13, 12.9 and 11.8 (newest
        first)."""
        root: Path = self.inv.cuda.folder.parent
        out: dict[str, list[Record]] = {}
        for folder in CUDA_SETS:
            for stem in HOST_FILES + C_LIBRARIES:
                path = root / folder / f"{stem}.jsonl"
                if not path.is_file():
                    continue
                with open(path, encoding="utf-8") as fh:
                    for line in fh:
                        rec: Record = json.loads(line)
                        if rec["kind"] == "function" and "params" in rec:
                            out.setdefault(rec["name"], []).append(dict(rec, cuda_set=folder))
        return out

    def prototype(self, cuda: str, count: int, *, c_only: bool = False) -> Record | None:
        """The newest CUDA prototype of `cuda` with `count` parameters (a C one, not a template, with c_only)."""
        return next(
            (
                r
                for r in self.cuda_protos.get(cuda, [])
                if len(r["params"]) == count and not (c_only and r["signature"].startswith("template"))
            ),
            None,
        )

    # -- curated call forms ------------------------------------------------------------------------
    def curated(self, fam: Family, cuda: str, fact: dict[str, Any]) -> None:
        d = self.d
        old = [r for r in fam.rules if r["cuda"] == cuda]
        base = old[0]
        keep: Rule = {k: base[k] for k in ("kind", "section", "nvidia") if k in base}
        note = fact.get("note")
        if "forms" in fact:
            fam.rules[:] = [r for r in fam.rules if r["cuda"] != cuda]
            self.overloads(fam, cuda, fact["forms"], keep, note)
        elif "hip" in fact:
            fam.rules[:] = [r for r in fam.rules if r["cuda"] != cuda]
            if fact["hip"] is None:
                rule = d.unsupported_rule(cuda, keep["kind"], "", note)
            else:
                self.check_types(cuda, fact["hip"])
                rule = d.mapped_rule(cuda, fact["hip"], keep["kind"], "", note)
            d.claim_mapped(fam, rule | keep)
        if "optional" in fact:
            for rule in (r for r in fam.rules if r["cuda"] == cuda and "hip" in r):
                self.with_params(rule, cuda)
                rule["optional"] = list(fact["optional"])
                if "fill" in fact:
                    rule["fill"] = dict(fact["fill"])
                if rule.get("params", [])[-len(fact["optional"]) :] != fact["optional"]:
                    d.problems.append(f"call_forms {cuda}: optional {fact['optional']} are not its last parameters")
                rule["note"] = "; ".join(filter(None, (rule.get("note"), note)))

    def overloads(self, fam: Family, cuda: str, forms: dict[str, Any], keep: Rule, note: str | None) -> None:
        d = self.d
        lib = fam.library
        for label, form in forms.items():
            hip = form.get("hip", label)
            params = list(form["params"])
            proto = self.prototype(cuda, len(params))
            if proto is None or [p["name"] for p in proto["params"]] != params:
                found = [p["name"] for p in proto["params"]] if proto else None
                d.problems.append(f"call_forms {cuda} -> {hip}: CUDA has no prototype {params} (nearest {found})")
                continue
            if "template" not in form:  # a template reshapes the call: its arguments need not be HIP's
                self.check_types(cuda, hip, proto)
            rule = d.mapped_rule(cuda, hip, "function", "", form.get("note") or note) | keep
            if "until" in rule["rocm"]:
                d.problems.append(f"call_forms {cuda} -> {hip}: {hip} leaves ROCm; overloads need a whole span")
            rule["id"] = f"{lib}.{cuda}" if form.get("uncalled") else f"{lib}.{cuda}.{len(params)}-args"
            rule["params"] = params
            for key in ("optional", "fill", "uncalled", "template"):
                if form.get(key):
                    rule[key] = form[key]
            d.claim(fam, rule)

    def with_params(self, rule: Rule, cuda: str) -> None:
        """params: the names of CUDA's C prototype whose parameter count HIP's function has."""
        if "params" in rule:
            return
        counts = {len(r["params"]) for r in self.inv.latest_or_any(rule["hip"]) if "params" in r}
        proto = next((p for n in sorted(counts) if (p := self.prototype(cuda, n, c_only=True))), None)
        if proto is None:
            self.d.problems.append(f"{cuda}: no CUDA prototype with {sorted(counts)} parameters for {rule['hip']}")
            return
        rule["params"] = [p["name"] for p in proto["params"]]

    # -- parameter types ---------------------------------------------------------------------------
    def learn_types(self, families: list[Family]) -> None:
        """CUDA type -> HIP type for the type check: the derived rules (the newest span's), then the
        curated re-targets."""
        self.hip_types = {
            r["cuda"]: r["hip"]
            for f in families
            for r in f.rules
            if r["kind"] in ("type", "enum") and "hip" in r and "until" not in r.get("rocm", {})
        }
        for cuda, fact in self.cur.section("call_forms").items():
            if fact.get("hip") and self.inv.cuda.kinds(cuda) & {"type", "enum"}:
                self.hip_types[cuda] = fact["hip"]

    def mapped_type(self, text: str) -> str:
        return normal_type(re.sub(r"\b[A-Za-z_]\w*\b", lambda m: self.hip_types.get(m[0], m[0]), text))

    def check_types(self, cuda: str, hip: str, proto: Record | None = None) -> None:
        """CUDA's parameter types, through the type rules, are HIP's in every full ROCm release that has
        `hip` (host-only ones spell typedefs canonically, so they are compared by count, in check_rules)."""
        protos = [proto] if proto else [r for r in self.cuda_protos.get(cuda, []) if r["cuda_set"] == CUDA_SETS[0]]
        if not protos:  # a macro alias (`#define cuMemcpy3D cuMemcpy3D_v2`): the function it names
            protos = [r for lib in HOST_FILES for r in self.d.cuda_records(cuda, lib) if r["kind"] == "function"]
        wanted = {tuple(self.mapped_type(p["type"]) for p in r["params"]) for r in protos}
        self.check_fields(cuda, hip, protos)
        for rel in RELEASES:
            if rel in self.inv.host_only:
                continue
            have = {
                tuple(normal_type(p["type"]) for p in r["params"])
                for r in self.inv.hip[rel].records(hip)
                if r["kind"] == "function" and "params" in r and "carried" not in r
            }
            if have and not wanted & have:
                self.d.problems.append(
                    f"call_forms {cuda} -> {hip}: ROCm {rel} takes {sorted(have)}, CUDA's map to {sorted(wanted)}"
                )

    def check_fields(self, cuda: str, hip: str, protos: list[Record]) -> None:
        """A struct that CUDA's call takes (CUDA_MEMCPY2D) has every member, reserved ones aside, in the HIP
        struct its type maps to (hip_Memcpy2D), in every ROCm release that has `hip`, host-only ones too
        (their records carry struct fields): the code that fills the descriptor compiles."""
        structs = {w for r in protos for p in r["params"] for w in re.findall(r"\b[A-Za-z_]\w*\b", p["type"])}
        for name in sorted(structs):
            members, hip_type = self.inv.cuda.fields(name), self.hip_types.get(name)
            if not members or hip_type is None:
                continue
            wanted = {m for m in members if not m.startswith("reserved")}
            for rel in RELEASES:
                if not self.inv.hip[rel].records(hip):
                    continue
                missing = sorted(wanted - (self.inv.hip[rel].fields(hip_type) or set()))
                if missing:
                    self.d.problems.append(
                        f"call_forms {cuda} -> {hip}: ROCm {rel}'s {hip_type} lacks {name}'s members {missing}"
                    )

    # -- kernel-pointer casts ----------------------------------------------------------------------
    def casts(self, fam: Family) -> None:
        for rule in fam.rules:
            if rule["kind"] != "function" or "hip" not in rule or "template" in rule:
                continue
            positions = self.kernel_positions(rule["cuda"])
            if not positions:
                continue
            count, idx = positions
            if not self.takes_void_pointer(rule, count, idx):
                continue
            self.with_params(rule, rule["cuda"])
            params = rule.get("params")
            if params is None or len(params) != count:
                continue
            rule["casts"] = {params[idx]: VOID_PTR}
            why = f"HIP's {rule['hip']} takes the kernel as const void*, CUDA's C++ template as T*: cast"
            rule["note"] = "; ".join(filter(None, (rule.get("note"), why)))

    def kernel_positions(self, cuda: str) -> tuple[int, int] | None:
        """(parameter count, index) of the kernel parameter of CUDA's cuda_runtime.h template, where CUDA's
        C prototype of that count takes `const void *`."""
        for rec in self.cuda_protos.get(cuda, []):
            if rec.get("header") != "cuda_runtime.h" or not rec["signature"].startswith("template <class T>"):
                continue
            count = len(rec["params"])
            c_proto = self.prototype(cuda, count, c_only=True)
            for idx, p in enumerate(rec["params"]):
                if (
                    KERNEL_PARAM.match(p["type"])
                    and p["name"] in KERNEL_NAMES
                    and (c_proto is None or normal_type(c_proto["params"][idx]["type"]) == "void*")
                ):
                    return count, idx
        return None

    def takes_void_pointer(self, rule: Rule, count: int, idx: int) -> bool:
        """HIP's function takes `const void *` at idx, and no template, in every release of the rule."""
        for rel in rule_releases(rule):
            recs = [r for r in self.inv.hip[rel].records(rule["hip"]) if r["kind"] == "function" and "params" in r]
            same = [r for r in recs if len(r["params"]) == count]
            if not same or any(r["signature"].startswith("template") for r in same):
                return False
            if any(normal_type(r["params"][idx]["type"]) != "void*" for r in same):
                return False
        return True

    # -- argument counts of the C libraries -------------------------------------------------------
    def arity(self, fam: Family) -> None:
        """`params` for the C library function rules that have none, where both sides' prototypes allow."""
        for rule in fam.rules:
            lib = rule.get("library", fam.library)
            if lib not in C_LIBRARIES or rule["kind"] != "function" or "hip" not in rule:
                continue
            if "params" in rule or "template" in rule or self.signature_differs(rule["cuda"]):
                continue
            count = self.hip_count(rule)
            params = None if count is None else self.call_params(rule["cuda"], lib, count)
            if params is not None:
                rule["params"] = params

    def signature_differs(self, cuda: str) -> bool:
        """A curated mapping whose call carries over though the counts differ (a defaulted HIP parameter)."""
        return bool((self.cur.mapping(cuda) or {}).get("signature_differs"))

    def hip_count(self, rule: Rule) -> int | None:
        """The one number of parameters HIP's function takes in every release of the rule (None: several,
        a template, variadic, a function-like macro, or no prototype)."""
        counts = set()
        for rel in rule_releases(rule):
            for rec in self.inv.hip[rel].records(rule["hip"]):
                if rec["kind"] == "macro" and "params" in rec:
                    return None
                if rec["kind"] == "function":
                    if not fixed_arity(rec):
                        return None
                    counts.add(len(rec["params"]))
        return counts.pop() if len(counts) == 1 else None

    def call_params(self, cuda: str, lib: str, count: int) -> list[str] | None:
        """The parameter names of CUDA's newest prototype of `cuda` (or of the function its object-like
        macro names: cublas_v2.h's `#define cublasSgemm cublasSgemm_v2`) with `count` parameters; None for
        a function-like macro, a template or variadic prototype, or unnamed parameters."""
        recs = self.inv.cuda.records(cuda, lib)
        if any(r["kind"] == "macro" and "params" in r for r in recs):
            return None
        target = alias_target(recs)
        protos = [r for name in (cuda, target) if name for r in self.cuda_protos.get(name, [])]
        if not all(fixed_arity(r) for r in protos):
            return None
        proto = next((r for r in protos if len(r["params"]) == count), None)
        params = [p["name"] for p in proto["params"]] if proto else []
        return params if params and all(params) and len(set(params)) == len(params) else None

    # -- elaborated type specifiers ----------------------------------------------------------------
    def tags(self, fam: Family) -> None:
        for rule in fam.rules:
            if rule["kind"] not in ("type", "enum") or "hip" not in rule or rule.get("tag"):
                continue
            keyword = self.cuda_tag_keyword(rule["cuda"])
            if keyword is None:
                continue
            tag = self.hip_tag(rule)
            if tag and tag != rule["hip"]:
                rule["tag"] = tag

    def cuda_tag_keyword(self, cuda: str) -> str | None:
        for r in self.inv.cuda.records(cuda):
            if r["kind"] in ("type", "enum") and (m := TAG.match(r.get("signature", ""))) and m[2] == cuda:
                return m[1]
        return None

    def hip_tag(self, rule: Rule) -> str | None:
        """The tag HIP's typedef names, the same in every full release of the rule (else a problem)."""
        tags = set()
        for rel in rule_releases(rule):
            if rel in self.inv.host_only:
                continue
            recs = [r for r in self.inv.hip[rel].records(rule["hip"]) if "carried" not in r]
            own = any((m := TAG.match(r.get("signature", ""))) and m[2] == rule["hip"] for r in recs)
            named = {
                m[1]
                for r in recs
                if r["kind"] == "type" and (m := TYPEDEF.match(r.get("signature", ""))) and m[2] == rule["hip"]
            }
            tags.add(rule["hip"] if own or not named else min(named))
        if len(tags) > 1:
            self.d.problems.append(f"{rule['cuda']} -> {rule['hip']}: HIP's tag differs by release ({sorted(tags)})")
            return None
        return next(iter(tags), None)

    # -- compiler macros ---------------------------------------------------------------------------
    def compiler_family(self) -> Family:
        fam = Family(
            "compiler.yaml",
            "nvcc",
            "# Macros nvcc predefines -> what hipcc (clang) predefines. Generated by tools/derive_rules.py from\n"
            "# tools/curated.yaml (compiler_macros:).\n",
            predefined=True,
        )
        for cuda, fact in sorted(self.cur.section("compiler_macros").items()):
            rule: Rule = {"cuda": cuda, "hip": fact["hip"], "kind": "macro", "section": "predefined"}
            rule |= {k: fact[k] for k in ("defined_only", "code", "note") if k in fact}
            self.d.claim(fam, rule)
        return fam
