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
Variables and the values of the other commands are evaluated in cmake_values.py, if() conditions in
cmake_conditions.py; targets and their flags are recorded in cmake_targets.py.
A source in no target gets the flags of the nearest directory that was read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hipconv.builder.cmake_conditions import Condition, Undecided, Word
from hipconv.builder.cmake_targets import CMakeTarget, Usage, linked_usage, record_usage
from hipconv.builder.cmake_values import (
    UNKNOWN,
    Variables,
    block_end,
    evaluate_genex,
    foreach_items,
    set_variables,
    variable_value,
)
from hipconv.builder.makeflags import compile_flags
from hipconv.buildfiles.cmake_syntax import Command, cmake_commands
from hipconv.diagnostics import CMAKE_NOT_EVALUATED, CODES, EXPANSION_CUT
from hipconv.file_kinds import COMPILED_AS_HIP, file_kind

MAX_CMAKE_DEPTH = 32  # nested calls, includes and subdirectories
MAX_VALUE = 1 << 20  # characters one expansion may produce: `set(A "${A}${A}")` doubles A on every line
MAX_COMMANDS = 200_000  # commands run, those of loops and calls included: a function calling itself twice
_REFERENCE = re.compile(r"\$\{(\w+)\}")
_SETS = frozenset({"set", "list", "string", "option", "unset", "cmake_dependent_option"})
_PROJECT = re.compile(rb"^[ \t]*project[ \t]*\(", re.M | re.I)


@dataclass
class _Directory:
    source_dir: str
    variables: dict[str, str]
    usage: Usage


@dataclass(frozen=True)
class CMakeFlags:
    flags: dict[str, list[str]]  # per translation unit, relative to the translated tree
    notes: tuple[str, ...]  # what the reader could not evaluate, or cut: `warning[HC409]: CMakeLists.txt:3: ...`


class _Reader:
    """Reads a CMake project in the coordinates of the source tree (`root`: its top directory); a file under
    `source` (the tree given to hipconv build) is read from `out`, the translated tree, instead."""

    def __init__(self, root: Path, *, source: Path, out: Path, cache: dict[str, str]) -> None:
        self.root, self.source, self.out = root, source, out
        self.cache = dict(cache)  # -D NAME=VALUE, option(), set(... CACHE ...)
        self.targets: dict[str, CMakeTarget] = {}
        self.functions: dict[str, tuple[bool, list[str], list[Command]]] = {}
        self.directories: dict[str, _Directory] = {}
        self.depth = 0
        self.steps = 0
        self.parents: list[dict[str, str]] = []  # the scopes PARENT_SCOPE writes to
        self.where: dict[int, str] = {}  # id(command) -> file:line
        self.notes: dict[str, None] = {}

    # ------------------------------------------------------------ values

    def note(self, command: Command | None, code: str, message: str) -> None:
        where = self.where.get(id(command), "") if command is not None else ""
        self.notes[f"{CODES[code].severity.value}[{code}]: {where + ': ' if where else ''}{message}"] = None

    def expand(self, text: str, variables: dict[str, str], command: Command | None, *, keep: bool = False) -> str:
        """${VAR} (from the inside out) and $ENV{VAR} (empty: the environment CMake would run in is unknown); a
        variable the reader cannot know is empty, or kept marked (`keep`) for if() and set() to carry."""

        def value(m: re.Match[str]) -> str:
            found = variable_value(m.group(1), variables, self.cache) or ""
            return found if keep or UNKNOWN not in found else "".join(found.split(UNKNOWN)[::2])

        for _ in range(8):  # ${${inner}}
            new = re.sub(r"\$ENV\{\w+\}", "", _REFERENCE.sub(value, text))
            if len(new) > MAX_VALUE:
                self.note(command, EXPANSION_CUT, f"an expansion grows past {MAX_VALUE:,} characters; left empty")
                return ""
            if new == text:
                break
            text = new
        return text

    def arguments(self, command: Command, variables: dict[str, str], *, keep: bool = False) -> list[str]:
        """The command's arguments as CMake passes them: unquoted ones expanded and split at `;`."""
        return [w.text for w in self.words(command, variables, keep=keep) if w.quoted or w.text]

    def words(self, command: Command, variables: dict[str, str], *, keep: bool = False) -> list[Word]:
        out: list[Word] = []
        for arg in command.args:
            if arg.kind == "bracket":
                out.append(Word(re.sub(r"^\[=*\[|\]=*\]$", "", arg.text), True))
            elif arg.kind == "quoted":
                out.append(Word(self.expand(arg.value, variables, command, keep=keep), True))
            else:
                out += [Word(w, False) for w in self.expand(arg.value, variables, command, keep=keep).split(";") if w]
        return out

    # ------------------------------------------------------------ files

    def content(self, path: Path) -> Path:
        """Where a file of the source tree is read: the translated tree's copy when it is one."""
        rel = os.path.relpath(path, self.source)
        return path if rel.startswith("..") else self.out / rel

    def place(self, path: str) -> str:
        """A path of the source tree as the translated build sees it (a file under `source`: its copy)."""
        return path if path.startswith("$<") else str(self.content(Path(path)))

    def within(self, path: Path) -> bool:
        return not os.path.relpath(os.path.normpath(path), self.root).startswith("..")

    def read_file(self, path: Path, directory: _Directory, variables: dict[str, str]) -> None:
        if self.depth > MAX_CMAKE_DEPTH:
            return
        try:
            body = self.content(path).read_bytes()
            commands = list(cmake_commands(body))
        except (OSError, UnicodeDecodeError):
            return
        shown = os.path.relpath(path, self.root)
        for command in commands:
            line = body.count(b"\n", 0, command.start) + 1
            self.where[id(command)] = f"{shown}:{line}"
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
        directory = _Directory(source_dir, variables, parent.usage.copy() if parent else Usage())
        self.directories[source_dir] = directory
        self.parents.append(parent.variables if parent else {})
        self.read_file(path / "CMakeLists.txt", directory, variables)
        self.parents.pop()

    # ------------------------------------------------------------ commands

    def run(self, commands: list[Command], directory: _Directory, variables: dict[str, str]) -> None:
        i = 0
        while i < len(commands):
            command = commands[i]
            name = command.name.lower()
            self.steps += 1
            if self.steps > MAX_COMMANDS:
                if self.steps == MAX_COMMANDS + 1:
                    self.note(command, EXPANSION_CUT, f"more than {MAX_COMMANDS:,} commands run; the rest is not read")
                return
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
                for item in foreach_items(words, lambda n: variable_value(n, variables, self.cache)):
                    variables[words[0]] = item
                    self.run(commands[i + 1 : end], directory, variables)
                i = end + 1
            elif name == "while":
                self.note(command, CMAKE_NOT_EVALUATED, "while() is not run by the static reader; its body is not read")
                i = block_end(commands, i, "while", "endwhile") + 1
            else:
                self.command(command, directory, variables)
                i += 1

    def run_if(self, commands: list[Command], i: int, directory: _Directory, variables: dict[str, str]) -> int:
        """Run the branch of an if() block that holds, as CMake would on Linux with ROCm's clang; a condition
        the reader cannot evaluate is reported, and its branch read as if it held."""
        end = block_end(commands, i, "if", "endif")
        branches: list[tuple[Command, int]] = [(commands[i], i)]
        depth = 0
        for k in range(i + 1, end):
            name = commands[k].name.lower()
            depth += (name == "if") - (name == "endif")
            if depth == 0 and name in ("elseif", "else"):
                branches.append((commands[k], k))
        bounds = [k for _, k in branches] + [end]
        test = Condition(lambda n: variable_value(n, variables, self.cache), self.known)
        for n, (head, k) in enumerate(branches):
            holds = True
            if head.name.lower() != "else":
                try:
                    holds = test.holds(self.words(head, variables, keep=True))
                except Undecided as why:
                    written = " ".join(a.text for a in head.args)
                    written = written if len(written) <= 80 else written[:77] + "..."
                    self.note(head, CMAKE_NOT_EVALUATED, f"{head.name}({written}): {why}; read as if it held")
            if holds:
                self.run(commands[k + 1 : bounds[n + 1]], directory, variables)
                break
        return end + 1

    def known(self, kind: str, name: str) -> bool | None:
        """if(COMMAND|TARGET|TEST name): True when the project defines it; None when it may come from elsewhere."""
        if kind == "COMMAND" and name.lower() in self.functions:
            return True
        if kind == "TARGET" and name in self.targets:
            return True
        return None

    def command(self, command: Command, directory: _Directory, variables: dict[str, str]) -> None:
        name = command.name.lower()
        words = self.arguments(command, variables, keep=name in _SETS)
        here = variables.get("CMAKE_CURRENT_SOURCE_DIR", directory.source_dir)
        parent = self.parents[-1] if self.parents else None
        if name in self.functions:
            self.call(name, [_known(w) for w in words], directory, variables)
        elif name == "cmake_dependent_option" and len(words) >= 5:
            self.dependent_option(command, words, variables)
        elif not set_variables(name, words, Variables(variables, parent, self.cache), here):
            self.structure(name, [_known(w) for w in words], directory, variables, here)

    def dependent_option(self, command: Command, words: list[str], variables: dict[str, str]) -> None:
        """cmake_dependent_option(NAME doc default depends force): the option when every condition of
        `depends` holds, else NAME is `force`."""
        test = Condition(lambda n: variable_value(n, variables, self.cache), self.known)
        try:
            met = all(test.holds([Word(w, False) for w in part.split()]) for part in words[3].split(";") if part)
        except Undecided as why:
            self.note(command, CMAKE_NOT_EVALUATED, f"cmake_dependent_option({words[0]} ...): {why}; its default taken")
            met = True
        if met:
            self.cache.setdefault(words[0], words[2])
        else:
            variables[words[0]] = words[4]

    def structure(
        self, name: str, words: list[str], directory: _Directory, variables: dict[str, str], here: str
    ) -> None:
        """add_subdirectory, include, and the commands that give flags."""
        if name == "add_subdirectory" and words:
            sub = Path(os.path.normpath(os.path.join(here, words[0])))
            if self.content(sub / "CMakeLists.txt").is_file() and self.within(sub):
                self.depth += 1
                if self.depth <= MAX_CMAKE_DEPTH:
                    self.read_directory(sub, directory)
                self.depth -= 1
        elif name == "include" and words:
            path = Path(os.path.normpath(os.path.join(here, words[0])))
            if path.suffix == ".cmake" and self.content(path).is_file() and self.within(path):
                self.read_file(path, directory, variables)
        else:
            record_usage(name, words, self.targets, directory.usage, here)

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
        if not is_macro:
            self.parents.append(variables)
        if self.depth <= MAX_CMAKE_DEPTH:
            self.run(body_commands, directory, scope)
        if not is_macro:
            self.parents.pop()
        self.depth -= 1
        for param, value in saved.items():
            if value is None:
                scope.pop(param, None)
            else:
                scope[param] = value

    # ------------------------------------------------------------ results

    def flags(self, source: str, usage: Usage, variables: dict[str, str], standard: dict[str, str]) -> list[str]:
        language = "HIP" if file_kind(source) in COMPILED_AS_HIP else "CXX"
        std = standard.get(language) or (standard.get("CUDA") if language == "HIP" else None)
        if language == "HIP":
            std = std or variables.get("CMAKE_HIP_STANDARD") or variables.get("CMAKE_CUDA_STANDARD")
        std = std or variables.get("CMAKE_CXX_STANDARD")
        global_flags = _known(variable_value(f"CMAKE_{language}_FLAGS", variables, self.cache) or "").split()
        words = [
            *global_flags,
            *usage.defines,
            *(f"-I{self.place(d)}" for d in usage.includes),
            *usage.options,
            *([f"-std=c++{std}"] if std else []),
        ]
        words = [w for w in evaluate_genex(words, language) if not _MALFORMED.fullmatch(w)]
        placed = self.place(source)
        found = compile_flags(["hipcc", *words, placed], Path(placed).parent, frozenset({Path(placed).suffix}))
        return found[0][1] if found else []


def cmake_flags(
    out_root: Path,
    files: Iterable[str],
    tu_suffixes: Iterable[str],
    *,
    source_root: Path | None = None,
    cache: Mapping[str, str] | None = None,
) -> dict[str, list[str]]:
    """Flags per translation unit (relative to out_root) from the tree's CMake project(s); see read_cmake."""
    return read_cmake(out_root, files, tu_suffixes, source_root=source_root, cache=cache).flags


def read_cmake(
    out_root: Path,
    files: Iterable[str],
    tu_suffixes: Iterable[str],
    *,
    source_root: Path | None = None,
    cache: Mapping[str, str] | None = None,
) -> CMakeFlags:
    """Flags per translation unit (relative to out_root, the translated tree) from its CMake project(s); the
    first target wins. `source_root`: the tree out_root was translated from; a project whose top
    CMakeLists.txt has no project() is read from the nearest directory above that has one (its files outside
    the tree as they are), so a backend's folder built alone gets what the project's root gives it. `cache`:
    -D NAME=VALUE, as cmake's command line sets them."""
    rels = sorted(files)
    lists = {str(Path(rel).parent) for rel in rels if Path(rel).name == "CMakeLists.txt"}
    tops = sorted(d for d in lists if not any(str(p) in lists for p in Path(d).parents))
    suffixes = frozenset(tu_suffixes)
    found: dict[str, list[str]] = {}
    if not tops:
        return CMakeFlags(found, ())
    out = out_root.resolve()
    source = source_root.resolve() if source_root is not None else out
    readers: list[_Reader] = []
    for top in tops:
        start = Path(os.path.normpath(source / top))
        root = _project_root(start, out / top) if source_root is not None else start
        reader = next((r for r in readers if r.root == root), None)
        if reader is None:
            reader = _Reader(root, source=source, out=out, cache=dict(cache or {}))
            readers.append(reader)
            reader.read_directory(root, None)
        if str(start) not in reader.directories:  # read with the nearest directory above that was read
            parent = next((reader.directories[str(p)] for p in start.parents if str(p) in reader.directories), None)
            why = f"no add_subdirectory() from {root} reaches {start.name or top}/ with these options"
            reader.note(None, CMAKE_NOT_EVALUATED, f"{why}; read with {'its parent' if parent else 'nothing'} above")
            reader.read_directory(start, parent)
    for reader in readers:
        _target_flags(reader, out, suffixes, found)
    for rel in rels:  # sources no target names: the flags of the nearest directory read
        if Path(rel).suffix.lower() in suffixes and rel not in found:
            found.update(_directory_flags(readers, source, rel))
    return CMakeFlags(found, tuple(n for r in readers for n in r.notes))


def _target_flags(reader: _Reader, out: Path, suffixes: frozenset[str], found: dict[str, list[str]]) -> None:
    for name, target in reader.targets.items():
        variables = reader.directories.get(target.directory, _Directory("", {}, Usage())).variables
        usage = linked_usage(reader.targets, name)
        for source_file in target.sources:
            rel = os.path.relpath(reader.place(source_file), out)
            if Path(rel).suffix.lower() in suffixes and not rel.startswith("..") and rel not in found:
                found[rel] = reader.flags(source_file, usage, variables, target.standard)


def _directory_flags(readers: list[_Reader], source: Path, rel: str) -> dict[str, list[str]]:
    """A source in no target: the flags of the nearest directory read (none outside the tree)."""
    for parent in Path(os.path.normpath(source / rel)).parents:
        for reader in readers:
            directory = reader.directories.get(str(parent))
            if directory is not None:
                return {rel: reader.flags(str(source / rel), directory.usage, directory.variables, {})}
        if parent == source:
            break
    return {}


def _project_root(start: Path, translated: Path) -> Path:
    """The directory whose CMakeLists.txt has project(): `start` (read from its translated copy) or the
    nearest directory above it; `start` when there is none."""
    try:
        if _PROJECT.search((translated / "CMakeLists.txt").read_bytes()):
            return start
    except OSError:
        return start
    for parent in list(start.parents)[:MAX_CMAKE_DEPTH]:
        try:
            if _PROJECT.search((parent / "CMakeLists.txt").read_bytes()):
                return parent
        except OSError:
            continue
    return start


_MALFORMED = re.compile(r"-[DUI]|-D=.*|-I\$<.*")  # an empty definition or include directory: no argument


def _known(text: str) -> str:
    """Text with the variables the reader cannot know taken as empty."""
    return "".join(text.split(UNKNOWN)[::2]) if UNKNOWN in text else text
