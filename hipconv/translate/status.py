"""The status policy, in one place: how a rule's resolution becomes an edit and/or a diagnostic (a
rename, a deprecation noted, an unsupported or removed name reported), for every matcher that resolves
a name through the rule table."""

from __future__ import annotations

from hipconv.diagnostics import DEPRECATED, EXPERIMENTAL, NO_RULE, NOT_IN_TARGET, REMOVED, UNSUPPORTED
from hipconv.rules.model import Action, Resolution, Rule, RuleStatus
from hipconv.translate.comments import keep_comments
from hipconv.translate.edits import Edit, Part
from hipconv.translate.found import Found


def apply_resolution(
    c: Found,
    start: int,
    end: int,
    cuda: str,
    resolution: Resolution,
    *,
    rename: bool,
    spelling: str | None = None,
) -> None:
    """Turn one resolution into an edit and/or a diagnostic: the status policy lives here. `spelling`: what
    a rename writes instead of the rule's HIP name (the HIP tag, after `struct`)."""
    rule, action = resolution.rule, resolution.action
    assert action is not Action.OVERLOADED, "pick the overload first (calls.pick_overload)"
    if action is Action.REWRITE and rename:  # the hot path: a plain rename
        assert rule is not None and rule.hip is not None
        _rename(c, start, end, cuda, rule, spelling)
        return
    if action is Action.NO_RULE:
        c.diag(
            start,
            NO_RULE,
            f"{cuda} ({resolution.library}) is CUDA API with no hipconv rule; left unchanged",
            symbol=cuda,
        )
        return
    assert rule is not None
    message = status_message(c, cuda, rule, action)
    if message is not None and not (rename and rule.rewrite_code and action is Action.REWRITE_DEPRECATED):
        # a rewrite with a code of its own (HC027) says it once, with the deprecation in its note
        code, text = message
        c.diag(start, code, text, rule, cuda)
    if action in (Action.REWRITE, Action.REWRITE_DEPRECATED):
        if rename:
            _rename(c, start, end, cuda, rule, spelling)
        elif rule.requires_define:  # a reshaped call: the caller writes the edit
            c.defines.add(rule.requires_define)


def _rename(c: Found, start: int, end: int, cuda: str, rule: Rule, spelling: str | None) -> None:
    if rule.requires_define:
        c.defines.add(rule.requires_define)
    hip = spelling or rule.hip
    if hip and hip != cuda:
        parts: tuple[Part, ...] = (hip,)
        if end - start > len(cuda):  # `cub:: /* why */ DeviceReduce`: a name with blanks or comments inside
            parts = keep_comments(c.tokens, (start, end), parts, c.source.newline_at(start))
        c.edits.append(Edit(start, end, parts, rule.id))
        c.replaced(start, cuda, hip, rule.id, rule.library)
        if rule.rewrite_code:  # a rewrite worth a note (a CUDA header guard's test: HC010)
            said = f" ({rule.note})" if rule.note else ""
            c.diag(start, rule.rewrite_code, f"{cuda} rewritten to {hip}{said}", rule, cuda)


# libraries NVIDIA versions apart from the CUDA toolkit: a rule's `nvidia:` versions are theirs
_NVIDIA_PRODUCTS = {"cudnn": "cuDNN", "nccl": "NCCL"}


def nvidia_status(rule: Rule) -> str:
    """What NVIDIA did with the CUDA name, for every diagnostic about it: `deprecated in CUDA 11.8, removed
    in CUDA 13.0` (the rule's `nvidia:` block); empty when CUDA still declares it, not deprecated."""
    product = _NVIDIA_PRODUCTS.get(rule.library, "CUDA")
    words = [f"{key} in {product} {rule.nvidia[key]}" for key in ("deprecated", "removed") if key in rule.nvidia]
    return ", ".join(words)


def status_message(c: Found, cuda: str, rule: Rule, action: Action) -> tuple[str, str] | None:
    """The (code, message) a resolution reports, if any."""
    said = "; ".join(filter(None, (nvidia_status(rule), rule.note)))
    note = f" ({said})" if said else ""
    if action is Action.UNSUPPORTED:
        return rule.code or UNSUPPORTED, f"{cuda} has no HIP equivalent; left unchanged{note}"
    if action is Action.REMOVED:
        if rule.status is not RuleStatus.REMOVED:  # its range ended at or before the target
            return (
                rule.code or REMOVED,
                f"{rule.hip} was removed in ROCm {rule.rocm.until}; {cuda} left unchanged{note}",
            )
        when = f" in ROCm {rule.rocm.removed}" if rule.rocm.removed else ""
        return rule.code or REMOVED, f"{cuda} was removed from HIP{when}; left unchanged{note}"
    if action is Action.UNAVAILABLE:
        first = f"; first in {rule.rocm.since}" if rule.rocm.since else ""
        return NOT_IN_TARGET, f"{rule.hip} is not in ROCm {c.settings.rocm}{first}; {cuda} left unchanged{note}"
    if action is Action.KEEP_EXPERIMENTAL:
        return EXPERIMENTAL, (
            f"{rule.hip} is experimental{note}; {cuda} left unchanged (pass --experimental to translate it)"
        )
    if action is Action.REWRITE_DEPRECATED:
        done = f"translated to {rule.hip}" if rule.hip != cuda else "HIP declares it too"
        return DEPRECATED, f"{cuda} is deprecated; {done}{note}"
    return None
