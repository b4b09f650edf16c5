"""Reading a project's definition of an operator on CUDA vector types from tokens (for vector_ops).

`inline __host__ __device__ float3 operator+(float3 a, float b) { return make_float3(a.x + b, ...); }`
becomes an OperatorDef: the operator, the operand form (vector_ops.FORMS), the vector type, and
whether its body is the plain elementwise one, component by component, in order (the scalar, if any,
applied to every component). Only namespace-scope definitions whose every part is read count; anything
else (a member, a template, a declaration without a body, a body that does something else) is None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.syntax import is_punct, matching_close, next_code, prev_code, split_top_level

BINARY_OPS = frozenset({"+", "-", "*", "/", "%", "^", "|", "&", "<<", ">>"})
UNARY_OPS = frozenset({"-", "~"})
COMMUTATIVE = frozenset({"+", "*", "&", "|", "^"})  # exactly, in IEEE arithmetic too: b * a.x == a.x * b
FIELDS = "xyzw"
# CUDA's vector element types, by the name's stem (float4 -> float), with the spellings of the scalar
# a definition may take (uint, ushort, ...: the typedefs of glibc and helper_math.h)
ELEMENTS: dict[str, frozenset[str]] = {
    "char": frozenset({"char", "signed char"}),
    "uchar": frozenset({"unsigned char", "uchar"}),
    "short": frozenset({"short", "short int", "signed short"}),
    "ushort": frozenset({"unsigned short", "unsigned short int", "ushort"}),
    "int": frozenset({"int", "signed", "signed int"}),
    "uint": frozenset({"unsigned int", "unsigned", "uint"}),
    "long": frozenset({"long", "long int"}),
    "ulong": frozenset({"unsigned long", "unsigned long int", "ulong"}),
    "longlong": frozenset({"long long", "long long int"}),
    "ulonglong": frozenset({"unsigned long long", "unsigned long long int"}),
    "float": frozenset({"float"}),
    "double": frozenset({"double"}),
}
# HIP's element type of each stem (HIP_vector_type<unsigned int, 2> is uint2)
_HIP_ELEMENTS = {
    "char": "char",
    "uchar": "unsigned char",
    "short": "short",
    "ushort": "unsigned short",
    "int": "int",
    "uint": "unsigned int",
    "long": "long",
    "ulong": "unsigned long",
    "longlong": "long long",
    "ulonglong": "unsigned long long",
    "float": "float",
    "double": "double",
}
VECTOR_TYPES = frozenset(f"{stem}{rank}" for stem in ELEMENTS for rank in "1234")
# what may stand before the return type: specifiers, and any identifier (a project's `HD` macro)
_SPECIFIER_KEYWORDS = frozenset({"inline", "__inline__", "__inline", "static", "constexpr", "extern"})


@dataclass(frozen=True)
class Param:
    type: str  # `float3`, `unsigned int`: the type without const and &
    name: str
    mutable_ref: bool  # `float3 &a`


@dataclass(frozen=True)
class OperatorDef:
    op: str  # `+`, `+=`, `-` (unary when form == "u")
    form: str  # vv, vs, sv, vv=, vs=, u
    vector: str  # float3
    first: int  # token index of the definition's first token
    keyword: int  # token index of `operator`
    close: int  # token index of the body's closing brace
    elementwise: bool  # the body is the plain elementwise one

    @property
    def signature(self) -> str:
        """`float3 + float`, `float3 += float3`, `-float3`, as the operands are written."""
        if self.form == "u":
            return f"{self.op}{self.vector}"
        scalar = _element_name(self.vector)
        left = scalar if self.form == "sv" else self.vector
        right = self.vector if self.form in ("vv", "vv=", "sv") else scalar
        return f"{left} {self.op} {right}"


def _element_name(vector: str) -> str:
    return _HIP_ELEMENTS[vector[:-1]]


def hip_type(vector: str) -> str:
    """`HIP_vector_type<float, 3>` for float3."""
    return f"HIP_vector_type<{_HIP_ELEMENTS[vector[:-1]]}, {vector[-1]}>"


def read_definition(tokens: Tokens, keyword: int, in_directive: Callable[[int], bool]) -> OperatorDef | None:
    """The operator definition whose `operator` keyword is at `keyword`, if it is one on vector types;
    `in_directive(k)`: token k is on a preprocessor line."""
    op_at = next_code(tokens, keyword)
    if op_at >= len(tokens) or tokens.kinds[op_at] != TokenKind.PUNCTUATION:
        return None
    op = tokens.text(op_at)
    open_ = next_code(tokens, op_at)
    if not is_punct(tokens, open_, "("):
        return None
    close_paren = matching_close(tokens, open_)
    body_open = next_code(tokens, close_paren) if close_paren is not None else len(tokens)
    if close_paren is None or not is_punct(tokens, body_open, "{"):
        return None  # a declaration, or `noexcept`/attributes we do not read
    body_close = matching_close(tokens, body_open)
    params = _params(tokens, open_, close_paren)
    head = _head(tokens, keyword, in_directive)
    if body_close is None or params is None or head is None:
        return None
    first, returns = head
    shape = _form(op, params, returns)
    if shape is None:
        return None
    form, vector = shape
    code = [tokens.text(k) for k in range(body_open + 1, body_close) if tokens.kinds[k] != TokenKind.COMMENT]
    elementwise = _elementwise_body(code, op, form, vector, params, returns)
    return OperatorDef(op, form, vector, first, keyword, body_close, elementwise)


def _words(tokens: Tokens, first: int, end: int) -> list[str]:
    return [tokens.text(k) for k in range(first, end) if tokens.kinds[k] != TokenKind.COMMENT]


def _params(tokens: Tokens, open_: int, close: int) -> list[Param] | None:
    spans = split_top_level(tokens, open_ + 1, close)
    if spans is None:
        return None
    out = []
    for start, end in spans:
        first = next(k for k in range(open_, close + 1) if tokens.starts[k] >= start)
        last = next(k for k in range(close, open_ - 1, -1) if tokens.ends[k] <= end)
        words = _words(tokens, first, last + 1)
        if len(words) < 2 or not words[-1].isidentifier():
            return None
        ref = "&" in words
        kept = [w for w in words[:-1] if w not in ("const", "&")]
        if not all(w.isidentifier() for w in kept) or words.count("&") > 1:
            return None
        out.append(Param(" ".join(kept), words[-1], ref and "const" not in words))
    return out


def _head(tokens: Tokens, keyword: int, in_directive: Callable[[int], bool]) -> tuple[int, tuple[str, bool]] | None:
    """(index of the definition's first token, (return type, returned by reference)), read backwards from
    `operator`: the return type, then specifiers. The definition must follow a statement, a brace or a
    preprocessor line (on its line or the one before)."""
    k = prev_code(tokens, keyword)
    ref = is_punct(tokens, k, "&")
    k = prev_code(tokens, k) if ref else k
    if k < 0 or tokens.kinds[k] not in (TokenKind.IDENTIFIER, TokenKind.KEYWORD):
        return None
    returns = tokens.text(k)
    first = k
    k = prev_code(tokens, k)
    while k >= 0 and tokens.kinds[k] in (TokenKind.IDENTIFIER, TokenKind.KEYWORD) and not in_directive(k):
        if tokens.kinds[k] == TokenKind.KEYWORD and tokens.text(k) not in _SPECIFIER_KEYWORDS | {"const"}:
            return None  # template, friend, a type of two words before `operator`: not ours
        first, k = k, prev_code(tokens, k)
    if not (k < 0 or is_punct(tokens, k, ";", "}", "{") or in_directive(k)):
        return None
    return first, (returns, ref)


def _form(op: str, params: list[Param], returns: tuple[str, bool]) -> tuple[str, str] | None:
    """(form, vector type) of a definition, from its operator, parameters and return type."""
    ret, by_ref = returns
    types = [p.type for p in params]
    vectors = [t for t in types if t in VECTOR_TYPES]
    if not vectors or any(t != vectors[0] for t in vectors):
        return None
    vector = vectors[0]
    scalar = ELEMENTS[vector.rstrip("1234")]
    if op.endswith("=") and op[:-1] in BINARY_OPS and len(params) == 2:
        if not params[0].mutable_ref or types[0] != vector or (ret, by_ref) not in (("void", False), (vector, True)):
            return None
        if types[1] == vector:
            return "vv=", vector
        return ("vs=", vector) if types[1] in scalar else None
    if ret != vector or by_ref:
        return None
    if len(params) == 1 and op in UNARY_OPS:
        return "u", vector
    if len(params) == 2 and op in BINARY_OPS:
        if types == [vector, vector]:
            return "vv", vector
        if types[0] == vector and types[1] in scalar:
            return "vs", vector
        if types[1] == vector and types[0] in scalar:
            return "sv", vector
    return None


def _elementwise_body(
    code: list[str], op: str, form: str, vector: str, params: list[Param], returns: tuple[str, bool]
) -> bool:
    """The body computes component by component exactly what HIP's operator computes."""
    rank = int(vector[-1])
    names = [p.name for p in params]
    if form.endswith("="):
        return _compound_body(code, op, form, names, rank, by_ref=returns[1])
    expected_call = ["return", f"make_{vector}", "("]
    if code[:3] != expected_call or code[-2:] != [")", ";"]:
        return False
    parts = _split_commas(code[3:-2])
    if len(parts) != rank:
        return False
    return all(part in _component_forms(op, form, names, f) for part, f in zip(parts, FIELDS))


def _component_forms(op: str, form: str, names: list[str], f: str) -> list[list[str]]:
    """The token lists a component of an elementwise body may be (the operands swapped when op commutes)."""
    if form == "u":
        return [[op, names[0], ".", f]]
    left = [names[0]] if form == "sv" else [names[0], ".", f]
    right = [names[1]] if form == "vs" else [names[1], ".", f]
    forms = [[*left, op, *right]]
    if op in COMMUTATIVE:
        forms.append([*right, op, *left])
    return forms


def _compound_body(code: list[str], op: str, form: str, names: list[str], rank: int, *, by_ref: bool) -> bool:
    """`a.x OP= b.x; a.y OP= b.y; ...` (any order, each component once), then `return a;` when it returns a
    reference."""
    if by_ref:
        if code[-3:] != ["return", names[0], ";"]:
            return False
        code = code[:-3]
    statements = _split(code, ";")
    if statements and statements[-1] == []:
        statements.pop()
    right = (lambda f: [names[1]]) if form == "vs=" else (lambda f: [names[1], ".", f])
    wanted = [[names[0], ".", f, op, *right(f)] for f in FIELDS[:rank]]
    return len(statements) == rank and all(w in statements for w in wanted)


def _split(code: list[str], sep: str) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for word in code:
        if word == sep:
            out.append([])
        else:
            out[-1].append(word)
    return out


def _split_commas(code: list[str]) -> list[list[str]]:
    """The arguments of a call, split at the commas outside parentheses."""
    out: list[list[str]] = [[]]
    depth = 0
    for word in code:
        depth += word in ("(", "[", "{")
        depth -= word in (")", "]", "}")
        if word == "," and depth == 0:
            out.append([])
        else:
            out[-1].append(word)
    return out
