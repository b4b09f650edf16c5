"""Single source (`translate --single-source`): the tree stays CUDA, and hipcc builds the same files.

Each file is translated as usual from its CUDA text (a file this wrote before is read through its guarded
edits' CUDA sides: single_source.fold.unwrap), and its translation is folded back into that
text (fold): renames become `#define`s of the portability header, the CUDA includes are kept for nvcc beside
a guarded include of the header, and what a macro cannot say becomes a guarded edit. The header, written at
the root of the output beside hipconv_compat.h, holds what the run's files need, sorted: a rerun on an
unchanged tree writes the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from rich.console import Console

from hipconv.atomic import write_atomic
from hipconv.interrupts import deferred
from hipconv.report import print_result
from hipconv.results import COMPAT_HEADER, FileResult, FileStatus
from hipconv.rules.ranges import range_label
from hipconv.settings import Settings
from hipconv.single_source.fold import HIP_TEST, PORTABILITY_HEADER, fold, unwrap
from hipconv.translate.source import DecodeFailure, SourceFile

HEADER_MARKER = b"// hipconv_portability.h: written by hipconv translate --single-source"
_RELEASE = re.compile(rb"\A[^\n]*\n// for ROCm ([0-9.]+(?:\.\.[0-9.]+)?):")  # its second line: the release or range
_DEFINE, _PRELUDE = "define\t", "prelude\t"


def is_portability_header(data: bytes) -> bool:
    """True when `data` is a hipconv_portability.h that hipconv wrote (a rerun rewrites it)."""
    return data.startswith(HEADER_MARKER)


def cuda_source(source: SourceFile) -> SourceFile:
    """The CUDA text of a source: a file written by --single-source, less its guarded edits' HIP sides."""
    text = source.body.decode("utf-8")
    cuda = unwrap(text)
    return (
        source
        if cuda == text
        else SourceFile(source.path, source.bom, cuda.encode("utf-8"), source.escaped, source.cr_lines)
    )


def header_include(compat_include: str) -> str:
    """The include path of the portability header from a file that includes hipconv_compat.h so."""
    return compat_include[: -len(COMPAT_HEADER)] + PORTABILITY_HEADER


def folded_result(
    read: SourceFile,
    cuda: SourceFile,
    result: FileResult,
    compat_include: str,
    *,
    shared: Callable[[str, str], bool] = lambda cuda, hip: True,
) -> FileResult:
    """The single-source result of a file as `read`, whose CUDA text `cuda` translated to `result`; `shared`:
    the renames the tree's header may hold (fold's, shared_names.header_renames)."""
    if result.status is FileStatus.FAILED or is_portability_header(read.body):
        return result if result.status is FileStatus.FAILED else FileResult(read.path, FileStatus.UNCHANGED)
    hip = cuda.body
    if result.output is not None:
        try:
            hip = SourceFile.from_bytes(read.path, result.output).body
        except DecodeFailure:  # the translation of a file that decoded: cannot happen
            raise
    folded = fold(
        cuda.body.decode("utf-8"), hip.decode("utf-8"), header_include=header_include(compat_include), shared=shared
    )
    data = read.output(folded.text.encode("utf-8"))
    needs = frozenset(
        {f"{_DEFINE}{a}\t{b}" for a, b in folded.renames} | {f"{_PRELUDE}{line}" for line in folded.prelude}
    )
    changed = data != read.data
    return FileResult(
        read.path,
        FileStatus.CONVERTED if changed else FileStatus.UNCHANGED,
        output=data if changed else None,
        diagnostics=result.diagnostics,
        replacements=result.replacements,
        size=result.size,
        shims=result.shims,
        portability=needs,
    )


def recorded_release(data: bytes) -> str | None:
    """The ROCm release or range (`6.3`, `5.2..7.2`) a hipconv_portability.h was written for, from its second
    line; None for another file, or a header that does not say."""
    found = _RELEASE.match(data) if is_portability_header(data) else None
    return found.group(1).decode() if found else None


def renames_of(result: FileResult) -> frozenset[tuple[str, str]]:
    """The (CUDA, HIP) names a file's portability header must #define for it."""
    return frozenset(
        (cuda, hip)
        for cuda, hip in (n[len(_DEFINE) :].split("\t") for n in result.portability if n.startswith(_DEFINE))
    )


def portability_header(needs: Iterable[str], rocm: str) -> bytes:
    """hipconv_portability.h for what the run's files need (FileResult.portability), sorted; `rocm`: the release
    or range it is for (`6.3`, `5.2..7.2`), which its second line records (recorded_release)."""
    renames = sorted(tuple(n[len(_DEFINE) :].split("\t")) for n in needs if n.startswith(_DEFINE))
    prelude = {n[len(_PRELUDE) :] for n in needs if n.startswith(_PRELUDE)}
    switches = _switches(prelude)  # the HIP includes stay in each file, under its guard
    lines = [
        HEADER_MARKER.decode(),
        f"// for ROCm {rocm}: do not edit; rerun it when the CUDA sources change (hipconv scan --single-source",
        "// reports drift). hipcc reads this in place of the CUDA headers; nvcc never does.",
        "#pragma once",
        f"#if !({HIP_TEST})",
        f'#error "{PORTABILITY_HEADER} is read by hipcc only: a CUDA build includes the CUDA headers"',
        "#endif",
        *switches,
        "",
        *(f"#define {cuda} {hip}" for cuda, hip in renames),
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _switches(lines: set[str]) -> list[str]:
    """The macros the translation defines before the HIP headers (`#define NAME`), each as a guarded
    definition, sorted."""
    defined = {
        line.split()[1]: line.strip()
        for line in lines
        if line.lstrip("# \t").startswith("define") and len(line.split()) > 1
    }
    return [part for name in sorted(defined) for part in (f"#ifndef {name}", defined[name], "#endif")]


def write_portability_header(folder: Path, needs: Iterable[str], settings: Settings, console: Console) -> bool:
    """hipconv_portability.h at `folder` (the root of the output); False (with the reason shown) when it
    cannot be written."""
    path = folder / PORTABILITY_HEADER
    try:
        with deferred():
            write_atomic(path, portability_header(needs, range_label(settings) or str(settings.rocm)), follow=False)
    except OSError as exc:
        print_result(console, FileResult(str(path), FileStatus.FAILED, reason=f"cannot write: {exc.strerror or exc}"))
        return False
    return True
