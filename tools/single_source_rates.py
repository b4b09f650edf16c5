"""Per tree: the share of TUs that compile as HIP with `translate -o`, and as HIP and as CUDA in single-source form.

    python tools/single_source_rates.py /work/shared/corpora/nvidia-blog ... --out /tmp/rates [--rocm-version 6.3]

For each tree T it runs, with -j 1 unless --jobs says otherwise:
- `python -m hipconv build T -o OUT/to/T --check-only --rocm-version R --hipcc HIPCC --hipcc-arg=-std=c++17
  --report OUT/to/T.json` (translate -o's rate);
- the same with `--single-source` into OUT/ss/T (the single-source tree's HIP rate);
- nvcc (`-x cu -std=c++17 -rdc=true --cuda -o /dev/null`) on each TU of OUT/ss/T, with the -I, -isystem, -idirafter, -D,
  -U and -include flags of its hipcc command in OUT/ss/T.json (the tree's build files read on their HIP side),
  less hipconv's own HIP switches. A TU nvcc rejects is compiled again from T, the CUDA source it came from:
  when that fails too, the CUDA source itself does not build with this CUDA (an API CUDA 13 removed, a
  library that is not installed), and it is counted apart.

It prints one Markdown row per tree and writes OUT/rates.json. --skip-hip reuses the reports already in OUT
(--skip-translate-o, translate -o's only).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

HIP_ONLY = ("-DHIP_ENABLE_WARP_SYNC_BUILTINS",)
KEPT_WITH_VALUE = ("-I", "-isystem", "-D", "-U", "-include")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--rocm-version", default="6.3")
    parser.add_argument("--hipcc", default="/work/shared/rocm-6.3/bin/hipcc-syntax")
    parser.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    parser.add_argument("--jobs", "-j", default="1")
    parser.add_argument("--skip-hip", action="store_true", help="reuse OUT/to/T.json and OUT/ss/T.json")
    parser.add_argument("--skip-translate-o", action="store_true", help="reuse OUT/to/T.json")
    args = parser.parse_args(argv)
    rows = {}
    print("| tree | TUs | translate -o, HIP | single source, HIP | single source, CUDA | CUDA source fails on CUDA |")
    print("|---|---|---|---|---|---|")
    for tree in args.trees:
        name = tree.name
        reports = {}
        for mode, extra in (("to", []), ("ss", ["--single-source"])):
            report = args.out / mode / f"{name}.json"
            if not (args.skip_hip or (mode == "to" and args.skip_translate_o)):
                shutil.rmtree(args.out / mode / name, ignore_errors=True)
                command = [
                    sys.executable, "-m", "hipconv", "build", str(tree), "-o", str(args.out / mode / name),
                    "--check-only", "--rocm-version", args.rocm_version, "--hipcc", args.hipcc,
                    "--hipcc-arg=-std=c++17", "-j", args.jobs, "--report", str(report), *extra,
                ]  # fmt: skip
                subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            reports[mode] = json.loads(report.read_text())
        cuda = _nvcc_rates(reports["ss"], tree, args.out / "ss" / name, args.nvcc)
        row = {
            "tus": reports["ss"]["summary"]["units"],
            "translate_o_hip": reports["to"]["summary"]["compiled"],
            "single_source_hip": reports["ss"]["summary"]["compiled"],
            **cuda,
        }
        rows[name] = row
        n = row["tus"]
        print(
            f"| {name} | {n} | {row['translate_o_hip']}/{n} | {row['single_source_hip']}/{n} | "
            f"{row['single_source_cuda']}/{n} | {len(row['cuda_source_fails'])} |",
            flush=True,
        )
    (args.out / "rates.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


def _nvcc_rates(report: dict[str, object], tree: Path, out: Path, nvcc: str) -> dict[str, object]:
    """How many TUs of the single-source tree nvcc compiles; those that fail, and those whose CUDA source
    fails too."""
    compiled, failed, source_fails = 0, [], []
    for unit in report["units"]:  # type: ignore[attr-defined]
        rel = unit["file"]
        flags = _cuda_flags(unit["command"])
        if _nvcc(nvcc, flags, out / rel, out):
            compiled += 1
            continue
        failed.append(rel)
        original = [f.replace(str(out.resolve()), str(tree.resolve())).replace(str(out), str(tree)) for f in flags]
        if not _nvcc(nvcc, original, tree / rel, tree):
            source_fails.append(rel)
    return {"single_source_cuda": compiled, "cuda_fails": failed, "cuda_source_fails": source_fails}


def _cuda_flags(command: list[str]) -> list[str]:
    """The include and macro flags of a hipcc command, for nvcc."""
    kept: list[str] = []
    words = iter(command[1:-1])
    for word in words:
        if word in HIP_ONLY:
            continue
        if word == "-idirafter":  # nvcc does not take it: its host compiler, which preprocesses, does
            kept.append(f"-Xcompiler=-idirafter,{next(words, '')}")
        elif word in KEPT_WITH_VALUE:
            kept += [word, next(words, "")]
        elif word.startswith(KEPT_WITH_VALUE) and not word.startswith("-include"):
            kept.append(word)
    return kept


def _nvcc(nvcc: str, flags: list[str], source: Path, cwd: Path) -> bool:
    # -rdc=true: a TU that calls a device function of another TU (separate compilation) compiles on its own
    command = [nvcc, "-x", "cu", "-std=c++17", "-rdc=true", *flags, "--cuda", "-o", "/dev/null", str(source)]
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=300, check=False)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


if __name__ == "__main__":
    raise SystemExit(main())
