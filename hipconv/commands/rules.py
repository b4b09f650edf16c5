"""`hipconv rules list|show|coverage|docs`: what the rule set says, as lines of text or JSON-ready records.

A value that names nothing (a library, a status, a rule) is a HipconvError that suggests the closest
known value, or lists the known values when none is close: a typo'd filter is never an empty answer.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hipconv.atomic import write_atomic
from hipconv.diagnostics import NO_RULE, SHIMMED
from hipconv.docs import PAGES, REFRESH, generated_pages
from hipconv.errors import HipconvError
from hipconv.resources import carried_from, hip_headers, hip_names, span_text, templates_dir
from hipconv.results import COMPAT_HEADER
from hipconv.rules import load_ruleset
from hipconv.rules.contracts import contracts
from hipconv.rules.coverage import Coverage, coverage, load_symbols
from hipconv.rules.model import Rule, RuleKind, RuleSet, RuleStatus, VersionRange
from hipconv.settings import Version

_NAME_SUGGESTIONS = 3  # close names offered for an unknown rule name
_SHIMMED = (
    f"uses become {{shim}} of the generated {COMPAT_HEADER} where the targeted ROCm has no counterpart "
    f"(note {SHIMMED}); with --no-compat they are reported instead"
)


def unknown(problem: str, value: str, choices: Collection[str], *, otherwise: str, n: int = 1) -> HipconvError:
    """The error for a `value` that is none of `choices`: `problem`, with the closest choices (up to `n`) as a
    did-you-mean, or, when none is close, the hint `otherwise`."""
    close = close_matches(value, choices, n=n)
    if close:
        return HipconvError(f"{problem}; did you mean {_alternatives(close)}?")
    return HipconvError(problem, hint=otherwise)


def _check_choice(value: str, known: Iterable[str], *, problem: str, listing: str) -> None:
    """Nothing when `value` is one of `known`; else an `unknown` error whose hint lists them after `listing`."""
    choices = sorted(set(known))
    if value not in choices:
        raise unknown(problem, value, choices, otherwise=f"{listing}: {', '.join(choices)}")


def close_matches(value: str, choices: Collection[str], *, n: int = 1) -> list[str]:
    """The known values closest to `value`: those equal to it but for case first, then difflib's closest."""
    folded = value.casefold()
    same = [c for c in choices if c.casefold() == folded]
    near = [c for c in difflib.get_close_matches(value, choices, n=n) if c not in same]
    return (same + near)[:n]


def _alternatives(names: list[str]) -> str:
    quoted = [repr(name) for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def select_rules(ruleset: RuleSet, library: str | None, status: str | None) -> list[Rule]:
    """The rules of `library` with `status` (None: any). A library no rule belongs to, or a status that is
    not RuleStatus's, is a HipconvError with a suggestion."""
    if library is not None:
        libraries = (r.library for r in ruleset.rules)
        _check_choice(library, libraries, problem=f"unknown library {library!r}", listing="valid libraries")
    if status is not None:
        statuses = (s.value for s in RuleStatus)
        _check_choice(status, statuses, problem=f"unknown status {status!r}", listing="valid statuses")
    return [r for r in ruleset.rules if library in (None, r.library) and status in (None, r.status.value)]


def rule_line(rule: Rule) -> str:
    """One line of `rules list`: id, CUDA spelling, HIP spelling, status, ROCm range (tab-separated)."""
    return f"{rule.id}\t{rule.cuda}\t{hip_column(rule)}\t{rule.status.value}\t{rule.rocm}"


def hip_column(rule: Rule) -> str:
    """What a use becomes: the HIP spelling, and the shim of hipconv_compat.h (`hipconv_ldcs (hipconv_compat.h)`)
    for a name hipconv shims where the targeted ROCm has no counterpart; `-` for neither."""
    shim = f"{rule.compat} ({COMPAT_HEADER})" if rule.compat else ""
    return " or ".join(filter(None, (rule.hip, shim))) or "-"


def rule_record(rule: Rule) -> dict[str, Any]:
    """A rule as JSON: every key is always present (null, [] or {} when the rule does not set it)."""
    return {
        "id": rule.id,
        "cuda": rule.cuda,
        "hip": rule.hip,
        # the shim of hipconv_compat.h written where the targeted ROCm has no counterpart (HC011)
        "compat": rule.compat,
        "library": rule.library,
        "section": rule.section,
        "kind": rule.kind.value,
        "status": rule.status.value,
        "rocm": {f.name: _version(getattr(rule.rocm, f.name)) for f in dataclasses.fields(VersionRange)},
        "nvidia": dict(rule.nvidia),
        "note": rule.note or None,
        "params": list(rule.params) if rule.params is not None else None,
        "args": list(rule.args) if rule.args is not None else None,
        "drops": list(rule.drops),
        "optional": list(rule.optional),
        "fill": dict(rule.fill),
        "casts": dict(rule.casts),
        "converts": dict(rule.converts),  # param -> the HIP enum its values are converted to
        # null arguments CUDA accepts and HIP rejects (hipconv/data/library.contracts; HC023)
        "contracts": {c.param: c.note for c in contracts().get(rule.cuda, ())} if rule.hip else {},
        "uncalled": rule.uncalled,
        "tag": rule.tag or None,
        "tagless": rule.tagless,
        "defined_only": rule.defined_only,
        "rewrite_code": rule.rewrite_code,
        "lane_mask": rule.lane_mask,
        "requires_define": rule.requires_define,
        "after": rule.after,
        "template": _template_name(rule.template),
        "scope": rule.scope.value if rule.template is not None else None,  # what the template replaces
        "code": rule.code,
        "origin": rule.origin,
    }


def _version(value: object) -> str | None:
    return None if value is None else str(value)


def _template_name(path: Path | None) -> str | None:
    """As a rule file names it: relative to the bundled templates/, else the path."""
    if path is None:
        return None
    try:
        return path.relative_to(templates_dir()).as_posix()
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class Shown:
    """What `rules show NAME` found: the rules that have NAME as CUDA or HIP spelling or as id, or else
    the CUDA library of an inventory API that no rule covers."""

    name: str
    rules: tuple[Rule, ...]
    no_rule_library: str | None = None  # a CUDA API with no rule: left unchanged with HC001

    def record(self) -> dict[str, Any]:
        no_rule = {"library": self.no_rule_library, "code": NO_RULE} if self.no_rule_library else None
        rules = [dict(rule_record(r), carried_forward=carried_releases(r)) for r in self.rules]
        return {"name": self.name, "rules": rules, "no_rule": no_rule}

    def lines(self) -> Iterator[str]:
        if self.no_rule_library is not None:
            yield f"{self.name}: CUDA API ({self.no_rule_library}) with no rule: left unchanged with warning HC001"
        for rule in self.rules:
            yield f"{rule.id}  ({rule.origin})"
            for key, value in rule_record(rule).items():
                text = _plain(value)
                if key not in ("id", "origin") and text and value is not False:
                    yield f"  {key}: {text}"
            if rule.compat:
                yield f"  shimmed: {_SHIMMED.format(shim=rule.compat)}"
            yield from carried_lines(rule)


def carried_releases(rule: Rule) -> dict[str, str]:
    """The releases of the rule's range whose inventory knows its HIP name (or header) only because it is
    host-only and carries the name forward, each with the release it carries it from."""
    if rule.hip is None:
        return {}
    presence = (hip_headers() if rule.kind is RuleKind.INCLUDE else hip_names()).get(rule.hip)
    releases = presence.carried if presence else ()
    return {
        r: carried_from(r) or "?"
        for r in releases
        if rule.rocm.available(Version.parse(r)) and rule.rocm.covers(Version.parse(r))
    }


def carried_lines(rule: Rule) -> list[str]:
    """`  ROCm 6.4–7.2: carried forward from 6.3 (host-only inventories)` (rules show)."""
    by_source: dict[str, list[str]] = {}
    for release, source in carried_releases(rule).items():
        by_source.setdefault(source, []).append(release)
    return [
        f"  ROCm {span_text(releases)}: carried forward from {source} (host-only inventories)"
        for source, releases in by_source.items()
    ]


def _plain(value: object) -> str:
    """A record's value as text ('' when unset): lists comma-separated, mappings as `key value` pairs."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items() if v is not None)
    return str(value)


def show(ruleset: RuleSet, name: str) -> Shown:
    """Everything known about a CUDA (or HIP) spelling or a rule id; an unknown name is a HipconvError that
    suggests the closest spellings and ids."""
    found = ruleset.find(name)
    if found:
        return Shown(name, found)
    library = ruleset.cuda_api.get(name)
    if library:
        return Shown(name, (), library)
    raise unknown(
        f"no rule for {name!r}",
        name,
        _names(ruleset),
        otherwise="`hipconv rules list` lists every rule (--library and --status narrow it)",
        n=_NAME_SUGGESTIONS,
    )


def _names(ruleset: RuleSet) -> set[str]:
    """What `rules show` accepts: CUDA and HIP spellings, rule ids, CUDA inventory APIs."""
    names = set(ruleset.cuda_api)
    for rule in ruleset.rules:
        names.update((rule.cuda, rule.id))
        if rule.hip:
            names.add(rule.hip)
    return names


def coverage_rows(library: str | None, rocm: Version) -> list[Coverage]:
    """`rules coverage`: one row per CUDA library (or the one asked for, which must have coverage data), for
    ROCm release `rocm`."""
    rows = coverage(load_ruleset(), load_symbols(), rocm)
    if not rows:
        raise HipconvError("no coverage data bundled")
    if library is None:
        return rows
    problem = f"no coverage data for library {library!r}"
    _check_choice(library, (r.library for r in rows), problem=problem, listing="libraries with coverage data")
    return [r for r in rows if r.library == library]


def docs_text() -> str:
    """Every generated page, each after a comment naming its file under docs/."""
    return "".join(f"<!-- docs/{name} -->\n{text}\n" for name, text in generated_pages(load_ruleset()).items())


def update_docs(folder: Path, *, check: bool) -> list[Path]:
    """The generated pages under `folder` (docs/) that are missing or stale, written whole unless `check`.
    A folder that is a file (README.md, where the pages once were spliced) is a HipconvError."""
    if folder.exists() and not folder.is_dir():
        raise HipconvError(
            f"{folder} is a file: the generated pages are whole files in the docs folder",
            hint=f"`{REFRESH}` writes {', '.join(PAGES)} into docs/",
        )
    stale = []
    for name, text in generated_pages(load_ruleset()).items():
        path = folder / name
        data = text.encode("utf-8")
        if path.is_file() and path.read_bytes() == data:
            continue
        stale.append(path)
        if not check:
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(path, data)
    return stale
