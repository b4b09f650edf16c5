"""Per-file facts and results of `hipconv translate`, kept between runs under the user's cache directory
(resources.cache_dir) in one SQLite file, so that a rerun on an unchanged tree costs little more than
reading and hashing it.

Every key is a digest of what the value was computed from: the file's bytes (as read by this run: the
cache is never trusted over them), its path as shown, hipconv's version and code, the rule data, the
settings, and for a translation the facts of the whole run that a file's translation reads
(Project.digest), and the releases of the libraries it runs (libclang, jinja2: hipconv.cache_format).
Values are JSON, each sealed with a checksum of its key and bytes (hipconv.cache_format), never pickles. Entries
not used for MAX_AGE_DAYS, and the least recently used ones beyond MAX_BYTES, are evicted at the end of a
run. Any trouble with the cache (a read-only home, a locked database) only turns it off for the run.

Damage (a value whose checksum does not match, a database SQLite finds malformed or that is not one) is never
served: the value is computed again, and the process that finds it writes why to DAMAGE_FILE beside the
database (pool workers too). At the end of the run (evict, in the main process) a damaged database is
removed and started again empty, and `notices` says so, once, for the command to show.

Off with `--no-cache` or HIPCONV_NO_CACHE=1; removing the file (docs/cache.md) empties it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hipconv.cache_format import Damaged, library_versions, seal, unseal
from hipconv.resources import cache_dir
from hipconv.version import __version__

FILE_NAME = "files.sqlite3"
MAX_BYTES = 512 * 1024 * 1024
MAX_AGE_DAYS = 30
USED_GRAIN = 3600  # seconds: an entry's last use is kept to the hour
NO_CACHE_ENV = "HIPCONV_NO_CACHE"
# beside the database, why it is damaged (the first process to find it writes it): the database as SQLite
# reads it (it is started again), or entries that did not match their checksum (removed when found)
DAMAGE_SUFFIX, MISMATCH_SUFFIX = ".damaged", ".mismatched"
_SQLITE_DAMAGE = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB
_PACKAGE = Path(__file__).resolve().parent


def disabled_by_env() -> bool:
    return os.environ.get(NO_CACHE_ENV, "").strip().lower() not in ("", "0", "no", "false", "off")


@functools.cache
def code_digest() -> str:
    """hipconv's version and the bytes of its code and bundled data, and the releases of libclang, jinja2 and
    PyYAML: a hipconv that changed (even at the same version, in a source checkout), or that runs another
    libclang, computes new keys."""
    digest = hashlib.sha256(__version__.encode() + b"\0" + library_versions().encode())
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
    notices: list[str] = field(default_factory=list, repr=False, compare=False)  # what the command says

    def __getstate__(self) -> dict[str, Any]:  # a spawned worker opens its own connection
        return {"path": self.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]

    def _beside(self, suffix: str) -> Path:
        return self.path.with_name(self.path.name + suffix)

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
            except (OSError, sqlite3.Error) as exc:
                self._failed(exc)
                return None
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def _failed(self, exc: Exception) -> None:
        """The cache is off for the rest of this process's run; for good reason noted when it is damaged."""
        self._broken = True
        code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11; before it, the message says
        if isinstance(exc, sqlite3.DatabaseError) and (
            code in _SQLITE_DAMAGE or code is None and any(w in str(exc) for w in ("malformed", "not a database"))
        ):
            self._note_damage(DAMAGE_SUFFIX, f"SQLite reads it as damaged: {exc}")

    def _note_damage(self, suffix: str, why: str) -> None:
        with contextlib.suppress(OSError):  # the first process to find damage says why
            fd = os.open(self._beside(suffix), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(why)

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, Any]:
        """The values found for `keys` (damaged ones are missing, and removed); their entries count as used now."""
        conn = self._connection()
        if conn is None or not keys:
            return {}
        found: dict[bytes, Any] = {}
        damaged: list[bytes] = []
        try:
            marks = ",".join("?" * len(keys))
            rows = conn.execute(f"SELECT key, value FROM entries WHERE key IN ({marks})", list(keys)).fetchall()
            for key, value in rows:
                try:
                    found[key] = unseal(key, value)
                except Damaged:
                    damaged.append(key)
            if damaged:
                self._note_damage(MISMATCH_SUFFIX, "an entry did not match its checksum")
                conn.execute(f"DELETE FROM entries WHERE key IN ({','.join('?' * len(damaged))})", damaged)
            if found:  # an entry used in the last hour is not written again (SQLite rewrites the whole row)
                used, now = ",".join("?" * len(found)), _now()
                conn.execute(
                    f"UPDATE entries SET used = ? WHERE used < ? AND key IN ({used})", [now, now - USED_GRAIN, *found]
                )
        except sqlite3.Error as exc:
            self._failed(exc)
            return {}
        return found

    def put_many(self, items: Mapping[bytes, Any]) -> None:
        conn = self._connection()
        if conn is None or not items:
            return
        now = _now()
        rows = []
        for key, value in items.items():
            blob = seal(key, value)
            rows.append((key, blob, len(blob), now))
        try:
            with conn:  # one transaction
                conn.execute("BEGIN")
                conn.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            self._failed(exc)

    def evict(self, max_bytes: int = MAX_BYTES, max_age_days: float = MAX_AGE_DAYS) -> None:
        """Remove the entries unused for max_age_days, then the least recently used beyond max_bytes. Called
        once a run, by its main process: a database found damaged is started again (renew)."""
        if self._beside(DAMAGE_SUFFIX).exists():
            self.renew()
        elif self._beside(MISMATCH_SUFFIX).exists():
            self.notices.append(
                f"the translation cache {self.path} was damaged ({_taken(self._beside(MISMATCH_SUFFIX))}): "
                "no damaged value was used, and those entries were computed again"
            )
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
        except sqlite3.Error as exc:
            self._failed(exc)

    def renew(self) -> None:
        """Remove the damaged database (and its journal files), and say so in `notices`; the next use makes a
        new one. A value it held was never served: each is checked against its digest."""
        why = _taken(self._beside(DAMAGE_SUFFIX))
        with contextlib.suppress(OSError):
            self._beside(MISMATCH_SUFFIX).unlink()
        self.close()
        try:
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    self._beside(suffix).unlink()
        except OSError as exc:
            self._broken = True
            done = f"it could not be removed ({exc.strerror or exc}): delete it to start it again"
        else:
            self._broken = False
            done = "it was emptied, to be filled again"
        self.notices.append(
            f"the translation cache {self.path} was damaged ({why}); no damaged value was used, and {done}"
        )

    def close(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
        self._conn = None


def _taken(path: Path) -> str:
    """What a damage file says (its first 200 characters), the file removed: said once."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            why = fh.read(200)
        path.unlink()
    except OSError:
        return "unreadable"
    return why


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
