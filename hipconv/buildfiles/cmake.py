"""CMake files (CMakeLists.txt, *.cmake) -> their HIP versions.

Read with a small lossless tokenizer, so comments, bracket and quoted arguments are never
rewritten by accident. What cannot be mapped is left as it is, with HC401.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from hipconv.buildfiles.common import BuildFileEdits, flag_text
from hipconv.buildfiles.nvcc_flags import LIBRARY_BY_TARGET

_CMAKE_TOKEN = re.compile(
    rb"""
    (?P<comment>\#\[(?P<eq1>=*)\[.*?\](?P=eq1)\]|\#[^\n]*)
  | (?P<bracket>\[(?P<eq2>=*)\[.*?\](?P=eq2)\])
  | (?P<quoted>"(?:\\.|[^"\\])*")
  | (?P<open>\()
  | (?P<close>\))
  | (?P<space>\s+)
  | (?P<word>(?:\\.|[^\s()\#"\\])(?:\\.|[^\s()"\\])*)
  | (?P<other>.)
""",
    re.X | re.S,
)


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
        while j < len(tokens) and tokens[j][0] == "space" and b"\n" not in body[tokens[j][1] : tokens[j][2]]:
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
        yield Command(
            body[start:end].decode("utf-8"), start, tokens[j - 1][2], tuple(args), indent if not indent.strip() else ""
        )
        i = j


# CMAKE_CUDA_<X> variables with no CMAKE_HIP_<X> counterpart (CMake 3.25)
_NO_HIP_VARIABLE = frozenset(
    {
        "HOST_COMPILER",
        "RUNTIME_LIBRARY",
        "SEPARABLE_COMPILATION",
        "RESOLVE_DEVICE_SYMBOLS",
        "TOOLKIT_INCLUDE_DIRECTORIES",
        "COMPILE_FEATURES",
    }
)
_HIP_PROPERTY = {
    "CUDA_STANDARD": "HIP_STANDARD",
    "CUDA_STANDARD_REQUIRED": "HIP_STANDARD_REQUIRED",
    "CUDA_EXTENSIONS": "HIP_EXTENSIONS",
    "CUDA_ARCHITECTURES": "HIP_ARCHITECTURES",
}
_NO_HIP_PROPERTY = frozenset({"CUDA_RESOLVE_DEVICE_SYMBOLS", "CUDA_RUNTIME_LIBRARY", "CUDA_PTX_COMPILATION"})
_CUDA_ARCH_VALUE = re.compile(r"(?:(?:\d+(?:-real|-virtual)?|native|all|all-major)[;\s]*)+")
_TRUE = frozenset({"ON", "TRUE", "YES", "Y", "1"})
_SOURCE_COMMANDS = frozenset({"add_executable", "add_library", "target_sources", "set", "list"})
_CUDA_GENEX = re.compile(r"(\$<\$<COMPILE_LANGUAGE:CUDA>:)(.*)(>)", re.S)


def translate_cmake(body: bytes, archs: tuple[str, ...], out: BuildFileEdits) -> None:
    commands = list(cmake_commands(body))
    text = body.decode("utf-8")
    packages = _packages_of_targets(commands)
    for command in commands:
        name = command.name.lower()
        if name == "find_package" and command.args and command.args[0].value in ("CUDAToolkit", "CUDA"):
            _find_package(command, packages, out)
            continue
        if name.startswith("cuda_"):
            out.report(
                command.start,
                "HC401",
                f"{command.name}() belongs to the legacy FindCUDA module; use "
                "add_executable/add_library with HIP sources",
                command.name,
            )
        if name in ("project", "enable_language", "check_language"):
            for arg in command.args:
                if arg.text == "CUDA":
                    out.rewrite(arg.start, arg.end, "HIP", "language")
        _cmake_properties(command, archs, out, text)
        flag_args = _cmake_variable_values(command, archs, out)
        for arg in command.args:
            _cmake_arg(arg, archs, out, flags=arg in flag_args)
        if name in _SOURCE_COMMANDS:
            _mark_hip_sources(command, text, out)


def _packages_of_targets(commands: list[Command]) -> list[str]:
    """The ROCm packages whose CMake targets replace the CUDA:: targets the file links."""
    packages: list[str] = []
    for command in commands:
        for arg in command.args:
            for target in re.findall(r"CUDA::\w+", arg.text):
                lib = LIBRARY_BY_TARGET.get(target)
                if lib and lib.package and lib.package != "hip" and lib.package not in packages:
                    packages.append(lib.package)
    return packages


def _find_package(command: Command, packages: list[str], out: BuildFileEdits) -> None:
    """find_package(CUDAToolkit|CUDA ...) -> find_package(hip ...) plus the packages of the linked targets."""
    args = command.args
    keywords = [a.value for a in args[1:] if a.value in ("REQUIRED", "QUIET")]
    lines = [f"find_package({' '.join(['hip', *keywords])})"]
    lines += [f"{command.indent}find_package({' '.join([p, *keywords])})" for p in packages]
    out.rewrite(command.start, command.end, "\n".join(lines), "find-package")
    if args[0].value == "CUDA":
        out.report(
            command.start,
            "HC401",
            "find_package(CUDA) is the legacy FindCUDA module: its "
            "cuda_add_* commands and CUDA_* variables are not mapped",
            "CUDA",
        )


def _mark_hip_sources(command: Command, text: str, out: BuildFileEdits) -> None:
    """CMake compiles .cu files as CUDA: a command listing some is followed by LANGUAGE HIP for them."""
    sources = [a.value for a in command.args[1:] if a.value.endswith(".cu")]
    insertion = f"set_source_files_properties({' '.join(sources)} PROPERTIES LANGUAGE HIP)"
    if sources and insertion not in text:
        out.rewrite(command.end, command.end, f"\n{command.indent}{insertion}", "source-language")
        out.report(
            command.start,
            "HC405",
            f"{', '.join(sources)}: marked LANGUAGE HIP (CMake compiles .cu files as CUDA otherwise)",
            sources[0],
        )


def _cmake_arg(arg: Arg, archs: tuple[str, ...], out: BuildFileEdits, *, flags: bool) -> None:
    """Names inside one argument: CMAKE_CUDA_*, CUDA:: targets, generator expressions, compile features;
    with `flags`, the nvcc flags in it too."""
    if arg.kind == "bracket":
        return
    new = arg.value
    if flags:
        new, notes = flag_text(new, archs)
        out.notes(arg.start, notes)
    genex = _CUDA_GENEX.fullmatch(new)
    if genex:
        mapped, notes = flag_text(genex.group(2), archs)
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
        out.report(
            arg.start, "HC401", f"{m.group(0)} comes from the CUDA toolkit's CMake modules; left unchanged", m.group(0)
        )
    out.rewrite(arg.start, arg.end, f'"{new}"' if arg.kind == "quoted" else new, "name")


def _cmake_variable_values(command: Command, archs: tuple[str, ...], out: BuildFileEdits) -> tuple[Arg, ...]:
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
    values = values[: next((n for n, a in enumerate(values) if a.value in ("CACHE", "PARENT_SCOPE")), len(values))]
    if variable == "CMAKE_CUDA_ARCHITECTURES" and name == "set":
        _arch_values(values, archs, out)
    return tuple(values) if variable.startswith("CMAKE_CUDA_FLAGS") else ()


def _arch_values(values: Sequence[Arg], archs: tuple[str, ...], out: BuildFileEdits) -> None:
    if not values:
        return
    written = " ".join(v.value for v in values)
    if not _CUDA_ARCH_VALUE.fullmatch(written):
        out.report(
            values[0].start,
            "HC401",
            f"CUDA architectures {written!r} are not a literal list; "
            f"set them to AMD targets (such as {';'.join(archs)}) by hand",
            written,
        )
        return
    new = ";".join(archs)
    out.rewrite(values[0].start, values[-1].end, f'"{new}"' if values[0].kind == "quoted" else new, "architectures")
    out.report(values[0].start, "HC404", f"CUDA architectures {written} replaced by the AMD targets {new}", written)


def _cmake_properties(command: Command, archs: tuple[str, ...], out: BuildFileEdits, text: str) -> None:
    """Property names and values: CUDA_* target properties, LANGUAGE CUDA, CUDA_SEPARABLE_COMPILATION."""
    args = command.args
    for n, arg in enumerate(args):
        following = args[n + 1] if n + 1 < len(args) else None
        if arg.text in _HIP_PROPERTY:
            out.rewrite(arg.start, arg.end, _HIP_PROPERTY[arg.text], "property")
            if arg.text == "CUDA_ARCHITECTURES" and following is not None:
                values = [following]
                if command.name.lower() == "set_property":
                    values = list(args[n + 1 :])
                _arch_values(values, archs, out)
        elif arg.text in _NO_HIP_PROPERTY:
            out.report(
                arg.start, "HC401", f"target property {arg.text} has no HIP counterpart; left unchanged", arg.text
            )
        elif arg.text in ("LANGUAGE", "LINKER_LANGUAGE") and following is not None and following.value == "CUDA":
            out.rewrite(following.start, following.end, "HIP", "language")
        elif arg.text == "CUDA_SEPARABLE_COMPILATION" and following is not None and following.value.upper() in _TRUE:
            name = command.name.lower()
            if name == "set_target_properties":
                targets = [a.value for a in args[: next(i for i, a in enumerate(args) if a.text == "PROPERTIES")]]
            elif name == "set_property" and args and args[0].text == "TARGET":
                stop = next((i for i, a in enumerate(args) if a.text in ("PROPERTY", "APPEND", "APPEND_STRING")), 1)
                targets = [a.value for a in args[1:stop]]
            else:
                targets = []
            lines = [
                line
                for target in targets
                for line in (
                    f"target_compile_options({target} PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)",
                    f'target_link_options({target} PUBLIC "$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>")',
                )
            ]
            new = [line for line in lines if line not in text]
            if new:
                out.rewrite(command.end, command.end, "".join(f"\n{command.indent}{line}" for line in new), "rdc")
                out.report(
                    arg.start,
                    "HC405",
                    f"CUDA_SEPARABLE_COMPILATION: relocatable device code is -fgpu-rdc "
                    f"(and --hip-link to link it) for HIP, added as compile and link options of {', '.join(targets)}",
                    arg.text,
                )
            elif not targets:
                out.report(
                    arg.start,
                    "HC401",
                    "CUDA_SEPARABLE_COMPILATION: add -fgpu-rdc to the compile and link "
                    "options of the targets concerned",
                    arg.text,
                )
