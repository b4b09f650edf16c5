"""The files a run's sources include, found as the compiler finds them, and what each source reaches.

`#include "x.h"` is looked for beside the including file, then in the include directories (`include-dirs`
in the configuration); `#include <x.h>` in the include directories only. What a run does not name but
its files include, directly or not, is part of its project (project.gather_project): a file's project
facts come from the files it reaches, the same whether the run names one file (pre-commit) or the tree.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hipconv.translate.lexer import LINE_SPLICE, after_splice, unsplice

# an #include line is `^[ \t]*#[ \t]*include[ \t]*(["<])([^">\n]+)[">]`, or with block comments around its `#` or path:
# the regular expression starts at the word (found fast, as a literal), and include_lines checks what comes
# before it on its line
_BLANKS = rb"(?:[ \t]|/\*(?:[^*\n]|\*(?!/))*\*/)*"  # blanks and block comments on a line
_INCLUDE = re.compile(rb"include" + _BLANKS + rb'(["<])([^">\n]+)[">]')  # (`#include /* c */ <x.h>`)
_HASH = re.compile(_BLANKS + rb"#" + _BLANKS)  # what starts an include line: `/* c */#include`, `#/* c */include`
MAX_HEADER_BYTES = 16 * 1024 * 1024  # a larger file reached by an #include is not read (not source)


EMPTY_SET: frozenset[Any] = frozenset()  # what most files reach, declare or pass: one empty set for all of them
Include = tuple[bool, str]  # one #include line: quoted ("x.h", not <x.h>), and the path as written


def include_lines(body: bytes) -> tuple[Include, ...]:
    """The #include lines of a body (project.file_facts keeps them with a file's facts)."""
    spliced = LINE_SPLICE.search(body) is not None  # most files: none, and no line below asks about one
    if spliced and _spliced_head(body):  # read as the preprocessor reads it: `#in\\<newline>clude <x.h>` is one
        body = unsplice(body)
        spliced = LINE_SPLICE.search(body) is not None
    if b"include" not in body:
        return ()
    lines = []
    for m in _INCLUDE.finditer(body):
        line = body.rfind(b"\n", 0, m.start()) + 1
        # a line the one above continues (`#else\\`, `#define X \\`): read it whole
        if spliced and after_splice(body, line):
            head = _logical_head(body, line, m.start())
            if _HASH.fullmatch(head):
                lines.append((m.group(1) == b'"', m.group(2).decode(errors="replace")))
        elif _HASH.fullmatch(body, line, m.start()):
            lines.append((m.group(1) == b'"', m.group(2).decode(errors="replace")))
    return tuple(lines)


def _logical_head(body: bytes, line: int, at: int) -> bytes:
    """What stands before `at` on its logical line, which starts before `line`: its lines, splices joined."""
    while after_splice(body, line):
        line = body.rfind(b"\n", 0, line - 1) + 1
    return unsplice(body[line:at])


# the head of a directive that a line splice cuts, from its `#`: a word, or an include's path so far, then the splice
_SPLICED_HEAD = re.compile(rb"#" + _BLANKS + rb'(?:[a-z]*|include[ \t]*["<][^">\n]*)\\\r?\n')
_LINE_BLANKS = re.compile(_BLANKS)


def _spliced_head(body: bytes) -> bool:
    """Whether a line splice cuts a directive's `#` and name (`#in\\<newline>clude`) or an include's path: each
    `#` that such a head follows found by one search, its line then read back to the line start (a file holds
    few), not a copy of the file without its splices (three times the cost)."""
    at = 0
    while (m := _SPLICED_HEAD.search(body, at)) is not None:
        if _LINE_BLANKS.fullmatch(body, body.rfind(b"\n", 0, m.start()) + 1, m.start()):
            return True
        at = m.start() + 1
    return False


@dataclass(frozen=True)
class Included:
    direct: dict[str, tuple[str, ...]]  # each file met -> the files its #include lines name
    read: dict[str, bytes]  # the files reached that were not given, by path, as read

    def included(self) -> set[str]:
        """Every file that a file met includes: those that some given file reaches (and a file that includes
        itself)."""
        return {header for headers in self.direct.values() for header in headers}

    def reach(self, path: str) -> frozenset[str]:
        """The other files that the includes of `path` reach, transitively. Computed when asked: a rerun
        needs only `read` (the project's cache key), not a set for each of its thousands of files."""
        return _reached(path, self.direct)


def included_closure(given: Mapping[str, Sequence[Include]], include_dirs: Sequence[str] = ()) -> Included:
    """What the `given` files (absolute normalised path -> its include_lines) include, read from disk
    where not given; include cycles end, unreadable or missing files are left out (as a header of the
    system would be)."""
    read: dict[str, bytes] = {}
    direct: dict[str, tuple[str, ...]] = {}
    todo = list(given)
    while todo:
        path = todo.pop()
        if path in direct:
            continue
        lines = given[path] if path in given else include_lines(read[path]) if path in read else ()
        direct[path] = found = _includes(path, lines, include_dirs, given)
        for header in found:
            if header not in given and header not in read and (text := _read(header)) is not None:
                read[header] = text
            todo.append(header)
    return Included(direct, read)


def _includes(
    path: str, lines: Sequence[Include], include_dirs: Sequence[str], given: Mapping[str, object]
) -> tuple[str, ...]:
    here = os.path.dirname(path)
    found = []
    for quoted, as_written in lines:
        written = as_written.strip()
        dirs = (here, *include_dirs) if quoted else include_dirs
        for folder in dirs:
            candidate = os.path.normpath(os.path.join(folder, written))
            if candidate in given or os.path.isfile(candidate):
                found.append(candidate)
                break
    return tuple(found)


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read() if os.fstat(fh.fileno()).st_size <= MAX_HEADER_BYTES else None
    except OSError:
        return None


def _reached(path: str, direct: Mapping[str, tuple[str, ...]]) -> frozenset[str]:
    seen: set[str] = set()
    todo = list(direct.get(path, ()))
    while todo:
        header = todo.pop()
        if header not in seen:
            seen.add(header)
            todo += direct.get(header, ())
    seen.discard(path)
    return frozenset(seen) if seen else EMPTY_SET
