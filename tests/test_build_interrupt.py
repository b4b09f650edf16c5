"""An interrupted `hipconv build --backend hip-cpu` ends the compilers it started, with their own children.

A job runner or `kill` signals hipconv's process alone, not its process group as a terminal's Ctrl-C does,
so hipconv itself must end the compilers (g++ and the cc1plus, as and ld that g++ runs). The compiler here
is a stand-in shell script (no HIP-CPU or g++ needed): a compile starts a `sleep` (a child of the
compiler, as cc1plus is g++'s) and waits for it; every pid is written down, and after the signal none of
them may live on.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TIMEOUT = 60.0  # seconds for the compiles to start, and for the signalled run to end

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and process groups")

# every command but a compile (the probes for C++17 and TBB, the prelude's precompile) succeeds at once
COMPILER = """#!/bin/sh
case " $* " in
  *" -c "*) echo $$ >> "{pids}"; sleep 300 & echo $! >> "{pids}"; wait ;;
  *c++-header*) exit 1 ;;
  *) exit 0 ;;
esac
"""


def _alive(pid: int) -> bool:
    """Is `pid` a process that still runs (a zombie waiting for a parent to reap it has ended)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _pids(path: Path) -> list[int]:
    return [int(word) for word in path.read_text().split()] if path.exists() else []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_to_hipconv_alone_ends_its_compilers_and_their_children(tmp_path: Path, signum: int) -> None:
    pids = tmp_path / "pids"
    compiler = tmp_path / "c++"
    compiler.write_text(COMPILER.format(pids=pids))
    compiler.chmod(0o755)
    hip_cpu = tmp_path / "HIP-CPU"
    (hip_cpu / "include" / "hip").mkdir(parents=True)
    (hip_cpu / "include" / "hip" / "hip_runtime.h").write_text("")
    for name in ("a", "b"):
        (tmp_path / "src" / name).mkdir(parents=True)
        (tmp_path / "src" / name / "main.cu").write_text("int main() { return 0; }\n")
    command = [sys.executable, "-m", "hipconv", "build", str(tmp_path / "src"), "-o", str(tmp_path / "out")]
    command += ["--backend", "hip-cpu", "--hip-cpu", str(hip_cpu), "--cxx", str(compiler), "-j", "2"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + TIMEOUT
        while len(_pids(pids)) < 4:  # both compiles (-j 2) and their sleeps have started
            assert proc.poll() is None, proc.communicate()[1].decode()
            assert time.monotonic() < deadline, "the compiles did not start"
            time.sleep(0.05)
        os.kill(proc.pid, signum)  # hipconv's process alone, not its group
        _, err = proc.communicate(timeout=TIMEOUT)
        assert proc.returncode == 128 + signum, err.decode()
        assert f"interrupted by {signal.Signals(signum).name}" in err.decode()
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in _pids(pids)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in _pids(pids) if _alive(pid)] == []
    finally:
        for pid in _pids(pids):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
