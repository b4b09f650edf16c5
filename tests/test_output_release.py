"""An -o tree records the ROCm release it was written for (its .hipconv-output marker); a later run that
targets another release into it stops before writing anything (exit 2), unless --force: otherwise the files
that run leaves alone, and hipconv_compat.h's shims, would stay those of the other release."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.api import translate_tree
from hipconv.errors import ConfigError

SOURCE = """#include <cuda_runtime.h>
__global__ void k(float *x) { x[threadIdx.x] = 0.0f; }
int main() { cudaDeviceSynchronize(); return 0; }
"""


def make_tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(SOURCE)
    (src / "README").write_text("notes\n")
    return src


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def marker(out: Path) -> dict[str, str]:
    data: dict[str, str] = json.loads((out / ".hipconv-output").read_bytes())
    return data


def test_another_release_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    src, out = make_tree(tmp_path), tmp_path / "hip"
    assert run_cli("translate", src, "-o", out, "--rocm-version", "5.2").code == 0
    assert marker(out)["rocm"] == "5.2"
    (src / "k.cu").write_text(SOURCE.replace("cudaDeviceSynchronize", "cudaDeviceReset"))  # would change k.cu
    before = snapshot(out)
    result = run_cli("translate", src, "-o", out)  # the default target, 7.2
    assert result.code == 2
    assert f"error: {out} was written for ROCm 5.2; this run targets ROCm 7.2" in result.stderr
    assert "hint: pass --rocm-version 5.2 to add to it, --force to rewrite it for 7.2" in result.stderr
    assert snapshot(out) == before


@pytest.mark.parametrize("args", [("--rocm-version", "5.2.3"), ("--force",)], ids=["same-release", "force"])
def test_the_same_release_or_force_writes(tmp_path: Path, args: tuple[str, ...]) -> None:
    src, out = make_tree(tmp_path), tmp_path / "hip"
    assert run_cli("translate", src, "-o", out, "--rocm-version", "5.2").code == 0
    (src / "k.cu").write_text(SOURCE.replace("cudaDeviceSynchronize", "cudaDeviceReset"))
    result = run_cli("translate", src, "-o", out, *args)
    assert result.code == 0, result.stderr
    assert "hipDeviceReset" in (out / "k.cu").read_text()
    assert marker(out)["rocm"] == ("5.2" if "--force" not in args else "7.2")


@pytest.mark.parametrize("mode", ["--dry-run", "--diff"])
def test_a_run_that_writes_nothing_is_not_refused(tmp_path: Path, mode: str) -> None:
    src, out = make_tree(tmp_path), tmp_path / "hip"
    assert run_cli("translate", src, "-o", out, "--rocm-version", "5.2").code == 0
    before = snapshot(out)
    assert run_cli("translate", src, "-o", out, mode).code == 0
    assert snapshot(out) == before


def test_a_marker_without_a_release_is_not_refused(tmp_path: Path) -> None:
    """An output tree of a hipconv that did not record the release (or a marker it cannot read)."""
    src, out = make_tree(tmp_path), tmp_path / "hip"
    out.mkdir()
    (out / ".hipconv-output").write_text('{"written_by": "hipconv 0.1"}\n')
    assert run_cli("translate", src, "-o", out, "--rocm-version", "6.3").code == 0
    assert marker(out)["rocm"] == "6.3"


def test_the_python_api_refuses_too(tmp_path: Path) -> None:
    src, out = make_tree(tmp_path), tmp_path / "hip"
    translate_tree(src, out, rocm_version="6.3")
    with pytest.raises(ConfigError, match="written for ROCm 6.3; this run targets ROCm 5.2"):
        translate_tree(src, out, rocm_version="5.2")
    translate_tree(src, out, rocm_version="5.2", force=True)
    assert marker(out)["rocm"] == "5.2"
