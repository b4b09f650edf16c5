"""Preprocessor definitions in build files that select a CUDA backend: the HIP backend instead.

`-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA` (an nvcc flag, in a Makefile, compile_commands.json or a
CMake flag string) and `THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA` (CMake's compile definitions) pick
Thrust's CUDA device system; rocThrust's device system is THRUST_DEVICE_SYSTEM_HIP (the thrust rule of
THRUST_DEVICE_SYSTEM_CUDA, which rewrites the same choice in sources; tests/test_buildfiles.py checks that the
two agree). Pure text functions: no I/O.
"""

from __future__ import annotations

import re

# (macro, CUDA backend value) -> the HIP backend value
BACKEND_VALUES = {("THRUST_DEVICE_SYSTEM", "THRUST_DEVICE_SYSTEM_CUDA"): "THRUST_DEVICE_SYSTEM_HIP"}

_DEFINITION = re.compile(
    r"(?:(?<=-D)|(?<![\w-]))(" + "|".join(re.escape(f"{name}={value}") for name, value in BACKEND_VALUES) + r")(?![\w])"
)


def hip_definitions(text: str) -> str:
    """`text` with each NAME=VALUE definition of a CUDA backend (a whole word, or after -D) set to the HIP
    backend; anything else as it is."""

    def hip(m: re.Match[str]) -> str:
        name, _, value = m.group(1).partition("=")
        return f"{name}={BACKEND_VALUES[(name, value)]}"

    return _DEFINITION.sub(hip, text)
