"""The compile flags a translated Makefile gives each translation unit: what `make -n` would run.

`hipconv build` without `-p` asks GNU make for the commands of every Makefile in the HIP tree
(`make -n -B -k -w`: print, never run, every target of the default goal, recursive makes followed
through "Entering directory") and keeps, for each source file compiled there, the flags that shape
its compilation: include directories, defines, -std, -f/-m options, warnings. Linker flags,
outputs and other files are left out. Make evaluates `$(shell ...)` while it reads the Makefile,
as it would in the user's own build.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

MAKEFILE_NAMES = ("GNUmakefile", "makefile", "Makefile")
_DIRECTORY = re.compile(r"^\S*make(?:\[\d+\])?: (Entering|Leaving) directory [`'‘](.*)['’]$")
# the flags that shape a TU's compilation (-DX=1, -std, -f/-m options, warnings, optimization, debug info);
# anything else on the line (linker flags such as -export-dynamic, which clang refuses) is left out
_COMPILE_FLAG = re.compile(
    r"-[DU].+|--?std=.*|-f.*|-m.*|-W(?!l,|a,|p,).*|-O.*|-g.*|-pthread|-pedantic|-w|--offload-arch=.*"
)
_WITH_VALUE = frozenset({"-o", "-MF", "-MT", "-MQ", "-Xlinker"})
_PATH_VALUE = frozenset({"-I", "-isystem", "-iquote", "-idirafter", "-include", "-x", "-D", "-U"})
DRY_RUN_SECONDS = 60


def makefile_flags(
    out_root: Path, files: Iterable[str], tu_suffixes: Iterable[str], environ: Mapping[str, str] | None = None
) -> dict[str, list[str]]:
    """Flags per translation unit (relative to out_root) from the Makefiles among `files`; the first command wins."""
    make = shutil.which("make", path=(environ or os.environ).get("PATH"))
    suffixes = frozenset(tu_suffixes)
    directories = sorted({str(Path(rel).parent) for rel in files if Path(rel).name in MAKEFILE_NAMES})
    found: dict[str, list[str]] = {}
    if make is None:
        return found
    for rel_dir in directories:
        directory = (out_root / rel_dir).resolve()
        for cwd, words in _dry_run(make, directory, environ):
            for source, flags in compile_flags(words, cwd, suffixes):
                rel = os.path.relpath(source, out_root)
                if not rel.startswith("..") and rel not in found:
                    found[rel] = flags
    return found


def _dry_run(make: str, directory: Path, environ: Mapping[str, str] | None) -> list[tuple[Path, list[str]]]:
    """The commands `make -n` prints in `directory`, each with the directory it runs in."""
    try:
        done = subprocess.run(
            [make, "-n", "-B", "-k", "-w"],
            cwd=directory,
            env=dict(environ) if environ is not None else None,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=DRY_RUN_SECONDS,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    stack = [directory]
    commands: list[tuple[Path, list[str]]] = []
    for line in done.stdout.splitlines():
        moved = _DIRECTORY.match(line.strip())
        if moved:
            if moved.group(1) == "Entering":
                stack.append(Path(moved.group(2)))
            elif len(stack) > 1:
                stack.pop()
            continue
        for command in re.split(r"\s*(?:&&|;)\s*", line):
            try:
                words = shlex.split(command)
            except ValueError:
                continue
            if words and words[0] == "cd" and len(words) > 1:  # `cd sub && hipcc ...`
                stack[-1] = stack[-1] / words[1]
            elif words:
                commands.append((stack[-1], words))
    return commands


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
