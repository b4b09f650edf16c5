"""Library coverage: how many of a CUDA library's symbols have a rule, and which twins lack one.

The symbol list (hipconv/data/cuda-13.symbols: library, CUDA name, HIP twin found in the
inventory) is derived by tools/derive_rules.py; the rules are the ones loaded now.
"""

from __future__ import annotations

from dataclasses import dataclass

from hipconv.resources import data_file
from hipconv.rules.model import RuleKind, RuleSet, RuleStatus

SYMBOLS_FILE = "cuda-13.symbols"
_PORTED = frozenset({RuleStatus.SUPPORTED, RuleStatus.DEPRECATED, RuleStatus.EXPERIMENTAL})


@dataclass(frozen=True)
class Coverage:
    library: str
    symbols: int  # CUDA symbols of the library in the inventory
    with_rule: int  # a member (cub::X::Y) counts when its longest prefix with a rule (cub::X) has one
    supported: int  # among those with a rule: translated (supported, deprecated or experimental)
    unsupported: int  # among those with a rule: unsupported or removed
    twins_without_rule: tuple[str, ...]  # CUDA names whose HIP twin exists but that no rule covers


def load_symbols() -> list[tuple[str, str, str]]:
    path = data_file(SYMBOLS_FILE)
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        library, name, twin = (line.split("\t") + ["", ""])[:3]
        if name:
            rows.append((library, name, twin))
    return rows


def coverage(ruleset: RuleSet, symbols: list[tuple[str, str, str]]) -> list[Coverage]:
    rules_by_name: dict[str, list[RuleStatus]] = {}
    for rule in ruleset.rules:
        if rule.kind is not RuleKind.INCLUDE:
            rules_by_name.setdefault(rule.cuda, []).append(rule.status)
    per_library: dict[str, list[tuple[str, str]]] = {}
    for library, name, twin in symbols:
        per_library.setdefault(library, []).append((name, twin))

    def covering(name: str) -> list[RuleStatus] | None:
        """The statuses of the rule that applies to name: its own, else its longest qualified prefix's."""
        while True:
            if name in rules_by_name:
                return rules_by_name[name]
            if "::" not in name:
                return None
            name = name.rsplit("::", 1)[0]

    rows = []
    for library in sorted(per_library):
        entries = per_library[library]
        ruled = [(name, statuses) for name, _ in entries if (statuses := covering(name)) is not None]
        rows.append(
            Coverage(
                library=library,
                symbols=len(entries),
                with_rule=len(ruled),
                supported=sum(1 for _, statuses in ruled if any(s in _PORTED for s in statuses)),
                unsupported=sum(1 for _, statuses in ruled if not any(s in _PORTED for s in statuses)),
                twins_without_rule=tuple(sorted(name for name, twin in entries if twin and covering(name) is None)),
            )
        )
    return rows
