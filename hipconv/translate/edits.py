"""Edits and their application: splice replacements into the original bytes.

An edit replaces body[start:end] with `parts`: literal strings and source
spans. A span part is rendered from the original bytes *with the edits nested
inside it applied*, so a reshaped call keeps the translations of its
arguments (a shuffle inside a shuffle, a CUDA call inside a launch argument).
Nested edits outside every span part (a dropped argument) vanish with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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
    """Apply non-overlapping (or properly nested) edits; the result does not depend on their order."""
    ordered = sorted(edits, key=_position)
    if any(_position(a) == _position(b) for a, b in zip(ordered, ordered[1:])):  # rare: break ties by content
        ordered = sorted(set(edits), key=lambda e: (_position(e), repr(e.parts)))
    if all(len(e.parts) == 1 and type(e.parts[0]) is str for e in ordered) and all(
        a.end <= b.start for a, b in zip(ordered, ordered[1:])
    ):  # the common case: plain renames, nothing nested
        chunks, pos = [], 0
        for e in ordered:
            chunks.append(body[pos : e.start])
            chunks.append(e.parts[0].encode("utf-8"))  # type: ignore[union-attr]
            pos = e.end
        chunks.append(body[pos:])
        return Applied(b"".join(chunks), ())
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
    out = _render(body, 0, len(body), roots, rejected)
    return Applied(out, tuple(rejected))


def _render(body: bytes, start: int, end: int, nodes: list[_Node], rejected: list[Edit]) -> bytes:
    chunks = []
    pos = start
    for node in nodes:
        e = node.edit
        if e.start < start or e.end > end:
            continue  # belongs to a span part that does not cover it
        chunks.append(body[pos : e.start])
        for part in e.parts:
            if isinstance(part, str):
                chunks.append(part.encode("utf-8"))
            else:
                inner = [c for c in node.children if part[0] <= c.edit.start and c.edit.end <= part[1]]
                chunks.append(_render(body, part[0], part[1], inner, rejected))
        pos = e.end
    chunks.append(body[pos:end])
    return b"".join(chunks)
