"""Markdown generated from the code and the rules (`hipconv rules docs`); README.md and docs/codes.md
embed it between markers, and a test keeps them current."""

from __future__ import annotations

import collections

from hipconv.buildfiles.flag_table import flag_table_markdown
from hipconv.code_pages import code_markdown
from hipconv.diagnostics import CODES, CUDNN_NO_REWRITE
from hipconv.errors import ConfigError
from hipconv.resources import hip_releases
from hipconv.rules.coverage import coverage as library_coverage
from hipconv.rules.coverage import load_symbols
from hipconv.rules.model import RuleKind, RuleSet, RuleStatus, Scope
from hipconv.settings import Version

_BEGIN, _END = "<!-- BEGIN generated: {} -->", "<!-- END generated: {} -->"


def generated_sections(ruleset: RuleSet) -> dict[str, str]:
    """Markdown derived from the code and the rules; README.md embeds it (a test keeps it current)."""
    codes = ["| code | severity | meaning |", "| --- | --- | --- |"]
    codes += [f"| {c.code} | {c.severity.value} | {c.title} |" for c in CODES.values()]
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for rule in ruleset.rules:
        counts[rule.library][rule.status.value] += 1
    statuses = [s.value for s in RuleStatus]
    coverage = [
        "| family | rules | " + " | ".join(statuses) + " |",
        "| --- | ---: | " + " | ".join("---:" for _ in statuses) + " |",
    ]
    for library in sorted(counts):
        row = counts[library]
        coverage.append(f"| {library} | {sum(row.values())} | " + " | ".join(str(row[s]) for s in statuses) + " |")
    libraries = [
        "| library | CUDA symbols | with a rule | translated | not translated | HIP twin but no rule |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    newest = hip_releases()[-1]
    libraries += [
        f"| {row.library} | {row.symbols} | {row.with_rule} | {row.supported} | {row.unsupported} | "
        f"{len(row.twins_without_rule)} |"
        for row in library_coverage(ruleset, load_symbols(), Version.parse(newest))
    ]
    return {
        "codes": "\n".join(codes) + "\n",
        "coverage": "\n".join(coverage) + "\n",
        "libraries": "\n".join(libraries) + "\n",
        "nvcc-flags": flag_table_markdown(),
        "cudnn": cudnn_markdown(ruleset),
        "code-pages": "\n".join(code_markdown(c) for c in CODES.values()),
    }


def cudnn_markdown(ruleset: RuleSet) -> str:
    """The cuDNN functions: how each translated one is rewritten, and the unsupported ones grouped by reason."""
    rows = ["| cuDNN function | MIOpen | rewrite |", "| --- | --- | --- |"]
    unsupported: dict[str, list[str]] = collections.defaultdict(list)
    for rule in sorted(ruleset.rules, key=lambda r: r.cuda):
        if rule.library != "cudnn" or rule.kind is not RuleKind.FUNCTION:
            continue
        if rule.hip is None:
            unsupported[f"{rule.code or CUDNN_NO_REWRITE}: {rule.note or ''}"].append(f"`{rule.cuda}`")
            continue
        how = (
            f"template `{rule.template.parent.name}/{rule.template.name}`"
            + (" (statement)" if rule.scope is Scope.STATEMENT else "")
            if rule.template
            else "arguments reordered" + (f", drops {', '.join(rule.drops)}" if rule.drops else "")
            if rule.args
            else "renamed"
        )
        rows.append(f"| `{rule.cuda}` | `{rule.hip}` | {how} |")
    lines = rows + ["", "Unsupported (left unchanged, reported with the code shown):", ""]
    lines += [f"- {reason} — {', '.join(names)}" for reason, names in sorted(unsupported.items())]
    return "\n".join(lines) + "\n"


def splice_sections(text: str, sections: dict[str, str], where: str) -> str:
    """The sections whose markers the text holds (README.md: all but the code pages; docs/codes.md: those),
    replaced by their new bodies; a ConfigError when it holds none, or a marker without its pair."""
    spliced = 0
    for name, body in sections.items():
        begin, end = _BEGIN.format(name), _END.format(name)
        start, stop = text.find(begin), text.find(end)
        if start == stop == -1:
            continue
        if start == -1 or stop == -1 or stop < start:
            raise ConfigError(f"{where} has no '{begin}' ... '{end}' section")
        text = text[: start + len(begin)] + "\n" + body + text[stop:]
        spliced += 1
    if not spliced:
        raise ConfigError(f"{where} has no generated section", hint=f"sections: {', '.join(sections)}")
    return text
