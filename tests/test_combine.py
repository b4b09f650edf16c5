"""The combiner's overlap policy (HC009): edits that overlap are left out before the edits are applied."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hipconv.diagnostics import OVERLAP, Diagnostic
from hipconv.results import Replacement
from hipconv.rules import load_ruleset
from hipconv.settings import Settings, Version
from hipconv.translate.combine import without_overlaps
from hipconv.translate.edits import Edit, apply, overlapping
from hipconv.translate.source import SourceFile
from hipconv.translate.translator import translate_one


def test_an_edit_that_crosses_another_overlaps_it() -> None:
    edits = [Edit.replace(0, 3, "X"), Edit.replace(2, 5, "Y")]
    assert overlapping(edits) == (Edit.replace(2, 5, "Y"),)


def test_nested_and_neighbouring_edits_do_not_overlap() -> None:
    edits = [
        Edit(0, 13, ("F(", (5, 9), ", ", (2, 3), ")")),
        Edit.replace(7, 8, "B"),
        Edit.replace(2, 3, "A"),
        Edit.replace(13, 13, ";"),  # an insertion where the call ends
        Edit.replace(14, 15, "C"),
    ]
    assert overlapping(edits) == ()


@st.composite
def any_edits(draw: st.DrawFn) -> tuple[bytes, list[Edit]]:
    """A body and edits anywhere in it: crossing, nested, equal, insertions, span parts."""
    body = draw(st.binary(min_size=1, max_size=40))
    edits = []
    for _ in range(draw(st.integers(0, 8))):
        a = draw(st.integers(0, len(body)))
        b = draw(st.integers(a, len(body)))
        if b > a and draw(st.booleans()):
            inner = draw(st.integers(a, b))
            edits.append(Edit(a, b, ("<", (a, inner), ">"), "r"))
        else:
            edits.append(Edit.replace(a, b, draw(st.text(alphabet="xyz", max_size=3)), "r"))
    return body, edits


@given(any_edits())
def test_leaving_out_the_overlapping_edits_first_gives_the_same_output(case: tuple[bytes, list[Edit]]) -> None:
    """What lets the combiner decide the overlaps and apply() receive the rest: apply() renders those as it
    rendered all of them, and rejects none."""
    body, edits = case
    rejected = overlapping(edits)
    assert rejected == apply(body, edits).rejected
    rest = apply(body, [e for e in edits if e not in rejected])
    assert rest.data == apply(body, edits).data
    assert rest.rejected == ()


def test_an_overlapping_edit_is_left_out_and_reported_as_hc009() -> None:
    source = SourceFile.from_bytes("k.cu", b"int a;\nfoo(bar(x));\n")
    kept = Edit.replace(7, 18, "hipFoo(bar(x))", "runtime.foo")
    crossing = Edit.replace(11, 20, "baz", "runtime.bar")
    replacements = [
        Replacement(2, 1, "foo", "hipFoo", "runtime.foo", "runtime"),
        Replacement(2, 5, "bar", "baz", "runtime.bar", "runtime"),
    ]
    found = without_overlaps(source, [kept, crossing], [], replacements)
    assert found.edits == (kept,)
    assert found.diagnostics == (
        Diagnostic("k.cu", 2, 5, OVERLAP, "this rewrite overlaps another one and was not applied", "runtime.bar"),
    )
    assert found.replacements == (replacements[0],)


def test_edits_without_overlaps_pass_through_unchanged() -> None:
    source = SourceFile.from_bytes("k.cu", b"foo(x);\n")
    edits = [Edit.replace(0, 3, "hipFoo", "runtime.foo")]
    found = without_overlaps(source, edits, [], [], frozenset({"shim"}))
    assert (found.edits, found.diagnostics, found.shims) == (tuple(edits), (), frozenset({"shim"}))


def test_a_name_at_the_start_of_a_file_kept_whole_is_no_replacement() -> None:
    """A file written for HIP is kept whole (project_hip): a CUDA name at its first byte was still counted as
    replaced (FileResult.replacements) though its edit was held out, as the kept range starts where it does
    (#40, found by the fuzz lane's guarded draws: the lane's byte check reads the replacements)."""
    settings = Settings(Version.parse("6.3"))
    table = load_ruleset().table(settings)
    for lead in ("", "int x;\n"):
        src = f"{lead}cudaStream_t s;\n#include <hip/hip_runtime.h>\nhipStream_t t;\n".encode()
        result = translate_one(SourceFile.from_bytes("k.cu", src), table, settings)
        assert result.output is None and result.replacements == ()
