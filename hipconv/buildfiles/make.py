"""Makefiles (Makefile, *.mk) -> their HIP versions: read line by line, words split outside $(...).

nvcc becomes hipcc and the flags on nvcc's command lines are mapped; what cannot be mapped
is left as it is, with HC401/HC402.
"""

from __future__ import annotations

import re

from hipconv.buildfiles.common import MAKE_REFERENCE, BuildFileEdits
from hipconv.buildfiles.nvcc_flags import map_flags, map_library

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


def translate_make(body: bytes, archs: tuple[str, ...], out: BuildFileEdits) -> None:
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
        first_flag = 0 if continued_nvcc else _nvcc_variable_value(code, words, line_start, recipe=recipe)
        first_flag = _rewrite_nvcc(words, first_flag, out)
        _report_cuda_paths(words, out)
        if first_flag is not None and first_flag < len(words):
            _make_flags(words[first_flag:], archs, out)
        else:
            _map_libraries(words, out)
        continued_nvcc = first_flag is not None and code.rstrip().endswith("\\")


def _nvcc_variable_value(code: str, words: list[tuple[str, int]], line_start: int, *, recipe: bool) -> int | None:
    """`NVCCFLAGS = ...` (a variable of nvcc's): the index of the first word of its value."""
    assignment = None if recipe else _ASSIGNMENT.match(code)
    if assignment is None or not _NVCC_VARIABLE.search(assignment.group(1)):
        return None
    return next((n for n, (_, pos) in enumerate(words) if pos - line_start >= assignment.end()), len(words))


def _rewrite_nvcc(words: list[tuple[str, int]], first_flag: int | None, out: BuildFileEdits) -> int | None:
    """nvcc -> hipcc; the index of the first word of its arguments (or first_flag, when already known)."""
    for n, (word, pos) in enumerate(words):
        if _NVCC_WORD.fullmatch(word):
            prefix = word[: len(word) - len(word.lstrip("@+-"))]
            out.rewrite(pos, pos + len(word.encode("utf-8")), prefix + "hipcc", "compiler")
            first_flag = n + 1 if first_flag is None else first_flag
        elif _NVCC_REFERENCE.fullmatch(word) and first_flag is None:
            first_flag = n + 1
    return first_flag


def _report_cuda_paths(words: list[tuple[str, int]], out: BuildFileEdits) -> None:
    for word, pos in words:
        if _CUDA_PATH.search(word) and not _NVCC_WORD.fullmatch(word):
            out.report(pos, "HC401", f"{word}: a CUDA toolkit path; point it at ROCm (such as /opt/rocm) by hand", word)
        elif word.startswith("$") and _NVCC_FLAG_TEXT.search(word):
            out.report(pos, "HC401", f"nvcc flags assembled by a make function are not mapped: {word}", word)


def _map_libraries(words: list[tuple[str, int]], out: BuildFileEdits) -> None:
    """-lcublas -> -lhipblas on lines that are not nvcc's."""
    for word, pos in words:
        if word.startswith("-l") and len(word) > 2 and "$" not in word:
            mapped, note = map_library(word[2:])
            out.rewrite(pos, pos + len(word.encode("utf-8")), mapped[0], "library")
            if note:
                out.notes(pos, [note])


def _make_flags(words: list[tuple[str, int]], archs: tuple[str, ...], out: BuildFileEdits) -> None:
    """Map the nvcc arguments of one line; the changed stretch is rewritten as a whole."""
    if words[-1][0] == "\\":
        words = words[:-1]
    if not words:
        return
    texts = [w for w, _ in words]
    start, end = words[0][1], words[-1][1] + len(texts[-1].encode("utf-8"))
    mapped = map_flags(texts, archs, keep_unknown=True, passthrough=MAKE_REFERENCE)
    out.notes(start, mapped.notes)
    if list(mapped.words) != texts:
        out.rewrite(start, end, " ".join(mapped.words), "flags")
