"""Flags read from an untrusted tree never load code (HC407).

`hipconv build` reads a tree's Makefiles, CMake files or compilation database and passes their flags to hipcc.
A flag that makes the compiler, or a program it runs, load or run a file of the tree's choosing is dropped
before hipcc sees it, with a warning naming it and, where found, the build file line that wrote it:

- compiler plugins: `-fplugin=`, `-fplugin-arg-*`, `-fpass-plugin=`, and clang's own through `-Xclang`:
  `-load`, `-plugin`, `-add-plugin`, `-plugin-arg-*`, `-fpass-plugin=`;
- where the driver finds the programs it runs (cc1, the assembler, the linker) or a GCC installation whose
  programs it runs: `-B`, `--prefix`, `--gcc-toolchain`, `--gcc-install-dir`, `-ccc-install-dir`, and
  `--sysroot` (clang looks for the GCC installation, and so its `as` and `ld`, inside the sysroot);
- what the linker runs or loads: `-fuse-ld=` or `--ld-path=` naming a path, the linker's `-plugin` and
  `--load-pass-plugin` (through `-Wl,` or `-Xlinker`);
- files that hold more flags, unseen here: `@FILE` response files, `--config`, GCC's `-specs` (which can run
  any command).

Kept: what only changes what the compiler reads (`-I`, `-include`, `-isysroot`) or what a program does when
it runs (`-Wl,-rpath`): no code of the tree runs while building. Flags the user gives (`--hipcc-arg`) are
trusted and never filtered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from hipconv.buildfiles.nvcc_flags import FlagNote
from hipconv.diagnostics import UNTRUSTED_FLAG_DROPPED
from hipconv.file_kinds import FileKind, file_kind
from hipconv.text_lines import text_lines

# what each kind of flag loads, by the channel it is given on: the driver (plain words, `-Xarch_*`), clang's
# front end (`-Xclang`), the linker (`-Wl,`, `-Xlinker`)
_DRIVER_JOINED = {
    "-fplugin=": "a compiler plugin",
    "-fplugin-arg-": "a compiler plugin's argument",
    "-fpass-plugin=": "an LLVM pass plugin",
    "--prefix=": "where the driver finds the programs it runs",
    "--gcc-toolchain=": "a GCC installation, whose programs the driver runs",
    "-gcc-toolchain=": "a GCC installation, whose programs the driver runs",
    "--gcc-install-dir=": "a GCC installation, whose programs the driver runs",
    "--sysroot=": "a system root, where the driver finds a GCC installation and its programs",
    "-specs=": "a GCC spec file, which can run any command",
    "--specs=": "a GCC spec file, which can run any command",
    "--config=": "a clang configuration file of more flags",
    "--ld-path=": "the linker program",
}
_DRIVER_SEPARATE = {
    "-B": "where the driver finds the programs it runs",
    "--prefix": "where the driver finds the programs it runs",
    "-gcc-toolchain": "a GCC installation, whose programs the driver runs",
    "--gcc-toolchain": "a GCC installation, whose programs the driver runs",
    "-ccc-install-dir": "where the driver finds the programs it runs",
    "--sysroot": "a system root, where the driver finds a GCC installation and its programs",
    "-specs": "a GCC spec file, which can run any command",
    "--specs": "a GCC spec file, which can run any command",
    "--config": "a clang configuration file of more flags",
}
_CC1_JOINED = {
    "-fpass-plugin=": "an LLVM pass plugin",
    "-plugin-arg-": "a compiler plugin's argument",
    "-load=": "a compiler plugin",
}
_CC1_SEPARATE = {
    "-load": "a compiler plugin",
    "-plugin": "a compiler plugin",
    "-add-plugin": "a compiler plugin",
}
_LINKER_JOINED = {
    "-plugin=": "a linker plugin",
    "--plugin=": "a linker plugin",
    "--load-pass-plugin=": "an LLVM pass plugin of the linker",
    "-load-pass-plugin=": "an LLVM pass plugin of the linker",
}
_LINKER_SEPARATE = {
    "-plugin": "a linker plugin",
    "--plugin": "a linker plugin",
    "--load-pass-plugin": "an LLVM pass plugin of the linker",
}
_WRAPPERS = {"-Xclang": "cc1", "-Xlinker": "linker", "-Xoffload-linker": "linker", "-Xarch_host": "driver"}
_CHANNELS = {
    "driver": (_DRIVER_JOINED, _DRIVER_SEPARATE),
    "cc1": (_CC1_JOINED, _CC1_SEPARATE),
    "linker": (_LINKER_JOINED, _LINKER_SEPARATE),
}


class _Piece(NamedTuple):
    """One argument as the program it is meant for sees it, and the words of the command that carry it."""

    channel: str  # driver | cc1 | linker
    text: str
    words: tuple[int, ...]  # their indices: a wrapper and its value, or one word


def _pieces(words: Sequence[str]) -> list[_Piece]:
    pieces: list[_Piece] = []
    i = 0
    while i < len(words):
        word = words[i]
        channel = _WRAPPERS.get(word) or ("driver" if word.startswith("-Xarch_") else None)
        if channel is not None and i + 1 < len(words):
            pieces.append(_Piece(channel, words[i + 1], (i, i + 1)))
            i += 2
            continue
        if word.startswith("-Xclang="):
            pieces.append(_Piece("cc1", word[len("-Xclang=") :], (i,)))
        elif word.startswith("-Wl,"):
            pieces += [_Piece("linker", part, (i,)) for part in word[4:].split(",")]
        else:
            pieces.append(_Piece("driver", word, (i,)))
        i += 1
    return pieces


def _loads(piece: _Piece) -> tuple[str, bool] | None:
    """(what the piece loads, whether its value is the next piece of its channel), or None."""
    joined, separate = _CHANNELS[piece.channel]
    text = piece.text
    if text in separate:
        return separate[text], True
    for prefix, what in joined.items():
        if text.startswith(prefix):
            return what, False
    if piece.channel == "driver":
        if text.startswith("-B"):
            return _DRIVER_SEPARATE["-B"], False
        if text.startswith("@") and len(text) > 1:
            return "a response file of more flags", False
        if text.startswith("-fuse-ld=") and "/" in text:
            return "the linker program", False
    return None


class Dropped(NamedTuple):
    words: tuple[str, ...]  # the flag as written (with its value)
    what: str  # what it would load


def drop_loading_flags(words: Sequence[str]) -> tuple[list[str], list[Dropped]]:
    """The words less every flag that loads code (see the module's docstring), with its value (`-B DIR`,
    `-Xclang -load -Xclang X.so`); and what was dropped, in order. A `-Wl,` word with such an item is dropped
    whole."""
    pieces = _pieces(words)
    dropped: set[int] = set()
    found: list[Dropped] = []
    for n, piece in enumerate(pieces):
        loads = None if dropped.intersection(piece.words) else _loads(piece)
        if loads is None:
            continue
        what, takes_value = loads
        group = set(piece.words)
        value = next((p for p in pieces[n + 1 :] if p.channel == piece.channel), None) if takes_value else None
        if value is not None and (piece.channel != "driver" or value.words[0] == piece.words[-1] + 1):
            group.update(value.words)
        dropped |= group
        found.append(Dropped(tuple(words[i] for i in sorted(group)), what))
    return [w for i, w in enumerate(words) if i not in dropped], found


def build_files(rels: Iterable[str]) -> list[str]:
    """The Makefiles and CMake files among a tree's files (relative paths): where its flags are written."""
    return sorted(r for r in rels if file_kind(r) in (FileKind.MAKE, FileKind.CMAKE))


def where_written(flag: Sequence[str], root: Path, files: Sequence[str]) -> str:
    """`FILE:LINE` of the first line of the build files that holds the flag's first word (or, for a value
    made of variables, its option's name): "" when none does."""
    first = flag[0]
    needles = [first] + ([first.split("=", 1)[0] + "="] if "=" in first else [])
    for needle in needles:
        for rel in files:
            try:
                lines = text_lines((root / rel).read_bytes().decode("utf-8", "replace"))
            except OSError:
                continue
            for number, line in enumerate(lines, 1):
                if needle in line:
                    return f"{rel}:{number}"
    return ""


def untrusted_notes(dropped: Sequence[Dropped], root: Path, files: Sequence[str], origin: str = "") -> list[FlagNote]:
    """One HC407 note per dropped flag, naming it and where it was written (`origin`, else found in `files`)."""
    notes = []
    for drop in dropped:
        flag = " ".join(drop.words)
        where = origin or where_written(drop.words, root, files)
        source = f" (from {where})" if where else ""
        message = (
            f"{flag}{source} dropped: it would load {drop.what}, and flags read from the tree never load code; "
            "if you trust it, pass it with --hipcc-arg"
        )
        notes.append(FlagNote(flag, UNTRUSTED_FLAG_DROPPED, message))
    return notes
