"""Arguments converted to another enum (a rule's `converts:`; hipconv.rules.conversions): where the HIP
function takes other values for the same meanings (hipBLAS's v1 *Ex functions before ROCm 6.0 take
hipblasDatatype_t where cuBLAS takes cudaDataType and cublasComputeType_t). An argument that is a CUDA
enumerator becomes the HIP enumerator of the same meaning; any other argument (a variable, an expression)
is passed through the conversion's shim of hipconv_compat.h, which maps the same values at run time. An
enumerator without a counterpart, or a shim with `--no-compat`, leaves the call as it is (HC018)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from hipconv.rules.conversions import conversion
from hipconv.rules.model import Rule
from hipconv.translate.collector import MatchCollector
from hipconv.translate.comments import code_text
from hipconv.translate.compat import COMPAT_HEADER, NOTE_CODE
from hipconv.translate.edits import Part
from hipconv.translate.syntax import Span

CODE = "HC018"


def converted_arguments(c: MatchCollector, rule: Rule, bound: Mapping[str, Span]) -> dict[str, list[Part]] | str:
    """The HIP text of each converted argument of the call; or why the call cannot be converted."""
    out: dict[str, list[Part]] = {}
    literals: list[Span] = []
    for name, target in rule.converts.items():
        span = bound.get(name)
        if span is None:
            continue
        conv = conversion(target)
        text = code_text(c.tokens, span).strip()
        entry = conv.entries.get(text)
        if entry is not None and entry.hip is None:
            return f"{name} {text} has no {target} of the same meaning: {entry.why}"
        if entry is not None:
            out[name] = [entry.hip or ""]
            literals.append(span)
            continue
        if not c.settings.compat:
            return f"{name} {text!r} needs {conv.shim} of {COMPAT_HEADER} to become a {target}, and shims are off"
        out[name] = [f"{conv.shim}(", span, ")"]
    c.dropped.extend(literals)  # the CUDA enumerators' own renames (and verdicts) are not in the output
    return out


def note_shims(c: MatchCollector, rule: Rule, cuda: str, start: int, parts: Mapping[str, list[Part]]) -> None:
    """Each converted argument that goes through a shim: the shim in the file's hipconv_compat.h, and a note."""
    for name, part in parts.items():
        if len(part) == 1:
            continue
        shim = conversion(rule.converts[name]).shim
        c.shims.add(shim)
        target = rule.converts[name]
        message = f"{cuda}'s {name} converted to {target} by {shim} of {COMPAT_HEADER} (ROCm {c.settings.rocm})"
        c.diag(start, NOTE_CODE, message, rule, cuda, about_api=False)


def in_place(
    rule: Rule,
    bound: Mapping[str, Span],
    converted: Mapping[str, list[Part]],
    argument: Callable[[str], list[Part]],
    between: Span,
) -> list[Part]:
    """The HIP call of a rule that keeps the arguments in place: its name, then the call's own text between
    the arguments (line breaks and comments kept), each argument converted, cast or as it is. `between`: from
    the end of the callee to the end of the call."""
    assert rule.params is not None
    parts: list[Part] = [rule.hip or ""]
    pos = between[0]
    for name in rule.params:
        span = bound.get(name)
        if span is None:
            continue
        parts.append((pos, span[0]))
        parts.extend(converted.get(name) or argument(name))
        pos = span[1]
    parts.append((pos, between[1]))
    return parts


_POINTERS_TO_CONST = re.compile(r"^const (\w+)\*\*$")


def cast_text(target: str) -> tuple[str, str]:
    """What goes around an argument cast to `target` (a rule's `casts:`): reinterpret_cast<target>(...), or,
    for an array of pointers to const (`const void**`, where CUDA takes `const void* const*`), a cast through
    the array of const pointers to const, which any argument CUDA takes converts to (`void**`, `float**`, `const
    void* const*`: reinterpret_cast alone would cast constness away), then const_cast to HIP's type."""
    m = _POINTERS_TO_CONST.match(target)
    if m is None:
        return f"reinterpret_cast<{target}>(", ")"
    return f"const_cast<{target}>(reinterpret_cast<const {m[1]}* const*>(", "))"
