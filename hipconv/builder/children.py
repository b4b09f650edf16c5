"""The processes `hipconv build` starts (compilers, linkers, the programs that --run runs), each in a
process group of its own, so that hipconv can end each one together with its own children (g++'s cc1plus,
as and ld; a program's helpers).

SIGINT or SIGTERM sent to hipconv's process alone (by a job runner or `kill`, where a terminal's Ctrl-C
reaches the whole process group) raises Interrupted in the main thread; whoever started the processes
then calls `Children.stop()`, which ends every group still running and lets no new process start (one
started later would also inherit the signals that hipconv ignores while it cleans up). A timeout ends
the command's whole group too.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import IO, Any, NamedTuple, TypeVar

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")
_GRACE_S = 2.0  # after SIGTERM, how long a group has to end before SIGKILL


class Stopped(Exception):
    """The command was not started: its Children were stopped."""


class Finished(NamedTuple):
    returncode: int
    stdout: bytes  # b"" when it went elsewhere


class Children:
    """The process groups of one build's commands: run() starts and waits for one; stop() ends all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: set[int] = set()
        self._stopped = False

    def run(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | os.PathLike[str] | None = None,
        timeout: float | None = None,
        stdout: int | IO[Any] = subprocess.PIPE,
        stderr: int | IO[Any] = subprocess.STDOUT,
        stdin: int | IO[Any] = subprocess.DEVNULL,
    ) -> Finished:
        """Run `command` in a process group of its own; on a timeout (subprocess.TimeoutExpired, raised with
        the output so far) or an exception in the waiting thread (Interrupted), its group is killed first.
        Raises Stopped once stop() was called, OSError when it cannot start."""
        with self._lock:
            if self._stopped:
                raise Stopped(command[0])
            proc = subprocess.Popen(
                list(command), env=dict(env), cwd=cwd, stdin=stdin, stdout=stdout, stderr=stderr, start_new_session=True
            )
            self._groups.add(proc.pid)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            _signal_group(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            raise subprocess.TimeoutExpired(exc.cmd, exc.timeout, output=out) from None
        except BaseException:
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        finally:
            with self._lock:
                self._groups.discard(proc.pid)
        return Finished(proc.returncode, out or b"")

    def stop(self) -> None:
        """End every group still running (SIGTERM, then SIGKILL to those left after a grace period), and
        start no more."""
        with self._lock:
            self._stopped = True
            groups = sorted(self._groups)
        for group in groups:
            _signal_group(group, signal.SIGTERM)
        deadline = time.monotonic() + _GRACE_S
        while groups and time.monotonic() < deadline:
            groups = [g for g in groups if _group_alive(g)]
            time.sleep(0.02)
        for group in groups:
            _signal_group(group, signal.SIGKILL)


def _signal_group(group: int, signum: int) -> None:
    try:
        os.killpg(group, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def in_parallel(
    function: Callable[[_Item, Children], _Result], items: Sequence[_Item], *, jobs: int
) -> Iterator[_Result]:
    """`function(item, children)` for every item, `jobs` at a time, the results as they finish. Interrupted
    (an exception in the consuming thread, or the generator closed early), it starts no more commands and
    ends those still running before it returns."""
    children = Children()
    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        try:
            futures = [pool.submit(function, item, children) for item in items]
            for future in as_completed(futures):
                yield future.result()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            children.stop()
            raise
