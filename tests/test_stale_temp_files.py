"""A run killed with SIGKILL can leave a temporary file (.NAME.PID.hipconv.tmp) beside a file it was writing:
in the source tree with --in-place, in the output tree with -o. A rerun removes those of a process that is
gone, with a note, and nothing else: not a running hipconv's, not a user's file of a similar name."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from helpers import run_cli

KERNEL = b"#include <cuda_runtime.h>\nvoid f(float** p) { cudaMalloc(p, 4); }\n"
NOTE = "note: a temporary file of a hipconv run that was killed (SIGKILL, a power cut): removed"


def _dead() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _plant(folder: Path, names: list[str]) -> list[Path]:
    paths = [folder / name for name in names]
    for path in paths:
        path.write_bytes(b"half a file")
    return paths


def _user_files(folder: Path, pid: int) -> list[Path]:
    """Files that look like hipconv's temporary files but are not: a user's, or a running hipconv's."""
    return _plant(
        folder,
        [
            f"a.cu.{pid}.hipconv.tmp",  # no leading dot
            ".a.cu.hipconv.tmp",  # no process id
            f".a.cu.{pid}.hipconv.tmp.bak",
            f".a.cu.{pid}.hipconv.temp",
            f".a.cu.{os.getppid()}.hipconv.tmp",  # a process that runs (the one that started this one)
        ],
    )


def test_in_place_rerun_removes_stale_temp_files_in_the_tree(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.cu").write_bytes(KERNEL)
    (src / "sub" / "b.cu").write_bytes(KERNEL)
    pid = _dead()
    stale = _plant(src, [f".a.cu.{pid}.hipconv.tmp", f".a.cu.orig.{pid}.hipconv.tmp"])
    stale += _plant(src / "sub", [f".b.cu.{pid}.hipconv.tmp", f".gone.h.{pid}.hipconv.tmp"])
    kept = _user_files(src, pid) + _user_files(src / "sub", pid)
    result = run_cli("translate", src, "--in-place")
    assert result.code == 0, result.stderr
    assert not [p for p in stale if os.path.lexists(p)]
    assert all(p.read_bytes() == b"half a file" for p in kept)
    for path in stale:
        assert f"{path}: {NOTE}" in result.stderr
    assert result.stderr.count(NOTE) == len(stale)
    assert b"hipMalloc" in (src / "sub" / "b.cu").read_bytes()


def test_in_place_rerun_of_one_file_removes_only_its_own(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_bytes(KERNEL)
    pid = _dead()
    stale = _plant(tmp_path, [f".k.cu.{pid}.hipconv.tmp", f".k.cu.orig.{pid}.hipconv.tmp"])
    other = _plant(tmp_path, [f".other.cu.{pid}.hipconv.tmp", f".k.cuh.{pid}.hipconv.tmp"])  # other files'
    kept = _user_files(tmp_path, pid)
    result = run_cli("translate", tmp_path / "k.cu", "--in-place")
    assert result.code == 0, result.stderr
    assert not [p for p in stale if os.path.lexists(p)]
    assert all(p.read_bytes() == b"half a file" for p in other + kept)
    assert result.stderr.count(NOTE) == len(stale)


def test_output_tree_rerun_removes_stale_temp_files_with_a_note(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "a.cu").write_bytes(KERNEL)
    assert run_cli("translate", src, "-o", out).code == 0
    pid = _dead()
    stale = _plant(out, [f".a.cu.{pid}.hipconv.tmp"])
    kept = _user_files(out, pid)
    result = run_cli("translate", src, "-o", out)
    assert result.code == 0, result.stderr
    assert not os.path.lexists(stale[0]) and f"{stale[0]}: {NOTE}" in result.stderr
    assert all(p.read_bytes() == b"half a file" for p in kept)


def test_dry_run_and_diff_remove_nothing(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_bytes(KERNEL)
    stale = _plant(tmp_path, [f".k.cu.{_dead()}.hipconv.tmp"])
    for mode in ("--dry-run", "--diff"):
        assert run_cli("translate", tmp_path / "k.cu", "--in-place", mode).code == 0
    assert stale[0].read_bytes() == b"half a file"
