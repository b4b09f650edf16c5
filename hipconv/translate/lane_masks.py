"""Lane masks of the *_sync warp builtins: widened to 64 bits, or reported when dropped or unknown.

Every verdict is reported at the mask argument, once: `hipconv scan` leaves out its own HC302 for a
mask that one of MASK_VERDICTS covers.
"""

from __future__ import annotations

import bisect
import weakref

from hipconv.diagnostics import (
    FULL_MASK_PARTIAL_WAVEFRONT,
    FULL_MASK_WIDENED,
    LANE_MASK_DROPPED,
    LANE_MASK_NOT_64_BIT,
    LITERAL_LANE_MASK,
    MASK_AFTER_EARLY_RETURN,
)
from hipconv.rules.model import Rule
from hipconv.translate.context import FileContext
from hipconv.translate.early_returns import return_above
from hipconv.translate.edits import Edit
from hipconv.translate.facts.launch_blocks import BlockLaunch, kernel_launches, launches_around
from hipconv.translate.found import Found
from hipconv.translate.full_masks import FULL_MASK_64_SPELLING, is_32_bit_mask, is_full_mask_32
from hipconv.translate.lexer import TokenKind
from hipconv.translate.mask_names import SIGNED_MASK_TYPES, MaskName, find_mask, narrow_declaration
from hipconv.translate.syntax import IntLiteral, Span, int_literal

# The translator's verdicts on the value of a lane mask, at the mask argument: 32 bits and not fixed
# (HC101), dropped (HC102), widened to the full wavefront mask (HC104). HC103 is no verdict: the
# value could not be seen.
# HC026: widened as HC104, in a function that returns early above the call.
# HC105: widened as HC104, in a kernel a launch of the file gives blocks of other than a multiple of 64 threads.
MASK_VERDICTS = frozenset(
    {LITERAL_LANE_MASK, LANE_MASK_DROPPED, FULL_MASK_WIDENED, MASK_AFTER_EARLY_RETURN, FULL_MASK_PARTIAL_WAVEFRONT}
)


def widen(literal: IntLiteral) -> tuple[str, str]:
    """(the 64-bit spelling of a 32-bit literal mask, the code that reports it): what is fixed is decided
    here, for every way a mask reaches a *_sync builtin. The full warp mask becomes the full wavefront
    mask, so it still means "every lane": fixed, HC104 (a note). Any other mask keeps its value, lanes
    0-31 only, which on a 64-wide wavefront is not what it meant on a 32-wide warp: HC101 (a warning)."""
    if is_full_mask_32(literal):
        return FULL_MASK_64_SPELLING, FULL_MASK_WIDENED
    return literal.digits + "ull", LITERAL_LANE_MASK


def mask_rule_id(rule_id: str) -> str:
    """The id of the edit that widens a rule's lane mask (an HC009 names it when it is not applied)."""
    return rule_id + ".mask"


# the lane masks given by name, by file and name: found once per file (find_mask reads every use of the name)
_MASK_NAMES: weakref.WeakKeyDictionary[FileContext, dict[str, MaskName | None]] = weakref.WeakKeyDictionary()


def mask_name(ctx: FileContext, name_token: int) -> MaskName | None:
    """The definition of the name at name_token as one integer literal, in the file or the run; or None."""
    known = _MASK_NAMES.setdefault(ctx, {})
    name = ctx.tokens.text(name_token)
    if name not in known:
        known[name] = find_mask(ctx.source, ctx.tokens, ctx.table, ctx.project_masks, name)
    return known[name]


def check_lane_mask(c: Found, rule: Rule, span: Span, *, dropped: bool) -> None:
    """The mask argument at span: when kept, a 32-bit literal is widened (HC104 or HC101, see widen());
    when dropped, HC101 for a 32-bit literal and HC102 otherwise; HC103 when its value cannot be seen.
    A name the file defines as one literal (a macro or a const variable) counts as that literal; it is
    widened where it is defined when every use of it is a kept lane mask, else cast at the call (HC101)."""
    tokens = c.tokens
    text = tokens.body[span[0] : span[1]].decode()
    k = bisect.bisect_left(tokens.starts, span[0])
    single = k < len(tokens) and tokens.ends[k] == span[1]
    is_name = single and tokens.kinds[k] == TokenKind.IDENTIFIER
    named = mask_name(c.ctx, k) if is_name else None
    literal = named.value if named else int_literal(text) if single and tokens.kinds[k] == TokenKind.LITERAL else None
    is_32bit = literal is not None and is_32_bit_mask(literal)
    shown = f"{text} = {literal.digits}{literal.suffix}" if named and literal else text
    if dropped:
        _report_dropped(c, rule, span, shown, is_32bit=is_32bit)
    elif literal is not None and is_32bit:
        if named is None:
            _widen_here(c, rule, span, literal, text)
        elif named.mask_only:
            _widen_definition(c, rule, span, named, shown)
        else:
            _cast_here(c, rule, span, shown, "it has uses that are not lane masks")
    elif literal is None and is_name and (declared := narrow_declaration(tokens, k)) is not None:
        why = f"it is declared {declared}, 32 bits, with a value hipconv cannot widen"
        _cast_here(c, rule, span, text, why, signed=declared in SIGNED_MASK_TYPES)
    elif literal is None:
        c.diag(
            span[0],
            LANE_MASK_NOT_64_BIT,
            f"lane mask {text!r} must be a 64-bit integer covering the wavefront's 64 lanes for ROCm's {rule.hip}",
            rule,
            about_api=False,
        )


def _report_dropped(c: Found, rule: Rule, span: Span, shown: str, *, is_32bit: bool) -> None:
    target = c.settings.rocm
    if is_32bit:
        message = (
            f"32-bit lane mask {shown} covers lanes 0-31 only of a 64-wide wavefront; ROCm {target} has only "
            f"the mask-less {rule.hip}, which acts on all active lanes, so the mask was dropped"
        )
        c.diag(span[0], LITERAL_LANE_MASK, message, rule, about_api=False)
    else:
        message = (
            f"lane mask {shown!r} dropped: ROCm {target} has only the mask-less {rule.hip}, "
            "which acts on all active lanes"
        )
        c.diag(span[0], LANE_MASK_DROPPED, message, rule, about_api=False)


def _verdict(rule: Rule, text: str, literal: IntLiteral) -> tuple[str, str, str]:
    """(the widened spelling, its code, the message's start) for a 32-bit literal mask."""
    widened, code = widen(literal)
    if code == FULL_MASK_WIDENED:
        what = (
            f"32-bit full lane mask {text} (all 32 lanes of a CUDA warp) written as {widened}, "
            "all 64 lanes of a wavefront"
        )
        return widened, code, f"{what}, as ROCm's {rule.hip} needs"
    what = (
        f"32-bit lane mask {text} covers lanes 0-31 only; ROCm's {rule.hip} needs a 64-bit mask for 64-wide wavefronts"
    )
    return widened, code, f"{what}: written as {widened}, still lanes 0-31 only"


def _widen_here(c: Found, rule: Rule, span: Span, literal: IntLiteral, text: str) -> None:
    widened, code, message = _verdict(rule, text, literal)
    _report_verdict(c, rule, span, code, message)
    c.edits.append(Edit.replace(span[0], span[1], widened, mask_rule_id(rule.id)))


def _widen_definition(c: Found, rule: Rule, span: Span, named: MaskName, shown: str) -> None:
    """Every use of the name is a lane mask: its definition is widened (once, by the file that holds
    it), the value and a variable's type, and each use gets the verdict."""
    tokens = c.tokens
    widened, code, message = _verdict(rule, shown, named.value)
    where = f"; widened where it is defined ({named.where}), since every use of it is a lane mask"
    _report_verdict(c, rule, span, code, message + where)
    if named.name < 0:
        return
    start = tokens.starts[named.literal]
    if any(e.start == start for e in c.edits):  # widened already, for another use of the name
        return
    rule_id = mask_rule_id(rule.id)
    c.edits.append(Edit.replace(start, tokens.ends[named.literal], widened, rule_id))
    if named.type_tokens is not None:
        first, last = named.type_tokens
        c.edits.append(Edit.replace(tokens.starts[first], tokens.ends[last], named.wider_type(tokens), rule_id))


def _report_verdict(c: Found, rule: Rule, span: Span, code: str, message: str) -> None:
    """The verdict on a widened literal mask; a full mask widened in a function that returns early above the
    call is HC026: the lanes that returned are named by the mask and do not run the call."""
    tokens = c.tokens
    early = return_above(tokens, bisect.bisect_left(tokens.starts, span[0])) if code == FULL_MASK_WIDENED else None
    if early is not None:
        line = c.source.line_col(tokens.starts[early])[0]
        code = MASK_AFTER_EARLY_RETURN
        message += (
            f", but the function returns early above it (line {line}): where threads of one wavefront return "
            "and others reach the call (a CUDA warp returning as a whole is half a wavefront), the mask names "
            "lanes that do not run it, and ROCm's mask check traps in builds without NDEBUG (pass "
            "__activemask(), the lanes that run the call)"
        )
    elif code == FULL_MASK_WIDENED and (launch := _partial_wavefront_launch(c.ctx, span[0])) is not None:
        block, threads, caller = launch
        line = c.source.line_col(tokens.starts[block.chevron])[0]
        code = FULL_MASK_PARTIAL_WAVEFRONT
        called = f"it is called from kernel {block.kernel}, which" if caller else f"kernel {block.kernel}"
        message += (
            f", but {called} is launched with blocks of {threads} threads (line {line}): the last wavefront of "
            f"each block runs {threads % 64} lanes, the mask names 64, and ROCm's mask check traps in builds "
            "without NDEBUG (pass __activemask(), the lanes that run the call)"
        )
    c.diag(span[0], code, message, rule, about_api=False)


# the launches of a file, by file
_LAUNCHES: weakref.WeakKeyDictionary[FileContext, tuple[BlockLaunch, ...]] = weakref.WeakKeyDictionary()


def file_launches(ctx: FileContext) -> tuple[BlockLaunch, ...]:
    """The `<<<...>>>` launches of the file (facts.launch_blocks), found once per file."""
    if b"<<<" not in ctx.tokens.body:
        return ()
    if ctx not in _LAUNCHES:
        _LAUNCHES[ctx] = kernel_launches(ctx.tokens)
    return _LAUNCHES[ctx]


def _partial_wavefront_launch(ctx: FileContext, offset: int) -> tuple[BlockLaunch, int, bool] | None:
    """A launch of the file, of the kernel around offset or of a kernel that calls the function around it,
    with blocks whose thread count is not a multiple of 64 (a wavefront with lanes that do not run): the first
    such launch, its threads per block, and whether it is a caller's; or None."""
    tokens = ctx.tokens
    found, caller = launches_around(tokens, file_launches(ctx), bisect.bisect_left(tokens.starts, offset))
    partial = [(launch, launch.threads) for launch in found if launch.threads is not None and launch.threads % 64]
    return (*partial[0], caller) if partial else None


def _cast_here(c: Found, rule: Rule, span: Span, shown: str, why: str, *, signed: bool = False) -> None:
    """A 32-bit mask whose definition cannot be widened (`why`): it stays, and the call gets it cast to 64
    bits, lanes 0-31 only (HC101), so that the call compiles. A `signed` one (`int mask`) is cast through
    unsigned int, as CUDA's unsigned mask parameter reads it: its 32 bits, lanes 0-31, never sign-extended."""
    message = (
        f"32-bit lane mask {shown} covers lanes 0-31 only of a 64-wide wavefront; {why}, so it is cast to "
        f"the 64-bit mask ROCm's {rule.hip} needs here, still lanes 0-31 only: where lanes 32-63 run the call "
        "too, ROCm's mask check traps in builds without NDEBUG"
    )
    c.diag(span[0], LITERAL_LANE_MASK, message, rule, about_api=False)
    text = c.tokens.body[span[0] : span[1]].decode()
    if signed:  # through unsigned int: a 64-bit cast of a negative int would set lanes 32-63 (-1: all 64)
        text = f"static_cast<unsigned int>({text})"
    cast = f"static_cast<unsigned long long>({text})"
    c.edits.append(Edit.replace(span[0], span[1], cast, mask_rule_id(rule.id)))
