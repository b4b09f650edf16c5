"""Validated rule sets kept under the user's cache directory, keyed by the exact bytes of every input, so
a start-up (a pre-commit hook, a CI step) skips YAML parsing. An entry is JSON sealed with its digest
(hipconv.cache_format), laid out by hipconv.rules.stored, never a pickle: a damaged or altered entry is built
again and rewritten.

The inputs are the rule files, and every file under the folders their templates are read from (a rule
folder, templates/): a template that is not `*.j2`, or one that another pulls in with `{% include %}`,
counts too (a template lies in its rule folder: hipconv.rules.load); and the releases of jinja2 and
PyYAML, which read them.

The key covers the code too: every module of this package and the hipconv modules it imports (BUILD_MODULES),
and the bundled conversions whose names `converts:` is checked against, so that a fixed loader or validator
never serves a rule set that the old code built.

The cache stays small: entries are named rules-<hipconv version>-<key>.json; writing one removes
the entries of other versions (and of the unversioned names used before), all but the
KEEP_ENTRIES most recently used of this version (a hit refreshes an entry's time), and temporary
files older than STALE_TMP_SECONDS that a killed run left.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from hipconv.cache_format import Damaged, library_versions, seal_plain, unseal_plain
from hipconv.resources import cache_dir, data_files, templates_dir
from hipconv.rules.conversions import SUFFIX as CONVERSION_SUFFIX
from hipconv.rules.model import RuleSet
from hipconv.rules.stored import from_data, to_data
from hipconv.version import __version__

KEEP_ENTRIES = 4  # rule sets of this version: the bundled one, a few --rules-dir combinations
STALE_TMP_SECONDS = 600
RULES_PACKAGE = Path(__file__).resolve().parent
# the hipconv modules outside this package that building a rule set imports (tests/test_ruleset.py checks
# the list): CODES checks a rule's `code:`, Version is stored in its version ranges, cache_format and
# cache_records seal the entry
BUILD_MODULES = (
    "cache_format.py",
    "cache_records.py",
    "diagnostics.py",
    "errors.py",
    "resources.py",
    "settings.py",
    "version.py",
)
ENTRY_SUFFIX = ".json"
_SEAL_KEY = b"rules"


def cached(
    inputs: Iterable[Path], template_dirs: Iterable[Path], build: Callable[[], RuleSet], known: str | None = None
) -> RuleSet:
    """The rule set built from `inputs` (and the templates under `template_dirs`), from the cache when
    none of their bytes changed. `known`: their digest, worked out earlier in the run (its entry is read
    without hashing the inputs again; when it is not there, the digest is worked out anew)."""
    found = _entry(known) if known is not None else None
    if found is not None:
        return found
    digest = inputs_digest(inputs, template_dirs)
    if digest is None:
        return build()
    found = _entry(digest) if digest != known else None  # (`known`'s entry was read above)
    if found is not None:
        return found
    cache = entry_path(digest)  # missing, unreadable, damaged or altered: built again and rewritten
    ruleset = replace(build(), digest=digest)
    if store_entry(cache, _SEAL_KEY + digest.encode(), to_data(ruleset)):
        evict(cache.parent, keep=cache)
    return ruleset


def _entry(digest: str) -> RuleSet | None:
    """The rule set kept under the digest (None: missing, unreadable, damaged or altered)."""
    cache = entry_path(digest)
    try:
        found = from_data(unseal_plain(_SEAL_KEY + digest.encode(), cache.read_bytes()))
    except (OSError, Damaged):
        return None
    with contextlib.suppress(OSError):
        os.utime(cache)  # recently used: kept by evict()
    return replace(found, digest=digest)


def inputs_digest(inputs: Iterable[Path], template_dirs: Iterable[Path]) -> str | None:
    """The digest of everything a rule set is built from and its templates render from (None: an input
    cannot be read)."""
    digest = hashlib.sha256(__version__.encode() + b"\0" + library_versions().encode())
    templates = sorted({t for folder in {*template_dirs, templates_dir()} for t in files_under(folder)})
    for path in [*build_sources(), *inputs, *templates]:  # a template that vanished must fail validation
        try:
            digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            return None
    return digest.hexdigest()


def files_under(folder: Path) -> Iterator[Path]:
    """Every file under `folder`, through links to folders too (as jinja2's loader reads), each folder once."""
    seen: set[str] = set()
    for top, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:
            dirs.clear()
            continue
        seen.add(real)
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        yield from (Path(top, name) for name in files)


def build_sources() -> list[Path]:
    """The code and data that turn rule files into a RuleSet: a pickle of an older Rule (a field fewer), or
    one that an older validator let through, must not load into a newer hipconv."""
    return [
        *sorted(RULES_PACKAGE.glob("*.py")),
        *(RULES_PACKAGE.parent / name for name in BUILD_MODULES),
        *data_files(f"*{CONVERSION_SUFFIX}"),
    ]


def entry_path(digest: str, kind: str = "rules") -> Path:
    """Where the rule set of this digest is kept (`kind`: another entry kept the same way, hipconv.shim_store)."""
    return cache_dir() / f"{_prefix(kind)}{digest[:32]}{ENTRY_SUFFIX}"


def _prefix(kind: str) -> str:
    version = "".join(c if c.isalnum() or c in ".+_" else "_" for c in __version__)
    return f"{kind}-{version}-"


def store_entry(cache: Path, key: bytes, data: Any) -> bool:
    """Write the entry (JSON data, sealed under key) atomically; False when it cannot be (a read-only home:
    no cache, no error)."""
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=cache.parent, prefix=".entry-", suffix=".tmp")
    except OSError:
        return False
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(seal_plain(key, data))
        os.replace(tmp, cache)
    except OSError:  # a directory in the way, a full disk: the temporary file goes, the run goes on
        _remove(tmp)
        return False
    except BaseException:
        _remove(tmp)
        raise
    return True


def evict(folder: Path, *, keep: Path, kind: str = "rules") -> None:
    """Remove what `folder` holds beyond the bounds above, of the entries of this kind; `keep` (the entry just
    written) stays."""
    ours: list[tuple[float, Path]] = []
    now = time.time()
    for path in folder.iterdir():
        try:
            info = path.lstat()
        except OSError:
            continue
        if path.name.endswith(".tmp"):
            if now - info.st_mtime > STALE_TMP_SECONDS:
                _remove(path)
        elif path.name.startswith(f"{kind}-") and path.name.endswith((ENTRY_SUFFIX, ".pickle")) and path != keep:
            if path.name.startswith(_prefix(kind)) and path.name.endswith(ENTRY_SUFFIX):
                ours.append((info.st_mtime, path))
            else:
                _remove(path)  # another version's
    for _, path in sorted(ours, reverse=True)[KEEP_ENTRIES - 1 :]:
        _remove(path)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        if not path.is_dir() or path.is_symlink():
            path.unlink()
