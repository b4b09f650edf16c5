"""The one exception root: raised only when hipconv cannot start or continue."""

from __future__ import annotations


class HipconvError(Exception):
    """Base class; hipconv.cli prints `error: <message>` (and the hint) and exits 2."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class ConfigError(HipconvError):
    """Bad option values or paths."""


class OutputUnwritable(ConfigError):
    """The output cannot be written: its directory cannot be created (under a regular file, no permission), or
    its file system is read-only or full. Every file written before is whole (hipconv.output.write_atomic)."""

    def __init__(self, path: object, exc: OSError) -> None:
        super().__init__(
            f"{path}: cannot write: {exc.strerror or exc}",
            hint="write the output where it can be created and written: not under a file, not on a read-only "
            "or full file system; every file written so far is complete",
        )


class RuleSchemaError(HipconvError):
    """One or more rule files are invalid; the message lists every problem."""


class ToolNotFound(HipconvError):
    """An external tool (libclang, hipcc) is missing."""


class SourceError(HipconvError):
    """A source handed to the Python API (hipconv.translate_source) cannot be translated: not UTF-8, binary."""
