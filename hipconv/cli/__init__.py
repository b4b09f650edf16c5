"""The command line: click options -> a request -> a command function -> an exit code.

The only package that chooses an exit code. Exit codes: 0 done; 1 unported APIs remain and
--strict was given, or diagnostics at --fail-on (scan and translate alike; build: a TU does not compile;
compare: the outputs differ); 2 usage,
configuration or I/O errors (including any file that could not be read or translated); 130
stopped by SIGINT (Ctrl-C), 143 by SIGTERM, after removing temporary files (one line on stderr); 141 quietly
when the reader of its output went away (`hipconv rules list | head`), as git and coreutils do.
One module per command family: translate, build, scan, rules, compare; options.py holds what they share;
app.py the click group, loaded by main() once SIGINT and SIGTERM are handled (a Ctrl-C during
start-up, too, prints one line).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Sequence

from hipconv import interrupts
from hipconv.collector import fewer_collections
from hipconv.errors import HipconvError


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: returns the exit code (the console script raises SystemExit with it)."""
    with interrupts.raising(), fewer_collections():
        try:
            return _run(argv)
        except interrupts.Interrupted as exc:  # while reporting it, further signals are ignored
            return _interrupted(exc.signum)


def _run(argv: Sequence[str] | None) -> int:
    """The command's exit code; hipconv loads here, so that a Ctrl-C while it does is handled too."""
    with interrupts.deferred():  # an import cut short can fail oddly (C extensions); it is short
        import click

        from hipconv.cli.app import PipeClosed, cli
        from hipconv.cli.options import EXIT_BROKEN_PIPE, EXIT_ERROR, EXIT_OK
        from hipconv.report import print_line, stderr_console

    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="hipconv", standalone_mode=False)
    except HipconvError as exc:
        console = stderr_console()
        print_line(console, f"error: {exc}")
        if exc.hint:
            print_line(console, f"hint: {exc.hint}")
        return EXIT_ERROR
    except click.exceptions.Abort as exc:  # click's word for a KeyboardInterrupt (no handler of ours)
        if isinstance(exc.__cause__, KeyboardInterrupt):
            return _interrupted(signal.SIGINT)
        stderr_console().print("aborted", markup=False)
        return EXIT_ERROR
    except click.ClickException as exc:
        exc.show()
        return EXIT_ERROR
    except SystemExit as exc:
        return int(exc.code or 0)
    except PipeClosed:  # as git and coreutils end under `| head`: quietly, with 128 + SIGPIPE
        _silence_closed_streams()
        return EXIT_BROKEN_PIPE
    return EXIT_OK


def _silence_closed_streams() -> None:
    """Points the standard streams at /dev/null, so that flushing them at exit raises nothing more (Python's
    advice on SIGPIPE); streams without a file descriptor (tests capture into memory) are left as they are."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(AttributeError, OSError, ValueError):
                os.dup2(devnull, stream.fileno())
    finally:
        os.close(devnull)


def _interrupted(signum: int) -> int:
    from hipconv.cli.options import EXIT_INTERRUPTED, EXIT_TERMINATED
    from hipconv.report import print_line, stderr_console

    name = "SIGTERM" if signum == signal.SIGTERM else "SIGINT"
    print_line(stderr_console(), f"interrupted by {name}: every file written so far is complete")
    return EXIT_TERMINATED if signum == signal.SIGTERM else EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
