"""docs/lane-masks.md: each example, translated by the command shown after it, prints the diagnostic shown
after that (the file is the command's last argument)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from helpers import run_cli

DOC = Path(__file__).resolve().parents[1] / "docs" / "lane-masks.md"
# an example, its command and what it prints, in the page's order
EXAMPLE = re.compile(r"```cuda\n(?P<cuda>.*?)```.*?```sh\n(?P<sh>.*?)```.*?```text\n(?P<text>.*?)```", re.S)


def examples() -> list[tuple[str, str, str]]:
    return [(m["cuda"], m["sh"], m["text"]) for m in EXAMPLE.finditer(DOC.read_text(encoding="utf-8"))]


def test_every_command_has_its_example() -> None:
    page = DOC.read_text(encoding="utf-8")
    assert len(examples()) == page.count("```sh\n") == 2


@pytest.mark.parametrize(("cuda", "command", "printed"), examples(), ids=[shlex.split(c)[-1] for _, c, _ in examples()])
def test_the_documented_command_prints_the_documented_diagnostic(
    cuda: str, command: str, printed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = shlex.split(command)
    assert argv[0] == "hipconv"
    (tmp_path / argv[-1]).write_text(cuda)
    monkeypatch.chdir(tmp_path)  # the diagnostic names the file as the command does
    done = run_cli(*argv[1:])
    lines = done.stderr.splitlines()
    for line in printed.splitlines():
        assert line in lines, f"{line!r} not among {lines}"
