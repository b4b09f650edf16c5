"""CMake's FindCUDA and FindCUDAToolkit variables -> hipconv/buildfiles/findcuda.variables
(`python -m tools.derive.findcuda [MODULES_DIR]`).

A build file's `${CUDA_X}` is the CUDA toolkit's (reported HC401 when hipconv leaves it) only when X is a
name these modules define; any other `CUDA_*` variable is the project's own (`set(CUDA_FLAGS ...)`,
`option(CUDA_USE_GRAPHS ...)`). The names are read from the modules of the CMake installed here (Debian's
CMake 3.25: /usr/share/cmake-3.25/Modules): those their documentation names, and those they set, find or
declare as options. A name with a `${...}` part (`CUDA_NVCC_FLAGS_${config}`) is kept as its prefix, written
with its trailing `_`. The library variables (`CUDA_cublas_LIBRARY`) are found by their pattern
(hipconv/buildfiles/findcuda.py), so they are not listed. One name a line, sorted, no header.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUTPUT = REPO / "hipconv" / "buildfiles" / "findcuda.variables"
MODULES = ("FindCUDA.cmake", "FindCUDAToolkit.cmake")
_DOC_BLOCK = re.compile(r"^#\[(=*)\[\.rst:\n(.*?)^#\]\1\]", re.M | re.S)
_DEFINING = re.compile(
    r"\b(?i:set|option|find_library|find_path|find_program|cuda_find_library_local_first\w*)\s*\(\s*(CUDA_\w+(?:\$\{)?)"
)
_NAME = re.compile(r"\bCUDA_\w+(?:\$\{|<)?")
_LIBRARY = re.compile(r"CUDA_\w+_LIBRAR(?:Y|IES)")


def modules_dir() -> Path | None:
    """The Modules directory of the newest CMake under /usr/share that has FindCUDA.cmake."""
    found = sorted(Path("/usr/share").glob("cmake-*/Modules/FindCUDA.cmake"))
    return found[-1].parent if found else None


def variables(modules: Path) -> list[str]:
    names: set[str] = set()
    for module in MODULES:
        text = (modules / module).read_text(encoding="utf-8")
        for block in _DOC_BLOCK.finditer(text):
            names.update(m.group() for m in _NAME.finditer(block.group(2)))
        names.update(m.group(1) for m in _DEFINING.finditer(text))
    cleaned = {re.sub(r"(\$\{|<)$", "", name) for name in names}
    return sorted(name for name in cleaned if not _LIBRARY.fullmatch(name))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    modules = Path(args[0]) if args else modules_dir()
    if modules is None or not (modules / MODULES[0]).is_file():
        print("no CMake Modules directory with FindCUDA.cmake: give it as the argument", file=sys.stderr)
        return 2
    OUTPUT.write_text("".join(f"{name}\n" for name in variables(modules)), encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(REPO)} from {modules}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
