"""The write stage: the only place (with discover) that touches the file system.

Writes only what changed, atomically (a temporary file in the same directory,
then os.replace), keeping the source's permission bits.
"""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile
from pathlib import Path
from typing import BinaryIO

from hipconv.pipeline import FileResult, Status


def content_of(result: FileResult, source_path: str) -> bytes | None:
    """What the output file should hold: the translation, or the source as it is."""
    if result.output is not None:
        return result.output
    if result.status in (Status.UNCHANGED,):
        with open(source_path, "rb") as fh:
            return fh.read()
    return None


def write_atomic(dest: Path, data: bytes, *, mode_from: str | None = None) -> bool:
    """Write data to dest unless it already holds exactly that. Returns True when written."""
    try:
        if dest.is_file() and dest.stat().st_size == len(data) and dest.read_bytes() == data:
            return False
    except OSError:
        pass
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if mode_from is not None:
            shutil.copymode(mode_from, tmp)
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return True


def backup(path: Path, suffix: str) -> Path:
    target = path.with_name(path.name + suffix)
    write_atomic(target, path.read_bytes(), mode_from=str(path))
    return target


def unified_diff(result: FileResult, source_path: str, out: BinaryIO) -> None:
    if result.status is not Status.CONVERTED or result.output is None:
        return
    with open(source_path, "rb") as fh:
        before = fh.read().decode("utf-8").splitlines(keepends=True)
    after = result.output.decode("utf-8").splitlines(keepends=True)
    for line in difflib.unified_diff(before, after, f"a/{result.path}", f"b/{result.path}"):
        out.write(line.encode("utf-8"))
        if not line.endswith("\n"):
            out.write(b"\n\\ No newline at end of file\n")
