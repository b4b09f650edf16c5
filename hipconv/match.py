"""Matchers: tokens + lookup table -> edits, diagnostics and a record of replacements.

One matcher per kind of construct: identifiers (functions, types, enums,
macros; with call reshapes where the rule has params), include directives,
kernel launches, and the implicit runtime include of .cu files.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping, NamedTuple

from hipconv.diagnostics import CODES, Diagnostic
from hipconv.edits import Edit, Part
from hipconv.errors import RuleSchemaError
from hipconv.lexer import TokenKind, Tokens
from hipconv.ruleset import Action, LookupTable, Resolution, Rule
from hipconv.settings import Settings
from hipconv.source import SourceFile
from hipconv.syntax import (
    Call,
    Span,
    next_code,
    parse_call,
    parse_launch,
    prev_code,
    starts_line,
    statement_bounds,
)
from hipconv.templates import render_file

# Constructs that make a .cu file CUDA even when it includes no CUDA header.
CUDA_CONSTRUCTS = frozenset(
    {"__global__", "__device__", "__shared__", "__constant__", "__managed__", "__launch_bounds__",
     "threadIdx", "blockIdx", "blockDim", "gridDim", "__syncthreads", "warpSize"}
)
CUDA_CONSTRUCT_WORDS = frozenset(w.encode() for w in CUDA_CONSTRUCTS)
# HIP spellings used by launch rewrites (checked against the HIP inventory in the tests).
HIP_LAUNCH = "hipLaunchKernelGGL"
HIP_KERNEL_NAME = "HIP_KERNEL_NAME"
_MESSAGE_DIRECTIVES = (b"error", b"warning")
# What an identifier's rule status reports (not what a rewrite says about its own arguments).
_STATUS_CODES = frozenset({"HC001", "HC002", "HC003", "HC004", "HC005", "HC006", "HC201", "HC202"})
_INT_LITERAL = re.compile(r"(0[xX][0-9a-fA-F']+|0[bB][01']+|[0-9][0-9']*)([uUlL]*)")
_FULL_MASK_32 = 0xFFFFFFFF
_FULL_MASK_64 = "0xffffffffffffffffull"


class Replacement(NamedTuple):
    line: int
    col: int
    cuda: str
    hip: str
    rule_id: str
    library: str

    def to_json(self) -> dict[str, object]:
        return {"line": self.line, "col": self.col, "cuda": self.cuda, "hip": self.hip,
                "rule": self.rule_id, "library": self.library}


@dataclass(frozen=True)
class FileMatches:
    edits: tuple[Edit, ...]
    diagnostics: tuple[Diagnostic, ...]
    replacements: tuple[Replacement, ...]


@dataclass
class _Collector:
    source: SourceFile
    tokens: Tokens
    table: LookupTable
    settings: Settings
    edits: list[Edit] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    replacements: list[Replacement] = field(default_factory=list)
    defines_needed: set[str] = field(default_factory=set)
    dropped: list[Span] = field(default_factory=list)  # arguments a rewrite left out of its output
    _offsets: list[int] = field(default_factory=list)  # where each diagnostic points, in the same order
    _replacement_offsets: list[int] = field(default_factory=list)  # likewise for the replacements

    def diag(self, offset: int, code: str, message: str, rule: Rule | None = None, symbol: str = "") -> None:
        line, col = self.source.line_col(offset)
        self.diagnostics.append(Diagnostic(self.source.path, line, col, code, message, rule.id if rule else "", symbol))
        self._offsets.append(offset)

    def replaced(self, offset: int, cuda: str, hip: str, rule_id: str, library: str) -> None:
        line, col = self.source.line_col(offset)
        self.replacements.append(Replacement(line, col, cuda, hip, rule_id, library))
        self._replacement_offsets.append(offset)

    def forget_dropped(self) -> None:
        """What was found inside an argument the rewrite dropped is not in the output: neither an
        unported API to report (HC0xx/HC2xx status findings) nor a replacement to count."""
        if not self.dropped:
            return

        def gone(offset: int) -> bool:
            return any(a <= offset < b for a, b in self.dropped)

        keep = [not (d.code in _STATUS_CODES and gone(o)) for d, o in zip(self.diagnostics, self._offsets)]
        self.diagnostics = [d for d, k in zip(self.diagnostics, keep) if k]
        self.replacements = [r for r, o in zip(self.replacements, self._replacement_offsets) if not gone(o)]


def match_file(source: SourceFile, tokens: Tokens, table: LookupTable, settings: Settings, *, is_cu: bool,
               words: frozenset[bytes] | None = None) -> FileMatches:
    """`words`: the file's identifier-like words, when the caller has already scanned for them."""
    c = _Collector(source, tokens, table, settings)
    directives = _directive_lines(tokens)
    include_spans, has_runtime = _match_includes(c, directives)  # includes the (HIP or CUDA) runtime header
    skip = sorted(include_spans + directives.message_spans)
    words = words if words is not None else file_words(source.body)
    uses_api = _match_identifiers(c, skip, words)
    if settings.kernel_launch == "hip":
        _match_launches(c)
    nl = _nl(source)
    lines = [f"#ifndef {d}{nl}#define {d}{nl}#endif" for d in sorted(c.defines_needed - directives.defined)]
    if (is_cu and not has_runtime and table.runtime_header
            and (uses_api or c.edits or _uses_cuda_constructs(tokens, words))):
        lines.append(f"#include <{table.runtime_header}>")
    if lines:
        _insert_at_top(c, nl.join(lines))
    c.forget_dropped()
    return FileMatches(tuple(c.edits), tuple(c.diagnostics), tuple(c.replacements))


def _nl(source: SourceFile) -> str:
    return source.newline.decode()


# ---------------------------------------------------------------- directives


class _Directives(NamedTuple):
    lines: list[tuple[int, int, str]]  # (`#` token index, name token index, directive name)
    message_spans: list[Span]  # the text of #error / #warning lines, which is prose
    defined: set[str]  # macro names the file #defines


def _directive_lines(tokens: Tokens) -> _Directives:
    body = tokens.body
    found = []
    message_spans: list[Span] = []
    defined: set[str] = set()
    for i in _token_occurrences(tokens, (b"#", b"%:"), (TokenKind.PUNCTUATION,)):
        if not starts_line(tokens, i):
            continue
        j = next_code(tokens, i)
        if j >= len(tokens) or tokens.kinds[j] not in _WORDY_KINDS:
            continue
        name = tokens.raw(j)
        found.append((i, j, name.decode()))
        if name in _MESSAGE_DIRECTIVES:
            message_spans.append((tokens.ends[j], _logical_line_end(body, tokens.ends[j])))
        elif name == b"define":
            k = next_code(tokens, j)
            if k < len(tokens):
                defined.add(tokens.text(k))
    return _Directives(found, message_spans, defined)


def _logical_line_end(body: bytes, pos: int) -> int:
    while True:
        nl = body.find(b"\n", pos)
        if nl == -1:
            return len(body)
        if body[nl - 1:nl] == b"\\" or body[nl - 2:nl] == b"\\\r":
            pos = nl + 1
            continue
        return nl


def _match_includes(c: _Collector, directives: _Directives) -> tuple[list[Span], bool]:
    tokens, body = c.tokens, c.tokens.body
    spans: list[Span] = []
    has_runtime = False
    for hash_i, name_i, name in directives.lines:
        if name not in ("include", "include_next", "import"):
            continue
        j = next_code(c.tokens, name_i)
        if j >= len(tokens):
            continue
        first = body[tokens.starts[j]:tokens.ends[j]]
        if tokens.kinds[j] == TokenKind.LITERAL and first.startswith(b'"'):
            path_span = (tokens.starts[j] + 1, tokens.ends[j] - 1)
        elif first == b"<":
            close = body.find(b">", tokens.ends[j], _logical_line_end(body, tokens.ends[j]))
            if close == -1:
                continue
            path_span = (tokens.ends[j], close)
        else:
            continue  # a computed include (macro)
        spans.append((tokens.starts[hash_i], path_span[1] + 1))
        path = body[path_span[0]:path_span[1]].decode()
        resolution = c.table.includes.get(path)
        translated = resolution.rule.hip if resolution and resolution.rewrites and resolution.rule else None
        has_runtime = has_runtime or c.table.runtime_header in (path, translated)
        if resolution is not None:
            _apply_resolution(c, path_span[0], path_span[1], path, resolution, rename=True)
    return spans, has_runtime


# ---------------------------------------------------------------- identifiers


def _match_identifiers(c: _Collector, skip: list[Span], words: frozenset[bytes]) -> bool:
    """Rewrite or report every CUDA API name (plain or qualified); True when the file uses any."""
    tokens, identifiers = c.tokens, c.table.identifiers
    skip_starts = [s for s, _ in skip]
    starts, ends = tokens.starts, tokens.ends
    uses_api = False
    consumed = 0  # the end of the last qualified name rewritten: its inner names are done
    for i in _identifier_tokens(tokens, words & c.table.names):
        start = starts[i]
        if start < consumed or (skip and _inside(skip, skip_starts, start)) or _is_member_or_foreign(
                tokens, i, identifiers):
            continue
        if tokens.text(i) in c.table.qualified_heads:
            name, last, resolution = _longest_name(tokens, i, identifiers)
        else:
            name, last = tokens.text(i), i
            resolution = identifiers.get(name)
        if resolution is None:
            continue
        rule = resolution.rule
        if rule is not None and rule.kind == "namespace" and not _used_as_namespace(tokens, i, last):
            continue
        uses_api = True
        consumed = ends[last]
        if rule is not None and rule.params is not None and resolution.rewrites:
            _reshape_call(c, i, rule, resolution)
        else:
            _apply_resolution(c, start, ends[last], name, resolution, rename=True)
    return uses_api


_MAX_QUALIFIERS = 4


def _longest_name(tokens: Tokens, i: int, identifiers: Mapping[str, Resolution]) -> tuple[str, int, Resolution | None]:
    """The longest `a::b::c` starting at token i that the table knows: (spelling, last token, resolution)."""
    chain = [(i, tokens.text(i))]
    j = i
    while len(chain) < _MAX_QUALIFIERS:
        sep = next_code(tokens, j)
        nxt = next_code(tokens, sep)
        if not (_is_punct(tokens, sep, b"::") and nxt < len(tokens) and tokens.kinds[nxt] in _WORDY_KINDS):
            break
        chain.append((nxt, tokens.text(nxt)))
        j = nxt
    for n in range(len(chain), 0, -1):
        spelling = "::".join(text for _, text in chain[:n])
        resolution = identifiers.get(spelling)
        if resolution is not None:
            return spelling, chain[n - 1][0], resolution
    return chain[0][1], i, None


def _used_as_namespace(tokens: Tokens, first: int, last: int) -> bool:
    """`ns::x`, `using namespace ns;` or `namespace alias = ns;`: not a variable that happens to be named ns."""
    if _is_punct(tokens, next_code(tokens, last), b"::"):
        return True
    before = prev_code(tokens, first)
    if before >= 0 and tokens.raw(before) == b"namespace":
        return True
    if not _is_punct(tokens, before, b"="):
        return False
    keyword = prev_code(tokens, prev_code(tokens, before))
    return keyword >= 0 and tokens.raw(keyword) == b"namespace"


def _is_punct(tokens: Tokens, i: int, text: bytes) -> bool:
    return 0 <= i < len(tokens) and tokens.kinds[i] == TokenKind.PUNCTUATION and tokens.raw(i) == text


def _uses_cuda_constructs(tokens: Tokens, words: frozenset[bytes]) -> bool:
    """A kernel launch, or a CUDA keyword or built-in variable, as a token (not in a comment)."""
    return bool(_token_occurrences(tokens, (b"<<<",), (TokenKind.PUNCTUATION,), first_only=True)
                or _token_occurrences(tokens, words & CUDA_CONSTRUCT_WORDS, _WORDY_KINDS, first_only=True))


_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
SPLICED_WORD = re.compile(rb"[A-Za-z0-9_]\\\r?\n")  # a line splice right after a name may cut it
_WORDY_KINDS = (TokenKind.IDENTIFIER, TokenKind.KEYWORD)


def file_words(body: bytes) -> frozenset[bytes]:
    """Every identifier-like word of a body (comments and strings included), joining line splices."""
    if SPLICED_WORD.search(body):
        body = body.replace(b"\\\r\n", b"").replace(b"\\\n", b"")
    return frozenset(_WORD.findall(body))


def _identifier_tokens(tokens: Tokens, present: frozenset[bytes]) -> list[int]:
    """Indices of the identifier tokens spelled as one of `present`, in order.

    Searches the text for the few names the file mentions instead of walking every
    token, plus the rare identifiers that a line splice cuts in two.
    """
    starts, ends, kinds = tokens.starts, tokens.ends, tokens.kinds
    found = set(_token_occurrences(tokens, present, _WORDY_KINDS))
    for m in SPLICED_WORD.finditer(tokens.body):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and ends[i] > m.end() and kinds[i] in _WORDY_KINDS and tokens.text(i).encode() in present:
            found.add(i)
    return sorted(found)


def _token_occurrences(tokens: Tokens, spellings: Iterable[bytes], kinds: tuple[int, ...], *,
                       first_only: bool = False) -> list[int]:
    body, starts, ends = tokens.body, tokens.starts, tokens.ends
    found = []
    count = len(starts)
    for needle in spellings:
        size = len(needle)
        pos = body.find(needle)
        while pos != -1:  # bytes.find is C-fast; the token check rejects hits inside longer names
            i = bisect.bisect_left(starts, pos)
            if i < count and starts[i] == pos and ends[i] == pos + size and tokens.kinds[i] in kinds:
                found.append(i)
                if first_only:
                    return found
            pos = body.find(needle, pos + size)
    found.sort()
    return found


def _inside(spans: list[Span], span_starts: list[int], pos: int) -> bool:
    k = bisect.bisect_right(span_starts, pos) - 1
    return k >= 0 and pos < spans[k][1]


def _is_member_or_foreign(tokens: Tokens, i: int, identifiers: Mapping[str, Resolution]) -> bool:
    """`x.cudaFoo`, `p->cudaFoo` and `mylib::cudaFoo` are not the CUDA API."""
    j = prev_code(tokens, i)
    if j < 0 or tokens.kinds[j] != TokenKind.PUNCTUATION:
        return False
    before = tokens.body[tokens.starts[j]:tokens.ends[j]]
    if before == b"." or before == b"->":
        return True
    if before == b"::":
        q = prev_code(tokens, j)
        return q >= 0 and tokens.kinds[q] == TokenKind.IDENTIFIER and tokens.text(q) not in identifiers
    return False


def _apply_resolution(c: _Collector, start: int, end: int, cuda: str, resolution: Resolution, *, rename: bool) -> None:
    """Turn one resolution into an edit and/or a diagnostic: the status policy lives here."""
    rule, action = resolution.rule, resolution.action
    if action is Action.REWRITE and rename:  # the hot path: a plain rename
        assert rule is not None and rule.hip is not None
        if rule.requires_define:
            c.defines_needed.add(rule.requires_define)
        if rule.hip != cuda:
            c.edits.append(Edit(start, end, (rule.hip,), rule.id))
            c.replaced(start, cuda, rule.hip, rule.id, rule.library)
        return
    note = f" ({rule.note})" if rule is not None and rule.note else ""
    if action is Action.NO_RULE:
        c.diag(start, "HC001", f"{cuda} ({resolution.library}) is CUDA API with no hipconv rule; left unchanged", symbol=cuda)
        return
    assert rule is not None
    if action is Action.UNSUPPORTED:
        c.diag(start, rule.code or "HC002", f"{cuda} has no HIP equivalent; left unchanged{note}", rule, cuda)
    elif action is Action.REMOVED:
        c.diag(start, rule.code or "HC006", f"{cuda} was removed from HIP; left unchanged{note}", rule, cuda)
    elif action is Action.UNAVAILABLE:
        when = (f"it appeared in {rule.rocm['since']}" if rule.covers(c.settings.rocm)
                else f"it is the HIP spelling only before ROCm {rule.rocm['until']}")
        c.diag(start, "HC003", f"{rule.hip} is not available in ROCm {c.settings.rocm} "
               f"({when}); {cuda} left unchanged{note}", rule, cuda)
    elif action is Action.KEEP_EXPERIMENTAL:
        c.diag(start, "HC005", f"{rule.hip} is experimental{note}; {cuda} left unchanged (pass --experimental to "
               "translate it)", rule, cuda)
    else:
        if action is Action.REWRITE_DEPRECATED:
            c.diag(start, "HC004", f"{cuda} is deprecated; translated to {rule.hip}{note}", rule, cuda)
        if rule.requires_define:
            c.defines_needed.add(rule.requires_define)
        if rename and rule.hip != cuda:
            c.edits.append(Edit.replace(start, end, rule.hip or "", rule.id))
            c.replaced(start, cuda, rule.hip or "", rule.id, rule.library)


def _reshape_call(c: _Collector, i: int, rule: Rule, resolution: Resolution) -> None:
    tokens = c.tokens
    start, end = tokens.starts[i], tokens.ends[i]
    cuda = tokens.text(i)
    assert rule.params is not None and rule.args is not None
    call = parse_call(tokens, i)
    if call is None:
        c.diag(start, "HC007", f"cannot read the arguments of {cuda}; left unchanged", rule, cuda)
        return
    count = 0 if call.args == ((call.args[0][0],) * 2,) else len(call.args)
    if count > len(rule.params):
        c.diag(start, "HC007", f"{cuda} is called with {count} arguments; the HIP rewrite knows the form "
               f"({', '.join(rule.params)}); left unchanged{f' ({rule.note})' if rule.note else ''}", rule, cuda)
        return
    bound = dict(zip(rule.params, call.args))
    kept = [name for name in rule.args if name in bound]
    if kept != list(rule.args[:len(kept)]):
        c.diag(start, "HC007", f"{cuda} is called without {', '.join(n for n in rule.args if n not in bound)}; "
               "left unchanged", rule, cuda)
        return
    if rule.template is not None:
        _render_template(c, rule, call, bound, cuda)
        return
    if rule.lane_mask and rule.lane_mask in bound:
        _check_lane_mask(c, rule, cuda, bound[rule.lane_mask], dropped=rule.lane_mask not in rule.args)
    if list(rule.args) == list(rule.params):
        _apply_resolution(c, start, end, cuda, resolution, rename=True)
        return
    _apply_resolution(c, start, end, cuda, resolution, rename=False)
    c.dropped.extend(bound[name] for name in rule.drops if name in bound)
    parts: list[Part] = [rule.hip or "", "("]
    for n, name in enumerate(kept):
        if n:
            parts.append(", ")
        parts.append(bound[name])
    parts.append(")")
    c.edits.append(Edit(start, tokens.ends[call.close], tuple(parts), rule.id))
    c.replaced(start, cuda, rule.hip or "", rule.id, rule.library)


class _Leave(Exception):
    """Raised by a template's leave(code, message): the call stays as it is."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


_MARKER = "\x00{}\x00"
_MARKER_SPLIT = re.compile("\x00(\\d+)\x00")


def _render_template(c: _Collector, rule: Rule, call: Call, bound: dict[str, Span], cuda: str) -> None:
    """Render the rule's template for this call; argument texts travel as spans, so the
    translations inside them (enumerators, nested calls) survive whatever the template does."""
    assert rule.template is not None
    tokens, body = c.tokens, c.tokens.body
    start = tokens.starts[call.callee]
    spans: list[Span] = []

    def mark(span: Span) -> str:
        spans.append(span)
        return _MARKER.format(len(spans) - 1)

    notes: list[tuple[str, str]] = []

    def checked(code: str) -> str:
        if code not in CODES:
            raise RuleSchemaError(f"{rule.template}: unknown diagnostic code {code!r} (rule {rule.id})")
        return code

    def leave(code: str, message: str) -> str:
        raise _Leave(checked(code), message)

    def note(code: str, message: str) -> str:
        notes.append((checked(code), message))
        return ""

    context: dict[str, object] = {
        "hip": rule.hip, "cuda": cuda, "leave": leave, "note": note, "nl": _nl(c.source),
        "args": {name: mark(span) for name, span in bound.items()},
        "src": {name: body[a:b].decode() for name, (a, b) in bound.items()},
    }
    region = (start, tokens.ends[call.close])
    if rule.scope == "statement":
        bounds = statement_bounds(tokens, call.callee, call.close)
        if bounds is None:
            c.diag(start, "HC007", f"{cuda} needs a statement of its own for its HIP rewrite (not inside a control "
                   "statement's head, a return or a macro definition); left unchanged", rule, cuda)
            return
        region = (tokens.starts[bounds[0]], tokens.ends[bounds[1]])
        line_start = body.rfind(b"\n", 0, region[0]) + 1
        indent = body[line_start:region[0]]
        context.update(before=mark((region[0], start)), after=mark((tokens.ends[call.close], region[1])),
                       indent=indent.decode() if not indent.strip() else "",
                       declared=_declared_name(tokens, bounds[0], call.callee),
                       uid="{}_{}".format(*c.source.line_col(start)))
    try:
        text = render_file(rule.template, **context)
    except _Leave as exc:
        c.diag(start, exc.code, f"{cuda}: {exc}; left unchanged", rule, cuda)
        return
    for code, message in notes:
        c.diag(start, code, message, rule, cuda)
    pieces = _MARKER_SPLIT.split(text)
    parts: list[Part] = [piece if n % 2 == 0 else spans[int(piece)] for n, piece in enumerate(pieces)
                         if n % 2 or piece]
    used = {part for part in parts if not isinstance(part, str)}
    c.dropped.extend(span for span in bound.values() if span not in used)
    c.edits.append(Edit(region[0], region[1], tuple(parts), rule.id))
    c.replaced(start, cuda, rule.hip or "", rule.id, rule.library)


def _declared_name(tokens: Tokens, first: int, callee: int) -> str:
    """`T name = call(...)`: the name a statement declares from the call's value ("" when it declares none)."""
    eq = prev_code(tokens, callee)
    name = prev_code(tokens, eq)
    if eq < first or name <= first or tokens.raw(eq) != b"=" or tokens.kinds[name] != TokenKind.IDENTIFIER:
        return ""
    before = [tokens.kinds[k] for k in range(first, name) if tokens.kinds[k] != TokenKind.COMMENT]
    return tokens.text(name) if before and all(k in _WORDY_KINDS for k in before) else ""


def _check_lane_mask(c: _Collector, rule: Rule, cuda: str, span: Span, *, dropped: bool) -> None:
    tokens = c.tokens
    text = tokens.body[span[0]:span[1]].decode()
    k = bisect.bisect_left(tokens.starts, span[0])
    single_literal = k < len(tokens) and tokens.ends[k] == span[1] and tokens.kinds[k] == TokenKind.LITERAL
    literal = _INT_LITERAL.fullmatch(text) if single_literal else None
    value = _literal_value(literal) if literal else None
    is_32bit = value is not None and value <= _FULL_MASK_32 and "ll" not in literal.group(2).lower()
    if dropped:
        if is_32bit:
            c.diag(span[0], "HC101", f"32-bit lane mask {text} covers lanes 0-31 only of a 64-wide wavefront; "
                   f"ROCm {c.settings.rocm} has only the mask-less {rule.hip}, which acts on all active lanes, "
                   "so the mask was dropped", rule)
        else:
            c.diag(span[0], "HC102", f"lane mask {text!r} dropped: ROCm {c.settings.rocm} has only the mask-less "
                   f"{rule.hip}, which acts on all active lanes", rule)
    elif is_32bit:
        widened = _FULL_MASK_64 if value == _FULL_MASK_32 else literal.group(1) + "ull"
        extent = "all 32 lanes of a CUDA warp" if value == _FULL_MASK_32 else "lanes 0-31 only"
        c.diag(span[0], "HC101", f"32-bit lane mask {text} covers {extent}; ROCm's {rule.hip} needs a 64-bit mask "
               f"for 64-wide wavefronts: written as {widened}", rule)
        c.edits.append(Edit.replace(span[0], span[1], widened, rule.id + ".mask"))
    elif value is None:
        c.diag(span[0], "HC103", f"lane mask {text!r} must be a 64-bit integer covering the wavefront's 64 lanes "
               f"for ROCm's {rule.hip}", rule)


def _literal_value(match: re.Match[str]) -> int | None:
    digits = match.group(1).replace("'", "")
    try:
        if digits[:2].lower() in ("0x", "0b"):
            return int(digits, 0)
        return int(digits, 8) if digits.startswith("0") and len(digits) > 1 else int(digits)
    except ValueError:
        return None


# ---------------------------------------------------------------- launches


def _match_launches(c: _Collector) -> None:
    tokens, body = c.tokens, c.tokens.body
    for i in range(len(tokens)):
        if tokens.kinds[i] != TokenKind.PUNCTUATION or body[tokens.starts[i]:tokens.ends[i]] != b"<<<":
            continue
        launch = parse_launch(tokens, i)
        if launch is None:
            c.diag(tokens.starts[i], "HC008", "cannot read this kernel launch; left as a <<<...>>> launch")
            continue
        name: list[Part] = [HIP_KERNEL_NAME + "(", launch.name, ")"] if launch.templated else [launch.name]
        parts: list[Part] = [HIP_LAUNCH + "(", *name]
        for n, span in enumerate(launch.config):
            parts.append(", ")
            parts.extend(_as_dim3(body, span) if n < 2 else [span])
        parts.extend(", 0" for _ in range(4 - len(launch.config)))
        if any(a != b for a, b in launch.args):  # keep the argument list as written (line breaks in macros)
            inside = launch.inside_parens
            parts.extend(["," if body[inside[0]:inside[0] + 1].isspace() else ", ", inside])
        parts.append(")")
        start = tokens.starts[launch.start]
        c.edits.append(Edit(start, tokens.ends[launch.close], tuple(parts), "launch.hipLaunchKernelGGL"))
        c.replaced(start, "<<<...>>>", HIP_LAUNCH, "launch.hipLaunchKernelGGL", "launch")


def _as_dim3(body: bytes, span: Span) -> list[Part]:
    text = body[span[0]:span[1]]
    if re.fullmatch(rb"dim3\s*[({].*[)}]", text, re.S):
        return [span]
    return ["dim3(", span, ")"]


# ---------------------------------------------------------------- insertions


def _insert_at_top(c: _Collector, text: str, rule_id: str = "insert.top") -> None:
    """Insert a line after the leading comment block (before the first code or directive)."""
    tokens, body = c.tokens, c.tokens.body
    nl = _nl(c.source)
    first = 0
    while first < len(tokens) and tokens.kinds[first] == TokenKind.COMMENT:
        first += 1
    if first == len(tokens):
        pos = len(body)
        prefix = nl if body and not body.endswith(b"\n") else ""
        c.edits.append(Edit.replace(pos, pos, prefix + text + nl, rule_id))
        return
    pos = tokens.starts[first]
    line_start = body.rfind(b"\n", 0, pos) + 1
    comment_end = tokens.ends[first - 1] if first else 0
    if line_start >= comment_end and not body[line_start:pos].strip():
        c.edits.append(Edit.replace(line_start, line_start, text + nl, rule_id))
    else:  # code right after a comment on the same line: a directive must start a line of its own
        c.edits.append(Edit.replace(pos, pos, nl + text + nl, rule_id))
