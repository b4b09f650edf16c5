"""translate.full_masks: which integer literals are lane masks of a 32-lane warp, and which the full one."""

from __future__ import annotations

import pytest

from hipconv.translate.full_masks import is_32_bit_mask, is_full_mask, is_full_mask_32
from hipconv.translate.syntax import int_literal


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
