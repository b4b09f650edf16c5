"""translate.full_masks: which integer literals are lane masks of a 32-lane warp, and which the full one; which
pp-numbers are integer literals at all (syntax.int_literal), and what a lane mask that is none becomes."""

from __future__ import annotations

import pytest

from hipconv.diagnostics import LANE_MASK_NOT_64_BIT, LITERAL_LANE_MASK
from hipconv.rules import load_ruleset
from hipconv.settings import Settings, Version
from hipconv.translate.full_masks import is_32_bit_mask, is_full_mask, is_full_mask_32
from hipconv.translate.source import SourceFile
from hipconv.translate.syntax import int_literal
from hipconv.translate.translator import translate_one


def literal(text: str):  # noqa: ANN201 - an IntLiteral, or a failed test
    found = int_literal(text)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("text", "bits_32", "full_32", "full"),
    [
        ("0xffffffff", True, True, True),
        ("0xFFFFFFFFu", True, True, True),
        ("4294967295U", True, True, True),
        ("037777777777", True, True, True),
        ("0xffff'ffff", True, True, True),
        ("0xffffffffull", False, False, True),  # a 64-bit integer: lanes 0-31 of a wavefront, which hipconv leaves
        ("0xffffffffLL", False, False, True),
        ("0xffffffffffffffffull", False, False, True),
        ("0x0000ffff", True, False, False),
        ("1", True, False, False),
        ("0x1ffffffff", False, False, False),
    ],
)
def test_literal_masks(text: str, bits_32: bool, full_32: bool, full: bool) -> None:
    assert (is_32_bit_mask(literal(text)), is_full_mask_32(literal(text)), is_full_mask(literal(text))) == (
        bits_32,
        full_32,
        full,
    )


@pytest.mark.parametrize(
    ("text", "digits", "suffix"),
    [
        ("0x0000ffffZ", "0x0000ffff", "z"),  # C++23's signed size_t literal
        ("1uZ", "1", "uz"),
        ("1Zu", "1", "zu"),
        ("0xffffffffUL", "0xffffffff", "ul"),
        ("1LLU", "1", "llu"),
        ("0b1'0", "0b1'0", ""),
    ],
)
def test_integer_literals_with_their_suffixes(text: str, digits: str, suffix: str) -> None:
    assert (literal(text).digits, literal(text).suffix) == (digits, suffix)


@pytest.mark.parametrize(
    "text",
    ["0x0000ffffzz", "0xffffZl", "1lL", "1Ll", "1uu", "1ulu", "1lll", "0xffZu1", "0xff'", "0x'ff", "1''2"],
)
def test_other_pp_numbers_are_no_integer_literals(text: str) -> None:
    """A pp-number whose tail is no integer suffix (or whose digit separator stands next to no digit) is not
    read as its digits: a lane mask spelled so was rewritten to `0x0000ffffull`, and its tail was lost."""
    assert int_literal(text) is None


def _translated(src: str) -> tuple[str, list[str]]:
    settings = Settings(Version.parse("6.3"))
    result = translate_one(SourceFile.from_bytes("t.cpp", src.encode()), load_ruleset().table(settings), settings)
    return (src if result.output is None else result.output.decode()), [d.code for d in result.diagnostics]


def test_a_mask_that_is_no_integer_literal_keeps_its_bytes() -> None:
    """`0x0000ffffzz` is no literal: the mask is left as written (HC103: its value cannot be seen), and a
    second pass changes nothing (the fuzz lane's `__any_sync(0x0000ffffZ, p)` with one more letter)."""
    src = "if (__any_sync(0x0000ffffzz, p)) x();\n"
    out, codes = _translated(src)
    assert "__any_sync(0x0000ffffzz, p)" in out and codes == [LANE_MASK_NOT_64_BIT]
    assert _translated(out)[0] == out


def test_a_z_suffixed_mask_is_widened_whole() -> None:
    """`0x0000ffffZ` (C++23) is a 32-bit mask's value: widened as any other, the suffix replaced by `ull`."""
    out, codes = _translated("if (__any_sync(0x0000ffffZ, p)) x();\n")
    assert "__any_sync(0x0000ffffull, p)" in out and codes == [LITERAL_LANE_MASK]
    assert _translated(out)[0] == out
