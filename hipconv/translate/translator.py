"""One decoded source -> its FileResult: prefilter, lex, match, apply. Pure: no I/O.

A bug in a matcher becomes the file's FAILED result with its traceback; only a missing
libclang (HipconvError) escapes.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping, Sequence

from hipconv.diagnostics import Diagnostic
from hipconv.errors import HipconvError
from hipconv.file_kinds import FileKind, file_kind
from hipconv.results import FileResult, FileStatus, Replacement
from hipconv.rules.model import LookupTable
from hipconv.settings import Settings
from hipconv.translate.annotate import annotated, has_markers
from hipconv.translate.cg_members import may_call_members
from hipconv.translate.compat import COMPAT_HEADER, is_generated_header
from hipconv.translate.cuda_constructs import CUDA_CONSTRUCT_WORDS
from hipconv.translate.edits import Edit, apply
from hipconv.translate.facts.warp_size import may_name_warp_size
from hipconv.translate.lexer import Tokens, lex, lex_many
from hipconv.translate.match import match_file
from hipconv.translate.nvcc_syntax import may_respell
from hipconv.translate.project import NO_PROJECT, Project
from hipconv.translate.source import SourceFile
from hipconv.translate.unknown_api import cuda_looking, pastes_cuda_name
from hipconv.translate.vector_ops import may_define_operators
from hipconv.translate.version_tests import WORDS as VERSION_WORDS
from hipconv.translate.words import file_words, may_include


def translate_one(source: SourceFile, table: LookupTable, settings: Settings) -> FileResult:
    """Translate one decoded source."""
    return translate_sources([source], table, settings)[0]


def translate_sources(
    sources: Sequence[SourceFile],
    table: LookupTable,
    settings: Settings,
    *,
    words: Sequence[frozenset[bytes]] | None = None,
    lexed: Mapping[int, Tokens] | None = None,
    project: Project = NO_PROJECT,
    compat_includes: Mapping[str, str] | None = None,
) -> list[FileResult]:
    """Translate decoded sources, lexing those that need it with one libclang call.

    `words` (per source, from words.file_words) and `lexed` (tokens by source index) let a caller
    that scanned or lexed the sources already (hipconv scan) share that work. `project`: what the
    files of the whole run tell each other (project.gather_project): the CUDA-looking names they
    declare, the project's own in each of them (no HC001), and the lane masks they define.
    `compat_includes`: by source path, how the file includes
    hipconv_compat.h (a path relative to it; default: beside it).
    """
    words = words if words is not None else [file_words(s.body) for s in sources]
    results: list[FileResult | None] = [None] * len(sources)
    switches = frozenset(n.encode() for n, tests in project.hip_switches.items() if tests)  # a file testing one
    todo = [
        n
        for n, source in enumerate(sources)
        if (needs_translation(source, words[n], table, settings) or not words[n].isdisjoint(switches))
        and not is_generated_header(source.body)  # hipconv's own hipconv_compat.h, translated again: as it is
    ]
    for n in sorted(set(range(len(sources))) - set(todo)):
        results[n] = FileResult(sources[n].path, FileStatus.UNCHANGED, size=len(sources[n].data))
    tokens = dict(lexed or {})
    tokens.update(lex_sources(sources, [n for n in todo if n not in tokens]))
    for n in todo:
        source = sources[n]
        try:
            include = (compat_includes or {}).get(source.path, COMPAT_HEADER)
            results[n] = _translate_tokens(source, tokens[n], table, settings, words[n], project, include)
        except HipconvError:
            raise
        except Exception as exc:  # a bug: keep the traceback, go on with the other files
            results[n] = failed_result(source, exc)
    return [r for r in results if r is not None]


def failed_result(source: SourceFile, exc: Exception) -> FileResult:
    """The result of a file whose translation hit a bug: its traceback, and the file copied unchanged."""
    return FileResult(
        source.path,
        FileStatus.FAILED,
        output=source.data,
        size=len(source.data),
        reason=f"internal error: {exc!r}",
        trace=traceback.format_exc(),
    )


def lex_sources(sources: Sequence[SourceFile], wanted: Sequence[int]) -> dict[int, Tokens]:
    """Tokens of the wanted sources, lexed with one libclang call (file by file if batching fails)."""
    try:
        return dict(zip(wanted, lex_many([sources[n].body for n in wanted])))
    except HipconvError:
        raise
    except Exception:  # a bug in batching: lex the files one by one
        return {n: lex(sources[n].body) for n in wanted}


def _translate_tokens(
    source: SourceFile,
    tokens: Tokens,
    table: LookupTable,
    settings: Settings,
    words: frozenset[bytes],
    project: Project,
    compat_include: str = COMPAT_HEADER,
) -> FileResult:
    found = match_file(
        source,
        tokens,
        table,
        settings,
        is_cu=_is_cu(source),
        is_cpp=_is_cpp(source),
        is_header=_is_header(source),
        words=words,
        project=project,
        compat_include=compat_include,
    )
    result = edited_result(source, found.edits, found.diagnostics, found.replacements, found.shims)
    if not settings.annotate:
        return result

    def findings(text: SourceFile, text_tokens: Tokens) -> Sequence[Diagnostic]:  # of the translated text
        is_cu, is_cpp, is_header = _is_cu(source), _is_cpp(source), _is_header(source)
        found = match_file(
            text, text_tokens, table, settings, is_cu=is_cu, is_cpp=is_cpp, is_header=is_header, project=project
        )
        return found.diagnostics

    return annotated(result, source, tokens, findings)


def edited_result(
    source: SourceFile,
    edits: Sequence[Edit],
    diagnostics: Sequence[Diagnostic],
    replacements: Sequence[Replacement],
    shims: frozenset[str] = frozenset(),
) -> FileResult:
    """Apply a file's edits, which overlap none another (combine.without_overlaps), and make its result."""
    data = apply(source.body, edits).data
    changed = data != source.body
    return FileResult(
        source.path,
        FileStatus.CONVERTED if changed else FileStatus.UNCHANGED,
        output=source.output(data) if changed else None,
        diagnostics=tuple(sorted(diagnostics, key=lambda d: (d.line, d.col, d.code))),
        replacements=tuple(replacements),
        size=len(source.data),
        shims=shims if changed else frozenset(),
    )


def _is_cu(source: SourceFile) -> bool:
    return file_kind(source.path) is FileKind.CUDA


def _is_cpp(source: SourceFile) -> bool:
    return file_kind(source.path) is FileKind.CPP


def _is_header(source: SourceFile) -> bool:  # when it includes a HIP header, the runtime goes before it
    return file_kind(source.path) is FileKind.HEADER


def needs_translation(source: SourceFile, words: frozenset[bytes], table: LookupTable, settings: Settings) -> bool:
    """The prefilter, on the file's words: False when the file needs no lexing at all."""
    return bool(
        # include rules match header paths; nvcc includes the runtime in a .cu file that includes a header
        (b"include" in words and (_is_cu(source) or may_include(words, table.include_paths)))
        or (settings.kernel_launch == "hip" and b"<<<" in source.body)
        or not words.isdisjoint(table.names)
        or bool(cuda_looking(words))  # HC001: a CUDA-looking name no inventory knows (unknown_api)
        or pastes_cuda_name(source.body, words)
        or may_define_operators(words)  # a vector operator HIP may declare (vector_ops)
        or may_call_members(words)  # a cooperative group's member HIP may lack (cg_members)
        or may_name_warp_size(source.body)  # a project's warp-size constant (matchers.warp_size)
        or not words.isdisjoint(VERSION_WORDS)  # a CUDA version or architecture macro (version_macros)
        or (
            (_is_cu(source) or _is_cpp(source))
            and (b"<<<" in source.body or not words.isdisjoint(CUDA_CONSTRUCT_WORDS))
        )
        or (not words.isdisjoint(CUDA_CONSTRUCT_WORDS) and may_respell(source.body, words))  # CUDA's C++
        or (settings.annotate and has_markers(source.body))  # markers of an earlier run may be stale
    )
