"""Twins by evidence: HIP counterparts of runtime and driver names whose spelling differs by more than
the prefix (CUtexObject ~ hipTextureObject_t, CUaddress_mode ~ HIPaddress_mode, cudaDevAttrMaxSurface1DWidth
~ hipDeviceAttributeMaxSurface1D), found from what the inventory records rather than from the spelling:

- enumerators of counterpart enums (a CUDA enum and the HIP enum its other enumerators map to): the same
  value, or the HIP name's words a shortening of the CUDA name's (hipDeviceAttributeMaxTexture1DLinear ~
  cudaDevAttrMaxTexture1DLinearWidth); and CUDA enums with one HIP counterpart bridged by value
  (CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH = 21 = cudaDevAttrMaxTexture1DWidth);
- enum types: the HIP enum the CUDA enum's enumerators map to, tag to tag and typedef to typedef;
- types: a function-pointer typedef with the same parameter types once CUDA's are mapped to HIP's, a
  struct (or a typedef of one) with the same fields, a typedef of the same underlying type as a CUDA type
  that maps already (CUtexObject and cudaTextureObject_t are both unsigned long long);
- aliases: a CUDA typedef (or `#define`) of a CUDA type that maps takes that type's HIP name, or HIP's own
  alias of it where one is spelled alike (cudaKernelNodeAttrValue ~ hipKernelNodeAttrValue, both aliases
  of the launch-attribute union);
- functions: the same parameter types, once mapped (cuSurfObjectDestroy ~ hipDestroySurfaceObject).

The runtime and driver search against the HIP runtime; each C library (cuBLAS, cuFFT, cuSOLVER, cuSPARSE,
cuRAND, NCCL) against its HIP library (`hip_libs`, `hip_prefixes`), with the runtime's types resolved by
the rules derived before it.

Every pair needs shared words besides (name similarity), and must be unambiguous both ways: two CUDA
names of one type (the runtime's and the driver's spelling, with the same fields) may share a HIP name.  Curated
facts (`twins:` in tools/curated.yaml) settle what the evidence cannot: a pair with its note (read like a
`mappings:` entry), or a rejected candidate (`hip: null`, `reject:` the HIP name) with the reason.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

from tools.derive.core import Deriver
from tools.derive.enums import enum_groups
from tools.derive.inventory import Snapshot
from tools.derive.name_words import alike, common_prefix, name_words, reordering, shortening, similar, unique_pairs
from tools.derive.names import is_internal
from tools.derive.records import IDENT, TYPEDEF, Record, constant_value, kind_of, type_shape

Resolver = Callable[[str], "str | None"]  # CUDA name -> its HIP name (mechanical, curated), or None

_FUNCPTR = re.compile(r"^typedef\s+(.+?)\(\s*(?:\w+\s+)?\*\s*(\w+)\s*\)\s*\((.*)\)$")
_ALIAS = re.compile(r"^typedef\s+(?:__device_builtin__\s+)?([\w\s]+?)\s+(\w+)$")
_POINTER = re.compile(r"^typedef\s+(?:__device_builtin__\s+)?(?:struct\s+)?(\w+)\s*\*\s*(\w+)$")
_MACRO_ALIAS = re.compile(r"^#define\s+(\w+)\s+(\w+)\b")


@dataclass(frozen=True)
class Twin:
    hip: str
    evidence: str  # why, for the rule's note


class Twins:
    """The evidence search over the CUDA names of `libs` (runtime/driver, or one C library) against the HIP
    names of `hip_libs` spelled with `hip_prefixes`, given the mapping found so far (`resolve`)."""

    def __init__(
        self,
        d: Deriver,
        libs: Iterable[str],
        resolve: Resolver,
        hip_libs: Iterable[str] = ("hip_runtime",),
        hip_prefixes: Iterable[str] = ("hip", "HIP"),
    ) -> None:
        self.d = d
        self.inv, self.cur = d.inv, d.cur
        self.libs = list(libs)
        self.hip_libs = list(hip_libs)
        self.hip_prefixes = tuple(p for p in hip_prefixes if p)
        self.resolve = resolve
        self.full: Snapshot = self.inv.hip[self.inv.newest_full]  # types compare within one way of parsing

    # -- curated --------------------------------------------------------------------------------
    def rejected(self, cuda: str, hip: str) -> bool:
        fact = self.cur.section("twins").get(cuda) or {}
        return hip in (fact.get("reject") or ()) or ("hip" in fact and fact["hip"] is None)

    # -- the search -------------------------------------------------------------------------------
    @cached_property
    def found(self) -> dict[str, Twin]:
        """CUDA name -> its twin by evidence (names that map already left out)."""
        out: dict[str, Twin] = {}

        def take(pairs: dict[str, Twin]) -> None:
            for c, t in sorted(pairs.items()):
                if c not in out and not self.rejected(c, t.hip) and self.inv.releases_with(t.hip):
                    out[c] = t

        take(self.enumerators())
        take(self.enum_types(out))
        take(self.types(out))
        size = -1
        while size != len(out):  # aliases of aliases (CUstreamAttrValue -> CUstreamAttrValue_v1 -> ...)
            size = len(out)
            take(self.aliases(out))
        take(self.functions(out))
        return out

    def mapped(self, cuda: str, extra: dict[str, Twin] | None = None) -> str | None:
        if extra and cuda in extra:
            return extra[cuda].hip
        return self.resolve(cuda)

    @cached_property
    def groups(self) -> tuple[dict[str, str], dict[str, list[str]], dict[str, str], dict[str, list[str]]]:
        calias, cmembers = enum_groups(self.inv.cuda, self.libs)
        halias, hmembers = enum_groups(self.full, self.hip_libs)
        return calias, cmembers, halias, hmembers

    def counterpart_enums(self) -> dict[str, str]:
        """CUDA enum group -> HIP enum group: the one HIP group its mapped enumerators land in."""
        _, cmembers, _, _ = self.groups
        out = {}
        for group, members in sorted(cmembers.items()):
            if hgroup := self.landing(members, {}):
                out[group] = hgroup
        return out

    def landing(self, members: list[str], found: dict[str, Twin]) -> str | None:
        """The HIP enum group that at least two thirds (and two) of the mapped enumerators land in."""
        _, _, _, hmembers = self.groups
        of_hip = self.of_hip
        landed = collections.Counter(of_hip.get(h) for m in members if (h := self.mapped(m, found)))
        best = landed.most_common(1)
        if best and best[0][0] is not None and best[0][1] >= 2 and 3 * best[0][1] >= 2 * sum(landed.values()):
            return best[0][0]
        return None

    @cached_property
    def of_hip(self) -> dict[str, str]:
        _, _, _, hmembers = self.groups
        return {m: g for g, ms in hmembers.items() for m in ms}

    def enumerators(self) -> dict[str, Twin]:
        """Enumerators of counterpart enums (unambiguous within the pair), then those bridged by value."""
        _, cmembers, _, hmembers = self.groups
        out: dict[str, Twin] = {}
        counterpart = self.counterpart_enums()
        for group, hgroup in sorted(counterpart.items()):
            members, hips = cmembers[group], hmembers[hgroup]
            taken = {self.resolve(m) for m in members}
            free_h = [h for h in hips if h not in taken]
            cp, hp = common_prefix(members), common_prefix(hips)
            by_value = self.values_agree(members)
            pairs: list[tuple[str, str, str]] = []
            for c in (m for m in members if self.resolve(m) is None):
                cv = constant_value(self.inv.cuda.records(c))
                longest = max((len(name_words(h)) for h in free_h if shortening(h, c, hp, cp)), default=0)
                for h in free_h:
                    if shortening(h, c, hp, cp) and len(name_words(h)) == longest:
                        pairs.append((c, h, f"{h}'s words begin {c}'s, in the counterpart enum {hgroup}"))
                    elif reordering(h, c, hp, cp):
                        pairs.append((c, h, f"{h} has {c}'s words in another order, in the counterpart enum {hgroup}"))
                    elif by_value and cv is not None and cv == constant_value(self.full.records(h)):
                        if alike(h, hips, c, members):
                            pairs.append((c, h, f"the same value ({cv}) in the counterpart enum {hgroup}"))
            why = {(c, h): e for c, h, e in pairs}
            out |= {c: Twin(h, why[(c, h)]) for c, h in unique_pairs((c, h) for c, h, _ in pairs).items()}
        bridged = self.bridged(counterpart, out)
        return out | {c: t for c, t in bridged.items() if c not in out}

    def values_agree(self, members: list[str]) -> bool:
        """The enumerators of the CUDA enum that map have their HIP twin's value (all of them, and two or more):
        hipError_t keeps cudaError_t's values, hipDeviceAttribute_t does not keep cudaDeviceAttr's."""
        pairs = [
            (constant_value(self.inv.cuda.records(m)), constant_value(self.full.records(h)))
            for m in members
            if (h := self.resolve(m)) and self.full.has(h)
        ]
        return len(pairs) >= 2 and all(c == h for c, h in pairs)

    def bridged(self, counterpart: dict[str, str], found: dict[str, Twin]) -> dict[str, Twin]:
        """CUDA enums with one HIP counterpart: an enumerator with no twin takes the twin of the other CUDA
        enum's enumerator of the same value, where their names are alike
        (CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD = 84 = cudaDevAttrIsMultiGpuBoard), or of its own enum's (CUDA's
        second spelling of one enumerator: CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED = 102 =
        CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)."""
        _, cmembers, _, _ = self.groups
        by_hip: dict[str, list[str]] = collections.defaultdict(list)
        for group, hgroup in counterpart.items():
            by_hip[hgroup].append(group)
        pairs: list[tuple[str, str, str]] = []
        for hgroup, groups in sorted(by_hip.items()):
            for group, other in [(g, o) for g in groups for o in groups if g != o] + [(g, g) for g in groups]:
                by_value = collections.defaultdict(list)
                for m in cmembers[other]:
                    by_value[constant_value(self.inv.cuda.records(m))].append(m)
                for c in (m for m in cmembers[group] if self.mapped(m, found) is None):
                    v = constant_value(self.inv.cuda.records(c))
                    via = [m for m in by_value.get(v, []) if m != c] if v is not None else []
                    if (
                        len(via) == 1
                        and (h := self.mapped(via[0], found))
                        and alike(c, cmembers[group], via[0], cmembers[other])
                    ):
                        pairs.append((c, h, f"the same value ({v}) as {via[0]}, whose counterpart enum is {hgroup}"))
        why: dict[tuple[str, str], str] = {}
        for c, h, e in pairs:
            why.setdefault((c, h), e)
        return {c: Twin(h, why[(c, h)]) for c, h in unique_pairs(why).items()}

    def enum_types(self, found: dict[str, Twin]) -> dict[str, Twin]:
        """The names of a CUDA enum (tag, typedefs) -> the names of its counterpart HIP enum, by role."""
        calias, cmembers, halias, _ = self.groups
        pairs = []
        for group, members in sorted(cmembers.items()):
            hgroup = self.landing(members, found)
            if hgroup is None:
                continue
            hnames = [n for n, g in halias.items() if g == hgroup]
            for c in (n for n, g in calias.items() if g == group and self.resolve(n) is None):
                role = self.role(self.inv.cuda.records(c))
                hits = [h for h in hnames if self.role(self.full.records(h)) == role and similar(c, h)]
                if len(hits) == 1:
                    pairs.append((c, hits[0]))
        evidence = "its enumerators map to the enumerators of {}"
        return {c: Twin(h, evidence.format(halias[h])) for c, h in unique_pairs(pairs).items()}

    @staticmethod
    def role(recs: list[Record]) -> str:
        return "tag" if any(r["kind"] == "enum" for r in recs) else "typedef"

    # -- types ---------------------------------------------------------------------------------------
    def hip_type(self, text: str, found: dict[str, Twin], depth: int = 0) -> str:
        """A CUDA type spelled with HIP names, normalised (no const, spaces or struct/enum keywords);
        CUDA typedefs without a HIP twin are followed to what they name."""

        def one(m: re.Match[str]) -> str:
            word = m[0]
            if hip := self.mapped(word, found):
                return hip
            target = self.typedef_target(self.inv.cuda, word)
            return self.hip_type(target, found, depth + 1) if target and depth < 4 else word

        return self.hip_side(re.sub(r"[A-Za-z_]\w*", one, text))

    def hip_side(self, text: str, depth: int = 0) -> str:
        """A HIP type normalised like hip_type, typedefs of builtin types followed (uint32_t stays)."""

        def one(m: re.Match[str]) -> str:
            target = self.typedef_target(self.full, m[0])
            builtin = target and not re.search(r"[A-Za-z_]\w*_t\b|\bhip|\bi?hip", target)
            return self.hip_side(target, depth + 1) if builtin and target and depth < 4 else m[0]

        return self.normal(re.sub(r"[A-Za-z_]\w*", one, text))

    @staticmethod
    def normal(text: str) -> str:
        text = re.sub(r"\b(const|struct|enum|union|__device_builtin__|CUDART_CB)\b", " ", text)
        return re.sub(r"\s+", "", text)

    @staticmethod
    def typedef_target(snap: Snapshot, name: str) -> str | None:
        for r in snap.records(name):
            sig = r.get("signature", "")
            if r["kind"] == "type" and (m := _ALIAS.match(sig)) and m[2] == name and "*" not in sig:
                return m[1].strip()
        return None

    @cached_property
    def hip_types(self) -> dict[str, list[str]]:
        """HIP type names of the newest full set, by the first three letters of each word."""
        index: dict[str, list[str]] = collections.defaultdict(list)
        for name in self.full.by_name:
            if IDENT.match(name) and kind_of(self.full.records(name)) == "type":
                for w in set(name_words(name)):
                    index[w[:3]].append(name)
        return index

    @cached_property
    def by_root(self) -> dict[str, list[str]]:
        """The builtin type a CUDA typedef chain ends in -> the CUDA types that end in it."""
        out: dict[str, list[str]] = collections.defaultdict(list)
        for lib in self.libs:
            for name in self.inv.cuda.names(lib):
                if (root := self.root(name)) is not None:
                    out[root].append(name)
        return out

    def cuda_names(self, kind: str, found: dict[str, Twin]) -> Iterable[tuple[str, list[Record]]]:
        """The CUDA names of one kind with no HIP name yet."""
        for lib in self.libs:
            for c in self.inv.cuda.names(lib):
                if not IDENT.match(c) or is_internal(c) or c in found or self.resolve(c):
                    continue
                recs = self.d.cuda_records(c, lib)
                if kind_of(recs) == kind:
                    yield c, recs

    def types(self, found: dict[str, Twin]) -> dict[str, Twin]:
        pairs: list[tuple[str, str, str]] = []
        keys: dict[str, object] = {}
        for c, recs in self.cuda_names("type", found):
            cands = {h for w in name_words(c) for h in self.hip_types.get(w[:3], ())}
            hits = [(c, h, e) for h in sorted(cands) if (e := self.same_type(c, recs, h, found))]
            alike_both = [hit for hit in hits if similar(c, hit[1], both=True)]
            pairs += alike_both if len(alike_both) == 1 else hits  # the one spelled alike both ways
            fields = self.inv.cuda.fields(c)
            keys[c] = (self.role_of_struct(recs), frozenset(fields)) if fields else c
        why = {(c, h): e for c, h, e in pairs}
        unique = unique_pairs(((c, h) for c, h, _ in pairs), keys.get)
        return {c: Twin(h, why[(c, h)]) for c, h in unique.items()}

    def aliases(self, found: dict[str, Twin]) -> dict[str, Twin]:
        """A CUDA typedef or #define of a CUDA type that has a HIP name: that name, or HIP's alias of it that
        is spelled like the CUDA alias (the alias of a union, or a typedef of a _v1 struct: its fields and
        shape are its target's)."""
        hip_aliases: dict[str, list[str]] = collections.defaultdict(list)
        for lib in self.hip_libs:
            for name in self.full.names(lib):
                if target := self.alias_of(self.full, name):
                    hip_aliases[target].append(name)
        out: dict[str, Twin] = {}
        for kind in ("type", "macro"):
            for c, _ in self.cuda_names(kind, found):
                target = self.alias_of(self.inv.cuda, c)
                if not target or not (hip := self.mapped(target, found)):
                    continue
                own = [h for h in hip_aliases.get(hip, []) if similar(c, h, both=True)]
                twin = own[0] if len(own) == 1 else hip
                out[c] = Twin(twin, f"an alias of {target}, which HIP spells {hip}")
        return out

    @staticmethod
    def alias_of(snap: Snapshot, name: str) -> str | None:
        """The type a typedef or object-like #define renames (`typedef X_v1 X`, `#define A B`)."""
        for r in snap.records(name):
            sig = r.get("signature", "")
            m = TYPEDEF.match(sig) or _MACRO_ALIAS.match(sig)
            if m and m[2 if sig.startswith("typedef") else 1] == name:
                target = m[1] if sig.startswith("typedef") else m[2]
                if target != name and kind_of(snap.records(target)) in ("type", "enum"):
                    return target
        return None

    def same_type(self, cuda: str, recs: list[Record], hip: str, found: dict[str, Twin]) -> str | None:
        """Why `hip` is the twin of the CUDA type (None when it is not)."""
        hrecs = self.full.records(hip)
        if not similar(cuda, hip):
            return None
        cs, hs = type_shape(recs), type_shape(hrecs)
        if cs == "funcptr" and hs == "funcptr":
            cf, hf = self.funcptr(recs, True, found), self.funcptr(hrecs, False, found)
            return "a function pointer with the same return and parameter types" if cf and cf == hf else None
        cfields, hfields = self.inv.cuda.fields(cuda), self.full.fields(hip)
        if cfields and hfields:
            if cs != hs or self.role_of_struct(recs) != self.role_of_struct(hrecs):
                return None
            if cfields == hfields:
                return "a struct with the same fields"
            union = any("union" in r.get("signature", "") for r in recs + hrecs)
            if union and hfields < cfields and len(hfields) >= 2:
                return f"a union whose HIP members ({', '.join(sorted(hfields))}) are CUDA's"
            return None
        root = self.root(cuda)
        siblings = [s for s in self.by_root.get(root or "", []) if s != cuda and self.resolve(s) == hip]
        if root and siblings and similar(cuda, siblings[0], both=True):
            return f"the same type as {siblings[0]} ({root}), which HIP spells {hip}"
        return None

    def root(self, name: str) -> str | None:
        """The builtin type a chain of CUDA typedefs ends in, or the struct a pointer typedef points to
        (`typedef struct CUmemPoolHandle_st *CUmemoryPool`, and `cudaMemPool_t` the same)."""
        seen = 0
        while (target := self.typedef_target(self.inv.cuda, name)) and seen < 6:
            name, seen = target, seen + 1
        for r in self.inv.cuda.records(name):
            if (m := _POINTER.match(r.get("signature", ""))) and m[2] == name:
                return f"{m[1]} *"
        return name if seen else None

    @staticmethod
    def role_of_struct(recs: list[Record]) -> str:
        """A struct tag (`struct X`), or a typedef naming one."""
        sigs = [r.get("signature", "") for r in recs]
        return "typedef" if any(s.startswith("typedef") or s.startswith("#define") for s in sigs) else "tag"

    def funcptr(self, recs: list[Record], cuda: bool, found: dict[str, Twin]) -> str | None:
        for r in recs:
            if m := _FUNCPTR.match(r.get("signature", "")):
                ret, params = m[1], [p.rsplit(" ", 1)[0] if " " in p.strip() else p for p in m[3].split(",")]
                norm = (lambda t: self.hip_type(t, found)) if cuda else self.hip_side
                return norm(ret) + "(" + ",".join(norm(p) for p in params) + ")"
        return None

    # -- functions -----------------------------------------------------------------------------------
    def signature(self, recs: list[Record], cuda: bool, found: dict[str, Twin]) -> set[tuple[str, ...]]:
        norm = (lambda t: self.hip_type(t, found)) if cuda else self.hip_side
        return {tuple(norm(p["type"]) for p in r["params"]) for r in recs if r["kind"] == "function" and "params" in r}

    def functions(self, found: dict[str, Twin]) -> dict[str, Twin]:
        by_sig: dict[tuple[str, ...], list[str]] = collections.defaultdict(list)
        for lib in self.hip_libs:
            for name in self.full.names(lib):
                if IDENT.match(name) and name.startswith(self.hip_prefixes):
                    for sig in self.signature(self.full.records(name), False, found):
                        by_sig[sig].append(name)
        pairs = []
        for c, recs in self.cuda_names("function", found):
            for sig in self.signature(recs, True, found):
                if sig:
                    pairs += [(c, h) for h in by_sig.get(sig, []) if similar(c, h, both=True)]
        why = "the same parameter types, once CUDA's are mapped to HIP's"
        return {c: Twin(h, why) for c, h in unique_pairs(pairs).items()}
