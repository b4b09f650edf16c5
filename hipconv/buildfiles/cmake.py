"""CMake files (CMakeLists.txt, *.cmake) -> their HIP versions.

Read with a small lossless tokenizer, so comments, bracket and quoted arguments are never
rewritten by accident. What cannot be mapped is left as it is, with HC401.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hipconv.buildfiles.cmake_libraries import (
    LIBRARY_VARIABLE,
    add_find_packages,
    add_warp_sync_define,
    cuda_library,
    found_packages,
    link_arguments,
    link_item,
    link_variables_of,
    merged_duplicate,
    required_packages,
    rewrite_find_library,
    rewrite_find_package,
)
from hipconv.buildfiles.cmake_sources import mark_globbed_sources, mark_hip_sources
from hipconv.buildfiles.cmake_syntax import Arg, Command, cmake_commands, drop_span
from hipconv.buildfiles.common import BuildFileEdits, flag_text, holds_nvcc_flag
from hipconv.buildfiles.defines import hip_definitions
from hipconv.buildfiles.findcuda import toolkit_location, toolkit_variable
from hipconv.buildfiles.nvcc_flags import NVCC_FLAGS_VARIABLE, FlagValue, lookup
from hipconv.diagnostics import ARCHS_REPLACED, BUILD_COMMANDS_ADDED, BUILD_CONSTRUCT_UNMAPPED, NVCC_FLAG_DROPPED
from hipconv.translate.edits import Edit, apply

# CMAKE_CUDA_<X> variables with no CMAKE_HIP_<X> counterpart (CMake 3.25)
_NO_HIP_VARIABLE = frozenset(
    {
        "HOST_COMPILER",
        "RUNTIME_LIBRARY",
        "SEPARABLE_COMPILATION",
        "RESOLVE_DEVICE_SYMBOLS",
        "TOOLKIT_INCLUDE_DIRECTORIES",
        "COMPILE_FEATURES",
    }
)
_HIP_PROPERTY = {
    "CUDA_STANDARD": "HIP_STANDARD",
    "CUDA_STANDARD_REQUIRED": "HIP_STANDARD_REQUIRED",
    "CUDA_EXTENSIONS": "HIP_EXTENSIONS",
    "CUDA_ARCHITECTURES": "HIP_ARCHITECTURES",
}
_NO_HIP_PROPERTY = frozenset({"CUDA_RESOLVE_DEVICE_SYMBOLS", "CUDA_RUNTIME_LIBRARY", "CUDA_PTX_COMPILATION"})
_CUDA_ARCH_VALUE = re.compile(r"(?:(?:\d+(?:-real|-virtual)?|native|all|all-major)[;\s]*)+")
_TRUE = frozenset({"ON", "TRUE", "YES", "Y", "1"})
_CUDA_GENEX = re.compile(r"(\$<\$<COMPILE_LANGUAGE:CUDA>:)(.*)(>)", re.S)
_OFFLOAD_ARCH = re.compile(r"--offload-arch=[\w:+-]+[ \t]*|[ \t]*--offload-arch=[\w:+-]+")
_CUDA_GENEX_OPEN = re.compile(r"(\$<\$<COMPILE_LANGUAGE:CUDA>:)(.*)", re.S)
# commands whose items are compile options of any language (the first N arguments are not); in them only the
# flags only nvcc takes are mapped (-use_fast_math), a host compiler's are kept (-Wall)
_COMPILE_OPTION_COMMANDS = {"target_compile_options": 1, "add_compile_options": 0}
_COMPILE_OPTION_PROPERTIES = frozenset({"COMPILE_OPTIONS", "COMPILE_FLAGS"})  # the value after it (set_*_properties)


def translate_cmake(body: bytes, archs: tuple[str, ...], out: BuildFileEdits) -> None:
    commands = list(cmake_commands(body))
    text = body.decode("utf-8")
    link_variables = link_variables_of(commands)
    flag_variables = nvcc_flag_variables(commands)
    found = found_packages(commands)
    missing = [p for p in required_packages(commands, link_variables) if p not in found]
    for command in commands:
        name = command.name.lower()
        if _finds_cuda(command):  # "hip" is in `found`: the packages this find_package() adds are `missing`
            rewrite_find_package(command, missing, out)
            continue
        if name.startswith("cuda_"):
            out.report(
                command.start,
                BUILD_CONSTRUCT_UNMAPPED,
                f"{command.name}() belongs to the legacy FindCUDA module; use "
                "add_executable/add_library with HIP sources",
                command.name,
            )
        if name in ("project", "enable_language", "check_language"):
            for arg in command.args:
                if arg.text == "CUDA":
                    out.rewrite(arg.start, arg.end, "HIP", "language")
                    if name != "check_language":
                        add_warp_sync_define(command, text, out)
        _cmake_properties(command, archs, out, text)
        _cmake_args(command, archs, link_variables, flag_variables, out)
        mark_hip_sources(command, text, out)
        if name == "file":
            mark_globbed_sources(command, text, out)
        _drop_leftover(command, body, out)
    if missing and not any(_finds_cuda(c) for c in commands):
        add_find_packages(commands, body, missing, link_variables, out)


def _finds_cuda(command: Command) -> bool:
    """find_package(CUDAToolkit|CUDA ...), which becomes find_package(hip ...)."""
    return (
        command.name.lower() == "find_package"
        and bool(command.args)
        and command.args[0].value in ("CUDAToolkit", "CUDA")
    )


def nvcc_flag_variables(commands: Sequence[Command]) -> frozenset[str]:
    """The variables whose values are nvcc flags wherever they are used: CMAKE_CUDA_FLAGS*, those named like
    nvcc's flags (CUDA_FLAGS, CUDA_NVCC_FLAGS, NVCC_FLAGS) and those a value holding a flag only nvcc takes
    is given to (set, list(APPEND), string(APPEND)): the same rule as a Makefile's."""
    values: dict[str, list[str]] = {}
    for command in commands:
        assigned = _assigned(command)
        if assigned is not None:
            values.setdefault(assigned[0], []).extend(a.value for a in assigned[1])
    return frozenset(
        name
        for name, texts in values.items()
        if name.startswith("CMAKE_CUDA_FLAGS")
        or NVCC_FLAGS_VARIABLE.search(name)
        or any(holds_nvcc_flag(text) for text in texts)
    )


def _assigned(command: Command) -> tuple[str, Sequence[Arg]] | None:
    """The variable that set(), list(APPEND) or string(APPEND) assigns, and the arguments of its value."""
    args = list(command.args)
    name = command.name.lower()
    if name in ("string", "list") and len(args) > 2 and args[0].value == "APPEND":
        variable, first = args[1].value, 2
    elif name == "set" and args:
        variable, first = args[0].value, 1
    else:
        return None
    stop = next((n for n, a in enumerate(args) if n >= first and a.value in ("CACHE", "PARENT_SCOPE")), len(args))
    return variable, args[first:stop]


def _cmake_args(
    command: Command,
    archs: tuple[str, ...],
    link_variables: frozenset[str],
    flag_variables: frozenset[str],
    out: BuildFileEdits,
) -> None:
    """The arguments of one command: nvcc flags, CUDA names and link items mapped (a link item that mapping
    makes a repeat of an earlier one is merged into it); find_library()'s names and directories."""
    values = _flag_values(command, _cmake_variable_values(command, archs, flag_variables, out), archs, out)
    links = link_arguments(command, link_variables)
    handled = rewrite_find_library(command, out)
    seen: dict[str, tuple[str, bool]] = {}  # the link items so far
    for n, arg in enumerate(command.args):
        if n in handled:
            continue
        new = _cmake_arg(arg, values.get(n), archs, out, link=n in links)
        if new is None or (n in links and merged_duplicate(command, n, new, seen, out, mapped=new != arg.text)):
            continue
        out.rewrite(arg.start, arg.end, new, "name")


def _flag_regions(command: Command, flag_args: Sequence[int]) -> list[tuple[int, str, str, str, bool]]:
    """(argument, text before, flags, text after, any compiler's) for each argument that holds nvcc flags:
    the values of nvcc flag variables (`flag_args`) and the insides of $<$<COMPILE_LANGUAGE:CUDA>:...>, in one
    argument or over several (an expression written over several lines); and the compile options of any
    language (target_compile_options, add_compile_options, a COMPILE_OPTIONS or COMPILE_FLAGS property), where
    only the flags only nvcc takes are mapped (the last field True)."""
    regions: list[tuple[int, str, str, str, bool]] = []
    inside = 0  # depth of $<...> within a CUDA expression that spans arguments
    options = _COMPILE_OPTION_COMMANDS.get(command.name.lower())
    for n, arg in enumerate(command.args):
        if arg.kind == "bracket":
            continue
        value = arg.value
        genex = _CUDA_GENEX.fullmatch(value)
        opened = _CUDA_GENEX_OPEN.fullmatch(value)
        if inside:
            depth = inside + value.count("$<") - value.count(">")
            closes = depth <= 0 and value.endswith(">")
            regions.append((n, "", value[:-1], ">", False) if closes else (n, "", value, "", False))
            inside = 0 if closes else depth
        elif n in flag_args:
            regions.append((n, "", value, "", False))
        elif genex:
            regions.append((n, genex.group(1), genex.group(2), genex.group(3), False))
        elif opened and (depth := 1 + opened.group(2).count("$<") - opened.group(2).count(">")) > 0:
            regions.append((n, opened.group(1), opened.group(2), "", False))
            inside = depth
        elif (options is not None and n >= options) or (n and command.args[n - 1].text in _COMPILE_OPTION_PROPERTIES):
            regions.append((n, "", value, "", True))
    return regions


def _flag_values(
    command: Command, flag_args: Sequence[int], archs: tuple[str, ...], out: BuildFileEdits
) -> dict[int, str]:
    """The new values of the arguments that hold nvcc flags (_flag_regions). A flag and its value in two
    arguments (-Xcompiler -fPIC) are mapped together; --offload-arch is written once per command."""
    regions = _flag_regions(command, flag_args)
    values: dict[int, str] = {}
    arch_done = False
    i = 0
    while i < len(regions):
        group = [regions[i]]
        i += 1
        while i < len(regions) and _needs_value(group[-1][2]) and regions[i][0] == group[-1][0] + 1:
            group.append(regions[i])
            i += 1
        joined = " ".join(region[2] for region in group)
        mapped, notes = flag_text(joined, archs, only_nvcc=group[0][4])
        out.notes(command.args[group[0][0]].start, notes)
        arch = any(note.code == ARCHS_REPLACED for note in notes)
        if arch and arch_done:  # --offload-arch once per command
            mapped = _OFFLOAD_ARCH.sub("", mapped)
        arch_done = arch_done or arch
        if len(group) > 1:
            mapped = mapped.strip(" \t")  # blanks only: a line break ends a continuation
        for k, (n, before, _, after, _) in enumerate(group):
            values[n] = before + (mapped if k == 0 else "") + after
    return values


def _needs_value(text: str) -> bool:
    """Does this text end with an nvcc flag whose value is the next word (-Xcompiler, -gencode)?"""
    words = text.split()
    if not words:
        return False
    found = lookup(words[-1])
    return found is not None and found[0].value is FlagValue.ANY and found[1] is None


def _cmake_arg(arg: Arg, flags: str | None, archs: tuple[str, ...], out: BuildFileEdits, *, link: bool) -> str | None:
    """Names inside one argument: CMAKE_CUDA_*, CUDA:: targets and libraries, generator expressions, compile
    features; `flags`: its value with its nvcc flags mapped (None: it holds none); `link`: a link item, where
    a plain CUDA library name is the library. The argument as it is to be written; None: removed already, or
    a bracket argument (never changed)."""
    if arg.kind == "bracket":
        return None
    new = arg.value if flags is None else flags
    if link:
        lib = cuda_library(new, link=True)
        if lib is not None:
            new = link_item(arg, new, lib, out, plain=bool(re.fullmatch(r"[\w-]+", new)))

    def variable(m: re.Match[str]) -> str:
        if m.group(1) in _NO_HIP_VARIABLE:
            out.report(
                arg.start,
                BUILD_CONSTRUCT_UNMAPPED,
                f"{m.group(0)} has no HIP counterpart in CMake; left unchanged",
                m.group(0),
            )
            return m.group(0)
        return f"CMAKE_HIP_{m.group(1)}"

    def target(m: re.Match[str]) -> str:
        lib = cuda_library(m.group(0), link=False)
        return m.group(0) if lib is None else link_item(arg, m.group(0), lib, out, plain=False)

    new = re.sub(r"\bCMAKE_CUDA_(\w+)", variable, new)
    new = re.sub(r"\bCUDA::\w+|" + LIBRARY_VARIABLE.pattern, target, new)
    new = re.sub(r"\bCOMPILE_LANGUAGE:CUDA\b", "COMPILE_LANGUAGE:HIP", new)
    new = re.sub(r"\bcuda_std_(\d+)\b", r"hip_std_\1", new)
    new = hip_definitions(new)  # THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA in compile definitions
    for m in re.finditer(r"\bCUDAToolkit_\w+|\$\{(CUDA_\w+)\}|\bCOMPILE_LANG_AND_ID:CUDA\b", new):
        if m.group(1) and not toolkit_variable(m.group(1)):
            continue  # the project's own variable (set(CUDA_FLAGS ...)): read like any other
        location = m.group(1) and toolkit_location(m.group(1))
        out.report(
            arg.start,
            BUILD_CONSTRUCT_UNMAPPED,
            f"{m.group(0)}: a CUDA toolkit path; point it at ROCm (such as /opt/rocm) by hand"
            if location
            else f"{m.group(0)} comes from the CUDA toolkit's CMake modules; left unchanged",
            m.group(0),
        )
    if flags is not None and not new.strip() and arg.value.strip():  # every flag in it dropped
        start, end = drop_span(out.source.body, arg.start, arg.end)
        out.rewrite(start, end, "", "flags")
        return None
    return f'"{new}"' if arg.kind == "quoted" else new


_OPTION_COMMANDS = {  # commands whose arguments after these many are items; with none left they do nothing
    "target_compile_options": 1,
    "target_compile_definitions": 1,
    "target_link_options": 1,
    "target_include_directories": 1,
    "add_compile_options": 0,
    "add_compile_definitions": 0,
    "add_definitions": 0,
    "add_link_options": 0,
}
_SCOPE_KEYWORDS = frozenset({"PRIVATE", "PUBLIC", "INTERFACE", "BEFORE", "AFTER", "SYSTEM"})
_EMPTY_GENEX = re.compile(r"\$<\$<COMPILE_LANGUAGE:HIP>:[;\s]*>")


def _drop_leftover(command: Command, body: bytes, out: BuildFileEdits) -> None:
    """A command that translation left doing nothing is removed: set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS}")
    once its flags were dropped, string(APPEND CMAKE_HIP_FLAGS " "), target_compile_options(t PRIVATE)
    or one holding only $<$<COMPILE_LANGUAGE:HIP>:>. Commands written that way are left alone."""
    inside = [
        e
        for e in out.edits
        if command.start <= e.start and e.end <= command.end and not e.start == e.end == command.end
    ]
    if not inside:
        return
    shifted = [Edit(e.start - command.start, e.end - command.start, e.parts, e.rule_id) for e in inside]
    translated = apply(body[command.start : command.end], shifted).data
    parsed = next(cmake_commands(translated), None)
    if parsed is None:
        return
    name, values = command.name.lower(), [a.value for a in parsed.args]
    if name == "set" and len(values) == 2:
        noop = values[1].strip() == f"${{{values[0]}}}"
    elif name in ("string", "list") and len(values) >= 2 and values[0] == "APPEND":
        noop = not "".join(values[2:]).strip()
    elif name in _OPTION_COMMANDS:
        items = [v for v in values[_OPTION_COMMANDS[name] :] if v not in _SCOPE_KEYWORDS]
        noop = not _EMPTY_GENEX.sub("", ";".join(items)).strip("; ")
    else:
        noop = False
    if noop and not command.comments:  # a comment is never removed: the command then stays
        start, end = drop_span(body, command.start, command.end)
        out.edits.append(Edit.replace(start, end, "", "cmake.leftover"))
        what = f"{command.name}({values[0]} ...)" if values else f"{command.name}()"
        out.report(
            command.start,
            NVCC_FLAG_DROPPED,
            f"{what} does nothing once its nvcc flags are dropped; removed",
            command.name,
        )


def _cmake_variable_values(
    command: Command, archs: tuple[str, ...], flag_variables: frozenset[str], out: BuildFileEdits
) -> tuple[int, ...]:
    """set(CMAKE_CUDA_ARCHITECTURES ...), and the indexes of the arguments of set/string(APPEND)/list(APPEND)
    that hold nvcc flags: the values of `flag_variables` (_flag_values maps their flags)."""
    assigned = _assigned(command)
    if assigned is None:
        return ()
    variable, values = assigned
    if variable == "CMAKE_CUDA_ARCHITECTURES" and command.name.lower() == "set":
        _arch_values(values, archs, out)
    if variable not in flag_variables or not values:
        return ()
    first = command.args.index(values[0])
    return tuple(range(first, first + len(values)))


def _arch_values(values: Sequence[Arg], archs: tuple[str, ...], out: BuildFileEdits) -> None:
    if not values:
        return
    written = " ".join(v.value for v in values)
    if not _CUDA_ARCH_VALUE.fullmatch(written):
        out.report(
            values[0].start,
            BUILD_CONSTRUCT_UNMAPPED,
            f"CUDA architectures {written!r} are not a literal list; "
            f"set them to AMD targets (such as {';'.join(archs)}) by hand",
            written,
        )
        return
    new = ";".join(archs)
    out.rewrite(values[0].start, values[0].end, f'"{new}"' if values[0].kind == "quoted" else new, "architectures")
    for value in values[1:]:  # one by one: the comments between them stay
        start, end = drop_span(out.source.body, value.start, value.end)
        out.rewrite(start, end, "", "architectures")
    out.report(
        values[0].start, ARCHS_REPLACED, f"CUDA architectures {written} replaced by the AMD targets {new}", written
    )


def _cmake_properties(command: Command, archs: tuple[str, ...], out: BuildFileEdits, text: str) -> None:
    """Property names and values: CUDA_* target properties, LANGUAGE CUDA, CUDA_SEPARABLE_COMPILATION."""
    args = command.args
    for n, arg in enumerate(args):
        following = args[n + 1] if n + 1 < len(args) else None
        if arg.text in _HIP_PROPERTY:
            out.rewrite(arg.start, arg.end, _HIP_PROPERTY[arg.text], "property")
            if arg.text == "CUDA_ARCHITECTURES" and following is not None:
                values = [following]
                if command.name.lower() == "set_property":
                    values = list(args[n + 1 :])
                _arch_values(values, archs, out)
        elif arg.text in _NO_HIP_PROPERTY:
            out.report(
                arg.start,
                BUILD_CONSTRUCT_UNMAPPED,
                f"target property {arg.text} has no HIP counterpart; left unchanged",
                arg.text,
            )
        elif arg.text in ("LANGUAGE", "LINKER_LANGUAGE") and following is not None and following.value == "CUDA":
            out.rewrite(following.start, following.end, "HIP", "language")
        elif arg.text == "CUDA_SEPARABLE_COMPILATION" and following is not None and following.value.upper() in _TRUE:
            name = command.name.lower()
            if name == "set_target_properties":
                targets = [a.value for a in args[: next(i for i, a in enumerate(args) if a.text == "PROPERTIES")]]
            elif name == "set_property" and args and args[0].text == "TARGET":
                stop = next((i for i, a in enumerate(args) if a.text in ("PROPERTY", "APPEND", "APPEND_STRING")), 1)
                targets = [a.value for a in args[1:stop]]
            else:
                targets = []
            lines = [
                line
                for target in targets
                for line in (
                    f"target_compile_options({target} PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)",
                    f'target_link_options({target} PUBLIC "$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>")',
                )
            ]
            new = [line for line in lines if line not in text]
            if new:
                out.rewrite(command.end, command.end, "".join(f"\n{command.indent}{line}" for line in new), "rdc")
                out.report(
                    arg.start,
                    BUILD_COMMANDS_ADDED,
                    f"CUDA_SEPARABLE_COMPILATION: relocatable device code is -fgpu-rdc "
                    f"(and --hip-link to link it) for HIP, added as compile and link options of {', '.join(targets)}",
                    arg.text,
                )
            elif not targets:
                out.report(
                    arg.start,
                    BUILD_CONSTRUCT_UNMAPPED,
                    "CUDA_SEPARABLE_COMPILATION: add -fgpu-rdc to the compile and link "
                    "options of the targets concerned",
                    arg.text,
                )
