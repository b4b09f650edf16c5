"""Single source for build files (#41): the CUDA build stays, and a HIP build is added beside it, chosen by
GPU_BACKEND (`cmake -DGPU_BACKEND=HIP`, `make GPU_BACKEND=HIP`).

The HIP side is the file's own translation (translate_cmake, translate_make), not a second mapping: each
stretch of whole lines the translation changes is written twice, translated in the HIP branch and as it
was in the other one:

    if(GPU_BACKEND STREQUAL "HIP")          ifeq ($(GPU_BACKEND),HIP)
      <translated>                          <translated>
    else()                                  else
      <as written>                          <as written>
    endif()                                 endif

What the translation only adds (a find_package(), ROCM_PATH's default) goes in a HIP branch of its own.
The file declares GPU_BACKEND (CUDA by default) before its first branch; a CMake file does so only where it
enables the CUDA language (GPU_BACKEND is a cache entry: the project's other CMake files read it). A rerun
leaves the branches and the declaration as they are and translates only what lies outside them, so a
single-source file run through again comes back unchanged. A stretch that opens or closes a block
(`if(CMAKE_CUDA_COMPILER)`, `ifneq ($(shell which nvcc),)`) cannot be put in a branch: it stays as the CUDA
build has it, with HC414, unless the translation changes only its condition (`if()`, `elseif()`, `while()`,
`ifeq (A,B)`, `ifneq (A,B)`): the condition then tests GPU_BACKEND itself,
`(GPU_BACKEND STREQUAL "HIP" AND (<translated>)) OR (NOT GPU_BACKEND STREQUAL "HIP" AND (<as written>))`, or
`ifneq ($(if $(filter HIP,$(GPU_BACKEND)),<translated>,<as written>),)`.

A branch's opening line carries a digest of its CUDA side (`if(GPU_BACKEND STREQUAL "HIP") # hipconv
single-source 3f2a...`, fold.digest of its lines less their indentation), so `hipconv scan --single-source`
finds a CUDA side edited since (drifted_branches: HC035), as it does for a source's guarded edits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from hipconv.buildfiles.cmake_syntax import cmake_commands
from hipconv.buildfiles.common import BuildFileEdits
from hipconv.buildfiles.make import statement_spans
from hipconv.diagnostics import BACKEND_NOT_SPLIT, BACKEND_SPLIT
from hipconv.single_source.fold import digest
from hipconv.translate.combine import without_overlaps
from hipconv.translate.edits import Edit, apply

BACKEND_VARIABLE = "GPU_BACKEND"
_MARK = "# hipconv single-source"
_MARKED = re.compile(rb"#\s*hipconv single-source ([0-9a-f]{12})\s*$")


@dataclass(frozen=True)
class _Unit:
    """One statement: a CMake command, or a Makefile's logical line."""

    start: int
    end: int
    role: str  # "open", "middle" (else), "close" of a block, or "" (anything else)
    backend: bool  # the opening of a HIP branch this module wrote (`if(GPU_BACKEND STREQUAL "HIP")`)
    declares: bool  # sets GPU_BACKEND: as this module declares it (True), else never (see _foreign)
    enables: bool = False  # enables the CUDA language (CMake: project(... CUDA), enable_language(CUDA))
    recipe: bool = False  # a Makefile recipe's line (no directive may be put before it)
    foreign: bool = False  # sets GPU_BACKEND otherwise than this module: the project's own variable
    condition: tuple[int, int] | None = None  # an if's condition (CMake: its arguments; make: `(A,B)`)
    guarded: bool = False  # a condition that tests GPU_BACKEND already (written by an earlier run)


@dataclass(frozen=True)
class _Syntax:
    open: str
    other: str
    close: str
    declaration: str
    indent: str  # added before each line inside a branch ("" where a line's first character matters)


_CMAKE = _Syntax(
    open=f'if({BACKEND_VARIABLE} STREQUAL "HIP")',
    other="else()",
    close="endif()",
    declaration=(
        f'set({BACKEND_VARIABLE} CUDA CACHE STRING "The GPU build: CUDA (nvcc) or HIP (ROCm)")\n'
        f"set_property(CACHE {BACKEND_VARIABLE} PROPERTY STRINGS CUDA HIP)\n"
        f'if(NOT {BACKEND_VARIABLE} MATCHES "^(CUDA|HIP)$")\n'
        f'  message(FATAL_ERROR "{BACKEND_VARIABLE} is CUDA or HIP, not ${{{BACKEND_VARIABLE}}}")\n'
        "endif()\n"
    ),
    indent="  ",
)
_MAKE = _Syntax(
    open=f"ifeq ($({BACKEND_VARIABLE}),HIP)",
    other="else",
    close="endif",
    declaration=(
        f"{BACKEND_VARIABLE} ?= CUDA\n"
        f"$(if $(filter-out CUDA HIP,$({BACKEND_VARIABLE})),"
        f"$(error {BACKEND_VARIABLE} is CUDA or HIP, not $({BACKEND_VARIABLE})))\n"
    ),
    indent="",
)
_CMAKE_ROLES = {
    **dict.fromkeys(("if", "foreach", "while", "function", "macro", "block"), "open"),
    **dict.fromkeys(("elseif", "else"), "middle"),
    **dict.fromkeys(("endif", "endforeach", "endwhile", "endfunction", "endmacro", "endblock"), "close"),
}
_MAKE_DIRECTIVE = re.compile(r"\s*(ifeq|ifneq|ifdef|ifndef|else|endif|define|endef)\b")
_MAKE_ROLES = {"else": "middle", "endif": "close", "endef": "close"}
_MAKE_PICK = f"$(if $(filter HIP,$({BACKEND_VARIABLE})),"
_CMAKE_TEST = f'{BACKEND_VARIABLE} STREQUAL "HIP"'
_MAKE_ASSIGNS_BACKEND = re.compile(rf"\s*(?:(?:export|override)\s+)*{BACKEND_VARIABLE}\s*(?::*=|\+=|\?=|!=)")


def _cmake_units(body: bytes) -> list[_Unit]:
    units = []
    for command in cmake_commands(body):
        name, values = command.name.lower(), [a.value for a in command.args]
        sets = name in ("set", "option") and values[:1] == [BACKEND_VARIABLE]
        ours = sets and name == "set" and values[1:3] == ["CUDA", "CACHE"]
        enables = name in ("project", "enable_language") and "CUDA" in values
        backend = name == "if" and values == [BACKEND_VARIABLE, "STREQUAL", "HIP"]
        role = _CMAKE_ROLES.get(name, "")
        tests = name in ("if", "elseif", "while") and bool(command.args)
        condition = (command.args[0].start, command.args[-1].end) if tests else None
        guarded = tests and not backend and BACKEND_VARIABLE in values
        unit = _Unit(command.start, command.end, role, backend, ours, enables, foreign=sets and not ours)
        units.append(replace(unit, condition=condition, guarded=guarded))
    return units


def _make_units(body: bytes) -> list[_Unit]:
    units = []
    for start, end, code, recipe in statement_spans(body):
        directive = None if recipe else _MAKE_DIRECTIVE.match(code)
        role = "" if directive is None else _MAKE_ROLES.get(directive.group(1), "open")
        sets = not recipe and bool(_MAKE_ASSIGNS_BACKEND.match(code))
        ours = sets and code.strip() == f"{BACKEND_VARIABLE} ?= CUDA"
        backend = code.strip() == _MAKE.open
        unit = _Unit(start, end, role, backend, ours, recipe=recipe, foreign=sets and not ours)
        tests = directive is not None and directive.group(1) in ("ifeq", "ifneq") and b"\n" not in body[start:end]
        rest = code[directive.end() :].strip() if tests and directive is not None else ""
        if rest.startswith("(") and rest.endswith(")"):
            at = start + len(code[: code.index(rest)].encode("utf-8"))
            unit = replace(unit, condition=(at, at + len(rest.encode("utf-8"))), guarded=_MAKE_PICK in rest)
        units.append(unit)
    return units


def split_backends(out: BuildFileEdits) -> BuildFileEdits:
    """The single-source form of a translated build file (`out`: the translation's edits and diagnostics)."""
    source, body = out.source, out.source.body
    syntax, units = (_CMAKE, _cmake_units(body)) if out.library == "cmake" else (_MAKE, _make_units(body))
    split = BuildFileEdits(source, out.library)
    foreign = next((u for u in units if u.foreign), None)
    if foreign is not None:
        text = body[foreign.start : foreign.end].decode("utf-8").strip()
        split.report(foreign.start, BACKEND_NOT_SPLIT, f"{text}: the file sets {BACKEND_VARIABLE} itself; not split")
        return split
    found = without_overlaps(source, out.edits, out.diagnostics, out.replacements)
    blocks = _backend_blocks(units) + [(u.start, u.end) for u in units if u.guarded]
    inside = [(source.line_col(a)[0], source.line_col(b)[0]) for a, b in blocks]
    split.diagnostics += [d for d in found.diagnostics if not any(a <= d.line <= b for a, b in inside)]
    edits = [e for e in found.edits if not any(a <= e.start and e.end <= b for a, b in blocks)]
    kept: list[tuple[int, int, list[Edit]]] = []
    conditions: list[Edit] = []  # an if's condition that the translation changes: it tests GPU_BACKEND
    for start, end in _regions(body, units, edits):
        mine = [e for e in edits if start <= e.start and e.end <= end]
        if _balanced(units, start, end):
            if kept and kept[-1][1] == start:  # stretches that touch: one pair of branches
                start, mine = kept[-1][0], kept.pop()[2] + mine
            kept.append((start, end, mine))
            continue
        joined = _condition_of(units, start, end, mine, body, cmake=syntax is _CMAKE)
        if joined is not None:
            conditions.append(joined)
            continue
        first, last = source.line_col(start)[0], source.line_col(max(start, end - 1))[0]
        split.diagnostics = [d for d in split.diagnostics if not first <= d.line <= last]  # what it would do
        line = body[start:end].decode("utf-8").strip().splitlines()[0]
        split.report(
            start,
            BACKEND_NOT_SPLIT,
            f"{line}: the translation changes a line of a block's structure beyond an if's condition, which "
            f"cannot be put in a {BACKEND_VARIABLE} branch; left as the CUDA build has it (write its HIP side by hand)",
        )
    lines = [(source.line_col(s)[0], source.line_col(max(s, e - 1))[0]) for s, e, _ in kept]
    lines += [(source.line_col(e.start)[0], source.line_col(e.end)[0]) for e in conditions]
    split.replacements += [r for r in found.replacements if any(a <= r.line <= b for a, b in lines)]
    split.edits += conditions
    _write_branches(split, syntax, units, kept, len(conditions), declared=any(u.declares for u in units))
    return split


def _backend_blocks(units: Sequence[_Unit]) -> list[tuple[int, int]]:
    """The spans of the HIP branches a run wrote before (from their `if` to their end)."""
    blocks = []
    n = 0
    while n < len(units):
        if not units[n].backend:
            n += 1
            continue
        depth, m = 0, n
        while m < len(units):
            depth += {"open": 1, "close": -1}.get(units[m].role, 0)
            if depth == 0:
                break
            m += 1
        blocks.append((units[n].start, units[min(m, len(units) - 1)].end))
        n = m + 1
    return blocks


def _line_span(body: bytes, start: int, end: int) -> tuple[int, int]:
    """The whole lines holding body[start:end], with the last one's line end."""
    first = body.rfind(b"\n", 0, start) + 1
    last = body.find(b"\n", max(end - 1, start))
    return first, len(body) if last < 0 else last + 1


def _regions(body: bytes, units: Sequence[_Unit], edits: Sequence[Edit]) -> list[tuple[int, int]]:
    """The stretches of whole lines to write twice: the lines of the statements the edits touch (an insertion
    of whole lines at a line's start is a stretch of its own, empty in the CUDA build), merged where they
    overlap."""
    spans = []
    for e in edits:
        text = "".join(p for p in e.parts if isinstance(p, str))
        if e.start == e.end and (e.start == 0 or body[e.start - 1 : e.start] == b"\n") and text.endswith("\n"):
            spans.append((e.start, e.start))
            continue
        touched = [u for u in units if (u.start < e.end and e.start < u.end) or u.start <= e.start <= u.end]
        start = min([e.start, *(u.start for u in touched)])
        spans.append(_line_span(body, start, max([e.end, *(u.end for u in touched)])))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):  # overlapping ones (split_backends joins those that only touch)
        if merged and (start < merged[-1][1] or start == merged[-1][0]):
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _balanced(units: Sequence[_Unit], start: int, end: int) -> bool:
    """Do the statements in body[start:end] open and close their blocks within it?"""
    depth = 0
    for unit in units:
        if start <= unit.start and unit.end <= end and unit.role:
            if unit.role == "middle" and depth == 0:
                return False
            depth += {"open": 1, "close": -1}.get(unit.role, 0)
            if depth < 0:
                return False
    return depth == 0


def _write_branches(
    split: BuildFileEdits,
    syntax: _Syntax,
    units: Sequence[_Unit],
    kept: Sequence[tuple[int, int, list[Edit]]],
    conditions: int,
    *,
    declared: bool,
) -> None:
    """Each kept stretch as its two branches; the declaration before the first, unless the file has it (a
    CMake file declares it where it enables CUDA)."""
    body = split.source.body
    if not kept and not conditions:
        return
    cmake = syntax is _CMAKE
    first = min([s for s, _, _ in kept] + [e.start for e in split.edits])
    declare_at = None if declared else _declaration_at(units, first, cmake=cmake)
    for start, end, edits in kept:
        shifted = [Edit(e.start - start, e.end - start, e.parts, e.rule_id) for e in edits]
        hip, cuda = apply(body[start:end], shifted).data.decode("utf-8"), body[start:end].decode("utf-8")
        text = _branches(syntax, body, start, hip, cuda)
        if declare_at == start:
            text, declare_at = _indented(syntax.declaration, _indent_at(body, start)) + text, None
        split.edits.append(Edit.replace(start, end, text, f"{split.library}.gpu-backend"))
    if declare_at is not None:
        split.edits.append(
            Edit.replace(declare_at, declare_at, _indented(syntax.declaration, _indent_at(body, declare_at)))
        )
    how = f"cmake -D{BACKEND_VARIABLE}=HIP" if cmake else f"make {BACKEND_VARIABLE}=HIP"
    n = len(kept) + conditions
    split.report(
        first,
        BACKEND_SPLIT,
        f"the CUDA build is kept; {n} stretch{'es' if n > 1 else ''} of it got a HIP side, chosen by "
        f"{BACKEND_VARIABLE} ({how})",
        BACKEND_VARIABLE,
    )


def _condition_of(
    units: Sequence[_Unit], start: int, end: int, edits: Sequence[Edit], body: bytes, *, cmake: bool
) -> Edit | None:
    """When the stretch body[start:end] is one if and its edits all lie in its condition: the condition
    rewritten to test GPU_BACKEND (_joined); else None."""
    inside = [u for u in units if start <= u.start and u.end <= end and u.role]
    if len(inside) != 1 or inside[0].condition is None:
        return None
    a, b = inside[0].condition
    if not all(a <= e.start and e.end <= b for e in edits):
        return None
    shifted = [Edit(e.start - a, e.end - a, e.parts, e.rule_id) for e in edits]
    text = _joined(cmake, apply(body[a:b], shifted).data.decode("utf-8"), body[a:b].decode("utf-8"))
    return None if text is None else Edit.replace(a, b, text, f"{'cmake' if cmake else 'make'}.gpu-backend")


def _joined(cmake: bool, hip: str, cuda: str) -> str | None:
    """One condition written as both: the translated one under GPU_BACKEND=HIP, the one as written else."""
    if cmake:
        return f"({_CMAKE_TEST} AND ({hip})) OR (NOT {_CMAKE_TEST} AND ({cuda}))"
    sides = [_make_sides(hip), _make_sides(cuda)]
    if sides[0] is None or sides[1] is None:
        return None
    picked = [c if h == c else f"{_MAKE_PICK}{h},{c})" for h, c in zip(sides[0], sides[1])]
    return f"({picked[0]},{picked[1]})"


def _make_sides(text: str) -> tuple[str, str] | None:
    """The two sides of make's `(A,B)`, split at its one comma outside references; None: not that form."""
    depth, commas = 0, []
    for n, c in enumerate(text[1:-1], 1):
        depth += (c in "({") - (c in ")}")
        if c == "," and depth == 0:
            commas.append(n)
    if len(commas) != 1:
        return None
    return text[1 : commas[0]], text[commas[0] + 1 : -1]


def _declaration_at(units: Sequence[_Unit], first: int, *, cmake: bool) -> int | None:
    """Where GPU_BACKEND is declared: before the last statement at the top level (outside blocks and recipes)
    that starts at or before the first branch (`first`); in CMake only in a file that enables CUDA."""
    if cmake and not any(u.enables for u in units):
        return None
    depth, at = 0, first
    for unit in units:
        if unit.start > first:
            break
        if depth == 0 and not unit.recipe:
            at = unit.start
        depth = max(depth + {"open": 1, "close": -1}.get(unit.role, 0), 0)
    return min(at, first)


def _indent_at(body: bytes, at: int) -> str:
    line = body[body.rfind(b"\n", 0, at) + 1 :].decode("utf-8")
    return line[: len(line) - len(line.lstrip(" \t"))] if not line.startswith("\t") else ""


def _indented(text: str, indent: str) -> str:
    return "".join(indent + line if line.strip() else line for line in text.splitlines(keepends=True))


def _branches(syntax: _Syntax, body: bytes, start: int, hip: str, cuda: str) -> str:
    """One stretch written as its HIP branch and (when it had text) its CUDA branch."""
    indent = _indent_at(body, start)
    # a line break inside an argument or a comment: its lines are kept exactly, so no line is indented
    quotes = [line.count('"') - line.count('\\"') for line in cuda.splitlines()]
    inner = "" if "[[" in cuda or "[=" in cuda or any(n % 2 for n in quotes) else syntax.indent

    def branch(text: str) -> str:
        text = text if text.endswith("\n") else text + "\n"
        return "".join(inner + line if line.strip() else line for line in text.splitlines(keepends=True))

    ending = "\n" if cuda.endswith("\n") or not cuda else ""
    written = f"{indent}{syntax.open} {_MARK} {_cuda_digest(cuda)}\n{branch(hip)}"
    if cuda:
        written += f"{indent}{syntax.other}\n{branch(cuda)}"
    return f"{written}{indent}{syntax.close}{ending}"


def _cuda_digest(cuda: str) -> str:
    """The digest of a branch's CUDA side: its lines less their indentation (which the branch adds)."""
    return digest([line.strip() for line in cuda.splitlines() if line.strip()])


@dataclass(frozen=True)
class DriftedBranch:
    """A GPU_BACKEND branch whose CUDA side is no longer the text its HIP side was written from."""

    start: int  # the offset of its `if(GPU_BACKEND STREQUAL "HIP")` / `ifeq ($(GPU_BACKEND),HIP)`
    end: int  # the end of its endif
    digest: str  # the digest its opening line records
    cuda: str  # its CUDA side's lines, as they stand in the branch


def unwrap_drifted(kind: str, body: bytes) -> bytes:
    """`body` with each drifted branch (drifted_branches) replaced by its CUDA side, less the indentation the
    branch added: a rerun translates that side again, as fold.unwrap does for a source's guarded edits."""
    syntax = _CMAKE if kind == "cmake" else _MAKE
    for branch in reversed(drifted_branches(kind, body)):
        start, end = _line_start(body, branch.start), _line_span(body, branch.end - 1, branch.end)[1]
        lines = branch.cuda.splitlines(keepends=True)
        inner = syntax.indent if lines and all(not x.strip() or x.startswith(syntax.indent) for x in lines) else ""
        cuda = "".join(x[len(inner) :] if x.strip() else x for x in lines).encode("utf-8")
        body = body[:start] + cuda + body[end:]
    return body


def drifted_branches(kind: str, body: bytes) -> list[DriftedBranch]:
    """The branches of a single-source build file (`kind`: cmake or make) that carry a digest which their CUDA
    side (the `else` part; none: empty) no longer matches, in order."""
    units = _cmake_units(body) if kind == "cmake" else _make_units(body)
    found = []
    for n, unit in enumerate(units):
        line_end = body.find(b"\n", unit.start)
        marked = _MARKED.search(body[unit.start : len(body) if line_end < 0 else line_end].rstrip(b"\r"))
        if not unit.backend or marked is None:
            continue
        depth, other, close = 0, None, None
        for m in range(n, len(units)):
            depth += {"open": 1, "close": -1}.get(units[m].role, 0)
            if depth == 1 and units[m].role == "middle" and other is None:
                other = units[m]
            if depth == 0:
                close = units[m]
                break
        if close is None:
            continue
        cuda = "" if other is None else body[other.end : _line_start(body, close.start)].decode("utf-8", "replace")
        cuda = cuda.split("\n", 1)[1] if "\n" in cuda else ""  # after the else's own line
        if _cuda_digest(cuda) != marked.group(1).decode():
            found.append(DriftedBranch(unit.start, close.end, marked.group(1).decode(), cuda))
    return found


def _line_start(body: bytes, at: int) -> int:
    return body.rfind(b"\n", 0, at) + 1
