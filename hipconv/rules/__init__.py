"""Rules are data: the model, the YAML loader and its schema, the cache, and library coverage.

`load_ruleset` is the entry point: the bundled rule files plus any extra folders, validated
(or taken from the cache), with the names of the CUDA inventories (11.8 to 13) for HC001.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from hipconv.errors import ConfigError
from hipconv.resources import data_file, rules_dir
from hipconv.rules.cache import cached, entry_path, inputs_digest
from hipconv.rules.model import RuleSet

CUDA_NAMES_FILE = "cuda.names"  # every bundled CUDA release's names (hipconv/data/README.md)


def load_ruleset(extra_dirs: Iterable[Path] = (), digest: str | None = None) -> RuleSet:
    """`digest`: cached_ruleset_digest's, when the run has it (the inputs are not hashed twice)."""
    files, folders = _inputs(extra_dirs)
    return cached(files, folders, lambda: _built(files), digest)


def _built(files: list[Path]) -> RuleSet:
    """The rule set from its YAML files. The loader (yaml, jinja2 and the schema) is imported here: a start-up
    that finds the rule set in the cache does not load it."""
    from hipconv.rules.load import load_rules

    return RuleSet(load_rules(files[:-1]), load_cuda_api())


def cached_ruleset_digest(extra_dirs: Iterable[Path] = ()) -> str | None:
    """The digest of the rule set that load_ruleset returns, when that one is in the cache (validated by an
    earlier run: loading it cannot fail), else None. A rerun that finds every file's result in
    hipconv.filecache needs the digest only."""
    files, folders = _inputs(extra_dirs)
    digest = inputs_digest(files, folders)
    return digest if digest is not None and entry_path(digest).is_file() else None


def _inputs(extra_dirs: Iterable[Path]) -> tuple[list[Path], list[Path]]:
    """The rule files (the bundled ones, then those of each extra folder), the CUDA inventory names last;
    and the folders of the rule files (their templates count too)."""
    files = sorted(rules_dir().glob("*.yaml"))
    for extra in extra_dirs:
        if not extra.is_dir():
            raise ConfigError(f"rule directory {extra} does not exist")
        files.extend(sorted(extra.glob("*.yaml")))
    folders = sorted({f.parent for f in files})
    return [*files, data_file(CUDA_NAMES_FILE)], folders


def load_cuda_api() -> dict[str, str]:
    """CUDA inventory name -> its library, for the names no rule covers (HC001)."""
    path = data_file(CUDA_NAMES_FILE)
    if not path.is_file():
        return {}
    table: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        library, _, name = line.partition("\t")
        if name:
            table[name] = library
    return table
