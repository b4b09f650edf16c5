"""The shape of a rule file, declared once: the loader checks entries against it and
`hipconv rules schema` turns it into rules/schema.json for editors.

`check_fields` is the one place that checks keys, types and closed sets of values; the rule
loader and the rule derivation's curated facts (tools/derive) both report through it.
"""

from __future__ import annotations

import enum
import re
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


def check_fields(fields: Mapping[str, Any], spec: Mapping[str, Field], label: str, problems: list[str]) -> None:
    """Types and closed sets of values of the known keys of an entry (unknown keys: the caller's to report,
    with their line)."""
    for key, value in fields.items():
        field = spec.get(key)
        if field is None or (value is None and field.nullable):
            continue
        problem = _check_value(key, value, field)
        if problem:
            problems.append(f"{label}: {problem}")


def _check_value(key: str, value: Any, field: Field) -> str | None:
    if field.type is FieldType.STRING:
        if not isinstance(value, str):
            return f"{key!r} must be a string"
        if field.choices and value not in field.choices:
            if field.choices_hint:
                return f"{key!r} {value!r} is not {field.choices_hint}"
            return f"{key!r} must be one of {', '.join(field.choices)}"
    elif field.type is FieldType.BOOL and not isinstance(value, bool):
        return f"{key!r} must be true or false"
    elif field.type is FieldType.NAMES and not (isinstance(value, list) and all(isinstance(x, str) for x in value)):
        return f"{key!r} must be a list of names"
    elif field.type is FieldType.TEXTS and not (
        isinstance(value, dict)
        and all(isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in value.items())
    ):
        return f"{key!r} must map names to non-empty strings"
    elif field.type is FieldType.VERSIONS:
        return _check_versions(key, value, field.keys)
    elif field.type is FieldType.MAPPING and not isinstance(value, dict):
        return f"{key!r} must be a mapping"
    return None


def _check_versions(key: str, value: Any, keys: tuple[str, ...]) -> str | None:
    if not isinstance(value, dict) or any(k not in keys for k in value):
        return f"{key!r} takes {' / '.join(keys)}"
    for name, text in value.items():
        if not isinstance(text, str):
            return f'{key}.{name} must be a quoted version string such as "6.2"'
        if not re.match(VERSION_PATTERN, text.strip()):
            return f"{key}.{name}: invalid version {text!r}: expected X.Y or X.Y.Z"
    return None


def _json_field(field: Field) -> dict[str, Any]:
    if field.type is FieldType.VERSIONS:
        return {
            "type": "object",
            "additionalProperties": False,
            "properties": {k: {"type": "string", "pattern": VERSION_PATTERN} for k in field.keys},
        }
    if field.type is FieldType.NAMES:
        return {"type": "array", "items": {"type": "string"}}
    if field.type is FieldType.TEXTS:
        return {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}}
    if field.type is FieldType.BOOL:
        return {"type": "boolean"}
    if field.type is FieldType.MAPPING:
        return {"type": "object"}
    return {"enum": list(field.choices)} if field.choices else {"type": "string"}


def json_schema() -> dict[str, Any]:
    """A JSON Schema of a rule file, for editors (`# yaml-language-server: $schema=schema.json`).

    Generated from RULE_FIELDS, which the loader validates with; the loader remains the
    authority (cross-field checks such as `hip` being required live in code).
    """
    properties = {key: _json_field(field) for key, field in RULE_FIELDS.items()}
    rule = {"type": "object", "additionalProperties": False, "properties": properties}
    defaults = {
        "type": "object",
        "additionalProperties": False,
        "properties": {k: v for k, v in properties.items() if k not in NOT_IN_DEFAULTS},
    }
    group = {
        "type": "object",
        "additionalProperties": False,
        "required": ["names"],
        "properties": {key: _json_field(field) for key, field in UNSUPPORTED_FIELDS.items()},
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hipconv rule file",
        "type": "object",
        "additionalProperties": False,
        "anyOf": [{"required": ["rules"]}, {"required": ["unsupported"]}],
        "properties": {
            "defaults": defaults,
            "rules": {"type": "array", "items": {**rule, "required": ["cuda"]}},
            "unsupported": {"type": "array", "items": group},
        },
    }
