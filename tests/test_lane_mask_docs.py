"""docs/lane-masks.md: its example, translated by the command it shows, prints the diagnostic it shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from helpers import run_cli

DOC = Path(__file__).resolve().parents[1] / "docs" / "lane-masks.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_documented_command_prints_the_documented_diagnostic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "half_warp.cu").write_text(blocks("cuda")[0])
    (command,) = blocks("sh")
    argv = shlex.split(command)
    assert argv[0] == "hipconv"
    monkeypatch.chdir(tmp_path)  # the diagnostic names the file as the command does
    done = run_cli(*argv[1:])
    printed = done.stderr.splitlines()
    for line in blocks("text")[0].splitlines():
        assert line in printed, f"{line!r} not among {printed}"
