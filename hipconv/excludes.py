"""Which paths of an input tree are skipped: `--exclude` patterns (and the configuration's `exclude`) and, with
`--respect-gitignore`, the tree's own .gitignore files, all read with git's ignore rules (pathspec's
GitIgnoreSpec): `*` stays inside one path component and `**` crosses them, a pattern with a slash before its
end is anchored to the tree's root (`/vendor` too), one without matches at any depth, a trailing slash
(`build/`) matches directories only, and `!pattern` takes a path back unless a directory above it is skipped
(git does not look inside a skipped directory, nor does hipconv).

pathspec is imported only when there is something to match (it costs ~50 ms at start-up).
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hipconv.errors import ConfigError

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

GITIGNORE = ".gitignore"


@functools.lru_cache(maxsize=8)
def compile_patterns(lines: tuple[str, ...], where: str = "--exclude") -> GitIgnoreSpec | None:
    """The patterns as one spec (None when there are none); ConfigError naming the first bad pattern."""
    if not lines:
        return None
    from pathspec import GitIgnoreSpec

    for line in lines:
        try:
            GitIgnoreSpec.from_lines([line])
        except (ValueError, re.error) as exc:  # pathspec's GitIgnorePatternError is a ValueError
            raise ConfigError(
                f"{where}: invalid pattern {line!r}: {exc}",
                hint="patterns follow .gitignore rules (`git help gitignore`); escape a literal `!` or `\\` with `\\`",
            ) from None
    return GitIgnoreSpec.from_lines(lines)


@dataclass
class TreeFilter:
    """The exclusion rules of one walk of a tree rooted at `root` (paths are relative to it, with `/`)."""

    root: str
    spec: GitIgnoreSpec | None
    gitignore: bool = False
    _ignores: dict[str, GitIgnoreSpec | None] = field(default_factory=dict)  # directory -> its .gitignore's spec

    @classmethod
    def of(cls, root: str, excludes: tuple[str, ...], *, gitignore: bool = False) -> TreeFilter | None:
        """None when nothing is ever skipped (no patterns, no .gitignore reading): the walk pays nothing."""
        spec = compile_patterns(excludes)
        return cls(root, spec, gitignore) if spec is not None or gitignore else None

    def skips(self, rel: str, *, is_dir: bool) -> bool:
        key = rel + "/" if is_dir else rel
        if self.spec is not None and self.spec.match_file(key):
            return True
        return self.gitignore and self._git_ignores(key)

    def _git_ignores(self, key: str) -> bool:
        """As git decides: the deepest .gitignore with a pattern that matches decides (its last one)."""
        parts = key.rstrip("/").split("/")
        ignored = False
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            spec = self._ignore_of(folder)
            if spec is None:
                continue
            below = key[len(folder) + 1 :] if folder else key
            result = spec.check_file(below)
            if result.include is not None:
                ignored = result.include
        return ignored

    def _ignore_of(self, folder: str) -> GitIgnoreSpec | None:
        if folder not in self._ignores:
            path = os.path.join(self.root, folder, GITIGNORE)
            try:
                with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                    lines = fh.read().splitlines()
            except OSError:
                lines = []
            self._ignores[folder] = compile_patterns(tuple(lines), where=os.path.normpath(path))
        return self._ignores[folder]


def excluded(path: str, patterns: tuple[str, ...]) -> bool:
    """For a file named on the command line (pre-commit passes them one by one): its path as given, made
    relative to the working directory when it is below it."""
    spec = compile_patterns(patterns)
    if spec is None:
        return False
    rel = os.path.normpath(path)
    if os.path.isabs(rel) and rel.startswith(os.getcwd() + os.sep):
        rel = os.path.relpath(rel)
    return spec.match_file(rel.replace(os.sep, "/"))
