"""An output that cannot be written (under a regular file, on a read-only or a full file system, without
permission) ends the run with `error: OUT: cannot write: <reason>` and exit 2, or, for one file of many,
that file's error; never a traceback, and never a file half-written (no temporary file is left)."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from helpers import run_cli, tree
from hipconv import atomic
from hipconv.discover import OUTPUT_MARKER

KERNEL = b"#include <cuda_runtime.h>\n__global__ void k(float* p) { *p = 1; }\n"
KERNEL += b"void f(float** p) { cudaMalloc(p, 4); }\n"


@pytest.fixture
def src(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "sub").mkdir(parents=True)
    (root / "a.cu").write_bytes(KERNEL)
    (root / "sub" / "b.cu").write_bytes(KERNEL)
    (root / "notes.txt").write_bytes(b"copied as it is\n")
    return root


@pytest.fixture
def hipcc(tmp_path: Path) -> Path:
    """A hipcc that says its version and compiles everything."""
    fake = tmp_path / "bin" / "hipcc"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\n[ "$1" = --version ] && echo "HIP version: 6.3.42131-fa1d09cbd"\nexit 0\n')
    fake.chmod(0o755)
    return fake


def _command(kind: str, src: Path, out: Path, hipcc: Path) -> list[str | Path]:
    if kind == "translate-tree":
        return ["translate", src, "-o", out]
    if kind == "translate-file":
        return ["translate", src / "a.cu", "-o", out]
    return ["build", src, "-o", out, "--hipcc", hipcc, "--check-only"]


KINDS = ["translate-tree", "translate-file", "build"]


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "Errno" not in stderr, stderr


@pytest.mark.parametrize("kind", KINDS)
def test_output_under_a_regular_file(tmp_path: Path, src: Path, hipcc: Path, kind: str) -> None:
    blocker = tmp_path / "file"
    blocker.write_bytes(b"not a directory\n")
    out = blocker / ("out.cu" if kind == "translate-file" else "out")
    result = run_cli(*_command(kind, src, out, hipcc))
    assert result.code == 2, result.stderr
    _no_traceback(result.stderr)
    # the output marker is read first now (#40: a marker must be hipconv's), and says why it cannot be
    assert "cannot write" in result.stderr or "cannot read" in result.stderr
    if kind != "translate-file":  # a tree: stopped at its marker, before anything is translated
        assert f"error: {out / '.hipconv-output'}: cannot read" in result.stderr
    assert blocker.read_bytes() == b"not a directory\n"


def _failing_writes(monkeypatch: pytest.MonkeyPatch, code: int, *, marker_too: bool) -> None:
    """Every new file fails as a file system failing with `code` makes it fail (the marker of an output tree
    only when marker_too: then the tree cannot be started)."""
    real = atomic._filled_temp

    def failing(dest: Path, content: object, mode: int) -> Path:
        if dest.name == OUTPUT_MARKER and not marker_too:
            return real(dest, content, mode)  # type: ignore[arg-type]
        raise OSError(code, os.strerror(code), str(dest))

    monkeypatch.setattr(atomic, "_filled_temp", failing)


FILE_SYSTEM_ERRORS = [errno.EROFS, errno.ENOSPC, errno.EDQUOT]  # the whole output: the run stops


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("code", [*FILE_SYSTEM_ERRORS, errno.EACCES, errno.ENOTDIR])
def test_output_directory_that_cannot_be_started(
    tmp_path: Path, src: Path, hipcc: Path, monkeypatch: pytest.MonkeyPatch, kind: str, code: int
) -> None:
    out = tmp_path / ("out.cu" if kind == "translate-file" else "out")
    _failing_writes(monkeypatch, code, marker_too=True)
    result = run_cli(*_command(kind, src, out, hipcc))
    assert result.code == 2, result.stderr
    _no_traceback(result.stderr)
    if kind == "translate-file" and code not in FILE_SYSTEM_ERRORS:
        assert f"{src / 'a.cu'}: error: cannot write output: {os.strerror(code)}" in result.stderr
    else:
        assert f"error: {out}: cannot write: {os.strerror(code)}" in result.stderr
    assert not os.path.lexists(out) or not [p for p in Path(out).rglob("*") if p.is_file()]


@pytest.mark.parametrize("kind", ["translate-tree", "build"])
@pytest.mark.parametrize("code", FILE_SYSTEM_ERRORS)
def test_file_system_full_or_read_only_in_the_middle_stops_the_run(
    tmp_path: Path, src: Path, hipcc: Path, monkeypatch: pytest.MonkeyPatch, kind: str, code: int
) -> None:
    out = tmp_path / "out"
    _failing_writes(monkeypatch, code, marker_too=False)
    result = run_cli(*_command(kind, src, out, hipcc))
    assert result.code == 2, result.stderr
    _no_traceback(result.stderr)
    assert f"error: {out}: cannot write: {os.strerror(code)}" in result.stderr
    assert result.stderr.count("cannot write") == 1  # not one error per file
    assert tree(out) == {} and not [p for p in out.rglob("*.hipconv.tmp")]  # nothing half-written
    assert (out / OUTPUT_MARKER).is_file()  # a rerun may write into it


@pytest.mark.parametrize("code", [errno.EACCES, errno.ENOTDIR])
def test_a_file_that_cannot_be_written_fails_alone(
    tmp_path: Path, src: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    out = tmp_path / "out"
    real = atomic._filled_temp

    def failing(dest: Path, content: object, mode: int) -> Path:
        if dest.name == "b.cu":
            raise OSError(code, os.strerror(code), str(dest))
        return real(dest, content, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(atomic, "_filled_temp", failing)
    result = run_cli("translate", src, "-o", out)
    assert result.code == 2, result.stderr
    _no_traceback(result.stderr)
    assert f"{src / 'sub' / 'b.cu'}: error: cannot write output: {os.strerror(code)}" in result.stderr
    assert sorted(tree(out)) == ["a.cu", "notes.txt"]


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mounts a 64 KiB tmpfs with the given options (skips where mounting is not allowed); unmounted after."""
    mounted: list[Path] = []

    def mount(options: str) -> Path:
        point = tmp_path / f"fs{len(mounted)}"
        point.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size=64k,{options}", "tmpfs", str(point)], capture_output=True
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
        mounted.append(point)
        return point

    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    yield mount
    for point in mounted:
        subprocess.run(["umount", str(point)], check=True)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fs", ["read-only", "full"])
def test_real_read_only_and_full_file_systems(
    src: Path, hipcc: Path, small_tmpfs: Callable[[str], Path], kind: str, fs: str
) -> None:
    point = small_tmpfs("ro" if fs == "read-only" else "rw")
    if fs == "full":
        fd = os.open(point / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            with pytest.raises(OSError, match="No space left"):
                while True:
                    os.write(fd, b"\0" * 4096)
        finally:
            os.close(fd)
    out = point / ("out.cu" if kind == "translate-file" else "out")
    result = run_cli(*_command(kind, src, out, hipcc))
    assert result.code == 2, result.stderr
    _no_traceback(result.stderr)
    reason = os.strerror(errno.EROFS if fs == "read-only" else errno.ENOSPC)
    assert f"error: {out}: cannot write: {reason}" in result.stderr
    files = sorted(p.name for p in point.rglob("*") if not p.is_dir())  # an empty directory may stay
    assert files == ([] if fs == "read-only" else ["filler"])
