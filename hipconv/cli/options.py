"""What the commands' options share: the options themselves, the configuration file, AMD targets, exit codes."""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypedDict, cast

import click

from hipconv.config import FAIL_ON, Config, find_config, load_config, project_root
from hipconv.console import COLOR_CHOICES, ColorChoice, Display, Verbosity
from hipconv.report import print_verbose, stderr_console
from hipconv.settings import DEFAULT_OFFLOAD_ARCHS, PROJECT_HIP_PATHS

EXIT_OK, EXIT_UNPORTED, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143  # stopped by SIGINT (Ctrl-C) or SIGTERM: 128 + the signal
EXIT_BROKEN_PIPE = 141  # the reader of stdout went away (`| head`): 128 + SIGPIPE, quietly, as git and coreutils
Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def no_compat_option() -> Decorator:
    """--no-compat: no shims of hipconv_compat.h (hipconv.translate.compat); `compat = false` in the configuration."""
    return click.option(
        "--no-compat",
        is_flag=True,
        help="Write no hipconv_compat.h shims: CUDA APIs the targeted ROCm lacks are reported instead "
        "[default: a shim where HIP can express the API exactly, with a note (HC011)].",
    )


def single_source_option(help: str) -> Decorator:
    """--single-source: the tree stays CUDA, and hipcc builds the same files (Settings.single_source)."""
    return click.option("--single-source", is_flag=True, help=help)


def config_at(path: Path | None, display: Display) -> Config:
    """The configuration: FILE of --config, else the one found from the working directory up to the
    project root (hipconv.config.find_config). -v says which file it is, or that there is none."""
    start = Path.cwd()
    config = load_config(path or find_config(start))
    root = project_root(start)
    searched = f"in {root}" if root == start.resolve() else f"from {start} up to the project root {root}"
    said = f"using configuration {config.path}" if config.path else f"no configuration file {searched}"
    print_verbose(stderr_console(display), said)
    return config


def offload_archs(value: str | None) -> tuple[str, ...]:
    archs = tuple(a.strip() for a in (value or "").split(",") if a.strip()) or DEFAULT_OFFLOAD_ARCHS
    bad = [a for a in archs if not re.fullmatch(r"gfx[0-9a-f]+(:[\w+-]+)*", a)]
    if bad:
        raise click.BadParameter(
            f"{', '.join(bad)}: not an AMD GPU target (gfx90a, gfx942, ...)", param_hint="--offload-arch"
        )
    return archs


def backup_suffix(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    """--backup-suffix (a click callback): a non-empty ending of a file name, without a directory separator."""
    if not value or "/" in value or (os.altsep is not None and os.altsep in value) or "\0" in value:
        raise click.BadParameter(
            f"{value!r}: a backup suffix must be a non-empty file-name ending without '/', e.g. .orig",
            param_hint="--backup-suffix",
        )
    return value


def follow_symlinks_option() -> Decorator:
    return click.option(
        "--follow-symlinks",
        is_flag=True,
        help="Follow symbolic links in a tree that lead out of the named trees [default: skip them with a note].",
    )


def rocm_version_option(help: str = "Targeted ROCm release [default: the newest bundled inventory].") -> Decorator:
    """--rocm-version X.Y: one of the bundled releases (or a patch release of one); checked by settings_from."""
    return click.option("--rocm-version", default=None, metavar="X.Y", help=help)


def cuda_release_option() -> Decorator:
    """--cuda-release X.Y: the CUDA release the code was written for (9.0 to 13.x); checked by settings_from."""
    return click.option(
        "--cuda-release",
        default=None,
        metavar="X.Y",
        help="The CUDA release the code was written for: the value of CUDART_VERSION, CUDA_VERSION and "
        "__CUDACC_VER_MAJOR__/MINOR__ in the version tests rewritten [default: the newest bundled inventory].",
    )


def project_hip_path_option() -> Decorator:
    """--project-hip-path keep|off: a project's own HIP path (matchers.project_hip); config: project-hip-path."""
    return click.option(
        "--project-hip-path",
        type=click.Choice(PROJECT_HIP_PATHS),
        default=None,
        help="A project's own HIP switch (GGML_USE_HIP, USE_ROCM) and alias header: keep its HIP code and read "
        "its switch as defined, so its AMD branches are compiled; off translates its CUDA branches "
        "[default: keep].",
    )


def rules_dir_option(help: str = "Extra directory of YAML rules.") -> Decorator:
    return click.option("--rules-dir", multiple=True, type=click.Path(path_type=Path), help=help)


def exclude_option(help: str) -> Decorator:
    return click.option("--exclude", multiple=True, metavar="PATTERN", help=help)


class Exclusion(TypedDict):
    """A request's exclusion fields, from the configuration and the command line (hipconv.excludes)."""

    excludes: tuple[str, ...]
    respect_gitignore: bool


def exclusion(config: Config, exclude: tuple[str, ...], respect_gitignore: bool | None) -> Exclusion:
    """--exclude adds to the configuration's `exclude`; --respect-gitignore overrides `respect-gitignore`."""
    gitignore = config.respect_gitignore if respect_gitignore is None else respect_gitignore
    return Exclusion(excludes=config.exclude + exclude, respect_gitignore=bool(gitignore))


def gitignore_option() -> Decorator:
    """--respect-gitignore: skip what the input trees' .gitignore files ignore (hipconv.excludes)."""
    return click.option(
        "--respect-gitignore",
        is_flag=True,
        default=None,
        help="Also skip what the .gitignore files inside the input trees ignore (config: respect-gitignore).",
    )


def fail_on_option(default: str) -> Decorator:
    """--fail-on error|warning|never: the same threshold for scan and translate (hipconv.config.fails_on)."""
    return click.option(
        "--fail-on",
        type=click.Choice(FAIL_ON),
        default=None,
        help=f"Exit 1 when a diagnostic of this severity or worse is reported [default: {default}].",
    )


@dataclass(frozen=True)
class DisplayChoice:
    """-q/-v/--color as given at one level of the command line: the group's (`hipconv -q translate`), to
    which the command's counts add and which its --color overrides."""

    quiet: int = 0
    verbose: int = 0
    color: str | None = None

    def then(self, inner: DisplayChoice) -> DisplayChoice:
        return DisplayChoice(self.quiet + inner.quiet, self.verbose + inner.verbose, inner.color or self.color)

    @property
    def display(self) -> Display:
        return Display(Verbosity.counted(self.verbose, self.quiet), cast(ColorChoice, self.color or "auto"))


def chosen_display() -> Display:
    """What the group's -q/-v/--color chose, for a command without options of its own."""
    return (click.get_current_context().find_object(DisplayChoice) or DisplayChoice()).display


def display_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """-q/-v/--color, for the group and for translate, scan and build: the command gets one `display`
    (hipconv.console.Display) made from the group's choice and its own; the group passes its on (ctx.obj)."""

    @functools.wraps(command)
    def with_display(*args: Any, quiet: int, verbose: int, color: str | None, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        ctx.obj = (ctx.find_object(DisplayChoice) or DisplayChoice()).then(DisplayChoice(quiet, verbose, color))
        return command(*args, display=ctx.obj.display, **kwargs)

    options = (
        click.option(
            "--color",
            type=click.Choice(COLOR_CHOICES),
            default=None,
            help="Colour: auto (on a terminal, unless NO_COLOR is set), always (also into pipes and files), "
            "never [default: auto].",
        ),
        click.option(
            "-v",
            "--verbose",
            count=True,
            help="Say more: the configuration file used, a line for every file, and the time the run took.",
        ),
        click.option(
            "-q",
            "--quiet",
            count=True,
            help="Say less: -q hides notes, progress and summaries; -qq shows errors only.",
        ),
    )
    for option in options:
        with_display = option(with_display)
    return with_display


def grouped_options(into: str, *names: str) -> Decorator:
    """The options `names` handed to the command as one mapping, `into` ({name: value}), to pass on as keyword
    arguments (a request's fields, the options named as they are): a command's long list of options stays short.
    The options themselves are declared as usual, where --help lists them."""

    def gather(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def with_group(*args: Any, **kwargs: Any) -> Any:
            group = {name: kwargs.pop(name) for name in names}
            return command(*args, **kwargs, **{into: group})

        return with_group

    return gather


def config_option() -> Decorator:
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, exists=True, path_type=Path),
        help="Configuration file [default: the nearest .hipconv.toml or pyproject.toml with [tool.hipconv]].",
    )
