"""Where the shipped data lives: the only module that knows.

In a wheel, rules/ and templates/ are mapped to hipconv/_data/; in a source
checkout (editable install, tests) they are the top-level folders beside the package.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from hipconv.errors import ConfigError
from hipconv.settings import Version

_PACKAGE = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    bundled = _PACKAGE / "_data" / name
    return bundled if bundled.is_dir() else _PACKAGE.parent / name


def rules_dir() -> Path:
    return _data_dir("rules")


def templates_dir() -> Path:
    return _data_dir("templates")


def docs_dir() -> Path:
    """The generated documentation pages shipped with hipconv (docs/codes.md: one anchor per code)."""
    return _data_dir("docs")


DOCS_URL_VARIABLE = "HIPCONV_DOCS_URL"


def docs_url(configured: str | None = None) -> str:
    """Where links to the documentation pages point (SARIF's helpUri): $HIPCONV_DOCS_URL, else `docs-url` of
    the configuration, else the installed copy's file:// URI (resolvable on the machine that ran hipconv)."""
    base = os.environ.get(DOCS_URL_VARIABLE) or configured or docs_dir().resolve().as_uri()
    return base.rstrip("/")


def data_file(name: str) -> Path:
    """Compact inventory data derived by tools/derive_rules.py (see hipconv/data/README.md)."""
    return _PACKAGE / "data" / name


def data_files(pattern: str) -> list[Path]:
    """The files of hipconv/data/ whose names match a glob pattern, sorted."""
    return sorted((_PACKAGE / "data").glob(pattern))


def build_file(name: str) -> Path:
    """Hand-kept facts of `hipconv build` (hipconv/builder/packages.yaml: what provides a missing header)."""
    return _PACKAGE / "builder" / name


def cache_dir() -> Path:
    """$HIPCONV_CACHE_DIR, else the platform's user cache directory (platformdirs, as pip and black find
    it: $XDG_CACHE_HOME/hipconv or ~/.cache/hipconv on Linux, ~/Library/Caches/hipconv on macOS,
    %LOCALAPPDATA%\\hipconv\\Cache on Windows)."""
    explicit = os.environ.get("HIPCONV_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return Path(platformdirs.user_cache_dir("hipconv", appauthor=False))


def hip_releases() -> list[str]:
    """The ROCm releases whose HIP inventory is bundled (hipconv/data/hip.releases), oldest first."""
    return list(_hip_release_table())


def rocm_release(text: str) -> Version:
    """The bundled ROCm release `text` names: `X.Y`, or `X.Y.Z` of a bundled X.Y (6.3.2 is 6.3: a patch
    release has its minor release's API).  Anything else is a ConfigError that lists the bundled ones."""
    releases = hip_releases()
    match = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?", text.strip())
    if match and f"{int(match[1])}.{int(match[2])}" in releases:
        return Version.parse(f"{int(match[1])}.{int(match[2])}")
    raise ConfigError(
        f"ROCm {text!r} is not a bundled release: the rules know {', '.join(releases) or 'none'}",
        hint=f"pass one of them (a patch release such as {releases[-1] if releases else '6.3'}.1 counts as its "
        "minor release), or leave --rocm-version out for the newest",
    )


RANGE_SEPARATOR = ".."


def rocm_range(text: str) -> tuple[Version, Version]:
    """`LOW..HIGH` (`5.2..7.2`): two bundled releases (rocm_release), LOW older than HIGH. Anything else is a
    ConfigError saying which part is wrong."""
    low, sep, high = text.strip().partition(RANGE_SEPARATOR)
    pattern = r"\d+\.\d+(?:\.\d+)?"
    if not sep or not re.fullmatch(pattern, low.strip()) or not re.fullmatch(pattern, high.strip()):
        raise ConfigError(
            f"invalid ROCm release range {text!r}: expected LOW..HIGH, two releases such as 5.2..7.2",
            hint=f"the bundled releases: {', '.join(hip_releases())}",
        )
    bounds = []
    for bound in (low, high):
        try:
            bounds.append(rocm_release(bound))
        except ConfigError as exc:
            raise ConfigError(
                f"ROCm release range {text!r}: {exc}",
                hint=f"each bound is a bundled release (a patch release such as {bound.strip()}.1 counts as its "
                "minor release)"
                if re.fullmatch(r"\d+\.\d+", bound.strip())
                else "each bound is a bundled release",
            ) from None
    if not bounds[0] < bounds[1]:
        raise ConfigError(
            f"ROCm release range {text!r}: {bounds[0]} is not older than {bounds[1]}",
            hint=f"write the older release first ({bounds[1]}..{bounds[0]}), or one release alone"
            if bounds[1] < bounds[0]
            else f"write the release alone: --rocm-version {bounds[0]}",
        )
    return bounds[0], bounds[1]


def releases_between(low: Version, high: Version) -> list[str]:
    """The bundled releases from low to high, both included, oldest first."""
    return [r for r in hip_releases() if low <= Version.parse(r) <= high]


def carried_from(release: str) -> str | None:
    """For a bundled release with a host-only inventory (6.4 ...), the release whose full inventory it
    carries forward (device code, C++ libraries, MIOpen, ...); None for a release with a full one."""
    return _hip_release_table().get(release)


@functools.cache
def _hip_release_table() -> dict[str, str | None]:
    path = data_file("hip.releases")
    if not path.is_file():
        return {}
    table: dict[str, str | None] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        release, _, carries = line.partition("\t")
        if release:
            table[release] = carries or None
    return dict(sorted(table.items(), key=lambda item: Version.parse(item[0])))


@dataclass(frozen=True)
class Presence:
    """The bundled ROCm releases that declare a HIP name (or header), and those of them that have it
    only because their host-only inventory carries it forward."""

    releases: tuple[str, ...]
    carried: tuple[str, ...] = ()


def hip_names() -> Mapping[str, Presence]:
    """Every HIP name of every bundled release (hipconv/data/hip.names)."""
    return _presence("hip.names")


def hip_headers() -> Mapping[str, Presence]:
    """Every HIP header of every bundled release (hipconv/data/hip.headers)."""
    return _presence("hip.headers")


@functools.cache
def _presence(name: str) -> Mapping[str, Presence]:
    """`name<TAB>releases[<TAB>carried]` lines, the releases as spans of bundled ones (`5.2-6.3,7.0`)."""
    path = data_file(name)
    if not path.is_file():
        return {}
    lines = (line.partition("\t") for line in path.read_text(encoding="utf-8").splitlines())
    return _Presences({key: rest for key, _, rest in lines})


class _Presences(Mapping[str, Presence]):
    """A presence file's lines by name, each expanded when first asked for: a run asks for a few names of
    ten thousand, and expanding them all cost a fifth of a second per process."""

    def __init__(self, lines: dict[str, str]) -> None:
        self._lines = lines
        self._expanded: dict[str, Presence] = {}

    def __getitem__(self, key: str) -> Presence:
        found = self._expanded.get(key)
        if found is None:
            spans, _, carried = self._lines[key].partition("\t")
            releases = hip_releases()
            found = self._expanded[key] = Presence(expand_spans(spans, releases), expand_spans(carried, releases))
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._lines

    def __iter__(self) -> Iterator[str]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)


def expand_spans(text: str, releases: list[str]) -> tuple[str, ...]:
    """`5.2-6.3,7.0` -> every release of `releases` (bundled, in order) in those spans."""
    out: list[str] = []
    for span in filter(None, text.split(",")):
        first, _, last = span.partition("-")
        start, stop = releases.index(first), releases.index(last or first)
        out += releases[start : stop + 1]
    return tuple(out)


def span_text(releases: Iterable[str]) -> str:
    """The reverse of expand_spans, for people: `5.2–6.3, 7.0` (consecutive bundled releases joined)."""
    bundled = hip_releases()
    runs: list[list[str]] = []
    for release in sorted(releases, key=bundled.index):
        if runs and bundled.index(release) == bundled.index(runs[-1][-1]) + 1:
            runs[-1].append(release)
        else:
            runs.append([release])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs)


@functools.cache
def cuda_releases() -> list[str]:
    """The CUDA releases whose inventory is bundled (hipconv/data/cuda.releases), oldest first: the names of
    all of them are in cuda.names and cuda.symbols."""
    path = data_file("cuda.releases")
    if not path.is_file():
        return []
    return sorted(filter(None, path.read_text(encoding="utf-8").splitlines()), key=Version.parse)


def cuda_release(text: str) -> Version:
    """The CUDA release code was written for (--cuda-release): `X.Y` or `X.Y.Z`, 9.0 to 13.x, bundled inventory or
    not (only the values of its version macros are taken from it).  Anything else is a ConfigError."""
    match = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?", text.strip())
    if match and 9 <= int(match[1]) <= 13:
        return Version.parse(f"{int(match[1])}.{int(match[2])}")
    raise ConfigError(
        f"CUDA {text!r} is not a release hipconv reads version tests for: give X.Y from 9.0 to 13.x",
        hint="name the CUDA release the code was written for (such as 10.2), or leave --cuda-release out for "
        f"the newest bundled ({default_cuda()})",
    )


def default_cuda() -> str:
    """The newest bundled CUDA release: the one code is taken to be written for unless --cuda-release says."""
    releases = cuda_releases()
    return releases[-1] if releases else "13.0"


@functools.cache
def hip_enumerator_values(release: str) -> Mapping[str, int]:
    """The value of each HIP enumerator a rule writes, in bundled ROCm `release` (hipconv/data/hip.enumerators);
    a name missing has no known value there."""
    path = data_file("hip.enumerators")
    if not path.is_file():
        return {}
    releases = hip_releases()
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, value, spans = line.split("\t")
        if release in expand_spans(spans, releases):
            values[name] = int(value)
    return values
