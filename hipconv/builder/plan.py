"""Build orchestration: the translated tree's translation units -> hipcc commands -> results -> grouped causes.

Plans one Unit per translation unit (from the CUDA build's compile_commands.json, nvcc flags mapped,
or from the tree itself), compiles them in parallel threads (hipcc does the work), and groups the
failures by cause so that one unported API shows up once, with the TUs it breaks.
Results are data; build_report.py renders them.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from hipconv.builder.children import Children, in_parallel
from hipconv.builder.cmakeflags import read_cmake
from hipconv.builder.hipcc import ClangDiagnostic, parse_diagnostics, run_hipcc
from hipconv.builder.included import included_sources, nearest_first
from hipconv.builder.makeflags import read_makefiles
from hipconv.builder.missing import MissingHeaders
from hipconv.builder.untrusted_flags import build_files, drop_loading_flags, untrusted_notes
from hipconv.buildfiles.nvcc_flags import WARP_SYNC_DEFINE, FlagNote, map_flags
from hipconv.errors import ConfigError
from hipconv.file_kinds import COMPILED, COMPILED_AS_HIP, COMPILED_SUFFIXES, FileKind, file_kind
from hipconv.rules.model import RuleKind, RuleSet, RuleStatus


@dataclass(frozen=True)
class Unit:
    source: str  # the translated file, relative to the output tree
    file: str  # its absolute path
    command: tuple[str, ...]
    directory: str  # where the command runs
    output: str | None  # the object file; None with --check-only
    notes: tuple[FlagNote, ...] = ()  # what happened to the CUDA build's flags


@dataclass(frozen=True)
class UnitResult:
    unit: Unit
    ok: bool
    seconds: float
    diagnostics: tuple[ClangDiagnostic, ...]
    output: str  # hipcc's output as it came
    returncode: int = 0  # hipcc's exit status (-1: it could not run, or timed out)


FIX_TRANSLATOR = "translator"  # a translator could fix this: what hipconv wrote, or how hipconv build compiles it
FIX_NONE = "none"  # nothing can: a missing library or dependency, an API with no HIP counterpart
FIX_NOT_CODE = "not-code"  # nothing to fix: the file holds no C or C++ (a licence text named like a source)


class Cause(NamedTuple):
    kind: str  # undeclared | missing-header | not-code | other
    name: str  # the identifier, the header, or the message
    origin: str = ""  # what hipconv knows about the name (for a header: what provides it, what to do)
    fix: str = FIX_TRANSLATOR  # FIX_TRANSLATOR | FIX_NONE | FIX_NOT_CODE


class Group(NamedTuple):
    cause: Cause
    units: tuple[str, ...]  # the TUs that fail because of it
    first: ClangDiagnostic  # where it shows up first
    leading: tuple[str, ...] = ()  # the TUs whose first error it is (each failed TU is in one group's)


# ---------------------------------------------------------------- planning


def _object_path(build_dir: Path, rel: str) -> str:
    return str(build_dir / (rel + ".o"))


def _command(hipcc: str, flags: Sequence[str], file: str, output: str | None, archs: Sequence[str]) -> tuple[str, ...]:
    defines_it = any(w in (f"-D{WARP_SYNC_DEFINE}", f"-U{WARP_SYNC_DEFINE}") for w in flags)
    words = [hipcc, *([] if defines_it else [f"-D{WARP_SYNC_DEFINE}"]), *flags]
    if not any(w.startswith("--offload-arch") for w in words):
        words += [f"--offload-arch={a}" for a in archs]
    if file_kind(file) in COMPILED_AS_HIP and "-x" not in words:
        words += ["-x", "hip"]
    return tuple(words + (["-fsyntax-only", file] if output is None else ["-c", file, "-o", output]))


@dataclass(frozen=True)
class TreeFlags:
    """What the tree's own build files give each translation unit (paths relative to the translated tree)."""

    flags: Mapping[str, Sequence[str]]
    listed: frozenset[str]  # the sources a CMake target names: built even when another file includes them
    notes: tuple[str, ...] = ()  # what the readers could not evaluate, or cut (HC409, HC411)


def read_tree_flags(
    files: Iterable[str],
    out_root: Path,
    *,
    source_root: Path | None = None,
    cache: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> TreeFlags:
    """The flags of the tree's Makefiles (read statically, see makeflags.py), else of its CMake project (read
    statically, see cmakeflags.py; `source_root` and `cache` as read_cmake takes them)."""
    rels = sorted(files)
    cmake = read_cmake(out_root, rels, COMPILED_SUFFIXES, source_root=source_root, cache=cache)
    make = read_makefiles(out_root, rels, COMPILED_SUFFIXES, environ)
    return TreeFlags({**cmake.flags, **make.flags}, frozenset(cmake.flags), cmake.notes + make.notes)


def plan_tree(
    files: Iterable[str],
    out_root: Path,
    hipcc: str,
    archs: Sequence[str],
    *,
    build_dir: Path,
    check_only: bool,
    extra: Sequence[str] = (),
    environ: Mapping[str, str] | None = None,
    tree_flags: TreeFlags | None = None,
) -> tuple[list[Unit], list[str]]:
    """One unit per translation unit among `files` (paths relative to out_root), and the sources left out,
    each with why: those another file includes, unless a CMake target lists them (a Makefile's pattern rule
    would compile any source, so it does not tell).

    Its flags: those the tree's build files give it (`tree_flags`, else read_tree_flags()), then every
    header directory of the tree as an -idirafter directory: searched for "" and <> includes alike, but after
    the build's own -I directories and the system's, so that a project's shim header (a Windows unistd.h in
    win/) never hides the system one and never overrides the directories the build chose; the folders
    nearest the TU first, so that in a tree of several projects (a benchmark suite) a TU finds its own
    project's common.h before another's.
    """
    rels = sorted(files)
    header_dirs = sorted(
        {str((out_root / rel).parent) for rel in rels if file_kind(rel) is FileKind.HEADER} | {str(out_root)}
    )
    found = tree_flags or read_tree_flags(rels, out_root, environ=environ)
    listed, from_build = found.listed, found.flags
    included = included_sources(out_root, rels, COMPILED_SUFFIXES)
    written_in = build_files(rels)  # where a dropped flag is looked for (HC407)
    units, skipped = [], []
    for rel in rels:
        if file_kind(rel) not in COMPILED:
            continue
        if rel in included and rel not in listed:  # (a Makefile's pattern rule would compile any source)
            skipped.append(f"{rel}: included by {included[rel]}; built as part of it, not on its own")
            continue
        file = str(out_root / rel)
        obj = None if check_only else _object_path(build_dir, rel)
        near = [word for d in nearest_first(header_dirs, file) for word in ("-idirafter", d)]
        kept, dropped = drop_loading_flags(from_build.get(rel, ()))  # the tree's flags load no code
        command = _command(hipcc, [*kept, *near, *extra], file, obj, archs)
        units.append(
            Unit(rel, file, command, str(out_root), obj, tuple(untrusted_notes(dropped, out_root, written_in)))
        )
    return units, skipped


_PATH_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter", "-include")


def _remap(path: str, directory: str, src_root: Path, out_root: Path) -> str:
    full = os.path.normpath(os.path.join(directory, path))
    rel = os.path.relpath(full, src_root)
    return full if rel.startswith("..") else str(out_root / rel)


def _remap_paths(words: Sequence[str], directory: str, src_root: Path, out_root: Path) -> list[str]:
    """Include paths (and -include files) inside the CUDA tree point into the HIP tree instead."""
    out: list[str] = []
    pending = False
    for word in words:
        if pending:
            out.append(_remap(word, directory, src_root, out_root))
            pending = False
        elif word in _PATH_FLAGS:
            out.append(word)
            pending = True
        elif word.startswith("-I") and len(word) > 2:
            out.append("-I" + _remap(word[2:], directory, src_root, out_root))
        else:
            out.append(word)
    return out


def load_compile_commands(path: Path) -> list[dict[str, Any]]:
    file = path / "compile_commands.json" if path.is_dir() else path
    try:
        entries = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"-p: cannot read {file}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ConfigError(f"-p: {file} is not valid JSON: {exc}") from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "file" in e for e in entries):
        raise ConfigError(f"-p: {file} is not a compilation database (a list of objects with a 'file')")
    return entries


def plan_compile_commands(
    entries: Sequence[Mapping[str, Any]],
    src_root: Path,
    out_root: Path,
    hipcc: str,
    archs: Sequence[str],
    *,
    build_dir: Path,
    check_only: bool,
    extra: Sequence[str] = (),
) -> tuple[list[Unit], list[str]]:
    """Units from the CUDA build's compilation database; also the entries skipped, and why."""
    units: list[Unit] = []
    skipped: list[str] = []
    src_root, out_root = src_root.resolve(), out_root.resolve()
    for entry in entries:
        directory = str(entry.get("directory") or src_root)
        source = os.path.normpath(os.path.join(directory, str(entry["file"])))
        rel = os.path.relpath(source, src_root)
        if rel.startswith(".."):
            skipped.append(f"{source}: outside {src_root}; not built")
            continue
        words = list(entry["arguments"]) if "arguments" in entry else shlex.split(str(entry.get("command", "")))
        if not words:
            skipped.append(f"{source}: no command; not built")
            continue
        compiler, args = words[0], _drop_output(expand_options_files(words[1:], directory))
        if "nvcc" in os.path.basename(compiler):
            mapped = map_flags(args, archs)
            flags, notes = [w for w in mapped.words if w not in mapped.sources], mapped.notes
        else:  # a host compiler's flags: clang understands them
            flags, notes = (
                [w for w in args if w != str(entry["file"]) and os.path.normpath(os.path.join(directory, w)) != source],
                (),
            )
        flags, dropped = drop_loading_flags(_remap_paths(flags, directory, src_root, out_root))  # (not --hipcc-arg's)
        notes = (*notes, *untrusted_notes(dropped, out_root, (), origin="the compilation database"))
        flags += list(extra)
        file = str(out_root / rel)
        obj = None if check_only else _object_path(build_dir, rel)
        units.append(Unit(rel, file, _command(hipcc, flags, file, obj, archs), directory, obj, tuple(notes)))
    return units, skipped


_OPTIONS_FILE = ("--options-file", "-optf")


def expand_options_files(words: Sequence[str], directory: str) -> list[str]:
    """nvcc's `--options-file F` / `-optf F` / `--options-file=F` (CMake's includes_CUDA.rsp) -> F's words.

    A file that cannot be read is left as written (and then reported as an unknown flag).
    """
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        name, eq, value = word.partition("=")
        if word in _OPTIONS_FILE and i + 1 < len(words):
            path, used = words[i + 1], 2
        elif eq and name in _OPTIONS_FILE:
            path, used = value, 1
        else:
            out.append(word)
            i += 1
            continue
        try:
            texts = [Path(directory, p).read_text(encoding="utf-8", errors="replace") for p in path.split(",") if p]
        except OSError:
            out += words[i : i + used]
        else:
            out += [w for text in texts for w in expand_options_files(shlex.split(text), directory)]
        i += used
    return out


def _drop_output(args: Sequence[str]) -> list[str]:
    """The arguments less -c and -o FILE (hipconv chooses its own)."""
    out: list[str] = []
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word in ("-o", "--output-file"):
            skip = True
        elif word in ("-c", "--compile") or word.startswith("--output-file="):
            continue
        else:
            out.append(word)
    return out


def compile_commands(units: Sequence[Unit]) -> list[dict[str, Any]]:
    """A compilation database of the HIP tree (for clangd and clang-tidy)."""
    return [
        {
            "directory": u.directory,
            "file": u.file,
            "arguments": list(u.command),
            **({"output": u.output} if u.output else {}),
        }
        for u in units
    ]


# ---------------------------------------------------------------- compiling


def compile_units(units: Sequence[Unit], env: Mapping[str, str], *, jobs: int) -> Iterator[UnitResult]:
    """Compile every unit, `jobs` at a time; yields results as they finish (interrupted, it ends the
    compilers still running, with their children: children.in_parallel)."""
    for unit in units:
        if unit.output:
            os.makedirs(os.path.dirname(unit.output), exist_ok=True)

    def one(unit: Unit, children: Children) -> UnitResult:
        done = run_hipcc(unit.command, env, cwd=unit.directory, children=children)
        diagnostics = parse_diagnostics(done.output)
        return UnitResult(unit, done.returncode == 0, done.seconds, diagnostics, done.output, done.returncode)

    yield from in_parallel(one, units, jobs=jobs)


# ---------------------------------------------------------------- grouping failures

_UNDECLARED = re.compile(
    r"use of undeclared identifier '([\w:]+)'|unknown type name '([\w:]+)'|"
    r"no template named '([\w:]+)'|no member named '(\w+)' in namespace|"
    r"use of undeclared '([\w:]+)'|"
    r"'([\w:]+)' (?:was not declared in this scope|does not name a type|has not been declared)"  # g++'s
)
_MISSING_HEADER = re.compile(r"'([^']+)' file not found|^([^\s:']+): No such file or directory")  # clang's, g++'s
HIPCC_LACKS = "the HIP this hipcc uses does not declare it (check --rocm-version)"  # explain_name()'s, of a HIP name


def classify(diagnostic: ClangDiagnostic, ruleset: RuleSet, headers: MissingHeaders, lacks: str = HIPCC_LACKS) -> Cause:
    """The cause of one error, and whether a translator could fix it (an unported API, a missing library: no)."""
    found = _UNDECLARED.search(diagnostic.message)
    if found:
        name = next(g for g in found.groups() if g)
        origin = explain_name(name, ruleset, lacks)
        return Cause("undeclared", name, origin, FIX_NONE if origin.endswith(": unported") else FIX_TRANSLATOR)
    found = _MISSING_HEADER.search(diagnostic.message)
    if found:
        header = found.group(1) or found.group(2)
        hint = headers.hint(header)
        return Cause("missing-header", header, hint.text, FIX_TRANSLATOR if hint.fixable else FIX_NONE)
    return Cause("other", diagnostic.message)


NOT_CODE = Cause(
    "not-code",
    "no C or C++ code",
    "no directive, brace or statement; a text named like a source file, such as a licence, which no build compiles",
    FIX_NOT_CODE,
)


def holds_code(path: str) -> bool:
    """Does the file hold C or C++: a preprocessor directive, a brace, or a line that ends a statement? Prose
    named like a source file (gups's LICENSE.gups.cu) has none of them. True when it cannot be read."""
    try:
        lines = Path(path).read_bytes().splitlines()
    except OSError:
        return True
    return any(line.lstrip().startswith(b"#") or b"{" in line or line.rstrip().endswith(b";") for line in lines)


def first_errors(result: UnitResult) -> list[ClangDiagnostic]:
    """A failed TU's errors in order; the compiler's last line when it printed no diagnostic."""
    errors = [d for d in result.diagnostics if d.severity in ("error", "fatal error")]
    if errors or result.ok:
        return errors
    tail = result.output.strip().splitlines()[-1:] or ["no output"]
    compiler = os.path.basename(result.unit.command[0]) if result.unit.command else "hipcc"
    return [ClangDiagnostic(result.unit.source, 0, 0, "error", f"{compiler} failed: {tail[0]}")]


def explain_name(name: str, ruleset: RuleSet, lacks: str = HIPCC_LACKS) -> str:
    """What hipconv knows about an identifier the compiler did not find (a missing header: missing.py);
    `lacks` says that a HIP name hipconv wrote is not declared by what compiled it."""
    rules = [r for r in ruleset.find(name) if r.kind is not RuleKind.INCLUDE]
    for rule in rules:
        if rule.cuda == name:
            what = f"CUDA {rule.library} API"
            if rule.status in (RuleStatus.UNSUPPORTED, RuleStatus.REMOVED):
                return f"{what} with no HIP equivalent: unported"
            since = rule.rocm.since
            return (
                f"{what}: {rule.hip} exists{f' since ROCm {since}' if since else ''} but was not applied "
                "for the targeted release: unported"
            )
    origins = sorted({rule.cuda for rule in rules if rule.hip == name})
    if origins:
        return f"translated from {' / '.join(origins)}; {lacks}"
    library = ruleset.cuda_api.get(name)
    if library:
        return f"CUDA {library} API with no hipconv rule: unported"
    return ""


def group_failures(
    results: Iterable[UnitResult], ruleset: RuleSet, headers: MissingHeaders | None = None, lacks: str = HIPCC_LACKS
) -> list[Group]:
    """Failed TUs grouped by the cause of their errors, most TUs first. `headers` says what a missing header
    is (with the translated tree and the releases; without it, from the rules alone); `lacks`: explain_name()'s."""
    headers = headers or MissingHeaders(ruleset)
    by_cause: dict[Cause, tuple[list[str], ClangDiagnostic, list[str]]] = {}
    for result in sorted(results, key=lambda r: r.unit.source):
        if result.ok:
            continue
        code = holds_code(result.unit.file)  # else its errors are one cause: it is not code
        for n, error in enumerate(first_errors(result)[: None if code else 1]):
            cause = classify(error, ruleset, headers, lacks) if code else NOT_CODE
            units, _, leading = by_cause.setdefault(cause, ([], error, []))
            if result.unit.source not in units:
                units.append(result.unit.source)
            if n == 0:
                leading.append(result.unit.source)
    groups = [
        Group(cause, tuple(sorted(units)), first, tuple(sorted(leading)))
        for cause, (units, first, leading) in by_cause.items()
    ]
    return sorted(groups, key=lambda g: (-len(g.units), g.cause.kind != "undeclared", g.cause.name))
