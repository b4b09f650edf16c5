"""The ROCm release `hipconv build` translates for: the release of the hipcc that compiles the result,
unless --rocm-version (or the configuration's rocm-version) chose one; a choice that differs is kept,
with a warning. Decided before the translation, from one `hipcc --version`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hipconv.builder.hipcc import HipVersion
from hipconv.diagnostics import Severity
from hipconv.settings import Version


@dataclass(frozen=True)
class Target:
    rocm: Version  # the release to translate for
    severity: Severity  # WARNING when the translation may not suit the installed hipcc
    message: str  # `targeting ROCm X.Y (why)`
    hip_version: str | None = None  # what `hipcc --version` said ("5.2.21153"); None: nothing readable


def nearest_release(installed: Version, releases: Sequence[Version]) -> tuple[Version, str]:
    """The bundled release an installed one belongs to: the newest not newer than it, else the oldest;
    and what to say when that is not the installed release itself."""
    older = [r for r in releases if r <= installed]
    if not older:
        return releases[0], f"older than every bundled release; {releases[0]} is the oldest"
    found = older[-1]
    if found == installed:
        return found, ""
    if found == releases[-1]:
        return found, f"newer than every bundled release; {found} is the newest"
    return found, f"no bundled {installed}; {found} is the newest release before it"


def choose_target(hip: HipVersion, current: Version, *, chosen_by: str | None, releases: Sequence[str]) -> Target:
    """`current` is the settings' release: the one `chosen_by` names (--rocm-version, a configuration file),
    or the default when chosen_by is None. `releases`: the bundled ones (hipconv.resources.hip_releases)."""
    bundled = sorted(Version.parse(r) for r in releases)
    why = [chosen_by] if chosen_by else []
    if hip.version is None or not bundled:
        return Target(current, Severity.NOTE, _line(current, [*(why or ["the default"]), hip.problem]), hip.version)
    installed = Version(Version.parse(hip.version).parts[:2])
    own, placed = nearest_release(installed, bundled)
    said = f"hipcc --version: HIP version {hip.version}"
    older = installed < bundled[0]  # the translation may use names this HIP lacks
    if chosen_by is None or current == own:
        severity = Severity.WARNING if older else Severity.NOTE
        return Target(own, severity, _line(own, [*why, said, placed]), hip.version)
    return Target(
        current,
        Severity.WARNING,
        _line(current, [chosen_by])
        + f", but hipcc is ROCm {installed} ({said}): the translation may not compile with it; "
        + f"without {chosen_by}, hipconv build targets {own}",
        hip.version,
    )


def _line(rocm: Version, why: Sequence[str]) -> str:
    return f"targeting ROCm {rocm} ({'; '.join(w for w in why if w)})"
