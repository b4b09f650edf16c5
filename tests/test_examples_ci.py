"""The CI workflows shipped in examples/ci/: valid for GitHub Actions and GitLab CI (their published
schemas, vendored by check-jsonschema, so this runs offline), their Debian job installing the hipcc
packages hipconv's own CI installs, and their hipconv commands working as written."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers import run_cli

REPO = Path(__file__).resolve().parents[1]
CI = REPO / "examples" / "ci"
GITHUB, GITLAB = CI / "github-actions.yml", CI / "gitlab-ci.yml"
# a PEP 508 requirement on a commit of a git repository that is clearly not a real one
PINNED = re.compile(r"hipconv @ git\+https://git\.example\.com/\S+@[0-9a-f]{40}")


def load(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def github_steps(job: dict[str, Any]) -> Iterator[str]:
    yield from (step["run"] for step in job["steps"] if "run" in step)


def gitlab_steps(job: dict[str, Any]) -> Iterator[str]:
    for key in ("before_script", "script"):
        yield from job.get(key, [])


def commands(scripts: Iterator[str]) -> list[list[str]]:
    """The shell commands of run/script entries, split into words (one per line, `&&` splits too)."""
    found = []
    for script in scripts:
        for line in script.splitlines():
            for command in line.split("&&"):
                if command.strip():
                    found.append(shlex.split(command))
    return found


def hipcc_packages(found: list[list[str]]) -> list[frozenset[str]]:
    """The package sets of the `apt-get install` commands that install hipcc."""
    return [
        frozenset(w for w in words[2:] if not w.startswith("-"))
        for words in found
        if words[:2] == ["apt-get", "install"] and "hipcc" in words
    ]


def ci_run_commands() -> list[list[str]]:
    """The commands of .ci/run, its line continuations joined."""
    text = (REPO / ".ci" / "run").read_text(encoding="utf-8").replace("\\\n", " ")
    return commands(line.split("#")[0] for line in text.splitlines())


def jobs() -> dict[str, list[list[str]]]:
    """'<file>:<job>' -> the job's commands."""
    found = {}
    for name, job in load(GITHUB)["jobs"].items():
        found[f"github:{name}"] = commands(github_steps(job))
    for name, job in load(GITLAB).items():
        if isinstance(job, dict) and "script" in job:
            found[f"gitlab:{name}"] = commands(gitlab_steps(job))
    return found


def hipconv_commands(found: list[list[str]]) -> list[list[str]]:
    """The hipconv invocations (on PATH or from a venv), without the program name."""
    return [words[1:] for words in found if words and Path(words[0]).name == "hipconv"]


@pytest.mark.parametrize(("path", "schema"), [(GITHUB, "vendor.github-workflows"), (GITLAB, "vendor.gitlab-ci")])
def test_workflow_is_valid_for_its_ci(path: Path, schema: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_catches_a_broken_workflow(tmp_path: Path) -> None:
    """The validation above can fail: a workflow without `on:` (the README's old snippet) is refused."""
    broken = tmp_path / "broken.yml"
    broken.write_text(re.sub(r"(?m)^on:.*\n", "", GITHUB.read_text(encoding="utf-8")), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(broken)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert "'on' is a required property" in done.stdout


def test_github_workflow_runs_on_push_and_pull_requests() -> None:
    workflow = load(GITHUB)
    assert workflow[True] == ["push", "pull_request"]  # YAML 1.1 reads the key `on` as true
    assert workflow["name"]


def test_debian_jobs_install_what_hipconvs_ci_installs() -> None:
    """Each workflow has a debian:bookworm job whose apt-get line for hipcc names exactly the packages
    .ci/run installs, so the two cannot drift apart."""
    expected = hipcc_packages(ci_run_commands())
    assert len(expected) == 1 and "libamdhip64-dev" in expected[0]
    github = load(GITHUB)["jobs"]["hip-build"]
    gitlab = load(GITLAB)["hip-build"]
    assert github["container"] == "debian:bookworm" and gitlab["image"] == "debian:bookworm"
    assert hipcc_packages(commands(github_steps(github))) == expected
    assert hipcc_packages(commands(gitlab_steps(gitlab))) == expected


def test_every_job_installs_a_pinned_hipconv_from_git() -> None:
    """hipconv is not on PyPI: the workflows install it from a (placeholder) git URL pinned to a commit."""
    assert PINNED.fullmatch(load(GITHUB)["env"]["HIPCONV"])
    assert PINNED.fullmatch(load(GITLAB)["variables"]["HIPCONV"])
    for name, found in jobs().items():
        installs = [w for w in found if Path(w[0]).name == "pip" and "install" in w]
        assert installs and all(w[-1] == "$HIPCONV" for w in installs), name
        assert not any(w[:3] == ["pip", "install", "hipconv"] for w in found), name


def test_scan_commands_work_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `hipconv scan` line of the workflows runs on a project with src/ and writes its SARIF file;
    with an unported API it fails the job (exit 1)."""
    scans = [c for found in jobs().values() for c in hipconv_commands(found) if c[0] == "scan"]
    assert len(scans) == 2
    src = tmp_path / "src"
    src.mkdir()
    (src / "saxpy.cu").write_bytes((REPO / "examples" / "saxpy" / "saxpy.cu").read_bytes())
    monkeypatch.chdir(tmp_path)
    for scan in scans:
        assert run_cli(*scan).code == 0
        assert '"version": "2.1.0"' in (tmp_path / "hipconv.sarif").read_text()
        (tmp_path / "hipconv.sarif").unlink()
    (src / "flush.cu").write_text("void f() { cudaDeviceFlushGPUDirectRDMAWrites(t, s); }\n")
    assert run_cli(*scans[0]).code == 1


@pytest.mark.hipcc
def test_debian_build_command_compiles_the_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Debian jobs' `hipconv build` line, with the hipcc that .ci/run installs, on the SAXPY example."""
    builds = {tuple(c) for found in jobs().values() for c in hipconv_commands(found) if c[0] == "build"}
    assert len(builds) == 1
    shutil.copytree(REPO / "examples" / "saxpy", tmp_path / "src")
    monkeypatch.chdir(tmp_path)
    result = run_cli(*next(iter(builds)))
    assert result.code == 0, result.stderr
    assert (tmp_path / "hip" / "saxpy.cu").read_text().count("hipMalloc") >= 1
    assert '"failed": 0' in (tmp_path / "hip-build.json").read_text()


def test_docs_show_the_workflows_commands() -> None:
    """docs/scan.md's GitHub Actions and GitLab CI section shows commands the workflows run, as they run them."""
    page = (REPO / "docs" / "scan.md").read_text(encoding="utf-8").split("## GitHub Actions and GitLab CI", 1)[1]
    blocks = re.findall(r"```sh\n(.*?)```", page, re.S)
    shown = [shlex.split(line) for block in blocks for line in block.splitlines() if line.strip()]
    assert len(shown) == 3
    run = [[Path(c[0]).name, *c[1:]] for found in jobs().values() for c in found if c]  # /opt/hipconv/bin/hipconv
    assert [c for c in shown if c not in run] == []
