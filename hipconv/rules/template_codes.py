"""A rule's template checked when the rules load, not when a call first renders it: it must parse, and each
leave(code, message) / note(code, message) it makes (hipconv.translate.calls) must name a diagnostic code
literally, one that exists; and it may not reach an attribute whose name starts with `_` (`''.__class__`, the
way out of jinja2 into Python), which the sandbox it renders in (hipconv.translate.templates) refuses anyway,
but only when a call renders it, after earlier files were written."""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2
from jinja2 import nodes

from hipconv.diagnostics import CODES
from hipconv.resources import templates_dir

REPORTERS = ("leave", "note")  # the functions a template reports through, a diagnostic code first
SHIM = "shim"  # shim(NAME): a shim of hipconv_compat.h, templates/compat/NAME.h.j2


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
    problems = [
        f"template {name}:{node.lineno}: {_private(node)!r} is not allowed: templates render in jinja2's sandbox"
        for node in tree.find_all((nodes.Getattr, nodes.Getitem, nodes.Filter))
        if _private(node)
    ]
    for call in tree.find_all(nodes.Call):
        if isinstance(call.node, nodes.Name) and call.node.name == SHIM:
            problems.extend(_shim_problems(name, call))
        if not (isinstance(call.node, nodes.Name) and call.node.name in REPORTERS):
            continue
        code = call.args[0] if call.args else None
        where = f"template {name}:{call.lineno}: {call.node.name}()"
        if not isinstance(code, nodes.Const) or not isinstance(code.value, str):
            problems.append(f"{where} takes a literal diagnostic code as its first argument")
        elif code.value not in CODES:
            problems.append(f"{where}: {code.value!r} is not a diagnostic code (see `hipconv codes`)")
    return tuple(problems)


def _shim_problems(name: str, call: nodes.Call) -> list[str]:
    """shim() names a shim literally, one whose definition templates/compat/ has."""
    shim = call.args[0] if call.args else None
    where = f"template {name}:{call.lineno}: shim()"
    if not isinstance(shim, nodes.Const) or not isinstance(shim.value, str):
        return [f"{where} takes a literal shim name (hipconv_...)"]
    if not (templates_dir() / "compat" / f"{shim.value}.h.j2").is_file():
        return [f"{where}: no templates/compat/{shim.value}.h.j2 defines {shim.value!r}"]
    return []


def _private(node: nodes.Node) -> str:
    """The name of the private attribute that `node` reaches (x._y, x['_y'], x|attr('_y')), else ''."""
    if isinstance(node, nodes.Getattr):
        name: object = node.attr
    elif isinstance(node, nodes.Getitem):
        name = node.arg.value if isinstance(node.arg, nodes.Const) else ""
    elif isinstance(node, nodes.Filter) and node.name == "attr" and node.args:
        name = node.args[0].value if isinstance(node.args[0], nodes.Const) else ""
    else:
        name = ""
    return name if isinstance(name, str) and name.startswith("_") else ""
