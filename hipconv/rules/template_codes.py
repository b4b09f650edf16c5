"""A rule's template checked when the rules load, not when a call first renders it: it must parse, and each
leave(code, message) / note(code, message) it makes (hipconv.translate.calls) must name a diagnostic code
literally, one that exists."""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2
from jinja2 import nodes

from hipconv.diagnostics import CODES

REPORTERS = ("leave", "note")  # the functions a template reports through, a diagnostic code first


def template_problems(path: Path) -> tuple[str, ...]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return (f"template {path.name}: cannot read: {exc}",)
    return _problems(path.name, text)


@functools.lru_cache(maxsize=64)
def _problems(name: str, text: str) -> tuple[str, ...]:
    try:
        tree = jinja2.Environment().parse(text)
    except jinja2.TemplateSyntaxError as exc:
        return (f"template {name}:{exc.lineno}: {exc.message}",)
    problems = []
    for call in tree.find_all(nodes.Call):
        if not (isinstance(call.node, nodes.Name) and call.node.name in REPORTERS):
            continue
        code = call.args[0] if call.args else None
        where = f"template {name}:{call.lineno}: {call.node.name}()"
        if not isinstance(code, nodes.Const) or not isinstance(code.value, str):
            problems.append(f"{where} takes a literal diagnostic code as its first argument")
        elif code.value not in CODES:
            problems.append(f"{where}: {code.value!r} is not a diagnostic code (see `hipconv codes`)")
    return tuple(problems)
