"""The compile flags a translated Makefile gives each translation unit, read statically: nothing is run.

`hipconv build` without `-p` reads every Makefile of the HIP tree as GNU make would (make_reader.py:
variables, includes, conditionals, rules) and walks the rules as a plain `make` would, from the default goal
through the prerequisites, then every other target, then the pattern rules that compile the tree's sources;
it expands each recipe line (make_expand.py) and keeps, for each source file a compiler command names, the
flags that shape its compilation: include directories, defines, -std, -f/-m options, warnings. Linker
flags, outputs and other files are left out. A recipe's `$(MAKE) -C dir VAR=value` is followed into that
directory's Makefile. No recipe line, `$(shell ...)` or `!=` is ever run (make -n would run the first two
and lines with `$(MAKE)` or a `+`), so reading an untrusted tree is safe, and make need not be installed.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from hipconv.builder.make_expand import pattern_match
from hipconv.builder.make_reader import MAKEFILE_NAMES, Makefile, MakeRule, is_goal
from hipconv.diagnostics import CODES, EXPANSION_CUT

# the flags that shape a TU's compilation (-DX=1, -std, -f/-m options, warnings, optimization, debug info);
# anything else on the line (linker flags such as -export-dynamic, which clang refuses) is left out
_COMPILE_FLAG = re.compile(
    r"-[DU].+|--?std=.*|-f.*|-m.*|-W(?!l,|a,|p,).*|-O.*|-g.*|-pthread|-pedantic|-w|--offload-arch=.*"
)
_WITH_VALUE = frozenset({"-o", "-MF", "-MT", "-MQ", "-Xlinker"})
_PATH_VALUE = frozenset({"-I", "-isystem", "-iquote", "-idirafter", "-include", "-x", "-D", "-U"})
MAX_MAKE_DEPTH = 32  # nested prerequisites and sub-makes
_SHELL_SEPARATOR = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")


class MakeFlags(NamedTuple):
    flags: dict[str, list[str]]  # per translation unit, relative to the translated tree
    notes: tuple[str, ...]  # expansions cut at their bounds: `warning[HC411]: Makefile: ...`


def makefile_flags(
    out_root: Path, files: Iterable[str], tu_suffixes: Iterable[str], environ: Mapping[str, str] | None = None
) -> dict[str, list[str]]:
    """Flags per translation unit (relative to out_root) from the Makefiles among `files`; see read_makefiles."""
    return read_makefiles(out_root, files, tu_suffixes, environ).flags


def read_makefiles(
    out_root: Path, files: Iterable[str], tu_suffixes: Iterable[str], environ: Mapping[str, str] | None = None
) -> MakeFlags:
    """Flags per translation unit (relative to out_root) from the Makefiles among `files`; the first command wins.

    `environ`: the environment make would see (os.environ by default); it is read, never run."""
    suffixes = frozenset(s.lower() for s in tu_suffixes)
    root = out_root.resolve()
    rels = sorted(files)
    directories = sorted({str(Path(rel).parent) for rel in rels if Path(rel).name in MAKEFILE_NAMES})
    sources = [rel for rel in rels if Path(rel).suffix.lower() in suffixes]
    found: dict[str, list[str]] = {}
    walk = _Walk(root, sources)
    for rel_dir in directories:
        for cwd, words in walk.run(root / rel_dir, dict(os.environ if environ is None else environ), {}, ()):
            for source, flags in compile_flags(words, cwd, suffixes):
                rel = os.path.relpath(source, root)
                if not rel.startswith("..") and rel not in found:
                    found[rel] = flags
    return MakeFlags(found, tuple(dict.fromkeys(walk.notes)))


class _Walk:
    """The commands the Makefiles of one tree would run, each with the directory it runs in."""

    def __init__(self, root: Path, sources: Sequence[str]) -> None:
        self.root, self.sources = root, sources
        self.seen: set[tuple[str, str, tuple[str, ...]]] = set()
        self.depth = 0
        self.notes: list[str] = []

    def run(
        self, directory: Path, environ: Mapping[str, str], overrides: Mapping[str, str], goals: Sequence[str],
        makefile: str | None = None,
    ) -> Iterator[tuple[Path, list[str]]]:  # fmt: skip
        key = (str(directory), repr(sorted(overrides.items())), tuple(goals))
        if key in self.seen or self.depth > MAX_MAKE_DEPTH:
            return
        self.seen.add(key)
        make = Makefile(self.root, directory, environ, overrides)
        names = [makefile] if makefile else [n for n in MAKEFILE_NAMES if (directory / n).is_file()][:1]
        if not names or not make.read_file(directory / names[0]):
            return
        targets = _Targets(make)
        self.depth += 1
        try:
            for target in self._order(make, directory, goals):
                for line in targets.commands(target):
                    yield from self._line(make, directory, line)
        finally:
            self.depth -= 1
            if make.expander.cut:
                shown = os.path.relpath(directory / names[0], self.root)
                self.notes.append(
                    f"{CODES[EXPANSION_CUT].severity.value}[{EXPANSION_CUT}]: {shown}: {make.expander.cut}"
                )

    def _order(self, make: Makefile, directory: Path, goals: Sequence[str]) -> Iterator[str]:
        """The goals (the default goal); every other target; what the pattern rules make of the sources."""
        default = make.expander.value(".DEFAULT_GOAL", {}) or make.default_goal
        yield from goals or ([default] if default else [])
        if goals:
            return
        yield from (t for r in make.rules for t in r.targets if is_goal(t))
        here = os.path.relpath(directory, self.root)
        for source in self.sources:
            rel = os.path.relpath(source, here) if here != "." else source
            if rel.startswith(".."):
                continue
            for rule in make.rules + make.builtin:
                stem = next((pattern_match(p, rel) for p in rule.prerequisites[:1] if "%" in p), None)
                if stem is not None and "%" in rule.targets[0]:
                    yield rule.targets[0].replace("%", stem, 1)

    def _line(self, make: Makefile, directory: Path, line: str) -> Iterator[tuple[Path, list[str]]]:
        """One expanded recipe line -> its shell commands; `cd DIR && ...` and a sub-make followed."""
        cwd = directory
        for command in _SHELL_SEPARATOR.split(line.lstrip("@+- \t")):
            try:
                words = shlex.split(command, comments=True)
            except ValueError:
                continue
            if words and words[0] == "cd" and len(words) > 1:
                cwd = cwd / words[1]
            elif words and os.path.basename(words[0]) in ("make", "gmake", make.expander.value("MAKE", {})):
                yield from self._submake(make, cwd, words[1:])
            elif words:
                yield cwd, words

    def _submake(self, make: Makefile, cwd: Path, args: list[str]) -> Iterator[tuple[Path, list[str]]]:
        """`$(MAKE) -C dir -f file VAR=value goal`: that make's commands (it gets the exported variables)."""
        overrides = {n: v.value for n, v in make.variables.items() if v.origin == "command line"}
        goals: list[str] = []
        makefile = None
        i = 0
        while i < len(args):
            word = args[i]
            if word in ("-C", "--directory", "-f", "--file", "--makefile") and i + 1 < len(args):
                if word in ("-C", "--directory"):
                    cwd = cwd / args[i + 1]
                else:
                    makefile = args[i + 1]
                i += 2
                continue
            if "=" in word and not word.startswith("-"):
                name, _, value = word.partition("=")
                overrides[name] = value
            elif not word.startswith("-"):
                goals.append(word)
            i += 1
        environ = {n: make.expander.value(n, {}) for n in make.exported if n in make.variables}
        yield from self.run(cwd.resolve(), environ, overrides, goals, makefile)


class _Targets:
    """Rules -> the recipe lines that make a target, its prerequisites first (each target made once)."""

    def __init__(self, make: Makefile) -> None:
        self.make = make
        self.explicit: dict[str, list[MakeRule]] = {}
        for rule in make.rules:
            for target in rule.targets:
                if "%" not in target:
                    self.explicit.setdefault(target, []).append(rule)
        self.patterns = [r for r in make.rules if any("%" in t for t in r.targets)] + make.builtin
        self.done: set[str] = set()

    def commands(self, target: str, depth: int = 0) -> Iterator[str]:
        if target in self.done or depth > MAX_MAKE_DEPTH:
            return
        self.done.add(target)
        prerequisites, recipe, stem = self._plan(target)
        for prerequisite in prerequisites:
            yield from self.commands(prerequisite, depth + 1)
        unique = list(dict.fromkeys(prerequisites))
        local = {"@": target, "<": unique[0] if unique else "", "^": " ".join(unique), "+": " ".join(prerequisites)}
        local.update({"?": local["^"], "*": stem, "|": ""})
        for line in recipe:
            yield from self.make.expander.expand(line, local).splitlines()

    def _plan(self, target: str) -> tuple[list[str], list[str], str]:
        """The prerequisites, the recipe and the stem of one target: its rules, else the first pattern rule
        whose prerequisites exist (as files or targets)."""
        prerequisites: list[str] = []
        recipe: list[str] = []
        stem = ""
        for rule in self.explicit.get(target, []):
            if rule.static:
                stem = pattern_match(rule.static, target) or ""
                prerequisites += [p.replace("%", stem, 1) for p in rule.prerequisites]
            else:
                prerequisites += rule.prerequisites
            recipe = rule.recipe or recipe
        if recipe:
            return prerequisites, recipe, stem
        for rule in self.patterns:
            for pattern in rule.targets:
                found = pattern_match(pattern, target)
                if found is None:
                    continue
                needed = [p.replace("%", found, 1) for p in rule.prerequisites]
                if all(self._exists(p) for p in needed):
                    return needed + prerequisites, rule.recipe, found
        return prerequisites, [], stem

    def _exists(self, name: str) -> bool:
        return name in self.explicit or (self.make.directory / name).exists()


def compile_flags(words: Sequence[str], cwd: Path, suffixes: frozenset[str]) -> list[tuple[str, list[str]]]:
    """(source, flags) for each translation unit a compiler command names; [] for any other command."""
    sources = [w for w in words[1:] if not w.startswith("-") and Path(w).suffix.lower() in suffixes]
    if not sources:
        return []
    flags: list[str] = []
    skip = False
    for n, word in enumerate(words[1:], 1):
        if skip:
            skip = False
        elif word in _WITH_VALUE:
            skip = True
        elif word in _PATH_VALUE and n + 1 < len(words):
            value = words[n + 1]
            flags += [word, _absolute(value, cwd) if word not in ("-x", "-D", "-U") else value]
            skip = True
        elif word.startswith("-I") and len(word) > 2:
            flags.append("-I" + _absolute(word[2:], cwd))
        elif _COMPILE_FLAG.fullmatch(word):
            flags.append(word)
    return [(os.path.normpath(cwd / source), flags) for source in sources if (cwd / source).is_file()]


def _absolute(path: str, cwd: Path) -> str:
    return os.path.normpath(cwd / path)
