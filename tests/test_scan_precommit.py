"""The pre-commit hook, for real: `pre-commit try-repo <this checkout> hipconv-scan` in a temporary git repo."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
UNPORTED_CALL = (
    "  cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, "
    "cudaFlushGPUDirectRDMAWritesToOwner);"
)


def _pre_commit() -> list[str] | None:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        return [exe] if (exe := shutil.which("pre-commit")) else None
    return [sys.executable, "-m", "pre_commit"]


@pytest.mark.slow
def test_hook_fails_on_an_unported_api_and_passes_when_suppressed(tmp_path: Path) -> None:
    command = _pre_commit()
    if command is None:
        pytest.skip("pre-commit is not installed (pip install '.[test]')")
    work = tmp_path / "work"
    work.mkdir()
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="hipconv tests",
        GIT_AUTHOR_EMAIL="tests@hipconv.invalid",
        GIT_COMMITTER_NAME="hipconv tests",
        GIT_COMMITTER_EMAIL="tests@hipconv.invalid",
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        NO_COLOR="1",
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, check=False, cwd=work, env=env, capture_output=True, text=True, timeout=900)

    def try_repo() -> subprocess.CompletedProcess[str]:
        return run(*command, "try-repo", str(REPO), "hipconv-scan", "--files", "x.cu", "--color", "never")

    assert run("git", "init", "-q").returncode == 0
    source = work / "x.cu"
    source.write_text(f"#include <cuda_runtime.h>\nvoid flush() {{\n{UNPORTED_CALL}\n}}\n")
    assert run("git", "add", "x.cu").returncode == 0
    assert run("git", "commit", "-q", "-m", "CUDA source").returncode == 0

    failed = try_repo()
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert "x.cu:3:3: error[HC002 cudart.cudaDeviceFlushGPUDirectRDMAWrites]" in output

    source.write_text(f"#include <cuda_runtime.h>\nvoid flush() {{\n  // hipconv: ignore[HC002]\n{UNPORTED_CALL}\n}}\n")
    assert run("git", "add", "x.cu").returncode == 0
    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
