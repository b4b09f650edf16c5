"""Single source (--single-source): a file's HIP translation folded back into its CUDA text.

It runs after the matchers, on a file's CUDA text and its HIP translation, line by line (difflib):
- a run of changed lines that only renames names (cudaMalloc -> hipMalloc) stays CUDA: the names go to the
  portability header (hipconv.single_source), which `#define`s them for hipcc;
- a run of changed preprocessor lines that include headers, or that the translation inserted (the HIP
  headers, hipconv_compat.h, switches such as HIP_ENABLE_WARP_SYNC_BUILTINS), goes to the header, and the
  file includes the header instead, under the HIP test;
- any other run (a reshaped call, a widened lane mask, a rewritten `__CUDA_ARCH__` test) becomes a guarded
  edit over the smallest whole logical lines (a macro's continuation lines stay whole): the HIP lines under
  HIP_TEST, the CUDA lines under `#else`, as they were.

Each guarded block's marker carries a digest of its CUDA lines: `unwrap` gives back the CUDA text of a file
this wrote (so a rerun starts from CUDA, and rewrites the same bytes), and `drifted` finds the blocks whose
CUDA side was edited since.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

# What hipcc defines and nvcc, g++ and clang's CUDA mode do not: clang's HIP language defines __HIP__ (Debian's
# HIP 5.2 hipcc and ROCm 6.3 alike, for .cu and .cpp files); __HIP_PLATFORM_AMD__ is what CMake's hip::host
# gives the host files of a HIP build that a C or C++ compiler builds.
HIP_TEST = "defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)"
PORTABILITY_HEADER = "hipconv_portability.h"
_MARK = "hipconv single-source"
_OPEN = re.compile(rf"^#if {re.escape(HIP_TEST)} // {_MARK} ([0-9a-f]{{12}})\r?\n?$")
_ELSE = re.compile(rf"^#else // {_MARK}\r?\n?$")
_CLOSE = re.compile(rf"^#endif // {_MARK} ([0-9a-f]{{12}})\r?\n?$")
_TOKEN = re.compile(r"\w+|\s+|.", re.S)
_DIRECTIVE = re.compile(r"^\s*#\s*(\w+)")
_TEST = re.compile(r"^(\s*#\s*)(if|elif|ifdef|ifndef)\b(.*?)\r?\n?$")
_CHOSEN = re.compile(rf"^(\s*#\s*)(if|elif) \({re.escape(HIP_TEST)}\) \? \((.*\)) // {_MARK} ([0-9a-f]{{12}})\r?\n?$")
_NOTE = re.compile(r"\s*/\* hipconv: .*?\*/")
_KINDS = {"if": "open", "ifdef": "open", "ifndef": "open", "endif": "close"} | dict.fromkeys(
    ("else", "elif", "elifdef", "elifndef"), "middle"
)
_INSERTED = re.compile(rf"^\s*#.*// {_MARK} inserted\b.*\r?\n?$")
_CONDITIONAL = frozenset({"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"})


@dataclass(frozen=True)
class Block:
    """A guarded edit found in a file: its line span (0-based, end exclusive), digest and CUDA lines."""

    start: int
    end: int
    digest: str
    cuda: tuple[str, ...]

    @property
    def drifted(self) -> bool:
        """Its CUDA side is no longer the text it was generated from."""
        return digest(self.cuda) != self.digest


@dataclass(frozen=True)
class Folded:
    """A file's single-source text, with what its portability header needs."""

    text: str
    renames: frozenset[tuple[str, str]]  # (CUDA name, HIP name): `#define`d by the header
    prelude: tuple[str, ...]  # preprocessor lines for the header (HIP includes, switches), in file order


def digest(lines: tuple[str, ...] | list[str]) -> str:
    """A short digest of CUDA lines, whatever their line endings."""
    text = "".join(line.rstrip("\r\n") + "\n" for line in lines)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def blocks(lines: list[str]) -> list[Block]:
    """The guarded edits of a file's lines, in order (a marker line without its partners is left alone)."""
    found: list[Block] = []
    n = 0
    while n < len(lines):
        opened = _OPEN.match(lines[n])
        if opened:
            middle = next((m for m in range(n + 1, len(lines)) if _ELSE.match(lines[m]) or _OPEN.match(lines[m])), None)
            if middle is not None and _ELSE.match(lines[middle]):
                end = next((m for m in range(middle + 1, len(lines)) if _CLOSE.match(lines[m])), None)
                closed = _CLOSE.match(lines[end]) if end is not None else None
                if end is not None and closed and closed.group(1) == opened.group(1):
                    found.append(Block(n, end + 1, opened.group(1), tuple(lines[middle + 1 : end])))
                    n = end + 1
                    continue
        n += 1
    return found


def unwrap(text: str) -> str:
    """The CUDA text of a file this module wrote: each guarded edit replaced by its CUDA lines."""
    lines = text.splitlines(keepends=True)
    for block in reversed(blocks(lines)):
        lines[block.start : block.end] = block.cuda
    return "".join(line if (cuda := _unchosen(line)) is None else cuda for line in lines if not _INSERTED.match(line))


def fold(
    cuda: str, hip: str, *, header_include: str, shared: Callable[[str, str], bool] = lambda cuda, hip: True
) -> Folded:
    """The single-source text of a file whose CUDA text `cuda` translates to `hip`. `header_include`: the
    path by which it includes the portability header; `shared`: whether the header, which every file of the
    tree reads, may `#define` a CUDA name as a HIP name (shared_names.header_renames); a rename it may not
    is a guarded edit."""
    old, new = cuda.splitlines(keepends=True), hip.splitlines(keepends=True)
    newline = "\r\n" if old and old[0].endswith("\r\n") else "\n"
    old, new, codes = _inserted_conditionals(old, new, newline, _opcodes(old, new))
    pieces = [piece for span in _spans(old, new, codes) for piece in _pieces(old, new, span)]
    renames = _consistent_renames(old, new, pieces, shared)
    runs = _runs(old, new, pieces, renames)
    out: list[str] = []
    prelude: list[str] = []
    includes_header = False
    at = 0
    for n, (kind, (i1, i2, j1, j2)) in enumerate(runs):
        out.extend(old[at:i1])
        at = i2
        cuda_lines, hip_lines = old[i1:i2], new[j1:j2]
        if kind == "rename":
            out.extend(cuda_lines)
        elif kind == "test":
            out.append(_chosen_test(cuda_lines[0], hip_lines[0], newline))
        elif kind == "prelude":  # the file's own HIP includes, after the header (its switches come first)
            includes = [line for line in hip_lines if _included(line)]
            prelude.extend(line.rstrip("\r\n") for line in hip_lines if not _included(line))
            later = any(
                k == "prelude" and (s[1] > s[0] or any(map(_included, new[s[2] : s[3]]))) for k, s in runs[n + 1 :]
            )
            if cuda_lines or includes or not (includes_header or later):
                header = [] if includes_header else [f'#include "{header_include}"{newline}']
                includes_header = True
                out.extend(_guarded([*header, *includes], cuda_lines, newline))
        else:
            out.extend(_guarded(hip_lines, cuda_lines, newline))
    out.extend(old[at:])
    return Folded("".join(out), renames, tuple(prelude))


def _inserted_conditionals(
    old: list[str], new: list[str], newline: str, codes: list[_Opcode]
) -> tuple[list[str], list[str], list[_Opcode]]:
    """The conditional directives the translation inserted around CUDA lines (`#if !defined(X)` ... `#endif`
    about a function that HIP would see twice), written on both sides, marked: a guarded edit cannot hold
    one end of a conditional without the other. Under hipcc each tests what the translation wrote; for nvcc
    an opening one is `1`, so the CUDA lines it encloses stay. A changed run's HIP directives are paired in
    order with its CUDA ones of the same kind (opening, closing); the rest were inserted, and are written so
    when a run inserts one end without the other. Left alone (guarded edits, as before) when the translation
    inserted an #else or #elif. `codes`: the diff of old and new, returned as it is when they are kept, else that
    of the lines with the marked directives."""
    found: list[tuple[int, int, str]] = []  # (CUDA line before which it goes, HIP line, the marked line)
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal":
            continue
        cuda_kinds = [_KINDS[k] for line in old[i1:i2] if (k := _conditional(line))]
        chunk: list[tuple[int, int, str]] = []
        inserted = 0
        for j in range(j1, j2):
            keyword = _conditional(new[j])
            if keyword is not None and cuda_kinds and cuda_kinds[0] == _KINDS[keyword]:
                cuda_kinds.pop(0)  # a CUDA directive the translation changed, not one it inserted
                continue
            if keyword is not None and _KINDS[keyword] == "middle":
                return old, new, codes
            if keyword is not None:
                marked = _marked(new[j], keyword, newline)
                if marked is None:
                    return old, new, codes
                chunk.append((min(i1 + (j - j1) - inserted, i2), j, marked))
                inserted += 1
        opened = sum(1 if _KINDS[_conditional(new[j]) or ""] == "open" else -1 for _, j, _ in chunk)
        if opened:  # a whole #if ... #endif inserted in one run is a guarded edit (or a switch) as before
            found.extend(chunk)
    if not found:
        return old, new, codes
    old, new = [*old], [*new]
    for at, j, marked in reversed(found):
        old.insert(at, marked)
        new[j] = marked
    return old, new, _opcodes(old, new)


_Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


def _opcodes(old: list[str], new: list[str]) -> list[_Opcode]:
    """The line diff of a file's CUDA and HIP texts: computed once a fold (twice where directives were marked)."""
    return difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()


def _conditional(line: str) -> str | None:
    found = _DIRECTIVE.match(line)
    return found.group(1) if found and found.group(1) in _CONDITIONAL else None


def _marked(line: str, keyword: str, newline: str) -> str | None:
    """An inserted conditional directive as both sides read it (None: one this cannot write so)."""
    code, _, note = line.rstrip("\r\n").partition("//")
    note = f": {note.strip().removeprefix('hipconv:').strip()}" if note.strip() else ""
    prefix = code[: len(code) - len(code.lstrip())]
    if keyword == "endif":
        return f"{prefix}#endif // {_MARK} inserted{note}{newline}"
    test = _test_of(code)
    if test is None or "/*" in test:
        return None
    return f"{prefix}#if ({HIP_TEST}) ? ({test}) : 1 // {_MARK} inserted{note}{newline}"


def _pieces(old: list[str], new: list[str], span: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    """A changed run, or (when it has as many HIP lines as CUDA lines) each logical line of it that changed,
    so that a rename beside an include or an edit stays a rename."""
    i1, i2, j1, j2 = span
    if i2 - i1 != j2 - j1:
        return [span]
    starts = [n for n in range(i1, i2) if n == i1 or not old[n - 1].rstrip("\r\n").endswith("\\")]
    bounds = zip(starts, [*starts[1:], i2])
    return [(a, b, j1 + a - i1, j1 + b - i1) for a, b in bounds if old[a:b] != new[j1 + a - i1 : j1 + b - i1]]


def _runs(
    old: list[str], new: list[str], pieces: list[tuple[int, int, int, int]], renames: frozenset[tuple[str, str]]
) -> list[tuple[str, tuple[int, int, int, int]]]:
    """Each piece's kind (rename, test, prelude, edit), with touching edits (and preludes) joined."""
    runs: list[tuple[str, tuple[int, int, int, int]]] = []
    for i1, i2, j1, j2 in pieces:
        cuda_lines, hip_lines = old[i1:i2], new[j1:j2]
        pairs = _renamed(cuda_lines, hip_lines)
        if pairs is not None and pairs <= renames:
            kind = "rename"
        elif len(cuda_lines) == len(hip_lines) == 1 and _test_of(cuda_lines[0]) and _test_of(hip_lines[0]):
            kind = "test"
        else:
            kind = "prelude" if _preprocessor_only(cuda_lines, hip_lines) else "edit"
        last = runs[-1] if runs else None
        if last and last[0] == kind in ("edit", "prelude") and last[1][1] == i1 and last[1][3] == j1:
            runs[-1] = (kind, (last[1][0], i2, last[1][2], j2))
        else:
            runs.append((kind, (i1, i2, j1, j2)))
    return runs


def _test_of(line: str) -> str | None:
    """The expression an #if, #elif, #ifdef or #ifndef line tests (as an #if expression); None for any other
    line, and for one with a // comment (which would end the expression written around it)."""
    found = _TEST.match(line)
    if not found or "//" in line:
        return None
    keyword, rest = found.group(2), found.group(3).strip()
    return f"defined({rest})" if keyword == "ifdef" else f"!defined({rest})" if keyword == "ifndef" else rest


def _chosen_test(cuda: str, hip: str, newline: str) -> str:
    """A conditional directive that tests the HIP expression under hipcc and the CUDA one otherwise (the
    conditional operator of #if), marked with the digest of the CUDA line (unwrap restores it)."""
    found = _TEST.match(cuda)
    assert found is not None
    keyword = "elif" if found.group(2) == "elif" else "if"
    hip_test = _NOTE.sub("", _test_of(hip) or "")  # the translator's note repeats the CUDA test beside it
    test = f"({HIP_TEST}) ? ({hip_test}) : ({_test_of(cuda)})"
    return f"{found.group(1)}{keyword} {test} // {_MARK} {digest([cuda])}{newline}"


def _unchosen(line: str) -> str | None:
    """The CUDA line of a directive _chosen_test wrote (the reading whose digest is in its marker, else the
    plainest one), or None when `line` is not one."""
    found = _CHOSEN.match(line)
    if not found:
        return None
    prefix, keyword, body, mark = found.groups()
    newline = line[len(line.rstrip("\r\n")) :]
    candidates = []
    for at in [m.start() for m in re.finditer(re.escape(") : ("), body)]:
        test = body[at + 5 : -1]
        candidates.append(f"{prefix}{keyword} {test}{newline}")
        named = re.fullmatch(r"(!?)defined\((\w+)\)", test)
        if named and keyword == "if":
            candidates.append(f"{prefix}{'ifndef' if named.group(1) else 'ifdef'} {named.group(2)}{newline}")
    return next((c for c in candidates if digest([c]) == mark), candidates[-1] if candidates else None)


def _guarded(hip_lines: list[str], cuda_lines: list[str], newline: str) -> list[str]:
    mark = digest(cuda_lines)
    hip_lines = [*hip_lines]
    if hip_lines and not hip_lines[-1].endswith("\n"):
        hip_lines[-1] += newline
    cuda_lines = [*cuda_lines]
    last_newline = not cuda_lines or cuda_lines[-1].endswith("\n")
    if not last_newline:
        cuda_lines[-1] += newline
    closing = f"#endif // {_MARK} {mark}" + (newline if last_newline else "")
    return [
        f"#if {HIP_TEST} // {_MARK} {mark}{newline}",
        *hip_lines,
        f"#else // {_MARK}{newline}",
        *cuda_lines,
        closing,
    ]


def _spans(old: list[str], new: list[str], codes: list[_Opcode]) -> list[tuple[int, int, int, int]]:
    """The changed runs of lines (CUDA start, end, HIP start, end), from their diff `codes`, each widened to whole
    logical lines (a line ending in a backslash and the next are one), and joined where they then touch."""
    groups = _logical_starts(old)
    spans: list[list[int]] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal":
            continue
        start = groups[i1] if i1 < len(old) else i1
        end = i2
        while 0 < end < len(old) and old[end - 1].rstrip("\r\n").endswith("\\"):
            end += 1
        span = [start, end, j1 - (i1 - start), j2 + (end - i2)]
        if spans and start <= spans[-1][1]:
            spans[-1][1], spans[-1][3] = max(spans[-1][1], end), max(spans[-1][3], span[3])
        else:
            spans.append(span)
    return [(a, b, c, d) for a, b, c, d in spans]


def _logical_starts(lines: list[str]) -> list[int]:
    """For each line, the first line of its logical line (after backslash continuations)."""
    starts: list[int] = []
    for n, _line in enumerate(lines):
        joined = n > 0 and lines[n - 1].rstrip("\r\n").endswith("\\")
        starts.append(starts[-1] if joined else n)
    return starts


def _renamed(old: list[str], new: list[str]) -> frozenset[tuple[str, str]] | None:
    """The (CUDA, HIP) name pairs when `new` is `old` with names replaced by names, word for word (and
    none of them in a preprocessor test, where a macro would change what is tested); else None."""
    if len(old) != len(new) or not old:
        return None
    pairs: set[tuple[str, str]] = set()
    for a, b in zip(old, new):
        directive = _DIRECTIVE.match(a)
        before, after = _TOKEN.findall(a), _TOKEN.findall(b)
        if len(before) != len(after):
            return None
        for x, y in zip(before, after):
            if x == y:
                continue
            if not (x[0].isalpha() or x[0] == "_") or not (y[0].isalpha() or y[0] == "_") or x.startswith("__"):
                return None
            if directive and directive.group(1) in _CONDITIONAL | {"include", "define", "undef"}:
                return None
            pairs.add((x, y))
    return frozenset(pairs)


def _consistent_renames(
    old: list[str], new: list[str], spans: list[tuple[int, int, int, int]], shared: Callable[[str, str], bool]
) -> frozenset[tuple[str, str]]:
    """The renames of the rename-only runs that the header may hold (`shared`), less a CUDA name renamed two
    ways (its lines become edits)."""
    pairs: set[tuple[str, str]] = set()
    for i1, i2, j1, j2 in spans:
        found = _renamed(old[i1:i2], new[j1:j2])
        if found is not None:
            pairs |= {pair for pair in found if shared(*pair)}
    targets: dict[str, set[str]] = {}
    for cuda, hip in pairs:
        targets.setdefault(cuda, set()).add(hip)
    return frozenset(p for p in pairs if len(targets[p[0]]) == 1)


def _included(line: str) -> bool:
    found = _DIRECTIVE.match(line)
    return found is not None and found.group(1) == "include"


def _preprocessor_only(old: list[str], new: list[str]) -> bool:
    """A run of include lines that became other preprocessor lines (or preprocessor lines inserted): what the
    portability header holds instead."""
    if not new:
        return False
    if any(not _DIRECTIVE.match(line) for line in new):
        return False
    kinds = [m.group(1) for line in old if (m := _DIRECTIVE.match(line))]
    return len(kinds) == len(old) and all(kind == "include" for kind in kinds)
