"""One run of a built program for `hipconv build --run`: its output kept whole up to a bound, and every
process it started ended with it.

- **Output.** Standard output goes to a pseudo-terminal where one can be opened, so that the C library
  flushes it at each newline (stdio buffers a pipe in blocks, and a program killed at --run-timeout
  would lose up to a block of what it printed); the terminal translates nothing (raw mode: `\\n` stays
  `\\n`). Standard error is a pipe (stdio does not buffer it). Both are read while the program runs and
  written to their files at once, so what the program wrote before a kill is kept. Each stream keeps at
  most `limit` bytes: beyond that the program is stopped (it would otherwise fill the disk, or run to
  --run-timeout printing into nothing) and the note says so.
- **Processes.** The program starts in a session and process group of its own, and carries a mark in its
  environment (RUN_MARK=<random id>) that its children inherit. When it ends, is past its time or
  overflows, its group is killed, and then every process that carries the mark or descends from one that
  does (a child that called setsid() left the group, not the mark); on a system with no /proc, only the
  group.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

RUN_MARK = "HIPCONV_RUN_ID"
OUTPUT_LIMIT_MB = 16  # per stream (--run-output-limit)
_POLL_S = 0.05
_READ_S = 5.0  # after the program's processes are gone, how long its streams may take to drain
_SWEEPS = 20  # rounds of killing the marked processes (each one that forks meanwhile is caught next round)


@dataclass(frozen=True)
class Captured:
    returncode: int  # -1: stopped (timeout, too much output) or could not start
    note: str = ""  # why it was stopped
    cut: tuple[str, ...] = ()  # the streams whose output was cut at the limit ("stdout", "stderr")
    ended: int = 0  # processes it left behind that were killed after it ended (or when it was stopped)


class _Stream(threading.Thread):
    """Copies one stream to its file as it comes, up to `limit` bytes; sets `overflow` past that."""

    def __init__(self, fd: int, sink: BinaryIO, limit: int, overflow: threading.Event) -> None:
        super().__init__(daemon=True)
        self.fd, self.sink, self.limit, self.overflow = fd, sink, limit, overflow
        self.kept = 0
        self.cut = False

    def run(self) -> None:
        try:
            while True:
                try:
                    data = os.read(self.fd, 1 << 16)
                except OSError:  # EIO: the terminal's last writer is gone
                    break
                if not data:
                    break
                room = self.limit - self.kept
                if len(data) > room:
                    data, self.cut = data[:room], True
                self.sink.write(data)  # hipconv's buffer: a kill of the program cannot lose it
                self.kept += len(data)
                if self.cut:
                    self.overflow.set()
                    break
        finally:
            os.close(self.fd)


def run_captured(
    command: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    out: BinaryIO,
    err: BinaryIO,
    timeout: float,
    limit: int = OUTPUT_LIMIT_MB << 20,
) -> Captured:
    """Run `command` as the module docstring says; OSError when it cannot start."""
    mark = uuid.uuid4().hex
    read_out, write_out = _terminal_or_pipe()
    read_err, write_err = os.pipe()
    try:
        proc = subprocess.Popen(
            list(command),
            cwd=cwd,
            env={**env, RUN_MARK: mark},
            stdin=subprocess.DEVNULL,
            stdout=write_out,
            stderr=write_err,
            start_new_session=True,
        )
    except BaseException:
        for fd in (read_out, write_out, read_err, write_err):
            os.close(fd)
        raise
    os.close(write_out)
    os.close(write_err)
    overflow = threading.Event()
    streams = [_Stream(read_out, out, limit, overflow), _Stream(read_err, err, limit, overflow)]
    for stream in streams:
        stream.start()
    note = ""
    try:
        note = _wait(proc, timeout, overflow, limit)
    finally:
        ended = end_all(proc.pid, mark)
        proc.wait()
        for stream in streams:
            stream.join(_READ_S)
    cut = tuple(name for name, s in zip(("stdout", "stderr"), streams) if s.cut)
    return Captured(-1 if note else proc.returncode, note, cut, ended)


def _wait(proc: subprocess.Popen[bytes], timeout: float, overflow: threading.Event, limit: int) -> str:
    """ "" when the program exited by itself, else why it is to be stopped."""
    deadline = time.monotonic() + timeout
    cut = f"printed more than {_mib(limit)} on one stream: stopped, output cut (--run-output-limit)"
    while True:
        try:
            proc.wait(_POLL_S)
            return cut if overflow.is_set() else ""  # one that died as its output was cut (EPIPE) was stopped
        except subprocess.TimeoutExpired:
            pass
        if overflow.is_set():
            return cut
        if time.monotonic() >= deadline:
            return f"did not finish in {timeout:g} s (--run-timeout)"


def _terminal_or_pipe() -> tuple[int, int]:
    """(read end, write end): a pseudo-terminal in raw mode where one opens, else a pipe."""
    try:
        import pty
        import tty

        reader, writer = pty.openpty()
    except (ImportError, OSError):
        return os.pipe()
    tty.setraw(writer)
    return reader, writer


def end_all(pid: int, mark: str) -> int:
    """Kill the process group `pid` leads, then every process that carries `mark` in its environment or
    descends from one that does; the number of processes killed besides `pid` itself."""
    _kill_group(pid)
    killed: set[int] = set()
    for _ in range(_SWEEPS):
        found = _marked(mark) - {os.getpid()}
        if not found:
            break
        for other in found:
            try:
                os.kill(other, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                continue
            killed.add(other)
        time.sleep(0.01)
    return len(killed - {pid})


def _kill_group(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _marked(mark: str) -> set[int]:
    """The live processes whose environment holds RUN_MARK=mark, and their descendants."""
    needle = f"{RUN_MARK}={mark}".encode()
    parents: dict[int, int] = {}
    marked: set[int] = set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return set()
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
            state_and_ppid = stat[stat.rindex(b")") + 2 :].split()
            if state_and_ppid[0] in (b"Z", b"X"):  # a zombie's environment is gone; it is dead already
                continue
            parents[int(entry)] = int(state_and_ppid[1])
            if needle in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                marked.add(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    grown = True
    while grown:
        more = {p for p, parent in parents.items() if parent in marked} - marked
        marked |= more
        grown = bool(more)
    return marked


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB"
