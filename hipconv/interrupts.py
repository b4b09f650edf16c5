"""What SIGINT (Ctrl-C) and SIGTERM do, in one place.

- hipconv.cli runs a command under `raising()`: the first of them raises Interrupted in the main
  thread, and later ones are ignored so that clean-up finishes; the command line exits 128 + the
  signal number (130, 143) with one line on stderr.
- Writes run under `deferred()`: a signal that comes while a file is written is acted on once it is
  written, so an interruption never lands between creating a temporary file and renaming it.
- Pool workers (hipconv.pool) run `in_worker()`: they ignore SIGINT (a Ctrl-C reaches the whole
  process group and the parent stops the run), simply end on SIGTERM, and end when the parent is
  gone (SIGKILL). They fork under `blocked()`, so none gets a signal before that is set up.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _raw_signals() -> Any:
    """signal's getsignal and signal without the conversion of their results to enums (the C module):
    deferred() runs once per file written, and signal.getsignal of a Python handler costs an exception."""
    try:
        return importlib.import_module("_signal")
    except ImportError:
        return signal


_RAW = _raw_signals()


class Interrupted(BaseException):
    """SIGINT or SIGTERM stopped the run (raised once, by `raising()`'s handler).

    Not an Exception, so no `except Exception` swallows it; not a KeyboardInterrupt, which click
    would turn into an abort.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def raising() -> Iterator[None]:
    """While inside, the first SIGINT or SIGTERM raises Interrupted and later ones are ignored. A
    signal ignored when hipconv started (nohup, a background job) stays ignored. Main thread only."""
    if not _main_thread():
        yield
        return
    before = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}

    def stop(signum: int, frame: FrameType | None) -> None:
        for each in STOP_SIGNALS:
            signal.signal(each, signal.SIG_IGN)
        raise Interrupted(signum)

    for signum, handler in before.items():
        if handler is not signal.SIG_IGN:
            signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """While inside, a SIGINT or SIGTERM with a Python handler is held; it is raised again on leaving."""
    if not _main_thread():
        yield
        return
    came: list[int] = []
    before = {signum: _RAW.getsignal(signum) for signum in STOP_SIGNALS}
    held = [signum for signum, handler in before.items() if callable(handler)]
    for signum in held:
        _RAW.signal(signum, _Hold(came, before[signum]))
    try:
        yield
    finally:
        for signum in held:
            _RAW.signal(signum, before[signum])
        if came:
            signal.raise_signal(came[0])


class _Hold:
    """deferred()'s handler: notes the signal; `before` is the handler it stands in for."""

    def __init__(self, came: list[int], before: Any) -> None:
        self.came, self.before = came, before

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.came.append(signum)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Inside deferred(), a wait that leaves nothing half-written (the blocking open of a FIFO, until a reader
    comes): SIGINT and SIGTERM act at once while inside, with the handlers deferred() held them from (and one
    that came before the wait acts now), so no such wait outlives a signal. Main thread only."""
    if not _main_thread():
        yield
        return
    holds = {signum: h for signum in STOP_SIGNALS if isinstance(h := _RAW.getsignal(signum), _Hold)}
    for signum, hold in holds.items():
        _RAW.signal(signum, hold.before)
    try:
        for hold in holds.values():
            if hold.came:
                signal.raise_signal(hold.came.pop())
        yield
    finally:
        for signum, hold in holds.items():
            if _RAW.getsignal(signum) is hold.before:  # (raising()'s handler ignores both once it has run)
                _RAW.signal(signum, hold)


@contextlib.contextmanager
def blocked() -> Iterator[None]:
    """SIGINT and SIGTERM held by the calling thread (and by processes and threads it starts) while
    inside; one that came reaches it on leaving. Where there is no pthread_sigmask, nothing."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def in_worker(parent: int) -> None:
    """A pool worker's signals: SIGINT ignored, SIGTERM ends it (not the parent's handler), unblocked.
    And it ends when the `parent` process does (killed with SIGKILL, it can end no one)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    threading.Thread(target=_end_with, args=(parent,), name="hipconv-parent-watch", daemon=True).start()


def _end_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)
