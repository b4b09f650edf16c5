"""Worker processes that a signal cannot wedge: `Workers` (and `ordered_map`) for pipeline.run.

multiprocessing.Pool and ProcessPoolExecutor share one task pipe and one result pipe among all
workers, behind locks and helper threads. A worker killed while it holds a lock, or halfway through
sending a result, leaves Pool.terminate() or the executor's thread waiting forever: a Ctrl-C or a
SIGTERM sent to the whole process group hung hipconv that way (issue #14). Here each worker has a
pipe of its own and the parent reads them with multiprocessing.connection.wait: a worker that ends
is seen (its pipe at end of file, its sentinel ready) and nothing waits on it; stopping early kills
the workers. No threads.
"""

from __future__ import annotations

import signal
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from hipconv import interrupts

T = TypeVar("T")
R = TypeVar("R")


class WorkerEnded(RuntimeError):
    """A worker process ended while it had work: a crash, or a kill from outside (SIGKILL)."""


def _serve(
    conn: Connection,
    others: list[Connection],
    init: Callable[..., None],
    initargs: tuple[Any, ...],
    func: Callable[[T], R],
) -> None:
    """A worker: init once, then func(item) for each item received, until the parent closes the pipe.
    `others`: the parent's ends of the pipes (its own one's too), which a forked worker holds copies
    of: closed, so that the parent's closing its end is this end's end of file."""
    for other in others:
        other.close()
    init(*initargs)
    try:
        while True:
            item = conn.recv()
            try:
                reply: tuple[bool, object] = (True, func(item))
            except Exception as exc:  # the parent raises it (a HipconvError such as a missing libclang)
                reply = (False, exc)
            conn.send(reply)
    except (EOFError, OSError):  # the parent closed the pipe, or is gone
        return


AHEAD = 2  # items sent to a worker before its results come back: it starts the next while the parent is busy


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    pending: deque[int] = field(default_factory=deque)  # the indices of the items sent to it, oldest first


def ordered_map(
    context: BaseContext,
    count: int,
    func: Callable[[T], R],
    items: Iterable[T],
    *,
    init: Callable[..., None],
    initargs: tuple[Any, ...],
) -> Generator[R, None, None]:
    """func(item) for each item, computed in `count` worker processes (each runs init(*initargs) first),
    yielded in the items' order. Leaving early (an exception, closing the generator) kills the workers."""
    with Workers(context, count, func, init=init, initargs=initargs) as workers:
        yield from workers.map(items)


class Workers:
    """`count` worker processes computing func(item), each after init(*initargs), kept for several maps (one
    pool for all the phases of a run: a pool's start costs a fork and a warm-up per worker). A map left
    early (an exception, closing its generator) kills the workers; leaving the `with` block ends them."""

    def __init__(
        self,
        context: BaseContext,
        count: int,
        func: Callable[[T], R],
        *,
        init: Callable[..., None],
        initargs: tuple[Any, ...],
    ) -> None:
        self._workers: list[_Worker] = []
        try:
            with interrupts.blocked():  # no worker gets SIGINT or SIGTERM before init has set them up
                for _ in range(count):
                    self._workers.append(_start(context, func, init, initargs, self._workers))
        except BaseException:
            self.kill()
            raise

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None:
            self.kill()
        self.close()

    def map(self, items: Iterable[Any]) -> Generator[Any, None, None]:
        """func(item) for each item, yielded in the items' order."""
        work = enumerate(items)
        try:
            for _ in range(AHEAD):
                for worker in self._workers:
                    _feed(worker, work)
            yield from _results(self._workers, work)
        except BaseException:
            self.kill()
            raise

    def broadcast(self, item: Any) -> list[Any]:
        """func(item) in every worker once, all at once (between maps: what the next map's items are computed
        with); the results in the workers' order."""
        try:
            for index, worker in enumerate(self._workers):
                worker.conn.send(item)
                worker.pending.append(index)
            return list(_results(self._workers, iter(())))
        except BaseException:
            self.kill()
            raise

    def kill(self) -> None:
        for worker in self._workers:
            worker.process.kill()

    def close(self) -> None:
        """End the workers: each still waiting for work ends (its pipe closed), and is waited for."""
        for worker in self._workers:
            worker.conn.close()
        for worker in self._workers:
            worker.process.join()
        self._workers = []


def _start(
    context: BaseContext,
    func: Callable[[T], R],
    init: Callable[..., None],
    initargs: tuple[Any, ...],
    started: list[_Worker],
) -> _Worker:
    mine, theirs = context.Pipe()
    others = [w.conn for w in started] + [mine] if context.get_start_method() == "fork" else []
    new_process = context.Process  # type: ignore[attr-defined]  # typeshed: only the concrete contexts have it
    process = new_process(target=_serve, args=(theirs, others, init, initargs, func), daemon=True)
    process.start()
    theirs.close()  # the worker's end is the worker's alone: its death is this end's end of file
    return _Worker(process, mine)


def _feed(worker: _Worker, work: Iterator[tuple[int, T]]) -> None:
    """Send the next item to a worker with fewer than AHEAD. Never more: the parent sending while the worker
    sends a result must not fill both directions of the pipe, each side waiting for the other; AHEAD small
    items (a batch of jobs, not their bytes) fit in the pipe's buffer."""
    if len(worker.pending) < AHEAD:
        for index, item in work:
            worker.conn.send(item)
            worker.pending.append(index)
            return


def _results(workers: list[_Worker], work: Iterator[tuple[int, T]]) -> Iterator[R]:
    done: dict[int, R] = {}
    following = 0
    while True:
        while following in done:
            yield done.pop(following)
            following += 1
        busy = [w for w in workers if w.pending]
        if not busy:
            return
        ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
        for worker in busy:
            if worker.conn in ready or worker.process.sentinel in ready:
                done[worker.pending.popleft()] = _receive(worker)
                _feed(worker, work)


def _receive(worker: _Worker) -> Any:
    try:
        ok, payload = worker.conn.recv()
    except (EOFError, OSError):
        worker.process.join()
        code = worker.process.exitcode or 0
        if -code in (signal.SIGINT, signal.SIGTERM):  # a signal to the whole group: the run is stopped
            raise interrupts.Interrupted(-code) from None
        raise WorkerEnded(f"a worker process ended unexpectedly (exit code {code})") from None
    if not ok:
        assert isinstance(payload, BaseException)
        raise payload
    return payload
