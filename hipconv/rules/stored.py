"""A RuleSet as the rule cache stores it (hipconv.rules.cache): plain JSON that json reads without a hook.

A rule set is 14,000 rules read at every start; stored as tagged records (hipconv.cache_format.seal), that
is 180,000 objects through a Python hook, half a second. Here each field is one column of its values, a
rule's at its index: enums by value, tuples as lists, a template as its path, and the ROCm range as an index
into `ranges` (a few dozen distinct ones). A column where one value holds for most rules (most fields are
empty for most rules) is that value once and the others by index: json reads some 200,000 values, not
400,000. Reading it back builds Rules without their __init__, as unpickling did. The layout and every value
it converts are checked (Damaged otherwise); texts, flags and mappings are kept as JSON reads them, as the
sealed digest vouches for their bytes.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hipconv.cache_format import Damaged
from hipconv.rules.model import Rule, RuleKind, RuleSet, RuleStatus, Scope, VersionRange
from hipconv.settings import Version

FORMAT = 2  # bump when the layout changes (the cache key covers this module's bytes too)
STORED_FIELDS = tuple(f.name for f in dataclasses.fields(Rule))
_RANGE_FIELDS = tuple(f.name for f in dataclasses.fields(VersionRange))
_ENUMS: dict[str, dict[Any, Any]] = {
    "kind": {m.value: m for m in RuleKind},
    "status": {m.value: m for m in RuleStatus},
    "scope": {m.value: m for m in Scope},
}
_TUPLES = ("drops", "optional")
_OPTIONAL_TUPLES = ("params", "args")
_MAPPINGS = ("nvidia", "casts", "converts", "fill")
# kept as JSON reads them (the digest vouches for their bytes; a wrong type fails where a run uses it)
_AS_STORED = frozenset({"id", "cuda", "hip", "library", "section", "note", "lane_mask", "requires_define", "code"})
_AS_STORED |= {"origin", "uncalled", "tag", "defined_only", "rewrite_code", "compat", "after", *_MAPPINGS}


def to_data(ruleset: RuleSet) -> dict[str, Any]:
    """The JSON value that stands for `ruleset`."""
    ranges: dict[VersionRange, int] = {}
    columns = {
        name: _column([_stored(name, getattr(rule, name), ranges) for rule in ruleset.rules]) for name in STORED_FIELDS
    }
    return {
        "format": FORMAT,
        "fields": list(STORED_FIELDS),
        "count": len(ruleset.rules),
        "ranges": [[None if v is None else list(v.parts) for v in _range_values(r)] for r in ranges],
        "columns": columns,
        "cuda_api": dict(ruleset.cuda_api),
    }


def _stored(name: str, value: Any, ranges: dict[VersionRange, int]) -> Any:
    """A rule's field as JSON holds it."""
    if name in _ENUMS:
        return value.value
    if name == "rocm":
        return ranges.setdefault(value, len(ranges))
    if name in _TUPLES or name in _OPTIONAL_TUPLES:
        return None if value is None else list(value)
    if name in _MAPPINGS:
        return dict(value)
    if name == "template":
        return None if value is None else str(value)
    return value


def _column(values: list[Any]) -> Any:
    """A field's values, one per rule; where one value holds for most rules (most fields: empty), that value
    once and the others by index, so that json reads a few objects, not one per rule."""
    texts = [json.dumps(v, sort_keys=True) for v in values]
    common, count = Counter(texts).most_common(1)[0] if texts else ("", 0)
    if count * 2 <= len(values):
        return values
    return {
        "fill": values[texts.index(common)],
        "at": [[n, v] for n, (v, t) in enumerate(zip(values, texts)) if t != common],
    }


def from_data(data: Any) -> RuleSet:
    """The RuleSet that to_data wrote; Damaged for anything else."""
    try:
        return _read(data)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        raise Damaged(f"not a rule set hipconv wrote: {exc}") from None


def _read(data: Any) -> RuleSet:
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("fields") != list(STORED_FIELDS):
        raise Damaged("a rule set of another layout")
    count, stored = data["count"], data["columns"]
    if type(data["ranges"]) is not list or type(stored) is not dict or type(count) is not int:
        raise Damaged("a rule set of another layout")
    ranges = [VersionRange(*(_version(v) for v in _sized(r, len(_RANGE_FIELDS)))) for r in data["ranges"]]
    readers = _readers(ranges)
    columns = [_read_column(stored[name], count, readers.get(name)) for name in STORED_FIELDS]
    new, rules = object.__new__, []
    for row in zip(*columns):  # each rule's fields in STORED_FIELDS order: its dict shares the class's keys
        rule = new(Rule)
        rule.__dict__.update(zip(STORED_FIELDS, row))
        rules.append(rule)
    cuda_api = data["cuda_api"]
    if type(cuda_api) is not dict or not all(type(v) is str for v in cuda_api.values()):
        raise Damaged("a CUDA inventory of another layout")
    return RuleSet(rules=tuple(rules), cuda_api=cuda_api)


def _read_column(column: Any, count: int, read: Callable[[Any], Any] | None) -> list[Any]:
    """A field's value for each of the `count` rules, from what _column wrote, through its reader if it has one
    (a value that one column shares is read once, and shared)."""
    if type(column) is list:
        if len(column) != count:
            raise Damaged("a column of another length")
        return column if read is None else [read(v) for v in column]
    if type(column) is not dict or type(column["at"]) is not list:
        raise Damaged("a column of another layout")
    fill = column["fill"]
    values = [fill if read is None else read(fill)] * count
    for pair in column["at"]:
        index, value = _sized(pair, 2)
        if type(index) is not int or not 0 <= index < count:
            raise Damaged("a value of no rule")
        values[index] = value if read is None else read(value)
    return values


def _readers(ranges: list[VersionRange]) -> dict[str, Callable[[Any], Any]]:
    """Per field that JSON does not hold as the Rule does, or whose shape must be checked: its reader."""
    by_name: dict[str, Callable[[Any], Any]] = {"rocm": ranges.__getitem__, "template": _path}
    for name, members in _ENUMS.items():
        by_name[name] = members.__getitem__
    by_name.update(dict.fromkeys(_TUPLES, _texts))
    by_name.update(dict.fromkeys(_OPTIONAL_TUPLES, _optional_texts))
    missing = set(STORED_FIELDS) - set(by_name) - _AS_STORED
    if missing:  # a field added to Rule that this module does not know
        raise AssertionError(f"rules.stored has no reader for {sorted(missing)}")
    return by_name


def _range_values(versions: VersionRange) -> list[Version | None]:
    return [getattr(versions, name) for name in _RANGE_FIELDS]


def _sized(value: Any, size: int) -> list[Any]:
    if type(value) is not list or len(value) != size:
        raise Damaged("a value of another layout")
    return value


def _version(parts: Any) -> Version | None:
    if parts is None:
        return None
    if type(parts) is not list or not parts or not all(type(p) is int for p in parts):
        raise Damaged("a version of another layout")
    return Version(tuple(parts))


def _texts(value: Any) -> tuple[str, ...]:
    if type(value) is not list:
        raise Damaged("a list that is not a list")
    return tuple(value)


def _optional_texts(value: Any) -> tuple[str, ...] | None:
    return None if value is None else _texts(value)


def _path(value: Any) -> Path | None:
    if value is None:
        return None
    if type(value) is not str:
        raise Damaged("a path that is not text")
    return Path(value)
