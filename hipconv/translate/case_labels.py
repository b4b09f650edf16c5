"""Case labels that translation would break (issue #22): error-string helpers switch over every status of
a library, and on HIP some of them have no counterpart, or two of them become one value.

- A label naming a CUDA constant that the targeted ROCm lacks (`case CUBLAS_STATUS_LICENSE_ERROR:`) would
  be an undeclared name; the switch value cannot be that status on HIP, so the label goes (it becomes a
  comment); the statements after it stay, for the labels or the fallthrough that reach them.
- Two labels that become one value (CUBLAS_GEMM_DEFAULT and CUBLAS_GEMM_DEFAULT_TENSOR_OP are both
  HIPBLAS_GEMM_DEFAULT; hipErrorMemoryAllocation and hipErrorOutOfMemory are both 2) would be a duplicate
  case value: the first keeps it, as a chain of ifs would, and the later label goes where the first is
  compiled (translate.branches). That is exact when both labels lead to the same code (the later one
  follows the first with no statement between, or the statements each runs, up to its `break`, `return`
  or the end of the switch, are the same tokens): a note (HC013). Otherwise HIP runs the first label's
  code for the value where CUDA ran the later one's (a GEMM-algorithm switch prints `0 0` where CUDA
  printed `0 1`): the label is still dropped or guarded, its code stays, and a warning (HC016) names both
  labels, so the user decides which code the one value runs.

Values come from hipconv/data/hip.enumerators (per ROCm release).
"""

from __future__ import annotations

from typing import NamedTuple

from hipconv.diagnostics import CASE_DROPPED, CASE_MERGED_DIFFERENT_CODE, UNGUARDED_DUPLICATE
from hipconv.resources import hip_enumerator_values
from hipconv.rules.model import Action, Resolution, RuleKind
from hipconv.translate.branches import CUT_BY_DIRECTIVES, Branches, branches, guard, later_duplicate
from hipconv.translate.comments import code_text, keep_comments
from hipconv.translate.directives import Directives
from hipconv.translate.edits import Edit
from hipconv.translate.found import Found
from hipconv.translate.lexer import COMMENT, IDENTIFIER, KEYWORD, LITERAL, TokenKind
from hipconv.translate.syntax import int_literal, is_punct, matching_close, next_code
from hipconv.translate.words import inside, token_occurrences

CODE = CASE_DROPPED
RULE_ID = "switch.case-label"
SWITCH_WORDS = (b"switch", b"case")  # a file without both has nothing for this module
_CONSTANTS = (RuleKind.ENUMERATOR, RuleKind.MACRO)  # what a case label names
_ABSENT = (Action.UNSUPPORTED, Action.REMOVED, Action.UNAVAILABLE)  # no counterpart in the target


class _Label(NamedTuple):
    case: int  # the `case` token
    constant: int  # the token of its constant
    colon: int  # the `:` token
    key: int | str | None  # its value after translation (the HIP name where unknown); None: not compared
    written: str  # the constant as translation writes it


def match_case_labels(c: Found, directives: Directives, words: frozenset[bytes]) -> None:
    """Drop the case labels with no HIP counterpart, and the later of two that become one value (in a file
    whose words hold `switch` and `case`)."""
    if not words.issuperset(SWITCH_WORDS):
        return
    tokens = c.tokens
    keyword = (TokenKind.KEYWORD,)
    bodies = [b for s in token_occurrences(tokens, (b"switch",), keyword) if (b := _switch_body(c, s))]
    if not bodies:
        return
    directive_starts = [a for a, _ in directives.spans]
    labels: dict[tuple[int, int], list[int]] = {}  # switch body -> its `case` tokens, in order
    for k in token_occurrences(tokens, (b"case",), keyword):
        if not inside(directives.spans, directive_starts, tokens.starts[k]):  # not in a macro's body
            around = [b for b in bodies if b[0] < k < b[1]]
            if around:
                labels.setdefault(max(around), []).append(k)
    found = [[label for k in cases if (label := _label(c, k))] for cases in labels.values()]
    if any(label.key is not None or label.written == "" for group in found for label in group):
        where = branches(c, directives)
        for end, group in zip((end for _, end in labels), found, strict=True):
            _one_switch(c, group, where, end)


def _switch_body(c: Found, switch: int) -> tuple[int, int] | None:
    """The braces of `switch (...) { ... }` (a switch without braces has no labels to fix here)."""
    tokens = c.tokens
    paren = next_code(tokens, switch)
    close = matching_close(tokens, paren) if is_punct(tokens, paren, "(") else None
    brace = next_code(tokens, close) if close is not None else -1
    end = matching_close(tokens, brace) if is_punct(tokens, brace, "{") else None
    return (brace, end) if end is not None else None


def _label(c: Found, case: int) -> _Label | None:
    """`case NAME:` or `case LITERAL:`, with what its constant becomes; written "" when it has no
    counterpart in the target (None for any other label)."""
    tokens = c.tokens
    constant = next_code(tokens, case)
    colon = next_code(tokens, constant)
    if not is_punct(tokens, colon, ":"):
        return None
    text = tokens.text(constant)
    if tokens.kinds[constant] == LITERAL:
        literal = int_literal(text)
        return None if literal is None else _Label(case, constant, colon, literal.value, text)
    if tokens.kinds[constant] != IDENTIFIER:
        return None
    values = hip_enumerator_values(str(c.settings.rocm))
    resolution = c.table.identifiers.get(text)
    rule = resolution.rule if resolution is not None else None
    if resolution is None or rule is None or rule.kind not in _CONSTANTS:
        return _Label(case, constant, colon, values.get(text), text)  # a HIP or user constant: as it is
    if resolution.action in _ABSENT:
        return _Label(case, constant, colon, None, "")
    if not resolution.rewrites or not rule.hip:
        return None  # experimental, shimmed: the target has it
    return _Label(case, constant, colon, values.get(rule.hip, rule.hip), rule.hip)


def _one_switch(c: Found, labels: list[_Label], where: Branches, end: int) -> None:
    """The labels of one switch, whose closing brace is token `end`."""
    tokens = c.tokens
    kept: dict[int | str, list[_Label]] = {}
    for label in labels:
        name = tokens.text(label.constant)
        if label.written == "":
            why = _absent(c, name, c.table.identifiers[name])
            _drop(c, label, f"case {name}: dropped (the switch value cannot be it on HIP): {why}")
            continue
        if label.key is None:
            continue
        earlier = kept.setdefault(label.key, [])
        paths = [where.path(tokens.starts[e.case]) for e in earlier]
        verdict = later_duplicate(where, paths, where.path(tokens.starts[label.case]))
        if verdict.condition is not None or not verdict.earlier:
            earlier.append(label)  # it stays, where no earlier one is compiled
        if not verdict.earlier:
            continue
        first = earlier[verdict.earlier[0]]
        line = c.source.line_col(tokens.starts[first.case])[0]
        same = _same_value(c, label, first, line)
        code, differs = CODE, ""
        if _runs(c, first, end) != _runs(c, label, end):
            code = CASE_MERGED_DIFFERENT_CODE
            differs = (
                f"; but the two labels run different code: where CUDA ran this label's, HIP runs that of line {line} "
                "for both; this label's code stays: decide which code the value runs"
            )
        if verdict.condition is None:
            _drop(c, label, f"case {name}: dropped (a duplicate case value on HIP): {same}{differs}", code)
            continue
        if _guarded_already(c, label):
            continue  # hipconv's output, translated again
        if not guard(c, label.case, label.colon, verdict.condition, _GUARD_WHY, RULE_ID):
            left = f"case {name}: left as it is, a duplicate case value on HIP where both labels are compiled"
            c.diag(tokens.starts[label.case], UNGUARDED_DUPLICATE, f"{left}: {same}; {CUT_BY_DIRECTIVES}")
            continue
        only = "kept only where no earlier label of its value is compiled"
        c.diag(tokens.starts[label.case], code, f"case {name}: {only}: {same}{differs}")


_JUMPS = frozenset({"break", "return", "continue", "goto", "throw"})


def _runs(c: Found, label: _Label, end: int) -> tuple[str, ...]:
    """The words of the code a label runs: its statements (comments and the labels met left out) up to the
    first jump at the switch's level (`break;`, `return x;`) or the switch's end (token `end`). A label right
    before another one runs that one's code."""
    tokens = c.tokens
    k = _past_labels(c, label.colon + 1, end)
    words: list[str] = []
    depth, statement = 0, True
    while k < end:
        if tokens.kinds[k] == COMMENT or c.directive_around(tokens.starts[k]) is not None:
            k += 1  # a comment, or a line of hipconv's guard (`#if !X`, `#endif`) around a label
            continue
        if depth == 0 and statement and tokens.text(k) in ("case", "default"):
            k = _past_labels(c, k, end)
            continue
        text = tokens.text(k)
        words.append(text)
        depth += (text in ("(", "[", "{")) - (text in (")", "]", "}"))
        statement = depth == 0 and text in (";", "}", ":")
        k += 1
        if depth == 0 and text == ";" and _statement_word(words) in _JUMPS:
            break
    return tuple(words)


def _statement_word(words: list[str]) -> str:
    """The first word of the statement that the last word (`;`) ends."""
    for n in range(len(words) - 2, -1, -1):
        if words[n] in (";", "{", "}", ":"):
            return words[n + 1]
    return words[0]


def _past_labels(c: Found, k: int, end: int) -> int:
    """The first code token at or after k that is not in a `case X:` or `default:` label (comments skipped)."""
    tokens = c.tokens
    while k < end:
        if tokens.kinds[k] == COMMENT or c.directive_around(tokens.starts[k]) is not None:
            k += 1
        elif tokens.text(k) in ("case", "default") and tokens.kinds[k] == KEYWORD:
            depth = 0
            while k < end and not (depth == 0 and is_punct(c.tokens, k, ":")):
                depth += tokens.text(k) in ("(", "[", "{")
                depth -= tokens.text(k) in (")", "]", "}")
                k += 1
            k += 1
        else:
            return k
    return end


_GUARD_WHY = "the value of an earlier label, where that one is compiled"


def _guarded_already(c: Found, label: _Label) -> bool:
    """The line before the label is hipconv's guard of it (`#if !X  // hipconv: the value of ...`)."""
    k = label.case - 1
    while k >= 0 and c.tokens.kinds[k] == COMMENT and c.directive_around(c.tokens.starts[k]) is None:
        k -= 1
    directive = c.directive_around(c.tokens.starts[k]) if k >= 0 else None
    return directive is not None and f"hipconv: {_GUARD_WHY}".encode() in c.tokens.body[directive[0] : directive[1]]


def _same_value(c: Found, label: _Label, first: _Label, line: int) -> str:
    """`it becomes X, as does case Y: of line N`, or, for two names of one value, what they are."""
    other = f"case {c.tokens.text(first.constant)}: of line {line}"
    if label.written == first.written:
        return f"it becomes {label.written}, as does {other}"
    return f"it becomes {label.written}, whose value {label.key} is that of {first.written} ({other})"


def _absent(c: Found, name: str, resolution: Resolution) -> str:
    """Why the target has no counterpart for a name."""
    rule = resolution.rule
    assert rule is not None
    if resolution.action is Action.UNAVAILABLE:
        return f"{rule.hip} is not in ROCm {c.settings.rocm} (first in {rule.rocm.since})"
    if resolution.action is Action.REMOVED and rule.hip:
        return f"{rule.hip} is not in ROCm {c.settings.rocm} (removed in {rule.rocm.until or rule.rocm.removed})"
    return f"{name} has no HIP counterpart" + (f" ({rule.note})" if rule.note else "")


def _drop(c: Found, label: _Label, message: str, code: str = CODE) -> None:
    """The label becomes a comment (`/* case X: */`); what it labels stays."""
    tokens = c.tokens
    start, end = tokens.starts[label.case], tokens.ends[label.colon]
    text = f"/* {code_text(tokens, (start, end)).replace('*/', '* /')} */"
    parts = keep_comments(tokens, (start, end), (text,), c.source.newline_at(start))
    c.edits.append(Edit(start, end, parts, RULE_ID))
    constant = (tokens.starts[label.constant], tokens.ends[label.constant])
    c.dropped.append(constant)  # its rename or its report is gone with it
    c.diag(start, code, message)
