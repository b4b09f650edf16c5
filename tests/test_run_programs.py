"""`hipconv build --run` (issues #39 and #40): a program's output is kept whole up to --run-output-limit, also
what it printed before --run-timeout killed it; every process it started ends with it, a setsid() child
too; its arguments come from --run-args or its Makefile's `run` target.

The runner's tests run small Python programs (Python buffers a pipe as C's stdio does, and needs no
compiler); one C program checks the same of stdio itself; the end-to-end test builds CUDA programs for
HIP-CPU, and skips where HIP-CPU or its compiler is missing.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_hip_cpu import HIP_CPU, missing_tools

from helpers import run_cli
from hipconv.builder.run_args import RunArgs, makefile_run_args, match_run_args, parse_run_args
from hipconv.builder.runs import Captured, run_captured
from hipconv.errors import ConfigError


def run_python(tmp_path: Path, body: str, *args: str, timeout: float = 20, limit: int = 1 << 20) -> Captured:
    """Run `body` as a Python program with `args`, its output in tmp_path/out.txt and err.txt."""
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent(body))
    with open(tmp_path / "out.txt", "wb") as out, open(tmp_path / "err.txt", "wb") as err:
        return run_captured(
            [sys.executable, str(script), *args],
            cwd=tmp_path,
            env=os.environ,
            out=out,
            err=err,
            timeout=timeout,
            limit=limit,
        )


def alive(pid: int) -> bool:
    """Is `pid` a live process (not gone, not a zombie)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3] not in (b"Z", b"X")


needs_proc = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="no /proc: only the group is ended")

DAEMON = """
    import os, sys, time
    print("parent", flush=True)
    if os.fork() == 0:
        os.setsid()  # leaves the program's process group and session
        if os.fork() == 0:  # and its grandchild, a daemon's double fork
            open("grandchild.pid", "w").write(str(os.getpid()))
            time.sleep(600)
        open("child.pid", "w").write(str(os.getpid()))
        time.sleep(600)
    while not (os.path.exists("child.pid") and os.path.exists("grandchild.pid")):
        time.sleep(0.01)
    if sys.argv[1:] == ["hang"]:
        time.sleep(600)
"""


@needs_proc
@pytest.mark.parametrize("how", ["finish", "timeout"])
def test_a_setsid_child_ends_with_the_program(tmp_path: Path, how: str) -> None:
    """Before: the setsid() child (and its child) outlived `--run`. After: when the program ends or is past
    its time, every process it started is killed, and the count says so."""
    done = run_python(tmp_path, DAEMON, *(["hang"] if how == "timeout" else []), timeout=3)
    pids = [int((tmp_path / name).read_text()) for name in ("child.pid", "grandchild.pid")]
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in pids)
    assert done.ended == 2
    assert (done.returncode, done.note) == (
        (0, "") if how == "finish" else (-1, "did not finish in 3 s (--run-timeout)")
    )


def test_a_program_with_no_children_leaves_nothing_noop(tmp_path: Path) -> None:
    done = run_python(tmp_path, "import sys; print(sys.argv[1:]); sys.exit(3)", "a b", "-n")
    assert done == Captured(3)
    assert (tmp_path / "out.txt").read_text() == "['a b', '-n']\n"


def test_what_a_killed_program_printed_is_kept(tmp_path: Path) -> None:
    """Before: a program killed at --run-timeout lost what its stdio buffer held (a pipe is block-buffered).
    After: stdout is a terminal, flushed at each newline, so every line printed before the kill is saved;
    stderr too."""
    body = """
        import sys, time
        for i in range(3):
            print("result", i)  # no flush: Python, like C's stdio, buffers a pipe in blocks
        print("partial", file=sys.stderr)
        time.sleep(600)
    """
    done = run_python(tmp_path, body, timeout=2)
    assert done.returncode == -1 and "--run-timeout" in done.note
    assert (tmp_path / "out.txt").read_text() == "result 0\nresult 1\nresult 2\n"
    assert (tmp_path / "err.txt").read_text() == "partial\n"


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_a_c_program_s_stdio_is_kept_at_a_kill(tmp_path: Path) -> None:
    """The same with C's stdio (printf, no fflush), as the programs --run runs."""
    (tmp_path / "hang.c").write_text(
        '#include <stdio.h>\n#include <unistd.h>\nint main(void) { printf("sum = %d\\n", 42); for (;;) pause(); }\n'
    )
    subprocess.run(["cc", "-o", str(tmp_path / "hang"), str(tmp_path / "hang.c")], check=True)
    with open(tmp_path / "out.txt", "wb") as out, open(tmp_path / "err.txt", "wb") as err:
        done = run_captured([str(tmp_path / "hang")], cwd=tmp_path, env=os.environ, out=out, err=err, timeout=1)
    assert done.returncode == -1
    assert (tmp_path / "out.txt").read_bytes() == b"sum = 42\n"


def test_output_bytes_are_kept_as_written_noop(tmp_path: Path) -> None:
    """The terminal translates nothing: CR, LF, NUL and non-UTF-8 bytes come out as the program wrote them."""
    body = r"""
        import sys
        sys.stdout.buffer.write(b"a\nb\r\nc\x00\xff\x1b[0m\n")
    """
    assert run_python(tmp_path, body) == Captured(0)
    assert (tmp_path / "out.txt").read_bytes() == b"a\nb\r\nc\x00\xff\x1b[0m\n"


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_output_is_bounded(tmp_path: Path, stream: str) -> None:
    """Before: --run kept all a program printed (2 GB in 5 s). After: each stream keeps --run-output-limit
    bytes, and a program printing more is stopped at once (not at --run-timeout), the note says so."""
    body = f"""
        import sys
        line = "0123456789abcdef" * 4 + "\\n"
        while True:
            sys.{stream}.write(line)
    """
    started = time.monotonic()
    done = run_python(tmp_path, body, timeout=120, limit=1 << 20)
    assert time.monotonic() - started < 60
    assert done.returncode == -1 and done.cut == (stream,)
    assert done.note == "printed more than 1 MiB on one stream: stopped, output cut (--run-output-limit)"
    kept = (tmp_path / ("out.txt" if stream == "stdout" else "err.txt")).read_bytes()
    assert len(kept) == 1 << 20 and kept.startswith(b"0123456789abcdef")


def test_output_at_the_limit_is_not_cut_noop(tmp_path: Path) -> None:
    body = 'import sys; sys.stdout.write("x" * (1 << 20))'
    assert run_python(tmp_path, body, limit=1 << 20) == Captured(0)
    assert (tmp_path / "out.txt").stat().st_size == 1 << 20


def test_a_program_that_cannot_start_is_an_os_error(tmp_path: Path) -> None:
    with open(tmp_path / "o", "wb") as out, pytest.raises(OSError):
        run_captured([str(tmp_path / "missing")], cwd=tmp_path, env=os.environ, out=out, err=out, timeout=5)


# ---------------------------------------------------------------- the arguments: --run-args and the Makefile


@pytest.mark.parametrize(
    ("values", "parsed"),
    [
        pytest.param(["saxpy=-n 1024 data/in.txt"], {"saxpy": ("-n", "1024", "data/in.txt")}, id="words"),
        pytest.param(["apps/fft/fft='a b' \"c d\""], {"apps/fft/fft": ("a b", "c d")}, id="quotes"),
        pytest.param(["saxpy="], {"saxpy": ()}, id="no-arguments"),
        pytest.param(["a=x=1", "b=--flag=2"], {"a": ("x=1",), "b": ("--flag=2",)}, id="equals-in-args"),
        pytest.param(["a=$HOME *.txt"], {"a": ("$HOME", "*.txt")}, id="no-expansion"),
    ],
)
def test_run_args_are_split_as_a_shell_splits_words(values: list[str], parsed: dict[str, tuple[str, ...]]) -> None:
    assert parse_run_args(values) == parsed


@pytest.mark.parametrize(
    ("values", "message"),
    [
        pytest.param(["saxpy"], "--run-args 'saxpy': not PROGRAM=ARGS", id="no-equals"),
        pytest.param(["=1 2"], "--run-args '=1 2': not PROGRAM=ARGS", id="no-name"),
        pytest.param(["a='x"], '--run-args "a=\'x": No closing quotation', id="open-quote"),
        pytest.param(["a=1", "a=2"], "--run-args: a is given twice", id="twice"),
    ],
)
def test_bad_run_args(values: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        parse_run_args(values)


def test_run_args_name_a_program_by_its_name_or_unique_last_part() -> None:
    programs = ["apps/saxpy/saxpy", "tools/fft", "a/main", "b/main"]
    assert match_run_args({"saxpy": ("1",), "tools/fft": ()}, programs) == {"apps/saxpy/saxpy": ("1",), "tools/fft": ()}
    assert match_run_args({"a/main": ("x",)}, programs) == {"a/main": ("x",)}
    with pytest.raises(ConfigError, match=r"--run-args main=\.\.\.: matches 2 programs"):
        match_run_args({"main": ()}, programs)
    with pytest.raises(ConfigError, match=r"matches no program \(the programs: apps/saxpy/saxpy, tools/fft"):
        match_run_args({"sapxy": ()}, programs)


MAKEFILE = """\
N = 1024
DATA := data/in.txt
EXE = saxpy
ARGS = -n $(N) ${DATA}

all: $(EXE)

$(EXE): saxpy.cu
\tnvcc -o $@ $<

# the run target: hipconv reads it
run test: all
\t@echo running $(EXE)
\t./$(EXE) $(ARGS) \\
\t  --check
\t-./other 7 "two words"
\tbin/third 3
\t./piped 1 | tee log.txt
\t./shelled $(shell cat n.txt)
\t./unknown $(NOWHERE)
\t./listed 1 && ./listed 2

clean:
\trm -f $(EXE)
\t./cleaned 1
"""


@pytest.mark.parametrize(
    ("program", "found"),
    [
        pytest.param("saxpy", RunArgs(("-n", "1024", "data/in.txt", "--check"), "Makefile:14"), id="variables"),
        pytest.param("apps/other", RunArgs(("7", "two words"), "Makefile:16"), id="above-prefix-and-quotes"),
        pytest.param("third", RunArgs(("3",), "Makefile:17"), id="path"),
        pytest.param("cleaned", RunArgs(), id="other-target"),
        pytest.param("absent", RunArgs(), id="not-run"),
    ],
)
def test_makefile_run_target(tmp_path: Path, program: str, found: RunArgs) -> None:
    (tmp_path / "Makefile").write_text(MAKEFILE)
    (tmp_path / "apps").mkdir()
    assert makefile_run_args(tmp_path, program) == found


@pytest.mark.parametrize(
    ("program", "why"),
    [
        pytest.param("piped", "not a plain command: a pipe, redirection, list or shell construct", id="pipe"),
        pytest.param("shelled", "a make function, or a variable the Makefile does not assign plainly", id="shell"),
        pytest.param("unknown", "a make function, or a variable the Makefile does not assign plainly", id="unknown"),
        pytest.param("listed", "not a plain command: a pipe, redirection, list or shell construct", id="list"),
    ],
)
def test_makefile_commands_not_read_are_reported(tmp_path: Path, program: str, why: str) -> None:
    (tmp_path / "Makefile").write_text(MAKEFILE)
    got = makefile_run_args(tmp_path, program)
    assert got.args == () and got.source == ""
    assert got.problem.startswith("Makefile:") and f"not read ({why}); give --run-args {program}=ARGS" in got.problem


def test_the_nearest_makefile_that_runs_the_program_counts(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "Makefile").write_text("run:\n\t./prog outer\n\t./near top\n")
    (tmp_path / "sub" / "makefile").write_text("run:\n\t./near inner\n")
    assert makefile_run_args(tmp_path, "sub/near") == RunArgs(("inner",), "sub/makefile:2")
    assert makefile_run_args(tmp_path, "sub/prog") == RunArgs(("outer",), "Makefile:2")


def test_makefile_expansion_is_bounded(tmp_path: Path) -> None:
    """Variables that double at each level are not expanded without end: the command is not read."""
    lines = ["A0 = x x"] + [f"A{i} = $(A{i - 1}) $(A{i - 1})" for i in range(1, 40)]
    (tmp_path / "Makefile").write_text("\n".join(lines) + "\nrun:\n\t./prog $(A39)\n")
    got = makefile_run_args(tmp_path, "prog")
    assert got.args == () and "not read" in got.problem


def test_no_makefile_noop(tmp_path: Path) -> None:
    assert makefile_run_args(tmp_path, "prog") == RunArgs()


# ---------------------------------------------------------------- end to end: hipconv build --backend hip-cpu --run

SUM = r"""// Sums its integer arguments on the device and checks the sum against its own host loop.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void total(const int* values, int n, int* out) {
  if (threadIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += values[i];
    *out = s;
  }
}

int main(int argc, char** argv) {
  int n = argc - 1, host[16] = {0}, expected = 0;
  for (int i = 0; i < n && i < 16; ++i) expected += host[i] = atoi(argv[i + 1]);
  int *values, *out, got = -1;
  cudaMalloc(&values, sizeof host);
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(values, host, sizeof host, cudaMemcpyHostToDevice);
  total<<<1, 64>>>(values, n, out);
  cudaMemcpy(&got, out, sizeof(int), cudaMemcpyDeviceToHost);
  printf("%d arguments, sum %d\n", n, got);
  printf("%s\n", n > 0 && got == expected ? "PASS" : "FAIL");
  return n > 0 && got == expected ? 0 : 1;
}
"""

SPAWN = r"""// Starts a helper that leaves its session, prints a line without flushing it, and never ends.
#include <cstdio>
#include <unistd.h>
#include <cuda_runtime.h>

int main() {
  if (fork() == 0) {
    setsid();
    FILE* f = fopen("helper.pid", "w");
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    for (;;) pause();
  }
  int count = 0;
  cudaGetDeviceCount(&count);
  printf("devices: %d\n", count);
  for (;;) pause();
}
"""


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str, int]:
    """(the CUDA tree, the output, build's stderr, its exit code) of one `build --backend hip-cpu --run`."""
    reason = missing_tools()
    if reason is not None:
        print(f"test_run_programs: skipped: {reason}")
        pytest.skip(reason)
    src = tmp_path_factory.mktemp("runs") / "src"
    for folder, name, body, makefile in (
        ("make", "sum", SUM, "ARGS = 1 2 39\nrun:\n\t./sum $(ARGS)\n"),
        ("given", "added", SUM, ""),
        ("unread", "piped", SUM, "run:\n\t./piped $(shell cat args.txt)\n"),
        ("spawn", "spawn", SPAWN, ""),
    ):
        (src / folder).mkdir(parents=True)
        (src / folder / f"{name}.cu").write_text(body)
        if makefile:
            (src / folder / "Makefile").write_text(makefile)
    out = src.parent / "hip"
    argv = ["build", src, "-o", out, "--backend", "hip-cpu", "--hip-cpu", HIP_CPU.parent, "--run", "-j", "2"]
    result = run_cli(*argv, "--run-timeout", "20", "--run-args", "added=5 -2 'x'")
    return src, out, result.stderr, result.code


def test_build_runs_each_program_with_its_arguments(cpu_run: tuple[Path, Path, str, int]) -> None:
    _, out, stderr, code = cpu_run
    bin_dir = out / ".hipconv-cpu" / "bin"
    assert "ran: make/sum 1 2 39 (arguments from make/Makefile:3): exit 0" in stderr, stderr
    assert (bin_dir / "make" / "sum.out").read_text() == "3 arguments, sum 42\nPASS\n"
    assert "ran: given/added 5 -2 x (arguments from --run-args): exit 0" in stderr, stderr
    assert (bin_dir / "given" / "added.out").read_text() == "3 arguments, sum 3\nPASS\n"  # atoi("x") is 0
    said = "warning[HC424]: unread/piped: unread/Makefile:2: `./piped $(shell cat args.txt)` not read"
    assert said in stderr and "error[HC421]: unread/piped: exited with 1" in stderr, stderr
    assert (bin_dir / "unread" / "piped.out").read_text() == "0 arguments, sum 0\nFAIL\n"
    assert code == 1
    # the programs check themselves: their verdict lines are the evidence where no CUDA output was recorded
    assert run_cli("compare", "--verdicts", bin_dir / "make" / "sum.out").code == 0
    assert run_cli("compare", "--verdicts", bin_dir / "unread" / "piped.out").code == 1


def test_build_ends_a_stuck_program_with_its_helper_and_keeps_its_output(cpu_run: tuple[Path, Path, str, int]) -> None:
    src, out, stderr, _ = cpu_run
    assert "error[HC421]: spawn/spawn: did not finish in 20 s (--run-timeout)" in stderr, stderr
    assert "note[HC425]: spawn/spawn: left 1 process running (a child in a session of its own); killed" in stderr
    assert (out / ".hipconv-cpu" / "bin" / "spawn" / "spawn.out").read_text() == "devices: 1\n"
    helper = int((out / ".hipconv-cpu" / "src" / "spawn" / "helper.pid").read_text())
    assert not alive(helper)


# ---------------------------------------------------------------- docs/build-backends.md

BACKENDS_DOC = Path(__file__).resolve().parents[1] / "docs" / "build-backends.md"


def test_docs_run_args_example_and_defaults() -> None:
    """The page's `--run-args` command parses as the page says, and names the defaults the code has."""
    from hipconv.builder.runs import OUTPUT_LIMIT_MB, RUN_MARK

    text = BACKENDS_DOC.read_text(encoding="utf-8")
    (line,) = [li for li in text.splitlines() if li.startswith("hipconv build") and "--run-args" in li]
    words = shlex.split(line)
    given = parse_run_args([words[words.index("--run-args") + 1]])
    assert given == {"saxpy": ("-n", "1024", "data/in.txt")}
    assert match_run_args(given, ["apps/saxpy/saxpy", "tools/fft"]) == {"apps/saxpy/saxpy": given["saxpy"]}
    assert f"`--run-output-limit` MiB ({OUTPUT_LIMIT_MB} by default)" in " ".join(text.split())
    assert f"`{RUN_MARK}`" in text
    assert "printed more than 16 MiB on one stream: stopped, output cut (--run-output-limit)" in " ".join(text.split())


@pytest.mark.parametrize("code", ["HC424", "HC425"])
def test_the_code_example_prints_its_diagnostic(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The examples of `hipconv codes HC424|HC425`, with this machine's HIP-CPU for their `HIP-CPU`."""
    from hipconv.diagnostics import CODES

    reason = missing_tools()
    if reason is not None:
        print(f"test_run_programs: skipped: {reason}")
        pytest.skip(reason)
    example = CODES[code].example
    assert example is not None
    monkeypatch.chdir(tmp_path)
    (tmp_path / example.file).parent.mkdir(parents=True)
    (tmp_path / example.file).write_text(example.source + "\n")
    if code == "HC424":  # the program the Makefile runs
        (tmp_path / "src" / "example.cu").write_text('#include <cstdio>\nint main() { puts("PASS"); }\n')
    argv = [str(HIP_CPU.parent) if word == "HIP-CPU" else word for word in example.command_line]
    result = run_cli(*argv)
    assert result.code == 0, result.stderr
    assert example.diagnostic in result.stderr.splitlines(), result.stderr
