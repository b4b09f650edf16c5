"""Call reshapes: a rule's params/args/drops reorder or drop arguments, casts wrap them, fill supplies
omitted ones, or its jinja2 template renders the HIP call (or the whole statement); overloads pick the
rule by the number of arguments. Argument texts travel as source spans, so the translations inside them
survive the rewrite."""

from __future__ import annotations

import bisect
import re
import weakref

from hipconv.diagnostics import CODES, UNFIT_CALL
from hipconv.errors import RuleSchemaError
from hipconv.results import COMPAT_HEADER
from hipconv.rules.model import Action, Overloads, Resolution, Rule, Scope, count_list
from hipconv.translate.comments import CodeTexts, code_text, keep_comments
from hipconv.translate.context import FileContext
from hipconv.translate.contracts import is_null_literal
from hipconv.translate.converts import CODE as CONVERT_CODE
from hipconv.translate.converts import cast_text, converted_arguments, in_place, note_shims
from hipconv.translate.edits import Edit, Part
from hipconv.translate.found import Found
from hipconv.translate.lane_masks import check_lane_mask
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.statements import statement_bounds, statement_extent
from hipconv.translate.status import apply_resolution
from hipconv.translate.syntax import (
    Call,
    Span,
    holds_unterminated_literal,
    is_punct,
    matching_close,
    next_code,
    parse_call,
    prev_code,
    template_close,
)
from hipconv.translate.templates import render_file
from hipconv.translate.words import WORDY_KINDS, token_occurrences


def pick_overload(c: Found, i: int, cuda: str, overloads: Overloads, *, called: bool) -> Resolution | None:
    """The resolution of the overload that fits the use at token i: by the call's argument count, or the
    `uncalled` rule for a use that is not a call. None, with a diagnostic, when none fits."""
    start = c.tokens.starts[i]
    counts = count_list(overloads.counts)
    if not called:
        if overloads.uncalled is None:
            c.diag(
                start,
                UNFIT_CALL,
                f"{cuda} is not called here, and its HIP name depends on the number of "
                f"arguments ({counts}); left unchanged",
                symbol=cuda,
            )
        return overloads.uncalled
    call = parse_call(c.tokens, i)
    if call is None:
        c.diag(start, UNFIT_CALL, f"cannot read the arguments of {cuda}; left unchanged", symbol=cuda)
        return None
    region = (start, c.tokens.ends[call.close])
    if forwards_va_args(c.tokens, call):
        message = f"{cuda}'s arguments come from __VA_ARGS__, so their number, which picks the HIP function, is unknown"
        _leave(c, region, UNFIT_CALL, f"{message}; left unchanged", None, cuda)
        return None
    picked = overloads.by_count.get(len(call.args))
    if picked is None:
        count = len(call.args)
        message = f"{cuda} is called with {count} argument{'s' * (count != 1)}; its HIP rewrites take {counts}"
        _leave(c, region, UNFIT_CALL, f"{message}; left unchanged", None, cuda)
    return picked


def forwards_va_args(tokens: Tokens, call: Call) -> bool:
    """True for a call in a macro's body whose arguments include `__VA_ARGS__`: their number is unknown."""
    return any("__VA_ARGS__" in code_text(tokens, span) for span in call.args)


def needs_arguments(rule: Rule) -> bool:
    """True when the rule's rewrite moves, drops, casts, converts or fills arguments, or renders a template;
    else its params only count a call's arguments, and a use that is no call (`&cublasSgemm`) is renamed."""
    return (
        rule.template is not None
        or list(rule.args or ()) != list(rule.params or ())
        or bool(rule.converts or rule.casts or rule.fill)
    )


def reshape_call(c: Found, i: int, rule: Rule, resolution: Resolution) -> None:
    """The call whose callee is token i, rewritten by the rule's params/args/drops or template."""
    tokens = c.tokens
    start, end = tokens.starts[i], tokens.ends[i]
    cuda = tokens.text(i)
    assert rule.params is not None and rule.args is not None
    call = parse_call(tokens, i)
    if call is None:
        c.diag(start, UNFIT_CALL, f"cannot read the arguments of {cuda}; left unchanged", rule, cuda)
        return
    region = (start, tokens.ends[call.close])
    moves = rule.template is not None or list(rule.args) != list(rule.params) or bool(rule.converts)
    problem = _unfit(c, rule, cuda, call, reshapes=needs_arguments(rule), moves=moves)
    if problem:
        _leave(c, region, UNFIT_CALL, f"{problem}; left unchanged{f' ({rule.note})' if rule.note else ''}", rule, cuda)
        return
    bound = dict(zip(rule.params, call.args))
    if rule.template is not None:
        if resolution.action is Action.REWRITE_DEPRECATED:  # the HIP function it writes is deprecated: said once
            apply_resolution(c, start, end, cuda, resolution, rename=False)
        _render_template(c, rule, call, bound, cuda)
        return
    if rule.lane_mask and rule.lane_mask in bound:
        check_lane_mask(c, rule, bound[rule.lane_mask], dropped=rule.lane_mask not in rule.args)
    if not moves:  # a rename; casts and fills are inserted where the arguments stand
        apply_resolution(c, start, end, cuda, resolution, rename=True)
        _insert_casts_and_fills(c, rule, call, bound)
        return
    converted = converted_arguments(c, rule, bound)
    if isinstance(converted, str):
        _leave(c, region, CONVERT_CODE, f"{cuda}: {converted}; left unchanged", rule, cuda)
        return
    apply_resolution(c, start, end, cuda, resolution, rename=False)
    note_shims(c, rule, cuda, start, converted)
    c.dropped.extend(bound[name] for name in rule.drops if name in bound)
    if rule.converts and list(rule.args) == list(rule.params):  # the arguments stay where they are, as written
        parts = in_place(rule, bound, converted, lambda name: _argument(c, rule, name, bound), (end, region[1]))
    else:
        parts = [rule.hip or "", "("]
        for n, name in enumerate(name for name in rule.args if name in bound or name in rule.fill):
            if n:
                parts.append(", ")
            parts.extend(converted.get(name) or _argument(c, rule, name, bound))
        parts.append(")")
    c.edits.append(Edit(*region, keep_comments(tokens, region, parts, c.source.newline_at(start)), rule.id))
    c.replaced(start, cuda, rule.hip or "", rule.id, rule.library)


def _insert_casts_and_fills(c: Found, rule: Rule, call: Call, bound: dict[str, Span]) -> None:
    """In a call whose arguments stay where they are: each cast around its argument, and the fills of the
    omitted optional arguments after the last argument (one insertion per place, in order)."""
    assert rule.params is not None
    inserts: dict[int, list[str]] = {}
    for name, target in rule.casts.items():
        span = bound.get(name)
        if span is not None and not _cast_already(c.tokens, span, target) and not _null(c.tokens, span):
            opening, closing = cast_text(target)
            inserts.setdefault(span[0], []).append(opening)
            inserts.setdefault(span[1], []).append(closing)
    fills = [rule.fill[name] for name in rule.params if name not in bound and name in rule.fill]
    if fills:
        end = call.args[-1][1] if call.args else c.tokens.starts[call.close]
        inserts.setdefault(end, []).append(", " * bool(call.args) + ", ".join(fills))
    c.edits.extend(Edit.replace(pos, pos, "".join(texts), rule.id) for pos, texts in inserts.items())


def _argument(c: Found, rule: Rule, name: str, bound: dict[str, Span]) -> list[Part]:
    """The HIP call's argument `name`: the CUDA argument (cast where the rule says and it is not cast
    already), or the rule's fill for an optional one the call omits."""
    if name not in bound:
        return [rule.fill[name]]
    span, target = bound[name], rule.casts.get(name)
    if target is None or _cast_already(c.tokens, span, target) or _null(c.tokens, span):
        return [span]
    opening, closing = cast_text(target)
    return [opening, span, closing]


_CAST_KEYWORDS = ("reinterpret_cast", "static_cast")


def _null(tokens: Tokens, span: Span) -> bool:
    """A null pointer constant (`NULL`, `nullptr`, `0`): it converts to any pointer parameter as it is, where a
    cast would not compile (reinterpret_cast takes no `nullptr`)."""
    return is_null_literal(code_text(tokens, span))


def _cast_already(tokens: Tokens, span: Span, target: str) -> bool:
    """True when the argument is already an explicit cast to `target` (`reinterpret_cast<T>(k)`, `(T)k`),
    or, for a pointer, to the pointer `target` names without `const` (`void*` converts to `const void*`; a
    `void**` does not convert to `const void**`, nor `void* const*` to `void**`)."""
    first = bisect.bisect_left(tokens.starts, span[0])
    last = bisect.bisect_left(tokens.starts, span[1]) - 1
    code = [k for k in range(first, last + 1) if tokens.kinds[k] != TokenKind.COMMENT]
    if len(code) < 4:
        return False
    if tokens.text(code[0]) in _CAST_KEYWORDS and is_punct(tokens, code[1], "<"):
        opener, close = code[1], template_close(tokens, code[1], last + 1)
        if close is None or close == code[-1]:
            return False
        paren = code[code.index(close) + 1]
        if not is_punct(tokens, paren, "(") or matching_close(tokens, paren) != code[-1]:
            return False
    elif is_punct(tokens, code[0], "("):
        opener, close = code[0], matching_close(tokens, code[0])
        if close is None or close == code[-1]:
            return False
    else:
        return False
    written = _type_words(" ".join(tokens.text(k) for k in code if opener < k < close))
    wanted = _type_words(target)
    return written == wanted or (wanted.count("*") == 1 and wanted == _type_words(f"const {written}"))


def _type_words(text: str) -> str:
    """A type's spelling compared without blanks: `const void *` -> `const void*`."""
    return re.sub(r"\s*\*\s*", "*", " ".join(text.split()))


def _unfit(c: Found, rule: Rule, cuda: str, call: Call, *, reshapes: bool, moves: bool) -> str:
    """Why the call's arguments do not fit the rule's rewrite ("" when they do). `reshapes`: the rewrite
    needs to know which argument is which; `moves`: it rewrites the whole call."""
    assert rule.params is not None and rule.args is not None
    count, most = len(call.args), len(rule.params)
    least = most - len(rule.optional)
    form = f"({', '.join(rule.params)})"
    if count > most:
        return f"{cuda} is called with {count} arguments; the HIP rewrite knows the form {form}"
    if not reshapes and count < least and not forwards_va_args(c.tokens, call):  # (the legacy cublas.h API)
        takes = f"{least}" if least == most else f"{least} to {most}"
        return (
            f"{cuda} is called with {count} argument{'s' * (count != 1)}; {rule.hip} takes {takes} {form} "
            "(unless a macro among the arguments stands for several)"
        )
    if not reshapes:
        return ""
    if count < least:
        return (
            f"{cuda} is called with {count} argument{'s' * (count != 1)} (a macro standing for several?); "
            f"its HIP rewrite moves or drops arguments and needs at least {least} of {form}"
        )
    region = (c.tokens.starts[call.callee], c.tokens.ends[call.close])
    if moves and c.crosses_directive(*region):
        return f"{cuda}'s arguments hold a preprocessor line, which its HIP rewrite would move or drop"
    if holds_unterminated_literal(c.tokens, region):
        return f"{cuda}'s arguments hold a string or character literal without its closing quote"
    return ""


def _leave(c: Found, region: Span, code: str, message: str, rule: Rule | None, cuda: str) -> None:
    """Report the call and keep it whole: no rename inside it applies (a half-translated call builds
    against neither API)."""
    c.diag(region[0], code, message, rule, cuda)
    c.keep_whole(*region)


class _Leave(Exception):
    """Raised by a template's leave(code, message): the call stays as it is."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


_MARKER = "\x00{}\x00"
_MARKER_SPLIT = re.compile("\x00(\\d+)\x00")


class _TemplateContext:
    """What a template sees of one call: argument markers, leave(), note() and shim(); and what it asked for."""

    def __init__(self, rule: Rule, *, compat: bool) -> None:
        self.rule = rule
        self.compat = compat  # shims allowed (not --no-compat)
        self.spans: list[Span] = []  # marker n stands for spans[n]
        self.notes: list[tuple[str, str]] = []
        self.shims: set[str] = set()

    def mark(self, span: Span) -> str:
        self.spans.append(span)
        return _MARKER.format(len(self.spans) - 1)

    def _checked(self, code: str) -> str:
        if code not in CODES:
            raise RuleSchemaError(f"{self.rule.template}: unknown diagnostic code {code!r} (rule {self.rule.id})")
        return code

    def leave(self, code: str, message: str) -> str:
        raise _Leave(self._checked(code), message)

    def note(self, code: str, message: str) -> str:
        self.notes.append((self._checked(code), message))
        return ""

    def shim(self, name: str) -> str:
        """A shim of hipconv_compat.h the rendered call names (checked to exist when the rules load)."""
        if not self.compat:
            raise _Leave(UNFIT_CALL, f"its rewrite needs {name} of {COMPAT_HEADER}, and --no-compat leaves shims out")
        self.shims.add(name)
        return name

    def parts(self, text: str) -> list[Part]:
        """The rendered text split into literal strings and the argument spans its markers stand for."""
        pieces = _MARKER_SPLIT.split(text)
        return [piece if n % 2 == 0 else self.spans[int(piece)] for n, piece in enumerate(pieces) if n % 2 or piece]


def _render_template(c: Found, rule: Rule, call: Call, bound: dict[str, Span], cuda: str) -> None:
    """Render the rule's template for this call; argument texts travel as spans, so the
    translations inside them (enumerators, nested calls) survive whatever the template does."""
    assert rule.template is not None
    tokens = c.tokens
    start = tokens.starts[call.callee]
    ctx = _TemplateContext(rule, compat=c.settings.compat)
    context: dict[str, object] = {
        "hip": rule.hip,
        "cuda": cuda,
        "leave": ctx.leave,
        "note": ctx.note,
        "shim": ctx.shim,
        "is_null": is_null_literal,
        "nl": c.source.newline_at(start),
        "args": {
            **{name: text for name, text in rule.fill.items() if name not in bound},
            **{
                name: "".join(ctx.mark(p) if not isinstance(p, str) else p for p in _argument(c, rule, name, bound))
                for name in bound
            },
        },
        "src": CodeTexts(tokens, bound),
    }
    call_region = region = (start, tokens.ends[call.close])
    if rule.scope is Scope.STATEMENT:
        statement = _statement_context(c, call, ctx, context)
        if (
            statement is None
            or c.crosses_directive(*statement, inside_ok=False)
            or holds_unterminated_literal(tokens, statement)
            or _shared(c, call, statement)
        ):
            message = (
                f"{cuda} needs a statement of its own for its HIP rewrite (not inside a control statement's "
                "head, a return or a macro definition, nor across a preprocessor line or an unterminated "
                "literal, nor beside another call whose rewrite takes the statement); left unchanged"
            )
            _leave(c, call_region, UNFIT_CALL, message, rule, cuda)
            return
        region = statement
    try:
        text = render_file(rule.template, **context)
    except _Leave as exc:
        _leave(c, call_region, exc.code, f"{cuda}: {exc}; left unchanged", rule, cuda)
        return
    for code, message in ctx.notes:
        c.diag(start, code, message, rule, cuda)
    c.shims.update(ctx.shims)
    parts = ctx.parts(text)
    used = {part for part in parts if not isinstance(part, str)}
    c.dropped.extend(span for span in bound.values() if span not in used)
    c.edits.append(Edit(*region, keep_comments(tokens, region, parts, c.source.newline_at(start)), rule.id))
    c.replaced(start, cuda, rule.hip or "", rule.id, rule.library)


def _statement_context(c: Found, call: Call, ctx: _TemplateContext, context: dict[str, object]) -> Span | None:
    """For a statement-scope template: the statement's span, with what the template needs to rebuild it
    (the text before and after the call, its indent, the name it declares); None when it is not a plain one."""
    tokens, body = c.tokens, c.tokens.body
    bounds = statement_bounds(tokens, call.callee, call.close)
    if bounds is None:
        return None
    start = tokens.starts[call.callee]
    region = (tokens.starts[bounds[0]], tokens.ends[bounds[1]])
    line_start = body.rfind(b"\n", 0, region[0]) + 1
    indent = body[line_start : region[0]]
    context.update(
        before=ctx.mark((region[0], start)),
        after=ctx.mark((tokens.ends[call.close], region[1])),
        indent=indent.decode() if not indent.strip() else "",
        declared=_declared_name(tokens, bounds[0], call.callee),
        uid="{}_{}".format(*c.source.line_col(start)),
    )
    return region


def _shared(c: Found, call: Call, statement: Span) -> bool:
    """Whether the statement overlaps that of another call with a statement-scope template: both would
    rebuild it, so neither can (leaving only one would change what a second run does). Unbalanced
    brackets can stretch a statement over its neighbours, so every such call of the file is checked."""
    for k, other in _statement_calls(c):
        if k == call.callee:
            continue
        if statement[0] <= c.tokens.starts[k] < statement[1]:
            return True
        if other is not None and other[0] < statement[1] and statement[0] < other[1]:
            return True
    return False


# (callee, statement) of each call whose template takes its statement, by file (_statement_calls)
_STATEMENT_CALLS: weakref.WeakKeyDictionary[FileContext, list[tuple[int, Span | None]]] = weakref.WeakKeyDictionary()


def _statement_calls(c: Found) -> list[tuple[int, Span | None]]:
    """(callee, its statement's span) of each call of the file with a statement-scope template; found
    once per file."""
    found = _STATEMENT_CALLS.get(c.ctx)
    if found is None:
        tokens, found = c.tokens, []
        names = {
            k.encode()
            for k in {tokens.text(i) for i in range(len(tokens)) if tokens.kinds[i] == TokenKind.IDENTIFIER}
            if (r := c.table.identifiers.get(k)) is not None and _takes_statement(r)
        }
        for k in token_occurrences(tokens, names, (TokenKind.IDENTIFIER,)):
            open_ = next_code(tokens, k)
            close = matching_close(tokens, open_) if is_punct(tokens, open_, "(") else None
            if close is not None:
                extent = statement_extent(tokens, k, close)  # what is not a plain statement counts too:
                # a directive an insertion puts before it must not change what a second run decides
                found.append((k, None if extent is None else (tokens.starts[extent[0]], tokens.ends[extent[1]])))
        _STATEMENT_CALLS[c.ctx] = found
    return found


def _takes_statement(resolution: Resolution) -> bool:
    """A resolution (any of an overload's) that renders a statement-scope template."""
    if resolution.overloads is not None:
        return any(map(_takes_statement, resolution.overloads.by_count.values()))
    rule = resolution.rule
    return resolution.rewrites and rule is not None and rule.template is not None and rule.scope is Scope.STATEMENT


def _declared_name(tokens: Tokens, first: int, callee: int) -> str:
    """`T name = call(...)`: the name a statement declares from the call's value ("" when it declares none)."""
    eq = prev_code(tokens, callee)
    name = prev_code(tokens, eq)
    if eq < first or name <= first or tokens.raw(eq) != b"=" or tokens.kinds[name] != TokenKind.IDENTIFIER:
        return ""
    before = [tokens.kinds[k] for k in range(first, name) if tokens.kinds[k] != TokenKind.COMMENT]
    return tokens.text(name) if before and all(k in WORDY_KINDS for k in before) else ""
