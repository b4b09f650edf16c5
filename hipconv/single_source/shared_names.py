"""Which renames the portability header may hold: one `#define` serves every file of the tree.

A CUDA name whose HIP name depends on how it is used cannot be one macro: cuda_runtime.h's C++ overload
cudaEventCreate(&event, flags) is hipEventCreateWithFlags, while cudaEventCreate(&event) is hipEventCreate,
and a tree with both (in one file or in two) would get two `#define cudaEventCreate`s, the last one read
by every file. Such a name is `#define`d only as what a use that is not a call becomes (the rules' `uncalled`
overload), which is what a macro does to every use; a use renamed otherwise is a guarded edit in its file.
"""

from __future__ import annotations

from collections.abc import Callable

from hipconv.rules.model import LookupTable


def header_renames(table: LookupTable) -> Callable[[str, str], bool]:
    """A test of (CUDA name, HIP name): whether the header may `#define` the one as the other for the tree."""

    def shared(cuda: str, hip: str) -> bool:
        resolution = table.identifiers.get(cuda)
        if resolution is None or resolution.overloads is None:
            return True
        uncalled = resolution.overloads.uncalled
        return uncalled is not None and uncalled.rule is not None and uncalled.rule.hip == hip

    return shared
