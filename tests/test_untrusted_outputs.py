"""Nothing hipconv writes under -o goes through a symbolic link, or into a FIFO or a device, planted there
(issue #40, items 1, 2 and 9): the output marker, the translated files, build's compile_commands.json and
objects, and the hip-cpu backend's staging copy, objects, programs and their saved output. Each such path
gets a link to a file (or folder) outside -o; the run must stop with a message naming the link and leave
what the link points to as it was. The compilers are stand-ins (shell scripts that write their -o file
through links, as g++ does), so no hipcc or HIP-CPU is needed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import run_cli

KERNEL = (
    "#include <cuda_runtime.h>\n__global__ void k(float *x) { x[0] = 1; }\nint main() { cudaDeviceSynchronize(); }\n"
)
PRECIOUS = b"precious\n"

# A stand-in for hipcc and for the host C++ compiler: `--version` prints a HIP version; otherwise the file
# after -o is written with `>` (through a link, as g++ writes): an executable script when linking (no -c).
COMPILER = """#!/bin/sh
out=""; prev=""; link=1
for a in "$@"; do
  [ "$a" = "--version" ] && { echo "HIP version: 5.2.0-stand-in"; exit 0; }
  [ "$prev" = "-o" ] && out="$a"; { [ "$a" = "-c" ] || [ "$a" = "c++-header" ]; } && link=0; prev="$a"
done
[ -z "$out" ] && exit 0
if [ $link = 0 ]; then echo object > "$out"; exit 0; fi
printf '#!/bin/sh\\necho ran\\necho said >&2\\n' > "$out"; chmod +x "$out"
"""


@pytest.fixture
def compiler(tmp_path: Path) -> Path:
    path = tmp_path / "tools" / "cc"
    path.parent.mkdir()
    path.write_text(COMPILER)
    path.chmod(0o755)
    return path


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    src, out = tmp_path / "src", tmp_path / "hip"
    src.mkdir()
    (src / "k.cu").write_text(KERNEL)
    return src, out


def plant(out: Path, rel: str, tmp_path: Path) -> Path:
    """A link at out/rel (what was there removed) to a new file, or (for a folder's path) a new folder, outside
    out; returns what it points to."""
    path = out / rel
    folder = path.is_dir() and not path.is_symlink()
    if folder:
        for inner in sorted(path.rglob("*"), reverse=True):
            inner.unlink() if not inner.is_dir() or inner.is_symlink() else inner.rmdir()
        path.rmdir()
    elif os.path.lexists(path):
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    victim = tmp_path / "outside" / rel.replace("/", "_")
    victim.parent.mkdir(exist_ok=True)
    if folder:
        victim.mkdir()
    else:
        victim.write_bytes(PRECIOUS)
    path.symlink_to(victim)
    return victim


def untouched(victim: Path) -> bool:
    return sorted(os.listdir(victim)) == [] if victim.is_dir() else victim.read_bytes() == PRECIOUS


# ---------------------------------------------------------------- translate: the marker and the files


@pytest.mark.parametrize("force", [(), ("--force",)], ids=["plain", "force"])
@pytest.mark.parametrize("rel", [".hipconv-output", "k.cu", "sub"], ids=["marker", "output-file", "folder"])
def test_translate_never_writes_through_a_planted_link(
    project: tuple[Path, Path], tmp_path: Path, rel: str, force: tuple[str, ...]
) -> None:
    src, out = project
    (src / "sub").mkdir()
    (src / "sub" / "more.cu").write_text(KERNEL)
    assert run_cli("translate", src, "-o", out).code == 0
    victim = plant(out, rel, tmp_path)
    result = run_cli("translate", src, "-o", out, *force)
    assert untouched(victim)
    if rel == "k.cu":  # a link at a translated file's place is the tree's (an earlier run's): replaced, not followed
        assert result.code == 0 and not (out / rel).is_symlink() and b"hipDeviceSynchronize" in (out / rel).read_bytes()
        return
    assert result.code == 2
    assert "symbolic link" in result.stderr and str(out / rel) in result.stderr
    assert (out / rel).is_symlink()


@pytest.mark.parametrize(
    "content",
    [b"my notes\n", b"", b"[1, 2]\n", b'{"written_by": "make"}\n', b'{"rocm": "6.3"}\n', b"{" + b" " * 5000 + b"}"],
    ids=["text", "empty", "json-list", "not-hipcons", "no-writer", "over-the-limit"],
)
def test_a_file_that_is_not_hipconvs_marker_is_refused(project: tuple[Path, Path], content: bytes) -> None:
    """A tree whose marker hipconv did not write may not be hipconv's: nothing is written, unless --force."""
    src, out = project
    out.mkdir()
    (out / ".hipconv-output").write_bytes(content)
    (out / "mine.txt").write_bytes(b"mine\n")
    result = run_cli("translate", src, "-o", out)
    assert result.code == 2, result.stderr
    assert "is not the output marker hipconv writes" in result.stderr and "hint: remove" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == [".hipconv-output", "mine.txt"]
    assert (out / ".hipconv-output").read_bytes() == content
    assert run_cli("translate", src, "-o", out, "--force").code == 0
    assert b'"written_by": "hipconv' in (out / ".hipconv-output").read_bytes()


def test_a_marker_hipconv_wrote_is_accepted_noop(project: tuple[Path, Path]) -> None:
    src, out = project
    assert run_cli("translate", src, "-o", out).code == 0
    (out / "mine.txt").write_bytes(b"mine\n")
    assert run_cli("translate", src, "-o", out).code == 0
    assert (out / "mine.txt").read_bytes() == b"mine\n"


def _hipconv(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hipconv", *map(str, args)], capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.parametrize("rel", [".hipconv-output", "k.cu", "hipconv_compat.h"])
def test_a_fifo_in_the_output_tree_is_never_opened(project: tuple[Path, Path], rel: str) -> None:
    """A FIFO at the marker's place, or at a file's the run writes, is refused at once (no reader needed)."""
    src, out = project
    (src / "k.cu").write_text(KERNEL.replace("x[0] = 1;", "x[0] = 1; __syncwarp();"))
    assert _hipconv("translate", src, "-o", out).returncode == 0
    (out / rel).unlink()
    os.mkfifo(out / rel)
    done = _hipconv("translate", src, "-o", out, timeout=60)  # before: it waited for a reader for ever
    assert done.returncode in (1, 2), done.stderr
    assert "a FIFO" in done.stderr or "not the output marker" in done.stderr or "not a regular file" in done.stderr


def test_a_named_fifo_without_a_reader_does_not_outlive_sigterm(project: tuple[Path, Path]) -> None:
    """-o FIFO waits for a reader (hipconv ... -o fifo & cat fifo), but SIGTERM ends that wait at once."""
    src, _ = project
    fifo = src.parent / "out.hip"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "hipconv", "translate", str(src / "k.cu"), "-o", str(fifo)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(5)  # start-up and translation; then it waits in the open
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM and "interrupted by SIGTERM" in err


# ---------------------------------------------------------------- build: compile_commands.json, objects


@pytest.mark.parametrize(
    "rel", ["compile_commands.json", ".hipconv-build", ".hipconv-build/k.cu.o"], ids=["database", "folder", "object"]
)
def test_build_never_writes_through_a_planted_link(
    project: tuple[Path, Path], compiler: Path, tmp_path: Path, rel: str
) -> None:
    src, out = project
    first = run_cli("build", src, "-o", out, "--hipcc", compiler)
    assert first.code == 0, first.stderr
    assert (out / ".hipconv-build" / "k.cu.o").read_bytes() == b"object\n"
    victim = plant(out, rel, tmp_path)
    result = run_cli("build", src, "-o", out, "--hipcc", compiler)
    assert result.code == 2 and "symbolic link inside the output directory" in result.stderr
    assert untouched(victim)


# ---------------------------------------------------------------- hip-cpu: staging copy, objects, programs, runs


@pytest.fixture
def hip_cpu(tmp_path: Path) -> Path:
    """A stand-in HIP-CPU checkout (only its header's place is checked)."""
    root = tmp_path / "hip-cpu"
    (root / "include" / "hip").mkdir(parents=True)
    (root / "include" / "hip" / "hip_runtime.h").write_text("#pragma once\n")
    return root


@pytest.mark.parametrize(
    "rel",
    [
        ".hipconv-cpu",
        ".hipconv-cpu/src",
        ".hipconv-cpu/obj",
        ".hipconv-cpu/obj/k.cu.o",
        ".hipconv-cpu/bin/k",
        ".hipconv-cpu/bin/k.out",
        ".hipconv-cpu/bin/k.err",
    ],
)
def test_hip_cpu_never_writes_through_a_planted_link(
    project: tuple[Path, Path], compiler: Path, hip_cpu: Path, tmp_path: Path, rel: str
) -> None:
    src, out = project
    args = ("build", src, "-o", out, "--backend", "hip-cpu", "--hip-cpu", hip_cpu, "--cxx", compiler, "--run")
    first = run_cli(*args)
    assert first.code == 0, first.stderr
    assert (out / ".hipconv-cpu" / "bin" / "k.out").read_bytes() == b"ran\n"
    victim = plant(out, rel, tmp_path)
    result = run_cli(*args)
    assert untouched(victim)
    assert "symbolic link inside the output directory" in result.stderr
    assert result.code != 0
