"""Project configuration: `[tool.hipconv]` in pyproject.toml, or a .hipconv.toml.

Found by walking up from the working directory to the project root and no further (a
.hipconv.toml wins over a pyproject.toml in the same folder). The project root is the nearest
folder at or above the working directory holding .git, .hg or a pyproject.toml (black's markers);
without one, the working directory itself: a .hipconv.toml in a parent such as /tmp is never read.
Every key is checked; a bad key or value is a ConfigError naming the file.
Command-line flags override what is read here: settings_from makes the run's Settings of both.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from hipconv.diagnostics import CODES, Severity
from hipconv.errors import ConfigError
from hipconv.excludes import compile_patterns
from hipconv.resources import RANGE_SEPARATOR, cuda_release, hip_releases, rocm_range, rocm_release
from hipconv.settings import (
    DEFAULT_OFFLOAD_ARCHS,
    KERNEL_LAUNCH_STYLES,
    PROJECT_HIP_PATHS,
    KernelLaunch,
    Settings,
    Version,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

CONFIG_FILE = ".hipconv.toml"
ROOT_MARKERS = (".git", ".hg", "pyproject.toml")  # what makes a folder a project root (as black decides it)
FailOn = Literal["error", "warning", "never"]
FAIL_ON: tuple[str, ...] = get_args(FailOn)
_FAILING: dict[str, frozenset[Severity]] = {
    "error": frozenset({Severity.ERROR}),
    "warning": frozenset({Severity.ERROR, Severity.WARNING}),
    "never": frozenset(),
}


def fails_on(level: str, severity: Severity) -> bool:
    """True when `--fail-on LEVEL` (scan's and translate's: error | warning | never) fails on a diagnostic of
    this severity: `error` on errors, `warning` on warnings and errors, `never` on nothing (notes never)."""
    return severity in _FAILING[level]


@dataclass(frozen=True)
class Config:
    path: Path | None = None  # where it was read from; None: no configuration file
    exclude: tuple[str, ...] = ()
    rocm_version: str | None = None
    kernel_launch: str | None = None
    fail_on: FailOn | None = None
    rules_dirs: tuple[Path, ...] = ()  # resolved against the configuration file's folder
    disable: tuple[str, ...] = ()  # diagnostic codes not to report
    baseline: Path | None = None  # scan's --baseline, resolved against the configuration file's folder
    compat: bool | None = None  # false: no shims of hipconv_compat.h (--no-compat)
    cuda_release: str | None = None  # the CUDA release the code was written for (version tests)
    include_dirs: tuple[Path, ...] = ()  # where #include looks after the file's folder; against the file's folder
    docs_url: str | None = None  # where scan's SARIF links the codes' pages ($HIPCONV_DOCS_URL wins)
    respect_gitignore: bool | None = None  # skip what the trees' .gitignore files ignore (--respect-gitignore)
    project_hip_path: str | None = None  # keep | off: a project's own HIP path (--project-hip-path)


_KEYS = {  # TOML key -> Config field
    "exclude": "exclude",
    "respect-gitignore": "respect_gitignore",
    "rocm-version": "rocm_version",
    "cuda-release": "cuda_release",
    "kernel-launch": "kernel_launch",
    "fail-on": "fail_on",
    "rules-dirs": "rules_dirs",
    "disable": "disable",
    "baseline": "baseline",
    "compat": "compat",
    "include-dirs": "include_dirs",
    "docs-url": "docs_url",
    "project-hip-path": "project_hip_path",
}


_CHOICES = {"kernel-launch": KERNEL_LAUNCH_STYLES, "fail-on": FAIL_ON, "project-hip-path": PROJECT_HIP_PATHS}


def project_root(start: Path) -> Path:
    """The nearest folder at or above start holding .git, .hg or pyproject.toml; start itself without one."""
    start = start.resolve()
    return next((f for f in (start, *start.parents) if any((f / m).exists() for m in ROOT_MARKERS)), start)


def find_config(start: Path) -> Path | None:
    """The nearest .hipconv.toml, or pyproject.toml with a [tool.hipconv] table, from start up to its
    project root (project_root), never above it."""
    start = start.resolve()
    root = project_root(start)
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and "hipconv" in _read_toml(pyproject).get("tool", {}):
            return pyproject
        if folder == root:
            break
    return None


def load_config(path: Path | None) -> Config:
    """Read and check one configuration file; None gives the empty configuration."""
    if path is None:
        return Config()
    data = _read_toml(path)
    table = data.get("tool", {}).get("hipconv") if path.name == "pyproject.toml" or "tool" in data else data
    if table is None:
        raise ConfigError(f"{path}: no [tool.hipconv] table")
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.hipconv] must be a table")
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(
            f"{path}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} in [tool.hipconv]",
            hint=f"valid keys: {', '.join(_KEYS)}",
        )
    values: dict[str, Any] = {}
    for key, value in table.items():
        values[_KEYS[key]] = _check(path, key, value)
    for dirs in ("rules_dirs", "include_dirs"):
        if dirs in values:
            values[dirs] = tuple(path.parent / d for d in values[dirs])
    _check_rules_dirs(path, values.get("rules_dirs", ()))
    if "baseline" in values:
        values["baseline"] = path.parent / values["baseline"]
    return Config(path, **values)


def _check_rules_dirs(path: Path, folders: tuple[Path, ...]) -> None:
    """A configuration file is part of the tree it configures, which may be a clone of someone else's: its
    rule folders must lie inside that project (links resolved). One from elsewhere is used only when the
    user names it on the command line (--rules-dir)."""
    root = project_root(path.parent)
    for folder in folders:
        if not folder.resolve().is_relative_to(root):
            raise ConfigError(
                f"{path}: [tool.hipconv] rules-dirs: {folder} is outside the project {root}",
                hint="a configuration file names rule folders inside its project only; "
                "name another folder on the command line: --rules-dir DIR",
            )


def _check(path: Path, key: str, value: Any) -> Any:
    where = f"{path}: [tool.hipconv] {key}"
    if key in ("exclude", "rules-dirs", "disable", "include-dirs"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where} must be a list of strings, not {value!r}")
        if key == "exclude":
            compile_patterns(tuple(value), where)
        if key == "disable":
            bad = [v for v in value if v not in CODES]
            if bad:
                raise ConfigError(
                    f"{where}: unknown code{'s' if len(bad) > 1 else ''} {', '.join(bad)}",
                    hint="`hipconv codes` lists them",
                )
        return tuple(value)
    if key in ("compat", "respect-gitignore"):
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false, not {value!r}")
        return value
    if not isinstance(value, str):
        raise ConfigError(f"{where} must be a string, not {value!r}")
    if key in ("rocm-version", "cuda-release"):
        try:
            (rocm_target if key == "rocm-version" else cuda_release)(value)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}", hint=exc.hint) from None
    choices = _CHOICES.get(key)
    if choices and value not in choices:
        raise ConfigError(f"{where} must be one of {', '.join(choices)}, not {value!r}")
    return value


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            data: dict[str, Any] = tomllib.load(fh)
            return data
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None


def settings_from(
    config: Config,
    rocm_version: str | None,
    kernel_launch: str | None,
    *,
    experimental: bool = False,
    jobs: int = 1,
    no_compat: bool = False,
    cuda: str | None = None,
    offload_archs: tuple[str, ...] = (),
    project_hip_path: str | None = None,
) -> Settings:
    """Command-line values, else the configuration file's, else the defaults (`offload_archs`: those
    of --offload-arch, checked by the caller; none: DEFAULT_OFFLOAD_ARCHS)."""
    written_for = cuda or config.cuda_release
    rocm, span = rocm_target(next(v for v in (rocm_version, config.rocm_version, default_rocm()) if v is not None))
    return Settings(
        rocm,
        KernelLaunch.parse(kernel_launch or config.kernel_launch or KernelLaunch.CHEVRON.value),
        experimental,
        jobs,
        compat=not no_compat and config.compat is not False,
        cuda=cuda_release(written_for) if written_for is not None else None,
        include_dirs=tuple(str(d) for d in config.include_dirs),
        offload_archs=offload_archs or DEFAULT_OFFLOAD_ARCHS,
        project_hip_path=project_hip_path or config.project_hip_path or PROJECT_HIP_PATHS[0],
        rocm_range=span,
    )


def rocm_target(text: str) -> tuple[Version, tuple[Version, Version] | None]:
    """--rocm-version's value: one bundled release (the target, no range), or LOW..HIGH (the target is HIGH,
    the range both; docs/release-ranges.md)."""
    if RANGE_SEPARATOR in text:
        span = rocm_range(text)
        return span[1], span
    return rocm_release(text), None


def default_rocm() -> str:
    """The newest bundled ROCm release."""
    releases = hip_releases()
    if not releases:
        raise ConfigError("no ROCm inventory is bundled (hipconv/data/hip.releases is missing)")
    return releases[-1]
