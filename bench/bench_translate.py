"""Throughput and memory benchmark for `hipconv translate` (not part of the test run), against a base
revision in the same run, so that a regression shows as a ratio.

Trees: generated ones of realistic CUDA sources (copies of the test fixtures' programs that build after
translation: runtime and driver API host code with error checks, warp-shuffle reductions, tiled kernels,
fp16 math, cooperative groups, multi-file projects, cuSPARSE and cuRAND), and, when ../shared/corpora
is there, copies of the shared corpora (real CUDA trees) up to --corpora-mb, and of their .cu and .cuh
files alone up to --cuda-mb (a tree where every file is translated, as issue #24 measured). Each tree is
translated by this checkout's hipconv and by the base revision's (`git archive REV`, unpacked in a
temporary folder, run with PYTHONPATH), each in a child process with its own empty cache
(HIPCONV_CACHE_DIR): a cold run, then a rerun into the same output. Reported: CPU seconds (all
processes) and the user part of them (hipconv's own work; the rest is the kernel's, mostly writing the
output files, which varies most from run to run), wall seconds, MB/s (of CPU time), the largest process's
peak RSS, the rerun's CPU as a share of the cold run's, and this checkout's CPU as a share of the base's.

The checkouts run in rounds, each round both of them, in turns: the base first, then this checkout first,
and so on. A VM drifts (one checkout's CPU moved by up to a third within one invocation): whichever runs
second in every round pays the drift, so much that this checkout read 104-115% of itself run as the base
with one round. "vs base" is the geometric mean of the rounds' ratios, in which a steady drift cancels out
over an even number of rounds (the default is 2); the other columns show each checkout's fastest round.

    python bench/bench_translate.py                         # 8 and 32 MB generated, corpora; base HEAD~1
    python bench/bench_translate.py --sizes 8 38 150 --jobs 2 --base main
    python bench/bench_translate.py --base none             # this checkout only
    python bench/bench_translate.py --repeat 4              # 4 rounds (each checkout 4 times), in turns
    python bench/bench_translate.py --cuda-mb 38            # also the corpora's .cu/.cuh files only (issue #24)
    TMPDIR=/dev/shm python bench/bench_translate.py         # trees in memory: no disk noise in system CPU
"""

from __future__ import annotations

import argparse
import functools
import io
import math
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO / "tests" / "fixtures"
CORPORA = REPO.parent / "shared" / "corpora"
sys.path.insert(0, str(REPO))  # this checkout's hipconv, for its one table of file kinds

from hipconv.file_kinds import TRANSLATED, FileKind, file_kind  # noqa: E402


def seed_files() -> list[tuple[str, bytes]]:
    """The test fixtures' CUDA programs that are known to build after translation (`compile: true`):
    real programs (runtime and driver API with error checks, warp reductions, tiling, fp16, cooperative
    groups, multi-file projects, cuSPARSE, cuRAND), not the files written to be full of unported calls.
    Read as bytes: a seed may hold a byte that is not UTF-8 (latin1_comments), which hipconv keeps."""
    seeds = []
    for case in sorted(SEEDS.glob("*/case.yaml")):
        if "compile: true" not in case.read_text():
            continue
        for path in sorted(case.parent.glob("cuda/**/*")):
            if file_kind(path.name) in TRANSLATED and path.is_file():
                seeds.append((path.name, path.read_bytes()))
    if not seeds:
        raise SystemExit(f"no seed sources under {SEEDS}")
    return seeds


def generate(root: Path, target_bytes: int) -> tuple[int, int]:
    """Copies of the seeds, each module in its own folder with its own names, up to target_bytes."""
    seeds = seed_files()
    total = files = copy = 0
    while total < target_bytes:
        folder = root / f"module_{copy // 20:04d}" / f"unit_{copy}"
        folder.mkdir(parents=True, exist_ok=True)
        for name, seed in seeds:
            header = f"// module {copy}: generated for the hipconv benchmark\n".encode()
            data = header + seed.replace(b"main(", f"main_{copy}(".encode())
            (folder / name).write_bytes(data)
            total += len(data)
            files += 1
        copy += 1
    return total, files


def copy_corpora(root: Path, target_bytes: int, *, cuda_only: bool = False) -> tuple[int, int]:
    """Copies of the shared corpora (copy1/, copy2/, ...) until the tree holds target_bytes; `cuda_only`:
    only their CUDA sources and `.cuh` headers, every file one to translate (the tree issue #24 measured)."""

    def others(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if not os.path.isdir(os.path.join(folder, n)) and not _is_cuda(n)]

    total = files = copy = 0
    while total < target_bytes:
        copy += 1
        shutil.copytree(CORPORA, root / f"copy{copy}", symlinks=True, ignore=others if cuda_only else None)
        for path in (root / f"copy{copy}").rglob("*"):
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_size
                files += 1
    return total, files


def _is_cuda(name: str) -> bool:
    """A CUDA source, or a header named as only CUDA code names one (file_kinds makes `.cuh` a header)."""
    return file_kind(name) is FileKind.CUDA or name.lower().endswith(".cuh")


class Run(NamedTuple):
    wall: float  # seconds
    cpu: float  # seconds, all processes
    user: float  # the user part of cpu
    peak_kib: int  # the largest process's peak RSS
    rerun_cpu: float  # a second run into the same output, the cache filled


def _mean_ratio(these: list[Run], bases: list[Run]) -> float:
    """The geometric mean of each round's CPU ratio (this checkout's to the base's): the rounds run the two in
    turns, so a drift that slows whichever runs second cancels out over an even number of rounds."""
    ratios = [this.cpu / base.cpu for this, base in zip(these, bases)]
    return math.prod(ratios) ** (1 / len(ratios))


def _fastest(runs: list[Run]) -> Run:
    """The run of least CPU, with the least rerun CPU of all (each the best the machine allowed)."""
    best = min(runs, key=lambda run: run.cpu)
    return best._replace(rerun_cpu=min(run.rerun_cpu for run in runs))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=float, nargs="*", default=[8, 32], help="generated tree sizes in MB")
    parser.add_argument("--corpora-mb", type=float, default=32, help="copies of ../shared/corpora up to this (0: none)")
    parser.add_argument(
        "--cuda-mb", type=float, default=0, help="copies of the corpora's .cu and .cuh files only, up to this (0: none)"
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--base", default="HEAD~1", help="the git revision to compare with ('none': no comparison)")
    parser.add_argument("--keep", action="store_true", help="keep the trees")
    parser.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="rounds, each checkout once a round, first in turns (a VM drifts): 'vs base' is their ratios' mean",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hipconv-bench-"))
    try:
        checkouts = {"this": REPO}
        if args.base != "none":
            checkouts[args.base] = unpack(args.base, work / "base")
        trees: list[tuple[str, Callable[[Path], tuple[int, int]]]] = [
            (f"generated {size:g} MB", functools.partial(generate, target_bytes=int(size * 1e6))) for size in args.sizes
        ]
        if (args.corpora_mb > 0 or args.cuda_mb > 0) and not CORPORA.is_dir():
            print(f"no corpora trees: {CORPORA} is not there (a checkout outside the one beside ../shared)")
        if args.corpora_mb > 0 and CORPORA.is_dir():
            corpora = functools.partial(copy_corpora, target_bytes=int(args.corpora_mb * 1e6))
            trees.append((f"corpora {args.corpora_mb:g} MB", corpora))
        if args.cuda_mb > 0 and CORPORA.is_dir():
            cuda = functools.partial(copy_corpora, target_bytes=int(args.cuda_mb * 1e6), cuda_only=True)
            trees.append((f"corpora .cu {args.cuda_mb:g} MB", cuda))
        print(
            f"{'tree':<22} {'files':>6} {'MB':>6} {'hipconv':<10} {'CPU s':>7} {'user s':>7} {'wall s':>7} "
            f"{'MB/s':>6} {'peak MB':>8} {'rerun':>6} {'vs base':>8}"
        )
        for name, make in trees:
            source = work / "cuda"
            shutil.rmtree(source, ignore_errors=True)
            nbytes, nfiles = make(source)
            for checkout in checkouts.values():
                warm_up(checkout, source, work, args.jobs)
            runs: dict[str, list[Run]] = {label: [] for label in checkouts}
            order = list(reversed(checkouts.items()))  # the base first, then the other way round, and so on
            for _ in range(args.repeat):
                for label, checkout in order:
                    runs[label].append(measure_pair(checkout, source, work, args.jobs))
                order.reverse()
            ratio = _mean_ratio(runs["this"], runs[args.base]) if args.base in runs else None
            for label in reversed(checkouts):
                run = _fastest(runs[label])
                shown = f"{ratio:7.0%}" if label == "this" and ratio is not None else ""
                print(
                    f"{name:<22} {nfiles:6d} {nbytes / 1e6:6.1f} {label:<10} {run.cpu:7.2f} {run.user:7.2f} "
                    f"{run.wall:7.2f} {nbytes / 1e6 / run.cpu:6.2f} {run.peak_kib / 1024:8.1f} "
                    f"{run.rerun_cpu / run.cpu:6.0%} {shown:>8}"
                )
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"trees kept in {work}")
    return 0


def unpack(rev: str, dest: Path) -> Path:
    """The files of revision `rev` of this repository, unpacked at dest (git archive: no worktree is made)."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"git archive {rev}: {archive.stderr.decode().strip()}")
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def warm_up(checkout: Path, source: Path, work: Path, jobs: int) -> None:
    """One run of the checkout on the tree before its measured rounds, in its own cache directory: the rule set
    built, and the shims of hipconv_compat.h that this tree needs rendered (hipconv.shim_store), as a user's
    first run does once. Without it, the first round of a tree that needs shims the trees before it did not
    (the corpora's SIMD and fp8 shims) paid their rendering, 0.1-0.2 s of a 6 s run."""
    measure(source, work / "warm-out", jobs, _checkout_env(checkout, work))
    shutil.rmtree(work / "warm-out", ignore_errors=True)


def measure_pair(checkout: Path, source: Path, work: Path, jobs: int) -> Run:
    """A cold run (no per-file results cached, no output yet) of the checkout's hipconv on source, then a
    rerun. Each checkout has its own cache directory, where warm_up has built its rule set and rendered the
    shims the tree needs: what a user's first run pays once, not what a run costs."""
    out, env = work / "hip", _checkout_env(checkout, work)
    for stale in Path(env["HIPCONV_CACHE_DIR"]).glob("files.sqlite3*"):  # hipconv.filecache's per-file results
        stale.unlink()
    shutil.rmtree(out, ignore_errors=True)
    # the file system's work for the removed output (the other checkout's, thousands of files) is done now,
    # not in the run measured next: without this, whichever checkout runs second paid 10-20% more CPU
    os.sync()
    wall, peak, cpu, user = measure(source, out, jobs, env)
    again = measure(source, out, jobs, env)[2]
    return Run(wall, cpu, user, peak, again)


def _checkout_env(checkout: Path, work: Path) -> dict[str, str]:
    """The environment of the checkout's runs: its hipconv on PYTHONPATH, its own cache directory."""
    cache = work / f"cache-{abs(hash(str(checkout)))}"
    env = {**os.environ, "PYTHONPATH": str(checkout), "HIPCONV_CACHE_DIR": str(cache)}
    env.pop("HIPCONV_NO_CACHE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once by the warm-up run, as an installed hipconv is
    return env


def measure(source: Path, out: Path, jobs: int, env: dict[str, str]) -> tuple[float, int, float, float]:
    """Wall seconds, peak RSS (KiB, the largest process), CPU seconds (all processes) and the user part of them
    of one `hipconv translate` run (env: the checkout on PYTHONPATH, the cache directory).

    A small wrapper process runs hipconv, so RUSAGE_CHILDREN covers this run alone.
    """
    code = (
        "import hipconv, os, resource, subprocess, sys, time\n"
        "if not hipconv.__file__.startswith(os.environ['PYTHONPATH']):\n"
        "    sys.exit('not the checkout: ' + hipconv.__file__)\n"
        "cmd = [sys.executable, '-m', 'hipconv', 'translate', sys.argv[1], '-o', sys.argv[2],\n"
        "       '--jobs', sys.argv[3], '--force', '-qq']\n"
        "t = time.perf_counter(); p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
        "dt = time.perf_counter() - t\n"
        "if p.returncode not in (0, 1): sys.exit(p.stderr.decode()[-2000:])\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(dt, u.ru_maxrss, u.ru_utime + u.ru_stime, u.ru_utime)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(source), str(out), str(jobs)],
        capture_output=True,
        text=True,
        env=env,
        cwd=env["PYTHONPATH"],  # `python -m` puts the working directory first: run in the checkout, not this one
    )
    if done.returncode != 0:
        raise SystemExit(f"hipconv failed:\n{done.stderr}")
    seconds, peak, cpu, user = done.stdout.split()
    return float(seconds), int(peak), float(cpu), float(user)


if __name__ == "__main__":
    raise SystemExit(main())
