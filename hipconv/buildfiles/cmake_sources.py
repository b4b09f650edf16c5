"""CMake compiles .cu files as CUDA: the sources a CMake file names or globs are marked LANGUAGE HIP."""

from __future__ import annotations

from hipconv.buildfiles.cmake_syntax import Command
from hipconv.buildfiles.common import BuildFileEdits


def mark_hip_sources(command: Command, text: str, out: BuildFileEdits) -> None:
    """CMake compiles .cu files as CUDA: a command listing some is followed by LANGUAGE HIP for them."""
    sources = [a.value for a in command.args[1:] if a.value.endswith(".cu")]
    insertion = f"set_source_files_properties({' '.join(sources)} PROPERTIES LANGUAGE HIP)"
    if sources and insertion not in text:
        out.rewrite(command.end, command.end, f"\n{command.indent}{insertion}", "source-language")
        out.report(
            command.start,
            "HC405",
            f"{', '.join(sources)}: marked LANGUAGE HIP (CMake compiles .cu files as CUDA otherwise)",
            sources[0],
        )


def mark_globbed_sources(command: Command, text: str, out: BuildFileEdits) -> None:
    """file(GLOB|GLOB_RECURSE VAR ... *.cu): the .cu files it finds are marked LANGUAGE HIP.

    After the glob, as mark_hip_sources does after a list of names: every way a .cu file reaches a target
    (a variable, list(APPEND), a user function) passes through one of the two, and the property is set in
    the directory that globbed or named the file, which is the one whose targets use it in all but rare
    layouts. A tree-wide file(GLOB_RECURSE *.cu) at the top would also catch computed names, but it marks
    files no target uses and misses subdirectories' targets (source properties are per directory). The
    insertion is skipped when the file holds it already, so translating twice changes nothing.
    """
    args = command.args
    if len(args) < 3 or args[0].value not in ("GLOB", "GLOB_RECURSE"):
        return
    variable = args[1].value
    options = {"LIST_DIRECTORIES", "RELATIVE", "CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS"}
    patterns, skip = [], False
    for arg in args[2:]:
        if skip:
            skip = False
        elif arg.value in options:
            skip = arg.value in ("LIST_DIRECTORIES", "RELATIVE")
        else:
            patterns.append(arg.value)
    cu = [p for p in patterns if p.endswith(".cu")]
    if not cu:
        return
    if len(cu) == len(patterns):
        lines = [f"set_source_files_properties(${{{variable}}} PROPERTIES LANGUAGE HIP)"]
    else:  # the glob also finds C++ or C files: only its .cu files become HIP
        lines = [
            f"set(hipconv_cu_sources ${{{variable}}})",
            'list(FILTER hipconv_cu_sources INCLUDE REGEX "\\\\.cu$")',
            "set_source_files_properties(${hipconv_cu_sources} PROPERTIES LANGUAGE HIP)",
        ]
    if lines[0] in text:
        return
    out.rewrite(command.end, command.end, "".join(f"\n{command.indent}{line}" for line in lines), "source-language")
    out.report(
        command.start,
        "HC405",
        f"{', '.join(cu)}: the .cu files of {variable} marked LANGUAGE HIP "
        "(CMake compiles .cu files as CUDA otherwise)",
        cu[0],
    )
