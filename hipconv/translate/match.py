"""One file's tokens and lookup table -> its FileMatches: the frozen context built (file_context), the
matchers run in their registered order (translate.matchers), their results joined (translate.combine)."""

from __future__ import annotations

from hipconv.rules.model import LookupTable
from hipconv.settings import Settings
from hipconv.translate.combine import FileMatches, combine
from hipconv.translate.compat import COMPAT_HEADER
from hipconv.translate.context import FileContext, FileTraits
from hipconv.translate.cuda_constructs import cpp_compiled_as_cuda, uses_cuda_constructs
from hipconv.translate.directives import directive_lines
from hipconv.translate.lexer import Tokens
from hipconv.translate.matchers import run_matchers
from hipconv.translate.nvcc_syntax import may_respell
from hipconv.translate.project import NO_PROJECT, Project
from hipconv.translate.source import SourceFile
from hipconv.translate.words import file_words


def match_file(
    source: SourceFile,
    tokens: Tokens,
    table: LookupTable,
    settings: Settings,
    *,
    is_cu: bool,
    is_cpp: bool = False,
    is_header: bool = False,
    words: frozenset[bytes] | None = None,
    project: Project = NO_PROJECT,
    compat_include: str = COMPAT_HEADER,
) -> FileMatches:
    """`is_cu`: a .cu file, into which nvcc includes the CUDA runtime; `is_cpp`: a C++ source, which is one too when
    nvcc compiles it as CUDA (cuda_constructs.cpp_compiled_as_cuda); `words`: the file's identifier-like words, when
    the caller has already scanned for them; `project`: what the run's other files tell (names they declare, lane
    masks they define); `compat_include`: the path by which the file includes hipconv_compat.h when it uses a shim."""
    words = words if words is not None else file_words(source.body)
    ctx = file_context(
        source,
        tokens,
        table,
        settings,
        words,
        project,
        compat_include,
        is_cu=is_cu,
        is_cpp=is_cpp,
        is_header=is_header,
    )
    return combine(run_matchers(ctx), source)


def file_context(
    source: SourceFile,
    tokens: Tokens,
    table: LookupTable,
    settings: Settings,
    words: frozenset[bytes],
    project: Project,
    compat_include: str,
    *,
    is_cu: bool,
    is_cpp: bool,
    is_header: bool,
) -> FileContext:
    """What every matcher reads about the file: its kind decided (a C++ source nvcc compiles as CUDA is a .cu
    file for the runtime include), its directives found, and the run's facts about it picked out."""
    directives = directive_lines(tokens)
    cuda_cpp = is_cpp and not is_cu and cpp_compiled_as_cuda(tokens, words, directives)
    is_cu = is_cu or cuda_cpp
    nvcc_compiles = is_cu or (may_respell(tokens.body, words) and uses_cuda_constructs(tokens, words))
    path = source.path
    return FileContext(
        source,
        tokens,
        table,
        settings,
        words,
        directives,
        FileTraits(is_cu, is_header, cuda_cpp, nvcc_compiles),
        compat_include,
        project.names.get(path, frozenset()),
        project.masks,
        project.header_defines.get(path, frozenset()),
        project_switches=project.hip_switches,
        project_macros=project.macros.get(path, ()),
        project_features=project.features if project is not NO_PROJECT else None,
    )
