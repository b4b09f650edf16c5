"""The matchers, one per construct, in the order they run (as pyupgrade registers its fixers).

Each is a function (FileContext, Earlier) -> MatchResult: it reads the file's frozen context and the
results of the matchers before it, and returns its own findings; translate.combine joins them. A new
kind of rewrite is a module here and a line in MATCHERS. Order matters where a matcher reads what an
earlier one reported (Earlier): the include paths and version tests the code matchers skip, the
version tests case_labels and redefinitions read as rewritten, and everything runtime_include reads.
"""

from __future__ import annotations

from collections.abc import Callable

from hipconv.translate.context import FileContext
from hipconv.translate.found import NOTHING, Earlier, MatchResult
from hipconv.translate.matchers import (
    case_labels,
    cg_aliases,
    cg_members,
    coalesced_scans,
    direct_overloads,
    half_atomics,
    host_math,
    identifiers,
    includes,
    launches,
    nvcc_syntax,
    overload_shims,
    pasted_names,
    project_hip,
    range_warp_size,
    redefinitions,
    release_range,
    runtime_include,
    surfaces,
    texture_refs,
    unknown_api,
    vector_ops,
    version_macros,
    warp_size,
)

Matcher = Callable[[FileContext, Earlier], MatchResult]

MATCHERS: tuple[Matcher, ...] = (
    includes.match,  # include directives; takes the include paths and #error/#warning text
    project_hip.match,  # a project's own HIP path: takes its switch tests, keeps its HIP code whole
    version_macros.match,  # before the names: it takes over their lines
    direct_overloads.match,  # CUDA overloads the target has under another name: takes their callees
    identifiers.match,  # every CUDA API name, calls reshaped
    cg_aliases.match,
    half_atomics.match,
    texture_refs.match,
    surfaces.match,
    pasted_names.match,  # calls a project's `#define cuda(fn) cuda##fn` makes: takes the pasted prefix
    unknown_api.match,
    nvcc_syntax.match,
    vector_ops.match,
    cg_members.match,
    coalesced_scans.match,  # HC106: a scan over a coalesced_group, a wavefront on AMD
    case_labels.match,
    redefinitions.match,
    launches.match,
    warp_size.match,  # a project's warp-size constant: per architecture on the device, the device's on the host
    release_range.match,  # HC037: a name some release of --rocm-version LOW..HIGH cannot build
    range_warp_size.match,  # HC038: warpSize as a constant, in a range that reaches ROCm 7.0
    overload_shims.match,  # CUDA overloads the target lacks: hipconv_compat.h defines them
    host_math.match,  # the system headers (<math.h>) runtime_include adds beside the runtime include
    runtime_include.match,  # last: the defines, runtime include and compat include the others need
)


def run_matchers(ctx: FileContext) -> list[MatchResult]:
    """The matchers' results for the file, in order, less those that found nothing (NOTHING): most matchers find
    nothing in most files, and the combiner and the later matchers read the results as a whole. A matcher after
    one that found nothing gets the same Earlier, with what it worked out already."""
    results: list[MatchResult] = []
    earlier = Earlier()
    for matcher in MATCHERS:
        result = matcher(ctx, earlier)
        if result is not NOTHING:
            results.append(result)
            earlier = Earlier(tuple(results))
    return results
