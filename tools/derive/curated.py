"""tools/curated.yaml: the hand-checked facts merged over the mechanical derivation, and their schema.

The Entry and Section declarations generate a JSON Schema (`curated_schema`), which the file is
checked against as the rule files are (hipconv.rules.validate), so a misspelled key or a value of the
wrong type is reported like a rule-file problem (`file:line (name): unknown key 'hipp'`), every
problem at once, and the run stops before deriving anything.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hipconv.rules.nodes import display_path, node_value, raise_problems, read_mapping
from hipconv.rules.schema import RULE_FIELDS, VERSION_PATTERN, Field, FieldType, json_field
from hipconv.rules.validate import schema_problems

_STRING = Field(FieldType.STRING)
_HIP = Field(FieldType.STRING, nullable=True)  # `hip: null`: no HIP counterpart
_BOOL = Field(FieldType.BOOL)
_NAMES = Field(FieldType.NAMES)
_MAPPING = Field(FieldType.MAPPING)
_STATUS = RULE_FIELDS["status"]


@dataclass(frozen=True)
class Entry:
    """A mapping with a fixed set of keys."""

    fields: Mapping[str, Field]
    sections: Mapping[str, Section] = field(default_factory=dict)  # keys whose value is a Section
    entries: Mapping[str, Entry] = field(default_factory=dict)  # keys whose value is one Entry
    versions: tuple[str, ...] = ()  # keys whose value is a ROCm version ("6.2")
    or_names: tuple[str, ...] = ()  # string keys that also take a list of strings
    required: tuple[str, ...] = ()


@dataclass(frozen=True)
class Section:
    """A mapping of names (CUDA names, headers, patterns) to entries: an Entry each, or else one `value`."""

    entry: Entry | None = None
    value: Field = _STRING
    patterns: bool = False  # the names are regular expressions
    versions: bool = False  # the values are ROCm versions


# mappings: a CUDA name -> its HIP name (null: none), when the mechanical spellings miss it
MAPPING = Entry(
    {
        "hip": _HIP,
        "note": _STRING,
        "status": _STATUS,
        "signature_differs": _BOOL,
        "legacy_form": _BOOL,
        "value_differs": _BOOL,
        "requires_define": RULE_FIELDS["requires_define"],  # where the inventory missed HIP's `#ifdef`
        "rewrite_code": RULE_FIELDS["rewrite_code"],  # reported at each rewrite, with the note (HC004: replace it)
    }
)
WARP_SYNC = Entry(
    {
        "since": _STRING,
        "maskless": _STRING,
        "maskless_note": _STRING,
        "note": _STRING,
        "status": _STATUS,
        "optional": RULE_FIELDS["optional"],
    },
    versions=("since",),
    required=("since",),
)
INCLUDE = Entry(
    {"hip": _HIP, "library": _STRING, "note": _STRING, "status": _STATUS, "not_in_inventory": _BOOL},
    or_names=("hip",),
)
NOTES = Section(patterns=True)  # regular expression -> note (first match wins)
# same_layout: a HIP library type -> the canonical HIP type with the same memory layout (hipblasComplex,
# two floats: float2), so that a pointer argument may be cast to it (tools/derive/calltypes.py)
LIBRARY = Entry(
    {"unsupported_notes": _MAPPING, "same_layout": _MAPPING},
    sections={"unsupported_notes": NOTES, "same_layout": Section()},
)
CUDNN_RULE = Entry(
    {k: RULE_FIELDS[k] for k in ("hip", "params", "args", "drops", "template", "scope", "status", "note", "code")}
)
CUDNN = Entry(
    {"since": _STRING, "rules": _MAPPING, "unsupported_notes": _MAPPING},
    sections={"rules": Section(CUDNN_RULE), "unsupported_notes": NOTES},
    versions=("since",),
)
# call_forms: a CUDA function whose call needs more than a rename (tools/derive/call_forms.py): another
# HIP target (`hip`, checked by parameter types), overloads by argument count (`forms`, keyed by HIP name),
# or `optional` trailing parameters that CUDA's C++ declaration defaults (`fill`: their text where HIP's does not);
# a form keyed by another label names its HIP function in `hip` (two forms of one HIP function), and a
# `template` (under templates/) renders a call whose arguments decide the rewrite (cuCtxCreate's params pointer)
CALL_FORM = Entry(
    {k: RULE_FIELDS[k] for k in ("hip", "params", "optional", "fill", "uncalled", "template", "note")},
    required=("params",),
)
CALL_FORMS = Entry(
    {"hip": _HIP, "forms": _MAPPING, "optional": _NAMES, "fill": RULE_FIELDS["fill"], "note": _STRING},
    sections={"forms": Section(CALL_FORM)},
)
# compiler_macros: a macro nvcc predefines -> the one hipcc (clang) predefines
COMPILER_MACRO = Entry(
    {k: RULE_FIELDS[k] for k in ("hip", "defined_only", "code", "note")},
    required=("hip", "note"),
)
# hip_header_after: a HIP header an include rule writes -> the HIP header that must come before it, because it
# uses what that one declares without including it (every include rule writing it gets `after`)
HIP_HEADER_AFTER = Entry({"after": _STRING, "note": _STRING}, required=("after", "note"))
# header_guards: a macro a CUDA header defines (its include guard) -> one the HIP counterpart of `header` defines
# (`hip: null`: the HIP counterpart defines no macro of its own; the test is reported, HC002)
HEADER_GUARD = Entry({"header": _STRING, "hip": _HIP, "note": _STRING}, required=("header", "hip", "note"))
# compat: a CUDA name (or header) -> the shim of hipconv_compat.h that stands for it where the target has no
# counterpart (tools/derive/compat.py); kind/library/header/note for a name no other rule covers
COMPAT = Entry(
    {"shim": _STRING, "kind": _STRING, "library": _STRING, "header": _STRING, "note": _STRING},
    required=("shim",),
)
# overloads: a shim of hipconv_compat.h (templates/compat/SHIM.h.j2) -> the CUDA overload it defines under the
# CUDA name itself, for the ROCm releases that declare the name for other parameter types only
# (tools/derive/overloads.py): `cuda` the name, `params` CUDA's parameter types, `note` what the definition does
# `direct`: a HIP function that takes the overload's parameters as they are, in the releases that declare it so
# (hipMemPrefetchAsync_v2 from ROCm 7.1): a call whose telling argument visibly has the type is renamed to it
OVERLOAD = Entry(
    {"cuda": _STRING, "params": _NAMES, "note": _STRING, "direct": _STRING}, required=("cuda", "params", "note")
)
# twins: what the evidence search (tools/derive/twins.py) cannot decide: a CUDA name -> its HIP twin with a
# note (read like `mappings:`), or `hip: null` / `reject: [HIP names]` with the reason a candidate is wrong
RUNTIME_LEGACY = Entry({"hip": _STRING, "note": _STRING}, required=("hip", "note"))
TWIN = Entry(
    {"hip": _HIP, "reject": _NAMES, "note": _STRING, "signature_differs": _BOOL},
    required=("note",),
)
# conversions: a HIP parameter type -> the CUDA enumerators converted to it (tools/derive/conversions.py):
# `from` the CUDA enums, `values` CUDA enumerator -> HIP enumerator (null: none of the same meaning, with a
# `why`), `otherwise` why an enumerator not listed has none, `unreached` HIP enumerator -> why no CUDA value
# of the `from` enums means it
CONVERSION = Entry(
    {"from": _NAMES, "note": _STRING, "otherwise": _STRING, "values": _MAPPING, "why": _MAPPING, "unreached": _MAPPING},
    sections={"values": Section(value=_HIP), "why": Section(), "unreached": Section()},
    required=("from", "note", "otherwise", "values"),
)
# cooperative_groups: what the inventories do not record about the groups' member functions
# (tools/derive/cg_members.py): `bases`, a HIP class -> its public bases; `aliases`, a CUDA member -> HIP's
# member of the same meaning, where HIP lacks CUDA's name; `requires_define`, a member -> the macro HIP's
# header declares it under (`#ifdef`), which the inventories do not record
CG_ALIAS = Entry({"hip": _STRING, "note": _STRING}, required=("hip", "note"))
COOPERATIVE_GROUPS = Entry(
    {"bases": _MAPPING, "aliases": _MAPPING, "requires_define": _MAPPING, "note": _STRING},
    sections={"bases": Section(value=_NAMES), "aliases": Section(CG_ALIAS), "requires_define": Section()},
    required=("bases", "note"),
)
# contracts: a CUDA function -> the pointer parameters it accepts as null (with a meaning) that the HIP function
# its rule writes rejects or reads otherwise (tools/derive/contracts.py): `not_null` the parameters, `note` what
# each side does with the null pointer, and where that is documented
CONTRACT = Entry({"not_null": _NAMES, "note": _STRING}, required=("not_null", "note"))
DOCUMENT = Entry(
    {
        "mappings": _MAPPING,
        "enum_bridges": _MAPPING,
        "rocm_since": _MAPPING,
        "warp_sync": _MAPPING,
        "ignore": _NAMES,
        "includes": _MAPPING,
        "libraries": _MAPPING,
        "cudnn": _MAPPING,
        "call_forms": _MAPPING,
        "compiler_macros": _MAPPING,
        "header_guards": _MAPPING,
        "hip_header_after": _MAPPING,
        "cuda_legacy": _MAPPING,
        "runtime_legacy": _MAPPING,
        "twins": _MAPPING,
        "compat": _MAPPING,
        "overloads": _MAPPING,
        "conversions": _MAPPING,
        "cooperative_groups": _MAPPING,
        "contracts": _MAPPING,
    },
    sections={
        "mappings": Section(MAPPING),
        "enum_bridges": Section(),  # CUDA enum -> the CUDA enum whose enumerators bridge to HIP
        "rocm_since": Section(versions=True),  # HIP name -> first ROCm release, where better known
        "warp_sync": Section(WARP_SYNC),
        "includes": Section(INCLUDE),
        "libraries": Section(LIBRARY),
        "call_forms": Section(CALL_FORMS),
        "compiler_macros": Section(COMPILER_MACRO),
        "header_guards": Section(HEADER_GUARD),
        "hip_header_after": Section(HIP_HEADER_AFTER),
        # names of CUDA 11.8 / 12.9 that CUDA removed or renamed: mappings like `mappings:`, read by Curated.mapping
        "cuda_legacy": Section(MAPPING),
        # runtime names older than every CUDA inventory, with a HIP twin (tools/derive/legacy.py): HC027
        "runtime_legacy": Section(RUNTIME_LEGACY),
        "twins": Section(TWIN),
        "compat": Section(COMPAT),
        "overloads": Section(OVERLOAD),
        "conversions": Section(CONVERSION),
        "contracts": Section(CONTRACT),
    },
    entries={"cudnn": CUDNN, "cooperative_groups": COOPERATIVE_GROUPS},
)


def curated_schema() -> dict[str, Any]:
    """The JSON Schema of tools/curated.yaml, generated from the Entry and Section declarations above."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **_entry_schema(DOCUMENT, "curated facts")}


def _entry_schema(shape: Entry, title: str = "fact") -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for key, spec in shape.fields.items():
        if key in shape.entries:
            properties[key] = _entry_schema(shape.entries[key])
        elif key in shape.sections:
            properties[key] = _section_schema(shape.sections[key])
        elif key in shape.versions:
            properties[key] = {"type": "string", "pattern": VERSION_PATTERN}
        else:
            properties[key] = json_field(spec)
        if key in shape.or_names:  # a name or a list of names
            kinds = properties[key]["type"]
            properties[key] = {"type": [*kinds, "array"] if isinstance(kinds, list) else [kinds, "array"]}
            properties[key]["items"] = {"type": "string"}
    out: dict[str, Any] = {"title": title, "type": "object", "additionalProperties": False, "properties": properties}
    return {**out, "required": list(shape.required)} if shape.required else out


def _section_schema(shape: Section) -> dict[str, Any]:
    """A mapping of names to entries or values; titled, so that a problem names the section or the entry."""
    if shape.entry is not None:
        value = _entry_schema(shape.entry)
    elif shape.versions:
        value = {"type": "string", "pattern": VERSION_PATTERN}
    else:
        value = json_field(shape.value)
    out: dict[str, Any] = {"title": "section", "type": "object", "additionalProperties": value}
    return {**out, "propertyNames": {"format": "regex"}} if shape.patterns else out


def read_curated(path: Path) -> dict[str, Any]:
    """The facts of a curated.yaml; RuleSchemaError listing every problem when it does not fit the schema."""
    problems: list[str] = []
    name = display_path(path)
    root = read_mapping(path, name, problems)
    raw: dict[str, Any] = {}
    if root is not None:
        raw = node_value(root)
        problems.extend(problem.text for problem in schema_problems(root, raw, curated_schema(), name))
    raise_problems(problems, name)
    return raw


def first_note(notes: Mapping[str, str], name: str) -> str | None:
    """The note of the first pattern that matches `name`."""
    return next((note for pattern, note in notes.items() if re.search(pattern, name)), None)


@dataclass
class Curated:
    raw: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> Curated:
        return cls(read_curated(path))

    def section(self, key: str) -> dict[str, Any]:
        value = self.raw.get(key)
        return value if isinstance(value, dict) else {}

    @property
    def ignore(self) -> set[str]:
        return set(self.raw.get("ignore") or ())

    def mapping(self, name: str) -> dict[str, Any] | None:
        fact: dict[str, Any] | None = self.section("mappings").get(name) or self.section("cuda_legacy").get(name)
        twin = self.section("twins").get(name) or {}
        return fact or (twin if twin.get("hip") else None)

    def since(self, hip_name: str) -> str | None:
        value: str | None = self.section("rocm_since").get(hip_name)
        return value

    def same_layout(self) -> dict[str, str]:
        """HIP library type -> the canonical HIP type of the same layout, over every library."""
        return {k: v for lib in self.section("libraries").values() for k, v in (lib.get("same_layout") or {}).items()}

    def library_notes(self, library: str) -> dict[str, str]:
        notes: dict[str, str] = self.section("libraries").get(library, {}).get("unsupported_notes", {})
        return notes
