"""The check registry: `@check(code, id, words=...)` registers a function with its trigger words.

CHECKS are ordered by code.
Severity, title and hint live with the code in diagnostics.CODES.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from hipconv.scan.view import FileView

CheckHit = tuple[int, str]  # (byte offset into the body, message)
FindFunction = Callable[[FileView, frozenset[str]], Iterator[CheckHit]]  # (view, the check's words) -> findings


@dataclass(frozen=True)
class Check:
    code: str  # its severity, title and hint: diagnostics.CODES[code]
    id: str
    names: frozenset[str]  # the file must contain one of these words for the check to run
    find: FindFunction
    # the translator's codes that already report what this check finds in the same call argument: a
    # finding of the check in an argument where the translator reported one of them is left out
    covered_by: frozenset[str] = frozenset()
    words: frozenset[bytes] = field(init=False, repr=False)  # names, encoded: what the scanner's prefilter compares

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", frozenset(name.encode() for name in self.names))

    def run(self, view: FileView) -> Iterator[CheckHit]:
        return self.find(view, self.names)


_REGISTERED: list[Check] = []


def check(
    code: str, check_id: str, *, words: Iterable[str], covered_by: Iterable[str] = ()
) -> Callable[[FindFunction], FindFunction]:
    """Register the decorated function as check `code`, run on files that contain one of `words`, and
    silent in a call argument where the translator reported one of the codes `covered_by`."""

    def register(find: FindFunction) -> FindFunction:
        _REGISTERED.append(Check(code, check_id, frozenset(words), find, frozenset(covered_by)))
        return find

    return register


def registered() -> tuple[Check, ...]:
    """Every registered check, by code (not by import order)."""
    return tuple(sorted(_REGISTERED, key=lambda c: c.code))
