"""The C++ math overloads nvcc's runtime header puts in the global namespace -> hipconv/data/cuda.host-math.

nvcc includes cuda_runtime.h into every .cu file, and with it crt/math_functions.h, which declares C++
overloads of the C math functions in namespace std (`std::isfinite(float)`, `std::abs(float)`,
`std::sqrt(float)` ...: the inventories' `std::NAME` records of that header) and brings them into the
global namespace with using-declarations (which the inventories do not record), so a host function of a .cu
file calls `isfinite(x)` with only <stdio.h> included. HIP's runtime header does not: clang's HIP wrappers
declare those overloads for device code only, and <cmath> puts the host ones in std alone, so the call
finds no match (isfinite) or a C function of another type (`abs(float)` -> abs(int), `sqrt(float)` -> the
double one). <math.h> brings std's overloads into the global namespace, as CUDA's header does.

The file: one unqualified name a line, sorted (the translation reads it: hipconv/translate/matchers/host_math.py).
"""

from __future__ import annotations

from pathlib import Path

from hipconv.translate.matchers.host_math import NAMES_FILE
from tools.derive.inventory import Inventory
from tools.derive.write import write_lines

HEADER = "crt/math_functions"  # crt/math_functions.h and .hpp
NAMESPACE = "std::"


def host_math_names(inv: Inventory) -> list[str]:
    """The names of the std:: math functions CUDA's runtime header declares, in any bundled CUDA release."""
    return sorted(
        {
            r["name"][len(NAMESPACE) :]
            for snap in inv.cuda_sets.values()
            for r in snap.by_lib.get("device", [])
            if r["kind"] == "function" and r["name"].startswith(NAMESPACE) and r.get("header", "").startswith(HEADER)
        }
    )


def write_host_math(inv: Inventory, out: Path) -> Path:
    return write_lines(out / NAMES_FILE, host_math_names(inv))
