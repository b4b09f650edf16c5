"""Null arguments that mean something else in HIP (HC023): a call of a CUDA function with an argument
contract (hipconv.rules.contracts) whose argument there is a null literal (`NULL`, `nullptr`, `0`, a cast of
one). The call is translated as usual; the report says what CUDA does with the null pointer and what the HIP
function does instead, since the translated program compiles and fails (or computes otherwise) at run time."""

from __future__ import annotations

import bisect

from hipconv.diagnostics import NULL_ARGUMENT_REJECTED
from hipconv.rules.contracts import contract_words, contracts
from hipconv.rules.model import Rule
from hipconv.translate.comments import code_text
from hipconv.translate.found import Found
from hipconv.translate.syntax import next_code, parse_call

CODE = NULL_ARGUMENT_REJECTED
_NULLS = frozenset({"NULL", "nullptr", "0", "0L", "0l", "0u", "0U", "__null"})


def contracted_names(words: frozenset[bytes]) -> frozenset[str]:
    """The functions with an argument contract among a file's words: usually none, and then no call is looked
    at."""
    return frozenset(w.decode() for w in words & contract_words())


def check_contracts(c: Found, callee: int, name: str, rule: Rule) -> None:
    """Report each argument of the call at token `callee` that breaks a contract of `name`."""
    call = parse_call(c.tokens, callee)
    if call is None:
        return
    for contract in contracts().get(name, ()):
        if contract.index >= len(call.args):
            continue
        span = call.args[contract.index]
        text = code_text(c.tokens, span).strip()
        if is_null_literal(text):
            message = f"{name}'s {contract.param} is {text}: {contract.note} (translated to {rule.hip}; fix by hand)"
            first = next_code(c.tokens, bisect.bisect_left(c.tokens.starts, span[0]) - 1)
            c.diag(c.tokens.starts[first], CODE, message, rule, name, about_api=False)


def is_null_literal(text: str) -> bool:
    """`NULL`, `nullptr`, `0`, and the same in parentheses or behind a C or C++ cast (`(int*)NULL`,
    `static_cast<int*>(nullptr)`)."""
    text = "".join(text.split())
    while True:
        if text in _NULLS:
            return True
        if text.startswith("(") and text.endswith(")") and text.count("(") == 1:
            text = text[1:-1]
        elif text.startswith("(") and ")" in text:
            text = text[text.index(")") + 1 :]
        elif text.startswith(("static_cast<", "reinterpret_cast<")) and text.endswith(")") and ">(" in text:
            text = text[text.index(">(") + 1 :]
        else:
            return False
