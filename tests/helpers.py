"""Shared test helpers: run the CLI in-process and capture everything."""

from __future__ import annotations

import contextlib
import io
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from hipconv.cli import main
from hipconv.translate.lexer import TokenKind, lex


@dataclass
class Run:
    code: int
    stdout: bytes
    stderr: str


def run_cli(*args: str | Path) -> Run:
    out, err = io.BytesIO(), io.StringIO()
    fake_stdout = io.TextIOWrapper(out, encoding="utf-8")
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(fake_stdout):
        code = main([str(a) for a in args])
        fake_stdout.flush()
    return Run(code, out.getvalue(), err.getvalue())


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".hipconv-output"}


def check_golden(out: Path, expected: Path, *, update: bool) -> None:
    """The translated tree `out` equals the golden tree `expected` (rewritten first with --update-golden)."""
    if update:
        shutil.rmtree(expected, ignore_errors=True)
        shutil.copytree(out, expected, ignore=shutil.ignore_patterns(".hipconv-output"))
    got, want = tree(out), tree(expected)
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name].decode() == want[name].decode(), name


def comment_annotations(data: bytes) -> list[tuple[int, str]]:
    """(line the annotation applies to, annotation text) from `// expect...` comments (comment tokens only)."""
    tokens = lex(data)
    found = []
    for i in range(len(tokens)):
        if tokens.kinds[i] != TokenKind.COMMENT:
            continue
        text = tokens.text(i).lstrip("/* ").rstrip("*/ ").strip()
        if text.startswith(("expect:", "expect-ok", "todo-expect:")):
            line = data.count(b"\n", 0, tokens.starts[i]) + 1
            found.append((line + 1, text))
    return found


__all__ = ["Run", "run_cli", "tree", "check_golden", "comment_annotations", "sys"]
