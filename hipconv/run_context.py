"""What every batch of a run is computed with (Context), and the run's rule table, loaded only when a
file needs it (LazyTable): hipconv.pipeline and its project pass (hipconv.gather) share them."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from hipconv.collector import made_to_last
from hipconv.filecache import FileCache, code_digest, key_of
from hipconv.results import Job
from hipconv.rules import cached_ruleset_digest, load_ruleset, ranges
from hipconv.rules.ranges import run_table
from hipconv.settings import Settings
from hipconv.translate.project import NO_PROJECT, Project

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hipconv.rules.model import LookupTable


@dataclass(frozen=True)
class LazyTable:
    """A run's rule table, loaded when a file first needs it: a rerun whose files are all found in the
    cache never loads it (only its digest, part of every cache key, is needed)."""

    digest: str
    rules_dirs: tuple[Path, ...]
    settings: Settings

    @functools.cached_property
    def table(self) -> LookupTable:  # kept by the instance, which every Context of the run shares
        return loaded_table(self.rules_dirs, self.settings, self.digest)


def loaded_table(rules_dirs: Sequence[Path], settings: Settings, digest: str | None = None) -> LookupTable:
    """The run's table from its rule set in the rules cache: its objects (some 60,000) live as long as the
    run, and decoding a cached rule set makes no cycles (hipconv.collector.made_to_last). `digest`: the rule
    set's, found at the start of the run."""
    with made_to_last():
        return run_table(load_ruleset(rules_dirs, digest), settings)


def lazy_table(rules_dirs: Sequence[Path], settings: Settings) -> LookupTable | LazyTable:
    """The run's rule table: lazy when its rule set is in the rules cache (loading it cannot fail then),
    else loaded now, so that a rule file in error stops the run before anything is written."""
    digest = cached_ruleset_digest(rules_dirs)
    if digest is None:
        return run_table(load_ruleset(rules_dirs), settings)
    return LazyTable(digest, tuple(rules_dirs), settings)


def range_macros(rules: LookupTable | LazyTable, shims: set[str]) -> dict[str, str]:
    """The definitions of a release range's macros among the run's shims (hipconv.rules.ranges)."""
    return ranges.header_texts(rules.table if isinstance(rules, LazyTable) else rules, shims)


@dataclass(frozen=True)
class Context:
    """What every batch of a run is computed with (a pool worker gets it once)."""

    rules: LookupTable | LazyTable
    settings: Settings
    project: Project = NO_PROJECT
    cache: FileCache | None = None  # per-file facts and results kept between runs (hipconv.filecache)
    masks: frozenset[bytes] = frozenset()  # the names passed as a lane mask in the run (masks_batch)

    @property
    def table(self) -> LookupTable:
        return self.rules.table if isinstance(self.rules, LazyTable) else self.rules

    def key(self, kind: str, job: Job, digest: bytes, *extra: str | bytes) -> bytes | None:
        """The cache key of a `kind` of value computed from job's bytes of this `digest` (None: not cached)."""
        if self.cache is None or not self.rules.digest:
            return None
        return key_of(kind, self.run_key, job.display, digest, *extra)

    @property
    def usable_cache(self) -> FileCache | None:
        """The cache, when keys can be made (the rule set has a digest)."""
        return self.cache if self.rules.digest else None

    @functools.cached_property
    def run_key(self) -> bytes:
        """The part of every key that the run decides: hipconv's code, the rules, the settings (all of them
        but the number of jobs, which changes no output)."""
        return key_of(code_digest(), self.rules.digest, repr(replace(self.settings, jobs=1)))
