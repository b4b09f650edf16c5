"""Validated rule sets pickled under the user's cache directory, keyed by the exact bytes of every
input, so a start-up (a pre-commit hook, a CI step) skips YAML parsing."""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Callable

from hipconv import __version__
from hipconv.resources import cache_dir, templates_dir
from hipconv.rules.model import RuleSet


def cached(inputs: Iterable[Path], template_dirs: Iterable[Path], build: Callable[[], RuleSet]) -> RuleSet:
    """The rule set built from `inputs` (and the templates under `template_dirs`), from the cache when
    none of their bytes changed."""
    digest = hashlib.sha256(__version__.encode())
    templates = sorted(
        {t for folder in template_dirs for t in folder.rglob("*.j2")} | set(templates_dir().rglob("*.j2"))
    )
    for path in [*inputs, *templates]:  # a template that vanished must fail validation
        try:
            digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            return build()
    cache = cache_dir() / f"rules-{digest.hexdigest()[:32]}.pickle"
    try:
        found = pickle.loads(cache.read_bytes())
        if isinstance(found, RuleSet):
            return found
    except Exception:  # missing, unreadable or from another Python: rebuild it
        pass
    ruleset = build()
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(ruleset, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache)
    except OSError:
        pass  # a read-only home is fine: no cache
    return ruleset
