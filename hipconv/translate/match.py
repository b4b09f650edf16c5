"""Matchers: tokens + lookup table -> edits, diagnostics and a record of replacements.

One module per kind of construct, run here in order: include directives (includes),
identifiers with call reshapes (identifiers, calls, lane_masks), atomicAdd on 16-bit floats
(half_atomics), fetches through texture references (texture_refs), CUDA-looking names no
inventory knows (unknown_api), the project's vector operators that HIP declares (vector_ops),
member calls on cooperative groups the targeted HIP lacks (cg_members), case labels and
overloads translation would break (case_labels, redefinitions), kernel launches (launches),
then the runtime include (implicit in .cu files; before the first HIP include of a header)
and required defines.
"""

from __future__ import annotations

from hipconv.rules.model import LookupTable
from hipconv.settings import KernelLaunch, Settings
from hipconv.translate.builtin_variables import BUILTIN_VARIABLES, uses_builtin_variable
from hipconv.translate.case_labels import match_case_labels
from hipconv.translate.cg_members import match_cg_members
from hipconv.translate.collector import FileMatches, MatchCollector
from hipconv.translate.compat import COMPAT_HEADER, include_line, match_aliased
from hipconv.translate.edits import Edit
from hipconv.translate.half_atomics import match_half_atomics
from hipconv.translate.identifiers import match_identifiers
from hipconv.translate.includes import INSERT_RULE_ID, Directives, directive_lines, match_includes
from hipconv.translate.launches import match_launches
from hipconv.translate.lexer import TokenKind, Tokens, after_splice, unsplice
from hipconv.translate.nvcc_syntax import glued_keyword, match_nvcc_syntax, may_respell
from hipconv.translate.project import NO_PROJECT, Project
from hipconv.translate.redefinitions import match_redefinitions
from hipconv.translate.source import SourceFile
from hipconv.translate.surfaces import match_surface_modes
from hipconv.translate.syntax import Span
from hipconv.translate.texture_refs import match_texture_fetches
from hipconv.translate.unknown_api import match_unknown_api
from hipconv.translate.vector_ops import match_vector_operators
from hipconv.translate.version_macros import match_version_macros
from hipconv.translate.words import WORDY_KINDS, file_words, token_occurrences

# Constructs that make a .cu file CUDA even when it includes no CUDA header.
CUDA_CONSTRUCTS = frozenset(
    {
        "__global__",
        "__device__",
        "__shared__",
        "__constant__",
        "__managed__",
        "__launch_bounds__",
        "threadIdx",
        "blockIdx",
        "blockDim",
        "gridDim",
        "__syncthreads",
        "warpSize",
    }
)
CUDA_CONSTRUCT_WORDS = frozenset(w.encode() for w in CUDA_CONSTRUCTS)


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
    nvcc compiles it as CUDA (_cpp_compiled_as_cuda); `words`: the file's identifier-like words, when the caller has
    already scanned for them; `project`: what the run's other files tell (names they declare, lane masks they
    define); `compat_include`: the path by which the file includes hipconv_compat.h when it uses a shim."""
    c = MatchCollector(source, tokens, table, settings, compat_include=compat_include, project_masks=project.masks)
    directives = directive_lines(tokens)
    c.directive_spans = directives.spans
    words = words if words is not None else file_words(source.body)
    cuda_cpp = is_cpp and not is_cu and _cpp_compiled_as_cuda(tokens, words, directives)
    is_cu = is_cu or cuda_cpp
    includes = match_includes(c, directives, runtime_first=is_cu or is_header)
    tested = match_version_macros(c, directives, words)  # before the names: it takes over their lines
    skip = sorted(includes.spans + directives.message_spans + tested)
    nvcc_compiles = is_cu or (may_respell(c.tokens.body, words) and _uses_cuda_constructs(tokens, words))
    uses_api = _match_code(c, skip, words, directives, project, nvcc_compiles=nvcc_compiles)
    lines = [f"#ifndef {d}\n#define {d}\n#endif" for d in _defines(c, directives, project, is_header=is_header)]
    compat = include_line(c)  # hipconv_compat.h, right after the runtime include
    if (
        table.runtime_header
        and not includes.runtime
        and (
            (includes.hip and (is_cu or is_header))  # the runtime goes before the first HIP header
            or (is_cu and (uses_api or cuda_cpp or includes.quoted or _uses_cuda(c, words)))  # nvcc includes it
        )
    ):
        runtime = f"#include <{table.runtime_header}>"
        if is_cu or includes.hip_line is None or lines:  # nvcc includes it before anything in a .cu file;
            lines.append(runtime)  # the defines a rewrite needs must come before it
            lines += [compat] if compat else []
        else:  # a header: right above its first HIP include (inside its include guard)
            nl = c.source.newline_at(includes.hip_line)
            text = runtime + nl + (compat + nl if compat else "")
            c.edits.append(Edit.replace(includes.hip_line, includes.hip_line, text, INSERT_RULE_ID))
        compat = None
    if compat and includes.runtime_end is not None:
        nl = c.source.newline_at(includes.runtime_end)
        c.edits.append(Edit.replace(includes.runtime_end, includes.runtime_end, nl + compat, INSERT_RULE_ID))
    elif compat:
        lines.append(compat)
    if lines:
        _insert_at_top(c, "\n".join(lines))
    return c.result()


def _match_code(
    c: MatchCollector,
    skip: list[Span],
    words: frozenset[bytes],
    directives: Directives,
    project: Project,
    *,
    nvcc_compiles: bool,
) -> bool:
    """The matchers of the file's code, in order (`skip`: include paths and directive messages;
    `nvcc_compiles`: a file nvcc compiles, a .cu file or one that holds CUDA); True when it uses a CUDA API."""
    uses_api = match_identifiers(c, skip, words)
    match_aliased(c, skip, words)
    match_half_atomics(c, words)
    match_texture_fetches(c, words)
    match_surface_modes(c, words)
    match_unknown_api(c, skip, words, directives, project.names.get(c.source.path, frozenset()))
    if nvcc_compiles:  # a host compiler's files are its own business
        match_nvcc_syntax(c, skip, words, directives.defined)
    match_vector_operators(c, words)
    match_cg_members(c, words)
    match_case_labels(c, directives, words)
    match_redefinitions(c, directives, words)
    if c.settings.kernel_launch is KernelLaunch.HIP:
        match_launches(c)
    return uses_api


def _uses_cuda(c: MatchCollector, words: frozenset[bytes]) -> bool:
    """The file holds something a rewrite changed, a kernel launch or a CUDA keyword or built-in: nvcc
    includes the runtime into a .cu file before it (and before the project headers, which may rely on it)."""
    return bool(c.edits) or _uses_cuda_constructs(c.tokens, words)


def _defines(c: MatchCollector, directives: Directives, project: Project, *, is_header: bool) -> list[str]:
    """The defines the file's rewrites, and those of the headers of the run it includes, need before the
    runtime header: a source file defines them at its top. A header does not: its top comes after
    the includes that precede it in a translation unit (the build defines them; see WARP_SYNC_DEFINE)."""
    if is_header:
        return []
    return sorted((c.defines_needed | project.header_defines.get(c.source.path, frozenset())) - directives.defined)


def _cpp_compiled_as_cuda(tokens: Tokens, words: frozenset[bytes], directives: Directives) -> bool:
    """A C++ source that holds what no host compiler accepts, a kernel launch, a CUDA keyword or a built-in
    variable read as one (not a host variable of that name: builtin_variables), is built with `nvcc -x cu`,
    which includes the CUDA runtime, unless it #defines one of them itself, for a host compiler."""
    return directives.defined.isdisjoint(CUDA_CONSTRUCTS) and (
        _uses_cuda_constructs(tokens, words - BUILTIN_VARIABLES) or uses_builtin_variable(tokens, words)
    )


def _uses_cuda_constructs(tokens: Tokens, words: frozenset[bytes]) -> bool:
    """A kernel launch (`<<<` closed by `>>>`: C++ has `operator<<<T>`), or a CUDA keyword or built-in
    variable, as a token (not in a comment)."""
    punct = (TokenKind.PUNCTUATION,)
    opens = token_occurrences(tokens, (b"<<<",), punct, first_only=True)
    return bool(
        (opens and any(k > opens[0] for k in token_occurrences(tokens, (b">>>",), punct)))
        or token_occurrences(tokens, words & CUDA_CONSTRUCT_WORDS, WORDY_KINDS, first_only=True)
        or glued_keyword(tokens, words)  # `extern "C"__global__`: a keyword for nvcc, a literal suffix here
    )


def _insert_at_top(c: MatchCollector, text: str, rule_id: str = INSERT_RULE_ID) -> None:
    """Insert lines after the leading comment block (before the first code or directive), with the
    line ending of the line they go into."""
    tokens, body = c.tokens, c.tokens.body
    first = 0
    while first < len(tokens) and tokens.kinds[first] == TokenKind.COMMENT:
        first += 1
    if first == len(tokens):
        pos = len(body)
        nl = c.source.newline_at(pos)
        prefix = nl if body and not body.endswith(b"\n") else ""
        c.edits.append(Edit.replace(pos, pos, prefix + text.replace("\n", nl) + nl, rule_id))
        return
    pos = tokens.starts[first]
    line_start = body.rfind(b"\n", 0, pos) + 1
    while after_splice(body, line_start):  # blank lines that splices join to the code: go before them
        before = body.rfind(b"\n", 0, line_start - 1) + 1
        if unsplice(body[before:line_start]).strip():
            break
        line_start = before
    comment_end = tokens.ends[first - 1] if first else 0
    blank = not unsplice(body[line_start:pos]).strip()
    if line_start >= comment_end and blank and not after_splice(body, line_start):
        nl = c.source.newline_at(line_start)
        c.edits.append(Edit.replace(line_start, line_start, text.replace("\n", nl) + nl, rule_id))
    else:  # code after a comment or a line splice on the same line: a directive must start a line of its own
        nl = c.source.newline_at(pos)
        c.edits.append(Edit.replace(pos, pos, nl + text.replace("\n", nl) + nl, rule_id))
