"""The README's "A port, end to end": its commands, run as written on a small CUDA tree, do what the
text around them says (the build step compiles only where hipcc is installed)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, hipcc_path

from helpers import run_cli

README = Path(__file__).resolve().parents[1] / "README.md"
UNPORTED = FIXTURES / "unported_apis" / "cuda" / "rdma_signal.cu"
PORTABLE = FIXTURES / "vector_add" / "cuda"
NEW_CALL = "void later() { cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, 0); }\n"


def workflow_commands() -> list[list[str]]:
    """The hipconv commands of the README's end-to-end block, in order, without their comments and
    pipes (a `| less` is for a person)."""
    section = README.read_text().split("## A port, end to end", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = []
    for line in block.replace("\\\n", " ").splitlines():
        words = shlex.split(line.split("|", 1)[0], comments=True)
        if words:
            assert words[0] == "hipconv", line
            commands.append(words[1:])
    return commands


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "src"
    shutil.copytree(PORTABLE, src / "vector")
    (src / "rdma").mkdir()
    shutil.copy(UNPORTED, src / "rdma" / UNPORTED.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_readme_workflow_runs_as_written(project: Path) -> None:
    commands = workflow_commands()
    assert [c[0] for c in commands] == ["scan", "translate", "build", "translate", "scan", "scan"]
    scan, diff, build, annotate, write_baseline, gate = commands

    first = run_cli(*scan)
    assert first.code == 1 and b"HC002" in first.stdout  # findings on stdout: what blocks a first gate
    assert not (project / "hip").exists()

    shown = run_cli(*diff)
    assert shown.code == 0 and b"+++ " in shown.stdout and not (project / "hip").exists()

    if hipcc_path() is not None:
        built = run_cli(*build)
        assert built.code in (0, 1), built.stderr  # 1: a TU that does not compile, grouped by cause
        assert (project / "hip" / "vector").is_dir()

    marked = run_cli(*annotate)
    assert marked.code == 0, marked.stderr
    annotated = (project / "hip" / "rdma" / UNPORTED.name).read_text()
    assert "// hipconv: HC002 cudaDeviceFlushGPUDirectRDMAWrites" in annotated
    report = (project / "port.md").read_text()
    assert (
        report.index("## Summary") < report.index("Unported APIs") < report.index("cudaDeviceFlushGPUDirectRDMAWrites")
    )
    again = run_cli(*annotate)  # markers are idempotent: the tree does not change
    assert again.code == 0 and (project / "hip" / "rdma" / UNPORTED.name).read_text() == annotated

    assert run_cli(*write_baseline).code == 0
    baseline = json.loads((project / ".hipconv-baseline.json").read_text())
    assert baseline
    assert run_cli(*gate).code == 0  # today's findings are accepted

    with (project / "src" / "rdma" / UNPORTED.name).open("a") as fh:
        fh.write(NEW_CALL)
    blocked = run_cli(*gate)
    assert blocked.code == 1
    last = len((project / "src" / "rdma" / UNPORTED.name).read_text().splitlines())
    reported = re.findall(rb"^\S+:(\d+):\d+: \w+\[(HC\d{3})", blocked.stdout, re.MULTILINE)
    assert reported and {line for line, _ in reported} == {str(last).encode()}  # the new line only
