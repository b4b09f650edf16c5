"""CUDA version and architecture macros outside conditional directives (version_macros has those).

In C++ code, nvcc compiles `__CUDA_ARCH__` on the device pass only: a comparison with a number becomes its
value there, any other use is reported. A #define whose body is a test (`#define NEW_GPU (__CUDA_ARCH__ >=
700)`) is rewritten as an #if test is, when the macro is only tested by preprocessor conditionals in the file
(in a macro body, `__HIP_DEVICE_COMPILE__` stands for the device pass: `defined` from an expansion is
undefined behaviour); used otherwise, it is reported. A body that is a value, not a test, is left to the rules
(HC312, HC002).
"""

from __future__ import annotations

import bisect

from hipconv.diagnostics import SHIMMED, VERSION_TEST_REWRITTEN, VERSION_TEST_UNDECIDED
from hipconv.results import COMPAT_HEADER
from hipconv.translate.directives import Directives
from hipconv.translate.edits import Edit
from hipconv.translate.found import Found
from hipconv.translate.lexer import TokenKind, Tokens, unsplice
from hipconv.translate.pp_expr import Node, Undecidable, condition_text, evaluate, mentions, parse
from hipconv.translate.syntax import Span, is_punct, next_code, prev_code
from hipconv.translate.version_tests import (
    ARCH,
    MACRO_TEXT,
    MACROS,
    RULE_ID,
    VERSIONS,
    Test,
    Worlds,
    code_of,
    comments_text,
    first_macro,
    pp_tokens,
    report_undecidable,
    rewrite,
    written,
)
from hipconv.translate.words import token_occurrences

_COMPARISONS = ("<", ">", "<=", ">=", "==", "!=")
_LOOSER = ("(", ")", "&&", "||", "?", ":", ",", ";", "=", "{", "}")
_TESTS = frozenset((*_COMPARISONS, "&&", "||", "u!", "defined"))  # operators whose value is 0 or 1
_TESTED_BY = frozenset(("if", "elif", "ifdef", "ifndef", "elifdef", "elifndef", "undef"))
MACRO_DEVICE_TEST = "__HIP_DEVICE_COMPILE__"
ARCH_VALUE = "HIPCONV_CUDA_ARCH"  # __CUDA_ARCH__'s value: a shim of hipconv_compat.h


def match_defines(c: Found, w: Worlds, directives: Directives, done: list[Span]) -> None:
    """Rewrite or report each object-like #define whose body is a test of the macros."""
    tokens = c.tokens
    span_starts = [a for a, _ in directives.spans]
    for hash_i, name_i, name in directives.lines:
        macro_i = next_code(tokens, name_i)
        if name != "define" or macro_i >= len(tokens) or tokens.kinds[macro_i] != TokenKind.IDENTIFIER:
            continue
        span = directives.spans[bisect.bisect_right(span_starts, tokens.starts[hash_i]) - 1]
        text = unsplice(tokens.body[tokens.ends[macro_i] : span[1]])
        if not MACRO_TEXT.search(text):
            continue  # most definitions: none of the macros' bytes, found without reading the tokens
        after = macro_i + 1
        code = code_of(tokens, after, bisect.bisect_left(tokens.starts, span[1]))
        if not any(tokens.text(k) in MACROS for k in code):
            continue
        function_like = is_punct(tokens, after, "(") and tokens.starts[after] == tokens.ends[macro_i]
        try:
            node = None if function_like else parse(pp_tokens(tokens, code))
        except Undecidable:
            node = None  # not an expression
        if node is not None and _is_test(node) and mentions(node, MACROS):
            done.append(span)
            _define(c, w, tokens.text(macro_i), code, _use_outside_conditionals(c, directives, macro_i, span), done)
        elif c.settings.compat:  # its parameters are unknown here, or its body is not a test: a value
            for k in code:
                if tokens.text(k) == ARCH and not _defined_operand(tokens, k):
                    value_use(c, k, done)


def _is_test(node: Node) -> bool:
    while node.op == "()":
        node = node.kids[0]
    return node.op in _TESTS


def _define(c: Found, w: Worlds, macro: str, code: list[int], use: int | None, done: list[Span]) -> None:
    tokens = c.tokens
    pp = pp_tokens(tokens, code)
    where, offset = f"#define {macro}", tokens.starts[next(k for k in code if tokens.text(k) in MACROS)]
    if use is not None and c.settings.compat and all(tokens.text(k) not in VERSIONS for k in code):  # as written
        for k in code:
            if tokens.text(k) == ARCH and not _defined_operand(tokens, k):
                value_use(c, k, done)
        return
    if use is not None:
        tested = first_macro(pp)
        c.diag(
            offset,
            VERSION_TEST_UNDECIDED,
            f"{macro} is defined from a test of {tested} ({written(pp)}) and used outside preprocessor "
            f"conditionals (line {c.source.line_col(use)[0]}): left unchanged, and HIP defines no {tested}; "
            f"test what the code needs on AMD (__HIP_DEVICE_COMPILE__, __gfx*__, HIP_VERSION)",
            symbol=tested,
        )
        return
    span = (tokens.starts[code[0]], tokens.ends[code[-1]])
    test = Test(pp, span, written(pp), where, "", comments_text(tokens, code), MACRO_DEVICE_TEST, wrap=True)
    try:
        rewrite(c, w, test)
    except Undecidable as why:
        report_undecidable(c, w, where, offset, pp, str(why))


def _use_outside_conditionals(c: Found, directives: Directives, macro_i: int, own: Span) -> int | None:
    """The first use of the macro defined at token macro_i other than in an #if/#elif/#ifdef/#ifndef/#undef
    line of the file (None: only there, or nowhere)."""
    tokens = c.tokens
    kinds = {tokens.starts[hash_i]: name for hash_i, _, name in directives.lines}
    for i in token_occurrences(tokens, (tokens.raw(macro_i),), (TokenKind.IDENTIFIER,)):
        offset = tokens.starts[i]
        if own[0] <= offset < own[1]:
            continue
        line = c.directive_around(offset)
        if line is None or kinds.get(line[0]) not in _TESTED_BY:
            return offset
    return None


def match_code_uses(c: Found, w: Worlds, done: list[Span]) -> None:
    """__CUDA_ARCH__ in C++ code (nvcc compiles it on the device pass only): a comparison with a number is
    rewritten to its value there; any other use is reported."""
    tokens = c.tokens
    for i in token_occurrences(tokens, (ARCH.encode(),), (TokenKind.IDENTIFIER,)):
        if c.directive_around(tokens.starts[i]) is not None:
            continue
        done.append((tokens.starts[i], tokens.ends[i]))  # reported here, not as HC312 as well
        compared = _comparison(tokens, i)
        if compared is None and c.settings.compat:
            value_use(c, i, done)
            continue
        if compared is None:
            c.diag(
                tokens.starts[i],
                VERSION_TEST_UNDECIDED,
                f"{ARCH}'s value is used in code; HIP defines no {ARCH}, so this does not compile for AMD: compute "
                f"what it stands for another way (__HIP_DEVICE_COMPILE__, __gfx*__, warpSize), or drop --no-compat "
                f"for {ARCH_VALUE}",
                symbol=ARCH,
            )
            continue
        first, last = compared
        code = code_of(tokens, first, last + 1)
        pp = pp_tokens(tokens, code)
        old = written(pp)
        try:
            value = condition_text(evaluate(parse(pp), w.device))
        except Undecidable as why:
            c.diag(
                tokens.starts[i],
                VERSION_TEST_UNDECIDED,
                f"{old}: {why}; HIP defines no {ARCH}: left unchanged",
                symbol=ARCH,
            )
            continue
        start, end = tokens.starts[first], tokens.ends[last]
        c.edits.append(Edit.replace(start, end, f"{value} /* hipconv: {old} */{comments_text(tokens, code)}", RULE_ID))
        c.diag(
            start,
            VERSION_TEST_REWRITTEN,
            f"{old} now reads {value}, its value on the device pass of a current NVIDIA GPU "
            "(newer than every architecture tested), where nvcc compiles this code",
            symbol=ARCH,
        )


def value_use(c: Found, i: int, done: list[Span]) -> None:
    """__CUDA_ARCH__ at token i used for its value (in code, a macro body): HIPCONV_CUDA_ARCH, which
    hipconv_compat.h defines on both passes (templates/compat/HIPCONV_CUDA_ARCH.h.j2)."""
    start, end = c.tokens.starts[i], c.tokens.ends[i]
    done.append((start, end))
    c.edits.append(Edit.replace(start, end, ARCH_VALUE, RULE_ID))
    c.replaced(start, ARCH, ARCH_VALUE, RULE_ID, "nvcc")
    c.shims.add(ARCH_VALUE)
    c.diag(
        start,
        SHIMMED,
        f"{ARCH}'s value, which HIP lacks, written as {ARCH_VALUE}: {COMPAT_HEADER} defines it as the NVIDIA "
        "architecture the tests are read at on the AMD device pass, and as 0 on the host pass (where nvcc "
        f"leaves {ARCH} undefined); -D{ARCH_VALUE}=N sets another value",
        symbol=ARCH,
    )


def _defined_operand(tokens: Tokens, k: int) -> bool:
    """Whether the name at k is the operand of `defined` (`defined X`, `defined(X)`)."""
    before = prev_code(tokens, k)
    if before >= 0 and is_punct(tokens, before, "("):
        before = prev_code(tokens, before)
    return before >= 0 and tokens.text(before) == "defined"


def _comparison(tokens: Tokens, i: int) -> tuple[int, int] | None:
    """`__CUDA_ARCH__ OP number` or `number OP __CUDA_ARCH__` around token i: its first and last tokens."""
    after, before = next_code(tokens, i), prev_code(tokens, i)
    if is_punct(tokens, after, *_COMPARISONS) and tokens.kinds[next_code(tokens, after)] == TokenKind.LITERAL:
        first, last = i, next_code(tokens, after)
    elif (
        before >= 0
        and is_punct(tokens, before, *_COMPARISONS)
        and tokens.kinds[prev_code(tokens, before)] == TokenKind.LITERAL
    ):
        first, last = prev_code(tokens, before), i
    else:
        return None
    outside = prev_code(tokens, first), next_code(tokens, last)  # nothing binding tighter around it
    if _binds_looser(tokens, outside[0]) and _binds_looser(tokens, outside[1]):
        return first, last
    return None


def _binds_looser(tokens: Tokens, k: int) -> bool:
    return k < 0 or k >= len(tokens) or is_punct(tokens, k, *_LOOSER) or tokens.raw(k) == b"return"
