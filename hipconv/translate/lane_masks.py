"""Lane masks of the *_sync warp builtins: widened to 64 bits, or reported when dropped or unknown.

Every verdict is reported at the mask argument, once: `hipconv scan` leaves out its own HC302 for a
mask that one of MASK_VERDICTS covers.
"""

from __future__ import annotations

import bisect

from hipconv.rules.model import Rule
from hipconv.translate.collector import MatchCollector
from hipconv.translate.edits import Edit
from hipconv.translate.lexer import TokenKind
from hipconv.translate.syntax import IntLiteral, Span, int_literal

FULL_MASK_32 = 0xFFFFFFFF
FULL_MASK_64 = "0xffffffffffffffffull"
# The translator's verdicts on the value of a lane mask, at the mask argument: 32 bits and not fixed
# (HC101), dropped (HC102), widened to the full wavefront mask (HC104). HC103 is no verdict: the
# value could not be seen.
MASK_VERDICTS = frozenset({"HC101", "HC102", "HC104"})


def widen(literal: IntLiteral) -> tuple[str, str]:
    """(the 64-bit spelling of a 32-bit literal mask, the code that reports it): what is fixed is decided
    here, for every way a mask reaches a *_sync builtin. The full warp mask becomes the full wavefront
    mask, so it still means "every lane": fixed, HC104 (a note). Any other mask keeps its value, lanes
    0-31 only, which on a 64-wide wavefront is not what it meant on a 32-wide warp: HC101 (a warning)."""
    if literal.value == FULL_MASK_32:
        return FULL_MASK_64, "HC104"
    return literal.digits + "ull", "HC101"


def mask_rule_id(rule_id: str) -> str:
    """The id of the edit that widens a rule's lane mask (an HC009 names it when it is not applied)."""
    return rule_id + ".mask"


def check_lane_mask(c: MatchCollector, rule: Rule, span: Span, *, dropped: bool) -> None:
    """The mask argument at span: when kept, a 32-bit literal is widened (HC104 or HC101, see widen());
    when dropped, HC101 for a 32-bit literal and HC102 otherwise; HC103 when its value cannot be seen."""
    tokens = c.tokens
    text = tokens.body[span[0] : span[1]].decode()
    k = bisect.bisect_left(tokens.starts, span[0])
    single_literal = k < len(tokens) and tokens.ends[k] == span[1] and tokens.kinds[k] == TokenKind.LITERAL
    literal = int_literal(text) if single_literal else None
    is_32bit = literal is not None and literal.value <= FULL_MASK_32 and "ll" not in literal.suffix
    target = c.settings.rocm
    if dropped:
        if is_32bit:
            c.diag(
                span[0],
                "HC101",
                f"32-bit lane mask {text} covers lanes 0-31 only of a 64-wide wavefront; "
                f"ROCm {target} has only the mask-less {rule.hip}, which acts on all active lanes, "
                "so the mask was dropped",
                rule,
                about_api=False,
            )
        else:
            c.diag(
                span[0],
                "HC102",
                f"lane mask {text!r} dropped: ROCm {target} has only the mask-less "
                f"{rule.hip}, which acts on all active lanes",
                rule,
                about_api=False,
            )
    elif literal is not None and is_32bit:
        widened, code = widen(literal)
        message = (
            f"32-bit full lane mask {text} (all 32 lanes of a CUDA warp) written as {widened}, "
            f"all 64 lanes of a wavefront, as ROCm's {rule.hip} needs"
            if code == "HC104"
            else f"32-bit lane mask {text} covers lanes 0-31 only; ROCm's {rule.hip} needs a 64-bit mask "
            f"for 64-wide wavefronts: written as {widened}, still lanes 0-31 only"
        )
        c.diag(span[0], code, message, rule, about_api=False)
        c.edits.append(Edit.replace(span[0], span[1], widened, mask_rule_id(rule.id)))
    elif literal is None:
        c.diag(
            span[0],
            "HC103",
            f"lane mask {text!r} must be a 64-bit integer covering the wavefront's 64 lanes for ROCm's {rule.hip}",
            rule,
            about_api=False,
        )
