"""The shape of a rule file, declared once: `json_schema` turns it into the JSON Schema that the
loader checks each file against (hipconv.rules.validate) and `hipconv rules schema` writes to
rules/schema.json for editors. The derivation's curated facts (tools/derive/curated.py) declare
their shape with the same Fields.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hipconv.diagnostics import CODES
from hipconv.rules.model import RuleKind, RuleStatus, Scope


class FieldType(enum.Enum):
    STRING = "string"
    BOOL = "bool"
    NAMES = "names"  # a list of strings
    TEXTS = "texts"  # a mapping of names to strings
    VERSIONS = "versions"  # a mapping of version keys to quoted version strings
    MAPPING = "mapping"  # checked by its owner


@dataclass(frozen=True)
class Field:
    type: FieldType
    choices: tuple[str, ...] = ()  # for STRING: the closed set of values
    keys: tuple[str, ...] = ()  # for VERSIONS: the version keys allowed
    choices_hint: str = ""  # how the message names the choices when there are too many to list
    nullable: bool = False  # `key: null` is allowed (it means "none")


ROCM_VERSION_KEYS = ("since", "until", "deprecated", "removed")
NVIDIA_VERSION_KEYS = ("since", "deprecated", "removed")
VERSION_PATTERN = r"^\d+(\.\d+){0,2}$"

_STRING = Field(FieldType.STRING)
_NAMES = Field(FieldType.NAMES)

RULE_FIELDS: Mapping[str, Field] = {
    "id": _STRING,
    "cuda": _STRING,
    "hip": _STRING,
    "kind": Field(FieldType.STRING, tuple(k.value for k in RuleKind)),
    "status": Field(FieldType.STRING, tuple(s.value for s in RuleStatus)),
    "note": _STRING,
    "section": _STRING,
    "library": _STRING,
    "lane_mask": _STRING,
    "requires_define": _STRING,
    "template": _STRING,
    "scope": Field(FieldType.STRING, tuple(s.value for s in Scope)),
    "code": Field(FieldType.STRING, tuple(sorted(CODES)), choices_hint="a diagnostic code (see `hipconv codes`)"),
    "params": _NAMES,
    "args": _NAMES,
    "drops": _NAMES,
    "optional": _NAMES,
    "casts": Field(FieldType.TEXTS),
    "converts": Field(FieldType.TEXTS),
    "fill": Field(FieldType.TEXTS),
    "uncalled": Field(FieldType.BOOL),
    "tag": _STRING,
    "tagless": Field(FieldType.BOOL),
    "defined_only": Field(FieldType.BOOL),
    "rewrite_code": Field(
        FieldType.STRING, tuple(sorted(CODES)), choices_hint="a diagnostic code (see `hipconv codes`)"
    ),
    "compat": _STRING,
    "after": _STRING,
    "rocm": Field(FieldType.VERSIONS, keys=ROCM_VERSION_KEYS),
    "nvidia": Field(FieldType.VERSIONS, keys=NVIDIA_VERSION_KEYS),
}
NOT_IN_DEFAULTS = frozenset({"cuda", "id", "tag", "uncalled"})
# a group of `unsupported:`: names without a HIP counterpart that share these fields (and the file's defaults)
UNSUPPORTED_FIELDS: Mapping[str, Field] = {
    **{key: RULE_FIELDS[key] for key in ("kind", "section", "library", "nvidia")},
    "names": _NAMES,
}


def json_field(field: Field) -> dict[str, Any]:
    """A field's JSON Schema; hipconv.rules.validate words its messages from it."""
    if field.type is FieldType.VERSIONS:
        return {
            "type": "object",
            "additionalProperties": False,
            "properties": {k: {"type": "string", "pattern": VERSION_PATTERN} for k in field.keys},
        }
    if field.type is FieldType.NAMES:
        return {"type": "array", "items": {"type": "string"}}
    if field.type is FieldType.TEXTS:
        return {"type": "object", "additionalProperties": {"type": "string", "pattern": r"\S"}}
    if field.type is FieldType.BOOL:
        return {"type": "boolean"}
    if field.type is FieldType.MAPPING:
        return {"type": "object"}
    if field.choices_hint:
        return {"enum": list(field.choices), "description": field.choices_hint}
    if field.choices:
        return {"enum": list(field.choices)}
    return {"type": ["string", "null"]} if field.nullable else {"type": "string"}


def entry_schema(title: str, fields: Mapping[str, Field], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A mapping with the given fields and no others; its title makes it an entry that messages name."""
    out: dict[str, Any] = {
        "title": title,
        "type": "object",
        "additionalProperties": False,
        "properties": {key: json_field(field) for key, field in fields.items()},
    }
    return {**out, "required": list(required)} if required else out


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a rule file: the loader validates each file with it (when the rule cache is
    cold), and editors read it as rules/schema.json (`# yaml-language-server: $schema=schema.json`).

    Generated from RULE_FIELDS; the cross-field checks (`hip` required unless unsupported, explicit
    drops, ...) live in hipconv.rules.load.
    """
    in_defaults = {k: v for k, v in RULE_FIELDS.items() if k not in NOT_IN_DEFAULTS}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hipconv rule file",
        "type": "object",
        "additionalProperties": False,
        "anyOf": [{"required": ["rules"]}, {"required": ["unsupported"]}],
        "properties": {
            "defaults": entry_schema("defaults", in_defaults),
            "rules": {"type": "array", "items": entry_schema("rule", RULE_FIELDS, ("cuda",))},
            "unsupported": {
                "type": "array",
                "items": entry_schema("group of unsupported names", UNSUPPORTED_FIELDS, ("names",)),
            },
        },
    }
