"""hipconv.pool.ordered_map and Workers: results in order, errors raised in the parent, workers never left behind,
one pool kept for several maps."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Generator, Iterable
from typing import TypeVar

import pytest

from hipconv import interrupts
from hipconv.errors import ConfigError
from hipconv.pool import WorkerEnded, Workers, ordered_map

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork start method")
CONTEXT = multiprocessing.get_context("fork")
R = TypeVar("R")


def _init(parent: int) -> None:
    interrupts.in_worker(parent)


def _square_slowly(n: int) -> tuple[int, int]:
    time.sleep(0.01 * (n % 3))  # uneven: results come back out of order
    return n * n, os.getpid()


def _fail_on_three(n: int) -> int:
    if n == 3:
        raise ConfigError("three")
    return n


def _die_on_two(n: int) -> int:
    if n == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


def _terminated_on_one(n: int) -> int:
    if n == 1:
        os.kill(os.getpid(), signal.SIGTERM)  # as a SIGTERM sent to the whole process group would
        time.sleep(5)
    return n


def _map(func: Callable[[int], R], items: Iterable[int], count: int = 3) -> Generator[R, None, None]:
    return ordered_map(CONTEXT, count, func, items, init=_init, initargs=(os.getpid(),))


def _no_children_left() -> bool:
    return multiprocessing.active_children() == []


def test_results_in_order_from_several_workers() -> None:
    results = list(_map(_square_slowly, range(20)))
    assert [square for square, _ in results] == [n * n for n in range(20)]
    assert len({pid for _, pid in results}) > 1
    assert _no_children_left()


def test_more_workers_than_items_and_no_items() -> None:
    assert [s for s, _ in _map(_square_slowly, [4], count=4)] == [16]
    assert list(_map(_square_slowly, [])) == []
    assert _no_children_left()


def test_a_workers_exception_is_raised_in_the_parent() -> None:
    with pytest.raises(ConfigError, match="three"):
        list(_map(_fail_on_three, range(10)))
    assert _no_children_left()


def test_a_worker_that_dies_is_reported_and_the_rest_are_killed() -> None:
    with pytest.raises(WorkerEnded, match="exit code -9"):
        list(_map(_die_on_two, range(10)))
    assert _no_children_left()


def test_a_worker_stopped_by_sigterm_stops_the_run() -> None:
    with pytest.raises(interrupts.Interrupted) as stopped:
        list(_map(_terminated_on_one, range(10)))
    assert stopped.value.signum == signal.SIGTERM
    assert _no_children_left()


def test_leaving_early_kills_the_workers() -> None:
    results = _map(_square_slowly, range(100))
    assert next(results)[0] == 0
    started = time.monotonic()
    results.close()
    assert time.monotonic() - started < 5
    assert _no_children_left()


_SCALE = [1]  # what a worker multiplies by: set by a broadcast


def _scaled(item: tuple[str, int]) -> tuple[int, int]:
    what, n = item
    if what == "scale":
        _SCALE[0] = n
        return 0, os.getpid()
    time.sleep(0.01 * (n % 3))
    return n * _SCALE[0], os.getpid()


def test_one_pool_for_several_maps_told_between_them() -> None:
    with Workers(CONTEXT, 2, _scaled, init=_init, initargs=(os.getpid(),)) as workers:
        first = list(workers.map(("n", n) for n in range(10)))
        told = workers.broadcast(("scale", 10))
        second = list(workers.map(("n", n) for n in range(10)))
    assert [v for v, _ in first] == list(range(10))
    assert [v for v, _ in second] == [10 * n for n in range(10)]  # every worker was told
    assert len({pid for _, pid in told}) == 2
    assert {pid for _, pid in first + second} == {pid for _, pid in told}  # the same two processes throughout
    assert _no_children_left()


def test_a_map_left_early_kills_the_kept_workers() -> None:
    with pytest.raises(ConfigError, match="three"):
        with Workers(CONTEXT, 2, _fail_on_three, init=_init, initargs=(os.getpid(),)) as workers:
            assert list(workers.map(range(3))) == [0, 1, 2]
            list(workers.map(range(10)))
    assert _no_children_left()
