"""CMake compiles .cu files as CUDA: the sources a CMake file names or globs are marked LANGUAGE HIP."""

from __future__ import annotations

import re

from hipconv.buildfiles.cmake_syntax import Command
from hipconv.buildfiles.common import BuildFileEdits
from hipconv.diagnostics import BUILD_COMMANDS_ADDED

# commands whose .cu arguments are not sources a target compiles (or are handled elsewhere: file(GLOB))
_NOT_SOURCES = frozenset(
    {
        "message",
        "set_source_files_properties",
        "set_property",
        "get_property",
        "get_source_file_property",
        "file",
        "string",
        "install",
        "configure_file",
        "function",
        "macro",
        "if",
        "elseif",
        "while",
        "option",
    }
)
_SOURCE = re.compile(r"[^*?]*[^\s/*?;]\.cu")  # a file name, not a pattern (*.cu) or a suffix (".cu")


def mark_hip_sources(command: Command, text: str, out: BuildFileEdits) -> None:
    """CMake compiles .cu files as CUDA: a command naming some is followed by LANGUAGE HIP for them.

    Every command, not only add_executable/add_library/target_sources/set/list: a .cu file passed to a project
    function or macro (`add_sample(demo demo.cu)`, a `cuda_add_executable` wrapper) is marked where it is
    named, which is the directory the function's target is created in (functions and macros run in their
    caller's directory)."""
    if command.name.lower() in _NOT_SOURCES:
        return
    sources = [a.text for a in command.args if _SOURCE.fullmatch(a.value)]
    insertion = f"set_source_files_properties({' '.join(sources)} PROPERTIES LANGUAGE HIP)"
    if sources and insertion not in text:
        out.rewrite(command.end, command.end, f"\n{command.indent}{insertion}", "source-language")
        out.report(
            command.start,
            BUILD_COMMANDS_ADDED,
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
        BUILD_COMMANDS_ADDED,
        f"{', '.join(cu)}: the .cu files of {variable} marked LANGUAGE HIP "
        "(CMake compiles .cu files as CUDA otherwise)",
        cu[0],
    )
