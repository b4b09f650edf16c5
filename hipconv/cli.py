"""The command line: click options -> a request -> a command function -> an exit code.

The only module that chooses an exit code. Exit codes: 0 done; 1 unported APIs remain and
--strict was given (scan: findings at --fail-on; build: a TU does not compile); 2 usage,
configuration or I/O errors (including any file that could not be read or translated).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Sequence

import click
from rich.console import Console

from hipconv import __version__
from hipconv.buildfiles.nvcc_flags import DEFAULT_OFFLOAD_ARCHS
from hipconv.commands.build import BuildRequest, build_tree
from hipconv.commands.rules import docs_text, rule_lines, show_lines, update_docs
from hipconv.commands.scan import ScanRequest, scan_paths
from hipconv.commands.translate import TranslateOutcome, TranslateRequest, translate_paths
from hipconv.config import FAIL_ON, Config, find_config, load_config
from hipconv.diagnostics import CODES
from hipconv.errors import HipconvError
from hipconv.output import OutputMode
from hipconv.report import coverage_table, print_line, stderr_console
from hipconv.resources import hip_releases
from hipconv.rules import load_ruleset
from hipconv.rules.coverage import coverage as library_coverage
from hipconv.rules.coverage import load_symbols
from hipconv.rules.schema import json_schema
from hipconv.scan.formats import FORMATS
from hipconv.settings import KERNEL_LAUNCH_STYLES, KernelLaunch, Settings, Version

EXIT_OK, EXIT_UNPORTED, EXIT_ERROR = 0, 1, 2


def _settings(config: Config, rocm_version: str | None, kernel_launch: str | None, *, experimental: bool = False,
              jobs: int = 1) -> Settings:
    """Command-line values, else the configuration file's, else the defaults."""
    return Settings(Version.parse(rocm_version or config.rocm_version or _default_rocm()),
                    KernelLaunch.parse(kernel_launch or config.kernel_launch or KernelLaunch.CHEVRON.value),
                    experimental, jobs)


def _default_rocm() -> str:
    releases = hip_releases()
    return releases[-1] if releases else "6.3"


def _config(path: Path | None) -> Config:
    return load_config(path or find_config(Path.cwd()))


def _offload_archs(value: str | None) -> tuple[str, ...]:
    archs = tuple(a.strip() for a in (value or "").split(",") if a.strip()) or DEFAULT_OFFLOAD_ARCHS
    bad = [a for a in archs if not re.fullmatch(r"gfx[0-9a-f]+(:[\w+-]+)*", a)]
    if bad:
        raise click.BadParameter(f"{', '.join(bad)}: not an AMD GPU target (gfx90a, gfx942, ...)",
                                 param_hint="--offload-arch")
    return archs


def _translate_exit(outcome: TranslateOutcome, *, strict: bool) -> int:
    if outcome.failed:
        return EXIT_ERROR
    return EXIT_UNPORTED if strict and outcome.summary.unported_count else EXIT_OK


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hipconv")
def cli() -> None:
    """hipconv: translate CUDA sources to HIP."""


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Output file (one input) or directory (a tree).")
@click.option("--in-place", is_flag=True, help="Rewrite the inputs, keeping a backup of each changed file.")
@click.option("--backup-suffix", default=".orig", show_default=True, help="Suffix of --in-place backups.")
@click.option("--dry-run", is_flag=True, help="Translate and report, write nothing.")
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff on stdout, write nothing.")
@click.option("--kernel-launch", type=click.Choice(KERNEL_LAUNCH_STYLES), default=None,
              help="Keep <<<...>>> launches, or rewrite them to hipLaunchKernelGGL [default: chevron].")
@click.option("--rocm-version", default=None, metavar="X.Y",
              help="Targeted ROCm release [default: the newest bundled inventory].")
@click.option("--experimental", is_flag=True, help="Also apply rules whose HIP side is experimental.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths (relative to the input) matching GLOB.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes.")
@click.option("--stats", is_flag=True, help="Print a summary table on stderr.")
@click.option("--report", "report_path", type=click.Path(path_type=Path), help="Write a report of every file: JSON, or Markdown when FILE ends in .md.")
@click.option("--strict", is_flag=True, help="Exit 1 when unported CUDA APIs remain.")
@click.option("--force", is_flag=True, help="Overwrite an existing output file or a foreign output directory.")
@click.option("--rules-dir", multiple=True, type=click.Path(path_type=Path), help="Extra directory of YAML rules.")
@click.option("--offload-arch", default=None, metavar="LIST",
              help="AMD targets that replace CUDA architectures in build files [default: gfx90a].")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Configuration file [default: the nearest .hipconv.toml or pyproject.toml with [tool.hipconv]].")
def translate(paths: tuple[Path, ...], output: Path | None, in_place: bool, backup_suffix: str, dry_run: bool,
              show_diff: bool, kernel_launch: str | None, rocm_version: str | None, experimental: bool,
              exclude: tuple[str, ...], jobs: int, stats: bool, report_path: Path | None, strict: bool,
              force: bool, rules_dir: tuple[Path, ...], offload_arch: str | None, config_path: Path | None) -> None:
    """Translate CUDA files or trees (PATHS) to HIP; build files (CMake, Makefiles) too."""
    archs = _offload_archs(offload_arch)
    if dry_run and show_diff:
        raise click.UsageError("--dry-run and --diff exclude each other")
    config = _config(config_path)
    mode = OutputMode.DRY_RUN if dry_run else OutputMode.DIFF if show_diff else OutputMode.WRITE
    request = TranslateRequest(
        paths, _settings(config, rocm_version, kernel_launch, experimental=experimental, jobs=jobs), output=output,
        mode=mode, in_place=in_place, backup_suffix=backup_suffix, excludes=config.exclude + exclude,
        rules_dirs=config.rules_dirs + rules_dir, offload_archs=archs, report_path=report_path, stats=stats,
        force=force)
    outcome = translate_paths(request, stderr_console(), sys.stdout.buffer)
    raise SystemExit(_translate_exit(outcome, strict=strict))


@cli.command()
@click.argument("src", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory of the translated tree.")
@click.option("--offload-arch", default=None, metavar="LIST", help="Comma-separated AMD targets [default: gfx90a].")
@click.option("-p", "compile_db", type=click.Path(exists=True, path_type=Path),
              help="The CUDA build's compile_commands.json, or the directory holding it: its flags are mapped.")
@click.option("--hipcc", "hipcc_path", default=None, metavar="PATH",
              help="hipcc to use [default: hipcc on PATH, else $ROCM_PATH/bin/hipcc].")
@click.option("--hip-platform", type=click.Choice(["amd", "nvidia"]), default=None,
              help="HIP_PLATFORM for hipcc [default: $HIP_PLATFORM, else amd].")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="CPU count",
              help="Parallel hipcc processes.")
@click.option("--check-only", is_flag=True, help="Compile with -fsyntax-only: faster, no objects.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write every TU's command, status and diagnostics as JSON.")
@click.option("--build-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where objects go [default: OUTPUT/.hipconv-build].")
@click.option("--hipcc-arg", multiple=True, metavar="ARG", help="Extra argument for every hipcc command.")
@click.option("--rocm-version", default=None, metavar="X.Y", help="As for translate.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="As for translate.")
@click.option("--rules-dir", multiple=True, type=click.Path(path_type=Path), help="As for translate.")
@click.option("--force", is_flag=True, help="As for translate.")
def build(src: Path, output: Path, offload_arch: str | None, compile_db: Path | None, hipcc_path: str | None,
          hip_platform: str | None, jobs: int, check_only: bool, report_path: Path | None, build_dir: Path | None,
          hipcc_arg: tuple[str, ...], rocm_version: str | None, exclude: tuple[str, ...],
          rules_dir: tuple[Path, ...], force: bool) -> None:
    """Translate SRC into OUTPUT (incrementally) and compile every translation unit with hipcc."""
    archs = _offload_archs(offload_arch)
    config = _config(None)
    translation = TranslateRequest(
        (src,), _settings(config, rocm_version, None, jobs=jobs), output=output, excludes=config.exclude + exclude,
        rules_dirs=config.rules_dirs + rules_dir, offload_archs=archs, force=force)
    request = BuildRequest(translation, jobs, os.environ, hipcc=hipcc_path, hip_platform=hip_platform,
                           compile_db=compile_db, check_only=check_only, report_path=report_path,
                           build_dir=build_dir, hipcc_args=hipcc_arg)
    outcome = build_tree(request, stderr_console(), sys.stdout.buffer)
    if outcome.translation.failed:
        raise SystemExit(EXIT_ERROR)
    raise SystemExit(EXIT_UNPORTED if outcome.compile_failed else EXIT_OK)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: clang-style lines on stderr; json, sarif, github: on stdout (or --output).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to FILE.")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
              help="Exit 1 when a finding of this severity or worse is reported [default: warning].")
@click.option("--rocm-version", default=None, metavar="X.Y", help="Targeted ROCm release [default: the newest bundled].")
@click.option("--kernel-launch", type=click.Choice(KERNEL_LAUNCH_STYLES), default=None, help="As for translate.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching GLOB (added to the configuration's).")
@click.option("--disable", multiple=True, metavar="CODE", help="Do not report CODE (added to the configuration's).")
@click.option("--rules-dir", multiple=True, type=click.Path(path_type=Path), help="Extra directory of YAML rules.")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Report (and fail on) only findings this baseline does not record.")
@click.option("--write-baseline", type=click.Path(dir_okay=False, path_type=Path),
              help="Record today's findings in FILE and exit 0.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Configuration file [default: the nearest .hipconv.toml or pyproject.toml with [tool.hipconv]].")
def scan(paths: tuple[Path, ...], fmt: str, output: Path | None, fail_on: str | None, rocm_version: str | None,
         kernel_launch: str | None, exclude: tuple[str, ...], disable: tuple[str, ...], rules_dir: tuple[Path, ...],
         baseline_path: Path | None, write_baseline: Path | None, config_path: Path | None) -> None:
    """Report what in PATHS would not port to HIP; write nothing. Exit 1 on findings (see --fail-on)."""
    config = _config(config_path)
    unknown = [c for c in disable if c not in CODES]
    if unknown:
        raise HipconvError(f"--disable: unknown code {', '.join(unknown)}", hint="`hipconv codes` lists them")
    request = ScanRequest(
        paths, _settings(config, rocm_version, kernel_launch), fail_on=fail_on or config.fail_on or "warning",  # type: ignore[arg-type]
        fmt=fmt, output=output, excludes=config.exclude + exclude,  # type: ignore[arg-type]
        disabled=frozenset(config.disable + disable), rules_dirs=config.rules_dirs + rules_dir,
        baseline=baseline_path, write_baseline=write_baseline)
    outcome, stdout = scan_paths(request, stderr_console())
    if stdout:
        click.echo(stdout, nl=False)
    if outcome.failed:
        raise SystemExit(EXIT_ERROR)
    raise SystemExit(EXIT_UNPORTED if outcome.failing else EXIT_OK)


@cli.group()
def rules() -> None:
    """Inspect and check the rule set."""


@rules.command("validate")
@click.option("--rules-dir", multiple=True, type=click.Path(path_type=Path), help="Extra directory of YAML rules.")
def rules_validate(rules_dir: tuple[Path, ...]) -> None:
    """Load every rule file and report all problems at once."""
    click.echo(f"{len(load_ruleset(rules_dir).rules)} rules OK")


@rules.command("list")
@click.option("--library", default=None, help="Only rules of this library (cudart, cuda_driver, device, ...).")
@click.option("--status", default=None, help="Only rules with this status.")
def rules_list(library: str | None, status: str | None) -> None:
    """One line per rule: id, CUDA spelling, HIP spelling, status, ROCm range."""
    for line in rule_lines(library, status):
        click.echo(line)


@rules.command("show")
@click.argument("name")
def rules_show(name: str) -> None:
    """Everything hipconv knows about a CUDA (or HIP) spelling or a rule id."""
    for line in show_lines(name):
        click.echo(line)


@rules.command("coverage")
@click.option("--library", default=None, help="Only this library (cublas, cusparse, cub, ...).")
def rules_coverage(library: str | None) -> None:
    """Per CUDA library: symbols, how many have a rule, translated or not, and twins with no rule."""
    rows = [r for r in library_coverage(load_ruleset(), load_symbols()) if library in (None, r.library)]
    if not rows:
        raise HipconvError(f"no coverage data for library {library!r}" if library else "no coverage data bundled")
    Console(highlight=False, width=120).print(coverage_table(rows))
    for row in rows:
        for name in row.twins_without_rule:
            click.echo(f"{row.library}: {name} has a HIP twin but no rule")


@rules.command("schema")
def rules_schema() -> None:
    """Print the JSON Schema of a rule file (rules/schema.json is this output), for editors."""
    import json

    click.echo(json.dumps(json_schema(), indent=2))


@rules.command("docs")
@click.option("--write", "target", type=click.Path(dir_okay=False, path_type=Path),
              help="Update the generated sections of this Markdown file (e.g. README.md) in place.")
@click.option("--check", "check", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Exit 1 when the generated sections of this file are stale.")
def rules_docs(target: Path | None, check: Path | None) -> None:
    """Print (or update in a file) the generated Markdown: diagnostic codes and rule coverage."""
    if target is None and check is None:
        click.echo(docs_text(), nl=False)
        return
    path = check or target
    assert path is not None
    if not update_docs(path, check=check is not None) and check is not None:
        print_line(stderr_console(), f"{path} is stale: run `hipconv rules docs --write {path}`")
        raise SystemExit(EXIT_UNPORTED)


@cli.group()
def debug() -> None:
    """Tools for looking at what hipconv sees."""


@debug.command("tokens")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def debug_tokens(file: Path) -> None:
    """Dump the lossless token stream of FILE (kind, offsets, text)."""
    from hipconv.translate.lexer import lex
    from hipconv.translate.source import DecodeFailure, SourceFile

    try:
        source = SourceFile.from_bytes(str(file), file.read_bytes())
    except DecodeFailure as exc:
        raise HipconvError(f"{file}: {exc}") from None
    for token in lex(source.body).with_gaps():
        line, col = source.line_col(token.start)
        click.echo(f"{line}:{col}\t{token.kind.name.lower()}\t{token.text!r}")


@cli.command("codes")
def codes() -> None:
    """The diagnostic codes and what they mean."""
    for code in CODES.values():
        click.echo(f"{code.code}\t{code.severity.value}\t{code.title}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: returns the exit code (the console script raises SystemExit with it)."""
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="hipconv", standalone_mode=False)
    except HipconvError as exc:
        console = stderr_console()
        print_line(console, f"error: {exc}")
        if exc.hint:
            print_line(console, f"hint: {exc.hint}")
        return EXIT_ERROR
    except click.exceptions.Abort:
        stderr_console().print("aborted", markup=False)
        return EXIT_ERROR
    except click.ClickException as exc:
        exc.show()
        return EXIT_ERROR
    except SystemExit as exc:
        return int(exc.code or 0)
    except BrokenPipeError:
        sys.stderr.close()
        return EXIT_ERROR
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
