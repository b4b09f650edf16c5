"""Which `CUDA_*` variables of a CMake file are the CUDA toolkit's, and which are the project's own.

FindCUDA and FindCUDAToolkit define a known set of `CUDA_*` variables (findcuda.variables, derived from
CMake's modules by tools/derive/findcuda.py); with the library variables (`CUDA_cublas_LIBRARY`,
`CUDA_CUFFT_LIBRARIES`) they are the toolkit's. Any other `CUDA_*` name is one the project chose for
itself (`set(CUDA_FLAGS ...)`, `option(CUDA_USE_GRAPHS ...)`): hipconv reads it like any variable.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_LIBRARY = re.compile(r"CUDA_\w+_LIBRAR(?:Y|IES)")
# where the toolkit is installed: set by the project from the environment as often as by FindCUDA
_LOCATION = re.compile(r"CUDA_(?:PATH|HOME|ROOT|DIR|TOOLKIT_ROOT_DIR|BIN_PATH|SDK_ROOT_DIR)")


@cache
def _listed() -> tuple[frozenset[str], tuple[str, ...]]:
    """The derived names, and the prefixes (`CUDA_NVCC_FLAGS_` of `CUDA_NVCC_FLAGS_<CONFIG>`)."""
    lines = (Path(__file__).parent / "findcuda.variables").read_text(encoding="utf-8").split()
    return frozenset(lines), tuple(name for name in lines if name.endswith("_"))


def toolkit_variable(name: str) -> bool:
    """Is `name` a variable FindCUDA or FindCUDAToolkit defines (not a project's own `CUDA_*` variable)?"""
    names, prefixes = _listed()
    return name in names or name.startswith(prefixes) or bool(_LIBRARY.fullmatch(name)) or toolkit_location(name)


def toolkit_location(name: str) -> bool:
    """Does the variable name where the CUDA toolkit is installed (CUDA_TOOLKIT_ROOT_DIR, CUDA_HOME, ...)?"""
    return bool(_LOCATION.fullmatch(name))
