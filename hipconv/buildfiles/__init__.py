"""Build files -> their HIP versions: CMake and Makefiles, and the nvcc -> hipcc flag table.

Pure: a decoded SourceFile in, a FileResult out (edits spliced by the translator's `apply`,
diagnostics with line and column).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal

from hipconv.buildfiles.cmake import translate_cmake
from hipconv.buildfiles.common import BuildFileEdits
from hipconv.buildfiles.make import translate_make
from hipconv.results import FileResult, FileStatus
from hipconv.settings import DEFAULT_OFFLOAD_ARCHS
from hipconv.translate.source import SourceFile

BuildFileKind = Literal["cmake", "make"]
CMAKE_NAMES = frozenset({"CMakeLists.txt"})
CMAKE_SUFFIXES = frozenset({".cmake"})
MAKE_NAMES = frozenset({"Makefile", "makefile", "GNUmakefile"})
MAKE_SUFFIXES = frozenset({".mk"})


def build_file_kind(path: str) -> BuildFileKind | None:
    """'cmake', 'make', or None when the path is not a build file hipconv translates."""
    name = os.path.basename(path)
    suffix = os.path.splitext(name)[1].lower()
    if name in CMAKE_NAMES or suffix in CMAKE_SUFFIXES:
        return "cmake"
    if name in MAKE_NAMES or suffix in MAKE_SUFFIXES:
        return "make"
    return None


def translate_build_file(source: SourceFile, archs: Sequence[str] = DEFAULT_OFFLOAD_ARCHS) -> FileResult:
    """Translate one build file (its kind from its name); anything else comes back unchanged."""
    kind = build_file_kind(source.path)
    if kind is None:
        return FileResult(source.path, FileStatus.UNCHANGED, size=len(source.data))
    out = BuildFileEdits(source, kind)
    (translate_cmake if kind == "cmake" else translate_make)(source.body, tuple(archs), out)
    return out.result()
