"""Read rule files: YAML with line numbers -> validated Rules.

Every problem in every file is collected with its `file:line` and raised together as one
RuleSchemaError. Keys, types and closed sets of values are checked against the file's JSON Schema
(hipconv.rules.schema, by hipconv.rules.validate); the cross-field rules (a `hip` unless
unsupported, explicit drops, ...) live here. The loader runs only when the rule cache is cold.

A file lists its rules under `rules:`, and the names that have no HIP counterpart and need no more
than a kind, section, library or NVIDIA versions under `unsupported:`, in groups sharing those fields,
one name a line. The loader merges the two by `load_order`, the order the derivation writes rules in.
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from hipconv.errors import ConfigError
from hipconv.resources import templates_dir
from hipconv.rules.conversions import conversion_names
from hipconv.rules.model import Rule, RuleKind, RuleStatus, Scope, VersionRange, count_list
from hipconv.rules.nodes import display_path, node_value, raise_problems, read_mapping
from hipconv.rules.schema import RULE_FIELDS, json_schema
from hipconv.rules.template_codes import template_problems
from hipconv.rules.validate import KeyPath, by_entry, schema_problems
from hipconv.settings import Version

_TAGGED_KINDS = (RuleKind.TYPE.value, RuleKind.ENUM.value, RuleKind.CLASS.value)


class _Entry(NamedTuple):
    """One rule of a file before its checks: an entry of `rules:`, or a name of an `unsupported:` group."""

    order: tuple[str, str, str]  # load_order
    where: str  # file:line
    value: Any
    problems: list[str]  # what the schema found wrong with it
    group: Mapping[str, Any] | None = None  # the group's fields, for a name of `unsupported:` (value: the name)


def load_rules(files: Iterable[Path]) -> tuple[Rule, ...]:
    problems: list[str] = []
    rules: list[Rule] = []
    schema = json_schema()
    for path in files:
        rules.extend(_load_file(path, schema, problems))
    _check_conflicts(rules, problems)
    raise_problems(problems, "the rule files")
    return tuple(rules)


def load_order(entry: Any) -> tuple[str, str, str]:
    """Where a rule goes in its file: by CUDA name, then ROCm `since`, then `id` (the derivation sorts
    `rules:` so, and the names of each `unsupported:` group; the loader merges them by it)."""
    if not isinstance(entry, dict):
        return ("", "", "")
    rocm = entry.get("rocm")
    since = rocm.get("since", "") if isinstance(rocm, dict) else ""
    return (str(entry.get("cuda", "")), str(since), str(entry.get("id", "")))


def _load_file(path: Path, schema: Mapping[str, Any], problems: list[str]) -> list[Rule]:
    name = display_path(path)
    root = read_mapping(path, name, problems)
    if root is None:
        return []
    doc = node_value(root)
    found = by_entry(schema_problems(root, doc, schema, name, top_level="top-level key"))
    listed = [_rule_entries(root, doc, found, name), *_unsupported_entries(root, doc, found, name)]
    problems.extend(p for entry, texts in found.items() if entry[:1] != ("rules",) for p in texts)
    defaults = doc.get("defaults") if isinstance(doc.get("defaults"), dict) else {}
    sound = ("defaults",) not in found  # else every rule inherits the problem: each is checked, none built
    out = []
    for entry in heapq.merge(*listed, key=lambda e: e.order):
        rule = _build_rule(entry, defaults, problems, path.parent, sound=sound)
        if rule is not None:
            out.append(rule)
    return out


def _items(root: yaml.MappingNode, doc: Mapping[str, Any], key: str) -> list[tuple[int, yaml.Node, Any]]:
    """The nodes and values of the list under `key` ([] when it is missing or not a list)."""
    node = next((v for k, v in root.value if k.value == key), None)
    if not isinstance(node, yaml.SequenceNode) or not isinstance(doc.get(key), list):
        return []
    return [(n, item, value) for n, (item, value) in enumerate(zip(node.value, doc[key]))]


def _rule_entries(
    root: yaml.MappingNode, doc: Mapping[str, Any], found: Mapping[KeyPath, list[str]], name: str
) -> list[_Entry]:
    return [
        _Entry(load_order(value), f"{name}:{node.start_mark.line + 1}", value, found.get(("rules", n), []))
        for n, node, value in _items(root, doc, "rules")
    ]


def _unsupported_entries(
    root: yaml.MappingNode, doc: Mapping[str, Any], found: Mapping[KeyPath, list[str]], name: str
) -> list[list[_Entry]]:
    """The names of each `unsupported:` group that fits the schema, each with the group's fields and its own line
    (the problems of a group that does not are the file's)."""
    out = []
    for n, node, value in _items(root, doc, "unsupported"):
        if ("unsupported", n) in found or not isinstance(node, yaml.MappingNode):
            continue
        group = {k: v for k, v in value.items() if k != "names"}
        names = next(v for k, v in node.value if k.value == "names").value
        out.append(
            [
                _Entry((cuda, "", ""), f"{name}:{m.start_mark.line + 1}", cuda, [], group)
                for m, cuda in zip(names, value["names"])
            ]
        )
    return out


def _build_rule(
    entry: _Entry, defaults: Mapping[str, Any], problems: list[str], source_dir: Path, *, sound: bool = True
) -> Rule | None:
    where, value = entry.where, entry.value
    before = len(problems)
    problems.extend(entry.problems)
    if entry.group is not None:
        own = {**entry.group, "cuda": value, "status": RuleStatus.UNSUPPORTED.value}
    elif not isinstance(value, dict):
        return None  # the schema's problem
    else:
        own = value
    fields = {**defaults, **own}
    cuda = fields.get("cuda")
    label = f"{where} ({cuda})" if isinstance(cuda, str) else where
    _check_identity(fields, label, problems)
    _check_call_shape(fields, label, problems)
    _check_use_forms(fields, label, problems)
    template = _template_path(fields, source_dir, label, problems)
    if "scope" in fields and template is None:
        problems.append(f"{label}: 'scope' goes with 'template'")
    if len(problems) > before or not sound:
        return None
    return _rule(fields, template, where)


def _check_identity(fields: Mapping[str, Any], label: str, problems: list[str]) -> None:
    """cuda, kind, status, library, hip and the ROCm range together (each on its own: the schema)."""
    cuda, kind = fields.get("cuda"), fields.get("kind")
    if isinstance(cuda, str) and kind != RuleKind.INCLUDE.value and not _is_name(cuda, kind):
        problems.append(f"{label}: 'cuda' must be an identifier (qualified with :: only for C++ entities)")
    if "kind" not in fields:
        problems.append(f"{label}: 'kind' must be one of {', '.join(RULE_FIELDS['kind'].choices)}")
    if not fields.get("library"):
        problems.append(f"{label}: 'library' is required (set it in defaults)")
    status = fields.get("status", RuleStatus.SUPPORTED.value)
    needs_hip = status in RULE_FIELDS["status"].choices and status not in (
        RuleStatus.UNSUPPORTED.value,
        RuleStatus.REMOVED.value,
    )
    if fields.get("hip") is None and needs_hip:
        problems.append(f"{label}: 'hip' is required unless the status is unsupported or removed")
    rocm = fields.get("rocm", {})
    if isinstance(rocm, dict) and isinstance(rocm.get("since"), str) and isinstance(rocm.get("until"), str):
        try:
            ordered = Version.parse(rocm["since"]) < Version.parse(rocm["until"])
        except ConfigError:  # a malformed version: the schema reports it
            ordered = True
        if not ordered:
            problems.append(f"{label}: rocm.since must be before rocm.until")


def _check_call_shape(fields: Mapping[str, Any], label: str, problems: list[str]) -> None:
    """params / args / drops / lane_mask: every parameter is kept or dropped explicitly."""
    params, args, drops = fields.get("params"), fields.get("args"), fields.get("drops", [])
    lane, optional = fields.get("lane_mask"), fields.get("optional", [])
    if params is None or not isinstance(params, list):
        if args is not None or drops or optional:
            problems.append(f"{label}: 'args', 'drops' and 'optional' need 'params'")
        if lane is not None:
            problems.append(f"{label}: 'lane_mask' needs 'params' (the names of the call's arguments)")
        return
    args = params if args is None else args
    unknown = [a for a in list(args) + list(drops) if a not in params]
    if unknown:
        problems.append(f"{label}: {', '.join(unknown)} not among params")
    silent = [p for p in params if p not in args and p not in drops]
    if silent:
        problems.append(f"{label}: {', '.join(silent)} neither in args nor in drops (dropping must be explicit)")
    if lane is not None and lane not in params:
        problems.append(f"{label}: lane_mask {lane!r} is not among params")
    if isinstance(optional, list) and optional and list(optional) != params[len(params) - len(optional) :]:
        problems.append(f"{label}: optional {', '.join(map(str, optional))} must be the last of params")
    _check_fills_and_casts(fields, list(args), label, problems)


def _check_fills_and_casts(fields: Mapping[str, Any], args: list[str], label: str, problems: list[str]) -> None:
    """casts name kept arguments; fill names optional ones; an optional argument without a fill, which a
    call may omit, comes last in args (else the arguments after it would take its place)."""
    casts, fill, optional = fields.get("casts", {}), fields.get("fill", {}), fields.get("optional", [])
    converts = fields.get("converts", {})
    if not (isinstance(casts, dict) and isinstance(fill, dict) and isinstance(optional, list)):
        return  # the schema reports the type
    if not isinstance(converts, dict):
        return
    for key, where in (("casts", casts), ("fill", fill), ("converts", converts)):
        dropped = [name for name in where if name not in args]
        if dropped:
            problems.append(f"{label}: {key} {', '.join(dropped)} not among the kept args")
    unknown = sorted({str(target) for target in converts.values()} - conversion_names())
    if unknown:
        problems.append(f"{label}: converts to {', '.join(unknown)}, which no hipconv/data/*.conversion holds")
    not_optional = [name for name in fill if name in args and name not in optional]
    if not_optional:
        problems.append(
            f"{label}: fill {', '.join(not_optional)} not among optional (only an omitted argument is filled)"
        )
    omitted = [name for name in args if name in optional and name not in fill]
    kept_order = [name for name in optional if name in omitted]
    if omitted and (args[len(args) - len(omitted) :] != omitted or omitted != kept_order):
        problems.append(
            f"{label}: optional {', '.join(omitted)} must come last in args, in params order (or give it a fill)"
        )


def _check_use_forms(fields: Mapping[str, Any], label: str, problems: list[str]) -> None:
    """The fields that pick a rewrite by how the name is used: overloads (casts, fill and uncalled need
    params), elaborated type specifiers (tag, tagless) and definedness tests (defined_only)."""
    if fields.get("params") is None:
        needing = [key for key in ("casts", "converts", "fill", "uncalled") if fields.get(key)]
        if needing:
            problems.append(f"{label}: {', '.join(needing)} need 'params' (the names of the call's arguments)")
    kind = fields.get("kind")
    tag = fields.get("tag")
    if tag is not None or fields.get("tagless"):
        if kind not in _TAGGED_KINDS:
            problems.append(f"{label}: 'tag' and 'tagless' go with kind {', '.join(_TAGGED_KINDS)}")
        if tag is not None and fields.get("tagless"):
            problems.append(f"{label}: 'tag' and 'tagless' exclude each other")
        if isinstance(tag, str) and not (tag.isidentifier() and tag.isascii()):
            problems.append(f"{label}: 'tag' must be an identifier (the HIP struct, union or enum tag)")
    if fields.get("defined_only") and kind != RuleKind.MACRO.value:
        problems.append(f"{label}: 'defined_only' goes with kind macro")
    if fields.get("after") is not None and kind != RuleKind.INCLUDE.value:
        problems.append(f"{label}: 'after' goes with kind include")


def _template_path(fields: Mapping[str, Any], source_dir: Path, label: str, problems: list[str]) -> Path | None:
    """A template named by a rule: beside the rule file first (extra rule folders), else under templates/; in
    that folder (or below it), links resolved: hipconv.rules.cache keys the rule set on those folders' files."""
    name = fields.get("template")
    if not isinstance(name, str):
        return None
    if fields.get("params") is None:
        problems.append(f"{label}: 'template' needs 'params' (the names of the call's arguments)")
    if "args" in fields or "drops" in fields:
        problems.append(f"{label}: 'template' and 'args'/'drops' exclude each other")
    for folder in (source_dir, templates_dir()):
        if (folder / name).is_file():
            path = (folder / name).resolve()
            if not path.is_relative_to(folder.resolve()):  # the rule set's digest covers its folders only
                problems.append(f"{label}: template {name!r} is outside {folder} (a template lies in its rule folder)")
                return None
            problems.extend(f"{label}: {problem}" for problem in template_problems(path))
            return path
    problems.append(f"{label}: template {name!r} not found beside the rule file or under templates/")
    return None


_NAME_LISTS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _names(values: Iterable[str] | None) -> tuple[str, ...] | None:
    """A rule's parameter names as one tuple shared by every rule with the same names (2,000 library rules
    carry params; the rule cache pickles a shared tuple once)."""
    if values is None:
        return None
    names = tuple(sys.intern(str(v)) for v in values)
    return _NAME_LISTS.setdefault(names, names)


def _rule(fields: Mapping[str, Any], template: Path | None, where: str) -> Rule:
    """The Rule of fields that passed every check."""
    params = _names(fields.get("params"))
    args = _names(fields["args"]) if "args" in fields else params
    library = fields["library"]
    return Rule(
        id=fields.get("id") or f"{library}.{fields['cuda']}",
        cuda=fields["cuda"],
        hip=fields.get("hip"),
        kind=RuleKind(fields["kind"]),
        status=RuleStatus(fields.get("status", RuleStatus.SUPPORTED.value)),
        library=library,
        section=fields.get("section", ""),
        note=fields.get("note", ""),
        rocm=VersionRange(**{k: Version.parse(v) for k, v in fields.get("rocm", {}).items()}),
        nvidia={k: str(v) for k, v in fields.get("nvidia", {}).items()},
        params=params,
        args=args,
        drops=tuple(fields.get("drops", ())),
        optional=tuple(fields.get("optional", ())),
        lane_mask=fields.get("lane_mask"),
        requires_define=fields.get("requires_define"),
        template=template,
        scope=Scope(fields.get("scope", Scope.CALL.value)),
        code=fields.get("code"),
        origin=where,
        casts=dict(fields.get("casts", {})),
        converts=dict(fields.get("converts", {})),
        fill=dict(fields.get("fill", {})),
        uncalled=bool(fields.get("uncalled", False)),
        tag="" if fields.get("tagless") else fields.get("tag"),
        defined_only=bool(fields.get("defined_only", False)),
        rewrite_code=fields.get("rewrite_code"),
        compat=fields.get("compat"),
        after=fields.get("after"),
    )


def _is_name(text: str, kind: Any) -> bool:
    parts = text.split("::")
    if len(parts) > 1 and not (kind in RULE_FIELDS["kind"].choices and RuleKind(kind).qualifiable):
        return False
    return all(p.isidentifier() and p.isascii() for p in parts)


def _check_conflicts(rules: list[Rule], problems: list[str]) -> None:
    seen_ids: dict[str, Rule] = {}
    by_cuda: dict[tuple[str, bool], list[Rule]] = {}
    for rule in rules:
        if rule.id in seen_ids:
            problems.append(f"{rule.origin}: rule id {rule.id!r} already defined at {seen_ids[rule.id].origin}")
        seen_ids[rule.id] = rule
        by_cuda.setdefault((rule.cuda, rule.kind is RuleKind.INCLUDE), []).append(rule)
    for (cuda, _), group in by_cuda.items():
        spans = sorted(group, key=lambda r: r.rocm.start)
        for n, b in enumerate(spans):
            for a in spans[:n]:
                if a.rocm.intersects(b.rocm):
                    problem = _overlap_problem(cuda, a, b)
                    if problem:
                        problems.append(problem)


def _overlap_problem(cuda: str, a: Rule, b: Rule) -> str:
    """Why rules a and b, which share ROCm releases, cannot both map `cuda` ("" when they are overloads:
    both have params, and no call can fit both)."""
    if a.arity is None or b.arity is None:
        return (
            f"{b.origin}: {cuda!r} is already mapped by {a.origin} for the same ROCm releases "
            "(give the rules disjoint rocm since/until ranges, or params with different argument counts "
            "to tell overloads apart)"
        )
    shared = sorted(set(a.arity) & set(b.arity))
    if shared:
        return (
            f"{b.origin}: {cuda!r} with {count_list(shared)} argument{'s' * (shared != [1])} is already mapped by "
            f"{a.origin} for the same ROCm releases (overloads need disjoint argument counts: params, less "
            "optional ones)"
        )
    if a.uncalled and b.uncalled:
        return f"{b.origin}: {cuda!r}: only one of its overloads can be 'uncalled' ({a.origin} is already)"
    return ""
