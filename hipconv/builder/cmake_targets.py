"""The targets of a CMake project and the flags they get (CMake's usage requirements), as the static reader
(cmakeflags.py) records them: add_executable(), add_library() and the target_*() commands, the directory
commands (include_directories, add_compile_definitions, ...) that give the targets created after them flags,
and what a target takes from the project's targets it links."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hipconv.builder.cmake_values import source_path

_SCOPES = frozenset({"PRIVATE", "PUBLIC", "INTERFACE"})
_SKIP_WORDS = frozenset({"BEFORE", "AFTER", "SYSTEM"})
_TARGET_KINDS = frozenset(
    {"STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "WIN32", "MACOSX_BUNDLE", "EXCLUDE_FROM_ALL"}
)


@dataclass
class Usage:
    """Include directories, definitions (as -D words) and compile options."""

    includes: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)

    def copy(self) -> Usage:
        return Usage(list(self.includes), list(self.defines), list(self.options))

    def extend(self, other: Usage) -> None:
        for mine, theirs in ((self.includes, other.includes), (self.defines, other.defines)):
            mine += [w for w in theirs if w not in mine]
        self.options += other.options


@dataclass
class CMakeTarget:
    """add_executable() or add_library(): its directory, sources, the flags it compiles with (private) and gives
    the targets linking it (interface), the targets it links, and its language standards."""

    directory: str
    sources: list[str] = field(default_factory=list)
    private: Usage = field(default_factory=Usage)
    interface: Usage = field(default_factory=Usage)
    links: list[str] = field(default_factory=list)
    standard: dict[str, str] = field(default_factory=dict)  # language -> 14, 17, ...


def record_usage(name: str, words: list[str], targets: dict[str, CMakeTarget], directory: Usage, here: str) -> None:
    """add_executable() and add_library() (a target starts with its directory's flags, `directory`), the
    commands that give the directory's targets flags, and the target_*() commands of the project's targets."""
    if name in ("add_executable", "add_library") and words:
        if "ALIAS" not in words and "IMPORTED" not in words:
            target = CMakeTarget(here, private=directory.copy())
            targets[words[0]] = target
            target.sources += [source_path(w, here) for w in words[1:] if w not in _TARGET_KINDS]
    elif not _directory_usage(name, words, directory, here) and words and words[0] in targets:
        _target_command(name, words, targets[words[0]], here)


def _target_command(name: str, words: list[str], target: CMakeTarget, here: str) -> None:
    if name == "set_target_properties" and "PROPERTIES" in words:
        pairs = words[words.index("PROPERTIES") + 1 :]
        for key, value in zip(pairs[::2], pairs[1::2]):
            if key in ("HIP_STANDARD", "CUDA_STANDARD", "CXX_STANDARD"):
                target.standard[key.split("_")[0]] = value
    elif name == "target_compile_features":
        for word in words[1:]:
            found = re.fullmatch(r"(hip|cuda|cxx)_std_(\d+)", word)
            if found:
                target.standard.setdefault(found.group(1).upper(), found.group(2))
    elif name == "target_sources":
        target.sources += [source_path(w, here) for w in words[1:] if w not in _SCOPES]
    elif name == "target_link_libraries":
        target.links += [w for w in words[1:] if w not in _SCOPES]
    elif name in ("target_include_directories", "target_compile_definitions", "target_compile_options"):
        _target_usage(name, words[1:], target, here)


def _target_usage(name: str, words: list[str], target: CMakeTarget, here: str) -> None:
    scope = "PRIVATE"
    for word in words:
        if word in _SCOPES:
            scope = word
            continue
        if word in _SKIP_WORDS or not word or (name == "target_compile_definitions" and not _definition(word)):
            continue  # CMake skips an empty item: an empty variable gives no flag
        for usage in [target.private] * (scope != "INTERFACE") + [target.interface] * (scope != "PRIVATE"):
            if name == "target_include_directories":
                usage.includes.append(word if word.startswith("$<") else source_path(word, here))
            elif name == "target_compile_definitions":
                usage.defines.append("-D" + _definition(word))
            else:
                usage.options.append(word)


def linked_usage(targets: dict[str, CMakeTarget], name: str) -> Usage:
    """A target's own flags and the PUBLIC/INTERFACE ones of the project's targets it links, transitively."""
    target = targets[name]
    usage = target.private.copy()
    for linked in target.links:
        usage.extend(_interface_of(targets, linked, {name}))
    return usage


def _interface_of(targets: dict[str, CMakeTarget], name: str, seen: set[str]) -> Usage:
    if name == "OpenMP::OpenMP_CXX":
        return Usage(options=["$<$<COMPILE_LANGUAGE:CXX>:-fopenmp>"])  # as FindOpenMP sets it
    target = targets.get(name)
    if target is None or name in seen:
        return Usage()
    usage = target.interface.copy()
    for linked in target.links:
        usage.extend(_interface_of(targets, linked, seen | {name}))
    return usage


def _definition(word: str) -> str:
    """A definition as add_compile_definitions() and target_compile_definitions() take it ("" when empty)."""
    name = re.sub(r"^[-/]D", "", word)
    return "" if not name or name.startswith("=") else name


def _directory_usage(name: str, words: list[str], usage: Usage, here: str) -> bool:
    """The commands that give a directory's targets flags; False for any other."""
    if name == "include_directories":
        usage.includes += [source_path(w, here) for w in words if w and w not in _SKIP_WORDS]
    elif name in ("add_definitions", "add_compile_definitions"):
        for word in words:
            if name == "add_compile_definitions" or word.startswith(("-D", "/D")):
                usage.defines += [f"-D{_definition(word)}"] if _definition(word) else []
            elif word:
                usage.options.append(word)
    elif name == "add_compile_options":
        usage.options += [w for w in words if w]
    else:
        return False
    return True
