"""A project's operators on vector types that HIP already declares (HC012; issue #22).

CUDA declares no operators for float4, int2, ...: projects define their own (NVIDIA's helper_math.h
and its many copies). HIP's vector types come with operators (HIP_vector_type, in
hip/amd_detail/amd_hip_vector_types.h), so after translation such a definition makes its uses ambiguous
(`float3 += float3` in every release; `float4 * float4` from HIP 6.x, where HIP's is a non-template
friend) or is served the same by HIP's. Which operator, operand form and vector type the targeted
release serves exactly (elementwise, the scalar applied to every component, a compound assignment
giving the left operand) is data: hipconv/data/hip.vector-ops, probed from the real HIP headers by
tools/derive/vector_ops.py.

A namespace-scope definition whose operands are one vector type (and its element type), whose body is
the plain elementwise one (vector_defs.read_definition), and that the targeted release serves, is
disabled: `#if 0` (with a comment naming HIP's declaration) before its first line, `#endif` after its
closing brace, and a note (HC012). Every other definition stays as it is: those HIP lacks (mixed types,
`make_float3(float4)`, `dot`), and those that compute something else (`^` as a cross product, a division
by a reciprocal, a scalar of another type), which HIP's would not compute the same.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Mapping

from hipconv.diagnostics import VECTOR_OPERATOR
from hipconv.resources import data_file, expand_spans, hip_names, hip_releases
from hipconv.translate.branches import closing_edit
from hipconv.translate.edits import Edit
from hipconv.translate.found import Found
from hipconv.translate.lexer import TokenKind, Tokens, after_splice
from hipconv.translate.syntax import is_punct, prev_code, starts_line
from hipconv.translate.vector_defs import VECTOR_TYPES, OperatorDef, hip_type, read_definition
from hipconv.translate.words import WORDY_KINDS, token_occurrences

NOTE_CODE = VECTOR_OPERATOR
RULE_ID = "vector-ops.disabled"
HIP_HEADER = "hip/amd_detail/amd_hip_vector_types.h"
MARK = "hipconv: HIP declares"  # in the `#if 0` line: a definition after one is disabled already
_TRIGGER = b"operator"
_VECTOR_WORDS = frozenset(v.encode() for v in VECTOR_TYPES)


def may_define_operators(words: frozenset[bytes]) -> bool:
    """The prefilter's test: the file may define an operator on a vector type."""
    return _TRIGGER in words and not words.isdisjoint(_VECTOR_WORDS)


# what the probes found different, by the name of the values that differ (tools/derive/vector_ops.value_sets)
DIFFERENCES = {
    "shift-counts": "shift counts from the element's width up to 31, which it shifts in the element type where "
    "the definition shifts the promoted int",
    "min-by-minus-one": "MIN / -1 and MIN % -1, which overflow in the element type where the definition divides "
    "the promoted int",
    "values": "the probed values",
}
_SAME = ""  # the verdict of a row without a fifth column: HIP serves the operator exactly


@functools.cache
def _verdicts() -> Mapping[tuple[str, str, str], Mapping[str, str]]:
    """(operator, form, vector type) -> {bundled release: verdict} (hipconv/data/hip.vector-ops): "" where HIP
    serves it exactly, else the name of the values where HIP's operator computes otherwise."""
    path = data_file("hip.vector-ops")
    if not path.is_file():
        return {}
    bundled = hip_releases()
    table: dict[tuple[str, str, str], dict[str, str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        op, form, types, spans, *differs = line.split("\t")
        for vector in types.split(","):
            where = table.setdefault((op, form, vector), {})
            where.update(dict.fromkeys(expand_spans(spans, bundled), differs[0] if differs else _SAME))
    return table


def _verdict(definition: OperatorDef) -> Mapping[str, str]:
    op = definition.op[:-1] if definition.form.endswith("=") else definition.op
    return _verdicts().get((op, definition.form, definition.vector), {})


def served_in(definition: OperatorDef) -> frozenset[str]:
    """The bundled releases whose HIP computes what the definition's operator does, for its operands."""
    return frozenset(rel for rel, verdict in _verdict(definition).items() if verdict == _SAME)


def differs_in(definition: OperatorDef, release: str) -> str | None:
    """What HIP's declaration of the definition's operator computes otherwise in a release (DIFFERENCES),
    or None where it serves it exactly or declares none."""
    verdict = _verdict(definition).get(release)
    return None if verdict is None or verdict == _SAME else DIFFERENCES.get(verdict, verdict)


def match_vector_operators(c: Found, words: frozenset[bytes]) -> None:
    """Disable the file's definitions of operators that the targeted HIP serves the same (HC012)."""
    if not may_define_operators(words):
        return
    tokens = c.tokens
    tail = (0, 0)  # what a splice joins to the last disabled definition's `}`: under its guard, before its #endif

    def in_directive(k: int) -> bool:
        """On a preprocessor line, or before the #endif of a definition disabled above (`}\\` then `#include
        <x>` stays code under the guard; what follows its #endif line starts a definition as after a directive)."""
        return c.directive_around(tokens.starts[k]) is not None or tail[0] <= tokens.starts[k] < tail[1]

    release = str(c.settings.rocm)
    scopes: _Scopes | None = None
    for keyword in token_occurrences(tokens, (_TRIGGER,), WORDY_KINDS):
        if in_directive(keyword):
            continue  # in a macro's body
        found = read_definition(tokens, keyword, in_directive)
        if found is None or not found.elementwise:
            continue
        differs = differs_in(found, release)
        if release not in served_in(found) and differs is None:
            continue
        scopes = scopes or _Scopes(tokens)
        if scopes.nested(found.first) or _disabled_already(c, found) or _api_first_word(c, found):
            continue  # a member, a friend, a local class's; hipconv's output; an API name is no specifier
        if differs is not None:
            _keep(c, found, differs)
        else:
            endif = _disable(c, found)
            tail = (tokens.ends[found.close], endif.start)


def _line_start(c: Found, found: OperatorDef) -> int:
    return c.tokens.body.rfind(b"\n", 0, c.tokens.starts[found.first]) + 1


def _api_first_word(c: Found, found: OperatorDef) -> bool:
    """The definition's first word, before its return type, is an API name (`cudaMalloc inline int2 operator+`),
    not a specifier: the `#if 0` line, written with that word, would undo its rename, or be left out where the
    word starts a call kept whole while the `#endif` stays; `__host__` and the like are specifiers."""
    word = c.tokens.text(found.first)
    returns = prev_code(c.tokens, found.keyword)
    if found.first >= returns - (1 if is_punct(c.tokens, returns, "&") else 0) or word.startswith("__"):
        return False
    resolution = c.table.identifiers.get(word)
    return (resolution is not None and resolution.rewrites) or word in hip_names()


def _disabled_already(c: Found, found: OperatorDef) -> bool:
    """The line before the definition is hipconv's `#if 0` (a rerun on hipconv's output); comments between
    them are skipped (`/* c */` before the definition on its line stays after the `#if 0` line)."""
    k = prev_code(c.tokens, found.first)
    directive = c.directive_around(c.tokens.starts[k]) if k >= 0 else None
    return directive is not None and MARK.encode() in c.tokens.body[directive[0] : directive[1]]


def _disable(c: Found, found: OperatorDef) -> Edit:
    """Put the definition under `#if 0` (HC012); the edit that writes its #endif."""
    tokens, body = c.tokens, c.tokens.body
    line_start = _line_start(c, found)
    nl = c.source.newline_at(line_start)
    declaration = hip_declaration(found)
    # the `#if 0` line is written with the definition's first word, a replacement: an insertion at the same
    # offset (the runtime include, at the top of a file that starts with the definition) goes before it
    opening = f"#if 0 // {MARK} {declaration}{nl}"
    # after another definition's `}` on its line, a line splice, or a comment (the runtime include, put at the top
    # of a file after its comments, would go inside an `#if 0` line put before the comment)
    if (
        not starts_line(tokens, found.first)
        or body[line_start : tokens.starts[found.first]].strip()
        or after_splice(body, line_start)
    ):
        line_start, opening = tokens.starts[found.first], nl + opening
    first = body[line_start : tokens.ends[found.first]].decode()
    c.edits.append(Edit.replace(line_start, tokens.ends[found.first], f"{opening}{first}", RULE_ID))
    # code after the brace, on its line or on the next one through a line splice (`}\`), goes on a line of
    # its own: an `#endif` before a splice would take that line into the directive; a `#` joined so stays code
    endif = closing_edit(tokens, found.close, nl, RULE_ID)
    c.edits.append(endif)
    message = (
        f"{found.signature}: HIP declares {declaration} ({HIP_HEADER}), which computes the same, component "
        f"by component, in ROCm {c.settings.rocm}; the project's definition is disabled (#if 0)"
    )
    c.diag(tokens.starts[found.keyword], NOTE_CODE, message, symbol=f"operator{found.op}", about_api=False)
    return endif


def _keep(c: Found, found: OperatorDef, differs: str) -> None:
    """A definition whose operator HIP declares but computes otherwise (issue #39 item 1): it stays, and
    the note says so, and what to do where a use is ambiguous with HIP's declaration."""
    message = (
        f"{found.signature}: kept: HIP declares {hip_declaration(found)} ({HIP_HEADER}), which does not compute "
        f"the same in ROCm {c.settings.rocm}: it differs at {differs}; the project's definition keeps CUDA's "
        "results (where the compiler calls a use ambiguous, give the definition a name of its own and call that)"
    )
    c.diag(c.tokens.starts[found.keyword], NOTE_CODE, message, symbol=f"operator{found.op}", about_api=False)


def hip_declaration(found: OperatorDef) -> str:
    """HIP's declaration that serves the definition's operator: `HIP_vector_type<float, 3>::operator+=`
    (a member: compound assignments and unary operators) or `operator*(HIP_vector_type<float, 3>, float)`."""
    vector = hip_type(found.vector)
    if found.form.endswith("=") or found.form == "u":
        return f"{vector}::operator{found.op}"
    operands = {"vv": (vector, vector), "vs": (vector, "U"), "sv": ("U", vector)}[found.form]
    return f"operator{found.op}({operands[0]}, {operands[1]})"


class _Scopes:
    """Whether a token lies inside a brace that is not a namespace's (a class, a function): the braces of
    the file, each with the count of such enclosing braces after it."""

    def __init__(self, tokens: Tokens) -> None:
        self.positions: list[int] = []
        self.depths: list[int] = []
        stack: list[bool] = []
        for k in range(len(tokens)):
            if tokens.kinds[k] != TokenKind.PUNCTUATION or tokens.raw(k) not in (b"{", b"}"):
                continue
            if tokens.raw(k) == b"{":
                stack.append(not _opens_namespace(tokens, k))
            elif stack:
                stack.pop()
            self.positions.append(k)
            self.depths.append(sum(stack))

    def nested(self, k: int) -> bool:
        i = bisect.bisect_left(self.positions, k) - 1
        return i >= 0 and self.depths[i] > 0


def _opens_namespace(tokens: Tokens, brace: int) -> bool:
    """`namespace {`, `namespace a::b {`, `extern "C++" {`."""
    k = prev_code(tokens, brace)
    if k >= 0 and tokens.kinds[k] == TokenKind.LITERAL:
        return tokens.text(prev_code(tokens, k)) == "extern"
    while k >= 0 and (tokens.kinds[k] == TokenKind.IDENTIFIER or is_punct(tokens, k, "::")):
        k = prev_code(tokens, k)
    return k >= 0 and tokens.text(k) == "namespace"
