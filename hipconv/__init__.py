"""hipconv: ahead-of-time CUDA to HIP source translation.

The Python API (see hipconv.api) is loaded on first use, so that `import hipconv` stays cheap:
`hipconv.translate_source(...)`, `hipconv.translate_tree(...)` and the values they return.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hipconv.version import __version__

__all__ = ["__version__", "translate_source", "translate_tree", "SourceTranslation", "TreeTranslation"]

if TYPE_CHECKING:
    from hipconv.api import SourceTranslation, TreeTranslation, translate_source, translate_tree


def __getattr__(name: str) -> Any:
    """The API's names, imported from hipconv.api when first asked for."""
    if name in __all__:  # (__version__ is found before __getattr__ is asked)
        from hipconv import api

        return getattr(api, name)
    raise AttributeError(f"module 'hipconv' has no attribute {name!r}")
