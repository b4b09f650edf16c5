from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hipconv.translate.edits import Edit, apply


def test_nested_edits_render_inside_span_parts() -> None:
    body = b"f(a, g(b), c)"
    edits = [
        Edit(0, 13, ("F(", (5, 9), ", ", (2, 3), ")")),
        Edit.replace(7, 8, "B"),
        Edit.replace(2, 3, "A"),
        Edit.replace(11, 12, "C"),
    ]
    assert apply(body, edits).data == b"F(g(B), A)"


def test_overlap_is_rejected_not_applied() -> None:
    result = apply(b"abcdef", [Edit.replace(0, 3, "X"), Edit.replace(2, 5, "Y")])
    assert result.data == b"Xdef"
    assert result.rejected == (Edit.replace(2, 5, "Y"),)


def test_insertion_beside_replacement_at_same_offset() -> None:
    assert apply(b"abc", [Edit.replace(0, 1, "A"), Edit.replace(0, 0, "#\n")]).data == b"#\nAbc"


def test_no_edits_is_identity() -> None:
    assert apply(b"x\r\n\ty ", []).data == b"x\r\n\ty "


@st.composite
def disjoint_edits(draw: st.DrawFn) -> tuple[bytes, list[Edit]]:
    body = draw(st.binary(min_size=1, max_size=60))
    cuts = sorted(set(draw(st.lists(st.integers(0, len(body)), max_size=10))))
    edits = []
    for a, b in zip(cuts[::2], cuts[1::2]):
        edits.append(Edit.replace(a, b, draw(st.text(alphabet="xyz", max_size=4))))
    return body, edits


@given(disjoint_edits(), st.randoms())
def test_order_of_edits_does_not_matter(case: tuple[bytes, list[Edit]], rnd) -> None:
    body, edits = case
    shuffled = list(edits)
    rnd.shuffle(shuffled)
    assert apply(body, shuffled).data == apply(body, edits).data


@given(disjoint_edits())
def test_bytes_outside_edits_never_change(case: tuple[bytes, list[Edit]]) -> None:
    body, edits = case
    out = apply(body, edits).data
    pos_in, pos_out = 0, 0
    for e in sorted(edits, key=lambda e: e.start):
        gap = body[pos_in : e.start]
        assert out[pos_out : pos_out + len(gap)] == gap
        pos_out += len(gap) + len(e.parts[0].encode())
        pos_in = e.end
    assert out[pos_out:] == body[pos_in:]
