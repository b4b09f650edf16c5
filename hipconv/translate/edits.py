"""Edits and their application: splice replacements into the original bytes.

An edit replaces body[start:end] with `parts`: literal strings and source
spans. A span part is rendered from the original bytes *with the edits nested
inside it applied*, so a reshaped call keeps the translations of its
arguments (a shuffle inside a shuffle, a CUDA call inside a launch argument).
Nested edits outside every span part (a dropped argument) vanish with it.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple, Union

Part = Union[str, tuple[int, int]]


class Edit(NamedTuple):  # a NamedTuple: files have thousands of edits, and these are cheap to make
    start: int
    end: int
    parts: tuple[Part, ...]
    rule_id: str = ""

    @classmethod
    def replace(cls, start: int, end: int, text: str, rule_id: str = "") -> Edit:
        return cls(start, end, (text,), rule_id)

    def contains(self, other: Edit) -> bool:
        if other.start == other.end:  # an insertion at either edge belongs beside this edit, not in it
            return self.start < other.start < self.end
        return self.start <= other.start and other.end <= self.end and self != other


@dataclass(frozen=True)
class Applied:
    data: bytes
    rejected: tuple[Edit, ...]  # edits that overlapped an earlier one and were not applied


@dataclass
class _Node:
    edit: Edit
    children: list[_Node]


def _position(e: Edit) -> tuple[int, bool, int]:
    return (e.start, e.end > e.start, -e.end)  # insertions before replacements at the same offset


def apply(body: bytes, edits: Sequence[Edit]) -> Applied:
    """Apply non-overlapping (or properly nested) edits; the result does not depend on their order. The
    translator hands over edits without overlaps (combine.without_overlaps); one that overlaps an earlier
    one anyway is not applied but returned in `rejected`, as overlapping() finds it."""
    ordered = _ordered(edits)
    if all(len(e.parts) == 1 and type(e.parts[0]) is str for e in ordered) and _disjoint(ordered):
        chunks, pos = [], 0  # the common case: plain renames, nothing nested
        for e in ordered:
            chunks.append(body[pos : e.start])
            chunks.append(e.parts[0].encode("utf-8"))  # type: ignore[union-attr]
            pos = e.end
        chunks.append(body[pos:])
        return Applied(b"".join(chunks), ())
    roots, rejected = _nest(ordered)
    return Applied(_render(body, roots), tuple(rejected))


def overlapping(edits: Sequence[Edit]) -> tuple[Edit, ...]:
    """The edits that overlap an earlier one, in the order apply() takes them (by position): neither
    nested in it nor beside it. Leaving them out changes nothing about how the others nest."""
    ordered = _ordered(edits)
    return () if _disjoint(ordered) else tuple(_nest(ordered)[1])


def _ordered(edits: Sequence[Edit]) -> list[Edit]:
    positions = list(map(_position, edits))  # each edit's once
    if len(set(positions)) == len(positions):
        return [e for _, e in sorted(zip(positions, edits), key=itemgetter(0))]
    return sorted(set(edits), key=lambda e: (_position(e), repr(e.parts)))  # rare: ties broken by content


def _disjoint(ordered: Sequence[Edit]) -> bool:
    return all(a.end <= b.start for a, b in zip(ordered, ordered[1:]))


def _nest(ordered: Sequence[Edit]) -> tuple[list[_Node], list[Edit]]:
    """The ordered edits as trees of edits nested in one another, and those that overlap an earlier one."""
    roots: list[_Node] = []
    stack: list[_Node] = []
    rejected: list[Edit] = []
    for edit in ordered:
        while stack and not stack[-1].edit.contains(edit):
            stack.pop()
        siblings = stack[-1].children if stack else roots
        if (
            siblings
            and siblings[-1].edit.end > edit.start
            and not (edit.start == edit.end == siblings[-1].edit.start == siblings[-1].edit.end)
        ):
            rejected.append(edit)
            continue
        node = _Node(edit, [])
        siblings.append(node)
        stack.append(node)
    return roots, rejected


def _render(body: bytes, roots: list[_Node]) -> bytes:
    """The body with the edit trees applied. Iterative, with a stack of pieces still to write: an
    edit nested thousands deep inside span parts must neither overflow Python's stack nor be copied
    once per level."""
    chunks: list[bytes] = []
    todo: list[bytes | tuple[int, int, list[_Node]]] = [(0, len(body), roots)]
    while todo:
        piece = todo.pop()
        if isinstance(piece, bytes):
            chunks.append(piece)
        else:
            todo.extend(reversed(_pieces(body, *piece)))
    return b"".join(chunks)


def _pieces(body: bytes, start: int, end: int, nodes: list[_Node]) -> list[bytes | tuple[int, int, list[_Node]]]:
    """body[start:end] with the edits of nodes applied, as bytes and (start, end, nodes) still to render."""
    pieces: list[bytes | tuple[int, int, list[_Node]]] = []
    pos = start
    for node in nodes:
        e = node.edit
        if e.start < start or e.end > end:
            continue  # belongs to a span part that does not cover it
        pieces.append(body[pos : e.start])
        children = node.children  # in order and disjoint: their starts and their ends both ascend
        starts, ends = [c.edit.start for c in children], [c.edit.end for c in children]
        for part in e.parts:
            if isinstance(part, str):
                pieces.append(part.encode("utf-8"))
            else:
                first = bisect.bisect_left(starts, part[0])
                last = bisect.bisect_right(ends, part[1], first)
                pieces.append((part[0], part[1], children[first:last]))
        pos = e.end
    pieces.append(body[pos:end])
    return pieces
