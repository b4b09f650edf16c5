"""The command line: options -> Settings -> pipeline -> report -> exit code.

The only module that prints or chooses an exit code. Exit codes: 0 done;
1 unported APIs remain and --strict was given; 2 usage, configuration or I/O
errors (including any file that could not be read or translated).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Callable, Iterator, Sequence

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from hipconv import __version__
from hipconv.baseline import baseline_json, load_baseline, new_findings
from hipconv.build import (
    compile_commands,
    compile_units,
    group_failures,
    load_compile_commands,
    plan_compile_commands,
    plan_tree,
)
from hipconv.build_report import json_report as build_json_report
from hipconv.build_report import print_flag_notes, print_groups, summary_table
from hipconv.config import FAIL_ON, Config, find_config, load_config
from hipconv.coverage import coverage as library_coverage
from hipconv.coverage import load_symbols
from hipconv.diagnostics import CODES
from hipconv.discover import OUTPUT_MARKER, plan
from hipconv.errors import HipconvError
from hipconv.formats import FORMATS, ScanReport, print_text
from hipconv.formats import render as render_scan
from hipconv.hipcc import find_hipcc, hip_environment
from hipconv.nvcc_flags import DEFAULT_OFFLOAD_ARCHS
from hipconv.output import backup, content_of, unified_diff, write_atomic
from hipconv.pipeline import FileResult, Status, run
from hipconv.report import (
    Summary,
    coverage_table,
    generated_sections,
    json_report,
    print_result,
    splice_sections,
    stats_table,
)
from hipconv.resources import hip_releases
from hipconv.ruleset import json_schema, load_ruleset
from hipconv.scan import FileScan, at_or_above, excluded, scan_jobs
from hipconv.settings import KERNEL_LAUNCH_STYLES, Settings, Version
from hipconv.templates import render

EXIT_OK, EXIT_UNPORTED, EXIT_ERROR = 0, 1, 2


def _stderr() -> Console:
    return Console(stderr=True, highlight=False)


def _settings(config: Config, rocm_version: str | None, kernel_launch: str | None, *, experimental: bool = False,
              jobs: int = 1) -> Settings:
    """Command-line values, else the configuration file's, else the defaults."""
    return Settings(Version.parse(rocm_version or config.rocm_version or _default_rocm()),
                    kernel_launch or config.kernel_launch or "chevron", experimental, jobs)


def _default_rocm() -> str:
    releases = hip_releases()
    return releases[-1] if releases else "6.3"


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
              force: bool, rules_dir: tuple[Path, ...], offload_arch: str | None = None,
              config_path: Path | None = None) -> None:
    """Translate CUDA files or trees (PATHS) to HIP; build files (CMake, Makefiles) too."""
    archs = _offload_archs(offload_arch)
    if dry_run and show_diff:
        raise click.UsageError("--dry-run and --diff exclude each other")
    config = load_config(config_path or find_config(Path.cwd()))
    settings = _settings(config, rocm_version, kernel_launch, experimental=experimental, jobs=jobs)
    writes = not (dry_run or show_diff)
    the_plan = plan(list(paths), output, in_place=in_place, excludes=config.exclude + exclude, writes=writes,
                    force=force)
    table = load_ruleset(config.rules_dirs + rules_dir).table(settings)
    console = _stderr()
    summary = Summary(keep_files=report_path is not None)
    stdout = sys.stdout.buffer
    write_errors = 0

    def handle(result: FileResult) -> None:
        nonlocal write_errors
        try:
            _emit(result)
        except OSError as exc:
            write_errors += 1
            result = FileResult(result.path, Status.FAILED, reason=f"cannot write output: {exc.strerror or exc}",
                                diagnostics=result.diagnostics, replacements=result.replacements, size=result.size)
        summary.add(result)
        print_result(out, result)

    def _emit(result: FileResult) -> None:
        dest = the_plan.destinations.get(result.path)
        job = jobs_by_display[result.path]
        source_path = job.path
        if show_diff:
            unified_diff(result, source_path, stdout)
            return
        if dry_run or result.status is Status.SKIPPED:
            return
        if in_place:
            if result.status is Status.CONVERTED and result.output is not None:
                backup(Path(source_path), backup_suffix)
                write_atomic(Path(source_path), result.output, mode=job.mode)
            return
        data = content_of(result, source_path)
        if data is None:
            return
        if dest is None:
            stdout.write(data)
        else:
            write_atomic(dest, data, mode=job.mode)

    jobs_by_display = {job.display: job for job in the_plan.jobs}
    for problem in the_plan.problems:
        summary.add(problem)
        print_result(console, problem)
    try:
        with _progress_bar(console, len(the_plan.jobs), "translating", shown=the_plan.tree) as (advance, out):
            for result in run(the_plan.jobs, table, settings, offload_archs=archs):
                handle(result)
                advance()
    except KeyboardInterrupt:
        console.print("interrupted: the report covers the files finished so far", style="bold red")
        write_errors += 1
    if the_plan.output_root is not None and writes:
        write_atomic(the_plan.output_root / OUTPUT_MARKER,
                     json.dumps({"written_by": f"hipconv {__version__}", "rocm": str(settings.rocm)}).encode() + b"\n")
    if report_path is not None:
        data = json_report(summary, settings)
        text = render("report/summary.md.j2", report=data) if report_path.suffix == ".md" else json.dumps(data, indent=2) + "\n"
        write_atomic(report_path, text.encode())
    if stats:
        console.print(stats_table(summary))
    if summary.failed or write_errors:
        raise SystemExit(EXIT_ERROR)
    if strict and summary.unported_count:
        raise SystemExit(EXIT_UNPORTED)


@contextlib.contextmanager
def _progress_bar(console: Console, total: int, label: str, *,
                  shown: bool = True) -> Iterator[tuple[Callable[[], None], Console]]:
    """(advance, the console to print on while it runs): a rich bar on a terminal, a line at every
    tenth of the work otherwise, nothing when not shown."""
    if shown and console.is_terminal and total >= 2:
        bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                       console=console, transient=True)
        with bar:
            task = bar.add_task(label, total=total)
            yield (lambda: bar.advance(task)), bar.console
        return
    plain = _PlainProgress(console, total) if shown else None
    yield (plain.advance if plain else lambda: None), console


class _PlainProgress:
    """Progress for logs (stderr not a terminal): a line at every tenth of the work."""

    def __init__(self, console: Console, total: int) -> None:
        self.console, self.total, self.done, self.next_mark = console, total, 0, 1

    def advance(self) -> None:
        self.done += 1
        if self.total >= 20 and self.done * 10 >= self.next_mark * self.total:
            self.console.print(f"hipconv: {self.done}/{self.total} files", highlight=False)
            self.next_mark += 1


def _offload_archs(value: str | None) -> tuple[str, ...]:
    archs = tuple(a.strip() for a in (value or "").split(",") if a.strip()) or DEFAULT_OFFLOAD_ARCHS
    bad = [a for a in archs if not re.fullmatch(r"gfx[0-9a-f]+(:[\w+-]+)*", a)]
    if bad:
        raise click.BadParameter(f"{', '.join(bad)}: not an AMD GPU target (gfx90a, gfx942, ...)",
                                 param_hint="--offload-arch")
    return archs


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
@click.pass_context
def build(ctx: click.Context, src: Path, output: Path, offload_arch: str | None, compile_db: Path | None,
          hipcc_path: str | None, hip_platform: str | None, jobs: int, check_only: bool, report_path: Path | None,
          build_dir: Path | None, hipcc_arg: tuple[str, ...], rocm_version: str | None, exclude: tuple[str, ...],
          rules_dir: tuple[Path, ...], force: bool) -> None:
    """Translate SRC into OUTPUT (incrementally) and compile every translation unit with hipcc."""
    archs = _offload_archs(offload_arch)
    hipcc = find_hipcc(hipcc_path, os.environ)  # before anything is written
    env = hip_environment(os.environ, hip_platform)
    entries = load_compile_commands(compile_db) if compile_db is not None else None
    try:
        ctx.invoke(translate, paths=(src,), output=output, rocm_version=rocm_version, exclude=exclude, jobs=jobs,
                   rules_dir=rules_dir, force=force, offload_arch=",".join(archs))
    except SystemExit as exc:
        if exc.code:
            raise
    objects = build_dir or output / ".hipconv-build"
    console = _stderr()
    skipped: list[str] = []
    if entries is not None:
        units, skipped = plan_compile_commands(entries, src, output, hipcc, archs, build_dir=objects.resolve(),
                                               check_only=check_only, extra=hipcc_arg)
    else:
        tree = plan([src], output, in_place=False, excludes=exclude, writes=False, force=True)
        files = [os.path.relpath(dest, output) for dest in tree.destinations.values() if dest is not None]
        units = plan_tree(files, output.resolve(), hipcc, archs, build_dir=objects.resolve(), check_only=check_only,
                          extra=hipcc_arg)
    for line in skipped:
        console.print(f"note: {line}", markup=False, highlight=False, soft_wrap=True)
    print_flag_notes(console, units)
    write_atomic(output / "compile_commands.json", (json.dumps(compile_commands(units), indent=2) + "\n").encode())
    started = time.monotonic()
    results = []
    with _progress_bar(console, len(units), "compiling") as (advance, _):
        for result in compile_units(units, env, jobs=jobs):
            results.append(result)
            advance()
    seconds = time.monotonic() - started
    groups = group_failures(results, load_ruleset(rules_dir))
    print_groups(console, groups)
    console.print(summary_table(results, seconds, check_only=check_only))
    if report_path is not None:
        report = build_json_report(results, groups, hipcc=hipcc, archs=archs, check_only=check_only,
                                   seconds=seconds, skipped=skipped)
        write_atomic(report_path, (json.dumps(report, indent=2) + "\n").encode())
    if any(not r.ok for r in results):
        raise SystemExit(EXIT_UNPORTED)


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
    config = load_config(config_path or find_config(Path.cwd()))
    unknown = [c for c in disable if c not in CODES]
    if unknown:
        raise HipconvError(f"--disable: unknown code {', '.join(unknown)}", hint="`hipconv codes` lists them")
    settings = _settings(config, rocm_version, kernel_launch)
    excludes = config.exclude + exclude
    the_plan = plan(list(paths), None, in_place=True, excludes=excludes, writes=False, force=False)  # read in place
    jobs = [job for job in the_plan.jobs if not excluded(job.display, excludes)]
    table = load_ruleset(config.rules_dirs + rules_dir).table(settings)
    scans = [_problem_scan(p) for p in the_plan.problems]
    scans += scan_jobs(jobs, table, settings, disabled=frozenset(config.disable + disable))
    if write_baseline is not None:
        write_atomic(write_baseline, baseline_json(scans).encode())
        _stderr().print(f"hipconv scan: {sum(len(s.findings) for s in scans)} findings recorded in {write_baseline}",
                        markup=False, highlight=False, soft_wrap=True)
        return
    baselined = 0
    if baseline_path is not None:
        scans, baselined = new_findings(scans, load_baseline(baseline_path))
    report = ScanReport(tuple(scans), settings, baselined)
    if fmt == "text" and output is None:
        print_text(_stderr(), report)
    else:
        text = render_scan(report, fmt) if fmt != "text" else _plain_text(report)
        if output is not None:
            write_atomic(output, text.encode())
        else:
            click.echo(text, nl=False)
    if report.failures:
        raise SystemExit(EXIT_ERROR)
    if at_or_above(report.findings(), fail_on or config.fail_on or "warning"):
        raise SystemExit(EXIT_UNPORTED)


def _problem_scan(result: FileResult) -> FileScan:
    return FileScan(result.path, failure=result.reason)


def _plain_text(report: ScanReport) -> str:
    console = Console(file=io.StringIO(), width=120, no_color=True)
    print_text(console, report)
    return console.file.getvalue()  # type: ignore[attr-defined]


@cli.group()
def rules() -> None:
    """Inspect and check the rule set."""


@rules.command("validate")
@click.option("--rules-dir", multiple=True, type=click.Path(path_type=Path), help="Extra directory of YAML rules.")
def rules_validate(rules_dir: tuple[Path, ...]) -> None:
    """Load every rule file and report all problems at once."""
    ruleset = load_ruleset(rules_dir)
    click.echo(f"{len(ruleset.rules)} rules OK")


@rules.command("list")
@click.option("--library", default=None, help="Only rules of this library (cudart, cuda_driver, device, ...).")
@click.option("--status", default=None, help="Only rules with this status.")
def rules_list(library: str | None, status: str | None) -> None:
    """One line per rule: id, CUDA spelling, HIP spelling, status, ROCm range."""
    for rule in load_ruleset().rules:
        if (library and rule.library != library) or (status and rule.status.value != status):
            continue
        since = rule.rocm.get("since", "")
        until = rule.rocm.get("until")
        rng = f"{since}..{until}" if until else f"{since}+" if since else ""
        click.echo(f"{rule.id}\t{rule.cuda}\t{rule.hip or '-'}\t{rule.status.value}\t{rng}")


@rules.command("show")
@click.argument("name")
def rules_show(name: str) -> None:
    """Everything hipconv knows about a CUDA (or HIP) spelling or a rule id."""
    ruleset = load_ruleset()
    found = ruleset.find(name)
    if not found:
        library = ruleset.cuda_api.get(name)
        if library:
            click.echo(f"{name}: CUDA API ({library}) with no rule: left unchanged with warning HC001")
            return
        raise HipconvError(f"no rule for {name!r}")
    for rule in found:
        click.echo(f"{rule.id}  ({rule.origin})")
        for label, value in (("cuda", rule.cuda), ("hip", rule.hip), ("kind", rule.kind), ("status", rule.status.value),
                             ("library", rule.library), ("rocm", {k: str(v) for k, v in rule.rocm.items()} or None),
                             ("params", rule.params), ("args", rule.args), ("drops", rule.drops or None),
                             ("lane_mask", rule.lane_mask), ("requires_define", rule.requires_define),
                             ("note", rule.note or None)):
            if value is not None:
                click.echo(f"  {label}: {value}")


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
    click.echo(json.dumps(json_schema(), indent=2))


@rules.command("docs")
@click.option("--write", "target", type=click.Path(dir_okay=False, path_type=Path),
              help="Update the generated sections of this Markdown file (e.g. README.md) in place.")
@click.option("--check", "check", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="Exit 1 when the generated sections of this file are stale.")
def rules_docs(target: Path | None, check: Path | None) -> None:
    """Print (or update in a file) the generated Markdown: diagnostic codes and rule coverage."""
    sections = generated_sections(load_ruleset())
    if target is None and check is None:
        for name, text in sections.items():
            click.echo(f"<!-- {name} -->\n{text}")
        return
    path = target or check
    assert path is not None
    current = path.read_text(encoding="utf-8")
    updated = splice_sections(current, sections, str(path))
    if check is not None:
        if updated != current:
            _stderr().print(f"{path} is stale: run `hipconv rules docs --write {path}`", markup=False, soft_wrap=True)
            raise SystemExit(EXIT_UNPORTED)
        return
    write_atomic(path, updated.encode("utf-8"))


@cli.group()
def debug() -> None:
    """Tools for looking at what hipconv sees."""


@debug.command("tokens")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def debug_tokens(file: Path) -> None:
    """Dump the lossless token stream of FILE (kind, offsets, text)."""
    from hipconv.lexer import lex
    from hipconv.source import DecodeFailure, SourceFile

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
        console = _stderr()
        console.print(f"error: {exc}", highlight=False, markup=False, soft_wrap=True)
        if exc.hint:
            console.print(f"hint: {exc.hint}", highlight=False, markup=False, soft_wrap=True)
        return EXIT_ERROR
    except click.exceptions.Abort:
        _stderr().print("aborted", markup=False)
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
