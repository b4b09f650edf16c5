"""The prefilter (translator.needs_translation) skips lexing a file only where translating it changes nothing:
the same output and diagnostics as with every file lexed, on the fixtures' sources and the shared corpora."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipconv.file_kinds import FileKind, file_kind
from hipconv.rules import load_ruleset
from hipconv.settings import Settings, Version
from hipconv.translate import translator
from hipconv.translate.source import DecodeFailure, SourceFile
from hipconv.translate.words import file_words, may_include

FIXTURES = Path(__file__).parent / "fixtures"
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
CODE = (FileKind.CUDA, FileKind.CPP, FileKind.C, FileKind.HEADER)
PATHS = frozenset({"cuda_runtime.h", "cub/cub.cuh", "hip/hip_runtime.h"})


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"#include <cuda_runtime.h>\n", True),
        (b"#include <cuda_\\\nruntime.h>\n", True),  # a line splice inside the path
        (b"#  include <cub/cub.cuh>\n", True),
        (b"#include <vector>\nint cuda_runtime;\n", False),  # one word of the path's two
        (b'#include <stdio.h>\n#include "util.h"\n', False),
        (b"// cuda_runtime.h, mentioned in a comment\n#include <stdio.h>\n", True),  # words, not lines: safe side
    ],
)
def test_may_include(body: bytes, expected: bool) -> None:
    assert may_include(file_words(body), PATHS) is expected


def test_a_path_with_no_word_lets_every_file_through() -> None:
    assert may_include(frozenset(), frozenset({"<>"}))


def _sources(root: Path) -> list[SourceFile]:
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and file_kind(str(path)) in CODE:
            try:
                found.append(SourceFile.from_bytes(str(path), path.read_bytes()))
            except DecodeFailure:
                continue
    return found


def _same_with_every_file_lexed(sources: list[SourceFile], monkeypatch: pytest.MonkeyPatch) -> None:
    table = load_ruleset().table(Settings(rocm=Version.parse("6.3")))
    settings = Settings(rocm=Version.parse("6.3"))
    filtered = translator.translate_sources(sources, table, settings)
    skipped = sum(not translator.needs_translation(s, file_words(s.body), table, settings) for s in sources)
    monkeypatch.setattr(translator, "needs_translation", lambda *_: True)
    lexed = translator.translate_sources(sources, table, settings)
    for a, b in zip(filtered, lexed):
        assert (a.path, a.output, a.diagnostics) == (b.path, b.output, b.diagnostics)
    assert skipped > 0  # the prefilter did skip files


def test_the_prefilter_changes_no_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    _same_with_every_file_lexed(_sources(FIXTURES), monkeypatch)


@pytest.mark.parametrize("corpus", ["rodinia", "shoc", "polybench-acc", "nvidia-blog"])
def test_the_prefilter_changes_no_corpus_file(corpus: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if not (CORPORA / corpus).is_dir():
        pytest.skip(f"{CORPORA / corpus} is absent (../shared exists on the project's machines and in CI only)")
    _same_with_every_file_lexed(_sources(CORPORA / corpus), monkeypatch)


def test_the_byte_level_directive_reader_reads_directives_as_the_preprocessor_does() -> None:
    """words.line_directives, the fast reader the project facts use: a `#` after blanks and block comments is a
    directive (clang and gcc agree, also for a comment opened at an earlier line's start); after code, or
    after a comment that code precedes, it is not."""
    import re

    from hipconv.translate.words import line_directives

    body = (
        b"int a;\n"
        b"/* note */#elif X\n"
        b"  /* a */ /* b */ # if Y\n"
        b"/* opened here\n   closed here */#endif\n"
        b"int q; /* x\n y */#else\n"
        b"z # w\n"
        b"#define Q\n"
    )
    found = [m.group(1) for m in line_directives(re.compile(rb"[ \t]*#[ \t]*(\w+)"), body)]
    assert found == [b"elif", b"if", b"endif", b"define"]
