"""Lane masks given by name: `#define FULL_MASK 0xffffffff` or `const unsigned mask = 0xffffffffu;`,
passed to a *_sync builtin. lane_masks decides what is done with the value; this module finds the
definition (in the file, or in another file of the run: project_masks), and whether every use of the
name is a lane mask (then the definition itself can be widened, with its type)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from hipconv.rules.model import LookupTable
from hipconv.translate.declarations import QUALIFIERS, declaration_type
from hipconv.translate.lexer import NEWLINE, TokenKind, Tokens, lex_many, unsplice
from hipconv.translate.source import SourceFile
from hipconv.translate.syntax import (
    IntLiteral,
    int_literal,
    is_punct,
    next_code,
    parse_call,
    prev_code,
)
from hipconv.translate.words import WORD_BYTES, file_words, has_spliced_word, identifier_tokens

# Unsigned integer types and their 64-bit counterparts: a variable's type is widened with its value. A
# signed variable is not a mask hipconv reads: 0xffffffff in an int is -1, all 64 lanes once converted.
WIDER_TYPES = {
    "unsigned": "unsigned long long",
    "unsigned int": "unsigned long long",
    "uint32_t": "uint64_t",
    "std::uint32_t": "std::uint64_t",
    "unsigned long long": "unsigned long long",
    "unsigned long long int": "unsigned long long int",
    "uint64_t": "uint64_t",
    "std::uint64_t": "std::uint64_t",
}
_TYPE_WORDS = frozenset({"unsigned", "signed", "int", "long", "short", "uint32_t", "uint64_t", "int32_t", "std", "::"})
# a name as the first argument of `<word>_sync(`; the word before `_sync` is tested apart (mask_arguments):
# a pattern that starts with the literal is searched for it, one that starts with `\w+` tries every byte
_MASK_ARGUMENT = re.compile(rb"_sync\s*\(\s*([A-Za-z_]\w*)\s*,")


class MaskName(NamedTuple):
    name: int  # the token of the name where the file defines it; -1 when another file of the run does
    literal: int  # the token of its value (-1 likewise)
    value: IntLiteral
    type_tokens: tuple[int, int] | None  # first and last token of a variable's type; None for a macro
    mask_only: bool  # every other use of the name (in the run's files) is a lane mask the translation keeps
    where: str  # where it is defined, for messages: "line 3", or "common.cuh:3"

    def wider_type(self, tokens: Tokens) -> str:
        """The 64-bit type a variable's type becomes ("" for a macro, which has none)."""
        return "" if self.type_tokens is None else WIDER_TYPES[_type_text(tokens, self.type_tokens)]


class ProjectMask(NamedTuple):
    """A name one file of the run defines as one integer literal and some file passes as a lane mask."""

    value: str  # the literal as written
    path: str
    line: int
    mask_only: bool  # every use of it in the run's files is a lane mask the translation keeps


def find_mask(
    source: SourceFile, tokens: Tokens, table: LookupTable, project_masks: Mapping[str, ProjectMask], name: str
) -> MaskName | None:
    """The definition of `name` as one integer literal, in the file (source, tokens) or the run (project_masks);
    or None."""
    in_project = project_masks.get(name)
    uses = identifier_tokens(tokens, frozenset({name.encode()}))
    for k in uses:
        found = _definition(tokens, k)
        if found is not None:
            literal, type_tokens = found
            value = int_literal(tokens.text(literal))
            mask_only = all(_is_kept_mask(tokens, table, j) for j in uses if j != k)
            mask_only = mask_only and (in_project is None or in_project.mask_only)
            line = source.line_col(tokens.starts[k])[0]
            return None if value is None else MaskName(k, literal, value, type_tokens, mask_only, f"line {line}")
    value = int_literal(in_project.value) if in_project is not None else None
    if in_project is None or value is None:
        return None
    path = os.path.relpath(in_project.path, os.path.dirname(source.path) or ".")
    return MaskName(-1, -1, value, None, in_project.mask_only, f"{path}:{in_project.line}")


class MaskUses(NamedTuple):
    """What one file tells the run about the lane-mask names some file passes (merge_masks joins them)."""

    definitions: frozenset[tuple[str, str, str, int]]  # (name, literal as written, path, line)
    other_use: frozenset[str]  # names it uses otherwise than as a kept lane mask


NO_USES = MaskUses(frozenset(), frozenset())


def mask_arguments(body: bytes) -> frozenset[bytes]:
    """The names a body passes as the first argument of a *_sync builtin (a lane mask given by name)."""
    if b"_sync" not in body:  # the common case, found without the regular expression
        return frozenset()
    return frozenset(
        m.group(1) for m in _MASK_ARGUMENT.finditer(body) if m.start() and body[m.start() - 1] in WORD_BYTES
    )


def file_mask_uses(sources: Sequence[SourceFile], names: frozenset[bytes], table: LookupTable) -> list[MaskUses]:
    """For each source, its definitions and other uses of `names` (the run's mask_arguments); the
    sources that do not hold one of them as a word are not lexed."""
    if not names:
        return [NO_USES] * len(sources)
    candidates = [
        n
        for n, s in enumerate(sources)
        if (any(name in s.body for name in names) or has_spliced_word(s.body)) and names & file_words(s.body)
    ]
    uses = [NO_USES] * len(sources)
    for n, tokens in zip(candidates, lex_many([sources[n].body for n in candidates])):
        definitions: set[tuple[str, str, str, int]] = set()
        other_use: set[str] = set()
        for k in identifier_tokens(tokens, names):
            name, found = tokens.text(k), _definition(tokens, k)
            if found is not None:
                line = sources[n].line_col(tokens.starts[k])[0]
                definitions.add((name, tokens.text(found[0]), sources[n].path, line))
            elif not _is_kept_mask(tokens, table, k):
                other_use.add(name)
        uses[n] = MaskUses(frozenset(definitions), frozenset(other_use))
    return uses


def merge_masks(uses: Iterable[MaskUses]) -> dict[str, ProjectMask]:
    """The names that files of the run pass as a lane mask and one of them defines as one integer
    literal, with whether every use of each, in all the files, is a kept lane mask. A name defined
    twice with different values is left out (which one a file sees depends on its includes)."""
    definitions: dict[str, set[tuple[str, str, int]]] = {}
    other_use: set[str] = set()
    for found in uses:
        for name, value, path, line in found.definitions:
            definitions.setdefault(name, set()).add((value, path, line))
        other_use |= found.other_use
    unique = {name: min(found) for name, found in definitions.items() if len({v for v, _, _ in found}) == 1}
    return {name: ProjectMask(value, path, line, name not in other_use) for name, (value, path, line) in unique.items()}


def _type_text(tokens: Tokens, span: tuple[int, int]) -> str:
    written = " ".join(tokens.text(k) for k in range(span[0], span[1] + 1) if tokens.kinds[k] != TokenKind.COMMENT)
    return written.replace(" :: ", "::")


def _definition(tokens: Tokens, k: int) -> tuple[int, tuple[int, int] | None] | None:
    """The definition of the name at k as one integer literal: (its literal, a variable's type tokens)."""
    found = _macro(tokens, k) or _constant(tokens, k)
    return found if found is not None and int_literal(tokens.text(found[0])) is not None else None


def _macro(tokens: Tokens, k: int) -> tuple[int, None] | None:
    """`#define NAME literal` (nothing else on the line) with the name at k: (the literal, None)."""
    define = prev_code(tokens, k)
    if define < 1 or tokens.text(define) != "define" or not is_punct(tokens, prev_code(tokens, define), "#", "%:"):
        return None
    literal = next_code(tokens, k)
    if literal >= len(tokens) or tokens.kinds[literal] != TokenKind.LITERAL:
        return None
    after = next_code(tokens, literal)
    if after < len(tokens) and not _line_break_between(tokens, literal, after):
        return None
    return literal, None


def _line_break_between(tokens: Tokens, a: int, b: int) -> bool:
    return NEWLINE in unsplice(tokens.body[tokens.ends[a] : tokens.starts[b]])


def _constant(tokens: Tokens, k: int) -> tuple[int, tuple[int, int]] | None:
    """`[static] const[expr] TYPE NAME = literal;` with the name at k and an unsigned TYPE: (the literal,
    the type's tokens)."""
    eq = next_code(tokens, k)
    literal = next_code(tokens, eq)
    if not is_punct(tokens, eq, "=") or literal >= len(tokens) or tokens.kinds[literal] != TokenKind.LITERAL:
        return None
    if not is_punct(tokens, next_code(tokens, literal), ";"):
        return None
    words, j = [], prev_code(tokens, k)
    while j >= 0 and (tokens.text(j) in _TYPE_WORDS or tokens.text(j) in QUALIFIERS):
        words.append(j)
        j = prev_code(tokens, j)
    type_words = [w for w in words if tokens.text(w) in _TYPE_WORDS]
    const = any(tokens.text(w) in ("const", "constexpr") for w in words)
    # what comes before: the end of a statement or a block, or a preprocessor line
    starts_declaration = (
        j < 0 or is_punct(tokens, j, ";", "{", "}") or (words and _line_break_between(tokens, j, words[-1]))
    )
    if not const or not type_words or not starts_declaration:
        return None
    first, last = min(type_words), max(type_words)
    if any(tokens.text(w) in QUALIFIERS for w in words if first < w < last):
        return None  # `unsigned const int`: the type is not one run of words
    return (literal, (first, last)) if _type_text(tokens, (first, last)) in WIDER_TYPES else None


_NARROW_MASK_TYPES = frozenset(t for t, wide in WIDER_TYPES.items() if t != wide)  # 32-bit unsigned
# 32-bit signed types: CUDA converts such a mask to its 32-bit unsigned parameter, the same 32 bits
SIGNED_MASK_TYPES = frozenset({"int", "signed", "signed int", "int32_t", "std::int32_t"})


def narrow_declaration(tokens: Tokens, name_token: int) -> str | None:
    """The 32-bit integer type (`unsigned`, `uint32_t`, `int`, `int32_t`, ...) of the variable or parameter
    named at name_token, from its nearest declaration above in the file (`unsigned active = __activemask();`,
    `int f(int mask)`); None when there is none or its type is another."""
    found = declaration_type(tokens, name_token, lambda j: tokens.text(j) in _TYPE_WORDS)
    written = _type_text(tokens, found) if found is not None else None
    return written if written in _NARROW_MASK_TYPES or written in SIGNED_MASK_TYPES else None


def _is_kept_mask(tokens: Tokens, table: LookupTable, k: int) -> bool:
    """Whether the name at token k is, alone, the lane-mask argument of a call whose rule keeps it."""
    before, after = prev_code(tokens, k), next_code(tokens, k)
    if not is_punct(tokens, before, "(", ",") or not is_punct(tokens, after, ",", ")"):
        return False
    open_ = _enclosing_paren(tokens, k)
    callee = prev_code(tokens, open_) if open_ is not None else -1
    if open_ is None or callee < 0 or tokens.kinds[callee] != TokenKind.IDENTIFIER:
        return False
    resolution = table.identifiers.get(tokens.text(callee))
    rule = resolution.rule if resolution is not None else None
    if rule is None or not rule.lane_mask or rule.params is None or rule.lane_mask not in (rule.args or ()):
        return False
    call = parse_call(tokens, callee)
    index = rule.params.index(rule.lane_mask)
    return call is not None and index < len(call.args) and call.args[index] == (tokens.starts[k], tokens.ends[k])


def _enclosing_paren(tokens: Tokens, k: int) -> int | None:
    depth = 0
    for j in range(k - 1, -1, -1):
        if tokens.kinds[j] != TokenKind.PUNCTUATION:
            continue
        t = tokens.raw(j)
        if t in (b")", b"]"):
            depth += 1
        elif t in (b"(", b"["):
            if depth == 0:
                return j if t == b"(" else None
            depth -= 1
        elif t in (b";", b"{", b"}"):
            return None
    return None
