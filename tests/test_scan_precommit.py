"""The pre-commit hook: the docs/scan.md's snippet names the hook of .pre-commit-hooks.yaml with arguments its
entry accepts, `pre-commit autoupdate --freeze` pins it to a commit, and, for real, `pre-commit try-repo
<this checkout> hipconv-scan` in a temporary git repo."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers import run_cli

REPO = Path(__file__).resolve().parents[1]
UNPORTED_CALL = (
    "  cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, "
    "cudaFlushGPUDirectRDMAWritesToOwner);"
)


def readme_snippet() -> dict[str, Any]:
    """The YAML block of docs/scan.md's "## pre-commit" section, parsed."""
    page = (REPO / "docs" / "scan.md").read_text(encoding="utf-8")
    section = page.split("\n## pre-commit\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block is not None, "no YAML block in docs/scan.md's pre-commit section"
    config = yaml.safe_load(block.group(1))
    assert isinstance(config, dict)
    return config


def hooks() -> dict[str, dict[str, Any]]:
    """The hooks this repository offers, by id."""
    return {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}


def _pre_commit() -> list[str] | None:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        return [exe] if (exe := shutil.which("pre-commit")) else None
    return [sys.executable, "-m", "pre_commit"]


def test_readme_snippet_uses_this_repositorys_hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The snippet's hook id exists, its rev is a commit (hipconv has no tags), its URL is an obvious
    placeholder, and the hook's entry accepts its args: on the files pre-commit passes, it fails on an
    unported API and passes once that is suppressed."""
    (repo,) = readme_snippet()["repos"]
    assert "example.com" in repo["repo"]
    assert re.fullmatch(r"[0-9a-f]{40}", str(repo["rev"])), repo["rev"]
    (snippet_hook,) = repo["hooks"]
    hook = hooks()[snippet_hook["id"]]
    assert re.search(hook["files"], "src/kernels/reduce.cu") and not re.search(hook["files"], "docs/scan.md.md")
    program, *entry_args = hook["entry"].split()
    assert program == "hipconv"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.cu").write_text(f"#include <cuda_runtime.h>\nvoid flush() {{\n{UNPORTED_CALL}\n}}\n")
    failed = run_cli(*entry_args, *snippet_hook["args"], "x.cu")
    assert failed.code == 1 and "x.cu:3:3: error[HC002" in failed.stdout.decode()
    (tmp_path / "x.cu").write_text(f"void flush() {{\n  // hipconv: ignore[HC002]\n{UNPORTED_CALL}\n}}\n")
    assert run_cli(*entry_args, *snippet_hook["args"], "x.cu").code == 0


def test_readme_snippet_is_a_valid_config_that_autoupdate_pins(tmp_path: Path) -> None:
    """With the placeholder URL replaced by this repository, pre-commit accepts the snippet, and
    `pre-commit autoupdate --freeze --repo URL` (as the docs/scan.md says) sets rev to a commit's SHA: this
    repository has no tags, so its HEAD's."""
    command = _pre_commit()
    if command is None:
        pytest.skip("pre-commit is not installed (pip install '.[test]')")
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    if head.returncode != 0:
        pytest.skip("this checkout is not a git repository")
    tags = subprocess.run(["git", "-C", str(REPO), "tag"], capture_output=True, text=True, check=False).stdout
    config = readme_snippet()
    config["repos"][0]["repo"] = str(REPO)
    path = tmp_path / ".pre-commit-config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), NO_COLOR="1")

    def pre_commit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *args], cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=300
        )

    validated = pre_commit("validate-config", str(path))
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=False).returncode == 0
    updated = pre_commit("autoupdate", "--freeze", "--repo", str(REPO))
    assert updated.returncode == 0, updated.stdout + updated.stderr
    rev = yaml.safe_load(path.read_text(encoding="utf-8"))["repos"][0]["rev"]
    assert re.fullmatch(r"[0-9a-f]{40}", rev)
    if not tags.strip():
        assert rev == head.stdout.strip()


@pytest.mark.slow
def test_hook_fails_on_an_unported_api_and_passes_when_suppressed(tmp_path: Path) -> None:
    command = _pre_commit()
    if command is None:
        pytest.skip("pre-commit is not installed (pip install '.[test]')")
    (snippet_hook,) = readme_snippet()["repos"][0]["hooks"]
    hook_id = snippet_hook["id"]  # the docs/scan.md's hook, run from this checkout (its uncommitted changes too)
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
        return run(*command, "try-repo", str(REPO), hook_id, "--files", "x.cu", "--color", "never")

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
