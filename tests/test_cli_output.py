"""What hipconv says and how (issue #12): -q/-v, --color and NO_COLOR, --version, and `hipconv codes CODE`
with the examples stored on the codes (each one run here, to check that hipconv prints what it shows)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import Run, run_cli
from hipconv.diagnostics import CODES, Code

DATA = Path(__file__).resolve().parents[1] / "hipconv" / "data"
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # an SGR sequence: colour or another style
NOTED = {
    "HC006",
    "HC009",
    "HC407",
    "HC420",
    "HC421",
    "HC422",
    "HC423",
    "HC424",
    "HC425",
}  # examples no bundled rule reproduces (checked below by other means, or not at all)


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No colour settings from the environment the tests run in."""
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)


def lines(run: Run) -> list[str]:
    return run.stdout.decode().splitlines() + run.stderr.splitlines()


# ---------------------------------------------------------------- hipconv codes


def test_every_code_has_an_example_naming_it() -> None:
    for code in CODES.values():
        assert code.example is not None, code.code
        assert code.example.source.strip(), code.code
        tag = re.compile(rf"(^|: ){code.severity.value}\[{code.code}[ \]]")  # `path:1:2: error[HC002 rule]: ...`
        assert tag.search(code.example.diagnostic), code.code
    assert {c.code for c in CODES.values() if c.example and c.example.note} == NOTED


def _example_cases() -> list[object]:
    cases: list[object] = []
    for code in CODES.values():
        if code.example is None or code.code in NOTED:
            continue
        build = code.example.command_line[0] == "build"
        cases.append(pytest.param(code, id=code.code, marks=[pytest.mark.hipcc] if build else []))
    return cases


@pytest.mark.parametrize("code", _example_cases())
def test_the_example_prints_its_diagnostic(code: Code, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`hipconv ARGV` on the example's file prints the example's line, as `hipconv codes` shows it."""
    example = code.example
    assert example is not None
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HIP_PLATFORM", "amd")  # the build example: hipcc for AMD GPUs
    (tmp_path / example.file).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / example.file).write_text(example.source + "\n")
    result = run_cli(*example.command_line)
    assert result.code in (0, 1), result.stderr
    assert example.diagnostic in lines(result), "\n".join(lines(result))


def test_the_removed_api_example_with_its_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HC006 from a rule of one's own, as the example's note describes it."""
    example = CODES["HC006"].example
    assert example is not None
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "old.yaml").write_text(
        "defaults: {library: mine, kind: function}\nrules:\n  - cuda: cudaOldCall\n    hip: hipOldCall\n"
        "    status: removed\n"
    )
    (tmp_path / example.file).write_text(example.source + "\n")
    assert example.diagnostic in lines(run_cli(*example.command_line))


def test_codes_explains_one_code() -> None:
    result = run_cli("codes", "HC003")
    assert result.code == 0
    out = result.stdout.decode().splitlines()
    code = CODES["HC003"]
    assert code.example is not None
    assert out[0] == f"HC003 (error): {code.title}"
    assert "unported: yes" in out[1] and "--strict" in out[1]
    assert out[2] == "exit code 1 with: --fail-on error, --fail-on warning, --strict"
    assert out[3] == "example: hipconv translate --rocm-version 5.2 example.cu"
    assert f"    {code.example.source}" in out
    assert f"    {code.example.diagnostic}" in out
    assert run_cli("codes", "hc003").stdout == result.stdout  # any case


def test_codes_shows_the_hint_and_what_does_not_fail() -> None:
    out = run_cli("codes", "HC301").stdout.decode()
    assert f"hint: {CODES['HC301'].hint}" in out
    assert "unported: no" in out and "exit code 1 with: --fail-on warning\n" in out
    note = run_cli("codes", "HC103").stdout.decode()
    assert "exit code 1 with: no option" in note


def test_codes_lists_every_code() -> None:
    result = run_cli("codes")
    assert result.code == 0
    assert [line.split("\t")[0] for line in result.stdout.decode().splitlines()] == list(CODES)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        pytest.param("HC999", "error: unknown code 'HC999'; did you mean 'HC409', 'HC109' or 'HC019'?", id="close"),
        pytest.param("hc31", "error: unknown code 'hc31'; did you mean 'HC317', 'HC316' or 'HC315'?", id="prefix"),
        pytest.param("nothing", "error: unknown code 'nothing'", id="far"),
    ],
)
def test_unknown_code_is_a_usage_error_with_suggestions(name: str, message: str) -> None:
    result = run_cli("codes", name)
    assert result.code == 2
    assert result.stderr.splitlines()[0] == message
    assert result.stdout == b""


def test_far_unknown_code_points_at_the_list() -> None:
    assert "hint: `hipconv codes` lists them" in run_cli("codes", "nothing").stderr


# ---------------------------------------------------------------- --version


def test_version_names_hipconv_the_inventories_libclang_and_python() -> None:
    result = run_cli("--version")
    assert result.code == 0
    out = result.stdout.decode().splitlines()
    from hipconv import __version__

    cuda = sorted((line.split("\t")[0] for line in (DATA / "cuda.releases").read_text().splitlines()), key=_release)
    rocm = sorted((line.split("\t")[0] for line in (DATA / "hip.releases").read_text().splitlines()), key=_release)
    assert out[0] == f"hipconv {__version__}"
    assert out[1] == f"inventories: CUDA {', '.join(cuda)}; ROCm {', '.join(rocm)} (default --rocm-version {rocm[-1]})"
    assert re.fullmatch(r"libclang: clang version \d+\.\d+\.\d+.* \(.*libclang.*\)", out[2]), out[2]
    assert out[3].startswith(f"Python {sys.version_info.major}.{sys.version_info.minor}.")


def test_dash_capital_v_is_version() -> None:
    """`hipconv -V`, as many tools spell it, prints what --version prints."""
    short = run_cli("-V")
    assert short.code == 0 and short.stdout == run_cli("--version").stdout
    assert short.stdout.startswith(b"hipconv ")


def _release(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split("."))


def test_version_without_libclang(tmp_path: Path) -> None:
    """A libclang that cannot be loaded is reported on the line, and --version still exits 0."""
    env = {**os.environ, "LIBCLANG_LIBRARY_PATH": str(tmp_path / "nowhere")}
    result = subprocess.run(
        [sys.executable, "-m", "hipconv", "--version"],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[1],
        check=False,
    )
    assert result.returncode == 0, result.stderr
    libclang = result.stdout.splitlines()[2]
    assert libclang.startswith("libclang: not found (cannot load libclang"), libclang


# ---------------------------------------------------------------- -q / -v

ERROR_LINE = "cudaCtxResetPersistingL2Cache();\n"  # HC002, an error
WARNING_LINE = "cudaProfilerStart();\n"  # HC004, a warning
NOTE_LINE = "v = __shfl_down_sync(mask, v, 1);\n"  # HC103, a note


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A tree whose files give an error, a warning and a note, plus enough unchanged files for progress lines."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text(ERROR_LINE + WARNING_LINE + NOTE_LINE)
    (src / "b.cu").write_text("void f() { cudaMalloc(&p, 4); }\n")
    for n in range(20):
        (src / f"plain{n:02}.cpp").write_text("int x;\n")
    return src


def _kinds(stderr: str) -> set[str]:
    found = set()
    for line in stderr.splitlines():
        m = re.match(r"\S+:\d+:\d+: (error|warning|note)\[", line)
        if m:
            found.add(m[1])
        elif line.startswith("hipconv: ") and line.endswith(" files"):
            found.add("progress")
    return found


@pytest.mark.parametrize(
    ("options", "shown"),
    [
        pytest.param([], {"error", "warning", "note", "progress"}, id="default"),
        pytest.param(["-q"], {"error", "warning"}, id="q"),
        pytest.param(["-qq"], {"error"}, id="qq"),
        pytest.param(["-q", "-q"], {"error"}, id="q-q"),
        pytest.param(["-v"], {"error", "warning", "note", "progress"}, id="v"),
        pytest.param(["-qv"], {"error", "warning", "note", "progress"}, id="qv-cancel"),
    ],
)
def test_translate_verbosity(tree: Path, tmp_path: Path, options: list[str], shown: set[str]) -> None:
    out = tmp_path / "out"
    result = run_cli("translate", tree, "-o", out, *options)
    assert result.code == 0
    assert _kinds(result.stderr) == shown, result.stderr
    written = "#include <hip/hip_runtime.h>\nvoid f() { hipMalloc(&p, 4); }\n"
    assert (out / "b.cu").read_text() == written  # what is written does not depend on what is shown
    per_file = [line for line in result.stderr.splitlines() if line.startswith(f"{tree}/b.cu: ")]
    assert per_file == ([f"{tree}/b.cu: converted (1 replacement)"] if "-v" in options else [])
    assert any(line.startswith("hipconv translate: 22 files in ") for line in result.stderr.splitlines()) == (
        "-v" in options
    )


def test_group_options_apply_to_the_command(tree: Path, tmp_path: Path) -> None:
    """`hipconv -q translate` is `hipconv translate -q`; counts add up (-q before, -v after: normal)."""
    before = run_cli("-q", "translate", tree, "-o", tmp_path / "o1")
    after = run_cli("translate", tree, "-o", tmp_path / "o2", "-q")
    assert before.stderr == after.stderr.replace("/o2", "/o1")
    assert _kinds(before.stderr) == {"error", "warning"}
    both = run_cli("-q", "translate", tree, "-o", tmp_path / "o3", "-v")
    assert _kinds(both.stderr) == {"error", "warning", "note", "progress"}


def test_quiet_keeps_what_was_asked_for_and_the_exit_code(tree: Path, tmp_path: Path) -> None:
    """--stats is shown even with -qq, and --strict still exits 1 on the unported API it no longer names."""
    result = run_cli("translate", tree, "-o", tmp_path / "out", "-qq", "--stats", "--strict")
    assert result.code == 1
    assert "hipconv translate" in result.stderr and "files converted" in result.stderr
    assert _kinds(result.stderr) == {"error"}


def test_quiet_single_file_keeps_the_translated_text_on_stdout(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(NOTE_LINE)
    loud, quiet = run_cli("translate", f), run_cli("translate", f, "-qq")
    assert quiet.stdout == loud.stdout and b"__shfl_down_sync" in quiet.stdout
    assert "note[HC103" in loud.stderr and quiet.stderr == ""


@pytest.mark.parametrize(
    ("options", "shown", "summary"),
    [
        pytest.param([], {"error", "warning", "note", "progress"}, True, id="default"),
        pytest.param(["-q"], {"error", "warning"}, False, id="q"),
        pytest.param(["-qq"], {"error"}, False, id="qq"),
        pytest.param(["-v"], {"error", "warning", "note", "progress"}, True, id="v"),
    ],
)
def test_scan_verbosity(tree: Path, options: list[str], shown: set[str], summary: bool) -> None:
    result = run_cli("scan", tree, *options)
    assert result.code == 1  # --fail-on warning: the exit code does not depend on what is shown
    assert _kinds(result.stdout.decode() + result.stderr) == shown
    assert ("hipconv scan: 22 files, " in result.stderr) == summary
    verbose = [line for line in result.stderr.splitlines() if line == f"{tree}/a.cu: 3 findings"]
    assert bool(verbose) == ("-v" in options)
    assert any(line.startswith("hipconv scan: 22 files in ") for line in result.stderr.splitlines()) == (
        "-v" in options
    )


def test_scan_report_file_is_whole_with_quiet(tree: Path, tmp_path: Path) -> None:
    report = tmp_path / "scan.txt"
    assert run_cli("scan", tree, "-qq", "--output", report).code == 1
    assert "note[HC103" in report.read_text() and "hipconv scan: 22 files" in report.read_text()


# ---------------------------------------------------------------- --color and NO_COLOR


@pytest.fixture
def source(tmp_path: Path) -> Path:
    f = tmp_path / "k.cu"
    f.write_text(ERROR_LINE)
    return f


def test_auto_colour_is_off_in_a_pipe(source: Path) -> None:
    result = run_cli("translate", source, "-o", os.devnull)
    assert "error[HC002" in result.stderr and not ANSI.search(result.stderr)


def test_color_always_colours_a_pipe(source: Path) -> None:
    result = run_cli("translate", source, "-o", os.devnull, "--color", "always")
    assert "\x1b[1;31merror\x1b[0m[HC002" in result.stderr
    assert ANSI.sub("", result.stderr) == run_cli("translate", source, "-o", os.devnull).stderr


def test_color_always_colours_scan_findings_on_stdout(source: Path) -> None:
    result = run_cli("--color", "always", "scan", source)
    assert "\x1b[1;31merror\x1b[0m[HC002" in result.stdout.decode()


def test_force_color_counts_as_a_terminal(source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert ANSI.search(run_cli("translate", source, "-o", os.devnull).stderr)


@pytest.mark.parametrize(
    ("environment", "options", "coloured"),
    [
        pytest.param({"NO_COLOR": "1", "FORCE_COLOR": "1"}, [], False, id="no-color-wins-over-force-color"),
        pytest.param({"NO_COLOR": "", "FORCE_COLOR": "1"}, [], True, id="empty-no-color-is-unset"),
        pytest.param({"NO_COLOR": "1"}, ["--color", "always"], True, id="always-wins-over-no-color"),
        pytest.param({"FORCE_COLOR": "1"}, ["--color", "never"], False, id="never-wins-over-force-color"),
    ],
)
def test_no_color_and_the_option(
    source: Path, monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], options: list[str], coloured: bool
) -> None:
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    result = run_cli("translate", source, "-o", os.devnull, *options)
    assert "error[HC002" in ANSI.sub("", result.stderr)
    assert bool(ANSI.search(result.stderr)) == coloured


def test_bad_color_value_is_a_usage_error(source: Path) -> None:
    result = run_cli("translate", source, "--color", "sometimes")
    assert result.code == 2 and "'sometimes' is not one of 'auto', 'always', 'never'" in result.stderr
