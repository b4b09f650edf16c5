"""Baselines: today's findings recorded, so that a gate fails only on new ones.

An entry is matched by code, path and the fingerprint of its line's content (not its
line number), so code that moves does not resurface. Each entry absorbs one finding:
a second copy of a known line is new. Paths are relative to the baseline's folder, so a
scan from another working directory (a subfolder) matches the same entries.
"""

from __future__ import annotations

import collections
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hipconv import __version__
from hipconv.errors import ConfigError
from hipconv.scan.scanner import FileScan, Finding

FORMAT_VERSION = 1
Key = tuple[str, str, str]  # (code, path, fingerprint)
_ENTRY_KEYS = ("code", "path", "fingerprint")  # the string fields every entry needs


@dataclass(frozen=True)
class Baseline:
    root: str  # the baseline file's folder, absolute: the entries' paths are relative to it
    keys: collections.Counter[Key]  # a multiset: each entry absorbs one finding


def _key(finding: Finding, root: str) -> Key:
    return (finding.diagnostic.code, _relative(finding.diagnostic.path, root), finding.fingerprint)


def _relative(path: str, root: str) -> str:
    return os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")


def baseline_json(scans: Iterable[FileScan], path: Path) -> str:
    """The content of a baseline file at `path` that records the scans' findings."""
    root = os.path.abspath(path.parent)
    entries = [
        {
            "code": f.diagnostic.code,
            "path": _relative(f.diagnostic.path, root),
            "fingerprint": f.fingerprint,
            "line": f.diagnostic.line,
            "message": f.diagnostic.message,
        }  # line and message: for readers only
        for scan in scans
        for f in scan.findings
    ]
    return (
        json.dumps(
            {"hipconv_baseline": FORMAT_VERSION, "written_by": f"hipconv {__version__}", "findings": entries}, indent=2
        )
        + "\n"
    )


def load_baseline(path: Path) -> Baseline:
    """The baseline's entries; a missing or malformed file is a ConfigError naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(
            f"cannot read baseline {path}: {exc.strerror or exc}",
            hint="create it with `hipconv scan --write-baseline FILE PATHS`",
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"baseline {path} is not valid JSON: {exc}") from None
    if (
        not isinstance(data, dict)
        or data.get("hipconv_baseline") != FORMAT_VERSION
        or not isinstance(data.get("findings"), list)
    ):
        raise ConfigError(f"{path} is not a hipconv baseline (format {FORMAT_VERSION})")
    keys: collections.Counter[Key] = collections.Counter()
    for n, entry in enumerate(data["findings"]):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in _ENTRY_KEYS):
            raise ConfigError(f"baseline {path}: finding #{n + 1} needs string fields code, path and fingerprint")
        keys[(entry["code"], entry["path"], entry["fingerprint"])] += 1
    return Baseline(os.path.abspath(path.parent), keys)


def new_findings(scans: Iterable[FileScan], baseline: Baseline) -> tuple[list[FileScan], int]:
    """The scans without the findings the baseline records, and how many were dropped."""
    left = collections.Counter(baseline.keys)
    out, dropped = [], 0
    for scan in scans:
        kept = []
        for finding in scan.findings:
            key = _key(finding, baseline.root)
            if left[key] > 0:
                left[key] -= 1
                dropped += 1
            else:
                kept.append(finding)
        out.append(FileScan(scan.path, tuple(kept), scan.suppressed, scan.failure, scan.trace))
    return out, dropped
