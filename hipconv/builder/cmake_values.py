"""What the static CMake reader (cmakeflags.py) evaluates: variables, if() conditions, foreach() items,
generator expressions, globs and paths."""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

from hipconv.buildfiles.cmake_syntax import Command

FALSE_VALUES = frozenset({"", "0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND"})
PLATFORM = {"WIN32": "", "APPLE": "", "MSVC": "", "UNIX": "1", "LINUX": "1", "CMAKE_HIP_COMPILER": "1"}


def set_variables(name: str, words: list[str], variables: dict[str, str], here: str) -> bool:
    """The commands that set variables; False for any other."""
    if name == "set" and words:
        values = words[1:]
        stop = next((n for n, w in enumerate(values) if w in ("CACHE", "PARENT_SCOPE")), len(values))
        variables[words[0]] = ";".join(values[:stop])
    elif name == "option" and len(words) > 1:
        variables.setdefault(words[0], words[2] if len(words) > 2 else "OFF")
    elif name in ("list", "string") and len(words) > 2 and words[0] in ("APPEND", "PREPEND"):
        old, new = variables.get(words[1], ""), (";" if name == "list" else "").join(words[2:])
        parts = [old, new] if words[0] == "APPEND" else [new, old]
        variables[words[1]] = ";".join(p for p in parts if p) if name == "list" else "".join(parts)
    elif name == "project" and words:
        for key in ("PROJECT_SOURCE_DIR", f"{words[0]}_SOURCE_DIR"):
            variables[key] = here
        variables["PROJECT_NAME"] = words[0]
    elif name == "find_package" and words and words[0] == "OpenMP":
        variables.update({"OpenMP_FOUND": "1", "OpenMP_CXX_FOUND": "1"})
        variables.update({"OpenMP_CXX_FLAGS": "-fopenmp", "OpenMP_C_FLAGS": "-fopenmp"})
    elif name == "file" and len(words) > 2 and words[0] in ("GLOB", "GLOB_RECURSE"):
        variables[words[1]] = ";".join(glob_files(words, here))
    else:
        return False
    return True


def block_end(commands: list[Command], i: int, open_name: str, close_name: str) -> int:
    depth = 0
    for k in range(i, len(commands)):
        name = commands[k].name.lower()
        depth += (name == open_name) - (name == close_name)
        if depth == 0:
            return k
    return len(commands)


def foreach_items(words: list[str], variables: dict[str, str]) -> list[str]:
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
            items += [w for w in variables.get(word, "").split(";") if w]
        else:
            items.append(word)
    return items


def condition(words: list[str], variables: dict[str, str]) -> bool | None:
    """An if() condition made of constants, variables, DEFINED, NOT, AND, OR; None for anything else."""
    if not words:
        return None
    for joiner, combine in (("OR", any), ("AND", all)):
        if joiner in words:
            parts: list[list[str]] = []
            current: list[str] = []
            for word in words:
                if word == joiner:
                    parts.append(current)
                    current = []
                else:
                    current.append(word)
            values = [condition(part, variables) for part in [*parts, current]]
            return None if None in values else combine(values)
    if words[0] == "NOT":
        value = condition(words[1:], variables)
        return None if value is None else not value
    if len(words) == 2 and words[0] == "DEFINED":
        return words[1] in variables or words[1] in PLATFORM
    if len(words) != 1:
        return None
    word = words[0]
    if _false(word):
        return False
    if word.upper() in ("1", "ON", "YES", "TRUE", "Y") or re.fullmatch(r"-?\d+(\.\d+)?", word):
        return True
    if word in variables or word in PLATFORM:
        return not _false(variables.get(word, PLATFORM.get(word, "")))
    return None


def _false(text: str) -> bool:
    """A constant CMake reads as false."""
    return text.upper() in FALSE_VALUES or text.upper().endswith("-NOTFOUND")


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


def within_root(path: Path, root: Path) -> bool:
    return not os.path.relpath(path.resolve(), root).startswith("..")
