"""Throughput and memory benchmark for `hipconv translate` (not part of the test run).

Generates a tree of realistic CUDA sources (copies of the test fixtures' programs that
build after translation: runtime and driver API host code with error checks, warp-shuffle
reductions, tiled kernels, fp16 math, cooperative groups, multi-file projects, cuSPARSE
and cuRAND), translates it
with the installed `hipconv` in a child process, and reports MB/s, files/s and the
child's peak RSS. Two tree sizes show whether memory stays flat as the tree grows.

    python bench/bench_translate.py                 # 8 MB and 32 MB trees, --jobs 1
    python bench/bench_translate.py --sizes 64 --jobs 2
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SEEDS = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
SOURCE_SUFFIXES = {".cu", ".cuh", ".cpp", ".h"}


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
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=float, nargs="+", default=[8, 32], help="tree sizes in MB")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the generated trees")
    args = parser.parse_args()
    print(
        f"{'tree MB':>8} {'files':>7} {'seconds':>8} {'CPU s':>7} {'MB/s':>7} {'files/s':>8} {'peak RSS MB':>12} "
        f"{'rerun s':>8} {'rerun CPU':>10}"
    )
    for size in args.sizes:
        work = Path(tempfile.mkdtemp(prefix="hipconv-bench-"))
        try:
            nbytes, nfiles = generate(work / "cuda", int(size * 1e6))
            seconds, peak_kib, cpu = measure(work / "cuda", work / "hip", args.jobs)
            # a second run into the same output: the cache (hipconv.filecache) serves every file, nothing is rewritten
            again, _, again_cpu = measure(work / "cuda", work / "hip", args.jobs)
            print(
                f"{nbytes / 1e6:8.1f} {nfiles:7d} {seconds:8.2f} {cpu:7.2f} {nbytes / 1e6 / seconds:7.2f} "
                f"{nfiles / seconds:8.0f} {peak_kib / 1024:12.1f} {again:8.2f} {again_cpu / cpu:9.0%}"
            )
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
    return 0


def measure(source: Path, out: Path, jobs: int) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (KiB, the largest process) and CPU seconds (all processes) of one
    `hipconv translate` run.

    A small wrapper process runs hipconv, so RUSAGE_CHILDREN covers this run alone.
    """
    code = (
        "import resource, subprocess, sys, time\n"
        "cmd = [sys.executable, '-m', 'hipconv', 'translate', sys.argv[1], '-o', sys.argv[2],\n"
        "       '--jobs', sys.argv[3], '--force']\n"
        "t = time.perf_counter(); p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
        "dt = time.perf_counter() - t\n"
        "if p.returncode not in (0, 1): sys.exit(p.stderr.decode()[-2000:])\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(dt, u.ru_maxrss, u.ru_utime + u.ru_stime)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(source), str(out), str(jobs)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"hipconv failed:\n{done.stderr}")
    seconds, peak, cpu = done.stdout.split()
    return float(seconds), int(peak), float(cpu)


if __name__ == "__main__":
    raise SystemExit(main())
