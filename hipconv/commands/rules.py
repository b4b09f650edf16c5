"""`hipconv rules list|show|docs`: what the rule set says, as lines of text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from hipconv.docs import generated_sections, splice_sections
from hipconv.errors import HipconvError
from hipconv.output import write_atomic
from hipconv.rules import load_ruleset
from hipconv.rules.model import Rule


def rule_lines(library: str | None, status: str | None) -> Iterator[str]:
    """One line per rule: id, CUDA spelling, HIP spelling, status, ROCm range."""
    for rule in load_ruleset().rules:
        if (library and rule.library != library) or (status and rule.status.value != status):
            continue
        yield f"{rule.id}\t{rule.cuda}\t{rule.hip or '-'}\t{rule.status.value}\t{rule.rocm}"


def show_lines(name: str) -> Iterator[str]:
    """Everything hipconv knows about a CUDA (or HIP) spelling or a rule id."""
    ruleset = load_ruleset()
    found = ruleset.find(name)
    if not found:
        library = ruleset.cuda_api.get(name)
        if not library:
            raise HipconvError(f"no rule for {name!r}")
        yield f"{name}: CUDA API ({library}) with no rule: left unchanged with warning HC001"
        return
    for rule in found:
        yield f"{rule.id}  ({rule.origin})"
        for label, value in _fields(rule):
            if value is not None:
                yield f"  {label}: {value}"


def _fields(rule: Rule) -> tuple[tuple[str, object], ...]:
    return (
        ("cuda", rule.cuda),
        ("hip", rule.hip),
        ("kind", rule.kind.value),
        ("status", rule.status.value),
        ("library", rule.library),
        ("rocm", {k: str(v) for k, v in rule.rocm.items()} or None),
        ("params", rule.params),
        ("args", rule.args),
        ("drops", rule.drops or None),
        ("lane_mask", rule.lane_mask),
        ("requires_define", rule.requires_define),
        ("note", rule.note or None),
    )


def docs_text() -> str:
    """The generated Markdown sections, each under its marker name."""
    return "".join(f"<!-- {name} -->\n{text}\n" for name, text in generated_sections(load_ruleset()).items())


def update_docs(path: Path, *, check: bool) -> bool:
    """Splice the generated sections into path; with `check`, write nothing. True when the file was current."""
    current = path.read_text(encoding="utf-8")
    updated = splice_sections(current, generated_sections(load_ruleset()), str(path))
    if not check and updated != current:
        write_atomic(path, updated.encode("utf-8"))
    return updated == current
