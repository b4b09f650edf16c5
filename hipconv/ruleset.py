"""Load and validate YAML rules, and compile them into one lookup table per run.

Every problem in every rule file is collected with its `file:line` and raised
together as one RuleSchemaError.
"""

from __future__ import annotations

import enum
import hashlib
import os
import pickle
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import yaml

from hipconv import __version__
from hipconv.diagnostics import CODES
from hipconv.errors import ConfigError, RuleSchemaError
from hipconv.resources import cache_dir, data_file, rules_dir, templates_dir
from hipconv.settings import Settings, Version

try:  # the C loader is ~10x faster; marks (line numbers) work with both
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]


class Status(enum.Enum):
    SUPPORTED = "supported"
    DEPRECATED = "deprecated"
    EXPERIMENTAL = "experimental"
    UNSUPPORTED = "unsupported"
    REMOVED = "removed"


RUNTIME_HEADER = "cuda_runtime.h"  # nvcc includes it implicitly in every .cu file
KINDS = ("function", "type", "enum", "enumerator", "macro", "variable", "class", "namespace", "include")
QUALIFIED_KINDS = frozenset({"function", "type", "enum", "enumerator", "variable", "class", "namespace"})
_VERSION_KEYS = ("since", "until", "deprecated", "removed")
_STRING_KEYS = ("id", "cuda", "hip", "kind", "status", "note", "section", "library", "lane_mask", "requires_define",
                "template", "scope", "code")
SCOPES = ("call", "statement")
_LIST_KEYS = ("params", "args", "drops")
_MAP_KEYS = ("rocm", "nvidia")
RULE_KEYS = frozenset(_STRING_KEYS + _LIST_KEYS + _MAP_KEYS)
_FILE_KEYS = frozenset({"defaults", "rules"})


@dataclass(frozen=True)
class Rule:
    id: str
    cuda: str
    hip: str | None
    kind: str
    status: Status
    library: str
    section: str
    note: str
    rocm: Mapping[str, Version]
    nvidia: Mapping[str, str]
    params: tuple[str, ...] | None
    args: tuple[str, ...] | None
    drops: tuple[str, ...]
    lane_mask: str | None
    requires_define: str | None
    template: Path | None  # a jinja2 template that renders the HIP code for the call (or statement)
    scope: str  # what the template replaces: "call" or "statement"
    code: str | None  # the diagnostic code when this rule does not translate (default: by status)
    origin: str  # "rules/runtime.yaml:123"

    @property
    def reshapes_call(self) -> bool:
        return self.params is not None

    def covers(self, target: Version) -> bool:
        """True when this rule's [since, until) range holds the target (ignoring `since`)."""
        until = self.rocm.get("until")
        return until is None or target < until

    def available(self, target: Version) -> bool:
        since = self.rocm.get("since")
        return since is None or since <= target


class Action(enum.Enum):
    """What one run does with an identifier; decided in one place (RuleSet.resolve)."""

    REWRITE = "rewrite"
    REWRITE_DEPRECATED = "rewrite-deprecated"
    KEEP_EXPERIMENTAL = "keep-experimental"
    UNSUPPORTED = "unsupported"
    REMOVED = "removed"
    UNAVAILABLE = "unavailable"  # the HIP name is newer than the targeted ROCm
    NO_RULE = "no-rule"  # CUDA API (inventory) that no rule covers


@dataclass(frozen=True)
class Resolution:
    action: Action
    rule: Rule | None
    library: str

    @property
    def rewrites(self) -> bool:
        return self.action in (Action.REWRITE, Action.REWRITE_DEPRECATED)


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    cuda_api: Mapping[str, str]  # CUDA inventory name -> library, for names HIP does not share

    def resolve(self, rules: Iterable[Rule], settings: Settings) -> Resolution:
        lowest = Version((0,))
        covering = sorted((r for r in rules if r.covers(settings.rocm)), key=lambda r: r.rocm.get("since", lowest))
        if not covering:  # every spelling we know was replaced before the target
            rule = max(rules, key=lambda r: r.rocm["until"])
            return Resolution(Action.UNAVAILABLE, rule, rule.library)
        available = [r for r in covering if r.available(settings.rocm)]
        rule = available[-1] if available else covering[0]
        if rule.status is Status.UNSUPPORTED:
            return Resolution(Action.UNSUPPORTED, rule, rule.library)
        if rule.status is Status.REMOVED:
            return Resolution(Action.REMOVED, rule, rule.library)
        if not rule.available(settings.rocm):
            return Resolution(Action.UNAVAILABLE, rule, rule.library)
        if rule.status is Status.EXPERIMENTAL and not settings.experimental:
            return Resolution(Action.KEEP_EXPERIMENTAL, rule, rule.library)
        if rule.status is Status.DEPRECATED:
            return Resolution(Action.REWRITE_DEPRECATED, rule, rule.library)
        return Resolution(Action.REWRITE, rule, rule.library)

    def table(self, settings: Settings) -> LookupTable:
        """One dict keyed by identifier (and one by header path) for this run's target."""
        grouped: dict[str, list[Rule]] = {}
        headers: dict[str, list[Rule]] = {}
        for rule in self.rules:
            (headers if rule.kind == "include" else grouped).setdefault(rule.cuda, []).append(rule)
        identifiers = {name: self.resolve(rs, settings) for name, rs in grouped.items()}
        for name, library in self.cuda_api.items():
            identifiers.setdefault(name, Resolution(Action.NO_RULE, None, library))
        includes = {path: self.resolve(rs, settings) for path, rs in headers.items()}
        runtime = includes.get(RUNTIME_HEADER)
        return LookupTable(
            identifiers=identifiers,
            includes=includes,
            # a qualified rule (cub::BlockReduce) is found from its first name
            names=frozenset(name.split("::", 1)[0].encode() for name in identifiers),
            qualified_heads=frozenset(name.split("::", 1)[0] for name in identifiers if "::" in name),
            runtime_header=runtime.rule.hip if runtime and runtime.rewrites and runtime.rule else None,
        )

    def find(self, name: str) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if name in (r.cuda, r.hip, r.id))


@dataclass(frozen=True)
class LookupTable:
    identifiers: Mapping[str, Resolution]
    includes: Mapping[str, Resolution]  # CUDA header path as written -> resolution
    names: frozenset[bytes]  # identifier keys (first names of qualified keys) as bytes, for scanning bodies
    qualified_heads: frozenset[str]  # first names of qualified keys: only these start an a::b lookup
    runtime_header: str | None  # what nvcc's implicit cuda_runtime.h becomes for this target


# ---------------------------------------------------------------- loading


def json_schema() -> dict[str, Any]:
    """A JSON Schema of a rule file, for editors (`# yaml-language-server: $schema=schema.json`).

    Generated from the same constants the loader validates with; the loader remains the
    authority (cross-field checks such as `hip` being required live in code).
    """
    string = {"type": "string"}
    versions = {"type": "object", "additionalProperties": False,
                "properties": {k: {"type": "string", "pattern": r"^\d+(\.\d+){0,2}$"} for k in _VERSION_KEYS}}
    properties: dict[str, Any] = {key: string for key in _STRING_KEYS}
    properties.update({key: {"type": "array", "items": string} for key in _LIST_KEYS})
    properties.update({"rocm": versions, "nvidia": versions, "kind": {"enum": list(KINDS)},
                       "status": {"enum": [s.value for s in Status]}, "scope": {"enum": list(SCOPES)},
                       "code": {"enum": sorted(CODES)}})
    rule = {"type": "object", "additionalProperties": False, "properties": properties}
    defaults = {"type": "object", "additionalProperties": False,
                "properties": {k: v for k, v in properties.items() if k not in ("cuda", "id")}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hipconv rule file",
        "type": "object",
        "additionalProperties": False,
        "required": ["rules"],
        "properties": {"defaults": defaults, "rules": {"type": "array", "items": {**rule, "required": ["cuda"]}}},
    }


def load_ruleset(extra_dirs: Iterable[Path] = ()) -> RuleSet:
    files = sorted(rules_dir().glob("*.yaml"))
    for extra in extra_dirs:
        if not extra.is_dir():
            raise ConfigError(f"rule directory {extra} does not exist")
        files.extend(sorted(extra.glob("*.yaml")))
    return _cached(files, lambda: RuleSet(load_rules(files), load_cuda_api()))


def _cached(files: list[Path], build: Callable[[], RuleSet]) -> RuleSet:
    """Validated rule sets are pickled under the user's cache directory, keyed by the exact bytes
    of every input, so a start-up (a pre-commit hook, a CI step) skips YAML parsing."""
    digest = hashlib.sha256(__version__.encode())
    templates = sorted({t for f in files for t in f.parent.rglob("*.j2")} | set(templates_dir().rglob("*.j2")))
    for path in [*files, data_file("cuda-13.names"), *templates]:  # a template that vanished must fail validation
        try:
            digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            return build()
    cache = cache_dir() / f"rules-{digest.hexdigest()[:32]}.pickle"
    try:
        cached = pickle.loads(cache.read_bytes())
        if isinstance(cached, RuleSet):
            return cached
    except Exception:  # missing, unreadable or from another Python: rebuild it
        pass
    ruleset = build()
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(ruleset, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache)
    except OSError:
        pass  # a read-only home is fine: no cache
    return ruleset


def load_cuda_api() -> dict[str, str]:
    path = data_file("cuda-13.names")
    if not path.is_file():
        return {}
    table: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        library, _, name = line.partition("\t")
        if name:
            table[name] = library
    return table


def load_rules(files: Iterable[Path]) -> tuple[Rule, ...]:
    problems: list[str] = []
    rules: list[Rule] = []
    for path in files:
        rules.extend(_load_file(path, problems))
    _check_conflicts(rules, problems)
    if problems:
        raise RuleSchemaError(
            f"{len(problems)} problem(s) in the rule files:\n" + "\n".join(f"  {p}" for p in problems)
        )
    return tuple(rules)


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(rules_dir().parent))
    except ValueError:
        return str(path)


def _load_file(path: Path, problems: list[str]) -> list[Rule]:
    name = _display(path)
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=_Loader)
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{name}: cannot read: {exc}")
        return []
    except yaml.YAMLError as exc:
        problems.append(f"{name}: invalid YAML: {exc}".replace("\n", " "))
        return []
    if root is None:
        return []
    if not isinstance(root, yaml.MappingNode):
        problems.append(f"{name}:{root.start_mark.line + 1}: expected a mapping with 'rules:'")
        return []
    top = _mapping(root, name, problems)
    for key, (node, _) in top.items():
        if key not in _FILE_KEYS:
            problems.append(f"{name}:{node.start_mark.line + 1}: unknown top-level key {key!r} (expected defaults, rules)")
    defaults: dict[str, Any] = {}
    if "defaults" in top:
        dnode = top["defaults"][1]
        defaults = _plain(dnode)
        if not isinstance(defaults, dict):
            problems.append(f"{name}:{dnode.start_mark.line + 1}: 'defaults' must be a mapping")
            defaults = {}
        for key in defaults:
            if key not in RULE_KEYS or key in ("cuda", "id"):
                problems.append(f"{name}:{dnode.start_mark.line + 1}: 'defaults' cannot set {key!r}")
    if "rules" not in top:
        problems.append(f"{name}: no 'rules:' list")
        return []
    rnode = top["rules"][1]
    if not isinstance(rnode, yaml.SequenceNode):
        problems.append(f"{name}:{rnode.start_mark.line + 1}: 'rules' must be a list")
        return []
    values = _plain(rnode)  # one construction for the whole list; the nodes give line numbers
    out = []
    for entry, value in zip(rnode.value, values):
        where = f"{name}:{entry.start_mark.line + 1}"
        rule = _build_rule(entry, value, defaults, where, problems, path.parent)
        if rule is not None:
            out.append(rule)
    return out


def _mapping(node: yaml.MappingNode, name: str, problems: list[str]) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key_node, value_node in node.value:
        key = key_node.value
        if key in out:
            problems.append(f"{name}:{key_node.start_mark.line + 1}: key {key!r} given twice")
        out[key] = (key_node, value_node)
    return out


def _plain(node: yaml.Node) -> Any:
    return _Loader("").construct_document(node)


def _build_rule(node: yaml.Node, value: Any, defaults: Mapping[str, Any], where: str,
                problems: list[str], source_dir: Path) -> Rule | None:
    if not isinstance(node, yaml.MappingNode):
        problems.append(f"{where}: a rule must be a mapping")
        return None
    before = len(problems)
    fields = dict(defaults)
    for key, (key_node, _) in _mapping(node, where, problems).items():
        if key not in RULE_KEYS:
            named = f" ({value['cuda']})" if isinstance(value.get("cuda"), str) else ""
            problems.append(f"{where.rsplit(':', 1)[0]}:{key_node.start_mark.line + 1}{named}: unknown key {key!r}")
            continue
        fields[key] = value[key]
    cuda = fields.get("cuda")
    label = f"{where} ({cuda})" if isinstance(cuda, str) else where
    if not isinstance(cuda, str) or not cuda:
        problems.append(f"{where}: 'cuda' is required and must be a string")
    elif fields.get("kind") != "include" and not _is_name(cuda, fields.get("kind")):
        problems.append(f"{label}: 'cuda' must be an identifier (qualified with :: only for C++ entities)")
    for key in _STRING_KEYS:
        if key in fields and not isinstance(fields[key], str):
            problems.append(f"{label}: {key!r} must be a string")
    for key in _LIST_KEYS:
        if key in fields and not (isinstance(fields[key], list) and all(isinstance(x, str) for x in fields[key])):
            problems.append(f"{label}: {key!r} must be a list of names")
    kind = fields.get("kind")
    if kind not in KINDS:
        problems.append(f"{label}: 'kind' must be one of {', '.join(KINDS)}")
    try:
        status = Status(fields.get("status", "supported"))
    except ValueError:
        problems.append(f"{label}: 'status' must be one of {', '.join(s.value for s in Status)}")
        status = Status.UNSUPPORTED
    if not fields.get("library"):
        problems.append(f"{label}: 'library' is required (set it in defaults)")
    rocm = _versions(fields.get("rocm", {}), "rocm", label, problems)
    nvidia = fields.get("nvidia", {})
    if not isinstance(nvidia, dict) or any(k not in _VERSION_KEYS[:1] + _VERSION_KEYS[2:] for k in nvidia):
        problems.append(f"{label}: 'nvidia' takes since / deprecated / removed")
        nvidia = {}
    hip = fields.get("hip")
    if hip is None and status not in (Status.UNSUPPORTED, Status.REMOVED):
        problems.append(f"{label}: 'hip' is required unless the status is unsupported or removed")
    if "since" in rocm and "until" in rocm and not rocm["since"] < rocm["until"]:
        problems.append(f"{label}: rocm.since must be before rocm.until")
    params = fields.get("params")
    args, drops = fields.get("args"), fields.get("drops", [])
    if (args is not None or drops) and params is None:
        problems.append(f"{label}: 'args' and 'drops' need 'params'")
    if params is not None and isinstance(params, list):
        if args is None:
            args = list(params)
        unknown = [a for a in list(args) + list(drops) if a not in params]
        if unknown:
            problems.append(f"{label}: {', '.join(unknown)} not among params")
        silent = [p for p in params if p not in args and p not in drops]
        if silent:
            problems.append(f"{label}: {', '.join(silent)} neither in args nor in drops (dropping must be explicit)")
        lane = fields.get("lane_mask")
        if lane is not None and lane not in params:
            problems.append(f"{label}: lane_mask {lane!r} is not among params")
    elif fields.get("lane_mask") is not None:
        problems.append(f"{label}: 'lane_mask' needs 'params' (the names of the call's arguments)")
    template = _template_path(fields, source_dir, label, problems)
    if fields.get("scope", "call") not in SCOPES:
        problems.append(f"{label}: 'scope' must be one of {', '.join(SCOPES)}")
    if "scope" in fields and template is None:
        problems.append(f"{label}: 'scope' goes with 'template'")
    if fields.get("code") is not None and fields["code"] not in CODES:
        problems.append(f"{label}: 'code' {fields['code']!r} is not a diagnostic code (see `hipconv codes`)")
    if len(problems) > before:
        return None
    library = fields["library"]
    return Rule(
        id=fields.get("id") or f"{library}.{cuda}",
        cuda=cuda,
        hip=hip,
        kind=kind,
        status=status,
        library=library,
        section=fields.get("section", ""),
        note=fields.get("note", ""),
        rocm=rocm,
        nvidia={k: str(v) for k, v in nvidia.items()},
        params=tuple(params) if params is not None else None,
        args=tuple(args) if args is not None else None,
        drops=tuple(drops),
        lane_mask=fields.get("lane_mask"),
        requires_define=fields.get("requires_define"),
        template=template,
        scope=fields.get("scope", "call"),
        code=fields.get("code"),
        origin=where,
    )


def _template_path(fields: Mapping[str, Any], source_dir: Path, label: str, problems: list[str]) -> Path | None:
    """A template named by a rule: beside the rule file first (extra rule folders), else under templates/."""
    name = fields.get("template")
    if not isinstance(name, str):
        return None
    if fields.get("params") is None:
        problems.append(f"{label}: 'template' needs 'params' (the names of the call's arguments)")
    if "args" in fields or "drops" in fields:
        problems.append(f"{label}: 'template' and 'args'/'drops' exclude each other")
    for folder in (source_dir, templates_dir()):
        if (folder / name).is_file():
            return (folder / name).resolve()
    problems.append(f"{label}: template {name!r} not found beside the rule file or under templates/")
    return None


def _is_name(text: str, kind: Any) -> bool:
    parts = text.split("::")
    if len(parts) > 1 and kind not in QUALIFIED_KINDS:
        return False
    return all(p.isidentifier() and p.isascii() for p in parts)


def _versions(value: Any, key: str, label: str, problems: list[str]) -> dict[str, Version]:
    if not isinstance(value, dict):
        problems.append(f"{label}: {key!r} must be a mapping of since/until/deprecated/removed")
        return {}
    out = {}
    for name, text in value.items():
        if name not in _VERSION_KEYS:
            problems.append(f"{label}: unknown key {key}.{name}")
            continue
        if not isinstance(text, str):
            problems.append(f"{label}: {key}.{name} must be a quoted version string such as \"6.2\"")
            continue
        try:
            out[name] = Version.parse(text)
        except ConfigError as exc:
            problems.append(f"{label}: {key}.{name}: {exc}")
    return out


def _check_conflicts(rules: list[Rule], problems: list[str]) -> None:
    seen_ids: dict[str, Rule] = {}
    by_cuda: dict[tuple[str, bool], list[Rule]] = {}
    for rule in rules:
        if rule.id in seen_ids:
            problems.append(f"{rule.origin}: rule id {rule.id!r} already defined at {seen_ids[rule.id].origin}")
        seen_ids[rule.id] = rule
        by_cuda.setdefault((rule.cuda, rule.kind == "include"), []).append(rule)
    lowest = Version((0,))
    for (cuda, _), group in by_cuda.items():
        if len(group) < 2:
            continue
        spans = sorted(group, key=lambda r: r.rocm.get("since", lowest))
        for a, b in zip(spans, spans[1:]):
            a_until = a.rocm.get("until")
            if a_until is None or b.rocm.get("since", lowest) < a_until:
                problems.append(
                    f"{b.origin}: {cuda!r} is already mapped by {a.origin} for the same ROCm releases "
                    "(give the rules disjoint rocm since/until ranges)"
                )
