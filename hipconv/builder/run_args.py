"""The arguments `hipconv build --run` gives each program: the user's (`--run-args PROGRAM=ARGS`), else those
of the project's Makefile `run` target, read statically.

`--run-args PROGRAM=ARGS` (repeatable): PROGRAM is a program's name as `build` prints it (`apps/saxpy/saxpy`)
or its last part when no other program has it (`saxpy`); ARGS is split as a POSIX shell splits words
(`shlex`: quotes group, no variables, no globs).

The Makefile: the nearest GNUmakefile, makefile or Makefile in the program's folder or above it (within the
tree) with a rule whose targets include `run`. Each command of that rule (backslash-continued lines joined,
`@`, `-` and `+` dropped, `$(VAR)` and `${VAR}` replaced by the file's own assignments) that starts with the
program (`./saxpy`, `saxpy`, `bin/saxpy`: the last part is the program's) gives its arguments; the first
such command counts. A command that names the program but is not a plain command (a pipe, a redirection, `;`,
`&&`, a `$(shell ...)` or an unknown variable) is not read: the program runs with no arguments and a warning
(HC424) names the line.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hipconv.errors import ConfigError
from hipconv.text_lines import text_lines

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_ASSIGN = re.compile(r"^(?:override\s+|export\s+)?([A-Za-z_][\w.-]*)\s*(?::{1,3}|\+|\?)?=\s*(.*)$")
_RULE = re.compile(r"^([^:=#\t][^:=#]*?)\s*::?(?!=)(.*)$")
_VARIABLE = re.compile(r"\$(?:\(([A-Za-z_][\w.-]*)\)|\{([A-Za-z_][\w.-]*)\}|([A-Za-z_]))")
_SHELL = re.compile(r"[|;&<>`]|\$")
_DEPTH = 8  # variables that name variables: at most this deep
_LONGEST = 4096  # a command longer than this once expanded is not read


@dataclass(frozen=True)
class RunArgs:
    args: tuple[str, ...] = ()
    source: str = ""  # "--run-args", "Makefile:12" ("" for none)
    problem: str = ""  # a run command that names the program but was not read (HC424)


def parse_run_args(values: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """PROGRAM -> its arguments, from the `--run-args PROGRAM=ARGS` values; a ConfigError for a bad one."""
    given: dict[str, tuple[str, ...]] = {}
    for value in values:
        name, equals, words = value.partition("=")
        if not equals or not name.strip():
            raise ConfigError(
                f"--run-args {value!r}: not PROGRAM=ARGS", hint="e.g. --run-args 'saxpy=-n 1024 data/in.txt'"
            )
        try:
            args = tuple(shlex.split(words))
        except ValueError as exc:
            raise ConfigError(f"--run-args {value!r}: {exc}") from None
        if name.strip() in given:
            raise ConfigError(f"--run-args: {name.strip()} is given twice")
        given[name.strip()] = args
    return given


def match_run_args(given: Mapping[str, tuple[str, ...]], programs: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Program name -> arguments: each --run-args name matched to a program, by its name or its unique last
    part; a ConfigError naming the programs for one that matches none or several."""
    matched: dict[str, tuple[str, ...]] = {}
    for name, args in given.items():
        found = [p for p in programs if p == name] or [p for p in programs if posixpath.basename(p) == name]
        if len(found) != 1:
            listed = ", ".join(programs) or "none"
            why = "matches no program" if not found else f"matches {len(found)} programs"
            raise ConfigError(
                f"--run-args {name}=...: {why} (the programs: {listed})", hint="name it as build prints it"
            )
        matched[found[0]] = args
    return matched


def makefile_run_args(tree: Path, program: str) -> RunArgs:
    """The arguments the nearest Makefile's `run` rule gives `program` (its name: its path in the tree less
    the suffix); RunArgs() when no rule names it."""
    folder = posixpath.dirname(program)
    while True:
        for name in MAKEFILES:
            path = tree / folder / name
            if path.is_file() and not path.is_symlink():
                found = _from_makefile(path, posixpath.join(folder, name), posixpath.basename(program))
                if found is not None:
                    return found
        if not folder:
            return RunArgs()
        folder = posixpath.dirname(folder)


def _from_makefile(path: Path, shown: str, program: str) -> RunArgs | None:
    """None when the file has no `run` rule."""
    try:
        text = path.read_bytes()[: 1 << 20].decode("utf-8", "replace")
    except OSError:
        return None
    variables: dict[str, str] = {}
    recipe: list[tuple[int, str]] | None = None
    for number, line in _logical_lines(text):
        if line.startswith("\t"):
            if recipe is not None:
                recipe.append((number, line[1:]))
            continue
        if recipe is not None and line.strip() and not line.lstrip().startswith("#"):
            break  # the run rule's recipe ended
        assigned = _ASSIGN.match(line)
        if assigned:
            variables[assigned.group(1)] = assigned.group(2).split("#", 1)[0].strip()
            continue
        rule = _RULE.match(line)
        if rule and "run" in rule.group(1).split():
            recipe = []
    if recipe is None:
        return None
    for number, command in recipe:
        found = _command_args(command.lstrip("@-+ \t"), variables, program)
        if found is None:
            continue
        where = f"{shown}:{number}"
        if isinstance(found, str):
            return RunArgs(problem=f"{where}: `{command.strip()}` not read ({found}); give --run-args {program}=ARGS")
        return RunArgs(found, where)
    return None


def _command_args(command: str, variables: Mapping[str, str], program: str) -> tuple[str, ...] | str | None:
    """The arguments of a command that runs `program`; why it is not read (a string); None when it does
    not name the program."""
    expanded = _expand(command, variables)
    names = re.search(rf"(?<![\w.-]){re.escape(program)}(?![\w.-])", expanded or command) is not None
    if expanded is None:
        return "a make function, or a variable the Makefile does not assign plainly" if names else None
    if not names:
        return None
    if _SHELL.search(expanded):
        return "not a plain command: a pipe, redirection, list or shell construct"
    try:
        words = shlex.split(expanded)
    except ValueError as exc:
        return str(exc)
    if not words or posixpath.basename(words[0]) != program:
        return None  # it names the program without running it (echo, a copy)
    return tuple(words[1:])


def _expand(text: str, variables: Mapping[str, str]) -> str | None:
    """`text` with the Makefile's variables replaced; None for an unknown variable, a function call, or
    an expansion too deep or too long."""
    for _ in range(_DEPTH):
        if "$" not in text.replace("$$", ""):
            return text.replace("$$", "$")
        unknown = False

        def value(match: re.Match[str]) -> str:
            nonlocal unknown
            name = match.group(1) or match.group(2) or match.group(3)
            if name not in variables:
                unknown = True
                return ""
            return variables[name]

        text = _VARIABLE.sub(value, text)
        if unknown or len(text) > _LONGEST:
            return None
    return None


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, line) with backslash-newlines joined."""
    out: list[tuple[int, str]] = []
    pending, first = "", 0
    for number, line in enumerate(text_lines(text), 1):
        if not pending:
            first = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((first, pending + line))
        pending = ""
    if pending:
        out.append((first, pending))
    return out
