"""CUDA libraries in CMake files -> ROCm CMake targets, the find_package() commands they need, and the
compile definition HIP's *_sync warp builtins need (add_warp_sync_define).

`CUDA::` targets and FindCUDA/FindCUDAToolkit library variables are libraries wherever they are written;
plain names and -lNAME are where a list of libraries is: target_link_libraries, link_libraries, and the
set()/list(APPEND) of a variable those commands use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hipconv.buildfiles.cmake_syntax import Arg, Command
from hipconv.buildfiles.common import BuildFileEdits
from hipconv.buildfiles.nvcc_flags import LIBRARIES, LIBRARY_BY_TARGET, WARP_SYNC_DEFINE, Library

# the libraries a plain name, `-lNAME` or a FindCUDA/FindCUDAToolkit variable stands for (case-insensitive:
# FindCUDA writes CUDA_CUBLAS_LIBRARIES, FindCUDAToolkit CUDA_cublas_LIBRARY)
_LIBRARY_BY_NAME = {name.lower(): lib for lib in LIBRARIES for name in (lib.cuda, *(t[6:] for t in lib.cmake))}
_LIBRARY_BY_NAME["cuda_driver"] = _LIBRARY_BY_NAME["cuda"]
LIBRARY_VARIABLE = re.compile(r"\$\{CUDA_(?:(\w+?)_LIBRAR(?:Y|IES)|(LIBRARIES))\}")
_LINK_COMMANDS = frozenset({"target_link_libraries", "link_libraries"})
_BLOCK_OPEN = frozenset({"if", "foreach", "while", "function", "macro", "block"})
_BLOCK_CLOSE = frozenset({"endif", "endforeach", "endwhile", "endfunction", "endmacro", "endblock"})


def cuda_library(word: str, *, link: bool) -> Library | None:
    """The CUDA library one link item names: `CUDA::x`, `${CUDA_x_LIBRARY}`, or (`link`: in a list of
    libraries) a plain name or -lname; None for anything else."""
    if word in LIBRARY_BY_TARGET:
        return LIBRARY_BY_TARGET[word]
    variable = LIBRARY_VARIABLE.fullmatch(word)
    if variable:
        return _LIBRARY_BY_NAME.get((variable.group(1) or "cudart").lower())
    if link and re.fullmatch(r"(?:-l)?[\w-]+", word):
        return _LIBRARY_BY_NAME.get(word.removeprefix("-l").lower()) if word.removeprefix("-l") in _PLAIN else None
    return None


# the names a link line writes plainly (as the -l name, or the FindCUDAToolkit target's name), case as written
_PLAIN = frozenset(name for lib in LIBRARIES for name in (lib.cuda, *(t[6:] for t in lib.cmake)))


def link_variables_of(commands: Sequence[Command]) -> frozenset[str]:
    """Variables whose value reaches a target_link_libraries/link_libraries: their plain names are libraries."""
    return frozenset(
        m
        for command in commands
        if command.name.lower() in _LINK_COMMANDS
        for arg in command.args
        for m in re.findall(r"\$\{(\w+)\}", arg.value)
    )


def link_arguments(command: Command, link_variables: frozenset[str]) -> frozenset[int]:
    """The indexes of the arguments of `command` that are link items."""
    name, args = command.name.lower(), command.args
    if name == "target_link_libraries":
        return frozenset(range(1, len(args)))
    if name == "link_libraries":
        return frozenset(range(len(args)))
    if name == "set" and args and args[0].value in link_variables:
        return frozenset(range(1, len(args)))
    if name == "list" and len(args) > 2 and args[0].value in ("APPEND", "PREPEND") and args[1].value in link_variables:
        return frozenset(range(2, len(args)))
    return frozenset()


def command_libraries(command: Command, link_variables: frozenset[str]) -> list[Library]:
    """The CUDA libraries a command names: CUDA:: targets and library variables anywhere, plain names in link items."""
    links = link_arguments(command, link_variables)
    found = []
    for n, arg in enumerate(command.args):
        if arg.kind == "bracket":
            continue
        words = [arg.value] if n in links else re.findall(r"CUDA::\w+|\$\{CUDA_\w+\}", arg.value)
        found += [lib for word in words if (lib := cuda_library(word, link=n in links)) is not None]
    return found


def required_packages(commands: Sequence[Command], link_variables: frozenset[str]) -> list[str]:
    """The ROCm packages (find_package names) of the HIP targets the file's CUDA libraries become."""
    packages: list[str] = []
    for command in commands:
        for lib in command_libraries(command, link_variables):
            if lib.hip_cmake and lib.package and lib.package not in packages:
                packages.append(lib.package)
    return packages


def found_packages(commands: Sequence[Command]) -> set[str]:
    """The packages the file finds already (find_package(CUDAToolkit|CUDA) becomes find_package(hip))."""
    found = set()
    for command in commands:
        if command.name.lower() == "find_package" and command.args:
            package = command.args[0].value
            found.add("hip" if package in ("CUDAToolkit", "CUDA") else package.lower())
    return found


def rewrite_find_package(command: Command, packages: list[str], out: BuildFileEdits) -> None:
    """find_package(CUDAToolkit|CUDA ...) -> find_package(hip ...) plus the packages of the linked targets."""
    args = command.args
    keywords = [a.value for a in args[1:] if a.value in ("REQUIRED", "QUIET")]
    lines = [f"find_package({' '.join(['hip', *keywords])})"]
    lines += [f"{command.indent}find_package({' '.join([p, *keywords])})" for p in packages]
    out.rewrite(command.start, command.end, "\n".join(lines), "find-package")
    if args[0].value == "CUDA":
        out.report(
            command.start,
            "HC401",
            "find_package(CUDA) is the legacy FindCUDA module: its cuda_add_* commands and its CUDA_* "
            "variables other than the libraries (CUDA_LIBRARIES, CUDA_CUBLAS_LIBRARIES, ...) are not mapped",
            "CUDA",
        )


def add_find_packages(
    commands: Sequence[Command], body: bytes, packages: list[str], link_variables: frozenset[str], out: BuildFileEdits
) -> None:
    """A file that links CUDA libraries but finds no CUDA package: a find_package(P REQUIRED) for each HIP
    package, after project() or else before the outermost command around the first use."""
    depth, top = 0, None
    for command in commands:
        name = command.name.lower()
        if depth == 0:
            top = command
        if name == "project" and depth == 0:
            at, text = command.end, "".join(f"\n{command.indent}find_package({p} REQUIRED)" for p in packages)
            break
        if top is not None and any(lib.hip_cmake for lib in command_libraries(command, link_variables)):
            at = body.rfind(b"\n", 0, top.start) + 1
            text = "".join(f"{top.indent}find_package({p} REQUIRED)\n" for p in packages)
            break
        depth = max(depth + (name in _BLOCK_OPEN) - (name in _BLOCK_CLOSE), 0)
    else:
        return
    out.rewrite(at, at, text, "find-package")
    out.report(
        command.start,
        "HC405",
        f"find_package({') find_package('.join(packages)}) added: the CMake targets of the HIP libraries "
        "linked here come from these packages",
        packages[0],
    )


def link_item(arg: Arg, written: str, lib: Library, out: BuildFileEdits, *, plain: bool) -> str:
    """A CUDA library link item -> the ROCm CMake target; a library with none but with a ROCm library
    (nvToolsExt) -> that library's name, when the item was a plain name; else left, with HC401."""
    if lib.hip_cmake is not None:
        return lib.hip_cmake
    if plain and lib.hip is not None:
        out.report(
            arg.start,
            "HC405",
            f"{written}: linked as {lib.hip}, which ROCm ships no CMake target for "
            "(add ROCm's lib directory with target_link_directories if the linker does not find it)",
            written,
        )
        return lib.hip
    why = f" ({lib.note})" if lib.note else ""
    what = (
        "has no ROCm CMake target" if lib.hip is not None else f"is CUDA's {lib.cuda} library, with no HIP counterpart"
    )
    out.report(arg.start, "HC401", f"{written} {what}{why}; left unchanged", written)
    return written


def add_warp_sync_define(command: Command, text: str, out: BuildFileEdits) -> None:
    """The first command that enables HIP is followed by WARP_SYNC_DEFINE for the whole build (once)."""
    insertion = f"add_compile_definitions({WARP_SYNC_DEFINE})"
    if WARP_SYNC_DEFINE not in text and not any(e.rule_id == "cmake.warp-sync-define" for e in out.edits):
        out.rewrite(command.end, command.end, f"\n{command.indent}{insertion}", "warp-sync-define")
        message = f"{insertion} added: HIP declares the *_sync warp builtins only with it (ROCm 6.2+)"
        out.report(command.start, "HC405", message, WARP_SYNC_DEFINE)
