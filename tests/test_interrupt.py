"""Interruptions (issue #14): Ctrl-C, SIGTERM and SIGKILL at random moments of a `-j 2` run, then a rerun;
and the rule cache, which must neither leak temporary files nor grow without bound.

Each trial runs `python -m hipconv translate` in its own session (so that a Ctrl-C can reach the whole
process group, workers included, as a terminal's does), waits until a seeded random number of outputs
exist, sends the signal, and checks: the exit code and one line on stderr; every file either absent or
complete (byte-identical to a clean run's); no temporary file; a rerun without --force completes the
tree. The normal lane runs a few trials; `-m slow` runs many more.
"""

from __future__ import annotations

import os
import pickle
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import run_cli, tree
from hipconv import interrupts
from hipconv.resources import cache_dir
from hipconv.rules import cache
from hipconv.rules.model import RuleSet

DIRS, FILES_PER_DIR = 8, 40  # 320 sources: a -j 2 run takes a second or two
PROGRESS = re.compile(r"hipconv: \d+/\d+ files")
TIMEOUT = 60.0  # seconds a signalled run may take to end: far beyond "promptly", short of a hang

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and process groups")


def _source(d: int, n: int) -> bytes:
    return (
        f"#include <cuda_runtime.h>\n__global__ void k{n}(float* p) {{ p[threadIdx.x] = {d}; }}\n"
        f"int run{n}() {{\n  float* p;\n  cudaMalloc(&p, {n + 4});\n  k{n}<<<1, 1>>>(p);\n"
        "  cudaMemcpy(p, p, 4, cudaMemcpyDeviceToDevice);\n  cudaDeviceSynchronize();\n"
        "  return cudaFree(p);\n}\n"
    ).encode() * 3


@dataclass(frozen=True)
class Corpus:
    src: Path
    originals: dict[str, bytes]  # relative path -> source bytes
    expected: dict[str, bytes]  # relative path -> what a clean run writes


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    root = tmp_path_factory.mktemp("interrupt")
    src = root / "src"
    for d in range(DIRS):
        (src / f"d{d}").mkdir(parents=True)
        for n in range(FILES_PER_DIR):
            (src / f"d{d}" / f"k{n}.cu").write_bytes(_source(d, n))
    (src / "notes.txt").write_bytes(b"copied as it is\n")
    clean = root / "clean"
    assert run_cli("translate", src, "-o", clean).code == 0
    return Corpus(src, tree(src), tree(clean))


def _start(*args: str | Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "hipconv", "translate", *map(str, args), "-j", "2"]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def _wait_until(proc: subprocess.Popen[bytes], ready: Callable[[], bool]) -> None:
    """Until `ready()` (some outputs exist); the run must not end first."""
    deadline = time.monotonic() + TIMEOUT
    while not ready():
        assert proc.poll() is None, "the run ended before the signal"
        assert time.monotonic() < deadline, "no output appeared"
        time.sleep(0.002)


def _finish(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the interrupted run hung")
    finally:
        _kill_group(proc.pid)
    return proc.returncode, err.decode(errors="replace")


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _count(folder: Path, pattern: str = "*.cu") -> int:
    return sum(1 for _ in folder.rglob(pattern)) if folder.exists() else 0


def _temp_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.hipconv.tmp"))


def _assert_one_line(err: str, name: str) -> None:
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line and not PROGRESS.fullmatch(line)]
    assert lines == [f"interrupted by {name}: every file written so far is complete"], err


def _assert_no_partial_file(out: Path, expected: dict[str, bytes]) -> None:
    for rel, data in tree(out).items():
        if rel.endswith(".hipconv.tmp"):
            continue  # only a SIGKILL may leave one (checked by the callers)
        assert rel in expected and data == expected[rel], f"{rel}: not what a clean run writes"


def _rerun_completes(corpus: Corpus, out: Path) -> None:
    result = run_cli("translate", corpus.src, "-o", out, "-j", "2")  # no --force: the directory is ours
    assert result.code == 0, result.stderr
    assert tree(out) == corpus.expected  # temporary files included: a rerun removes a killed run's


def _signal_trial(corpus: Corpus, out: Path, rng: random.Random, signum: int, *, group: bool) -> None:
    """Signal a run into `out` (the process group, as a terminal's Ctrl-C does, or the parent alone,
    as `kill` does) once a random number of outputs exist."""
    total = len(corpus.expected)
    threshold = rng.randint(1, total // 3)
    proc = _start(corpus.src, "-o", out)
    _wait_until(proc, lambda: _count(out) >= threshold)
    time.sleep(rng.uniform(0, 0.02))
    (os.killpg if group else os.kill)(proc.pid, signum)
    code, err = _finish(proc)
    assert code == 128 + signum, err
    _assert_one_line(err, signal.Signals(signum).name)
    assert _temp_files(out) == []
    _assert_no_partial_file(out, corpus.expected)
    _rerun_completes(corpus, out)


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        if int(text[text.rindex(")") + 2 :].split()[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _running(pid: int) -> bool:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text[text.rindex(")") + 2] != "Z"


def _sigkill_trial(corpus: Corpus, out: Path, rng: random.Random) -> None:
    """SIGKILL the parent alone (kill -9, the OOM killer): its workers must end on their own; no output
    is partial; a rerun without --force completes the tree and removes any temporary file left."""
    threshold = rng.randint(1, len(corpus.expected) // 3)
    proc = _start(corpus.src, "-o", out)
    _wait_until(proc, lambda: _count(out) >= threshold)
    time.sleep(rng.uniform(0, 0.02))
    workers = _children(proc.pid) if Path("/proc/self/stat").exists() else []
    proc.kill()
    try:
        assert proc.wait(timeout=TIMEOUT) == -signal.SIGKILL
        deadline = time.monotonic() + TIMEOUT
        while any(_running(pid) for pid in workers):
            assert time.monotonic() < deadline, "a worker outlived its killed parent"
            time.sleep(0.05)
    finally:
        _kill_group(proc.pid)
        proc.communicate()
    assert (out / ".hipconv-output").is_file()  # written first
    _assert_no_partial_file(out, corpus.expected)
    _rerun_completes(corpus, out)


def _in_place_trial(corpus: Corpus, work: Path, rng: random.Random) -> None:
    """Ctrl-C an --in-place run: every source is the original or its whole translation, every backup
    holds the original; a rerun finishes the job and keeps the backups."""
    shutil.copytree(corpus.src, work)
    sources = {rel: data for rel, data in corpus.originals.items() if rel.endswith(".cu")}
    threshold = rng.randint(1, len(sources) // 3)
    proc = _start(work, "--in-place")
    _wait_until(proc, lambda: _count(work, "*.cu.orig") >= threshold)
    time.sleep(rng.uniform(0, 0.02))
    os.killpg(proc.pid, signal.SIGINT)
    code, err = _finish(proc)
    assert code == 130, err
    _assert_one_line(err, "SIGINT")
    assert _temp_files(work) == []
    for rel, original in sources.items():
        assert (work / rel).read_bytes() in (original, corpus.expected[rel]), rel
        backup = work / f"{rel}.orig"
        assert not backup.exists() or backup.read_bytes() == original, rel
    result = run_cli("translate", work, "--in-place", "-j", "2")
    assert result.code == 0, result.stderr
    for rel, original in sources.items():
        assert (work / rel).read_bytes() == corpus.expected[rel], rel
        assert (work / f"{rel}.orig").read_bytes() == original, rel
    assert _temp_files(work) == []


# ---------------------------------------------------------------- the normal lane: a few trials


@pytest.mark.parametrize("trial", range(3))
def test_ctrl_c_stops_cleanly_and_a_rerun_completes(corpus: Corpus, tmp_path: Path, trial: int) -> None:
    _signal_trial(corpus, tmp_path / "out", random.Random(f"sigint-{trial}"), signal.SIGINT, group=True)


@pytest.mark.parametrize("group", [False, True], ids=["parent", "group"])
def test_sigterm_stops_cleanly_and_a_rerun_completes(corpus: Corpus, tmp_path: Path, group: bool) -> None:
    _signal_trial(corpus, tmp_path / "out", random.Random(f"sigterm-{group}"), signal.SIGTERM, group=group)


@pytest.mark.parametrize("trial", range(2))
def test_sigkill_then_a_rerun_completes(corpus: Corpus, tmp_path: Path, trial: int) -> None:
    _sigkill_trial(corpus, tmp_path / "out", random.Random(f"sigkill-{trial}"))


def test_ctrl_c_in_place_keeps_every_original(corpus: Corpus, tmp_path: Path) -> None:
    _in_place_trial(corpus, tmp_path / "work", random.Random("in-place"))


# ---------------------------------------------------------------- -m slow: many more trials


@pytest.mark.slow
def test_many_interruptions(corpus: Corpus, tmp_path: Path) -> None:
    rng = random.Random(14)
    for trial in range(12):
        _signal_trial(corpus, tmp_path / f"int{trial}", rng, signal.SIGINT, group=True)
    for trial in range(4):
        _signal_trial(corpus, tmp_path / f"term{trial}", rng, signal.SIGTERM, group=trial % 2 == 0)
    for trial in range(10):
        _sigkill_trial(corpus, tmp_path / f"kill{trial}", rng)
    for trial in range(6):
        _in_place_trial(corpus, tmp_path / f"in-place{trial}", rng)


# ---------------------------------------------------------------- the signal handlers themselves


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals: main thread")
def test_first_signal_raises_later_ones_wait_or_are_ignored() -> None:
    before = signal.getsignal(signal.SIGINT)
    went_on = []
    with pytest.raises(interrupts.Interrupted) as raised, interrupts.raising():
        with interrupts.deferred():
            os.kill(os.getpid(), signal.SIGINT)  # held until the write is done
            went_on.append("the write")
        went_on.append("not reached: the held signal is raised on leaving deferred()")
    assert went_on == ["the write"]
    assert raised.value.signum == signal.SIGINT
    assert signal.getsignal(signal.SIGINT) is before
    with interrupts.raising():
        with pytest.raises(interrupts.Interrupted):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
        os.kill(os.getpid(), signal.SIGINT)  # during clean-up: ignored
        os.kill(os.getpid(), signal.SIGTERM)


# ---------------------------------------------------------------- the rule cache


def _tiny(names: dict[str, str]) -> Callable[[], RuleSet]:
    return lambda: RuleSet((), names)


def _entries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def cache_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HIPCONV_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_rule_cache_in_a_directory_that_is_in_the_way_leaks_nothing(cache_in: Path, tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: []\n")
    assert cache.cached([rules], [], _tiny({"cudaA": "cudart"})).cuda_api == {"cudaA": "cudart"}
    (entry,) = cache_in.glob("rules-*.json")
    entry.unlink()
    entry.mkdir()  # a directory where the entry goes: it cannot be replaced
    for _ in range(3):
        assert cache.cached([rules], [], _tiny({"cudaB": "cudart"})).cuda_api == {"cudaB": "cudart"}
    assert _entries(cache_in) == [entry.name]  # no temporary file left, the directory untouched


def test_rule_cache_keeps_the_recent_entries_of_this_version(cache_in: Path, tmp_path: Path) -> None:
    cache_in.mkdir()
    other_version = cache_in / "rules-0.0.1-0123456789abcdef0123456789abcdef.json"
    unversioned = cache_in / "rules-0123456789abcdef0123456789abcdef.json"
    stale, fresh = cache_in / "tmpstale.tmp", cache_in / ".rules-fresh.tmp"
    for path in (other_version, unversioned, stale, fresh):
        path.write_bytes(pickle.dumps(RuleSet((), {})))
    os.utime(stale, (time.time() - 2 * cache.STALE_TMP_SECONDS,) * 2)
    names: list[str] = []
    for n in range(cache.KEEP_ENTRIES + 2):
        rules = tmp_path / f"rules{n}.yaml"
        rules.write_text(f"rules: [] # {n}\n")
        cache.cached([rules], [], _tiny({f"cuda{n}": "cudart"}))
        (new,) = set(cache_in.glob("rules-*.json")) - {cache_in / name for name in names}
        os.utime(new, (1_000_000 + n,) * 2)  # distinct times, oldest first
        names.append(new.name)
        if n == 0:
            assert not other_version.exists() and not unversioned.exists() and not stale.exists()
            assert fresh.exists()  # perhaps a concurrent run's
    # a hit makes the oldest entry the most recent; the next write evicts the then oldest
    cache.cached([tmp_path / "rules2.yaml"], [], _tiny({}))
    rules = tmp_path / "last.yaml"
    rules.write_text("rules: [] # last\n")
    cache.cached([rules], [], _tiny({"cudaLast": "cudart"}))
    kept = [p.name for p in cache_in.glob("rules-*.json")]
    assert len(kept) == cache.KEEP_ENTRIES
    assert names[2] in kept and names[-1] in kept and names[3] not in kept


def test_rule_cache_honours_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HIPCONV_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "hipconv"
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: []\n")
    cache.cached([rules], [], _tiny({"cudaX": "cudart"}))
    assert cache.cached([rules], [], _tiny({})).cuda_api == {"cudaX": "cudart"}  # a hit
    assert len(list((tmp_path / "xdg" / "hipconv").glob("rules-*.json"))) == 1
