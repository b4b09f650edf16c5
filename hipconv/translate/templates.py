"""The jinja2 environment over templates/: strict (a missing variable is an error), newline-exact."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hipconv.resources import templates_dir

if TYPE_CHECKING:
    import jinja2


@functools.lru_cache(maxsize=16)
def environment(folder: str | None = None) -> jinja2.Environment:
    """The environment over templates/ (or over another folder, for rules shipped beside their templates).
    jinja2 is imported here: a run whose files need no template (a rerun from the cache) does not load it."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder or str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(name: str, **context: Any) -> str:
    return environment().get_template(name).render(**context)


def render_file(path: Path, **context: Any) -> str:
    return environment(str(path.parent)).get_template(path.name).render(**context)
