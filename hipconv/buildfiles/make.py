"""Makefiles (Makefile, *.mk) -> their HIP versions: read line by line, words split outside $(...).

A first pass finds the variables that hold nvcc (`CC = nvcc`, `NVCC := $(CUDA_PATH)/bin/nvcc`,
`NVCC := $(shell which nvcc)`) and the variables whose values reach nvcc's command lines (a
`$(VAR)` after the compiler on a recipe or in a variable, followed through nested references and
every assignment: `=`, `:=`, `+=`, `?=`). The second pass rewrites: nvcc becomes hipcc, and the
flags on nvcc's command lines and in those variables are mapped; what cannot be mapped is left as
it is, with HC401/HC402.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from hipconv.buildfiles.common import BuildFileEdits, flag_edits
from hipconv.buildfiles.nvcc_flags import NVCC_FLAGS_VARIABLE, WARP_SYNC_DEFINE, map_library, nvcc_only
from hipconv.diagnostics import BUILD_COMMANDS_ADDED, BUILD_CONSTRUCT_UNMAPPED

_ASSIGNMENT = re.compile(r"\s*(?:(?:export|override)\s+)*([A-Za-z_][\w.]*)\s*(?::::=|::=|:=|\+=|\?=|!=|=)")
_NVCC_WORD = re.compile(r"([@+-]*)((?:\S*/)?)nvcc")
_NVCC_NAME = re.compile(r"\w*NVCC")  # $(NVCC), $(MY_NVCC): nvcc also where the variable is set elsewhere
# nvcc looked up by $(shell ...): `which nvcc 2>/dev/null`, `command -v nvcc || echo ...`, `type -P nvcc`,
# `whereis -b nvcc | cut ...`; the looked-up name is group 1
_SHELL_NVCC = re.compile(r"\$[({]shell\s+(?:which|command\s+-v|type\s+-[pP]|whereis(?:\s+-b)?)\s+(nvcc)(?=[\s)};|&>])")
_SHELL_NVCC_WORD = re.compile(r"(?<![\w./$-])nvcc(?![\w./-])")
_COMPILER_REFERENCE = re.compile(r"[@+-]*\$[({]([A-Za-z_][\w.]*)[)}]")
_REFERENCE = re.compile(r"\$[({]([A-Za-z_][\w.]*)[)}]")
_CONDITIONAL = re.compile(r"\s*(?:ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_MAKE_COMMENT = re.compile(r"(?<!\\)#")  # make's comment (outside recipes)
_SHELL_COMMENT = re.compile(r"(?<=\s)#")  # the shell's (in a recipe, after a blank)
_CUDA_PATH = re.compile(r"CUDA_(?:PATH|HOME|ROOT|DIR|TOOLKIT\w*)|/usr/local/cuda|/opt/cuda")
_NVCC_FLAG_TEXT = re.compile(r"-gencode|-arch\b|--expt-|-rdc\b|--use_fast_math")
ROCM_PATH_DEFAULT = "/opt/rocm"
HIPCC_PATH = "$(ROCM_PATH)/bin/hipcc"


_REFERENCE_EDGE = re.compile(r"\$[({]|[)}]")  # a reference's start or end


def make_words(line: str) -> list[tuple[str, int]]:
    """Whitespace-separated words of a Makefile line with their offsets; $(...) and ${...} are never split."""
    words = _with_offsets(line, line.split())
    if not _has_reference(line):  # plain words
        return words
    joined: list[tuple[str, int]] = []
    depth = 0  # references open before the blank after the word
    for word, at in words:
        if depth:  # the blank before this word is inside a reference: one word with the one before
            start = joined[-1][1]
            joined[-1] = (line[start : at + len(word)], start)
        else:
            joined.append((word, at))
        if "$" in word or ")" in word or "}" in word:
            for edge in _REFERENCE_EDGE.findall(word):
                depth = depth + 1 if edge[0] == "$" else depth - (depth > 0)
    if depth:  # a reference never closed runs to the line's end, its trailing blanks too
        start = joined[-1][1]
        joined[-1] = (line[start:], start)
    return joined


def _has_reference(line: str) -> bool:
    return "$(" in line or "${" in line


def _word_texts(line: str) -> list[str]:
    """make_words without the offsets (most lines need none): str.split() where no reference joins words."""
    return [word for word, _ in make_words(line)] if _has_reference(line) else line.split()


def _with_offsets(line: str, words: list[str], base: int = 0) -> list[tuple[str, int]]:
    """The words of `line` (make_words' or a prefix of each) with their offsets plus `base`: each is found after
    the one before, only blanks lie between."""
    found: list[tuple[str, int]] = []
    at = 0
    for word in words:
        at = line.find(word, at)
        found.append((word, base + at))
        at += len(word)
    return found


class _Line(NamedTuple):
    """One physical line of a Makefile (a tuple: one is made for each line, faster than a dataclass)."""

    start: int  # byte offset in the file
    code: str  # the line less its comment and line end
    recipe: bool  # a command of a rule (a tab line in a rule's context), also its continuation lines
    first: bool  # the first physical line of a logical line (not a continuation)
    variable: str | None  # the variable the line's logical line assigns
    value_at: int  # where the value starts in `code` (first lines of assignments)
    continues: bool  # ends with a backslash
    words: list[str]  # make_words of `code` less a continuation's backslash, without their offsets


def _read_lines(body: bytes) -> list[_Line]:
    """Physical lines with what make sees in them: recipes only in a rule's context, assignments elsewhere."""
    lines: list[_Line] = []
    offset, in_rule, previous, in_comment = 0, False, None, False
    for raw in body.splitlines(keepends=True):
        text = raw.decode("utf-8").rstrip("\r\n")
        if in_comment and previous is not None:  # make reads a comment's line splice as part of the comment
            in_comment = _spliced(text)
            previous = previous._replace(start=offset, code="", first=False, value_at=0, words=[])
            lines.append(previous)
            offset += len(raw)
            continue
        if previous is not None and previous.continues:  # a continuation: the logical line's kind
            recipe, variable, value_at = previous.recipe, previous.variable, 0
        else:
            recipe = text.startswith("\t") and in_rule
            variable, value_at = None, 0
        code = (_SHELL_COMMENT if recipe else _MAKE_COMMENT).split(text, maxsplit=1)[0] if "#" in text else text
        continues = code.rstrip().endswith("\\")
        in_comment = not recipe and code != text and _spliced(text)
        words = _line_words(code, continues)
        first = previous is None or not previous.continues
        if first and not recipe:
            assignment = _ASSIGNMENT.match(code)
            if assignment is not None:
                variable, value_at = assignment.group(1), assignment.end()
                in_rule = False
            elif code.strip() and not _CONDITIONAL.match(code):  # a rule: a colon outside the references
                in_rule = ":" in code and any(":" in word for word in words if not word.startswith("$"))
        line = _Line(offset, code, recipe, first, variable, value_at, continues, words)
        lines.append(line)
        previous = line
        offset += len(raw)
    return lines


def statement_spans(body: bytes) -> list[tuple[int, int, str, bool]]:
    """Each logical line of a Makefile: its start and end (its last continuation line's, less the line end),
    its first line's code (less its comment), and whether it is a recipe's (what backends.py splits)."""
    spans: list[tuple[int, int, str, bool]] = []
    for line in _read_lines(body):
        end = line.start + len(body[line.start :].split(b"\n", 1)[0].rstrip(b"\r"))
        if line.first or not spans:
            spans.append((line.start, end, line.code, line.recipe))
        else:
            spans[-1] = (spans[-1][0], end, spans[-1][2], spans[-1][3])
    return spans


def _spliced(text: str) -> bool:
    """The line ends in a line splice (an odd number of backslashes)."""
    return (len(text) - len(text.rstrip("\\"))) % 2 == 1


def _line_words(code: str, continues: bool) -> list[str]:
    """The words of a line; a continuation is a word of its own, or glued to the last word (-arch=sm_70\\)."""
    words = _word_texts(code)
    if continues:
        words[-1] = words[-1][:-1]
        if not words[-1]:
            words.pop()
    return words


def _logical(lines: list[_Line]) -> Iterable[tuple[_Line, list[str]]]:
    """Each logical line (its first physical line) and the words of its value or command, continuations joined."""
    current: tuple[_Line, list[str]] | None = None
    for line in lines:
        if line.value_at:  # an assignment's first line: the words of its value
            words = _line_words(line.code[line.value_at :], line.continues)
        else:
            words = list(line.words)  # a copy: continuation lines' words are added to it
        if line.first:
            if current is not None:
                yield current
            current = (line, words)
        elif current is not None:
            current[1].extend(words)
    if current is not None:
        yield current


def _is_nvcc(word: str, compilers: set[str]) -> bool:
    """Is this word nvcc: the program, its path, `$(shell which nvcc)`, or a variable that holds it."""
    if "nvcc" in word and (_NVCC_WORD.fullmatch(word) or _is_shell_nvcc(word.lstrip("@+-"))):
        return True
    if "$" not in word:  # not a reference either (the common word)
        return False
    reference = _COMPILER_REFERENCE.fullmatch(word)
    return reference is not None and (reference.group(1) in compilers or bool(_NVCC_NAME.fullmatch(reference.group(1))))


def _compiler_at(words: list[str], compilers: set[str]) -> int | None:
    """Where nvcc is among the words of a logical line (the first word that is), or None."""
    if not _may_hold_nvcc(" ".join(words), compilers):  # most lines
        return None
    return next((n for n, word in enumerate(words) if _is_nvcc(word, compilers)), None)


def _may_hold_nvcc(text: str, compilers: set[str]) -> bool:
    """Can a word in `text` be nvcc (_is_nvcc) or look it up? Only with nvcc in it, or a reference to a variable
    named like nvcc or holding it: a line without these is skipped without looking at its words."""
    return "nvcc" in text or "NVCC" in text or any(map(text.__contains__, compilers))


def _is_shell_nvcc(word: str) -> bool:
    """Is the word one $(shell ...) that looks nvcc up (and prints its path, or nothing)?"""
    if not _SHELL_NVCC.match(word):
        return False
    depth = 0
    for n, c in enumerate(word[1:], 1):
        depth += (c in "({") - (c in ")}")
        if depth == 0:
            return n == len(word) - 1
    return False


def _nvcc_variables(lines: list[_Line]) -> tuple[set[str], set[str]]:
    """The variables that hold nvcc, and those whose values reach nvcc's command lines."""
    logical = list(_logical(lines))
    values: dict[str, list[list[str]]] = {}
    for line, words in logical:
        if line.variable is not None:
            values.setdefault(line.variable, []).append(words)
    compilers: set[str] = set()
    changed = True
    while changed:  # CC = $(NVCC) holds nvcc as well
        changed = False
        for name, assigned in values.items():
            if name not in compilers and any(words and _is_nvcc(words[0], compilers) for words in assigned):
                compilers.add(name)
                changed = True
    # named like nvcc's flags, or holding a flag only nvcc takes (also in a fragment such as common.mk)
    flags = {
        name
        for name, assigned in values.items()
        if name not in compilers
        and (NVCC_FLAGS_VARIABLE.search(name) or any(nvcc_only(word) for words in assigned for word in words))
    }
    pending = []
    for _, words in logical:
        at = _compiler_at(words, compilers)
        if at is not None:
            pending += [ref for word in words[at + 1 :] for ref in _REFERENCE.findall(word)]
    pending += list(flags)
    while pending:  # follow the references inside the values of the variables found
        name = pending.pop()
        if name in compilers:
            continue
        flags.add(name)
        for words in values.get(name, ()):
            pending += [ref for word in words for ref in _REFERENCE.findall(word) if ref not in flags]
    return compilers, flags


def translate_make(body: bytes, archs: tuple[str, ...], out: BuildFileEdits) -> None:
    lines = _read_lines(body)
    compilers, flag_variables = _nvcc_variables(lines)
    continued_nvcc = False
    flags: list[tuple[str, int]] = []  # nvcc's words of the logical line so far: mapped together at its end
    rocm_path_at: int | None = None  # where ROCM_PATH's default goes, once nvcc's path is rewritten
    logical_start = 0  # where the logical line starts (its first physical line)
    for line in lines:
        logical_start = line.start if line.first else logical_start
        first_flag: int | None = None
        flag_line = line.variable in flag_variables if line.first else continued_nvcc
        if flag_line or not _quiet(line.code):
            words = _byte_words(line)
            if flag_line and line.first:
                value_start = line.start + len(line.code[: line.value_at].encode("utf-8"))
                first_flag = next((n for n, (_, pos) in enumerate(words) if pos >= value_start), len(words))
            elif flag_line:
                first_flag = 0
            compiler, path_rewritten = _rewrite_nvcc(line.code, words, compilers, out)
            if compiler is not None:
                first_flag = compiler + 1 if first_flag is None else max(first_flag, compiler + 1)
            if path_rewritten and rocm_path_at is None:
                rocm_path_at = 0 if line.recipe else logical_start
            _report_cuda_paths(line.code, words, compilers, out)
            if first_flag is not None:
                flags += words[first_flag:]
            else:
                _map_libraries(line.code, words, out)
        continued_nvcc = first_flag is not None and line.continues
        if flags and not continued_nvcc:
            _make_flags(flags, archs, out)
            flags = []
    _make_flags(flags, archs, out)
    if rocm_path_at is not None and not any(line.variable == "ROCM_PATH" for line in lines):
        out.rewrite(rocm_path_at, rocm_path_at, f"ROCM_PATH ?= {ROCM_PATH_DEFAULT}\n", "rocm-path")


def _quiet(code: str) -> bool:
    """A line outside nvcc's flags that no step acts on: no nvcc, no reference, no -l, no CUDA path."""
    return "$" not in code and "nvcc" not in code and "-l" not in code and not _CUDA_PATH.search(code)


def _byte_words(line: _Line) -> list[tuple[str, int]]:
    """The line's words with their byte offsets in the file (build files are almost always ASCII; be exact)."""
    if line.code.isascii():
        return _with_offsets(line.code, line.words, line.start)
    return [(w, line.start + len(line.code[:pos].encode("utf-8"))) for w, pos in _with_offsets(line.code, line.words)]


def _rewrite_nvcc(
    code: str, words: list[tuple[str, int]], compilers: set[str], out: BuildFileEdits
) -> tuple[int | None, bool]:
    """nvcc -> hipcc in the words of a line (`code`): the index of the (first) compiler word, and whether a path
    to nvcc was rewritten."""
    found, path_rewritten = None, False
    if not _may_hold_nvcc(code, compilers):  # the common line
        return found, path_rewritten
    for n, (word, pos) in enumerate(words):
        if not _is_nvcc(word, compilers):  # a lookup inside a condition or a path: ifneq ($(shell which nvcc),)
            _rewrite_shell_nvcc(word, pos, out)
            continue
        found = n if found is None else found
        end = pos + len(word.encode("utf-8"))
        program = _NVCC_WORD.fullmatch(word)
        if program is not None and program.group(2):  # $(CUDA_PATH)/bin/nvcc: the ROCm installation's hipcc
            new = program.group(1) + HIPCC_PATH
            out.rewrite(pos, end, new, "compiler")
            out.report(
                pos,
                BUILD_COMMANDS_ADDED,
                f"{word}: replaced by {new}; ROCM_PATH defaults to {ROCM_PATH_DEFAULT} (set it where ROCm is "
                "installed)",
                word,
            )
            path_rewritten = True
        elif program is not None:
            out.rewrite(pos, end, program.group(1) + "hipcc", "compiler")
        if program is not None:
            _define_warp_sync(word, end, out)
        else:
            _rewrite_shell_nvcc(word, pos, out, compiler=True)
    return found, path_rewritten


def _rewrite_shell_nvcc(word: str, pos: int, out: BuildFileEdits, *, compiler: bool = False) -> None:
    """nvcc -> hipcc where a $(shell ...) in the word looks nvcc up (`which nvcc 2>/dev/null`, `command -v`,
    `type -P`, `whereis`), also a fallback `|| echo nvcc`. The compiler's word (`compiler`) also defines
    WARP_SYNC_DEFINE, through $(patsubst) so that a lookup that finds nothing is still empty and
    `ifeq ($(NVCC),)` still takes its fallback."""
    if not _SHELL_NVCC.search(word):
        return
    new = _SHELL_NVCC_WORD.sub("hipcc", word)
    out.report(pos, BUILD_COMMANDS_ADDED, f"{word}: replaced by {new}", word)
    if compiler:
        lead = len(word) - len(word.lstrip("@+-"))
        new = f"{new[:lead]}$(patsubst %,% -D{WARP_SYNC_DEFINE},{new[lead:]})"
        _report_warp_sync(word, pos, out)
    out.rewrite(pos, pos + len(word.encode("utf-8")), new, "compiler")


def _define_warp_sync(word: str, end: int, out: BuildFileEdits) -> None:
    """nvcc's word became hipcc's: every compile it runs defines WARP_SYNC_DEFINE."""
    out.rewrite(end, end, f" -D{WARP_SYNC_DEFINE}", "warp-sync-define")
    _report_warp_sync(word, end, out)


def _report_warp_sync(word: str, at: int, out: BuildFileEdits) -> None:
    out.report(
        at,
        BUILD_COMMANDS_ADDED,
        f"-D{WARP_SYNC_DEFINE} added after {word}: HIP declares the *_sync warp builtins only with it (ROCm 6.2+)",
        WARP_SYNC_DEFINE,
    )


def _report_cuda_paths(code: str, words: list[tuple[str, int]], compilers: set[str], out: BuildFileEdits) -> None:
    """HC401 for the words of a line (`code`) that name a CUDA toolkit path or assemble nvcc flags in a function."""
    # neither is in a word if it is not in the line (the common line)
    cuda_path = _CUDA_PATH.search(code) is not None
    assembled = "$" in code and _NVCC_FLAG_TEXT.search(code) is not None
    if not cuda_path and not assembled:
        return
    for word, pos in words:
        if cuda_path and _CUDA_PATH.search(word) and not _is_nvcc(word, compilers):
            out.report(
                pos,
                BUILD_CONSTRUCT_UNMAPPED,
                f"{word}: a CUDA toolkit path; point it at ROCm (such as /opt/rocm) by hand",
                word,
            )
        elif assembled and word.startswith("$") and _NVCC_FLAG_TEXT.search(word):
            out.report(
                pos, BUILD_CONSTRUCT_UNMAPPED, f"nvcc flags assembled by a make function are not mapped: {word}", word
            )


def _map_libraries(code: str, words: list[tuple[str, int]], out: BuildFileEdits) -> None:
    """-lcublas -> -lhipblas in the words of a line (`code`) that is not nvcc's."""
    if "-l" not in code:
        return
    for word, pos in words:
        if word.startswith("-l") and len(word) > 2 and "$" not in word:
            mapped, note = map_library(word[2:])
            out.rewrite(pos, pos + len(word.encode("utf-8")), mapped[0], "library")
            if note:
                out.notes(pos, [note])


def _make_flags(words: list[tuple[str, int]], archs: tuple[str, ...], out: BuildFileEdits) -> None:
    """Map the nvcc arguments of one logical line (its continuation lines too), each where it is written."""
    if not words:
        return
    edits, notes = flag_edits(out.source.body, words, archs)
    for start, end, new in edits:
        out.rewrite(start, end, new, "flags")
    for at, note in notes:
        out.notes(at, [note])
