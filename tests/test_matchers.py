"""The matcher registry (hipconv.translate.matchers): a module there that MATCHERS does not list would
never run, and one listed twice would report everything twice."""

from __future__ import annotations

from pathlib import Path

from hipconv.translate import matchers
from hipconv.translate.matchers import MATCHERS


def test_every_matcher_module_is_registered_once() -> None:
    modules = {p.stem for p in Path(matchers.__file__).parent.glob("*.py") if p.stem != "__init__"}
    registered = [m.__module__.rpartition(".")[2] for m in MATCHERS]
    assert sorted(registered) == sorted(modules)
    assert all(m.__name__ == "match" for m in MATCHERS)


def test_runtime_include_runs_last() -> None:
    # it reads what every other matcher found: the defines, shims and edits that need the runtime header
    assert MATCHERS[-1].__module__ == "hipconv.translate.matchers.runtime_include"
    assert MATCHERS[0].__module__ == "hipconv.translate.matchers.includes"  # it takes the include lines
