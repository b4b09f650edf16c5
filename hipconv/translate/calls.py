"""Call reshapes: a rule's params/args/drops reorder or drop arguments, or its jinja2 template
renders the HIP call (or the whole statement). Argument texts travel as source spans, so the
translations inside them survive the rewrite."""

from __future__ import annotations

import re

from hipconv.diagnostics import CODES
from hipconv.errors import RuleSchemaError
from hipconv.rules.model import Resolution, Rule, Scope
from hipconv.translate.collector import MatchCollector, apply_resolution
from hipconv.translate.comments import code_text, keep_comments
from hipconv.translate.edits import Edit, Part
from hipconv.translate.lane_masks import check_lane_mask
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.syntax import Call, Span, parse_call, prev_code, statement_bounds
from hipconv.translate.templates import render_file
from hipconv.translate.words import WORDY_KINDS


def reshape_call(c: MatchCollector, i: int, rule: Rule, resolution: Resolution) -> None:
    """The call whose callee is token i, rewritten by the rule's params/args/drops or template."""
    tokens = c.tokens
    start, end = tokens.starts[i], tokens.ends[i]
    cuda = tokens.text(i)
    assert rule.params is not None and rule.args is not None
    call = parse_call(tokens, i)
    if call is None:
        c.diag(start, "HC007", f"cannot read the arguments of {cuda}; left unchanged", rule, cuda)
        return
    region = (start, tokens.ends[call.close])
    reshapes = rule.template is not None or list(rule.args) != list(rule.params)
    problem = _unfit(c, rule, cuda, call, reshapes)
    if problem:
        _leave(c, region, "HC007", f"{problem}; left unchanged{f' ({rule.note})' if rule.note else ''}", rule, cuda)
        return
    bound = dict(zip(rule.params, call.args))
    if rule.template is not None:
        _render_template(c, rule, call, bound, cuda)
        return
    if rule.lane_mask and rule.lane_mask in bound:
        check_lane_mask(c, rule, bound[rule.lane_mask], dropped=rule.lane_mask not in rule.args)
    if not reshapes:
        apply_resolution(c, start, end, cuda, resolution, rename=True)
        return
    apply_resolution(c, start, end, cuda, resolution, rename=False)
    c.dropped.extend(bound[name] for name in rule.drops if name in bound)
    parts: list[Part] = [rule.hip or "", "("]
    for n, name in enumerate(name for name in rule.args if name in bound):
        if n:
            parts.append(", ")
        parts.append(bound[name])
    parts.append(")")
    c.edits.append(Edit(*region, keep_comments(tokens, region, parts, c.source.newline_at(start)), rule.id))
    c.replaced(start, cuda, rule.hip or "", rule.id, rule.library)


def _unfit(c: MatchCollector, rule: Rule, cuda: str, call: Call, reshapes: bool) -> str:
    """Why the call's arguments do not fit the rule's rewrite ("" when they do)."""
    assert rule.params is not None and rule.args is not None
    count, most = len(call.args), len(rule.params)
    least = most - len(rule.optional)
    form = f"({', '.join(rule.params)})"
    if count > most:
        return f"{cuda} is called with {count} arguments; the HIP rewrite knows the form {form}"
    if not reshapes:
        return ""  # a rename keeps the arguments as they are, however many a macro stands for
    if count < least:
        return (
            f"{cuda} is called with {count} argument{'s' * (count != 1)} (a macro standing for several?); "
            f"its HIP rewrite moves or drops arguments and needs at least {least} of {form}"
        )
    if c.crosses_directive(c.tokens.starts[call.callee], c.tokens.ends[call.close]):
        return f"{cuda}'s arguments hold a preprocessor line, which its HIP rewrite would move or drop"
    return ""


def _leave(c: MatchCollector, region: Span, code: str, message: str, rule: Rule, cuda: str) -> None:
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
    """What a template sees of one call: argument markers, leave() and note(); and what it asked for."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.spans: list[Span] = []  # marker n stands for spans[n]
        self.notes: list[tuple[str, str]] = []

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

    def parts(self, text: str) -> list[Part]:
        """The rendered text split into literal strings and the argument spans its markers stand for."""
        pieces = _MARKER_SPLIT.split(text)
        return [piece if n % 2 == 0 else self.spans[int(piece)] for n, piece in enumerate(pieces) if n % 2 or piece]


def _render_template(c: MatchCollector, rule: Rule, call: Call, bound: dict[str, Span], cuda: str) -> None:
    """Render the rule's template for this call; argument texts travel as spans, so the
    translations inside them (enumerators, nested calls) survive whatever the template does."""
    assert rule.template is not None
    tokens = c.tokens
    start = tokens.starts[call.callee]
    ctx = _TemplateContext(rule)
    context: dict[str, object] = {
        "hip": rule.hip,
        "cuda": cuda,
        "leave": ctx.leave,
        "note": ctx.note,
        "nl": c.source.newline_at(start),
        "args": {name: ctx.mark(span) for name, span in bound.items()},
        "src": {name: code_text(tokens, span) for name, span in bound.items()},
    }
    call_region = region = (start, tokens.ends[call.close])
    if rule.scope is Scope.STATEMENT:
        statement = _statement_context(c, call, ctx, context)
        if statement is None or c.crosses_directive(*statement, inside_ok=False):
            message = (
                f"{cuda} needs a statement of its own for its HIP rewrite (not inside a control statement's "
                "head, a return or a macro definition, nor across a preprocessor line); left unchanged"
            )
            _leave(c, call_region, "HC007", message, rule, cuda)
            return
        region = statement
    try:
        text = render_file(rule.template, **context)
    except _Leave as exc:
        _leave(c, call_region, exc.code, f"{cuda}: {exc}; left unchanged", rule, cuda)
        return
    for code, message in ctx.notes:
        c.diag(start, code, message, rule, cuda)
    parts = ctx.parts(text)
    used = {part for part in parts if not isinstance(part, str)}
    c.dropped.extend(span for span in bound.values() if span not in used)
    c.edits.append(Edit(*region, keep_comments(tokens, region, parts, c.source.newline_at(start)), rule.id))
    c.replaced(start, cuda, rule.hip or "", rule.id, rule.library)


def _statement_context(c: MatchCollector, call: Call, ctx: _TemplateContext, context: dict[str, object]) -> Span | None:
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


def _declared_name(tokens: Tokens, first: int, callee: int) -> str:
    """`T name = call(...)`: the name a statement declares from the call's value ("" when it declares none)."""
    eq = prev_code(tokens, callee)
    name = prev_code(tokens, eq)
    if eq < first or name <= first or tokens.raw(eq) != b"=" or tokens.kinds[name] != TokenKind.IDENTIFIER:
        return ""
    before = [tokens.kinds[k] for k in range(first, name) if tokens.kinds[k] != TokenKind.COMMENT]
    return tokens.text(name) if before and all(k in WORDY_KINDS for k in before) else ""
