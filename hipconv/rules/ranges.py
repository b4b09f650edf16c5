"""Release ranges (`--rocm-version LOW..HIGH`): one lookup table for a tree that builds on every bundled ROCm
release from LOW to HIGH (docs/release-ranges.md).

Every rule is resolved for each release of the range. A name on which they all agree is translated as
for HIGH (Settings.rocm). A name whose HIP spelling differs between them (hipBLAS's `_v2` forms of ROCm
6.x, `hipHostMalloc` that became `hipHostAlloc`, `hipblas.h` that moved to `hipblas/hipblas.h`) becomes a
macro of hipconv_compat.h, `hipconv_r_<cuda name>`, defined under `#if HIP_VERSION >= ...` guards by the
releases where each spelling applies; the source uses the macro (Action.SHIM, so that the matchers write it
and include the header as they do for a shim). A name that some release of the range lacks, or spells with
other arguments that no macro of one name can express, is kept as HIGH translates it and reported (HC037)
with the releases where it would not build. Without a range, run_table is RuleSet.table: nothing here runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from hipconv.resources import releases_between, span_text
from hipconv.rules.model import Action, LookupTable, Resolution, Rule, RuleKind, RuleSet
from hipconv.settings import Settings, Version

RANGE_PREFIX = "hipconv_r_"  # the macros of hipconv_compat.h that stand for a name spelled per release
_REWRITES = (Action.REWRITE, Action.REWRITE_DEPRECATED)
_HAS_COUNTERPART = (*_REWRITES, Action.SHIM)


def run_table(ruleset: RuleSet, settings: Settings) -> LookupTable:
    """The run's lookup table: RuleSet.table for one release; for a range, HIGH's with the names that differ
    in the range made macros (LookupTable.ranged) or reported (LookupTable.gaps). Only the names whose rules
    change within the range (several rules, or one whose releases start or end inside it) are resolved again,
    for each release of the range."""
    base = ruleset.table(settings)
    if settings.rocm_range is None:
        return base
    low, high = settings.rocm_range
    each = {r: replace(settings, rocm=Version.parse(r), rocm_range=None) for r in releases_between(low, high)}
    identifiers, includes = dict(base.identifiers), dict(base.includes)
    ranged: dict[str, str] = {}
    gaps: dict[str, str] = {}
    for name, rules in _varying(ruleset, low, high):
        found = includes if rules[0].kind is RuleKind.INCLUDE else identifiers
        resolution = found[name]
        per = {r: ruleset.resolve(rules, release) for r, release in each.items()}
        if len({_signature(p) for p in per.values()}) == 1:
            continue
        merged = _merge(name, resolution, per, include=found is includes)
        if isinstance(merged, Ranged):
            found[name] = merged.resolution
            ranged[merged.macro] = merged.header
        elif merged is not None:
            gaps[name] = merged
    return replace(base, identifiers=identifiers, includes=includes, ranged=ranged, gaps=gaps)


def _varying(ruleset: RuleSet, low: Version, high: Version) -> list[tuple[str, list[Rule]]]:
    """Each CUDA spelling (identifier or header path) whose rules may resolve differently between low and high."""
    grouped: dict[tuple[bool, str], list[Rule]] = {}
    for rule in ruleset.rules:
        grouped.setdefault((rule.kind is RuleKind.INCLUDE, rule.cuda), []).append(rule)
    return [
        (name, rules)
        for (_, name), rules in grouped.items()
        if len(rules) > 1 or any(v is not None and low < v <= high for _, v in rules[0].rocm.items())
    ]


@dataclass(frozen=True)
class Ranged:
    """A name spelled per release: the resolution the source gets (the macro), and the macro's definition."""

    macro: str
    resolution: Resolution
    header: str


def macro_name(cuda: str, *, include: bool = False) -> str:
    """`hipconv_r_cublasCgemm`; for a header path, `hipconv_r_include_cublas_v2_h`."""
    word = re.sub(r"\W", "_", cuda)
    return f"{RANGE_PREFIX}{'include_' if include else ''}{word}"


def guard_value(release: str) -> int:
    """HIP_VERSION of a release's first build (hip/hip_version.h: major * 10000000 + minor * 100000 + patch)."""
    major, minor = (int(p) for p in release.split(".")[:2])
    return major * 10_000_000 + minor * 100_000


def _signature(resolution: Resolution) -> tuple[object, ...]:
    """What decides the text a release writes for a name: the action and the rule (by identity: every table
    of the run is made from the same rule set), overloads each by count."""
    overloads = resolution.overloads
    counts = tuple((n, _signature(r)) for n, r in overloads.by_count.items()) if overloads else ()
    return resolution.action, id(resolution.rule), counts


def _merge(name: str, base: Resolution, per: Mapping[str, Resolution], *, include: bool) -> Ranged | str | None:
    """A name the releases of the range translate differently: a macro (Ranged) where each release renames
    it with the same arguments, else why it cannot build on some (HC037's message), else None (HIGH does not
    translate it either: its own diagnostic says so; or every release writes the same spelling)."""
    if base.action not in _HAS_COUNTERPART:
        return None
    lacking = [r for r, res in per.items() if res.action not in _HAS_COUNTERPART]
    if lacking:
        return f"ROCm {span_text(lacking)} {'has' if len(lacking) == 1 else 'have'} no counterpart (no shim either)"
    rules = {r: res.rule for r, res in per.items() if res.rule is not None and res.action in _REWRITES}
    if len(rules) != len(per) or base.rule is None:
        shimmed = [r for r, res in per.items() if res.action is Action.SHIM]
        verb = "has" if len(shimmed) == 1 else "have"
        return f"ROCm {span_text(shimmed)} {verb} it only as a shim of hipconv_compat.h"
    unfit = [r for r, rule in rules.items() if not _renamable(rule)]
    if unfit or len({rule.params for rule in rules.values()}) > 1:
        forms = ", ".join(f"{rule.hip} in ROCm {span_text(rs)}" for rule, rs in reversed(_groups(rules)))
        return f"its calls take other arguments across the range ({forms}), which no one macro spells"
    if len(_groups(rules)) == 1:  # the same spelling everywhere (a deprecation differs): HIGH's is everyone's
        return None
    macro = macro_name(name, include=include)
    rule = replace(base.rule, compat=macro, params=None, args=None, casts={}, optional=())
    header = _definitions(name, macro, rules, include=include)
    return Ranged(macro, Resolution(Action.SHIM, rule, rule.library, unshimmed=base.action), header)


def _renamable(rule: Rule) -> bool:
    """A rule whose rewrite is its HIP name, with the call's arguments as they are (cast at most)."""
    plain_args = rule.params is None or (rule.args == rule.params and not rule.drops and not rule.fill)
    return (
        rule.hip is not None
        and rule.template is None
        and not rule.converts
        and rule.requires_define is None
        and rule.tag is None
        and plain_args
    )


def _groups(rules: Mapping[str, Rule]) -> list[tuple[Rule, list[str]]]:
    """Consecutive releases that write a name alike, newest first."""
    groups: list[tuple[Rule, list[str]]] = []
    for release, rule in rules.items():
        if groups and _definition_key(groups[-1][0]) == _definition_key(rule):
            groups[-1][1].append(release)
        else:
            groups.append((rule, [release]))
    return groups[::-1]


def _definition_key(rule: Rule) -> tuple[object, ...]:
    return rule.hip, tuple(sorted(rule.casts.items()))


def _definitions(cuda: str, macro: str, rules: Mapping[str, Rule], *, include: bool) -> str:
    """The guarded definitions of one macro (an include: the guarded #include lines), newest release first."""
    groups = _groups(rules)
    lines = [f"// {cuda}: " + "; ".join(f"{rule.hip} in ROCm {span_text(rs)}" for rule, rs in reversed(groups))]
    for n, (rule, releases) in enumerate(groups):
        if n == len(groups) - 1:
            lines.append("#else")
        else:
            lines.append(f"#{'if' if n == 0 else 'elif'} HIP_VERSION >= {guard_value(releases[0])}")
        lines.append(f"#include <{rule.hip}>" if include else _define(macro, rule))
    lines.append("#endif")
    return "\n".join(lines)


def _define(macro: str, rule: Rule) -> str:
    """`#define M hip`, or, where the release's function takes other pointer types of the same layout (its
    rule's casts), a function-like macro that casts them."""
    if not rule.casts or rule.params is None:
        return f"#define {macro} {rule.hip}"
    params = ", ".join(rule.params)
    args = ", ".join(f"reinterpret_cast<{rule.casts[p]}>({p})" if p in rule.casts else p for p in rule.params)
    return f"#define {macro}({params}) {rule.hip}({args})"


def range_label(settings: Settings) -> str | None:
    """`5.2..7.2` for a range, else None."""
    span = settings.rocm_range
    return None if span is None else f"{span[0]}..{span[1]}"


def header_texts(table: LookupTable, shims: Sequence[str] | frozenset[str] | set[str]) -> dict[str, str]:
    """The definitions of the range macros among a run's shims (compat_header writes them)."""
    return {s: table.ranged[s] for s in shims if s in table.ranged}
