"""Library coverage: how many of a CUDA library's symbols have a rule, and which twins lack one.

The symbol list (hipconv/data/cuda.symbols: library, CUDA name, HIP twin found in the
inventory) is derived by tools/derive_rules.py; the rules are the ones loaded now, resolved for one
ROCm release as a translation for it resolves them.
"""

from __future__ import annotations

from dataclasses import dataclass

from hipconv.resources import data_file
from hipconv.rules.model import Action, Resolution, RuleSet
from hipconv.settings import Settings, Version

SYMBOLS_FILE = "cuda.symbols"
_PORTED = frozenset({Action.REWRITE, Action.REWRITE_DEPRECATED, Action.KEEP_EXPERIMENTAL})


@dataclass(frozen=True)
class Coverage:
    library: str
    symbols: int  # CUDA symbols of the library in the inventory
    with_rule: int  # a member (cub::X::Y) counts when its longest prefix with a rule (cub::X) has one
    supported: int  # among those with a rule: translated for the release (supported, deprecated or experimental)
    unsupported: int  # among those with a rule: not translated for it (unsupported, removed, or not yet in it)
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


def _ported(resolution: Resolution) -> bool:
    """The rule translates the name for the release (one of its overloads does, for a name with several)."""
    if resolution.overloads is not None:
        return any(_ported(r) for r in resolution.overloads.by_count.values())
    return resolution.action in _PORTED


def coverage(ruleset: RuleSet, symbols: list[tuple[str, str, str]], rocm: Version) -> list[Coverage]:
    """Per CUDA library, what the rules do with its symbols for ROCm release `rocm`."""
    resolved = {
        name: res for name, res in ruleset.table(Settings(rocm)).identifiers.items() if res.action is not Action.NO_RULE
    }
    per_library: dict[str, list[tuple[str, str]]] = {}
    for library, name, twin in symbols:
        per_library.setdefault(library, []).append((name, twin))

    def covering(name: str) -> Resolution | None:
        """The resolution of the rule that applies to name: its own, else its longest qualified prefix's."""
        while True:
            if name in resolved:
                return resolved[name]
            if "::" not in name:
                return None
            name = name.rsplit("::", 1)[0]

    rows = []
    for library in sorted(per_library):
        entries = per_library[library]
        ruled = [res for name, _ in entries if (res := covering(name)) is not None]
        rows.append(
            Coverage(
                library=library,
                symbols=len(entries),
                with_rule=len(ruled),
                supported=sum(1 for res in ruled if _ported(res)),
                unsupported=sum(1 for res in ruled if not _ported(res)),
                twins_without_rule=tuple(sorted(name for name, twin in entries if twin and covering(name) is None)),
            )
        )
    return rows
