#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and nvcc (and HIP's NVIDIA-platform headers matching that CUDA): run each
# self-checking CUDA program of tests/run_programs/ as CUDA, then its port built by
# `hipconv build --backend nvidia --run`, and compare both outputs with the expected.txt shipped beside it.
# Usage: tools/check_nvidia_port.sh [WORK_DIR]   (exit 0: every original and every port printed its expected.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
nvidia-smi -L
status=0
for dir in tests/run_programs/*/; do
  name=$(basename "$dir")
  [ -f "$dir/expected.txt" ] || continue
  grep -q "HAZARD:" "$dir"/*.cu && continue  # a wave64 hazard: runs right on 32-lane warps
  grep -q "cublas" "$dir"/*.cu && continue    # needs hipBLAS for NVIDIA
  mkdir -p "$work/cuda/$name"
  if nvcc -std=c++17 -o "$work/cuda/$name/prog" "$dir"/*.cu && (cd "$dir" && "$work/cuda/$name/prog") >"$work/cuda/$name/out" \
      && diff -u "$dir/expected.txt" "$work/cuda/$name/out"; then
    echo "cuda $name: as expected"
  else
    echo "cuda $name: FAILED"; status=1
  fi
done
python -m pytest -q -n 0 -rs tests/test_cpu_build.py -k nvidia_port || status=1
exit $status
