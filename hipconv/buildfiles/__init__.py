"""Build files -> their HIP versions: CMake and Makefiles, and the nvcc -> hipcc flag table.

Pure: a decoded SourceFile in, a FileResult out (edits spliced by the translator's `apply`,
diagnostics with line and column).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from hipconv.file_kinds import FileKind, file_kind
from hipconv.results import FileResult, FileStatus
from hipconv.settings import DEFAULT_OFFLOAD_ARCHS
from hipconv.translate.source import SourceFile

BuildFileKind = Literal["cmake", "make"]
_BUILD_FILE_KINDS: dict[FileKind | None, BuildFileKind] = {FileKind.CMAKE: "cmake", FileKind.MAKE: "make"}


def build_file_kind(path: str) -> BuildFileKind | None:
    """'cmake', 'make', or None when the path is not a build file hipconv translates (hipconv.file_kinds)."""
    return _BUILD_FILE_KINDS.get(file_kind(path))


def translate_build_file(
    source: SourceFile, archs: Sequence[str] = DEFAULT_OFFLOAD_ARCHS, *, single_source: bool = False
) -> FileResult:
    """Translate one build file (its kind from its name); anything else comes back unchanged. `single_source`:
    the CUDA build stays and the translation becomes a HIP build beside it (backends.split_backends)."""
    kind = build_file_kind(source.path)
    if kind is None:
        return FileResult(source.path, FileStatus.UNCHANGED, size=len(source.data))
    # imported here: the run's summary asks for build_file_kind only, and a rerun translates no build file
    from hipconv.buildfiles.cmake import translate_cmake
    from hipconv.buildfiles.common import BuildFileEdits
    from hipconv.buildfiles.make import translate_make

    read = source
    if single_source:  # a branch whose CUDA side was edited since is translated again from that side
        from hipconv.buildfiles.backends import unwrap_drifted

        body = unwrap_drifted(kind, source.body)
        if body != source.body:
            source = SourceFile(source.path, source.bom, body, source.escaped, source.cr_lines)
    out = BuildFileEdits(source, kind)
    (translate_cmake if kind == "cmake" else translate_make)(source.body, tuple(archs), out)
    if single_source:
        from hipconv.buildfiles.backends import split_backends

        out = split_backends(out)
    result = out.result()
    if source is not read and result.output is None:  # nothing to split in that side: it is the file now
        return FileResult(read.path, FileStatus.CONVERTED, output=source.data, diagnostics=result.diagnostics)
    return result
