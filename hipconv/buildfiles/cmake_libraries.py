"""CUDA libraries in CMake files -> ROCm CMake targets, the find_package() commands they need, and the
compile definition HIP's *_sync warp builtins need (add_warp_sync_define).

`CUDA::` targets and FindCUDA/FindCUDAToolkit library variables are libraries wherever they are written;
plain names and -lNAME are where a list of libraries is: target_link_libraries, link_libraries, and the
set()/list(APPEND) of a variable those commands use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hipconv.buildfiles.cmake_syntax import Arg, Command, drop_span
from hipconv.buildfiles.common import BuildFileEdits
from hipconv.buildfiles.nvcc_flags import LIBRARIES, LIBRARY_BY_TARGET, WARP_SYNC_DEFINE, Library
from hipconv.diagnostics import BUILD_COMMANDS_ADDED, BUILD_CONSTRUCT_UNMAPPED, NVCC_FLAG_DROPPED

# the libraries a plain name or `-lNAME` stands for: the -l name or the FindCUDAToolkit target's name, case as
# written; a FindCUDA/FindCUDAToolkit variable's, case-insensitive (CUDA_CUBLAS_LIBRARIES, CUDA_cublas_LIBRARY)
_LIBRARY_BY_PLAIN_NAME = {name: lib for lib in LIBRARIES for name in (lib.cuda, *(t[6:] for t in lib.cmake))}
_LIBRARY_BY_NAME = {name.lower(): lib for name, lib in _LIBRARY_BY_PLAIN_NAME.items()}
LIBRARY_VARIABLE = re.compile(r"\$\{CUDA_(?:(\w+?)_LIBRAR(?:Y|IES)|(LIBRARIES))\}")
_LINK_COMMANDS = frozenset({"target_link_libraries", "link_libraries"})
# a search path into the CUDA toolkit (find_library's HINTS/PATHS), and what it becomes: ROCm's lib directory
_CUDA_TOOLKIT_PATH = re.compile(
    r"\$\{CUDA_TOOLKIT_ROOT_DIR\}|\$\{CUDAToolkit_\w+\}|\$\{CUDA_(?:PATH|HOME|ROOT|DIR)\}"
    r"|\$ENV\{CUDA_(?:PATH|HOME|ROOT)\}|/usr/local/cuda[\w.-]*|/opt/cuda"
)
ROCM_LIBRARY_PATHS = ("$ENV{ROCM_PATH}/lib", "/opt/rocm/lib")
_FIND_LIBRARY_OPTIONS = frozenset(  # find_library's keywords (the words after HINTS/PATHS are directories)
    {
        "NAMES",
        "NAMES_PER_DIR",
        "HINTS",
        "PATHS",
        "PATH_SUFFIXES",
        "VALIDATOR",
        "DOC",
        "NO_CACHE",
        "REQUIRED",
        "OPTIONAL",
        "ENV",
        "REGISTRY_VIEW",
    }
)
_LINK_KEYWORDS = frozenset(  # what starts a new list of items in target_link_libraries
    {"PUBLIC", "PRIVATE", "INTERFACE", "LINK_PUBLIC", "LINK_PRIVATE", "LINK_INTERFACE_LIBRARIES"}
)
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
        return _LIBRARY_BY_PLAIN_NAME.get(word.removeprefix("-l"))
    return None


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
    """find_package(CUDAToolkit|CUDA ...) -> find_package(hip ...) plus the packages of the linked targets.
    Only REQUIRED and QUIET are kept (the version and components are CUDA's); comments stay where they are."""
    args = command.args
    keywords = [a.value for a in args[1:] if a.value in ("REQUIRED", "QUIET")]
    out.rewrite(args[0].start, args[0].end, "hip", "find-package")
    for arg in args[1:]:  # one by one: the comments between them stay
        if arg.value not in ("REQUIRED", "QUIET"):
            start, end = drop_span(out.source.body, arg.start, arg.end)
            out.rewrite(start, end, "", "find-package")
    lines = [f"\n{command.indent}find_package({' '.join([p, *keywords])})" for p in packages]
    out.rewrite(command.end, command.end, "".join(lines), "find-package")
    if args[0].value == "CUDA":
        out.report(
            command.start,
            BUILD_CONSTRUCT_UNMAPPED,
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
        BUILD_COMMANDS_ADDED,
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
            BUILD_COMMANDS_ADDED,
            f"{written}: linked as {lib.hip}, which ROCm ships no CMake target for "
            "(add ROCm's lib directory with target_link_directories if the linker does not find it)",
            written,
        )
        return lib.hip
    why = f" ({lib.note})" if lib.note else ""
    what = (
        "has no ROCm CMake target" if lib.hip is not None else f"is CUDA's {lib.cuda} library, with no HIP counterpart"
    )
    out.report(arg.start, BUILD_CONSTRUCT_UNMAPPED, f"{written} {what}{why}; left unchanged", written)
    return written


def add_warp_sync_define(command: Command, text: str, out: BuildFileEdits) -> None:
    """The first command that enables HIP is followed by WARP_SYNC_DEFINE for the whole build (once)."""
    insertion = f"add_compile_definitions({WARP_SYNC_DEFINE})"
    if WARP_SYNC_DEFINE not in text and not any(e.rule_id == "cmake.warp-sync-define" for e in out.edits):
        out.rewrite(command.end, command.end, f"\n{command.indent}{insertion}", "warp-sync-define")
        message = f"{insertion} added: HIP declares the *_sync warp builtins only with it (ROCm 6.2+)"
        out.report(command.start, BUILD_COMMANDS_ADDED, message, WARP_SYNC_DEFINE)


def merged_duplicate(
    command: Command, n: int, new: str, seen: dict[str, tuple[str, bool]], out: BuildFileEdits, *, mapped: bool
) -> bool:
    """Argument n of `command`, written `new` after translation (`mapped`: changed by it), repeats an earlier
    item of its list (`seen`: the items so far, as written now -> as written before, and whether changed):
    removed with a note when translation made the repeat (True). Items written twice by hand, and an item
    after debug/optimized/general, are kept."""
    args = command.args
    if args[n].value in _LINK_KEYWORDS:
        seen.clear()
        return False
    if n > 0 and args[n - 1].value in ("debug", "optimized", "general"):
        return False
    value = new[1:-1] if args[n].kind == "quoted" else new
    first = seen.setdefault(value, (args[n].value, mapped))
    if first == (args[n].value, mapped) or not (mapped or first[1]):
        return False
    start, end = drop_span(out.source.body, args[n].start, args[n].end)
    out.rewrite(start, end, "", "duplicate")
    where = f"in this {command.name}(); merged into it"
    if not mapped:
        message = f"{value}: {first[0]} became it already {where}"
    elif first[1]:
        message = f"{args[n].value} becomes {value}, which {first[0]} became already {where}"
    else:
        message = f"{args[n].value} becomes {value}, which is already {where}"
    out.report(args[n].start, NVCC_FLAG_DROPPED, message, args[n].value)
    return True


def rewrite_find_library(command: Command, out: BuildFileEdits) -> frozenset[int]:
    """find_library(VAR cublas ...) / find_library(VAR NAMES cublas cublas_static ...): the CUDA library names
    -> their ROCm libraries' file names (the variable stays; it is linked as before), and the search
    directories into the CUDA toolkit -> ROCM_LIBRARY_PATHS. The indexes of the arguments handled."""
    args = command.args
    if command.name.lower() != "find_library" or len(args) < 2:
        return frozenset()
    # find_library(VAR NAMES n1 n2 ... PATHS ...), find_library(VAR name HINTS ...), find_library(VAR name path...)
    names: list[int] = [] if args[1].value == "NAMES" else [1]
    paths: list[int] = []
    section = "NAMES" if args[1].value == "NAMES" else "PATHS"
    for n, arg in enumerate(args[2:], 2):
        if arg.value in _FIND_LIBRARY_OPTIONS:
            section = arg.value
        elif arg.kind != "bracket" and section in ("NAMES", "HINTS", "PATHS"):
            (names if section == "NAMES" else paths).append(n)
    libraries = {n: lib for n in names if (lib := cuda_library(args[n].value, link=True)) is not None}
    if not libraries:
        return frozenset()
    seen: dict[str, tuple[str, bool]] = {}
    for n in names:
        lib = libraries.get(n)
        if lib is not None and lib.hip is None:
            why = f" ({lib.note})" if lib.note else ""
            message = f"{args[n].value} is CUDA's {lib.cuda} library, with no ROCm library{why}; left unchanged"
            out.report(args[n].start, BUILD_CONSTRUCT_UNMAPPED, message, args[n].value)
        if lib is None or lib.hip is None:
            merged_duplicate(command, n, args[n].text, seen, out, mapped=False)
        elif not merged_duplicate(command, n, lib.hip, seen, out, mapped=True):
            out.rewrite(args[n].start, args[n].end, lib.hip, "find-library")
            message = f"find_library({args[0].value}): {args[n].value} becomes {lib.hip}, its ROCm library"
            out.report(args[n].start, BUILD_COMMANDS_ADDED, message, args[n].value)
    if not any(lib.hip for lib in libraries.values()):  # only libraries with no ROCm one: the directories stay
        return frozenset(names)
    _rocm_library_paths(command, paths, out)
    return frozenset(names) | frozenset(paths)


def _rocm_library_paths(command: Command, paths: Sequence[int], out: BuildFileEdits) -> None:
    """find_library()'s search directories (the arguments `paths`) into the CUDA toolkit -> ROCM_LIBRARY_PATHS,
    written once."""
    args, seen = command.args, dict[str, tuple[str, bool]]()
    for n in paths:
        if not _CUDA_TOOLKIT_PATH.search(args[n].value):
            merged_duplicate(command, n, args[n].text, seen, out, mapped=False)
            continue
        new = [p for p in ROCM_LIBRARY_PATHS if p not in seen]
        if new:
            out.rewrite(args[n].start, args[n].end, " ".join(new), "find-library")
        else:
            start, end = drop_span(out.source.body, args[n].start, args[n].end)
            out.rewrite(start, end, "", "find-library")
        seen.update((p, (args[n].value, True)) for p in new)
        out.report(
            args[n].start,
            BUILD_COMMANDS_ADDED,
            f"{args[n].value}: a CUDA toolkit directory; ROCm's libraries are searched in "
            f"{' and '.join(ROCM_LIBRARY_PATHS)} instead",
            args[n].value,
        )
