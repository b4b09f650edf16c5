"""The full lane mask (every lane: 0xffffffff on a 32-wide CUDA warp, 0xffffffffffffffff on a 64-wide
wavefront) and how an integer literal reads as a lane mask. The one home of these values for the translator
(translate.lane_masks, translate.compat) and `hipconv scan`'s checks (scan.view, scan.wavefront)."""

from __future__ import annotations

from hipconv.translate.syntax import IntLiteral

FULL_MASK_32 = 0xFFFFFFFF
FULL_MASK_64 = 0xFFFFFFFFFFFFFFFF
FULL_MASK_64_SPELLING = "0xffffffffffffffffull"  # how the translator writes the wavefront's full mask


def is_32_bit_mask(literal: IntLiteral) -> bool:
    """A mask of a 32-lane warp: its value fits in 32 bits and no `ll` suffix makes it a 64-bit integer."""
    return literal.value <= FULL_MASK_32 and "ll" not in literal.suffix


def is_full_mask_32(literal: IntLiteral) -> bool:
    """Every lane of a 32-lane warp: 0xffffffff (or 4294967295, 037777777777), without an `ll` suffix."""
    return literal.value == FULL_MASK_32 and "ll" not in literal.suffix


def is_full_mask(literal: IntLiteral) -> bool:
    """Every lane of a warp or of a wavefront, whatever the suffix: the masks that keep their meaning when
    a shim reads them (translate.compat)."""
    return literal.value in (FULL_MASK_32, FULL_MASK_64)
