"""The frozen input of every matcher: one file, what kind of file it is, and what the run tells about it.

Built once per file (match.file_context) and read, never written, by each matcher in turn
(translate.matchers); what a matcher finds comes back as its own MatchResult (translate.found)."""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from hipconv.rules.model import LookupTable
from hipconv.settings import Settings
from hipconv.translate.directives import Directives
from hipconv.translate.lexer import Tokens
from hipconv.translate.mask_names import ProjectMask
from hipconv.translate.source import SourceFile
from hipconv.translate.syntax import Span

_NO_MACROS: Mapping[str, int] = MappingProxyType({})


@dataclass(frozen=True)
class FileTraits:
    """What nvcc does with the file, which decides where the runtime include goes."""

    is_cu: bool  # a .cu file, or a C++ source nvcc compiles as CUDA (cuda_cpp): nvcc includes the runtime
    is_header: bool  # when it includes a HIP header, the runtime header goes before that
    cuda_cpp: bool  # a C++ source that holds CUDA: built with `nvcc -x cu` (cuda_constructs.cpp_compiled_as_cuda)
    nvcc_compiles: bool  # nvcc compiles it (a .cu file or one that holds CUDA): its C++ is CUDA's


@dataclass(frozen=True, eq=False)  # eq=False: hashed by identity, so a module may keep memory per file
class FileContext:
    source: SourceFile
    tokens: Tokens
    table: LookupTable
    settings: Settings
    words: frozenset[bytes]  # the file's identifier-like words (words.file_words): each matcher's cheap gate
    directives: Directives
    kind: FileTraits
    compat_include: str  # how the file includes hipconv_compat.h (a path relative to it)
    # what the run's other files tell (project.Project), for this file:
    project_names: frozenset[str]  # the CUDA-looking names the project declares itself (no HC001)
    project_masks: Mapping[str, ProjectMask]  # lane masks the run's files define by name
    header_defines: frozenset[str]  # the defines the run's headers it includes need (their rewrites)
    # the integer #defines (name, body) of the project headers it includes, directly or not (project.Project.macros)
    project_macros: tuple[tuple[str, str], ...] = ()
    # the project's own HIP switches (facts.hip_switches) the run found, each with its tests in the run;
    # None: a macro the project #defines (project.Project.hip_switches)
    project_switches: Mapping[str, int | None] = field(default_factory=lambda: _NO_MACROS)
    # the run's feature macros whose uses hold NVIDIA-only code, each with why (facts.feature_macros); None: no
    # project pass (a run of one file), so the file's own are read
    project_features: Mapping[str, str] | None = None

    def crosses_directive(self, start: int, end: int, *, inside_ok: bool = True) -> bool:
        """True when [start, end) holds part of a preprocessor line: rewriting it would move or drop the
        directive. With inside_ok, a range wholly inside one (a call in a macro body) does not count."""
        spans = self.directives.spans
        k = bisect.bisect_left(spans, (end,))
        for a, b in reversed(spans[:k]):
            if b <= start:
                return False
            if not (inside_ok and a <= start and end <= b):
                return True
        return False

    def directive_around(self, offset: int) -> Span | None:
        """The preprocessor line that holds offset (None in code)."""
        spans = self.directives.spans
        k = bisect.bisect_right(spans, (offset, len(self.source.body) + 1)) - 1
        if k >= 0 and spans[k][0] <= offset < spans[k][1]:
            return spans[k]
        return None
