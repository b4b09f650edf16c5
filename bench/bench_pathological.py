"""Growth benchmark for pathological input (issue #27; not part of the test run).

Each input is generated at two sizes, n and 4n, and translated by `hipconv translate` in a child
process. The time above the start-up time of an empty file should grow four times; a ratio near 16
means quadratic work crept back in (a rescan per nested level, a copy per level). Peak RSS is
printed too: it should grow with n, never with n squared.

    python bench/bench_pathological.py                # every input, exit 1 if one grows super-linearly
    python bench/bench_pathological.py --only shuffle-nesting --scale 2
    python bench/bench_pathological.py --tree ../main --scale 0.2   # another checkout, for a before/after
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 6.0  # the ratio of times flagged as super-linear (linear: 4, n log n: about 4.5, quadratic: 16)


def nested_launches(n: int) -> str:
    return "__global__ void k(int x) {}\nvoid f() {\n  " + "k<<<1,1>>>(" * n + "0" + ")" * n + ";\n}\n"


def nested_shuffles(n: int) -> str:
    call = "__shfl_xor_sync(0xffffffff, " * n + "v" + ", 1)" * n
    return f"__global__ void k(int *p) {{\n  int v = p[0];\n  v = {call};\n  p[0] = v;\n}}\n"


def nested_cudnn(n: int) -> str:
    head = "cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, "
    return f"#include <cudnn.h>\nvoid f(cudnnTensorDescriptor_t d) {{\n  {head * n}1{', 1, 1, 1)' * n};\n}}\n"


def includes(n: int) -> str:
    headers = ("cuda_runtime.h", "cublas_v2.h", "curand.h", "local.h", "cuda_fp16.h")
    return "".join(f"#include <{headers[i % len(headers)]}>\n" for i in range(n)) + "__global__ void k() {}\n"


def many_launches(n: int) -> str:
    calls = (f"void f{i}() {{ k<<<{i % 7 + 1}, 32>>>({i}); cudaDeviceSynchronize(); }}\n" for i in range(n))
    return "__global__ void k(int x) {}\n" + "".join(calls)


# name -> (generator, n at --scale 1, extra arguments)
INPUTS: dict[str, tuple[Callable[[int], str], int, tuple[str, ...]]] = {
    "launch-nesting": (nested_launches, 10000, ("--kernel-launch", "hip")),
    "shuffle-nesting": (nested_shuffles, 10000, ()),
    "cudnn-nesting": (nested_cudnn, 3000, ()),
    "includes": (includes, 50000, ()),
    "launch-mode-file": (many_launches, 16000, ("--kernel-launch", "hip")),
}


def measure(source: Path, extra: tuple[str, ...], tree: Path, repeat: int = 1) -> tuple[float, int]:
    """(seconds, peak RSS in kB) of translating source in a child process: the fastest of `repeat` runs."""
    return min(_measure(source, extra, tree) for _ in range(repeat))


def _measure(source: Path, extra: tuple[str, ...], tree: Path) -> tuple[float, int]:
    cmd = [sys.executable, "-m", "hipconv", "translate", *extra, str(source), "-o", os.devnull, "-qq"]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    stderr = child.stderr.read().decode() if child.stderr else ""
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{source.name}: hipconv failed:\n{stderr}")
    return seconds, usage.ru_maxrss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every input's size (default 1)")
    parser.add_argument("--only", choices=sorted(INPUTS), action="append", help="run this input only")
    parser.add_argument("--repeat", type=int, default=2, help="runs per input, the fastest counts (default 2)")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the hipconv checkout to run (default: this one)")
    args = parser.parse_args()
    flagged = []
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp, "empty.cu")
        empty.write_text("__global__ void k() {}\n")
        startup = measure(empty, (), args.tree, repeat=3)[0]
        print(f"start-up: {startup:.2f} s")
        for name in args.only or sorted(INPUTS):
            generate, base, extra = INPUTS[name]
            rows = []
            for n in (int(base * args.scale), int(4 * base * args.scale)):
                path = Path(tmp, f"{name}-{n}.cu")
                path.write_text(generate(n))
                seconds, rss = measure(path, extra, args.tree, args.repeat)
                rows.append((seconds, rss))
                print(f"{name:18} n={n:<7} {path.stat().st_size / 1e6:6.2f} MB {seconds:7.2f} s {rss / 1024:7.1f} MB")
            ratio = max(rows[1][0] - startup, 0.01) / max(rows[0][0] - startup, 0.01)
            verdict = "SUPER-LINEAR" if ratio > LIMIT else "ok"
            print(f"{name:18} time ratio for 4n: {ratio:.2f} ({verdict})")
            if ratio > LIMIT:
                flagged.append(name)
    if flagged:
        print(f"super-linear growth: {', '.join(flagged)}", file=sys.stderr)
    return 1 if flagged else 0


if __name__ == "__main__":
    raise SystemExit(main())
