"""File kinds: what a file is, from its name. The one table of file suffixes (and of build-file names);
discover (what a tree translates, and so what scan reads), the translator (how a source is read), the
build (what compiles, which folders hold headers), the build-file translators and bench ask it.
A leaf module: it imports nothing of hipconv's.

Suffixes compare in lower case. A file named on the command line is translated whatever its kind (the
user asked for it); in a tree, only the kinds in TRANSLATED are, and the rest is copied unchanged.
"""

from __future__ import annotations

import enum
import os


class FileKind(enum.Enum):
    CUDA = "cuda source"  # nvcc includes the CUDA runtime implicitly into these
    HIP = "hip source"  # already HIP: copied by a translation, compiled with -x hip by a build
    CPP = "c++ source"  # nvcc compiles those that hold CUDA as CUDA (`nvcc -x cu`), with the runtime
    C = "c source"  # host code that may call the runtime API: translated, not compiled by `hipconv build`
    HEADER = "header"  # included, never compiled on its own (headers, inline and template parts, .inc fragments)
    CMAKE = "cmake"
    MAKE = "make"


_SUFFIXES = {
    FileKind.CUDA: (".cu",),
    FileKind.HIP: (".hip",),
    # .cp is C++ to gcc and clang alike (`g++ -v x.cp` runs cc1plus)
    FileKind.CPP: (".cpp", ".cc", ".cxx", ".c++", ".cp"),
    FileKind.C: (".c",),
    FileKind.HEADER: (".cuh", ".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".inc", ".ipp", ".tpp", ".tcc", ".cuinc"),
    FileKind.CMAKE: (".cmake",),
    FileKind.MAKE: (".mk",),
}
SUFFIX_KINDS: dict[str, FileKind] = {suffix: kind for kind, suffixes in _SUFFIXES.items() for suffix in suffixes}
NAME_KINDS: dict[str, FileKind] = {  # whole file names, matched as written (they win over the suffix)
    "CMakeLists.txt": FileKind.CMAKE,
    "Makefile": FileKind.MAKE,
    "makefile": FileKind.MAKE,
    "GNUmakefile": FileKind.MAKE,
}

TRANSLATED = frozenset({FileKind.CUDA, FileKind.CPP, FileKind.C, FileKind.HEADER})  # in a tree (build files aside)
COMPILED = frozenset({FileKind.CUDA, FileKind.HIP, FileKind.CPP})  # the translation units of `hipconv build`
COMPILED_AS_HIP = frozenset({FileKind.CUDA, FileKind.HIP})  # compiled with -x hip (the rest as C++)


def file_kind(path: str) -> FileKind | None:
    """The kind of the file at `path` (any directory part is ignored); None for a file of no known kind."""
    name = os.path.basename(path)
    return NAME_KINDS.get(name) or SUFFIX_KINDS.get(os.path.splitext(name)[1].lower())


def suffixes_of(kinds: frozenset[FileKind]) -> frozenset[str]:
    """The suffixes of the given kinds, for code that filters names by suffix (`.cu`, `.h`, ...)."""
    return frozenset(suffix for kind in kinds for suffix in _SUFFIXES[kind])


TRANSLATED_SUFFIXES = suffixes_of(TRANSLATED)
COMPILED_SUFFIXES = suffixes_of(COMPILED)
HEADER_SUFFIXES = suffixes_of(frozenset({FileKind.HEADER}))
