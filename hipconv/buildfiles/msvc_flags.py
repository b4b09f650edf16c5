"""MSVC options that nvcc passes to cl.exe (`-Xcompiler /std:c++20`, in a Windows branch of a build file).

hipcc compiles host code with clang through its GNU-style driver (on Windows as well: the HIP SDK's hipcc
runs clang++, not clang-cl), which reads a `/...` word as an input file. So an MSVC option is never passed
on as it is: it becomes the clang option that clang-cl itself turns it into (the same -cc1 flags, checked
with `clang-19 --driver-mode=cl -###`), or it is dropped with a note when the GNU driver has no plain
counterpart (/EHsc, /MD, /bigobj, /wd4996, /O2, ...). Only `/`-words are read as MSVC options: a `-` word
is a GCC-style option as well (-MD), passed on as before.
Pure data and functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

# (MSVC option, the clang option clang-cl turns it into); group 1 of the pattern fills {0}
MSVC_TO_CLANG: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"/std:(c\+\+(?:14|17|20))"), "-std={0}"),  # /std:c++latest moves with the release: dropped
    (re.compile(r"/D(.+)"), "-D{0}"),
    (re.compile(r"/U(.+)"), "-U{0}"),
    (re.compile(r"/I(.+)"), "-I{0}"),
    (re.compile(r"/Od"), "-O0"),
    (re.compile(r"/Z[i7]"), "-g"),
    (re.compile(r"/W0"), "-w"),
    (re.compile(r"/W[123]"), "-Wall"),
    (re.compile(r"/W4"), "-WCL4"),  # clang's warning group for /W4: -Wall -Wextra
    (re.compile(r"/WX"), "-Werror"),
    (re.compile(r"/openmp"), "-fopenmp"),
)


_QUOTED = re.compile(r"""^(\\?["'])(.*)\1$""")
# host-compiler options whose value is the next item: an item after them is not an MSVC option (/usr/include)
_VALUE_OPTIONS = frozenset({"-I", "-isystem", "-iquote", "-idirafter", "-include", "-o", "-MF", "-MT", "-L"})


class HostFlag(NamedTuple):
    word: str | None  # the clang option; None: dropped
    message: str  # what happened, for the note (HC406)


def msvc_option(item: str) -> HostFlag | None:
    """A host-compiler word passed through -Xcompiler -> its clang option; None when it is not an MSVC option.

    Shell or CMake quotes around the word ("/std:c++20", \"/wd4819\" in a CMake string) are looked through."""
    bare = _QUOTED.sub(r"\2", item)
    if not bare.startswith("/") or bare.count("/") > 1:  # a path (/opt/x/lib) is not an option
        return None
    for pattern, clang in MSVC_TO_CLANG:
        found = pattern.fullmatch(bare)
        if found:
            word = clang.format(*found.groups())
            return HostFlag(word, f"MSVC option {bare} becomes {word}, its clang spelling (hipcc's host compiler)")
    return HostFlag(
        None,
        f"MSVC option {bare} dropped: hipcc's host compiler is clang, whose GNU-style driver has no counterpart for it",
    )


def msvc_options(items: Sequence[str]) -> list[HostFlag | None]:
    """msvc_option of each item of one -Xcompiler list; None also for the value of a GCC-style option."""
    return [None if n and items[n - 1] in _VALUE_OPTIONS else msvc_option(item) for n, item in enumerate(items)]
