"""The warp size as a project constant (issue #39 item 6): `#define WARP_SIZE 32`, `constexpr int kWarpSize = 32;`
(names that say "the warp size", valued 32 or 64), and where each use of such a name sits.

A use is on the device (a __global__ or __device__ function's body, a __shared__ or __device__ declaration, a
kernel's signature), on the host (any other function's body), or on a side the tokens do not decide (a
__host__ __device__ function, a macro's body, a preprocessor condition, a declaration at file or class scope that
either side may read). Where it sits inside its statement says whether C++ needs a constant there (an array
bound, a template argument, static_assert, a constexpr, a case label, an enumerator) or takes a run-time value.
Tokens of one file, plus the integer macros of the project headers it includes (FileContext.project_macros)."""

from __future__ import annotations

import bisect
import enum
import re
from collections.abc import Iterable
from typing import NamedTuple

from hipconv.translate.facts.builtin_warp_size import BUILTIN, constant_context
from hipconv.translate.lexer import IDENTIFIER, KEYWORD, TokenKind, Tokens, unsplice
from hipconv.translate.statements import statement_start
from hipconv.translate.syntax import int_literal, is_punct, matching_open, next_code, prev_code
from hipconv.translate.words import has_spliced_word, token_occurrences

# names that say "the warp size": WARP_SIZE, kWarpSize, THREADS_PER_WARP (hipconv scan's HC301 reads them too)
WARP_SIZE_NAME = re.compile(r"(?i)warp_?(size|width|threads|lanes)|threads_?per_?warp|lanes_?per_?warp")
_CLOSE_BRACE = ord("}")
_WARP_SIZE_LOWER = re.compile(WARP_SIZE_NAME.pattern.removeprefix("(?i)").encode())  # on a lowered body
WARP_SIZES = frozenset({32, 64})  # a CUDA warp; a constant kept for AMD's wave64
_DEVICE_DECLARATIONS = frozenset({"__global__", "__device__", "__shared__", "__constant__", "__managed__"})
_FUNCTION_TAILS = frozenset({"const", "noexcept", "override", "final", "mutable", "volatile"})
_STATEMENT_WORDS = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof"})
_DIRECTIVE = re.compile(rb"[ \t]*#[ \t]*(\w+)[ \t]*(\w*)")


class WarpSide(enum.Enum):
    DEVICE = "device"
    HOST = "host"
    UNDECIDED = "undecided"


class WarpSizeUse(NamedTuple):
    token: int  # the name's token
    side: WarpSide
    constant: str | None  # why C++ needs a constant there ('as an array bound'); None where a run-time value does
    why: str  # for WarpSide.UNDECIDED: where it is, which neither side owns


def may_name_warp_size(body: bytes) -> bool:
    """The prefilter's test: a word of the file names the warp size. Most files have no such bytes at all, found
    by one search; a file where a line splice may cut a name is searched again with its splices joined."""
    lowered = body.lower()
    if b"warp" in lowered and _WARP_SIZE_LOWER.search(lowered) is not None:
        return True
    if not has_spliced_word(body):
        return False
    joined = unsplice(body).lower()
    return b"warp" in joined and _WARP_SIZE_LOWER.search(joined) is not None


def warp_size_constants(tokens: Tokens, words: frozenset[bytes], macros: Iterable[tuple[str, str]]) -> dict[str, int]:
    """The names the file (or a project header it includes: `macros`, name -> body) defines as the warp size:
    `#define WARP_SIZE 32`, `constexpr int kWarpSize = 32;`, `static const unsigned WARP_THREADS{64};`."""
    found = {name: int(body) for name, body in macros if body.strip() in ("32", "64") and _names_warp_size(name)}
    for word in sorted(_named_words(unsplice(tokens.body) if tokens.spliced else tokens.body, words)):
        name = word.decode()
        if not _names_warp_size(name):
            continue
        for i in token_occurrences(tokens, (word,), (TokenKind.IDENTIFIER,)):
            value = _defined_value(tokens, i)
            if value is not None:
                found[name] = value
    return found


def _named_words(body: bytes, words: frozenset[bytes]) -> set[bytes]:
    """The file's words that hold a warp-size name: most files have no `warp` at all, found at C speed; in the
    others the regex runs over the words, each once, not over the body, where a kernel names `warp` at every
    other line. A name a line splice cuts is seen in the body with its splices joined (file_words joins them too)."""
    if b"warp" not in body.lower():  # every spelling of the names holds it: most files stop here
        return set()
    joined = b" ".join(words)
    lowered = joined.lower()
    found = set()
    for m in _WARP_SIZE_LOWER.finditer(lowered):  # a match lies inside one word: the word around it
        start = lowered.rfind(b" ", 0, m.start()) + 1
        end = lowered.find(b" ", m.end())
        found.add(joined[start : end if end >= 0 else len(joined)])
    return found


def _names_warp_size(name: str) -> bool:
    # hipconv_compat.h's own names (hipconv_warp_size) are the split's output: a second run leaves them
    return name != BUILTIN and not name.startswith("hipconv_") and WARP_SIZE_NAME.search(name) is not None


def _defined_value(tokens: Tokens, i: int) -> int | None:
    """32 or 64 when the name at i is defined as that: an object-like macro or a const/constexpr variable."""
    before, after = prev_code(tokens, i), next_code(tokens, i)
    if tokens.text(before) == "define" and is_punct(tokens, prev_code(tokens, before), "#"):
        literal = after  # `#define WARP_SIZE(x)` is function-like: its next token is `(`
    elif is_punct(tokens, after, "=", "{") and _const_declaration(tokens, i):
        literal = next_code(tokens, after)
    else:
        return None
    found = int_literal(tokens.text(literal)) if 0 <= literal < len(tokens) else None
    end = next_code(tokens, literal)
    if found is None or found.value not in WARP_SIZES:
        return None
    ends = end >= len(tokens) or is_punct(tokens, end, ";", "}", ",") or _line_of(tokens, end) != _line_of(tokens, i)
    return found.value if ends else None


def _const_declaration(tokens: Tokens, i: int) -> bool:
    start = statement_start(tokens, i)
    return any(tokens.text(k) in ("const", "constexpr") for k in range(start, i))


def _line_of(tokens: Tokens, i: int) -> int:
    return tokens.body.count(b"\n", 0, tokens.starts[i])


def warp_size_uses(tokens: Tokens, names: Iterable[str]) -> list[WarpSizeUse]:
    """Each use of the names (not their definitions, members or `defined(NAME)` tests), in order."""
    found = []
    spellings = [name.encode() for name in names]
    heads: dict[int, set[str]] = {}  # a function's head, read once for all its uses
    opens: dict[int, bool] = {}  # whether a `{` opens a function's body, read once for all the uses inside it
    for k in token_occurrences(tokens, spellings, (TokenKind.IDENTIFIER,)):
        before = prev_code(tokens, k)
        if is_punct(tokens, before, ".", "->", "::") or _defined_value(tokens, k) is not None:
            continue
        use = _use(tokens, k, heads, opens)
        if use is not None:
            found.append(use)
    return found


def _use(tokens: Tokens, k: int, heads: dict[int, set[str]], opens: dict[int, bool]) -> WarpSizeUse | None:
    directive = _directive(tokens, k)
    if directive is not None:
        if directive[0] == "define":
            macro = directive[1]
            why = f"in the body of the macro {macro}, whose uses decide the side"
            return WarpSizeUse(k, WarpSide.UNDECIDED, None, why)
        if directive[0] in ("if", "elif") and not _tested_for_definition(tokens, k):
            why = "in a preprocessor condition, which reads the same value on the host and the device pass"
            return WarpSizeUse(k, WarpSide.UNDECIDED, None, why)
        return None  # #ifdef, defined(NAME), #undef: tests of the macro, not of its value
    constant = constant_context(tokens, k)
    body = _function_body(tokens, k, opens)
    if body is None:  # a declaration at namespace or class scope, or a function's signature
        head = _declaration_words(tokens, k) | _declaration_rest(tokens, k)
        if head & _DEVICE_DECLARATIONS and "__host__" not in head:
            return WarpSizeUse(k, WarpSide.DEVICE, constant, "")
        why = "in a declaration at file or class scope, which code on either side may read"
        return WarpSizeUse(k, WarpSide.UNDECIDED, constant, why)
    if body not in heads:
        heads[body] = _declaration_words(tokens, body)
    head = heads[body]
    if "__host__" in head and "__device__" in head:
        return WarpSizeUse(
            k, WarpSide.UNDECIDED, constant, "in a __host__ __device__ function, which runs on both sides"
        )
    if head & {"__global__", "__device__"}:
        return WarpSizeUse(k, WarpSide.DEVICE, constant, "")
    return WarpSizeUse(k, WarpSide.HOST, constant or _const_used_as_constant(tokens, k, body), "")


def _tested_for_definition(tokens: Tokens, k: int) -> bool:
    """`defined(NAME)`, `defined NAME`: the name's definition is tested, not its value."""
    before = prev_code(tokens, k)
    before = prev_code(tokens, before) if is_punct(tokens, before, "(") else before
    return tokens.text(before) == "defined"


def _directive(tokens: Tokens, k: int) -> tuple[str, str] | None:
    """(the directive's name, the word after it) when token k is on a preprocessor line (continued lines count)."""
    body, start = tokens.body, tokens.starts[k]
    line = body.rfind(b"\n", 0, start) + 1
    while body[max(line - 3, 0) : line].endswith((b"\\\n", b"\\\r\n")):  # a continued line: the directive is above
        line = body.rfind(b"\n", 0, line - 2) + 1
    found = _DIRECTIVE.match(body, line, start)
    return (found.group(1).decode(), found.group(2).decode()) if found else None


def _function_body(tokens: Tokens, k: int, opens: dict[int, bool]) -> int | None:
    """The `{` of the innermost function body around token k (a lambda without attributes counts as the
    function around it), or None at namespace or class scope. `opens`: what each `{` was found to open."""
    for brace in tokens.enclosing_braces(k):
        found = opens.get(brace)
        if found is None:
            found = opens[brace] = _opens_function(tokens, brace)
        if found:
            return brace
    return None


def _opens_function(tokens: Tokens, brace: int) -> bool:
    """`name(...) {`, `name(...) const {`, `[&](...) __device__ {`: a lambda counts only with an attribute."""
    j = prev_code(tokens, brace)
    attributes = set()
    while j >= 0 and tokens.text(j) in _FUNCTION_TAILS | {"__device__", "__host__"}:
        attributes.add(tokens.text(j))
        j = prev_code(tokens, j)
    if not is_punct(tokens, j, ")"):
        return False
    opener = matching_open(tokens, j)
    name = prev_code(tokens, opener) if opener is not None else -1
    while name >= 0 and tokens.text(name) in ("__device__", "__host__"):
        attributes.add(tokens.text(name))
        name = prev_code(tokens, name)
    if is_punct(tokens, name, "]"):  # a lambda: its own side only where it says one
        return bool(attributes)
    return name >= 0 and tokens.kinds[name] == IDENTIFIER and tokens.text(name) not in _STATEMENT_WORDS


def _declaration_words(tokens: Tokens, k: int) -> set[str]:
    """The words of the declaration around (or opened by the `{` at) token k, back to the `;`, `{` or `}` before
    it, lambda attributes included: what says a function's or a variable's side."""
    words, depth, j = set(), 0, k
    while j >= 0:
        j = prev_code(tokens, j)
        if j < 0:
            break
        if is_punct(tokens, j, ")", "]"):
            depth += 1
        elif is_punct(tokens, j, "(", "["):
            if depth == 0:
                continue  # k sits inside it: a parameter list or a template's arguments
            depth -= 1
        elif depth == 0 and is_punct(tokens, j, ";", "{", "}"):
            break
        elif tokens.kinds[j] in (IDENTIFIER, KEYWORD):
            words.add(tokens.text(j))
    return words


def _declaration_rest(tokens: Tokens, k: int) -> set[str]:
    """The words of the declaration after token k, to its `;` or body: a kernel after its template head."""
    words, depth, j = set(), 0, k
    while j < len(tokens):
        j = next_code(tokens, j)
        if j >= len(tokens) or depth == 0 and is_punct(tokens, j, ";", "{", "}"):
            break
        depth += is_punct(tokens, j, "(", "[") - is_punct(tokens, j, ")", "]")
        if tokens.kinds[j] in (IDENTIFIER, KEYWORD):
            words.add(tokens.text(j))
    return words


def _const_used_as_constant(tokens: Tokens, k: int, body: int) -> str | None:
    """`const int threads = 4 * WARP_SIZE;` in a host function whose body then uses `threads` where a constant is
    needed: the initialiser must stay a constant. Why, or None."""
    start = statement_start(tokens, k)
    if not any(tokens.text(m) == "const" for m in range(start, k)):
        return None
    j, depth = prev_code(tokens, k), 0
    while j >= start:  # back to the `=` (or `{`/`(` initialiser) of the declarator that holds k
        if is_punct(tokens, j, ")", "]", "}"):
            depth += 1
        elif is_punct(tokens, j, "(", "[", "{"):
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and is_punct(tokens, j, "="):
            break
        j = prev_code(tokens, j)
    declared = prev_code(tokens, j)
    if j < start or tokens.kinds[declared] != IDENTIFIER:
        return None
    name = tokens.text(declared)
    end = _block_end(tokens, body)
    for m in token_occurrences(tokens, (name.encode(),), (TokenKind.IDENTIFIER,)):
        if k < m < end and not is_punct(tokens, prev_code(tokens, m), ".", "->", "::"):
            where = constant_context(tokens, m)
            if where is not None:
                line = tokens.body.count(b"\n", 0, tokens.starts[m]) + 1
                return f"through the const {name}, which line {line} uses {where}"
    return None


def _block_end(tokens: Tokens, brace: int) -> int:
    braces, body, starts = tokens.braces(), tokens.body, tokens.starts
    depth = 0
    for j in braces[bisect.bisect_left(braces, brace) :]:  # the braces from it on, not every token
        if body[starts[j]] == _CLOSE_BRACE:
            depth -= 1
            if depth == 0:
                return j
        else:
            depth += 1
    return len(tokens)
