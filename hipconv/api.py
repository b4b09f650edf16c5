"""The Python API: `translate_source` (one text in memory) and `translate_tree` (a tree to a directory).

For builds that hipify at build time (a PyTorch extension's setup.py, a build script). Both run the
command line's pipeline, print nothing and return frozen values; they raise only HipconvError
subclasses, for what stops the CLI with exit code 2:

- ConfigError: a bad `rocm_version`, `cuda_release` or `kernel_launch`, a missing `src` or `rules_dirs` entry, an
  output directory inside the input tree, or a non-empty one hipconv did not create or wrote for
  another ROCm release (without `force`);
- RuleSchemaError: an invalid rule file in `rules_dirs`;
- ToolNotFound: libclang's Python bindings cannot be loaded;
- SourceError: the text given to translate_source is not UTF-8, or binary.

No configuration file (`.hipconv.toml`, `[tool.hipconv]`) is read: every option is an argument.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from hipconv.commands.translate import TranslateRequest, translate_paths
from hipconv.config import Config, settings_from
from hipconv.diagnostics import Diagnostic
from hipconv.errors import ConfigError, SourceError
from hipconv.results import FileResult, FileStatus, Replacement
from hipconv.rules import load_ruleset
from hipconv.rules.ranges import header_texts, run_table
from hipconv.translate.compat import compat_header
from hipconv.translate.source import DecodeFailure, SourceFile
from hipconv.translate.translator import translate_sources

__all__ = ["SourceTranslation", "TreeTranslation", "translate_source", "translate_tree"]


@dataclass(frozen=True)
class SourceTranslation:
    """One translated source: the HIP bytes, with what was rewritten and what could not be."""

    path: str  # the name given to translate_source, as diagnostics show it
    data: bytes  # the HIP source; the input's bytes when nothing changed
    changed: bool
    diagnostics: tuple[Diagnostic, ...]
    replacements: tuple[Replacement, ...]
    # hipconv_compat.h holding the shims the HIP source uses (it includes "hipconv_compat.h": write this beside
    # it); None when it uses none
    compat_header: bytes | None = None

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    @property
    def unported(self) -> tuple[Diagnostic, ...]:
        """The diagnostics of CUDA APIs left untranslated (what `--strict` fails on)."""
        return tuple(d for d in self.diagnostics if d.unported)


@dataclass(frozen=True)
class TreeTranslation:
    """What translate_tree wrote: one FileResult per file met, in path order (its output not kept)."""

    output: Path
    files: tuple[FileResult, ...]

    @property
    def counts(self) -> dict[str, int]:
        """Files by status value: converted, unchanged, copied, linked, skipped, failed."""
        counts: dict[str, int] = {}
        for result in self.files:
            counts[result.status.value] = counts.get(result.status.value, 0) + 1
        return counts

    @property
    def failed(self) -> tuple[FileResult, ...]:
        """Files that could not be read, decoded or written (the CLI's exit code 2); `reason` says why."""
        return tuple(r for r in self.files if r.status is FileStatus.FAILED)

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return tuple(d for r in self.files for d in r.diagnostics)

    @property
    def unported(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.unported)


def translate_source(
    source: str | bytes,
    *,
    path: str = "input.cu",
    rocm_version: str | None = None,
    kernel_launch: str = "chevron",
    experimental: bool = False,
    rules_dirs: Iterable[str | os.PathLike[str]] = (),
    compat: bool = True,
    cuda_release: str | None = None,
) -> SourceTranslation:
    """Translate one CUDA source held in memory, as `hipconv translate` translates a file named `path`.

    `compat`: use the shims of hipconv_compat.h where the targeted ROCm lacks a CUDA API (the uses are
    renamed, the file includes "hipconv_compat.h", and `compat_header` holds that header's text).

    `path` names it in diagnostics, and a `.cu` suffix gets the implicit HIP runtime include, as for
    nvcc; the text is translated as C++/CUDA whatever the suffix (build files: use translate_tree).
    """
    data = source.encode("utf-8") if isinstance(source, str) else bytes(source)
    settings = settings_from(
        Config(), rocm_version, kernel_launch, experimental=experimental, no_compat=not compat, cuda=cuda_release
    )
    try:
        decoded = SourceFile.from_bytes(path, data)
    except DecodeFailure as exc:
        raise SourceError(f"{path}: {exc}") from None
    table = run_table(load_ruleset(_paths(rules_dirs)), settings)
    result = translate_sources([decoded], table, settings)[0]
    if result.status is FileStatus.FAILED:  # a bug in hipconv: its traceback is the message's tail
        raise SourceError(f"{path}: {result.reason}\n{result.trace}".rstrip())
    return SourceTranslation(
        path,
        result.output if result.output is not None else data,
        result.output is not None,
        result.diagnostics,
        result.replacements,
        compat_header(result.shims, settings.rocm, header_texts(table, result.shims)) if result.shims else None,
    )


def translate_tree(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    rocm_version: str | None = None,
    kernel_launch: str = "chevron",
    experimental: bool = False,
    jobs: int = 1,
    excludes: Iterable[str] = (),
    respect_gitignore: bool = False,
    rules_dirs: Iterable[str | os.PathLike[str]] = (),
    force: bool = False,
    cuda_release: str | None = None,
) -> TreeTranslation:
    """Translate the tree `src` into the directory `dst`, as `hipconv translate src -o dst` does.

    Sources are translated, build files (CMake, Makefiles) rewritten for hipcc, other files copied;
    only changed files are rewritten, so a second call is cheap. One file that cannot be read or
    decoded does not stop the others: it is in `failed` (copied unchanged when it could be read).
    """
    src_path, dst_path = Path(src), Path(dst)
    if src_path.exists() and not src_path.is_dir():
        raise ConfigError(f"{src_path}: not a directory (translate_tree translates a tree; see translate_source)")
    request = TranslateRequest(
        (src_path,),
        settings_from(Config(), rocm_version, kernel_launch, experimental=experimental, jobs=jobs, cuda=cuda_release),
        output=dst_path,
        excludes=tuple(excludes),
        respect_gitignore=respect_gitignore,
        rules_dirs=_paths(rules_dirs),
        force=force,
        keep_files=True,
    )
    quiet = Console(file=io.StringIO())  # diagnostics travel in the results; nothing is printed
    outcome = translate_paths(request, quiet, io.BytesIO())
    return TreeTranslation(dst_path, tuple(outcome.summary.results))


def _paths(values: Iterable[str | os.PathLike[str]]) -> tuple[Path, ...]:
    return tuple(Path(v) for v in values)
