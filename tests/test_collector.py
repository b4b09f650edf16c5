"""The collector policies of hipconv.collector: a command runs with a higher first-generation threshold, given
back after it; the rule table is made with the collector paused and frozen out of its scans after."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli
from hipconv.collector import YOUNG_THRESHOLD, fewer_collections, made_to_last
from hipconv.commands import translate as translate_command


def test_a_command_runs_with_fewer_young_collections_and_gives_the_thresholds_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[int, ...]] = []
    real_plan = translate_command.plan

    def plan(*args: Any, **kwargs: Any) -> Any:  # what the threshold is while the command runs
        seen.append(gc.get_threshold())
        return real_plan(*args, **kwargs)

    monkeypatch.setattr(translate_command, "plan", plan)
    before = gc.get_threshold()
    (tmp_path / "k.cu").write_text("__global__ void k(float* p) { p[0] = 1; }\n")
    assert run_cli("translate", tmp_path / "k.cu", "-o", tmp_path / "k.hip", "--no-cache").code == 0
    assert seen == [(YOUNG_THRESHOLD, *before[1:])]
    assert gc.get_threshold() == before
    with fewer_collections():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        with pytest.raises(RuntimeError):
            with fewer_collections():
                raise RuntimeError("a command that fails")
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
    assert gc.get_threshold() == before


@pytest.mark.parametrize("enabled", [True, False])
def test_what_is_made_to_last_is_frozen_and_the_collector_comes_back_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    frozen = gc.get_freeze_count()
    try:
        with made_to_last():
            assert not gc.isenabled()
            table = {f"name{n}": [n] for n in range(1000)}
        assert gc.isenabled() is enabled
        assert gc.get_freeze_count() >= frozen + len(table)
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()
