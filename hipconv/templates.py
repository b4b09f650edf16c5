"""The jinja2 environment over templates/: strict (a missing variable is an error), newline-exact."""

from __future__ import annotations

import functools
from typing import Any

import jinja2

from hipconv.resources import templates_dir


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(name: str, **context: Any) -> str:
    return environment().get_template(name).render(**context)
