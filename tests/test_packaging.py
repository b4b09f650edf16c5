"""A built wheel carries rules/ and templates/ and works from a fresh virtual environment."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installs_and_translates(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(REPO)], check=True, timeout=600
    )
    wheel = next(dist.glob("hipconv-*.whl"))
    members = zipfile.ZipFile(wheel).namelist()
    assert "hipconv/_data/rules/runtime.yaml" in members
    assert "hipconv/_data/templates/report/summary.md.j2" in members
    assert "hipconv/data/cuda-13.names" in members

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    subprocess.run([str(bin_dir / "pip"), "install", "-q", str(wheel)], check=True, timeout=900)
    work = tmp_path / "work"  # away from the checkout, so nothing can be read from it
    work.mkdir()
    (work / "k.cu").write_text(
        "__global__ void k(float* p) { p[0] = 1; }\n"
        "int main() { float* p; cudaMalloc(&p, 4); k<<<1, 1>>>(p); return cudaFree(p); }\n"
    )
    done = subprocess.run(
        [str(bin_dir / "hipconv"), "translate", "k.cu", "-o", "k.hip", "--report", "r.md", "--kernel-launch", "hip"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = (work / "k.hip").read_text()
    assert out.startswith("#include <hip/hip_runtime.h>\n")
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, p)" in out and "hipFree(p)" in out
    assert (work / "r.md").read_text().startswith("# hipconv translation report")
