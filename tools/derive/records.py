"""What inventory records say about a name: its kind, parameter counts, value and type shape."""

from __future__ import annotations

import re
from typing import Any

Record = dict[str, Any]  # one inventory record (JSON Lines), plus `lib`: the file stem it came from
Rule = dict[str, Any]  # one rule as written to rules/*.yaml

TYPEISH = {"type", "enum", "class"}
IDENT = re.compile(r"^[A-Za-z_]\w*$")
TYPEDEF = re.compile(r"^typedef\s+(?:__device_builtin__\s+)?(?:enum|struct|union)?\s*(\w+)\s+(\w+)$")
_KIND_ORDER = ("function", "enumerator", "enum", "type", "class", "variable", "macro")
_SHAPE_ORDER = ("pointer", "funcptr", "enum", "struct")


def rule_kind(kinds: set[str]) -> str | None:
    """The kind a user sees; an alias macro that also has a function record is a function."""
    for k in _KIND_ORDER:
        if k in kinds:
            return "type" if k == "class" else k
    return None


def kind_of(recs: list[Record]) -> str | None:
    return rule_kind({r["kind"] for r in recs})


def param_counts(recs: list[Record]) -> set[int] | None:
    counts = {len(r["params"]) for r in recs if r["kind"] == "function" and "params" in r}
    return counts or None


def opt_in_define(recs: list[Record]) -> str | None:
    """The macro a declaration is conditioned on (`#ifdef HIP_ENABLE_WARP_SYNC_BUILTINS`): code that uses
    the name must define it before the header."""
    for r in recs:
        if m := re.search(r"#ifdef\s+(\w+)", r.get("condition", "")):
            return m[1]
    return None


def object_like_macro(recs: list[Record]) -> bool:
    return any(r["kind"] == "macro" and not r.get("params") for r in recs)


def constant_value(recs: list[Record]) -> int | None:
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


def param_types(recs: list[Record]) -> set[tuple[str, ...]]:
    """Parameter type lists of a function's overloads (spacing and `const` left out: the host-only
    inventories drop it from some pointer parameters, release by release)."""
    return {
        tuple(re.sub(r"\s+|\bconst\b", "", p["type"]) for p in r["params"])
        for r in recs
        if r["kind"] == "function" and "params" in r
    }


def all_deprecated(recs: list[Record]) -> bool:
    """Every declaration (macros aside, unless there is nothing else) carries a deprecated attribute."""
    main = [r for r in recs if r["kind"] != "macro"] or recs
    return bool(main) and all(r.get("deprecated") for r in main)


def _shape(rec: Record) -> str | None:
    sig = rec.get("signature", "")
    if rec["kind"] == "enum" or sig.startswith("typedef enum"):
        return "enum"
    if rec["kind"] == "class" or re.match(r"^(struct|union)\s+\w+$", sig):
        return "struct"
    if re.match(r"^typedef\b[^(]*\(\s*(?:\w+\s+)?\*", sig):  # typedef void (CUDART_CB *f)(...)
        return "funcptr"
    if sig.startswith("typedef") and "*" in sig:
        return "pointer"
    if re.match(r"^typedef\s+(?:__device_builtin__\s+)?(struct|union)\s+\w+\s+\w+$", sig):
        return "struct"
    return None


def type_shape(recs: list[Record]) -> str | None:
    """What a type name denotes: a struct tag/value, a pointer handle, a function pointer,
    an enum.  None when the records do not tell."""
    shapes = {_shape(r) for r in recs}
    return next((s for s in _SHAPE_ORDER if s in shapes), None)


def _types_fit(
    cuda_recs: list[Record], hip_recs: list[Record], cuda_fields: set[str] | None, hip_fields: set[str] | None
) -> bool:
    cs, hs = type_shape(cuda_recs), type_shape(hip_recs)
    if cs and hs and cs != hs:
        return False
    if cuda_fields and hip_fields:  # same members, give or take: Jaccard >= 1/2
        return 2 * len(cuda_fields & hip_fields) >= len(cuda_fields | hip_fields)
    return True


def compatible(
    cuda_recs: list[Record],
    hip_recs: list[Record],
    cuda_fields: set[str] | None = None,
    hip_fields: set[str] | None = None,
) -> bool:
    """Kind (and for functions, parameter count; for types, shape and members) of a
    HIP name fits the CUDA name."""
    ck = kind_of(cuda_recs)
    hk = {r["kind"] for r in hip_recs}
    if ck == "function":
        cc, hc = param_counts(cuda_recs), param_counts(hip_recs)
        return "function" in hk and (cc is None or hc is None or bool(cc & hc))
    if ck in TYPEISH:
        return bool(hk & TYPEISH) and _types_fit(cuda_recs, hip_recs, cuda_fields, hip_fields)
    if ck == "enumerator":
        return "enumerator" in hk or object_like_macro(hip_recs)
    if ck == "macro":
        return "macro" in hk or ("enumerator" in hk and object_like_macro(cuda_recs))
    return ck == "variable" and "variable" in hk
