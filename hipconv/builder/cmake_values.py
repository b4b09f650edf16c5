"""What the static CMake reader (cmakeflags.py) evaluates, if() conditions aside (cmake_conditions.py):
variables (a value it cannot know marked UNKNOWN), foreach() items, generator expressions, globs and paths."""

from __future__ import annotations

import glob
import os
import platform
import re
from collections.abc import Callable
from typing import NamedTuple

from hipconv.buildfiles.cmake_syntax import Command

# What CMake defines on the host hipconv build runs on (Linux), the HIP compiler (and the C and C++ ones, as
# `--cmake configure` chooses them) being ROCm's clang. WIN32, APPLE, MINGW, MSVC, CYGWIN... are not defined.
PLATFORM = {
    "UNIX": "1",
    "LINUX": "1",
    "CMAKE_HOST_UNIX": "1",
    "CMAKE_HOST_LINUX": "1",
    "CMAKE_SYSTEM_NAME": "Linux",
    "CMAKE_HOST_SYSTEM_NAME": "Linux",
    "CMAKE_SYSTEM_PROCESSOR": platform.machine() or "x86_64",
    "CMAKE_HOST_SYSTEM_PROCESSOR": platform.machine() or "x86_64",
    "CMAKE_SIZEOF_VOID_P": "8",
    "CMAKE_HIP_COMPILER": "1",
    "CMAKE_HIP_COMPILER_ID": "Clang",
    "CMAKE_CXX_COMPILER_ID": "Clang",
    "CMAKE_C_COMPILER_ID": "Clang",
    "CMAKE_HIP_PLATFORM": "amd",
    "CMAKE_STATIC_LIBRARY_SUFFIX": ".a",
    "CMAKE_SHARED_LIBRARY_SUFFIX": ".so",
    "CMAKE_EXECUTABLE_SUFFIX": "",
}
# commands whose variable (the first argument) the reader cannot know: they search or run something
_FINDS = frozenset({"find_library", "find_path", "find_program", "find_file", "try_compile", "try_run"})
_OUTPUT_KEYWORDS = frozenset({"OUTPUT_VARIABLE", "RESULT_VARIABLE", "ERROR_VARIABLE", "RESULTS_VARIABLE"})
UNKNOWN = "\x00"  # marks the value of a variable set by a command the reader does not run (find_package, ...)


class Variables(NamedTuple):
    """Where set() writes: this scope (a directory's or a function's), the scope it was called from
    (PARENT_SCOPE), and the cache (option(), set(... CACHE ...), -D NAME=VALUE)."""

    scope: dict[str, str]
    parent: dict[str, str] | None
    cache: dict[str, str]


def variable_value(name: str, scope: dict[str, str], cache: dict[str, str]) -> str | None:
    """A variable's value as ${NAME} reads it (the scope, then the cache, then the platform); None: undefined."""
    if name in scope:
        return scope[name]
    return cache[name] if name in cache else PLATFORM.get(name)


def _unknown(reason: str) -> str:
    """The value of a variable the reader cannot know: empty wherever it is expanded, Undecided in if()."""
    return f"{UNKNOWN}{reason}{UNKNOWN}"


def set_variables(name: str, words: list[str], where: Variables, here: str) -> bool:
    """The commands that set variables; False for any other."""
    variables = where.scope
    if name in ("set", "unset", "option"):
        return _set(name, words, where)
    if name in ("list", "string") and len(words) > 2 and words[0] in ("APPEND", "PREPEND"):
        old, new = (
            variable_value(words[1], variables, where.cache) or "",
            (";" if name == "list" else "").join(words[2:]),
        )
        parts = [old, new] if words[0] == "APPEND" else [new, old]
        variables[words[1]] = ";".join(p for p in parts if p) if name == "list" else "".join(parts)
    elif name in ("string", "list", "get_filename_component") and _evaluated(name, words, variables, where.cache):
        pass
    elif name == "project" and words:
        for key in ("PROJECT_SOURCE_DIR", f"{words[0]}_SOURCE_DIR"):
            variables[key] = here
        variables["PROJECT_NAME"] = words[0]
        _project_version(words, variables)
    elif name == "find_package" and words and words[0] == "OpenMP":
        variables.update({"OpenMP_FOUND": "1", "OpenMP_CXX_FOUND": "1"})
        variables.update({"OpenMP_CXX_FLAGS": "-fopenmp", "OpenMP_C_FLAGS": "-fopenmp"})
    elif name == "find_package" and words:
        found = "1" if "REQUIRED" in words else _unknown(f"find_package({words[0]}) is not run")
        for key in (f"{words[0]}_FOUND", f"{words[0].upper()}_FOUND"):
            variables[key] = found
    elif name == "file" and len(words) > 2 and words[0] in ("GLOB", "GLOB_RECURSE"):
        variables[words[1]] = ";".join(glob_files(words, here))
    else:
        return _unknown_outputs(name, words, variables)
    return True


def _project_version(words: list[str], variables: dict[str, str]) -> None:
    """project(NAME VERSION 1.2.3): PROJECT_VERSION, NAME_VERSION and their _MAJOR, _MINOR, _PATCH, _TWEAK."""
    if "VERSION" not in words[:-1]:
        return
    version = words[words.index("VERSION") + 1]
    parts = [*version.split("."), "", "", ""][:4]
    for prefix in ("PROJECT", words[0]):
        variables[f"{prefix}_VERSION"] = version
        for part, value in zip(("MAJOR", "MINOR", "PATCH", "TWEAK"), parts, strict=True):
            variables[f"{prefix}_VERSION_{part}"] = value


def _set(name: str, words: list[str], where: Variables) -> bool:
    """set() (CACHE: unless the cache has it or FORCE; PARENT_SCOPE: the caller's), unset(), option() (the
    cache's value, or a normal variable's, wins: CMP0077)."""
    variables, cache = where.scope, where.cache
    if not words or (name == "option" and len(words) < 2):
        return False
    values = words[1:]
    stop = next((n for n, w in enumerate(values) if w in ("CACHE", "PARENT_SCOPE")), len(values))
    if name == "option":
        if words[0] not in cache and words[0] not in variables:
            cache[words[0]] = words[2] if len(words) > 2 else "OFF"
    elif name == "unset":
        scope = cache if "CACHE" in values else where.parent if "PARENT_SCOPE" in values else variables
        if scope is not None:
            scope.pop(words[0], None)
    elif stop == len(values):
        variables[words[0]] = ";".join(values)
    elif values[stop] == "CACHE":
        if words[0] not in cache or "FORCE" in values[stop:]:
            cache[words[0]] = ";".join(values[:stop])
    elif where.parent is not None:
        where.parent[words[0]] = ";".join(values[:stop])
    return True


def _evaluated(name: str, words: list[str], variables: dict[str, str], cache: dict[str, str]) -> bool:
    """The string(), list() and get_filename_component() forms the reader evaluates."""
    op = words[0]
    if name == "string" and op in ("TOUPPER", "TOLOWER", "STRIP") and len(words) == 3:
        variables[words[2]] = _CASES[op](words[1])
    elif name == "string" and op == "REPLACE" and len(words) >= 4:
        variables[words[3]] = "".join(words[4:]).replace(words[1], words[2]) if words[1] else "".join(words[4:])
    elif name == "string" and op == "CONCAT" and len(words) >= 2:
        variables[words[1]] = "".join(words[2:])
    elif name == "string" and op == "JOIN" and len(words) >= 3:
        variables[words[2]] = words[1].join(words[3:])
    elif name == "list" and op in ("REMOVE_ITEM", "REMOVE_DUPLICATES") and len(words) >= 2:
        items = [w for w in (variable_value(words[1], variables, cache) or "").split(";") if w]
        kept = [w for w in items if w not in words[2:]] if op == "REMOVE_ITEM" else list(dict.fromkeys(items))
        variables[words[1]] = ";".join(kept)
    elif name == "get_filename_component" and len(words) >= 3 and words[2] in _PATH_PARTS:
        variables[words[0]] = _PATH_PARTS[words[2]](words[1])
    else:
        return False
    return True


_CASES: dict[str, Callable[[str], str]] = {"TOUPPER": str.upper, "TOLOWER": str.lower, "STRIP": str.strip}
_PATH_PARTS: dict[str, Callable[[str], str]] = {
    "DIRECTORY": os.path.dirname,
    "PATH": os.path.dirname,
    "NAME": os.path.basename,
    "NAME_WE": lambda p: os.path.basename(p).split(".")[0],
    "EXT": lambda p: "." + os.path.basename(p).split(".", 1)[1] if "." in os.path.basename(p) else "",
    "ABSOLUTE": os.path.normpath,
}
# where string(OP ...) and list(OP ...) write, for the forms the reader does not evaluate
_STRING_OUTPUT = {"REGEX": 3, "LENGTH": 2, "SUBSTRING": 4, "FIND": 3, "COMPARE": 4, "MD5": 1, "SHA1": 1,
                  "SHA256": 1, "TIMESTAMP": 1, "RANDOM": -1, "MAKE_C_IDENTIFIER": 2, "GENEX_STRIP": 2, "REPEAT": 3,
                  "HEX": 2, "ASCII": -1, "UUID": 1, "CONFIGURE": 2, "JSON": 1}  # fmt: skip
_LIST_OUTPUT = {"LENGTH": -1, "GET": -1, "JOIN": -1, "SUBLIST": -1, "FIND": -1}  # else the list itself


def _unknown_outputs(name: str, words: list[str], variables: dict[str, str]) -> bool:
    """The variables set by a command the reader does not run (a search, a compiler check, a process, a
    string or list operation it does not evaluate) are unknown; False when the command sets none."""
    outputs: list[str] = []
    if name in _FINDS and words:
        outputs = [words[0]]
    elif name.startswith("check_") and name != "check_language" and len(words) > 1:
        outputs = [words[-1]]
    elif name == "string" and len(words) > 1 and words[0] in _STRING_OUTPUT:
        index = _STRING_OUTPUT[words[0]] + (words[0] == "REGEX" and len(words) > 1 and words[1] == "REPLACE")
        outputs = [words[index]] if -len(words) <= index < len(words) else []
    elif name == "list" and len(words) > 1:
        outputs = [words[_LIST_OUTPUT.get(words[0], 1)]]
    elif name in ("math", "cmake_path", "get_filename_component", "separate_arguments") and len(words) > 1:
        outputs = [words[1] if name == "math" else words[-1] if name == "cmake_path" else words[0]]
    elif name.startswith("get_") or name in ("execute_process", "cmake_host_system_information"):
        outputs = [words[n + 1] for n, w in enumerate(words[:-1]) if w in _OUTPUT_KEYWORDS or w == "RESULT"]
        outputs += [words[0]] if name.startswith("get_") and words else []
    for output in outputs:
        variables[output] = _unknown(f"{output} is set by {name}(), which the static reader does not run")
    return bool(outputs)


def block_end(commands: list[Command], i: int, open_name: str, close_name: str) -> int:
    depth = 0
    for k in range(i, len(commands)):
        name = commands[k].name.lower()
        depth += (name == open_name) - (name == close_name)
        if depth == 0:
            return k
    return len(commands)


def foreach_items(words: list[str], get: Callable[[str], str | None]) -> list[str]:
    if len(words) < 2:
        return []
    rest = words[1:]
    if rest[0] == "RANGE":
        numbers = [int(w) for w in rest[1:] if w.lstrip("-").isdigit()]
        if not numbers:
            return []
        start, stop = (0, numbers[0]) if len(numbers) == 1 else (numbers[0], numbers[1])
        return [str(n) for n in range(start, stop + 1)][:1000]
    if rest[0] != "IN":
        return rest
    items, mode = [], ""
    for word in rest[1:]:
        if word in ("LISTS", "ITEMS"):
            mode = word
        elif mode == "LISTS":
            items += [w for w in (get(word) or "").split(";") if w]
        else:
            items.append(word)
    return items


_INNERMOST_GENEX = re.compile(r"\$<([^<>:]*)(?::([^<>]*))?>")


def evaluate_genex(words: list[str], language: str) -> list[str]:
    """Items (joined with `;`, as CMake stores them, so an expression written over several arguments is whole)
    -> the words they stand for when `language` compiles. $<COMPILE_LANGUAGE:...>, $<0:...>/$<1:...> and
    $<BUILD_INTERFACE:...> are evaluated; any other expression is taken as empty (or false)."""

    def evaluate(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2) or ""
        if name == "COMPILE_LANGUAGE":
            return "1" if language in value.split(",") else "0"
        return value if name in ("1", "BUILD_INTERFACE") else ""

    text = ";".join(words)
    while True:
        new = _INNERMOST_GENEX.sub(evaluate, text)
        if new == text:
            break
        text = new
    return [w for w in re.split(r"[;\s]+", text) if w]


def glob_files(words: list[str], here: str) -> list[str]:
    recursive = words[0] == "GLOB_RECURSE"
    relative: str | None = None
    found: list[str] = []
    skip = False
    for n, word in enumerate(words[2:], 2):
        if skip:
            skip = False
            continue
        if word in ("LIST_DIRECTORIES", "RELATIVE"):
            skip = True
            relative = words[n + 1] if word == "RELATIVE" and n + 1 < len(words) else relative
            continue
        if word in ("CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS"):
            continue
        pattern = source_path(word, here)
        if recursive:
            head, tail = os.path.split(pattern)
            pattern = os.path.join(head, "**", tail)
        found += sorted(p for p in glob.glob(pattern, recursive=recursive) if os.path.isfile(p))
    return [os.path.relpath(p, relative) for p in found] if relative else found


def source_path(word: str, here: str) -> str:
    if word.startswith("$<"):
        return word
    return os.path.normpath(os.path.join(here, word))
