"""`hipconv build` targets the ROCm release of the hipcc it compiles with (`hipcc --version`), unless
--rocm-version or the configuration chose one; a choice that differs is kept, with a warning.

A fake hipcc prints a chosen `--version` text and passes every syntax check, so the target shows in
the translated file: at ROCm 5.2 `__shfl_down_sync(0xffffffff, v, 16)` becomes `__shfl_down(v, 16)`,
from 6.3 on it keeps `_sync` (with the mask widened to 64 lanes)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import Run, run_cli
from hipconv.resources import hip_releases

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
HIPCC_SYNTAX = SHARED / "rocm-6.3" / "bin" / "hipcc-syntax"
KERNEL = """\
__global__ void reduce(float *p) {
  float v = p[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  p[threadIdx.x] = v;
}
"""
AT_52 = "v += __shfl_down(v, 16);"  # what the shuffle becomes when the target is 5.2
SYNC = "v += __shfl_down_sync(0xffffffffffffffffull, v, 16);"  # ... and from 6.3 on


def fake_hipcc(tmp_path: Path, version_text: str) -> Path:
    """A hipcc that prints `version_text` for --version, logs each call, and passes every compile."""
    script = tmp_path / "bin" / "hipcc"
    script.parent.mkdir()
    (tmp_path / "version.txt").write_text(version_text)
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{tmp_path / "calls.log"}"\n'
        f'if [ "$1" = "--version" ]; then cat "{tmp_path / "version.txt"}"; fi\n'
        "exit 0\n"
    )
    script.chmod(0o755)
    return script


def build(tmp_path: Path, version_text: str, *options: str) -> tuple[Run, str]:
    """`hipconv build` of the kernel with a fake hipcc: the run, and the translated kernel."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "reduce.cu").write_text(KERNEL)
    hipcc = fake_hipcc(tmp_path, version_text)
    result = run_cli("build", src, "-o", tmp_path / "hip", "--hipcc", hipcc, "--check-only", "-j", "1", *options)
    out = tmp_path / "hip" / "reduce.cu"
    return result, out.read_text() if out.exists() else ""


def releases() -> list[str]:
    return hip_releases()


def newest_not_after(version: str) -> str:
    parts = tuple(int(p) for p in version.split("."))
    return [r for r in releases() if tuple(int(p) for p in r.split(".")) <= parts][-1]


def test_installed_release_is_the_target(tmp_path: Path) -> None:
    result, translated = build(tmp_path, "HIP version: 5.2.21153-0\nclang version 15.0.6\n")
    assert result.code == 0, result.stderr
    assert "hipconv build: targeting ROCm 5.2 (hipcc --version: HIP version 5.2.21153)\n" in result.stderr
    assert AT_52 in translated and "_sync" not in translated


def test_installed_63_keeps_the_sync_shuffle(tmp_path: Path) -> None:
    result, translated = build(tmp_path, "HIP version: 6.3.42131-f9f995c6d\n")
    assert result.code == 0, result.stderr
    assert "hipconv build: targeting ROCm 6.3 (hipcc --version: HIP version 6.3.42131)\n" in result.stderr
    assert SYNC in translated


def test_hipcc_version_runs_once(tmp_path: Path) -> None:
    result, _ = build(tmp_path, "HIP version: 5.2.21153-0\n")
    assert result.code == 0, result.stderr
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert calls.count("--version") == 1 and len(calls) == 2  # the version, then the one TU


def test_given_release_that_differs_is_kept_with_a_warning(tmp_path: Path) -> None:
    result, translated = build(tmp_path, "HIP version: 5.2.21153-0\n", "--rocm-version", "6.3", "-q")
    assert result.code == 0, result.stderr
    assert (
        "warning: hipconv build: targeting ROCm 6.3 (--rocm-version), but hipcc is ROCm 5.2 "
        "(hipcc --version: HIP version 5.2.21153): the translation may not compile with it; "
        "without --rocm-version, hipconv build targets 5.2\n"
    ) in result.stderr  # a warning: -q shows it
    assert SYNC in translated  # the user's choice


def test_given_release_that_matches_is_a_note(tmp_path: Path) -> None:
    result, translated = build(tmp_path, "HIP version: 5.2.21153-0\n", "--rocm-version", "5.2")
    assert "hipconv build: targeting ROCm 5.2 (--rocm-version; hipcc --version: HIP version 5.2.21153)\n" in (
        result.stderr
    )
    assert "warning: hipconv build" not in result.stderr
    assert AT_52 in translated


def test_release_from_the_configuration_counts_as_chosen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".hipconv.toml").write_text('rocm-version = "6.3"\n')
    monkeypatch.chdir(tmp_path)
    result, translated = build(tmp_path, "HIP version: 5.2.21153-0\n")
    config = tmp_path.resolve() / ".hipconv.toml"
    assert f"warning: hipconv build: targeting ROCm 6.3 (rocm-version in {config}), but hipcc is ROCm 5.2" in (
        result.stderr
    )
    assert SYNC in translated


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("clang version 19.1.7\n", id="no-hip-line"),
        pytest.param("HIP version: unknown\n", id="garbage"),
        pytest.param("", id="nothing"),
    ],
)
def test_unreadable_version_is_a_note_and_the_default(tmp_path: Path, text: str) -> None:
    result, translated = build(tmp_path, text)
    assert result.code == 0, result.stderr
    first = text.strip().splitlines()[0] if text else ""
    said = f"printed {first!r}" if first else "printed nothing"
    default = releases()[-1]
    assert (
        f"hipconv build: targeting ROCm {default} (the default; `hipcc --version` {said}, no `HIP version:` line)\n"
    ) in result.stderr
    assert SYNC in translated  # the default is 6.3 or newer


def test_unreadable_version_with_a_given_release(tmp_path: Path) -> None:
    result, translated = build(tmp_path, "", "--rocm-version", "5.2")
    assert (
        "hipconv build: targeting ROCm 5.2 (--rocm-version; `hipcc --version` printed nothing, "
        "no `HIP version:` line)\n"
    ) in result.stderr
    assert AT_52 in translated


def test_release_between_bundled_ones_maps_to_the_one_before(tmp_path: Path) -> None:
    """5.5 is bundled in no hipconv; it belongs to the newest bundled release before it."""
    own = newest_not_after("5.5")
    result, translated = build(tmp_path, "HIP version: 5.5.30201-c1741e9b\n")
    assert (
        f"hipconv build: targeting ROCm {own} (hipcc --version: HIP version 5.5.30201; "
        f"no bundled 5.5; {own} is the newest release before it)\n"
    ) in result.stderr
    assert "warning:" not in result.stderr
    assert AT_52 in translated


def test_release_newer_than_every_bundled_one(tmp_path: Path) -> None:
    newest = releases()[-1]
    result, translated = build(tmp_path, "HIP version: 99.1.1-0\n")
    assert result.code == 0, result.stderr
    assert (
        f"hipconv build: targeting ROCm {newest} (hipcc --version: HIP version 99.1.1; "
        f"newer than every bundled release; {newest} is the newest)\n"
    ) in result.stderr
    assert "warning:" not in result.stderr
    assert SYNC in translated


def test_release_older_than_every_bundled_one_is_a_warning(tmp_path: Path) -> None:
    oldest = releases()[0]
    result, translated = build(tmp_path, "HIP version: 4.5.2-0\n", "-q")
    assert (
        f"warning: hipconv build: targeting ROCm {oldest} (hipcc --version: HIP version 4.5.2; "
        f"older than every bundled release; {oldest} is the oldest)\n"
    ) in result.stderr
    assert AT_52 in translated


def test_report_names_the_target_and_hip_version(tmp_path: Path) -> None:
    result, _ = build(tmp_path, "HIP version: 5.2.21153-0\n", "--report", str(tmp_path / "build.json"))
    assert result.code == 0, result.stderr
    data = json.loads((tmp_path / "build.json").read_text())
    assert data["rocm"] == "5.2" and data["hip_version"] == "5.2.21153"


def test_relative_hipcc_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--hipcc bin/hipcc works although hipcc runs in the output tree."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "reduce.cu").write_text(KERNEL)
    fake_hipcc(tmp_path, "HIP version: 5.2.21153-0\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", "src", "-o", "hip", "--hipcc", "bin/hipcc", "--check-only")
    assert result.code == 0, result.stderr
    assert "targeting ROCm 5.2 (hipcc --version: HIP version 5.2.21153)" in result.stderr


# ---------------------------------------------------------------- real compilers


@pytest.mark.hipcc
def test_debian_hipcc_is_targeted(tmp_path: Path) -> None:
    """Debian's hipcc is HIP 5.2: the kernel is translated for 5.2 and compiles (for 6.3 it would not)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "reduce.cu").write_text(KERNEL)
    result = run_cli("build", tmp_path / "src", "-o", tmp_path / "hip", "--check-only", "--hip-platform", "amd")
    assert result.code == 0, result.stderr
    assert "hipconv build: targeting ROCm 5.2 (hipcc --version: HIP version 5.2." in result.stderr
    assert AT_52 in (tmp_path / "hip" / "reduce.cu").read_text()


@pytest.mark.hipcc
@pytest.mark.skipif(not HIPCC_SYNTAX.exists(), reason=f"{HIPCC_SYNTAX} not found (../shared is absent)")
@pytest.mark.skipif(shutil.which("clang++-19") is None, reason="clang++-19 not found (apt-get install -y clang-19)")
def test_rocm63_stand_in_is_targeted(tmp_path: Path) -> None:
    """ROCm 6.3's hipcc stand-in prints `HIP version: 6.3.…`: the kernel is translated for 6.3 and compiles."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "reduce.cu").write_text(KERNEL)
    result = run_cli("build", tmp_path / "src", "-o", tmp_path / "hip", "--check-only", "--hipcc", HIPCC_SYNTAX)
    assert result.code == 0, result.stderr
    assert "hipconv build: targeting ROCm 6.3 (hipcc --version: HIP version 6.3." in result.stderr
    assert SYNC in (tmp_path / "hip" / "reduce.cu").read_text()
