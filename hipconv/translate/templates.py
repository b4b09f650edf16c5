"""The jinja2 environment over templates/: strict (a missing variable is an error), newline-exact, and
sandboxed: a rule folder's template is data that a tree can ship (a `.hipconv.toml` names its rule
folders), so it renders in jinja2's immutable sandbox, where no attribute that starts with `_` and no
method that changes a value can be reached, and a template cannot run Python."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hipconv.errors import RuleSchemaError
from hipconv.resources import templates_dir

if TYPE_CHECKING:
    import jinja2


@functools.lru_cache(maxsize=16)
def environment(folder: str | None = None) -> jinja2.Environment:
    """The environment over templates/ (or over another folder, for rules shipped beside their templates:
    `{% include %}` reads below that folder only). jinja2 is imported here: a run whose files need no
    template (a rerun from the cache) does not load it."""
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    return ImmutableSandboxedEnvironment(
        loader=jinja2.FileSystemLoader(folder or str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(name: str, **context: Any) -> str:
    return _rendered(environment(), name, name, context)


def render_file(path: Path, **context: Any) -> str:
    return _rendered(environment(str(path.parent)), path.name, str(path), context)


def _rendered(env: jinja2.Environment, name: str, shown: str, context: dict[str, Any]) -> str:
    """The template's text; what the sandbox refuses stops the run as a rule error (exit 2), as an invalid
    rule file does (hipconv.rules.template_codes refuses the plain cases when the rules load)."""
    from jinja2.exceptions import SecurityError

    try:
        return env.get_template(name).render(**context)
    except SecurityError as exc:
        raise RuleSchemaError(
            f"template {shown}: {exc}",
            hint="templates render in jinja2's sandbox: they read the values they are given, never Python's internals",
        ) from None
