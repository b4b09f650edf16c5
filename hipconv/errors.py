"""The one exception root: raised only when hipconv cannot start or continue."""

from __future__ import annotations


class HipconvError(Exception):
    """Base class; hipconv.cli prints `error: <message>` (and the hint) and exits 2."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class ConfigError(HipconvError):
    """Bad option values or paths."""


class RuleSchemaError(HipconvError):
    """One or more rule files are invalid; the message lists every problem."""


class ToolNotFound(HipconvError):
    """An external tool (libclang, hipcc) is missing."""


class SourceError(HipconvError):
    """A source handed to the Python API (hipconv.translate_source) cannot be translated: not UTF-8, binary."""
