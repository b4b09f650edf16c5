"""The rule model: one frozen Rule per CUDA spelling and ROCm range, the status policy that
resolves rules for a run's target (RuleSet.resolve), and the lookup table a run uses."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hipconv.settings import Settings, Version

RUNTIME_HEADER = "cuda_runtime.h"  # nvcc includes it implicitly in every .cu file


class RuleStatus(enum.Enum):
    """What is true upstream; what one run does with it is an Action."""

    SUPPORTED = "supported"
    DEPRECATED = "deprecated"
    EXPERIMENTAL = "experimental"
    UNSUPPORTED = "unsupported"
    REMOVED = "removed"


class RuleKind(enum.Enum):
    FUNCTION = "function"
    TYPE = "type"
    ENUM = "enum"
    ENUMERATOR = "enumerator"
    MACRO = "macro"
    VARIABLE = "variable"
    CLASS = "class"
    NAMESPACE = "namespace"
    INCLUDE = "include"

    @property
    def qualifiable(self) -> bool:
        """C++ entities may be spelled `ns::name`; macros and includes may not."""
        return self not in (RuleKind.MACRO, RuleKind.INCLUDE)


class Scope(enum.Enum):
    """What a rule's template replaces."""

    CALL = "call"
    STATEMENT = "statement"


_LOWEST = Version((0,))


@dataclass(frozen=True)
class VersionRange:
    """A rule's ROCm releases: [since, until), plus when HIP deprecated or removed the name."""

    since: Version | None = None
    until: Version | None = None
    deprecated: Version | None = None
    removed: Version | None = None

    def covers(self, target: Version) -> bool:
        """True when target is before `until` (ignoring `since`)."""
        return self.until is None or target < self.until

    def available(self, target: Version) -> bool:
        return self.since is None or self.since <= target

    @property
    def start(self) -> Version:
        return self.since or _LOWEST

    def overlaps(self, later: VersionRange) -> bool:
        """For two ranges ordered by start: True when they share a release."""
        return self.until is None or later.start < self.until

    def intersects(self, other: VersionRange) -> bool:
        """True when the two ranges share a release (in either order)."""
        first, later = sorted((self, other), key=lambda r: r.start)
        return first.overlaps(later)

    def items(self) -> list[tuple[str, Version]]:
        return [(key, value) for key, value in vars(self).items() if value is not None]

    def __str__(self) -> str:
        if self.until is not None:
            return f"{self.since or ''}..{self.until}"
        return f"{self.since}+" if self.since is not None else ""


@dataclass(frozen=True)
class Rule:
    id: str
    cuda: str
    hip: str | None
    kind: RuleKind
    status: RuleStatus
    library: str
    section: str
    note: str
    rocm: VersionRange
    nvidia: Mapping[str, str]
    params: tuple[str, ...] | None
    args: tuple[str, ...] | None
    drops: tuple[str, ...]
    optional: tuple[str, ...]  # trailing params with a default in CUDA's prototype, which a call may omit
    lane_mask: str | None
    requires_define: str | None
    template: Path | None  # a jinja2 template that renders the HIP code for the call (or statement)
    scope: Scope  # what the template replaces
    code: str | None  # the diagnostic code when this rule does not translate (default: by status)
    origin: str  # "rules/runtime.yaml:123"
    casts: Mapping[str, str] = field(default_factory=dict)  # param -> HIP parameter type: reinterpret_cast<type>(arg)
    # param -> a conversion (hipconv/data/TYPE.conversion): a CUDA enumerator becomes the HIP one of the same
    # meaning, any other argument goes through the shim hipconv_TYPE (hipconv.rules.conversions)
    converts: Mapping[str, str] = field(default_factory=dict)
    fill: Mapping[str, str] = field(default_factory=dict)  # optional param -> the HIP argument when a call omits it
    uncalled: bool = False  # among overloads by argument count: the rule for a use that is not a call (&name)
    # the HIP struct/union/enum tag of HIP's typedef, for `struct cudaX` (elaborated uses); "" where HIP's typedef
    # names an anonymous struct/enum (`tagless`: `struct cudaX` loses its keyword). One field, not two: at 30
    # fields CPython stops sharing the keys of the instances' dicts, and 14,000 rules take 18 MB more
    tag: str | None = None
    defined_only: bool = False  # a macro rewritten only where its definition is tested (#ifdef, defined(X))
    rewrite_code: str | None = None  # a note reported at each rewrite (HC010: a CUDA header guard's test)
    compat: str | None = None  # the shim of hipconv_compat.h used where the target has no counterpart
    after: str | None = None  # include rules: a HIP header that must come before `hip` (which uses, but does not
    # include, what it declares)

    @property
    def tagless(self) -> bool:
        return self.tag == ""

    @property
    def arity(self) -> range | None:
        """The argument counts a call of this rule's form may have (params less optional, up to params);
        None for a rule without params (a rename, whatever the call)."""
        if self.params is None:
            return None
        return range(len(self.params) - len(self.optional), len(self.params) + 1)


class Action(enum.Enum):
    """What one run does with an identifier; decided in one place (RuleSet.resolve)."""

    REWRITE = "rewrite"
    REWRITE_DEPRECATED = "rewrite-deprecated"
    KEEP_EXPERIMENTAL = "keep-experimental"
    UNSUPPORTED = "unsupported"
    REMOVED = "removed"
    UNAVAILABLE = "unavailable"  # the HIP name is newer than the targeted ROCm
    NO_RULE = "no-rule"  # CUDA API (inventory) that no rule covers
    OVERLOADED = "overloaded"  # rules told apart by the call's argument count: see Resolution.overloads
    SHIM = "shim"  # no counterpart in the target, but the rule's shim of hipconv_compat.h stands for it


@dataclass(frozen=True)
class Resolution:
    action: Action
    rule: Rule | None
    library: str
    overloads: Overloads | None = None  # set with Action.OVERLOADED
    unshimmed: Action | None = None  # with Action.SHIM: the action without the shim, for a use it cannot serve

    @property
    def rewrites(self) -> bool:
        return self.action in (Action.REWRITE, Action.REWRITE_DEPRECATED)


@dataclass(frozen=True)
class Overloads:
    """One CUDA name whose rules apply to calls with different numbers of arguments, each resolved
    for the target like any spelling."""

    by_count: Mapping[int, Resolution]  # argument count -> what a call with that many arguments becomes
    uncalled: Resolution | None  # what a use that is not a call becomes (None: it is reported)
    counts: tuple[int, ...]  # every count some rule takes, in order (for messages)


@dataclass(frozen=True)
class LookupTable:
    identifiers: Mapping[str, Resolution]
    includes: Mapping[str, Resolution]  # CUDA header path as written -> resolution
    names: frozenset[bytes]  # identifier keys (first names of qualified keys) as bytes, for scanning bodies
    qualified_heads: frozenset[str]  # first names of qualified keys: only these start an a::b lookup
    runtime_header: str | None  # what nvcc's implicit cuda_runtime.h becomes for this target
    hip_headers: frozenset[str] = frozenset()  # the HIP header paths include rules write, in any release
    # types that become a HIP type another one becomes too (cudaError_t and CUresult: hipError_t), as bytes:
    # overloads on them become one function (translate.redefinitions)
    merged_types: frozenset[bytes] = frozenset()
    # the HIP names scope rules write (hipStream_t): they qualify a CUDA name as the CUDA scope did, so a
    # second run over the output reads `hipStream_t::x` as the first read `cudaStream_t::x`
    hip_scopes: frozenset[str] = frozenset()
    # every header path the include matcher acts on: the CUDA paths of include rules and the HIP paths they write
    include_paths: frozenset[str] = frozenset()
    digest: str = ""  # the RuleSet's: part of the keys of hipconv.filecache ("": nothing is cached)
    # a release range (hipconv.rules.ranges): the macros of hipconv_compat.h that stand for a name spelled per
    # release, each with its guarded definitions; and the names (or header paths) some release cannot build, why
    ranged: Mapping[str, str] = field(default_factory=dict)
    gaps: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    cuda_api: Mapping[str, str]  # CUDA inventory name -> library, for names HIP does not share
    digest: str = ""  # of the bytes it was built from (rules.cache); "" when unknown

    def resolve(self, rules: Iterable[Rule], settings: Settings) -> Resolution:
        """The status policy: which of a spelling's rules applies to the target, and what to do."""
        rules = list(rules)
        if len(rules) == 1:  # most spellings: what follows, for one rule
            return _shimmed(_one_rule_action(rules[0], settings), rules[0], settings)
        if _overloaded(rules):
            return self._overloads(rules, settings)
        covering = sorted((r for r in rules if r.rocm.covers(settings.rocm)), key=lambda r: r.rocm.start)
        if not covering:  # every spelling we know ended before the target: HIP removed it
            rule = max(rules, key=lambda r: r.rocm.until or _LOWEST)
            return _shimmed(Action.REMOVED, rule, settings)
        available = [r for r in covering if r.rocm.available(settings.rocm)]
        rule = available[-1] if available else covering[0]
        return _shimmed(_action(rule, settings), rule, settings)

    def _overloads(self, rules: list[Rule], settings: Settings) -> Resolution:
        """A name with overloads: each argument count resolved among the rules that take it."""
        counts = sorted({n for r in rules for n in r.arity or ()})
        by_count = {n: self.resolve([r for r in rules if n in (r.arity or ())], settings) for n in counts}
        uncalled = [r for r in rules if r.uncalled]
        default = self.resolve(uncalled, settings) if uncalled else None
        return Resolution(Action.OVERLOADED, None, rules[0].library, Overloads(by_count, default, tuple(counts)))

    def table(self, settings: Settings) -> LookupTable:
        """One dict keyed by identifier (and one by header path) for this run's target."""
        grouped: dict[str, list[Rule]] = {}
        headers: dict[str, list[Rule]] = {}
        for rule in self.rules:
            (headers if rule.kind is RuleKind.INCLUDE else grouped).setdefault(rule.cuda, []).append(rule)
        one = _SingleRules(settings)  # most spellings have one rule: resolved per (status, releases), not per rule
        identifiers = {name: one(rs[0]) if len(rs) == 1 else self.resolve(rs, settings) for name, rs in grouped.items()}
        for name, library in self.cuda_api.items():
            if name not in identifiers:
                identifiers[name] = Resolution(Action.NO_RULE, None, library)
        includes = {path: self.resolve(rs, settings) for path, rs in headers.items()}
        runtime = includes.get(RUNTIME_HEADER)
        hip_headers = frozenset(r.hip for rs in headers.values() for r in rs if r.hip)
        return LookupTable(
            identifiers=identifiers,
            includes=includes,
            # a qualified rule (cub::BlockReduce) is found from its first name
            names=frozenset(name.split("::", 1)[0].encode() for name in identifiers),
            qualified_heads=frozenset(name.split("::", 1)[0] for name in identifiers if "::" in name),
            runtime_header=runtime.rule.hip if runtime and runtime.rewrites and runtime.rule else None,
            hip_headers=hip_headers,
            merged_types=_merged_types(identifiers),
            hip_scopes=frozenset(r.hip for r in self.rules if r.hip and r.kind in SCOPE_KINDS),
            include_paths=frozenset(includes) | hip_headers,
            digest=self.digest,
        )

    def find(self, name: str) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if name in (r.cuda, r.hip, r.id))


_TYPE_KINDS = frozenset({RuleKind.TYPE, RuleKind.ENUM, RuleKind.CLASS})
SCOPE_KINDS = _TYPE_KINDS | {RuleKind.NAMESPACE}  # what may precede `::`


def _merged_types(identifiers: Mapping[str, Resolution]) -> frozenset[bytes]:
    """The CUDA type names renamed to a HIP type that another CUDA type name is renamed to too."""
    by_hip: dict[str, list[str]] = {}
    for name, resolution in identifiers.items():
        rule = resolution.rule
        if resolution.rewrites and rule is not None and rule.hip and rule.kind in _TYPE_KINDS:
            by_hip.setdefault(rule.hip, []).append(name)
    return frozenset(name.encode() for names in by_hip.values() if len(names) > 1 for name in names)


def count_list(counts: Iterable[int]) -> str:
    """`1`, `1 or 2`, `2, 3 or 5`: argument counts in a message."""
    words = [str(n) for n in counts]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _overloaded(rules: list[Rule]) -> bool:
    """True when two of a spelling's rules apply to a same ROCm release: the loader lets them only as
    overloads (params with disjoint argument counts)."""
    return any(a.rocm.intersects(b.rocm) for n, a in enumerate(rules) for b in rules[n + 1 :])


_SHIMMABLE = frozenset({Action.UNSUPPORTED, Action.REMOVED, Action.UNAVAILABLE})


class _SingleRules:
    """RuleSet.resolve of a spelling's one rule, for one target: the action is a function of the rule's status
    and releases alone, of which a rule set has a few dozen pairs, so each pair is decided once. A cached rule
    set shares one VersionRange among the rules of equal releases: keyed by its id (the rules keep it alive)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.actions: dict[tuple[int, int], Action] = {}

    def __call__(self, rule: Rule) -> Resolution:
        key = (id(rule.status), id(rule.rocm))  # an enum member hashes in Python
        action = self.actions.get(key)
        if action is None:
            action = self.actions[key] = _one_rule_action(rule, self.settings)
        return _shimmed(action, rule, self.settings)


def _one_rule_action(rule: Rule, settings: Settings) -> Action:
    """What a spelling with this one rule does for the target."""
    return _action(rule, settings) if rule.rocm.covers(settings.rocm) else Action.REMOVED


def _shimmed(action: Action, rule: Rule, settings: Settings) -> Resolution:
    """SHIM where the target has no counterpart and the rule names a shim (unless --no-compat)."""
    if rule.compat and settings.compat and action in _SHIMMABLE:
        return Resolution(Action.SHIM, rule, rule.library, unshimmed=action)
    return Resolution(action, rule, rule.library)


def _action(rule: Rule, settings: Settings) -> Action:
    if rule.status is RuleStatus.UNSUPPORTED:
        return Action.UNSUPPORTED
    if rule.status is RuleStatus.REMOVED:
        return Action.REMOVED
    if not rule.rocm.available(settings.rocm):
        return Action.UNAVAILABLE
    if rule.status is RuleStatus.EXPERIMENTAL and not settings.experimental:
        return Action.KEEP_EXPERIMENTAL
    if rule.status is RuleStatus.DEPRECATED:
        return Action.REWRITE_DEPRECATED
    return Action.REWRITE
