"""Per-file facts and results of `hipconv translate`, kept between runs under the user's cache directory
(resources.cache_dir) in one SQLite file, so that a rerun on an unchanged tree costs little more than
reading and hashing it.

Every key is a digest of what the value was computed from: the file's bytes (as read by this run: the
cache is never trusted over them), its path as shown, hipconv's version and code, the rule data, the
settings, and for a translation the facts of the whole run that a file's translation reads
(Project.digest). Values are pickles. Entries not used for MAX_AGE_DAYS, and the least recently used
ones beyond MAX_BYTES, are evicted at the end of a run. Any trouble with the cache (a read-only home, a
locked or damaged database) only turns it off for the run.

Off with `--no-cache` or HIPCONV_NO_CACHE=1; removing the file (docs/cache.md) empties it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hipconv.resources import cache_dir
from hipconv.version import __version__

FILE_NAME = "files.sqlite3"
MAX_BYTES = 512 * 1024 * 1024
MAX_AGE_DAYS = 30
USED_GRAIN = 3600  # seconds: an entry's last use is kept to the hour
NO_CACHE_ENV = "HIPCONV_NO_CACHE"
_PACKAGE = Path(__file__).resolve().parent


def disabled_by_env() -> bool:
    return os.environ.get(NO_CACHE_ENV, "").strip().lower() not in ("", "0", "no", "false", "off")


@functools.cache
def code_digest() -> str:
    """hipconv's version and the bytes of its code and bundled data: a hipconv that changed (even at the
    same version, in a source checkout) computes new keys."""
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(p for p in _PACKAGE.rglob("*") if p.suffix != ".pyc" and p.is_file()):
        digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def data_digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=20).digest()


def key_of(*parts: str | bytes) -> bytes:
    """One key from its parts (strings and digests)."""
    digest = hashlib.blake2b(digest_size=20)
    for part in parts:
        # a path from a file name that is not UTF-8 holds surrogates: surrogateescape gives its bytes back
        digest.update(part.encode("utf-8", "surrogateescape") if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.digest()


@dataclass
class FileCache:
    """The cache database at `path`; each process (a pool worker too) opens its own connection."""

    path: Path
    _conn: sqlite3.Connection | None = field(default=None, repr=False, compare=False)
    _pid: int = field(default=0, repr=False, compare=False)
    _broken: bool = field(default=False, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:  # a spawned worker opens its own connection
        return {"path": self.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]

    def _connection(self) -> sqlite3.Connection | None:
        if self._broken:
            return None
        if self._conn is None or self._pid != os.getpid():  # not a connection inherited through fork
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS entries "
                    "(key BLOB PRIMARY KEY, value BLOB NOT NULL, size INTEGER NOT NULL, used INTEGER NOT NULL)"
                )
            except (OSError, sqlite3.Error):
                self._broken = True
                return None
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, Any]:
        """The values found for `keys` (unpicklable ones are missing); their entries count as used now."""
        conn = self._connection()
        if conn is None or not keys:
            return {}
        found: dict[bytes, Any] = {}
        try:
            marks = ",".join("?" * len(keys))
            rows = conn.execute(f"SELECT key, value FROM entries WHERE key IN ({marks})", list(keys)).fetchall()
            for key, value in rows:
                with contextlib.suppress(Exception):  # from another Python or a damaged row: computed again
                    found[key] = pickle.loads(value)
            if found:  # an entry used in the last hour is not written again (SQLite rewrites the whole row)
                used, now = ",".join("?" * len(found)), _now()
                conn.execute(
                    f"UPDATE entries SET used = ? WHERE used < ? AND key IN ({used})", [now, now - USED_GRAIN, *found]
                )
        except sqlite3.Error:
            self._broken = True
        return found

    def put_many(self, items: Mapping[bytes, Any]) -> None:
        conn = self._connection()
        if conn is None or not items:
            return
        now = _now()
        rows = []
        for key, value in items.items():
            blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            rows.append((key, blob, len(blob), now))
        try:
            with conn:  # one transaction
                conn.execute("BEGIN")
                conn.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error:
            self._broken = True

    def evict(self, max_bytes: int = MAX_BYTES, max_age_days: float = MAX_AGE_DAYS) -> None:
        """Remove the entries unused for max_age_days, then the least recently used beyond max_bytes."""
        conn = self._connection()
        if conn is None:
            return
        try:
            conn.execute("DELETE FROM entries WHERE used < ?", (_now() - int(max_age_days * 86400),))
            total = conn.execute("SELECT COALESCE(SUM(size), 0) FROM entries").fetchone()[0]
            if total > max_bytes:
                over = total - max_bytes * 3 // 4  # down to three quarters: not at every run
                cutoff = _lru_cutoff(conn.execute("SELECT used, size FROM entries ORDER BY used"), over)
                conn.execute("DELETE FROM entries WHERE used <= ?", (cutoff,))
        except sqlite3.Error:
            self._broken = True

    def close(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
        self._conn = None


def _lru_cutoff(rows: Iterable[tuple[int, int]], over: int) -> int:
    """The last use time up to which the oldest entries add up to `over` bytes."""
    freed, cutoff = 0, 0
    for used, size in rows:
        freed, cutoff = freed + size, used
        if freed >= over:
            break
    return cutoff


def _now() -> int:
    return int(time.time())


def default_cache(enabled: bool = True) -> FileCache | None:
    """The user's cache, or None when it is off (`enabled` False: --no-cache; or HIPCONV_NO_CACHE)."""
    if not enabled or disabled_by_env():
        return None
    return FileCache(cache_dir() / FILE_NAME)
