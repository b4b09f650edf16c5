"""Arguments converted to another enum (a rule's `converts:`; hipconv.rules.conversions): where the HIP
function takes other values for the same meanings (hipBLAS's v1 *Ex functions before ROCm 6.0 take
hipblasDatatype_t where cuBLAS takes cudaDataType and cublasComputeType_t; its GemmEx functions from 6.0
take hipblasComputeType_t where code written for CUDA 10 passes a cudaDataType). An argument that is a
CUDA enumerator of the table becomes the HIP enumerator of the same meaning; one the HIP function takes as
translated stays as it is (another enumerator, a variable declared with a type that becomes the HIP one:
`cublasComputeType_t ct`); any other (a variable, an expression) is passed through the conversion's shim of
hipconv_compat.h, which maps the same values at run time. An enumerator without a counterpart, or a shim
with `--no-compat`, leaves the call as it is (HC018)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping

from hipconv.diagnostics import CUBLAS_TYPE_UNMAPPED
from hipconv.rules.conversions import conversion
from hipconv.rules.model import Rule, RuleKind
from hipconv.translate.comments import code_text
from hipconv.translate.compat import COMPAT_HEADER, NOTE_CODE
from hipconv.translate.declarations import declared_type_name
from hipconv.translate.edits import Part
from hipconv.translate.found import Found
from hipconv.translate.syntax import Span, next_code

CODE = CUBLAS_TYPE_UNMAPPED
_NAME = re.compile(r"^[A-Za-z_]\w*$")


def converted_arguments(c: Found, rule: Rule, bound: Mapping[str, Span]) -> dict[str, list[Part]] | str:
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
        if _passes(c, target, span, text):
            continue
        if not c.settings.compat:
            return f"{name} {text!r} needs {conv.shim} of {COMPAT_HEADER} to become a {target}, and shims are off"
        out[name] = [f"{conv.shim}(", span, ")"]
    c.dropped.extend(literals)  # the CUDA enumerators' own renames (and verdicts) are not in the output
    return out


def _passes(c: Found, target: str, span: Span, text: str) -> bool:
    """The argument is a name the HIP function takes as translated: an enumerator the conversion does not
    list (of another enum: CUBLAS_COMPUTE_32F where the conversion is from cudaDataType to
    hipblasComputeType_t), or a variable whose declaration above gives it a type that becomes `target`
    (`cublasComputeType_t ct`). Any other argument goes through the shim, which takes every value it can be."""
    if not _NAME.match(text):
        return False
    k = next_code(c.tokens, bisect.bisect_left(c.tokens.starts, span[0]) - 1)
    found = c.table.identifiers.get(text)
    if found is not None and found.rule is not None and found.rule.kind is RuleKind.ENUMERATOR:
        return True
    declared = declared_type_name(c.tokens, k)
    if declared is None or declared == target:
        return declared == target
    found = c.table.identifiers.get(declared)
    return found is not None and found.rewrites and found.rule is not None and found.rule.hip == target


def note_shims(c: Found, rule: Rule, cuda: str, start: int, parts: Mapping[str, list[Part]]) -> None:
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


_POINTER_ARRAY = re.compile(r"^((?:const )?\w+)\*\*$")


def cast_text(target: str) -> tuple[str, str]:
    """What goes around an argument cast to `target` (a rule's `casts:`): reinterpret_cast<target>(...), or,
    for an array of plain pointers (`const void**`, `void**`, `float**`, where CUDA takes an array of const
    pointers, `const void* const*` ...), a cast through the array of const pointers, which any argument CUDA
    takes converts to (`void**`, `void* const*`, `float**` for `const void* const*`: reinterpret_cast alone
    would cast constness away), then const_cast to HIP's type."""
    m = _POINTER_ARRAY.match(target)
    if m is None:
        return f"reinterpret_cast<{target}>(", ")"
    return f"const_cast<{target}>(reinterpret_cast<{m[1]}* const*>(", "))"
