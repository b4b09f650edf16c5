"""GNU make's expansion of `$(...)`, done in Python: nothing is run.

Variables (`=` expanded where used, `:=` where set), `$(VAR:a=b)`, automatic variables with their D/F forms,
and make's text functions (subst, patsubst, filter, foreach, if, call, wildcard, ...). `$(shell ...)`,
`$(file ...)` and `!=` run nothing: they are empty. `$(error ...)` does not stop the reading. `$(eval ...)`
is handed back to the reader (make_reader.py), which reads it as Makefile text.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

MAX_EXPANSION_DEPTH = (
    64  # nested expansions: `X = $(X) more` would recurse forever in make too (it stops with an error)
)
MAX_EXPANDED = 1 << 20  # characters one expansion may produce: `A2 = $(A1)$(A1)` ... doubles on every line
MAX_REFERENCES = 200_000  # references and function calls one expansion may follow
_FUNCTION = re.compile(r"([a-z-]+)[ \t]+(.*)", re.S)
_AUTOMATIC = re.compile(r"([@<^+*?|%])([DF])")


@dataclass
class Variable:
    value: str
    recursive: bool = True  # `=`, `?=`, `define`: expanded where it is used; `:=`: expanded already
    origin: str = "file"  # default | environment | file | command line | override


def split_args(text: str) -> list[str]:
    """A function's arguments: split at the commas outside parentheses and braces."""
    args, depth, start = [], 0, 0
    for n, c in enumerate(text):
        depth += (c in "({") - (c in ")}")
        if c == "," and depth == 0:
            args.append(text[start:n])
            start = n + 1
    return [*args, text[start:]]


def reference_end(text: str, start: int) -> int:
    """The index just after the `)` or `}` that closes the reference opened at text[start] ('$')."""
    opening = text[start + 1]
    closing = ")" if opening == "(" else "}"
    depth = 0
    for n in range(start + 1, len(text)):
        depth += (text[n] == opening) - (text[n] == closing)
        if depth == 0:
            return n + 1
    return len(text)


def pattern_match(pattern: str, word: str) -> str | None:
    """The stem `%` stands for when `word` matches `pattern` (the word itself without a `%`); None: no match."""
    if "%" not in pattern:
        return word if word == pattern else None
    head, _, tail = pattern.partition("%")
    if len(word) >= len(head) + len(tail) and word.startswith(head) and word.endswith(tail):
        return word[len(head) : len(word) - len(tail)]
    return None


def patsubst(pattern: str, replacement: str, words: str) -> str:
    out = []
    for word in words.split():
        stem = pattern_match(pattern, word)
        out.append(word if stem is None else (replacement.replace("%", stem, 1) if "%" in pattern else replacement))
    return " ".join(out)


class Expander:
    """Expands text with a Makefile's variables (`variables`, shared with the reader) in `directory`."""

    def __init__(
        self, variables: dict[str, Variable], directory: Path, evaluate: Callable[[str], None] | None = None
    ) -> None:
        self.variables = variables
        self.directory = directory
        self.evaluate = evaluate  # $(eval TEXT): the reader reads TEXT as Makefile lines
        self.depth = 0
        self.produced = 0  # characters and references of the expansion under way (from depth 0)
        self.cut = ""  # why an expansion was cut, the first time one was

    def expand(self, text: str, local: Mapping[str, str] | None = None) -> str:
        """`text` expanded; past the bounds (depth, size, references followed) the rest is empty, and `cut` says so."""
        if "$" not in text:
            return text
        if self.depth > MAX_EXPANSION_DEPTH:
            self.cut = self.cut or f"references nest deeper than {MAX_EXPANSION_DEPTH}; the rest is left empty"
            return ""
        if self.depth == 0:
            self.produced = 0
        self.depth += 1
        try:
            out: list[str] = []
            for piece in self._pieces(text, local or {}):
                self.produced += len(piece)
                if self.produced > MAX_EXPANDED:
                    self.cut = (
                        self.cut or f"an expansion grows past {MAX_EXPANDED:,} characters; the rest is left empty"
                    )
                    break
                out.append(piece)
            return "".join(out)
        finally:
            self.depth -= 1

    def _pieces(self, text: str, local: Mapping[str, str]) -> Iterator[str]:
        i = 0
        while i < len(text):
            at = text.find("$", i)
            if at < 0 or at + 1 >= len(text):
                yield text[i:] if at < 0 else text[i:at]
                return
            yield text[i:at]
            self.produced += MAX_EXPANDED // MAX_REFERENCES  # each reference counts: $(foreach) of empty values
            if self.produced > MAX_EXPANDED:
                return
            c = text[at + 1]
            if c in "({":
                end = reference_end(text, at)
                yield self._reference(text[at + 2 : end - 1], local)
                i = end
            else:
                yield "$" if c == "$" else self.value(c, local)
                i = at + 2

    def value(self, name: str, local: Mapping[str, str]) -> str:
        """The value of a variable, expanded."""
        if name in local:
            return local[name]
        automatic = _AUTOMATIC.fullmatch(name)
        if automatic and automatic.group(1) in local:
            words = local[automatic.group(1)].split()
            part = os.path.dirname if automatic.group(2) == "D" else os.path.basename
            return " ".join(part(w) or "." for w in words)
        variable = self.variables.get(name)
        if variable is None:
            return ""
        return self.expand(variable.value, local) if variable.recursive else variable.value

    def _reference(self, content: str, local: Mapping[str, str]) -> str:
        function = _FUNCTION.fullmatch(content)
        if function and function.group(1) in _FUNCTIONS:
            return _FUNCTIONS[function.group(1)](self, split_args(function.group(2)), local)
        name = self.expand(content, local)
        variable, colon, substitution = name.partition(":")
        if colon and "=" in substitution:  # $(VAR:.cu=.o), $(VAR:src/%.cu=build/%.o)
            old, _, new = substitution.partition("=")
            if "%" not in old:
                old, new = "%" + old, "%" + new
            return patsubst(old, new, self.value(variable, local))
        return self.value(name, local)

    def words_in(self, args: list[str], local: Mapping[str, str]) -> list[str]:
        return [self.expand(a, local) for a in args]


_TextFunction = Callable[[Expander, list[str], Mapping[str, str]], str]


def _strict(arity: int, body: Callable[..., str]) -> _TextFunction:
    """A function whose arguments are all expanded first; the last takes the commas beyond `arity`."""

    def run(make: Expander, args: list[str], local: Mapping[str, str]) -> str:
        args = [*args[: arity - 1], ",".join(args[arity - 1 :])] if len(args) > arity else args
        args += [""] * (arity - len(args))
        return body(make, *make.words_in(args, local))

    return run


def _word(n: str, text: str) -> str:
    words = text.split()
    return words[int(n) - 1] if n.strip().isdigit() and 0 < int(n) <= len(words) else ""


def _wordlist(s: str, e: str, text: str) -> str:
    if not (s.strip().isdigit() and e.strip().isdigit()):
        return ""
    return " ".join(text.split()[int(s) - 1 : int(e)])


def _wildcard(make: Expander, patterns: str) -> str:
    found: list[str] = []
    for pattern in patterns.split():
        full = pattern if os.path.isabs(pattern) else str(make.directory / pattern)
        for path in sorted(glob.glob(full)):
            found.append(path if os.path.isabs(pattern) else os.path.relpath(path, make.directory))
    return " ".join(found)


def _filter(patterns: str, text: str, *, keep: bool) -> str:
    wanted = patterns.split()
    return " ".join(w for w in text.split() if any(pattern_match(p, w) is not None for p in wanted) == keep)


def _if(make: Expander, args: list[str], local: Mapping[str, str]) -> str:
    chosen = args[1] if make.expand(args[0], local).strip() else ",".join(args[2:])
    return make.expand(chosen, local)


def _or(make: Expander, args: list[str], local: Mapping[str, str]) -> str:
    return next((value for value in (make.expand(a, local).strip() for a in args) if value), "")


def _and(make: Expander, args: list[str], local: Mapping[str, str]) -> str:
    value = ""
    for arg in args:
        value = make.expand(arg, local).strip()
        if not value:
            return ""
    return value


def _foreach(make: Expander, args: list[str], local: Mapping[str, str]) -> str:
    if len(args) < 3:
        return ""
    name, items, text = make.expand(args[0], local).strip(), make.expand(args[1], local), ",".join(args[2:])
    return " ".join(make.expand(text, {**local, name: item}) for item in items.split())


def _call(make: Expander, args: list[str], local: Mapping[str, str]) -> str:
    values = make.words_in(args, local)
    name = values[0].strip()
    variable = make.variables.get(name)
    if variable is None:
        return ""
    bound = {**local, "0": name, **{str(n): value for n, value in enumerate(values[1:], 1)}}
    for n in range(len(values), 10):  # unused $(N) are empty, not the caller's
        bound.pop(str(n), None)
    return make.expand(variable.value, bound)


def _value(make: Expander, args: list[str], local: Mapping[str, str]) -> str:
    variable = make.variables.get(make.expand(args[0], local).strip())
    return variable.value if variable else ""


def _origin(make: Expander, args: list[str], local: Mapping[str, str]) -> str:
    variable = make.variables.get(make.expand(args[0], local).strip())
    return variable.origin if variable else "undefined"


def _eval(make: Expander, args: list[str], local: Mapping[str, str]) -> str:
    if make.evaluate is not None:
        make.evaluate(make.expand(",".join(args), local))
    return ""


def _nothing(make: Expander, args: list[str], local: Mapping[str, str]) -> str:
    """$(shell ...), $(file ...): nothing is run or written; $(error ...), $(warning ...), $(info ...)."""
    return ""


_FUNCTIONS: dict[str, _TextFunction] = {
    "subst": _strict(3, lambda m, a, b, t: t.replace(a, b) if a else t),
    "patsubst": _strict(3, lambda m, p, r, t: patsubst(p.strip(), r.strip(), t)),
    "strip": _strict(1, lambda m, t: " ".join(t.split())),
    "findstring": _strict(2, lambda m, f, t: f if f in t else ""),
    "filter": _strict(2, lambda m, p, t: _filter(p, t, keep=True)),
    "filter-out": _strict(2, lambda m, p, t: _filter(p, t, keep=False)),
    "sort": _strict(1, lambda m, t: " ".join(sorted(set(t.split())))),
    "word": _strict(2, lambda m, n, t: _word(n, t)),
    "wordlist": _strict(3, lambda m, s, e, t: _wordlist(s, e, t)),
    "words": _strict(1, lambda m, t: str(len(t.split()))),
    "firstword": _strict(1, lambda m, t: (t.split() or [""])[0]),
    "lastword": _strict(1, lambda m, t: (t.split() or [""])[-1]),
    "dir": _strict(1, lambda m, t: " ".join(os.path.dirname(w) + "/" if "/" in w else "./" for w in t.split())),
    "notdir": _strict(1, lambda m, t: " ".join(os.path.basename(w) for w in t.split())),
    "suffix": _strict(1, lambda m, t: " ".join(os.path.splitext(w)[1] for w in t.split() if os.path.splitext(w)[1])),
    "basename": _strict(1, lambda m, t: " ".join(os.path.splitext(w)[0] for w in t.split())),
    "addsuffix": _strict(2, lambda m, s, t: " ".join(w + s for w in t.split())),
    "addprefix": _strict(2, lambda m, p, t: " ".join(p + w for w in t.split())),
    "join": _strict(2, lambda m, a, b: " ".join(x + y for x, y in zip(a.split(), b.split(), strict=False))),
    "wildcard": _strict(1, _wildcard),
    "abspath": _strict(1, lambda m, t: " ".join(os.path.normpath(m.directory / w) for w in t.split())),
    "realpath": _strict(1, lambda m, t: " ".join(os.path.realpath(m.directory / w) for w in t.split())),
    "if": _if,
    "or": _or,
    "and": _and,
    "foreach": _foreach,
    "call": _call,
    "value": _value,
    "origin": _origin,
    "flavor": lambda m, a, loc: _flavor(m.variables.get(m.expand(a[0], loc).strip())),
    "eval": _eval,
    "shell": _nothing,
    "file": _nothing,
    "error": _nothing,
    "warning": _nothing,
    "info": _nothing,
}


def _flavor(variable: Variable | None) -> str:
    return "undefined" if variable is None else ("recursive" if variable.recursive else "simple")
