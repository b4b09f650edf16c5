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
from hipconv.regular_files import NotRegular, read_regular
from hipconv.text_lines import text_lines

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

GITIGNORE = ".gitignore"
GITIGNORE_LIMIT = 1024 * 1024  # bytes of patterns read from one .gitignore (the rest is cut, with a note)


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
    _notes: list[tuple[str, str]] = field(default_factory=list)  # (a .gitignore, what of it was not read)

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
            self._ignores[folder] = compile_patterns(self._lines(path), where=os.path.normpath(path))
        return self._ignores[folder]

    def _lines(self, path: str) -> tuple[str, ...]:
        """The lines of a .gitignore that is a regular file: a symbolic link is not followed (git follows none:
        it could lead out of the tree, to /dev/zero), a FIFO never waited on, and no more than GITIGNORE_LIMIT
        bytes read (whole lines); each of these is noted (take_notes)."""
        try:
            found = read_regular(path, limit=GITIGNORE_LIMIT)
        except NotRegular as exc:
            self._notes.append((path, f"{exc.strerror}; not read as an ignore file (git does not read one either)"))
            return ()
        except OSError:
            return ()
        text = found.data.decode("utf-8", "surrogateescape")
        if found.cut:
            text = text[: text.rfind("\n") + 1]
            kept = f"only the patterns of its first {GITIGNORE_LIMIT} bytes are used"
            self._notes.append((path, f"{found.size} bytes, more than an ignore file is read: {kept}"))
        return tuple(text_lines(text))

    def take_notes(self) -> list[tuple[str, str]]:
        """(path, why) for each .gitignore not read, or read in part, since the last call."""
        notes, self._notes = self._notes, []
        return notes


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
