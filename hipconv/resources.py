"""Where the shipped data lives: the only module that knows.

In a wheel, rules/ and templates/ are mapped to hipconv/_data/; in a source
checkout (editable install, tests) they are the top-level folders beside the package.
"""

from __future__ import annotations

import os
from pathlib import Path

from hipconv.settings import Version

_PACKAGE = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    bundled = _PACKAGE / "_data" / name
    return bundled if bundled.is_dir() else _PACKAGE.parent / name


def rules_dir() -> Path:
    return _data_dir("rules")


def templates_dir() -> Path:
    return _data_dir("templates")


def data_file(name: str) -> Path:
    """Compact inventory data derived by tools/derive_rules.py (see hipconv/data/README.md)."""
    return _PACKAGE / "data" / name


def cache_dir() -> Path:
    """$HIPCONV_CACHE_DIR, else $XDG_CACHE_HOME/hipconv, else ~/.cache/hipconv."""
    explicit = os.environ.get("HIPCONV_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hipconv"


def hip_releases() -> list[str]:
    """The ROCm releases whose HIP inventory is bundled (hip-X.Y.names), oldest first."""
    return _releases("hip")


def cuda_releases() -> list[str]:
    """The CUDA releases whose inventory is bundled (cuda-X.names), oldest first."""
    return _releases("cuda")


def _releases(kind: str) -> list[str]:
    found = [p.name[len(kind) + 1 : -len(".names")] for p in (_PACKAGE / "data").glob(f"{kind}-*.names")]
    return sorted(found, key=Version.parse)
