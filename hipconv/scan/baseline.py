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

from hipconv.errors import ConfigError
from hipconv.scan.scanner import FileScan, Finding
from hipconv.version import __version__

FORMAT_VERSION = 1
Key = tuple[str, str, str]  # (code, path, fingerprint)
_ENTRY_KEYS = ("code", "path", "fingerprint")  # the string fields every entry needs
_REWRITE = "write it again with `hipconv scan --write-baseline FILE PATHS`"  # the hint for a bad one


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
    """The baseline's entries. A file that is missing, unreadable, not UTF-8, not JSON (truncated, empty,
    nested too deeply, a number too long to convert) or not shaped as a baseline is a ConfigError whose
    message starts with its path."""
    keys: collections.Counter[Key] = collections.Counter()
    for n, entry in enumerate(_findings(path, _read_json(path))):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in _ENTRY_KEYS):
            raise ConfigError(f"{path}: finding #{n + 1} needs string fields code, path and fingerprint", hint=_REWRITE)
        keys[(entry["code"], entry["path"], entry["fingerprint"])] += 1
    return Baseline(os.path.abspath(path.parent), keys)


def _read_json(path: Path) -> object:
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot read baseline: {exc.strerror or exc}",
            hint="create it with `hipconv scan --write-baseline FILE PATHS`",
        ) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: baseline is not UTF-8: byte {exc.start} ({exc.reason})", hint=_REWRITE) from None
    try:
        return json.loads(text)
    except RecursionError:  # json's decoder recurses once per [ or {
        raise ConfigError(f"{path}: baseline is not valid JSON: nested too deeply", hint=_REWRITE) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: baseline is not valid JSON: {exc}", hint=_REWRITE) from None
    except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits, 3.11+)
        raise ConfigError(f"{path}: baseline is not valid JSON: a number with too many digits", hint=_REWRITE) from None


def _findings(path: Path, data: object) -> list[object]:
    """The `findings` list of a baseline's top-level object, once its format number is checked."""
    what = f"{path}: not a hipconv baseline (format {FORMAT_VERSION})"
    if not isinstance(data, dict):
        raise ConfigError(f"{what}: the top level is {_json_type(data)}, not an object", hint=_REWRITE)
    version = data.get("hipconv_baseline")
    if type(version) is not int or version != FORMAT_VERSION:  # true and 1.0 are not 1 here
        raise ConfigError(f"{what}: hipconv_baseline is {_shown(version)}, not {FORMAT_VERSION}", hint=_REWRITE)
    findings = data.get("findings")
    if not isinstance(findings, list):
        raise ConfigError(f"{what}: findings is {_json_type(findings)}, not a list", hint=_REWRITE)
    return findings


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null or missing"}
    return names.get(type(value), "a number")


def _shown(value: object) -> str:
    """A JSON value for a message: short (a long string or number is cut)."""
    text = json.dumps(value) if isinstance(value, (str, bool, int, float, type(None))) else _json_type(value)
    return text if len(text) <= 40 else text[:37] + "..."


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
