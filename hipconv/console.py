"""The consoles hipconv prints to, made in one place: how much they show (-q/-v) and whether they colour
(--color, NO_COLOR). A console carries its Verbosity, so the functions that print (hipconv.report, the
commands) ask it what to show; the choice is made once, from the command line, and never read globally.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from typing import Any, Literal, get_args

from rich.console import Console

from hipconv.diagnostics import Severity

ColorChoice = Literal["auto", "always", "never"]
COLOR_CHOICES: tuple[str, ...] = get_args(ColorChoice)


class Verbosity(enum.IntEnum):
    """-q/-v (counted: `-qq` is two -q, and a -v cancels a -q). What the user asked for (--stats, --report,
    --diff, the translated text, scan's --format output) and the exit code never depend on it."""

    SILENT = -2  # -qq: error diagnostics and files that failed, nothing else
    QUIET = -1  # -q: warnings and errors; no notes, progress or summaries
    NORMAL = 0
    VERBOSE = 1  # -v: also a line per file and the time the run took

    @classmethod
    def counted(cls, verbose: int, quiet: int) -> Verbosity:
        return cls(max(cls.SILENT, min(cls.VERBOSE, verbose - quiet)))

    def shows(self, severity: Severity) -> bool:
        """Whether diagnostics (and file lines) of this severity are printed."""
        return self >= _SHOWN_FROM[severity]

    @property
    def chatty(self) -> bool:
        """Progress, notes and the summaries nobody asked for by an option."""
        return self >= Verbosity.NORMAL

    @property
    def verbose(self) -> bool:
        return self >= Verbosity.VERBOSE


_SHOWN_FROM = {Severity.ERROR: Verbosity.SILENT, Severity.WARNING: Verbosity.QUIET, Severity.NOTE: Verbosity.NORMAL}


@dataclass(frozen=True)
class Display:
    """What the command line asked to see (-q/-v) and how (--color)."""

    verbosity: Verbosity = Verbosity.NORMAL
    color: ColorChoice = "auto"


class HipconvConsole(Console):
    """A rich Console that knows the verbosity it was made for."""

    def __init__(self, verbosity: Verbosity, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.verbosity = verbosity


def make_console(display: Display = Display(), *, stderr: bool = True, width: int | None = None) -> Console:
    """A console on stderr (messages, progress, summaries) or stdout (a command's text output).

    Colour: `auto` colours when the stream is a terminal (as rich decides it: FORCE_COLOR and TTY_COMPATIBLE
    count) unless NO_COLOR is set to a non-empty value; `always` colours even a pipe or a file (ANSI
    codes, 16 colours), NO_COLOR notwithstanding; `never` writes no ANSI styling at all. Whether the
    stream is a terminal still decides between a progress bar and progress lines. `width`: a fixed width
    (tables that must not depend on the terminal's).
    """
    system: Literal["auto", "standard"] | None = "auto"
    if display.color == "never" or (display.color == "auto" and os.environ.get("NO_COLOR")):
        system = None
    elif display.color == "always":
        system = "standard"
    # no_color=False: rich would otherwise read NO_COLOR itself, and strip the colours --color always asks for
    return HipconvConsole(
        display.verbosity, stderr=stderr, width=width, highlight=False, color_system=system, no_color=False
    )


def verbosity(console: Console) -> Verbosity:
    """The verbosity the console was made for (make_console); NORMAL for any other console."""
    return console.verbosity if isinstance(console, HipconvConsole) else Verbosity.NORMAL


def plain(console: Console) -> bool:
    """Neither a terminal nor coloured (a log, a pipe): text goes out as plain lines."""
    return not console.is_terminal and console.color_system is None
