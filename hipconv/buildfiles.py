"""Build files -> their HIP versions: CMake (CMakeLists.txt, *.cmake) and Makefiles (Makefile, *.mk).

Pure: a decoded SourceFile in, a FileResult out (edits spliced by edits.apply, diagnostics with
line and column). CMake is read with a small lossless tokenizer (comments, bracket and quoted
arguments are never rewritten by accident); Makefiles line by line, words split outside $(...).
What cannot be mapped is left as it is, with an HC401/HC402 diagnostic.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Iterator, NamedTuple, Sequence

from hipconv.diagnostics import Diagnostic
from hipconv.edits import Edit
from hipconv.match import Replacement
from hipconv.nvcc_flags import (
    DEFAULT_OFFLOAD_ARCHS,
    LIBRARY_BY_TARGET,
    FlagNote,
    map_flags,
    map_library,
)
from hipconv.pipeline import FileResult, Status, edited_result
from hipconv.source import SourceFile

CMAKE_NAMES = frozenset({"CMakeLists.txt"})
CMAKE_SUFFIXES = frozenset({".cmake"})
MAKE_NAMES = frozenset({"Makefile", "makefile", "GNUmakefile"})
MAKE_SUFFIXES = frozenset({".mk"})


def build_file_kind(path: str) -> str | None:
    """'cmake', 'make', or None when the path is not a build file hipconv translates."""
    name = os.path.basename(path)
    suffix = os.path.splitext(name)[1].lower()
    if name in CMAKE_NAMES or suffix in CMAKE_SUFFIXES:
        return "cmake"
    if name in MAKE_NAMES or suffix in MAKE_SUFFIXES:
        return "make"
    return None


@dataclass
class _Collector:
    """Edits, diagnostics and replacements of one build file."""

    source: SourceFile
    library: str  # "cmake" or "make": the family counted in --stats
    edits: list[Edit] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    replacements: list[Replacement] = field(default_factory=list)

    def rewrite(self, start: int, end: int, new: str, rule: str) -> None:
        old = self.source.body[start:end].decode("utf-8")
        if new == old:
            return
        self.edits.append(Edit.replace(start, end, new, f"{self.library}.{rule}"))
        line, col = self.source.line_col(start)
        self.replacements.append(Replacement(line, col, old, new, f"{self.library}.{rule}", self.library))

    def report(self, offset: int, code: str, message: str, symbol: str = "") -> None:
        line, col = self.source.line_col(offset)
        self.diagnostics.append(Diagnostic(self.source.path, line, col, code, message, symbol=symbol))

    def notes(self, offset: int, notes: Sequence[FlagNote]) -> None:
        for note in notes:
            self.report(offset, note.code, note.message, note.flag)

    def result(self) -> FileResult:
        return edited_result(self.source, self.edits, self.diagnostics, self.replacements)


def translate_build_file(source: SourceFile, archs: Sequence[str] = DEFAULT_OFFLOAD_ARCHS) -> FileResult:
    """Translate one build file (its kind from its name); anything else comes back unchanged."""
    kind = build_file_kind(source.path)
    if kind is None:
        return FileResult(source.path, Status.UNCHANGED, size=len(source.data))
    out = _Collector(source, kind)
    (_translate_cmake if kind == "cmake" else _translate_make)(source.body, tuple(archs), out)
    return out.result()


def _flag_text(text: str, archs: tuple[str, ...]) -> tuple[str, tuple[FlagNote, ...]]:
    """nvcc flags in a build file's text -> hipcc flags; unknown flags and $-references stay as written."""
    words = text.split()
    mapped = map_flags(words, archs, keep_unknown=True, passthrough=_MAKE_REFERENCE)
    if list(mapped.words) == words:
        return text, mapped.notes
    lead = text[:len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()):]
    return lead + " ".join(mapped.words) + trail, mapped.notes


# ---------------------------------------------------------------- CMake

_CMAKE_TOKEN = re.compile(rb"""
    (?P<comment>\#\[(?P<eq1>=*)\[.*?\](?P=eq1)\]|\#[^\n]*)
  | (?P<bracket>\[(?P<eq2>=*)\[.*?\](?P=eq2)\])
  | (?P<quoted>"(?:\\.|[^"\\])*")
  | (?P<open>\()
  | (?P<close>\))
  | (?P<space>\s+)
  | (?P<word>(?:\\.|[^\s()\#"\\])(?:\\.|[^\s()"\\])*)
  | (?P<other>.)
""", re.X | re.S)


class Arg(NamedTuple):
    kind: str  # word | quoted | bracket
    text: str  # as written (quotes included)
    start: int
    end: int

    @property
    def value(self) -> str:
        return self.text[1:-1] if self.kind == "quoted" else self.text


class Command(NamedTuple):
    name: str
    start: int
    end: int  # just after the closing parenthesis
    args: tuple[Arg, ...]
    indent: str


def cmake_commands(body: bytes) -> Iterator[Command]:
    """Every command invocation `name(args)` of a CMake file, comments and nested parentheses handled."""
    tokens = [(m.lastgroup, m.start(), m.end()) for m in _CMAKE_TOKEN.finditer(body)]
    i = 0
    while i < len(tokens):
        kind, start, end = tokens[i]
        i += 1
        if kind != "word" or not re.fullmatch(rb"[A-Za-z_]\w*", body[start:end]):
            continue
        j = i
        while j < len(tokens) and tokens[j][0] == "space" and b"\n" not in body[tokens[j][1]:tokens[j][2]]:
            j += 1
        if j >= len(tokens) or tokens[j][0] != "open":
            continue
        depth, args, j = 1, [], j + 1
        while j < len(tokens) and depth:
            k, s, e = tokens[j]
            depth += (k == "open") - (k == "close")
            if k in ("word", "quoted", "bracket"):
                args.append(Arg(k, body[s:e].decode("utf-8"), s, e))
            j += 1
        line_start = body.rfind(b"\n", 0, start) + 1
        indent = body[line_start:start].decode("utf-8")
        yield Command(body[start:end].decode("utf-8"), start, tokens[j - 1][2], tuple(args),
                      indent if not indent.strip() else "")
        i = j


# CMAKE_CUDA_<X> variables with no CMAKE_HIP_<X> counterpart (CMake 3.25)
_NO_HIP_VARIABLE = frozenset({"HOST_COMPILER", "RUNTIME_LIBRARY", "SEPARABLE_COMPILATION", "RESOLVE_DEVICE_SYMBOLS",
                              "TOOLKIT_INCLUDE_DIRECTORIES", "COMPILE_FEATURES"})
_HIP_PROPERTY = {"CUDA_STANDARD": "HIP_STANDARD", "CUDA_STANDARD_REQUIRED": "HIP_STANDARD_REQUIRED",
                 "CUDA_EXTENSIONS": "HIP_EXTENSIONS", "CUDA_ARCHITECTURES": "HIP_ARCHITECTURES"}
_NO_HIP_PROPERTY = frozenset({"CUDA_RESOLVE_DEVICE_SYMBOLS", "CUDA_RUNTIME_LIBRARY", "CUDA_PTX_COMPILATION"})
_CUDA_ARCH_VALUE = re.compile(r"(?:(?:\d+(?:-real|-virtual)?|native|all|all-major)[;\s]*)+")
_TRUE = frozenset({"ON", "TRUE", "YES", "Y", "1"})
_SOURCE_COMMANDS = frozenset({"add_executable", "add_library", "target_sources", "set", "list"})
_CUDA_GENEX = re.compile(r"(\$<\$<COMPILE_LANGUAGE:CUDA>:)(.*)(>)", re.S)


def _translate_cmake(body: bytes, archs: tuple[str, ...], out: _Collector) -> None:
    commands = list(cmake_commands(body))
    text = body.decode("utf-8")
    packages: list[str] = []
    for command in commands:
        for arg in command.args:
            for target in re.findall(r"CUDA::\w+", arg.text):
                lib = LIBRARY_BY_TARGET.get(target)
                if lib and lib.package and lib.package != "hip" and lib.package not in packages:
                    packages.append(lib.package)
    for command in commands:
        name = command.name.lower()
        args = command.args
        if name == "find_package" and args and args[0].value in ("CUDAToolkit", "CUDA"):
            keywords = [a.value for a in args[1:] if a.value in ("REQUIRED", "QUIET")]
            lines = [f"find_package({' '.join(['hip', *keywords])})"]
            lines += [f"{command.indent}find_package({' '.join([p, *keywords])})" for p in packages]
            out.rewrite(command.start, command.end, "\n".join(lines), "find-package")
            if args[0].value == "CUDA":
                out.report(command.start, "HC401", "find_package(CUDA) is the legacy FindCUDA module: its "
                           "cuda_add_* commands and CUDA_* variables are not mapped", "CUDA")
            continue
        if name.startswith("cuda_"):
            out.report(command.start, "HC401", f"{command.name}() belongs to the legacy FindCUDA module; use "
                       "add_executable/add_library with HIP sources", command.name)
        if name in ("project", "enable_language", "check_language"):
            for arg in args:
                if arg.text == "CUDA":
                    out.rewrite(arg.start, arg.end, "HIP", "language")
        _cmake_properties(command, archs, out, text)
        flag_args = _cmake_variable_values(command, archs, out)
        for arg in args:
            _cmake_arg(arg, archs, out, flags=arg in flag_args)
        if name in _SOURCE_COMMANDS:
            sources = [a.value for a in args[1:] if a.value.endswith(".cu")]
            insertion = f"set_source_files_properties({' '.join(sources)} PROPERTIES LANGUAGE HIP)"
            if sources and insertion not in text:
                out.rewrite(command.end, command.end, f"\n{command.indent}{insertion}", "source-language")
                out.report(command.start, "HC405", f"{', '.join(sources)}: marked LANGUAGE HIP (CMake compiles "
                           ".cu files as CUDA otherwise)", sources[0])


def _cmake_arg(arg: Arg, archs: tuple[str, ...], out: _Collector, *, flags: bool) -> None:
    """Names inside one argument: CMAKE_CUDA_*, CUDA:: targets, generator expressions, compile features;
    with `flags`, the nvcc flags in it too."""
    if arg.kind == "bracket":
        return
    new = arg.value
    if flags:
        new, notes = _flag_text(new, archs)
        out.notes(arg.start, notes)
    genex = _CUDA_GENEX.fullmatch(new)
    if genex:
        mapped, notes = _flag_text(genex.group(2), archs)
        out.notes(arg.start, notes)
        new = genex.group(1) + mapped + genex.group(3)

    def variable(m: re.Match[str]) -> str:
        if m.group(1) in _NO_HIP_VARIABLE:
            out.report(arg.start, "HC401", f"{m.group(0)} has no HIP counterpart in CMake; left unchanged", m.group(0))
            return m.group(0)
        return f"CMAKE_HIP_{m.group(1)}"

    def target(m: re.Match[str]) -> str:
        lib = LIBRARY_BY_TARGET.get(m.group(0))
        if lib is None or lib.hip_cmake is None:
            why = f" ({lib.note})" if lib and lib.note else ""
            out.report(arg.start, "HC401", f"{m.group(0)} has no ROCm CMake target{why}; left unchanged", m.group(0))
            return m.group(0)
        return lib.hip_cmake

    new = re.sub(r"\bCMAKE_CUDA_(\w+)", variable, new)
    new = re.sub(r"\bCUDA::\w+", target, new)
    new = re.sub(r"\bCOMPILE_LANGUAGE:CUDA\b", "COMPILE_LANGUAGE:HIP", new)
    new = re.sub(r"\bcuda_std_(\d+)\b", r"hip_std_\1", new)
    for m in re.finditer(r"\bCUDAToolkit_\w+|\$\{(CUDA_\w+)\}|\bCOMPILE_LANG_AND_ID:CUDA\b", new):
        out.report(arg.start, "HC401", f"{m.group(0)} comes from the CUDA toolkit's CMake modules; left unchanged",
                   m.group(0))
    out.rewrite(arg.start, arg.end, f'"{new}"' if arg.kind == "quoted" else new, "name")


def _cmake_variable_values(command: Command, archs: tuple[str, ...], out: _Collector) -> tuple[Arg, ...]:
    """set(CMAKE_CUDA_ARCHITECTURES ...), and the arguments of set/string(APPEND)/list(APPEND) that hold
    CMAKE_CUDA_FLAGS* (returned: _cmake_arg maps their flags)."""
    args = list(command.args)
    name = command.name.lower()
    if name in ("string", "list") and len(args) > 2 and args[0].value == "APPEND":
        variable, values = args[1].value, args[2:]
    elif name == "set" and args:
        variable, values = args[0].value, args[1:]
    else:
        return ()
    values = values[:next((n for n, a in enumerate(values) if a.value in ("CACHE", "PARENT_SCOPE")), len(values))]
    if variable == "CMAKE_CUDA_ARCHITECTURES" and name == "set":
        _arch_values(values, archs, out)
    return tuple(values) if variable.startswith("CMAKE_CUDA_FLAGS") else ()


def _arch_values(values: Sequence[Arg], archs: tuple[str, ...], out: _Collector) -> None:
    if not values:
        return
    written = " ".join(v.value for v in values)
    if not _CUDA_ARCH_VALUE.fullmatch(written):
        out.report(values[0].start, "HC401", f"CUDA architectures {written!r} are not a literal list; "
                   f"set them to AMD targets (such as {';'.join(archs)}) by hand", written)
        return
    new = ";".join(archs)
    out.rewrite(values[0].start, values[-1].end, f'"{new}"' if values[0].kind == "quoted" else new, "architectures")
    out.report(values[0].start, "HC404", f"CUDA architectures {written} replaced by the AMD targets {new}", written)


def _cmake_properties(command: Command, archs: tuple[str, ...], out: _Collector, text: str) -> None:
    """Property names and values: CUDA_* target properties, LANGUAGE CUDA, CUDA_SEPARABLE_COMPILATION."""
    args = command.args
    for n, arg in enumerate(args):
        following = args[n + 1] if n + 1 < len(args) else None
        if arg.text in _HIP_PROPERTY:
            out.rewrite(arg.start, arg.end, _HIP_PROPERTY[arg.text], "property")
            if arg.text == "CUDA_ARCHITECTURES" and following is not None:
                values = [following]
                if command.name.lower() == "set_property":
                    values = list(args[n + 1:])
                _arch_values(values, archs, out)
        elif arg.text in _NO_HIP_PROPERTY:
            out.report(arg.start, "HC401", f"target property {arg.text} has no HIP counterpart; left unchanged",
                       arg.text)
        elif arg.text in ("LANGUAGE", "LINKER_LANGUAGE") and following is not None and following.value == "CUDA":
            out.rewrite(following.start, following.end, "HIP", "language")
        elif arg.text == "CUDA_SEPARABLE_COMPILATION" and following is not None and following.value.upper() in _TRUE:
            name = command.name.lower()
            if name == "set_target_properties":
                targets = [a.value for a in args[:next(i for i, a in enumerate(args) if a.text == "PROPERTIES")]]
            elif name == "set_property" and args and args[0].text == "TARGET":
                stop = next((i for i, a in enumerate(args) if a.text in ("PROPERTY", "APPEND", "APPEND_STRING")), 1)
                targets = [a.value for a in args[1:stop]]
            else:
                targets = []
            lines = [line for target in targets for line in (
                f"target_compile_options({target} PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)",
                f'target_link_options({target} PUBLIC "$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>")')]
            new = [line for line in lines if line not in text]
            if new:
                out.rewrite(command.end, command.end, "".join(f"\n{command.indent}{line}" for line in new), "rdc")
                out.report(arg.start, "HC405", f"CUDA_SEPARABLE_COMPILATION: relocatable device code is -fgpu-rdc "
                           f"(and --hip-link to link it) for HIP, added as compile and link options of {', '.join(targets)}", arg.text)
            elif not targets:
                out.report(arg.start, "HC401", "CUDA_SEPARABLE_COMPILATION: add -fgpu-rdc to the compile and link "
                           "options of the targets concerned", arg.text)


# ---------------------------------------------------------------- Makefiles

_MAKE_REFERENCE = re.compile(r"\$.*")  # $(VAR), ${VAR}, $@, $< ...: kept as written
_ASSIGNMENT = re.compile(r"\s*(?:(?:export|override)\s+)*([A-Za-z_][\w.]*)\s*(?::::=|::=|:=|\+=|\?=|!=|=)")
_NVCC_VARIABLE = re.compile(r"(?i)nvcc|gencode|^cu\w*flags$|^cuda\w*flags$")
_NVCC_WORD = re.compile(r"[@+-]*(?:\S*/)?nvcc")
_NVCC_REFERENCE = re.compile(r"[@+-]*\$[({]\w*NVCC[)}]")
_CUDA_PATH = re.compile(r"CUDA_(?:PATH|HOME|ROOT|DIR|TOOLKIT\w*)|/usr/local/cuda|/opt/cuda")
_NVCC_FLAG_TEXT = re.compile(r"-gencode|-arch\b|--expt-|-rdc\b|--use_fast_math")


def make_words(line: str) -> list[tuple[str, int]]:
    """Whitespace-separated words of a Makefile line with their offsets; $(...) and ${...} are never split."""
    words: list[tuple[str, int]] = []
    depth, start = 0, None
    i = 0
    while i < len(line):
        c = line[i]
        if c == "$" and i + 1 < len(line) and line[i + 1] in "({":
            depth += 1
            start = i if start is None else start
            i += 2
            continue
        if depth and c in ")}":
            depth -= 1
        elif not depth and c.isspace():
            if start is not None:
                words.append((line[start:i], start))
                start = None
        elif start is None:
            start = i
        i += 1
    if start is not None:
        words.append((line[start:], start))
    return words


def _translate_make(body: bytes, archs: tuple[str, ...], out: _Collector) -> None:
    offset = 0
    continued_nvcc = False
    for raw in body.splitlines(keepends=True):
        line_start = offset
        offset += len(raw)
        line = raw.decode("utf-8").rstrip("\r\n")
        recipe = line.startswith("\t")
        # a comment: make's (outside recipes), or the shell's (in a recipe, after a blank)
        code = re.split(r"(?<=\s)#" if recipe else r"(?<!\\)#", line, maxsplit=1)[0]
        # byte offsets of the words (build files are almost always ASCII; be exact anyway)
        words = [(w, line_start + len(code[:pos].encode("utf-8"))) for w, pos in make_words(code)]
        assignment = None if recipe else _ASSIGNMENT.match(code)
        first_flag = None  # index of the first word that is nvcc's argument list
        if continued_nvcc:
            first_flag = 0
        elif assignment and _NVCC_VARIABLE.search(assignment.group(1)):
            first_flag = next((n for n, (_, pos) in enumerate(words) if pos - line_start >= assignment.end()), len(words))
        for n, (word, pos) in enumerate(words):
            if _NVCC_WORD.fullmatch(word):
                prefix = re.match(r"[@+-]*", word).group(0)  # type: ignore[union-attr]
                out.rewrite(pos, pos + len(word.encode("utf-8")), prefix + "hipcc", "compiler")
                first_flag = n + 1 if first_flag is None else first_flag
            elif _NVCC_REFERENCE.fullmatch(word) and first_flag is None:
                first_flag = n + 1
        for n, (word, pos) in enumerate(words):
            if _CUDA_PATH.search(word) and not _NVCC_WORD.fullmatch(word):
                out.report(pos, "HC401", f"{word}: a CUDA toolkit path; point it at ROCm (such as /opt/rocm) by hand",
                           word)
            elif word.startswith("$") and _NVCC_FLAG_TEXT.search(word):
                out.report(pos, "HC401", f"nvcc flags assembled by a make function are not mapped: {word}", word)
        if first_flag is not None and first_flag < len(words):
            _make_flags(words[first_flag:], archs, out)
        else:
            for word, pos in words:
                if word.startswith("-l") and len(word) > 2 and "$" not in word:
                    mapped, note = map_library(word[2:])
                    out.rewrite(pos, pos + len(word.encode("utf-8")), mapped[0], "library")
                    if note:
                        out.notes(pos, [note])
        continued_nvcc = first_flag is not None and code.rstrip().endswith("\\")


def _make_flags(words: list[tuple[str, int]], archs: tuple[str, ...], out: _Collector) -> None:
    """Map the nvcc arguments of one line; the changed stretch is rewritten as a whole."""
    if words[-1][0] == "\\":
        words = words[:-1]
    if not words:
        return
    texts = [w for w, _ in words]
    start, end = words[0][1], words[-1][1] + len(texts[-1].encode("utf-8"))
    mapped = map_flags(texts, archs, keep_unknown=True, passthrough=_MAKE_REFERENCE)
    out.notes(start, mapped.notes)
    if list(mapped.words) != texts:
        out.rewrite(start, end, " ".join(mapped.words), "flags")
