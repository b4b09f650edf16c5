"""Preprocessor #if expressions: parsed from their tokens and evaluated in part.

Some macros have known values in a world (the host or device pass of nvcc for one CUDA release, or
HIP's, where none of them is defined); every other name stays as it is written. Evaluating gives an
integer, or the residue of the expression that the known macros do not decide (`defined(FOO)`), or
raises Undecidable where a known macro's value meets something unknown (`__CUDA_ARCH__ >= FOO_ARCH`).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Union

from hipconv.translate.branches import grouped
from hipconv.translate.syntax import int_literal
from hipconv.translate.words import line_directives


class Undecidable(Exception):
    """The known macros' values cannot be carried through this expression."""


class Newest(enum.Enum):
    """The value of __CUDA_ARCH__ on the device pass of a current NVIDIA GPU: newer than every architecture
    a test names, so `>= N` and `> N` hold and `< N`, `<= N` fail; nothing else is known of it."""

    ARCH = "newer than any"


class Residue(NamedTuple):
    text: str  # what remains of the expression, as written (no known macro in it)


Value = Union[int, Newest, Residue]
Known = Mapping[str, Union[int, Newest, None]]  # a known macro's value in one world; None: not defined


class PPToken(NamedTuple):
    text: str
    spaced: bool  # blank space before it in the source


@dataclass(frozen=True)
class Node:
    op: str  # "num", "name", "defined", "call", or the operator ("!", "u-", "+", "?", ...)
    text: str  # the source text of the whole node
    kids: tuple[Node, ...] = ()
    value: int = 0  # a literal's value; "name"/"defined": the name is `text`/`name`
    name: str = ""


_BINARY = {
    "||": 1,
    "&&": 2,
    "|": 3,
    "^": 4,
    "&": 5,
    "==": 6,
    "!=": 6,
    "<": 7,
    ">": 7,
    "<=": 7,
    ">=": 7,
    "<<": 8,
    ">>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
}
_ORDER = frozenset({"<", ">", "<=", ">="})


class _Parser:
    def __init__(self, tokens: Sequence[PPToken]) -> None:
        self.tokens = tokens
        self.pos = 0

    def text(self, first: int, end: int) -> str:
        return "".join(
            (" " if t.spaced and k > first else "") + t.text for k, t in enumerate(self.tokens[first:end], first)
        )

    def peek(self) -> str:
        return self.tokens[self.pos].text if self.pos < len(self.tokens) else ""

    def take(self, expected: str = "") -> str:
        got = self.peek()
        if not got or (expected and got != expected):
            raise Undecidable(f"expected {expected or 'more'} in the expression")
        self.pos += 1
        return got

    def expression(self) -> Node:
        first = self.pos
        test = self.binary(1)
        if self.peek() != "?":
            return test
        self.take("?")
        then = self.expression()
        self.take(":")
        other = self.expression()
        return Node("?", self.text(first, self.pos), (test, then, other))

    def binary(self, level: int) -> Node:
        first = self.pos
        left = self.unary()
        while _BINARY.get(self.peek(), 0) >= level:
            op = self.take()
            right = self.binary(_BINARY[op] + 1)
            left = Node(op, self.text(first, self.pos), (left, right))
        return left

    def unary(self) -> Node:
        first = self.pos
        word = self.take()
        if word in ("!", "~", "-", "+"):
            operand = self.unary()
            return Node("u" + word, self.text(first, self.pos), (operand,))
        if word == "(":
            inner = self.expression()
            self.take(")")
            return Node("()", self.text(first, self.pos), (inner,))
        if word == "defined":
            parens = self.peek() == "("
            if parens:
                self.take("(")
            name = self.take()
            if parens:
                self.take(")")
            return Node("defined", self.text(first, self.pos), name=name)
        literal = int_literal(word)
        if literal is not None:
            return Node("num", word, value=literal.value)
        if not (word[0].isalpha() or word[0] == "_"):
            raise Undecidable(f"`{word}` in the expression")
        if self.peek() == "(":  # a function-like macro: kept whole
            depth = 0
            while True:
                t = self.take()
                depth += (t == "(") - (t == ")")
                if depth == 0:
                    break
            return Node("call", self.text(first, self.pos))
        return Node("name", word, name=word)


def parse(tokens: Sequence[PPToken]) -> Node:
    """The expression of an #if/#elif line; Undecidable when it is not one this parser reads. A line is read
    once (the chain's plan, its rewrite and its reading on each pass all ask), and its tree shared: a Node is
    frozen."""
    key = tuple(tokens)
    node = _PARSED.get(key)
    if node is None:
        parser = _Parser(tokens)
        node = parser.expression()
        if parser.pos != len(tokens):
            raise Undecidable(f"`{parser.peek()}` after the expression")
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        _PARSED[key] = node
    return node


_PARSED: dict[tuple[PPToken, ...], Node] = {}
_PARSED_LIMIT = 1 << 12


def mentions(node: Node, names: frozenset[str]) -> bool:
    """Whether the node uses one of the names (a function-like macro's arguments included)."""
    if node.op in ("name", "defined"):
        return node.name in names
    if node.op == "call":
        return any(word in names for word in node.text.replace("(", " ").replace(")", " ").replace(",", " ").split())
    return any(mentions(kid, names) for kid in node.kids)


def evaluate(node: Node, known: Known) -> Value:
    """The node's value where the `known` macros have their values (a residue for the rest)."""
    return _evaluate(node, known, frozenset(known))


def _evaluate(node: Node, known: Known, names: frozenset[str]) -> Value:
    """evaluate(), with the known macros' names made a set once for the whole expression."""
    if not mentions(node, names):
        return node.value if node.op == "num" else Residue(node.text)
    if node.op == "name":
        known_value = known[node.name]
        return 0 if known_value is None else known_value
    if node.op == "defined":
        return int(known[node.name] is not None)
    if node.op == "()":
        return _evaluate(node.kids[0], known, names)
    if node.op == "call":
        raise Undecidable("it is passed to a function-like macro")
    if node.op in ("&&", "||"):
        return _logical(node.op, _evaluate(node.kids[0], known, names), lambda: _evaluate(node.kids[1], known, names))
    if node.op == "u!":
        value = _evaluate(node.kids[0], known, names)
        return Residue("!" + grouped(value.text)) if isinstance(value, Residue) else int(not _truthy(value))
    if node.op == "?":
        test = _evaluate(node.kids[0], known, names)
        if isinstance(test, Residue):
            then, other = (_text(_evaluate(kid, known, names)) for kid in node.kids[1:])
            return Residue(f"{grouped(test.text)} ? {grouped(then)} : {grouped(other)}")
        return _evaluate(node.kids[1 if _truthy(test) else 2], known, names)
    values = [_evaluate(kid, known, names) for kid in node.kids]
    return _arithmetic(node.op, values)


def _logical(op: str, left: Value, right_of: Callable[[], Value]) -> Value:
    """`&&`/`||` with the right operand evaluated only when the left does not decide."""
    stop = op == "||"  # the left operand's truth that decides alone
    if not isinstance(left, Residue):
        if _truthy(left) == stop:
            return int(stop)
        return _truth(right_of())
    right = _truth(right_of())
    if isinstance(right, Residue):
        return Residue(f"{grouped(left.text)} {op} {grouped(right.text)}")
    return int(stop) if bool(right) == stop else left


def _truth(value: Value) -> Value:
    return value if isinstance(value, Residue) else int(_truthy(value))


def _truthy(value: Value) -> bool:
    """An architecture's number is never 0."""
    return value is Newest.ARCH or bool(_number(value))


def _number(value: Value) -> int:
    if not isinstance(value, int):
        raise Undecidable("the architecture's number is computed with, not only compared")
    return value


def _text(value: Value) -> str:
    return value.text if isinstance(value, Residue) else str(_number(value))


def _arithmetic(op: str, values: list[Value]) -> int:
    if any(isinstance(v, Residue) for v in values):
        raise Undecidable("a known macro's value meets a name whose value is unknown here")
    if op in ("==", "!=") and Newest.ARCH in values:
        raise Undecidable("it is compared with one architecture, and no AMD GPU is that NVIDIA one")
    if op in _ORDER and (Newest.ARCH in values) and len(values) == 2:
        left, right = values
        if left is Newest.ARCH and isinstance(right, int):
            return int(op in (">", ">="))
        if right is Newest.ARCH and isinstance(left, int):
            return int(op in ("<", "<="))
    if len(values) == 1:
        (value,) = (_number(v) for v in values)
        return {"u-": -value, "u+": value, "u~": ~value}[op]
    a, b = (_number(v) for v in values)
    if op in ("/", "%") and b == 0:
        raise Undecidable("division by zero")
    return _BINARY_OPS[op](a, b)


def _divide(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


_BINARY_OPS: dict[str, Callable[[int, int], int]] = {
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
    "&": lambda a, b: a & b,
    "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b),
    "<": lambda a, b: int(a < b),
    ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b),
    "<<": lambda a, b: a << b,
    ">>": lambda a, b: a >> b,
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": _divide,
    "%": lambda a, b: a - _divide(a, b) * b,
}


def condition_text(value: Value) -> str:
    """A value as an #if condition: `1`, `0` or the residue."""
    return value.text if isinstance(value, Residue) else str(int(_truthy(value)))


def by_pass(host: Value, device: Value, device_test: str) -> str:
    """One condition that is `host` on the host pass and `device` on the device pass (`device_test`: the
    test that holds on the device pass only)."""
    h, d = condition_text(host), condition_text(device)
    if h == d:
        return h
    on_host = f"!{grouped(device_test)}"
    if (h, d) == ("0", "1"):
        return device_test
    if (h, d) == ("1", "0"):
        return on_host
    if d in ("0", "1"):
        return f"{on_host} && {grouped(h)}" if d == "0" else f"{device_test} || {grouped(h)}"
    if h in ("0", "1"):
        return f"{device_test} && {grouped(d)}" if h == "0" else f"{on_host} || {grouped(d)}"
    return f"{device_test} ? {grouped(d)} : {grouped(h)}"


# an object-like #define on one line whose body may be an integer constant expression (no splice, no string)
_DEFINE = re.compile(  # at a line start (words.line_directives)
    rb"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([\w \t()+\-*/%<>=!&|^~?:]+?)[ \t]*"
    rb"(?://[^\n]*|/\*[^\n]*?\*/[ \t]*)?(?=\n|\Z)"
)
_WORD = re.compile(r"\w+|<<|>>|<=|>=|==|!=|&&|\|\||\S")
# the `#` of each #define with a digit after it on its line: the only ones _DEFINE may match and keep (a
# header's guards and most of its #if, #endif and #include lines are not looked at)
_NUMERIC_DEFINE = re.compile(rb"#[ \t]*define[ \t](?=[^\n]*\d)")


def integer_defines(body: bytes) -> tuple[tuple[str, str], ...]:
    """The (name, body) of each one-line object-like #define whose body may be an integer constant expression
    (`#define CC_VOLTA 700`, `#define CC_RDNA2 (CC_OFFSET_AMD + 1030)`), without lexing: a header's share of
    the project's facts (project.FileFacts); version_tests.integer_macros folds them."""
    found = []
    for m in line_directives(_DEFINE, body, _NUMERIC_DEFINE):
        text = m.group(2).decode("ascii", "replace")
        if any(ch.isdigit() for ch in text):
            found.append((m.group(1).decode("ascii", "replace"), " ".join(text.split())))
    return tuple(found)


def text_tokens(text: str) -> list[PPToken]:
    """An expression's tokens from its text (integer_defines' bodies)."""
    return [PPToken(m.group(0), m.start() > 0 and text[m.start() - 1] == " ") for m in _WORD.finditer(text)]
