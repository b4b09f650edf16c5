"""The values that flow between the stages: what to read (Job), what a file became (FileResult).

A leaf layer: discover, the translator, the write stage, scan, build and the reports all
use these types, and this module imports nothing of hipconv's but the diagnostics.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import NamedTuple

from hipconv.diagnostics import Diagnostic

COMPAT_HEADER = "hipconv_compat.h"  # the header of shims a run writes at the root of its output (translate/compat.py)


class FileStatus(enum.Enum):
    CONVERTED = "converted"
    UNCHANGED = "unchanged"
    COPIED = "copied"  # not a source file: copied byte for byte
    LINKED = "linked"  # a symbolic link pointing inside the input trees: recreated as a link in the output
    SKIPPED = "skipped"
    FAILED = "failed"


class Replacement(NamedTuple):
    """One rewrite, for the report: where, what it was, what it became, and by which rule."""

    line: int
    col: int
    cuda: str
    hip: str
    rule_id: str
    library: str

    def to_json(self) -> dict[str, object]:
        return {
            "line": self.line,
            "col": self.col,
            "cuda": self.cuda,
            "hip": self.hip,
            "rule": self.rule_id,
            "library": self.library,
        }


@dataclass(frozen=True)
class FileResult:
    path: str  # as shown to the user
    status: FileStatus
    output: bytes | None = None  # the new content; None when nothing is to be written
    diagnostics: tuple[Diagnostic, ...] = ()
    replacements: tuple[Replacement, ...] = ()
    reason: str = ""  # why it was skipped or failed
    trace: str = ""  # traceback of an unexpected failure (a bug)
    size: int = 0
    shims: frozenset[str] = frozenset()  # the shims of hipconv_compat.h its translation uses
    portability: frozenset[str] = frozenset()  # what hipconv_portability.h holds for it (--single-source)


class Job(NamedTuple):
    """One file of a run. A tuple, not a dataclass: a large tree holds one for each of its files for the whole
    run, and a tuple takes less than half the memory of a dataclass instance and its attribute dict."""

    display: str
    path: str  # filesystem path to read
    translate: bool  # False: copy unchanged
    size: int = -1  # from discovery's stat; -1 when unknown
    mode: int | None = None  # permission bits for the output file
    link: str | None = None  # a symbolic link inside the input trees: the text of the link to create
    compat_include: str = COMPAT_HEADER  # its include of the tree's hipconv_compat.h, when it uses a shim
    digest: bytes | None = None  # of its bytes as this run first read them (pipeline): later phases look up
    # the cache with it, and read the file only when they must compute


@functools.lru_cache(maxsize=4096)  # one string for the files of a folder, not one per file
def compat_include_path(relative_dir: str) -> str:
    """The include path of hipconv_compat.h at the root of the output tree, from a file in `relative_dir`
    (a folder of the tree relative to its root, `/`-separated; "" or "." for the root)."""
    parts = [p for p in relative_dir.replace("\\", "/").split("/") if p not in ("", ".")]
    return "../" * len(parts) + COMPAT_HEADER
