"""The last matcher: the lines the file needs at its top, from what the matchers before it found: the
defines their rewrites need (and those of the run's headers it includes), the HIP runtime include (implicit
in a .cu file, and in a C++ source nvcc compiles as CUDA; before the first HIP include of a header), and
right after it the include of hipconv_compat.h when the file uses a shim and the system headers a matcher
needs (host_math: <math.h>)."""

from __future__ import annotations

from hipconv.translate.combine import used_shims
from hipconv.translate.compat import include_line
from hipconv.translate.context import FileContext
from hipconv.translate.cuda_constructs import uses_cuda_constructs
from hipconv.translate.directives import Includes
from hipconv.translate.edits import Edit
from hipconv.translate.found import Earlier, Found, MatchResult
from hipconv.translate.includes import INSERT_RULE_ID
from hipconv.translate.lexer import TokenKind, after_splice, unsplice


def match(ctx: FileContext, earlier: Earlier) -> MatchResult:
    found = Found(ctx, earlier)
    includes = earlier.includes
    assert includes is not None, "the includes matcher runs first"
    kind, table = ctx.kind, ctx.table
    lines = [f"#ifndef {d}\n#define {d}\n#endif" for d in _defines(ctx, earlier)]
    shims = used_shims(earlier.results)
    compat = include_line(ctx, shims, compat_included=any(r.compat_included for r in earlier.results))
    headers = sorted(frozenset().union(*(r.headers for r in earlier.results)))
    after = ([compat] if compat else []) + [f"#include <{h}>" for h in headers]  # after the runtime include
    if table.runtime_header and not includes.runtime and _needs_runtime(ctx, earlier, includes):
        runtime = f"#include <{table.runtime_header}>"
        if kind.is_cu or includes.hip_line is None or lines:  # nvcc includes it before anything in a .cu file;
            lines.append(runtime)  # the defines a rewrite needs must come before it
            lines += after
        else:  # a header: right above its first HIP include (inside its include guard)
            nl = ctx.source.newline_at(includes.hip_line)
            text = "".join(line + nl for line in [runtime, *after])
            found.edits.append(Edit.replace(includes.hip_line, includes.hip_line, text, INSERT_RULE_ID))
        after = []
    if after and includes.runtime_end is not None:
        nl = ctx.source.newline_at(includes.runtime_end)
        text = "".join(nl + line for line in after)
        found.edits.append(Edit.replace(includes.runtime_end, includes.runtime_end, text, INSERT_RULE_ID))
    else:
        lines += after
    if lines:
        _insert_at_top(found, "\n".join(lines))
    return found.result()


def _needs_runtime(ctx: FileContext, earlier: Earlier, includes: Includes) -> bool:
    """The runtime goes before the first HIP header (of a .cu file or a header), and into a .cu file that
    uses the API or CUDA's constructs, or includes a project header (nvcc includes it there)."""
    is_cu = ctx.kind.is_cu
    if includes.hip and (is_cu or ctx.kind.is_header):
        return True
    uses_api = any(r.uses_api for r in earlier.results)
    return is_cu and (uses_api or ctx.kind.cuda_cpp or includes.quoted or _uses_cuda(ctx, earlier))


def _uses_cuda(ctx: FileContext, earlier: Earlier) -> bool:
    """The file holds something a rewrite changed, a kernel launch or a CUDA keyword or built-in: nvcc
    includes the runtime into a .cu file before it (and before the project headers, which may rely on it)."""
    return any(r.edits for r in earlier.results) or uses_cuda_constructs(ctx.tokens, ctx.words)


def _defines(ctx: FileContext, earlier: Earlier) -> list[str]:
    """The defines the file's rewrites, and those of the headers of the run it includes, need before the
    runtime header: a source file defines them at its top. A header does not: its top comes after
    the includes that precede it in a translation unit (the build defines them; see WARP_SYNC_DEFINE)."""
    if ctx.kind.is_header:
        return []
    needed = frozenset().union(*(r.defines for r in earlier.results))
    return sorted((needed | ctx.header_defines) - ctx.directives.defined)


def _insert_at_top(c: Found, text: str, rule_id: str = INSERT_RULE_ID) -> None:
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
