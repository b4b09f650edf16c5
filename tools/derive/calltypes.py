"""Argument types of library calls: a CUDA function's parameter types, mapped to HIP, against the parameter
types of the HIP function a rule emits, in one ROCm release.

hipBLAS before ROCm 7.0 is the case in point: `cublasCgemm` takes `cuComplex*`, which hipconv makes
`hipComplex*`, while `hipblasCgemm` takes `hipblasComplex*` (ROCm 6.x also has `hipblasCgemm_v2`, which
takes `hipComplex*`); `cublasGemmEx` takes `cudaDataType` (`hipDataType`) where hipBLAS's v1
`hipblasGemmEx` takes `hipblasDatatype_t`, whose values differ.  Types are compared canonically within
one release (typedefs followed, `const` and `struct` dropped), so the host-only sets, which spell
`hipComplex` as `float2` and handles as `void *`, compare like the full ones.  A mismatch is a `cast`
where the two pointee types have the same layout (curated `same_layout`, or `long long`/`long`), or where
HIP's array of pointers is less `const` than CUDA's (`const void *[]` for `const void *const []`: a
`void **` argument does not convert to it); a `convert` where a curated conversion maps the CUDA enum's
values to the HIP one's (tools/derive/conversions.py: cudaDataType -> hipblasDatatype_t); and a problem
otherwise (an enum of other values, another struct): the call cannot compile as translated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Optional, Union

from tools.derive.conversions import Conversion, conversions
from tools.derive.core import Deriver
from tools.derive.inventory import RELEASES
from tools.derive.libspec import LIBRARIES
from tools.derive.records import Record

# the CUDA libraries whose calls are checked (inventory file stems)
CHECKED_LIBS = frozenset({"cublas", "cusolver", "cusparse", "cufft", "curand", "nvrtc"})
_QUALIFIERS = re.compile(r"\b(?:const|volatile|struct|enum|union|__restrict__|restrict)\b")
_TYPEDEF = re.compile(r"^typedef\s+(?P<target>.+?)\s*(?P<name>\w+)$")
# spellings of one builtin type (LP64 Linux, where int64_t is long)
_BUILTIN = {
    "size_t": "unsigned long",
    "int64_t": "long",
    "uint64_t": "unsigned long",
    "long int": "long",
    "unsigned long int": "unsigned long",
    "long long int": "long long",
    "unsigned long long int": "unsigned long long",
    "int32_t": "int",
    "uint32_t": "unsigned int",
    "unsigned": "unsigned int",
    "signed int": "int",
    "uint16_t": "unsigned short",
    "int16_t": "short",
    "unsigned short int": "unsigned short",
}
_ARITHMETIC = frozenset(
    {"bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "long"}
    | {"unsigned long", "long long", "unsigned long long", "float", "double"}
)
# builtin types of the same size and representation on LP64 (a pointer to one may be cast to the other)
_SAME_BUILTIN_LAYOUT = {frozenset({"long", "long long"}), frozenset({"unsigned long", "unsigned long long"})}


@dataclass(frozen=True)
class CType:
    """A canonical type: the base name and the pointer depth (arrays count as pointers)."""

    base: str
    stars: int

    def __str__(self) -> str:
        return self.base + "*" * self.stars


@dataclass(frozen=True)
class Mismatch:
    """One argument whose translated type is not what the HIP function takes."""

    param: str  # the CUDA parameter name
    cuda: str  # the CUDA parameter type, as declared
    hip: str  # the HIP parameter type, as declared in the release
    cast: str | None  # the HIP type to reinterpret_cast the argument to, when the layouts are the same
    convert: str | None = None  # the conversion (its HIP type) that maps the argument's values


@dataclass(frozen=True)
class Casts:
    """The arguments a call must cast (same layout, another type name), by the CUDA parameter names."""

    params: tuple[str, ...]  # every CUDA parameter, in order (a rule's `params`)
    casts: tuple[tuple[str, str], ...]  # parameter -> HIP type
    converts: tuple[tuple[str, str], ...] = ()  # parameter -> the conversion (HIP type) of its values


Fix = Optional[Union[Casts, str]]  # None: the call fits; Casts; str: why it cannot compile


def split_type(text: str) -> CType:
    body = _QUALIFIERS.sub(" ", text)
    stars = body.count("*") + body.count("[")
    base = " ".join(re.sub(r"[*&]|\[\w*\]", " ", body).split())
    return CType(_BUILTIN.get(base, base), stars)


def spelled(text: str) -> str:
    """`const hipblasComplex *` -> `const hipblasComplex*`, `T *const[]` -> `T* const*` (the cast a rule writes)."""
    return re.sub(r"\s*\*", "*", " ".join(re.sub(r"\[\w*\]", "*", text).split()))


class CallTypes:
    def __init__(self, d: Deriver) -> None:
        self.d = d
        self.inv = d.inv
        self.same_layout = {frozenset(pair) for pair in d.cur.same_layout().items()} | _SAME_BUILTIN_LAYOUT
        self.conversions: dict[str, Conversion] = conversions(d)

    # -- the types ----------------------------------------------------------------------
    @cache  # noqa: B019 - one instance per derivation run
    def hip_of(self, cuda: str) -> str | None:
        """The HIP twin of a CUDA type name: its rule, else the library's spelling of it; None when none."""
        if cuda in _ARITHMETIC or cuda == "void":
            return cuda
        if hip := self.d.types.get(cuda) or (self.d.cur.mapping(cuda) or {}).get("hip"):
            return str(hip)
        for spec in LIBRARIES:
            for cuda_p, hip_p in spec.prefixes:
                if cuda_p and cuda.startswith(cuda_p):
                    cand = hip_p + cuda[len(cuda_p) :]
                    if {r["kind"] for r in self.inv.latest_or_any(cand)} & {"type", "enum", "class"}:
                        return cand
        for rec in self.inv.cuda.records(cuda):  # `typedef int cusolver_int_t`
            m = _TYPEDEF.match(rec.get("signature", ""))
            if rec["kind"] == "type" and m and m["name"] == cuda and (base := split_type(m["target"])).stars == 0:
                if base.base in _ARITHMETIC:
                    return base.base
        if self.inv.latest_or_any(cuda):  # HIP spells it the same (__half)
            return cuda
        return None

    @cache  # noqa: B019
    def canonical(self, base: str, rel: str, depth: int = 0) -> CType:
        """Follow `base`'s typedefs in release `rel` (not those behind an opt-in condition)."""
        if depth > 8:
            return CType(base, 0)
        for rec in self.inv.hip[rel].records(base):
            if rec["kind"] != "type" or rec.get("condition"):
                continue
            m = _TYPEDEF.match(rec.get("signature", ""))
            if not m or m["name"] != base:
                continue
            target = split_type(m["target"])
            if target.base == base or re.match(r"^(enum|struct|union)\s", m["target"]):
                return CType(base, 0)
            inner = self.canonical(target.base, rel, depth + 1)
            return CType(inner.base, inner.stars + target.stars)
        return CType(base, 0)

    def resolve(self, text: str, rel: str) -> CType:
        t = split_type(text)
        inner = self.canonical(t.base, rel)
        return CType(inner.base, inner.stars + t.stars)

    def is_enum(self, base: str, rel: str) -> bool:
        return any(r["kind"] == "enum" for r in self.inv.hip[rel].records(base))

    # -- the check ------------------------------------------------------------------------
    @staticmethod
    def cuda_prototypes(cuda_recs: list[Record], count: int) -> list[Record]:
        """The CUDA declarations with `count` parameters: those of the cublas_v2.h API where the legacy
        cublas.h has one too, and all of them where C++ overloads one (cublasGemmEx's computeType, a
        cublasComputeType_t, or a cudaDataType for code written for CUDA 10)."""
        fits = [r for r in cuda_recs if r["kind"] == "function" and len(r.get("params", [])) == count]
        modern = [r for r in fits if r.get("header") != "cublas.h"]
        return modern or fits[:1]

    def checked(self, cuda_recs: list[Record]) -> bool:
        return any(r["kind"] == "function" and r.get("lib") in CHECKED_LIBS for r in cuda_recs)

    def mismatches(self, cuda_recs: list[Record], hip: str, rel: str) -> list[Mismatch] | None:
        """The arguments of the CUDA call that do not fit `hip` in `rel`; None when it cannot be told (no
        HIP prototype there, no CUDA one of the same length, a CUDA type without a HIP twin)."""
        protos = [r for r in self.inv.hip[rel].records(hip) if r["kind"] == "function" and "params" in r]
        if len(protos) != 1:
            return None
        hip_params = protos[0]["params"]
        overloads = self.cuda_prototypes(cuda_recs, len(hip_params))
        if not overloads:
            return None
        out: dict[str, Mismatch] = {}
        for n, cuda_proto in enumerate(overloads):
            found = self._mismatches(cuda_proto, hip, hip_params, rel)
            if found is None:
                return None
            # another overload's argument that a cast or a conversion fits (a cudaDataType computeType, which
            # the conversion turns into a hipblasComputeType_t and a cublasComputeType_t one passes as it is);
            # one that nothing fits is left to the compiler, as the call was before C++ overloaded it
            out |= {m.param: m for m in found if m.param not in out and (n == 0 or m.cast or m.convert)}
        return list(out.values())

    def _mismatches(self, cuda_proto: Record, hip: str, hip_params: list[Record], rel: str) -> list[Mismatch] | None:
        out = []
        for n, (cp, hp) in enumerate(zip(cuda_proto["params"], hip_params)):
            if "(" in hp["type"]:  # a declarator the host-only sets cannot spell (`unsigned int (**vectors)*`)
                continue
            ct = split_type(cp["type"])
            mapped = self.hip_of(ct.base)
            if mapped is None:
                return None
            # a type newer than `rel` (cusparseConstSpMatDescr_t, from ROCm 6.0) is what it is where it exists:
            # CUDA's parameter takes the older type too (cusparseSpMatDescr_t), which `rel` has
            where = rel if self.inv.hip[rel].has(mapped) else next(iter(self.inv.releases_with(mapped)), rel)
            arg = self.canonical(mapped, where)
            arg = CType(arg.base, arg.stars + ct.stars)
            param = self.resolve(hp["type"], rel)
            fit = self.fit(arg, param, rel)
            if fit is True and _drops_inner_const(cp["type"], hp["type"]):
                fit = "cast"
            if fit is not True:
                cast = self.cast_text(hip, rel, n, param) if fit == "cast" else None
                convert = self.conversion(ct.base, param.base) if fit is False else None
                out.append(Mismatch(cp["name"], cp["type"], hp["type"], cast, convert))
        return out

    def conversion(self, cuda_type: str, hip_type: str) -> str | None:
        """The conversion from the CUDA parameter type (an enum) to the HIP one, if one is curated."""
        conv = self.conversions.get(hip_type)
        return hip_type if conv is not None and cuda_type in conv.sources else None

    def cast_text(self, hip: str, rel: str, n: int, param: CType) -> str:
        """How to spell parameter `n` of `hip` in a cast: as `rel` declares it, or, for a host-only set
        (which drops `const` and spells typedefs canonically), as the newest full set declares the same type."""
        for other in (rel, *reversed(RELEASES[: RELEASES.index(rel)])):
            if other in self.inv.host_only and other != rel:
                continue
            protos = [r for r in self.inv.hip[other].records(hip) if r["kind"] == "function" and "params" in r]
            if other != rel and (other in self.inv.host_only or len(protos) != 1 or n >= len(protos[0]["params"])):
                continue
            text = protos[0]["params"][n]["type"]
            if other == rel and rel not in self.inv.host_only:
                return spelled(text)
            if other != rel and self.resolve(text, other) == param:
                return spelled(text)
        return spelled(str(param))

    def fit(self, arg: CType, param: CType, rel: str) -> bool | str:
        """True when an argument of type `arg` converts to `param`; "cast" when a pointer cast does it
        (same layout); False otherwise."""
        if arg == param:
            return True
        if param.base == "void" and param.stars == 1 and arg.stars >= 1:
            return True
        if arg.stars == param.stars == 0:
            if param.base in _ARITHMETIC:  # arithmetic conversions; an unscoped enum converts to int
                return arg.base in _ARITHMETIC or self.is_enum(arg.base, rel)
            return False
        if arg.stars == param.stars and frozenset({arg.base, param.base}) in self.same_layout:
            return "cast"
        return False

    def fits(self, cuda_recs: list[Record], hip: str, rel: str) -> bool:
        """True when every argument of the CUDA call converts to `hip`'s parameter in `rel`."""
        return self.mismatches(cuda_recs, hip, rel) == []

    def fix(self, cuda_recs: list[Record], hip: str, rel: str) -> Fix:
        """What a call of `hip` in `rel` needs: nothing (None), casts, or it cannot compile (why)."""
        if not self.checked(cuda_recs):
            return None
        found = self.mismatches(cuda_recs, hip, rel)
        if not found:
            return None
        if all(m.cast or m.convert for m in found):
            proto = self.cuda_prototypes(cuda_recs, len(self.inv.hip[rel].records(hip)[0]["params"]))[0]
            return Casts(
                tuple(p["name"] for p in proto["params"]),
                tuple((m.param, m.cast) for m in found if m.cast),
                tuple((m.param, m.convert) for m in found if m.convert),
            )
        return self.problem(found, hip, rel)

    def problem(self, mismatches: list[Mismatch], hip: str, rel: str) -> str:
        wrong = [m for m in mismatches if m.cast is None]
        listed = ", ".join(f"{m.param} ({spelled(m.hip)}, not {spelled(m.cuda)})" for m in wrong)
        v2 = [r for r in RELEASES if self.inv.hip[r].has(with_v2(hip))]
        later = (
            f"; {with_v2(hip)} (from ROCm {v2[0]}) takes them"
            if v2 and RELEASES.index(v2[0]) > RELEASES.index(rel)
            else ""
        )
        return f"{hip} takes {listed}, which the translated arguments do not convert to{later}"


def _drops_inner_const(cuda: str, hip: str) -> bool:
    """CUDA's parameter is an array of const pointers (`const void *const Aarray[]`, `void *const Carray[]`),
    HIP's one of plain pointers (`const void *A[]`, `void *C[]`): a `void **` argument converts to the first,
    not to the second where the pointee is const (T** -> const T** is no implicit conversion), and a
    `void *const *` argument, which CUDA's takes, converts to neither, so the argument is cast to HIP's type."""
    return _inner_const(cuda) and not _inner_const(hip) and split_type(hip).stars >= 2


def _inner_const(text: str) -> bool:
    return re.search(r"\*\s*const\b", text) is not None


def with_v2(name: str) -> str:
    """hipblasCgemm -> hipblasCgemm_v2, hipblasCgemm_64 -> hipblasCgemm_v2_64 (hipBLAS 2.x's v2 API)."""
    if name.endswith("_v2") or "_v2_" in name:
        return name
    return re.sub(r"(?=(_64)?$)", "_v2", name, count=1)
