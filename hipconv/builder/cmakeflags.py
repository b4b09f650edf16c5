"""The compile flags a translated CMake project gives each translation unit, read statically.

`hipconv build` without `-p` reads the tree's top CMakeLists.txt files (those with no CMakeLists.txt in a
parent directory) and follows add_subdirectory(), include() of the tree's own files and calls of the
functions and macros they define. Nothing is run: cmake is not needed. What is read:

- variables from set(), list(APPEND|PREPEND), string(APPEND), option(), project() (PROJECT_SOURCE_DIR,
  <name>_SOURCE_DIR), CMAKE_CURRENT_SOURCE_DIR/LIST_DIR, CMAKE_SOURCE_DIR; ${VAR} expanded as CMake does;
- sources: add_executable, add_library, target_sources, file(GLOB|GLOB_RECURSE) (globbed in the tree);
- include directories, definitions and compile options of the directory (include_directories,
  add_definitions, add_compile_definitions, add_compile_options) as a target is created, and of the target
  (target_include_directories, target_compile_definitions, target_compile_options), with the PUBLIC and
  INTERFACE ones of the project's targets it links;
- -std from CMAKE_HIP_STANDARD (also CMAKE_CUDA_STANDARD) for HIP sources and CMAKE_CXX_STANDARD for C++
  ones, the HIP_STANDARD/CXX_STANDARD target properties and hip_std_NN/cxx_std_NN compile features;
- CMAKE_HIP_FLAGS / CMAKE_CXX_FLAGS; -fopenmp for a target linking OpenMP::OpenMP_CXX (and
  ${OpenMP_CXX_FLAGS} after find_package(OpenMP)).

Generator expressions: $<$<COMPILE_LANGUAGE:L>:...> is evaluated for the source's language (HIP for .cu
and .hip files, CXX otherwise), $<BUILD_INTERFACE:...> kept, any other taken as empty (false). if()/elseif():
conditions made of constants, variables (set in the files, or WIN32/APPLE/MSVC false and UNIX true) and
DEFINED, with NOT, AND and OR, are evaluated; for any other condition the first branch is read and the
others are not. foreach() over items and lists is run. Only compile flags are kept (makeflags.compile_flags).
The evaluation helpers are in cmake_values.py.
A source in no target gets the flags of the nearest directory that was read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hipconv.builder.cmake_values import (
    PLATFORM,
    block_end,
    condition,
    evaluate_genex,
    foreach_items,
    set_variables,
    source_path,
    within_root,
)
from hipconv.builder.makeflags import compile_flags
from hipconv.buildfiles.cmake_syntax import Command, cmake_commands
from hipconv.file_kinds import COMPILED_AS_HIP, file_kind

_SCOPES = frozenset({"PRIVATE", "PUBLIC", "INTERFACE"})
_SKIP_WORDS = frozenset({"BEFORE", "AFTER", "SYSTEM"})
_TARGET_KINDS = frozenset(
    {"STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "WIN32", "MACOSX_BUNDLE", "EXCLUDE_FROM_ALL"}
)
MAX_CMAKE_DEPTH = 32  # nested calls, includes and subdirectories


@dataclass
class _Usage:
    """Include directories, definitions (as -D words) and compile options."""

    includes: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)

    def copy(self) -> _Usage:
        return _Usage(list(self.includes), list(self.defines), list(self.options))

    def extend(self, other: _Usage) -> None:
        for mine, theirs in ((self.includes, other.includes), (self.defines, other.defines)):
            mine += [w for w in theirs if w not in mine]
        self.options += other.options


@dataclass
class _Target:
    directory: str
    sources: list[str] = field(default_factory=list)
    private: _Usage = field(default_factory=_Usage)
    interface: _Usage = field(default_factory=_Usage)
    links: list[str] = field(default_factory=list)
    standard: dict[str, str] = field(default_factory=dict)  # language -> 14, 17, ...


@dataclass
class _Directory:
    source_dir: str
    variables: dict[str, str]
    usage: _Usage


class _Reader:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.targets: dict[str, _Target] = {}
        self.functions: dict[str, tuple[bool, list[str], list[Command]]] = {}
        self.directories: dict[str, _Directory] = {}
        self.depth = 0

    # ------------------------------------------------------------ values

    def expand(self, text: str, variables: dict[str, str]) -> str:
        for _ in range(8):  # ${${inner}} from the inside out
            new = re.sub(r"\$\{(\w+)\}", lambda m: variables.get(m.group(1), PLATFORM.get(m.group(1), "")), text)
            new = re.sub(r"\$ENV\{\w+\}", "", new)
            if new == text:
                break
            text = new
        return text

    def arguments(self, command: Command, variables: dict[str, str]) -> list[str]:
        """The command's arguments as CMake passes them: unquoted ones expanded and split at `;`."""
        out: list[str] = []
        for arg in command.args:
            if arg.kind == "bracket":
                out.append(re.sub(r"^\[=*\[|\]=*\]$", "", arg.text))
            elif arg.kind == "quoted":
                out.append(self.expand(arg.value, variables))
            else:
                out += [w for w in self.expand(arg.value, variables).split(";") if w]
        return out

    # ------------------------------------------------------------ files

    def read_file(self, path: Path, directory: _Directory, variables: dict[str, str]) -> None:
        if self.depth > MAX_CMAKE_DEPTH:
            return
        try:
            commands = list(cmake_commands(path.read_bytes()))
        except (OSError, UnicodeDecodeError):
            return
        saved = variables.get("CMAKE_CURRENT_LIST_DIR")
        variables["CMAKE_CURRENT_LIST_DIR"] = str(path.parent)
        self.depth += 1
        self.run(commands, directory, variables)
        self.depth -= 1
        if saved is not None:
            variables["CMAKE_CURRENT_LIST_DIR"] = saved

    def read_directory(self, path: Path, parent: _Directory | None) -> None:
        source_dir = str(path)
        variables = dict(parent.variables) if parent else {"CMAKE_SOURCE_DIR": source_dir}
        variables["CMAKE_CURRENT_SOURCE_DIR"] = source_dir
        directory = _Directory(source_dir, variables, parent.usage.copy() if parent else _Usage())
        self.read_file(path / "CMakeLists.txt", directory, variables)
        self.directories[source_dir] = directory

    # ------------------------------------------------------------ commands

    def run(self, commands: list[Command], directory: _Directory, variables: dict[str, str]) -> None:
        i = 0
        while i < len(commands):
            command = commands[i]
            name = command.name.lower()
            if name in ("function", "macro"):
                end = block_end(commands, i, name, "end" + name)
                words = self.arguments(command, variables)
                if words:
                    self.functions[words[0].lower()] = (name == "macro", words[1:], commands[i + 1 : end])
                i = end + 1
            elif name == "if":
                i = self.run_if(commands, i, directory, variables)
            elif name == "foreach":
                end = block_end(commands, i, "foreach", "endforeach")
                words = self.arguments(command, variables)
                for item in foreach_items(words, variables):
                    variables[words[0]] = item
                    self.run(commands[i + 1 : end], directory, variables)
                i = end + 1
            elif name == "while":
                i = block_end(commands, i, "while", "endwhile") + 1
            else:
                self.command(command, directory, variables)
                i += 1

    def run_if(self, commands: list[Command], i: int, directory: _Directory, variables: dict[str, str]) -> int:
        """Run the branch of an if() block that holds (or the first, when a condition cannot be evaluated)."""
        end = block_end(commands, i, "if", "endif")
        branches: list[tuple[Command, int]] = [(commands[i], i)]
        depth = 0
        for k in range(i + 1, end):
            name = commands[k].name.lower()
            depth += (name == "if") - (name == "endif")
            if depth == 0 and name in ("elseif", "else"):
                branches.append((commands[k], k))
        bounds = [k for _, k in branches] + [end]
        for n, (head, k) in enumerate(branches):
            holds = True if head.name.lower() == "else" else condition(self.arguments(head, variables), variables)
            if holds is None or holds:
                self.run(commands[k + 1 : bounds[n + 1]], directory, variables)
                break
        return end + 1

    def command(self, command: Command, directory: _Directory, variables: dict[str, str]) -> None:
        name = command.name.lower()
        words = self.arguments(command, variables)
        here = variables.get("CMAKE_CURRENT_SOURCE_DIR", directory.source_dir)
        if name in self.functions:
            self.call(name, words, directory, variables)
        elif not set_variables(name, words, variables, here):
            self.structure(name, words, directory, variables, here)

    def structure(
        self, name: str, words: list[str], directory: _Directory, variables: dict[str, str], here: str
    ) -> None:
        """add_subdirectory, include, and the commands that give flags."""
        if name == "add_subdirectory" and words:
            sub = Path(here, words[0])
            if (sub / "CMakeLists.txt").is_file() and within_root(sub, self.root):
                self.depth += 1
                if self.depth <= MAX_CMAKE_DEPTH:
                    self.read_directory(sub.resolve(), directory)
                self.depth -= 1
        elif name == "include" and words:
            path = Path(here if not words[0].startswith("/") else "/", words[0])
            if path.suffix == ".cmake" and path.is_file() and within_root(path, self.root):
                self.read_file(path, directory, variables)
        else:
            self.usage_command(name, words, directory, here)

    def usage_command(self, name: str, words: list[str], directory: _Directory, here: str) -> None:
        if name in ("add_executable", "add_library") and words:
            if "ALIAS" not in words and "IMPORTED" not in words:
                target = _Target(here, private=directory.usage.copy())
                self.targets[words[0]] = target
                target.sources += [source_path(w, here) for w in words[1:] if w not in _TARGET_KINDS]
        elif not _directory_usage(name, words, directory.usage, here) and words and words[0] in self.targets:
            self.target_command(name, words, self.targets[words[0]], here)

    def target_command(self, name: str, words: list[str], target: _Target, here: str) -> None:
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
            self.target_usage(name, words[1:], target, here)

    def target_usage(self, name: str, words: list[str], target: _Target, here: str) -> None:
        scope = "PRIVATE"
        for word in words:
            if word in _SCOPES:
                scope = word
                continue
            if word in _SKIP_WORDS:
                continue
            for usage in [target.private] * (scope != "INTERFACE") + [target.interface] * (scope != "PRIVATE"):
                if name == "target_include_directories":
                    usage.includes.append(word if word.startswith("$<") else source_path(word, here))
                elif name == "target_compile_definitions":
                    usage.defines.append("-D" + word.removeprefix("-D"))
                else:
                    usage.options.append(word)

    def call(self, name: str, words: list[str], directory: _Directory, variables: dict[str, str]) -> None:
        is_macro, params, body_commands = self.functions[name]
        scope = variables if is_macro else dict(variables)
        saved = {p: variables.get(p) for p in params} if is_macro else {}
        for n, param in enumerate(params):
            scope[param] = words[n] if n < len(words) else ""
        scope["ARGN"] = ";".join(words[len(params) :])
        scope["ARGV"] = ";".join(words)
        for n, word in enumerate(words):
            scope[f"ARGV{n}"] = word
        self.depth += 1
        if self.depth <= MAX_CMAKE_DEPTH:
            self.run(body_commands, directory, scope)
        self.depth -= 1
        for param, value in saved.items():
            if value is None:
                scope.pop(param, None)
            else:
                scope[param] = value

    # ------------------------------------------------------------ results

    def usage_of(self, name: str, seen: set[str]) -> _Usage:
        """A target's own flags and the PUBLIC/INTERFACE ones of the project's targets it links, transitively."""
        target = self.targets[name]
        usage = target.private.copy()
        for linked in target.links:
            usage.extend(self.interface_of(linked, seen | {name}))
        return usage

    def interface_of(self, name: str, seen: set[str]) -> _Usage:
        if name == "OpenMP::OpenMP_CXX":
            return _Usage(options=["$<$<COMPILE_LANGUAGE:CXX>:-fopenmp>"])  # as FindOpenMP sets it
        target = self.targets.get(name)
        if target is None or name in seen:
            return _Usage()
        usage = target.interface.copy()
        for linked in target.links:
            usage.extend(self.interface_of(linked, seen | {name}))
        return usage

    def flags(self, source: str, usage: _Usage, variables: dict[str, str], standard: dict[str, str]) -> list[str]:
        language = "HIP" if file_kind(source) in COMPILED_AS_HIP else "CXX"
        std = standard.get(language) or (standard.get("CUDA") if language == "HIP" else None)
        if language == "HIP":
            std = std or variables.get("CMAKE_HIP_STANDARD") or variables.get("CMAKE_CUDA_STANDARD")
        std = std or variables.get("CMAKE_CXX_STANDARD")
        global_flags = variables.get(f"CMAKE_{language}_FLAGS", "").split()
        words = [
            *global_flags,
            *usage.defines,
            *(f"-I{d}" for d in usage.includes),
            *usage.options,
            *([f"-std=c++{std}"] if std else []),
        ]
        words = evaluate_genex(words, language)
        found = compile_flags(["hipcc", *words, source], Path(source).parent, frozenset({Path(source).suffix}))
        return found[0][1] if found else []


def cmake_flags(out_root: Path, files: Iterable[str], tu_suffixes: Iterable[str]) -> dict[str, list[str]]:
    """Flags per translation unit (relative to out_root) from the tree's CMake project(s); the first target wins."""
    rels = sorted(files)
    lists = {str(Path(rel).parent) for rel in rels if Path(rel).name == "CMakeLists.txt"}
    tops = sorted(d for d in lists if not any(str(p) in lists for p in Path(d).parents))
    suffixes = frozenset(tu_suffixes)
    found: dict[str, list[str]] = {}
    if not tops:
        return found
    root = out_root.resolve()
    reader = _Reader(root)
    for top in tops:
        reader.read_directory((root / top).resolve(), None)
    for name, target in reader.targets.items():
        variables = reader.directories.get(target.directory, _Directory("", {}, _Usage())).variables
        usage = reader.usage_of(name, set())
        for source in target.sources:
            rel = os.path.relpath(source, root)
            if Path(rel).suffix.lower() in suffixes and not rel.startswith("..") and rel not in found:
                found[rel] = reader.flags(source, usage, variables, target.standard)
    for rel in rels:  # sources no target names: the flags of the nearest directory read
        if Path(rel).suffix.lower() not in suffixes or rel in found:
            continue
        for parent in (root / rel).parents:
            directory = reader.directories.get(str(parent))
            if directory is not None:
                found[rel] = reader.flags(str(root / rel), directory.usage, directory.variables, {})
                break
            if parent == root:
                break
    return found


def _directory_usage(name: str, words: list[str], usage: _Usage, here: str) -> bool:
    """The commands that give a directory's targets flags; False for any other."""
    if name == "include_directories":
        usage.includes += [source_path(w, here) for w in words if w not in _SKIP_WORDS]
    elif name in ("add_definitions", "add_compile_definitions"):
        for word in words:
            if name == "add_compile_definitions" or word.startswith(("-D", "/D")):
                usage.defines.append("-D" + re.sub(r"^[-/]D", "", word))
            else:
                usage.options.append(word)
    elif name == "add_compile_options":
        usage.options += words
    else:
        return False
    return True
