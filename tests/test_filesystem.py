"""What hipconv does with the file system's corner cases (issue #14): backups, special files, symbolic
links, unlistable directories, big files, unwritable reports and odd names. Every test drives the
command line and checks exit codes, messages and files; special files are FIFOs and symbolic links
made in the test's own directory, never the real /dev."""

from __future__ import annotations

import contextlib
import errno
import filecmp
import json
import os
import stat
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv import atomic, file_reads

KERNEL = b"#include <cuda_runtime.h>\n__global__ void k() {}\nvoid f() { cudaFree(0); k<<<1, 1>>>(); }\n"
PLAIN = b"int plain() { return 0; }\n"  # nothing to translate, nothing to find


def hip_of(data: bytes) -> bool:
    return b"hipFree(0)" in data and b"cudaFree" not in data


@pytest.fixture
def src(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "kernels").mkdir(parents=True)
    (root / "kernels" / "k.cu").write_bytes(KERNEL)
    (root / "notes.txt").write_bytes(b"notes\n")
    return root


@contextlib.contextmanager
def fifo_reader(path: Path) -> Iterator[list[bytes]]:
    """A FIFO at `path` with a reader thread; the list holds what was written into it once the block ends."""
    os.mkfifo(path)
    got: list[bytes] = []

    def read() -> None:
        with open(path, "rb") as fh:
            got.append(fh.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        yield got
    finally:
        deadline = time.monotonic() + 5
        while thread.is_alive() and time.monotonic() < deadline:  # nobody wrote: let the reader go
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                time.sleep(0.01)
            thread.join(0.1)
        assert not thread.is_alive()


# ---------------------------------------------------------------- --in-place backups (2, 14, 13)


def test_a_second_in_place_run_keeps_the_original_backup(src: Path) -> None:
    k = src / "kernels" / "k.cu"
    assert run_cli("translate", src, "--in-place").code == 0
    first = k.read_bytes()
    result = run_cli("translate", src, "--in-place", "--kernel-launch", "hip")
    assert result.code == 0, result.stderr
    assert (src / "kernels" / "k.cu.orig").read_bytes() == KERNEL  # still the original
    assert b"hipLaunchKernelGGL" in k.read_bytes() and k.read_bytes() != first
    assert f"{k}.orig: note: already exists and is kept as it is" in result.stderr
    again = run_cli("translate", src, "--in-place", "--kernel-launch", "hip")  # nothing changes: no note
    assert again.code == 0 and "note" not in again.stderr


@pytest.mark.parametrize("kind", ["regular file", "directory", "dangling link"])
def test_an_existing_backup_is_never_overwritten(src: Path, kind: str) -> None:
    k = src / "kernels" / "k.cu"
    orig = src / "kernels" / "k.cu.orig"
    if kind == "regular file":
        orig.write_bytes(b"older backup\n")
    elif kind == "directory":
        orig.mkdir()
    else:
        orig.symlink_to("nowhere")
    result = run_cli("translate", src, "--in-place")
    if kind == "regular file":  # kept, and the file is translated (the note says so)
        assert result.code == 0 and "k.cu.orig: note: already exists" in result.stderr
        assert orig.read_bytes() == b"older backup\n" and hip_of(k.read_bytes())
    else:  # not a backup hipconv could keep: the file is left alone
        assert result.code == 2
        assert (
            f"{k}: error: cannot write output: the backup k.cu.orig exists and is not a regular file" in result.stderr
        )
        assert k.read_bytes() == KERNEL
        assert orig.is_dir() if kind == "directory" else os.readlink(orig) == "nowhere"
    assert not [p for p in src.rglob("*.hipconv.tmp")]


def test_a_backup_made_meanwhile_by_another_run_is_kept(src: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two runs at once: whichever makes the backup first wins, the other keeps it (created exclusively)."""
    real_link = os.link

    def other_run_first(source: str, target: str) -> None:
        Path(target).write_bytes(KERNEL)  # the other run's backup, made just before ours
        real_link(source, target)

    monkeypatch.setattr(atomic.os, "link", other_run_first)
    result = run_cli("translate", src / "kernels" / "k.cu", "--in-place")
    assert result.code == 0 and "note: already exists" in result.stderr
    assert (src / "kernels" / "k.cu.orig").read_bytes() == KERNEL


def test_backup_without_hard_links_is_created_exclusively(src: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_hard_links(source: str, target: str) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(atomic.os, "link", no_hard_links)
    assert run_cli("translate", src, "--in-place").code == 0
    assert (src / "kernels" / "k.cu.orig").read_bytes() == KERNEL
    assert run_cli("translate", src, "--in-place", "--kernel-launch", "hip").code == 0
    assert (src / "kernels" / "k.cu.orig").read_bytes() == KERNEL


@pytest.mark.parametrize("suffix", ["", "/x", "a/b", "/"])
def test_bad_backup_suffix_is_a_usage_error(src: Path, suffix: str) -> None:
    result = run_cli("translate", src, "--in-place", "--backup-suffix", suffix)
    assert result.code == 2
    assert "--backup-suffix" in result.stderr and "Traceback" not in result.stderr
    assert (src / "kernels" / "k.cu").read_bytes() == KERNEL
    assert sorted(p.name for p in src.rglob("*")) == ["k.cu", "kernels", "notes.txt"]


# ---------------------------------------------------------------- special files and links as outputs (3)


@pytest.mark.parametrize("through_link", [False, True], ids=["fifo", "link-to-fifo"])
@pytest.mark.parametrize("option", ["-o", "--report"])
def test_special_file_outputs_are_written_into(src: Path, tmp_path: Path, option: str, through_link: bool) -> None:
    k = src / "kernels" / "k.cu"
    fifo = tmp_path / "fifo"
    target = tmp_path / "link" if through_link else fifo
    with fifo_reader(fifo) as got:
        if through_link:
            target.symlink_to(fifo)
        args = [k, "-o", target] if option == "-o" else [k, "-o", tmp_path / "k.hip", "--report", target]
        result = run_cli("translate", *args)  # no --force needed: nothing is overwritten
    assert result.code == 0, result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert not through_link or os.readlink(target) == str(fifo)
    assert hip_of(got[0]) if option == "-o" else json.loads(got[0])["files"][0]["path"] == str(k)
    made = {"k.hip"} if option == "--report" else set()
    assert set(os.listdir(tmp_path)) == {"src", "fifo", *made, *(["link"] if through_link else [])}


@pytest.mark.parametrize("option", ["-o", "--report"])
def test_symlinked_outputs_are_written_through(src: Path, tmp_path: Path, option: str) -> None:
    k = src / "kernels" / "k.cu"
    real, link = tmp_path / "real", tmp_path / "link"
    real.write_bytes(b"old\n")
    link.symlink_to(real.name)
    args = [k, "-o", link, "--force"] if option == "-o" else [k, "--report", link]
    result = run_cli("translate", *args)
    assert result.code == 0, result.stderr
    assert os.readlink(link) == real.name  # still a link
    assert hip_of(real.read_bytes()) if option == "-o" else json.loads(real.read_bytes())["files"]


@pytest.mark.parametrize("option", ["-o", "--report"])
def test_dangling_output_link_is_not_written_through(src: Path, tmp_path: Path, option: str) -> None:
    link = tmp_path / "link"
    link.symlink_to("missing")
    result = run_cli("translate", src / "kernels" / "k.cu", option, link, "--force")
    assert result.code == 2 and "dangling symbolic link" in result.stderr and "Traceback" not in result.stderr
    assert os.readlink(link) == "missing" and not (tmp_path / "missing").exists()


def test_output_tree_links_are_replaced_not_written_through(src: Path, tmp_path: Path) -> None:
    """Inside an -o tree (hipconv's own), a stale link is replaced, and a linked directory is not entered."""
    out, outside = tmp_path / "out", tmp_path / "outside"
    outside.mkdir()
    (outside / "k.cu").write_bytes(b"someone else's\n")
    assert run_cli("translate", src, "-o", out).code == 0
    (out / "notes.txt").unlink()
    (out / "notes.txt").symlink_to(outside / "k.cu")
    assert run_cli("translate", src, "-o", out).code == 0
    assert (out / "notes.txt").read_bytes() == b"notes\n" and not (out / "notes.txt").is_symlink()
    assert (outside / "k.cu").read_bytes() == b"someone else's\n"
    for p in (out / "kernels").iterdir():
        p.unlink()
    (out / "kernels").rmdir()
    (out / "kernels").symlink_to(outside)
    result = run_cli("translate", src, "-o", out)
    assert result.code == 2
    assert "k.cu: error: cannot write output:" in result.stderr and "through a symbolic link" in result.stderr
    assert (outside / "k.cu").read_bytes() == b"someone else's\n"


# ---------------------------------------------------------------- symbolic links in the input (4)


@pytest.fixture
def linked(src: Path, tmp_path: Path) -> tuple[Path, Path]:
    """src with links out of the tree (a directory and a file) and into it (a file, a directory, the root)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ext.cu").write_bytes(KERNEL)
    (src / "etc").symlink_to(outside)
    (src / "ext.cu").symlink_to(outside / "ext.cu")
    (src / "alias.cu").symlink_to("kernels/k.cu")
    (src / "kernels" / "same").symlink_to(src / "kernels")  # absolute, inside
    (src / "kernels" / "up").symlink_to("..")
    return src, outside


def test_links_out_of_the_tree_are_skipped_with_a_note(linked: tuple[Path, Path], tmp_path: Path) -> None:
    src, outside = linked
    out = tmp_path / "out"
    result = run_cli("translate", src, "-o", out)
    assert result.code == 0, result.stderr
    for name, target in (("etc", outside), ("ext.cu", outside / "ext.cu")):
        assert f"{src / name}: note: symbolic link to {target}, outside the input tree: not followed" in result.stderr
        assert not os.path.lexists(out / name)
    inplace = run_cli("translate", src, "--in-place")
    assert inplace.code == 0 and "--follow-symlinks" in inplace.stderr
    assert (outside / "ext.cu").read_bytes() == KERNEL and sorted(os.listdir(outside)) == ["ext.cu"]
    scan = run_cli("scan", src, "--fail-on", "error")
    assert scan.code == 0 and f"{src / 'etc'}: note: symbolic link to" in scan.stderr


def test_links_inside_the_tree_stay_links(linked: tuple[Path, Path], tmp_path: Path) -> None:
    src, _ = linked
    out = tmp_path / "out"
    result = run_cli("translate", src, "-o", out)
    assert result.code == 0, result.stderr
    assert os.readlink(out / "alias.cu") == "kernels/k.cu"
    assert os.readlink(out / "kernels" / "same") == "." and os.readlink(out / "kernels" / "up") == ".."
    assert hip_of((out / "alias.cu").read_bytes())  # the link's target, translated once
    assert sorted(p.name for p in out.rglob("*") if not p.is_symlink()) == [
        ".hipconv-output",
        "k.cu",
        "kernels",
        "notes.txt",
    ]
    assert run_cli("translate", src, "-o", out).code == 0  # a rerun changes nothing
    assert os.readlink(out / "alias.cu") == "kernels/k.cu"
    inplace = run_cli("translate", src, "--in-place")
    assert inplace.code == 0
    assert os.readlink(src / "alias.cu") == "kernels/k.cu" and hip_of((src / "kernels" / "k.cu").read_bytes())
    assert sorted(p.name for p in src.rglob("*.orig")) == ["k.cu.orig"]  # one backup: the link is not a file


def test_follow_symlinks_follows_links_out_of_the_tree(linked: tuple[Path, Path], tmp_path: Path) -> None:
    src, outside = linked
    out = tmp_path / "out"
    result = run_cli("translate", src, "-o", out, "--follow-symlinks")
    assert result.code == 0, result.stderr
    assert hip_of((out / "etc" / "ext.cu").read_bytes()) and hip_of((out / "ext.cu").read_bytes())
    assert not (out / "etc").is_symlink() and not (out / "ext.cu").is_symlink()
    assert (outside / "ext.cu").read_bytes() == KERNEL
    inplace = run_cli("translate", src, "--in-place", "--follow-symlinks")
    assert inplace.code == 0, inplace.stderr
    assert (src / "ext.cu").is_symlink() and hip_of((outside / "ext.cu").read_bytes())  # through the link


def test_a_named_link_is_followed_and_kept(src: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.cu"
    link.symlink_to(src / "kernels" / "k.cu")
    result = run_cli("translate", link, "--in-place")
    assert result.code == 0, result.stderr
    assert link.is_symlink() and hip_of((src / "kernels" / "k.cu").read_bytes())
    assert (tmp_path / "link.cu.orig").read_bytes() == KERNEL


# ---------------------------------------------------------------- unlistable directories (5)


@pytest.mark.parametrize("command", ["translate", "scan"])
def test_unlistable_directory_is_reported(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    (src / "secret").mkdir()
    (src / "secret" / "s.cu").write_bytes(KERNEL)
    real_scandir = os.scandir

    def scandir(path: str = ".") -> object:
        if os.fspath(path).endswith("secret"):
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    args = ["-o", tmp_path / "out"] if command == "translate" else []
    result = run_cli(command, src, *args)
    assert result.code == 2
    assert f"{src / 'secret'}: error: cannot list directory: Permission denied" in result.stderr
    if command == "translate":
        assert hip_of((tmp_path / "out" / "kernels" / "k.cu").read_bytes())


def test_unreadable_directory_really(src: Path, tmp_path: Path) -> None:
    secret = src / "secret"
    secret.mkdir()
    secret.chmod(0)
    try:
        try:
            os.listdir(secret)
        except PermissionError:
            pass
        else:
            pytest.skip("running as a user (root) who can list a chmod 000 directory")
        result = run_cli("translate", src, "-o", tmp_path / "out")
        assert result.code == 2 and f"{secret}: error: cannot list directory: Permission denied" in result.stderr
    finally:
        secret.chmod(0o755)


def test_paths_past_path_max_are_reported(src: Path, tmp_path: Path) -> None:
    name = "d" * 200
    fd = os.open(src, os.O_RDONLY)
    try:
        for _ in range(4200 // len(name)):  # deeper than PATH_MAX (4096) from /
            os.mkdir(name, dir_fd=fd)
            fd, parent = os.open(name, os.O_RDONLY, dir_fd=fd), fd
            os.close(parent)
        os.close(os.open("deep.cu", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    finally:
        os.close(fd)
    result = run_cli("translate", src, "-o", tmp_path / "out")
    assert result.code == 2
    assert ": error: cannot list directory: File name too long" in result.stderr
    assert hip_of((tmp_path / "out" / "kernels" / "k.cu").read_bytes())


# ---------------------------------------------------------------- big files (12)


def test_big_non_source_files_are_copied_by_streaming(src: Path, tmp_path: Path) -> None:
    weights = src / "weights.bin"
    with open(weights, "wb") as fh:
        fh.truncate(file_reads.MAX_SOURCE_BYTES + 1024 * 1024)  # sparse: quick to make
    out = tmp_path / "out"
    tracemalloc.start()
    try:
        result = run_cli("translate", src, "-o", out)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.code == 0, result.stderr
    assert peak < file_reads.MAX_SOURCE_BYTES  # never read as a whole
    assert filecmp.cmp(weights, out / "weights.bin", shallow=False)
    before = (out / "weights.bin").stat().st_mtime_ns
    assert run_cli("translate", src, "-o", out).code == 0
    assert (out / "weights.bin").stat().st_mtime_ns == before  # unchanged: not rewritten


@pytest.mark.parametrize("name", ["data.bin", "CMakeLists.txt", "README"])
def test_non_source_files_over_the_limit_are_copied(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setattr(file_reads, "MAX_SOURCE_BYTES", 16)
    data = b"project(x LANGUAGES CUDA)\n" * 4
    (src / name).write_bytes(data)
    (src / name).chmod(0o640)
    result = run_cli("translate", src, "-o", tmp_path / "out")
    assert result.code == 2 and "k.cu: error: larger than" in result.stderr  # a source file is still refused
    assert name not in result.stderr
    assert (tmp_path / "out" / name).read_bytes() == data
    assert stat.S_IMODE((tmp_path / "out" / name).stat().st_mode) == 0o640


# ---------------------------------------------------------------- reports that cannot be written (13)


@pytest.mark.parametrize("where", ["directory", "under a file", "missing directory"])
@pytest.mark.parametrize("command", ["translate", "scan"])
def test_unwritable_report_is_a_clear_error(src: Path, tmp_path: Path, command: str, where: str) -> None:
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    path = {"directory": tmp_path, "under a file": blocker / "r.json", "missing directory": tmp_path / "a" / "r.json"}
    args = ["--report", path[where], "-o", tmp_path / "out"] if command == "translate" else ["-o", path[where]]
    result = run_cli(command, src, *args)
    if where == "missing directory":  # made, as for -o
        assert result.code == 0 and path[where].exists()
        return
    assert result.code == 2 and "Traceback" not in result.stderr
    assert str(path[where]) in result.stderr
    assert "is a directory" in result.stderr if where == "directory" else "Not a directory" in result.stderr


@pytest.mark.parametrize("suffix", [".md", ".json"])
def test_report_names_a_file_whose_name_is_not_utf8(tmp_path: Path, suffix: str) -> None:
    root = tmp_path / "src"
    root.mkdir()
    name = os.fsdecode(b"caf\xe9.cu")
    (root / name).write_bytes(KERNEL + b"void g() { cudaDeviceFlushGPUDirectRDMAWrites(t, s); }\n")  # listed
    report = tmp_path / f"r{suffix}"
    result = run_cli("translate", root, "-o", tmp_path / "out", "--report", report)
    assert result.code == 0, result.stderr
    assert hip_of((tmp_path / "out" / name).read_bytes())
    if suffix == ".md":
        assert "caf\\xe9.cu" in report.read_text(encoding="utf-8")
    else:
        assert json.loads(report.read_bytes())["files"][0]["path"] == str(root / name)


# ---------------------------------------------------------------- special files as inputs (17)


@pytest.mark.parametrize("through_link", [False, True], ids=["fifo", "link-to-fifo (like /dev/stdin)"])
@pytest.mark.parametrize("command", ["translate", "scan"])
def test_a_named_special_file_is_an_error(tmp_path: Path, command: str, through_link: bool) -> None:
    fifo = tmp_path / "in.cu"
    os.mkfifo(fifo)
    named = fifo
    if through_link:
        named = tmp_path / "stdin"
        named.symlink_to(fifo)
    ok = tmp_path / "ok.cu"
    ok.write_bytes(PLAIN)
    for args in ([named], [named, ok, *(["-o", tmp_path / "out"] if command == "translate" else [])]):
        result = run_cli(command, *args)
        assert result.code == 2, args
        assert f"{named}: error: a FIFO, not a regular file" in result.stderr


@pytest.mark.parametrize("command", ["translate", "scan"])
def test_special_files_in_a_tree_are_skipped_with_a_note(src: Path, tmp_path: Path, command: str) -> None:
    (src / "kernels" / "k.cu").write_bytes(PLAIN)
    os.mkfifo(src / "pipe.cu")
    (src / "stdin").symlink_to(src / "pipe.cu")  # a link to it inside the tree is kept as a link
    result = run_cli(command, src, *(["-o", tmp_path / "out"] if command == "translate" else []))
    assert result.code == 0, result.stderr
    assert f"{src / 'pipe.cu'}: note: a FIFO, not a regular file: skipped" in result.stderr
    if command == "translate":
        assert not os.path.lexists(tmp_path / "out" / "pipe.cu")
        assert os.readlink(tmp_path / "out" / "stdin") == "pipe.cu"


# ---------------------------------------------------------------- the output marker's name (19)


def test_a_file_named_like_the_output_marker_is_reported(src: Path, tmp_path: Path) -> None:
    (src / ".hipconv-output").write_bytes(b"mine\n")
    (src / "kernels" / ".hipconv-output").write_bytes(b"nested\n")
    out = tmp_path / "out"
    result = run_cli("translate", src, "-o", out)
    assert result.code == 0, result.stderr
    assert f"{src / '.hipconv-output'}: note: .hipconv-output is the name of hipconv's output marker" in result.stderr
    assert json.loads((out / ".hipconv-output").read_bytes())["written_by"].startswith("hipconv")
    assert (out / "kernels" / ".hipconv-output").read_bytes() == b"nested\n"  # only the root's is the marker
    assert "kernels/.hipconv-output" not in result.stderr
