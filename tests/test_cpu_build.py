"""`hipconv build --backend hip-cpu` (issue #23): the self-checking CUDA programs of tests/run_programs/ (one
folder per program, with the output it must print in expected.txt) are translated, linked against AMD's
HIP-CPU runtime (64-lane wavefronts on the CPU) and run, all in one `hipconv build ... --run`.

A program written for any warp width prints PASS, and `hipconv compare` finds its output equal to its
expected.txt; a program with a wave64
hazard (a `// HAZARD: HCnnn` line) fails at run time and `hipconv scan` reports that line; a program that
needs what HIP-CPU lacks (a ROCm library) is listed as not runnable on the CPU. The unit tests below need
neither HIP-CPU nor a compiler.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path

import pytest
from test_hip_cpu import HIP_CPU, declared_hazards, missing_tools, scan_findings

from helpers import run_cli
from hipconv.builder.cpu_commands import project_flags
from hipconv.builder.hipcc import ClangDiagnostic, parse_diagnostics
from hipconv.builder.missing import MissingHeaders
from hipconv.builder.plan import classify
from hipconv.builder.programs import defines_main, group_programs
from hipconv.builder.stage import dynamic_shared
from hipconv.builder.toolchains import no_gpu_reason
from hipconv.diagnostics import CODES
from hipconv.rules import load_ruleset

PROGRAMS_DIR = Path(__file__).parent / "run_programs"
PROGRAMS = sorted(p for p in PROGRAMS_DIR.iterdir() if p.is_dir())
HAZARDOUS = {p.name for p in PROGRAMS if any(declared_hazards(cu) for cu in p.glob("*.cu"))}
NOT_RUNNABLE = {"needs_cublas": "hipBLAS"}
PASSING = [p for p in PROGRAMS if p.name not in HAZARDOUS and p.name not in NOT_RUNNABLE]


class Built:
    def __init__(self, out: Path, code: int, stderr: str) -> None:
        self.out, self.code, self.stderr = out, code, stderr

    def line_of(self, folder: str) -> str:
        found = [line for line in self.stderr.splitlines() if f" {folder}/" in line or f": {folder}/" in line]
        assert len(found) == 1, self.stderr
        return found[0]

    def output_path(self, folder: str) -> Path:
        (out,) = (self.out / ".hipconv-cpu" / "bin" / folder).glob("*.out")
        return out

    def output_of(self, folder: str) -> str:
        return self.output_path(folder).read_text()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """Every program built and run by one `hipconv build --backend hip-cpu --run` (one precompiled prelude)."""
    reason = missing_tools()
    if reason is not None:
        print(f"test_cpu_build: skipped: {reason}")
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("cpu") / "hip"
    hip_cpu = HIP_CPU.parent
    result = run_cli("build", PROGRAMS_DIR, "-o", out, "--backend", "hip-cpu", "--hip-cpu", hip_cpu, "--run", "-j", "2")
    return Built(out, result.code, result.stderr)


@pytest.mark.parametrize("program", PASSING, ids=lambda p: p.name)
def test_program_prints_its_expected_output_on_64_lanes(built: Built, program: Path) -> None:
    assert built.line_of(program.name).startswith("ran: "), built.stderr
    compared = run_cli("compare", program / "expected.txt", built.output_path(program.name))
    assert compared.code == 0, compared.stdout.decode() + compared.stderr
    assert "PASS" in built.output_of(program.name)


@pytest.mark.parametrize("program", sorted(HAZARDOUS), ids=str)
def test_hazard_fails_at_run_time_and_scan_reports_its_line(built: Built, program: str) -> None:
    assert built.line_of(program).startswith("error[HC421]: "), built.stderr
    assert built.output_of(program).startswith("FAIL")
    for cu in (PROGRAMS_DIR / program).glob("*.cu"):
        declared = declared_hazards(cu)
        assert declared <= scan_findings(cu), (declared, scan_findings(cu))


def test_a_program_needing_a_rocm_library_is_listed_not_runnable(built: Built) -> None:
    line = built.line_of("needs_cublas")
    assert line.startswith("warning[HC420]: needs_cublas/saxpy_cublas: not runnable on the CPU: hipBLAS"), line
    assert not (built.out / ".hipconv-cpu" / "bin" / "needs_cublas").exists()


def test_the_run_fails_and_counts_every_program(built: Built) -> None:
    assert built.code == 1  # the hazard's program exits 1
    n = len(PROGRAMS)
    counts = (
        f"{n} programs: {n - len(NOT_RUNNABLE)} built, {len(PASSING)} ran, {len(HAZARDOUS)} failed, "
        f"{len(NOT_RUNNABLE)} not runnable on the CPU"
    )
    assert counts in built.stderr


def test_the_kept_hip_tree_is_not_adjusted_for_the_cpu(built: Built) -> None:
    kept = (built.out / "dynamic_scan" / "dynamic_scan.cu").read_text()
    staged = (built.out / ".hipconv-cpu" / "src" / "dynamic_scan" / "dynamic_scan.cu").read_text()
    assert "extern __shared__ float buffer[];" in kept and "<<<" in kept
    assert "HIP_DYNAMIC_SHARED(float, buffer);" in staged and "hipLaunchKernelGGL(" in staged


# ---------------------------------------------------------------- no compiler needed


def test_missing_hip_cpu_stops_with_how_to_get_it(tmp_path: Path) -> None:
    result = run_cli("build", PROGRAMS_DIR, "-o", tmp_path / "out", "--backend", "hip-cpu", "--hip-cpu", tmp_path)
    assert result.code == 2
    assert f"--hip-cpu {tmp_path}: no include/hip/hip_runtime.h there" in result.stderr
    assert "git clone https://github.com/ROCm/HIP-CPU" in result.stderr
    assert not (tmp_path / "out").exists()


def test_missing_compiler_stops_with_how_to_get_it(tmp_path: Path) -> None:
    checkout = tmp_path / "hip-cpu"  # a stand-in (only its header's place is checked before the compiler), so
    (checkout / "include" / "hip").mkdir(parents=True)  # the test needs no ../shared/hip-cpu
    (checkout / "include" / "hip" / "hip_runtime.h").write_text("#pragma once\n")
    result = run_cli(
        "build", PROGRAMS_DIR, "-o", tmp_path / "out", "--backend", "hip-cpu", "--hip-cpu", checkout,
        "--cxx", "no-such-c++",
    )  # fmt: skip
    assert result.code == 2
    assert "--cxx no-such-c++: no such executable" in result.stderr and "libtbb-dev" in result.stderr


def test_hipcc_only_options_are_refused(tmp_path: Path) -> None:
    result = run_cli("build", PROGRAMS_DIR, "-o", tmp_path / "out", "--backend", "hip-cpu", "--check-only")
    assert result.code == 2 and "--check-only: only with --backend hipcc, not hip-cpu" in result.stderr


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "__global__ void k() {\n  extern __shared__ float s[];\n}\n",
            "__global__ void k() {\n  HIP_DYNAMIC_SHARED(float, s);\n}\n",
            id="plain",
        ),
        pytest.param(
            "__global__ void k() {\n  extern __shared__ __align__(16) unsigned char raw[]; // x\n}\n",
            "__global__ void k() {\n  HIP_DYNAMIC_SHARED(unsigned char, raw); // x\n}\n",
            id="aligned",
        ),
        pytest.param(
            "__global__ void k(int n) {\n  if (n) { extern __shared__ T s[]; }\n}\n",
            "__global__ void k(int n) {\n  if (n) { HIP_DYNAMIC_SHARED(T, s); }\n}\n",
            id="nested-block",
        ),
    ],
)
def test_dynamic_shared(src: str, expected: str) -> None:
    assert dynamic_shared(src.encode()).decode() == expected


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("extern __shared__ float s[];\n__global__ void k() { s[0] = 1; }\n", id="file-scope"),
        pytest.param("namespace a { extern __shared__ float s[]; }\n", id="namespace-scope"),
        pytest.param("__global__ void k() { extern __shared__ float s[4]; }\n", id="sized"),
        pytest.param("__global__ void k() { /* extern __shared__ float s[]; */ }\n", id="comment"),
    ],
)
def test_dynamic_shared_noop(src: str) -> None:
    assert dynamic_shared(src.encode()) == src.encode()


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param("int main() { return 0; }", True, id="int-main"),
        pytest.param("int main(int argc, char** argv)\n{\n}", True, id="args"),
        pytest.param("int main(int, char**);\nvoid f() {}", False, id="declaration"),
        pytest.param('// int main() {}\nvoid f() { const char* s = "int main() {"; }', False, id="comment-string"),
        pytest.param("void run() { domain(); }", False, id="none"),
    ],
)
def test_defines_main(src: str, expected: bool) -> None:
    assert defines_main(src.encode()) is expected


def test_group_programs_links_the_tus_of_their_folder_and_below() -> None:
    sources = ["a/main.cu", "a/kernels/k.cu", "a/util.cpp", "b/run.cu", "b/other.cu", "lib/shared.cu"]
    assert group_programs(sources, ["a/main.cu", "b/run.cu", "b/other.cu"]) == [
        ("a/main.cu", ("a/main.cu", "a/kernels/k.cu", "a/util.cpp")),
        ("b/other.cu", ("b/other.cu",)),
        ("b/run.cu", ("b/run.cu",)),
    ]


def test_project_flags_keep_defines_includes_and_std() -> None:
    command = ["hipcc", "-DN=4", "-I", "inc", "-Iother", "-std=c++11", "-O3", "--offload-arch=gfx90a", "-x", "hip"]
    assert project_flags(command) == ["-DN=4", "-I", "inc", "-Iother", "-std=c++17"]
    assert project_flags(["hipcc", "-std=c++20", "-idirafter", "/t"]) == ["-std=c++20", "-idirafter", "/t"]


def test_scan_reports_no_hazard_in_the_passing_programs() -> None:
    for program in PASSING:
        for cu in program.glob("*.cu"):
            assert not declared_hazards(cu)
            assert not {code for _, code in scan_findings(cu) if re.fullmatch(r"HC3\d\d", code)}, cu


@pytest.mark.parametrize("code", ["HC420", "HC421", "HC422"])
def test_the_code_example_prints_its_diagnostic(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The examples of `hipconv codes HC420|HC421|HC422`, with this machine's HIP-CPU for their `HIP-CPU`."""
    reason = missing_tools()
    if reason is not None:
        pytest.skip(reason)
    example = CODES[code].example
    assert example is not None
    monkeypatch.chdir(tmp_path)
    (tmp_path / example.file).parent.mkdir(parents=True)
    (tmp_path / example.file).write_text(example.source + "\n")
    argv = [str(HIP_CPU.parent) if word == "HIP-CPU" else word for word in example.command_line]
    result = run_cli(*argv)
    assert result.code == (0 if code == "HC420" else 1), result.stderr
    assert example.diagnostic in result.stderr.splitlines(), result.stderr


# ---------------------------------------------------------------- --backend nvidia


def test_nvcc_diagnostics_are_read() -> None:
    output = 'hip/x.h(12): error: class "cudaDeviceProp" has no member "clockRate"\n1 error detected\n'
    (diagnostic,) = parse_diagnostics(output)
    assert diagnostic == ClangDiagnostic("hip/x.h", 12, 0, "error", 'class "cudaDeviceProp" has no member "clockRate"')


def test_nvidia_without_nvcc_stops_with_how_to_get_it(tmp_path: Path) -> None:
    result = run_cli("build", PROGRAMS_DIR, "-o", tmp_path / "out", "--backend", "nvidia", "--nvcc", "no-such-nvcc")
    assert result.code == 2
    assert "--nvcc no-such-nvcc: no such executable" in result.stderr and "CUDA toolkit" in result.stderr


def test_nvidia_without_hip_headers_stops_with_how_to_get_it(tmp_path: Path) -> None:
    nvcc = tmp_path / "nvcc"
    nvcc.write_text("#!/bin/sh\nexit 0\n")
    nvcc.chmod(0o755)
    argv = ["build", PROGRAMS_DIR, "-o", tmp_path / "out", "--backend", "nvidia", "--nvcc", nvcc]
    result = run_cli(*argv, "--hip-path", tmp_path)
    assert result.code == 2
    assert f"no HIP with NVIDIA-platform headers (include/hip/nvidia_detail) in --hip-path {tmp_path}" in result.stderr


def test_a_tu_nvcc_rejects_is_reported_under_hc423(tmp_path: Path) -> None:
    """A TU that fails with nvcc (a stand-in printing nvcc's error) is HC423's, not hipcc's HC410."""
    nvcc = tmp_path / "nvcc"
    nvcc.write_text("#!/bin/sh\necho 'x.cu(1): error: identifier \"cudaFoo\" is undefined'\nexit 1\n")
    nvcc.chmod(0o755)
    hip = tmp_path / "hip"
    (hip / "include" / "hip" / "nvidia_detail").mkdir(parents=True)
    (hip / "include" / "hip" / "nvidia_detail" / "nvidia_hip_runtime.h").write_text("")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "x.cu").write_text("int main() { return 0; }\n")
    argv = ["build", tmp_path / "src", "-o", tmp_path / "out", "--backend", "nvidia", "--nvcc", nvcc]
    result = run_cli(*argv, "--hip-path", hip)
    assert result.code == 1, result.stderr
    assert 'error[HC423]: 1 TU fails because of: identifier "cudaFoo" is undefined' in result.stderr.splitlines()
    assert "HC410" not in result.stderr


def test_nvidia_port_prints_the_expected_output(tmp_path: Path) -> None:
    """On a machine with an NVIDIA GPU, nvcc and HIP's NVIDIA-platform headers matching its CUDA (HIP 5.2's
    do not compile with CUDA 13): the programs built for NVIDIA print what they print on the CPU.
    tools/check_nvidia_port.sh runs this and also checks the CUDA originals."""
    why = no_gpu_reason(os.environ)
    if why is not None:
        print(f"test_nvidia_port: skipped: no NVIDIA GPU ({why})")
        pytest.skip(f"no NVIDIA GPU: {why}")
    src = tmp_path / "src"
    for program in PASSING:
        shutil.copytree(program, src / program.name)
    result = run_cli("build", src, "-o", tmp_path / "hip", "--backend", "nvidia", "--run")
    assert result.code == 0, result.stderr
    for program in PASSING:
        (out,) = (tmp_path / "hip" / ".hipconv-nvidia" / "bin" / program.name).glob("*.out")
        assert run_cli("compare", program / "expected.txt", out).code == 0, program.name


# ---------------------------------------------------------------- docs/build-backends.md

DOC = Path(__file__).resolve().parents[1] / "docs" / "build-backends.md"


def doc_blocks(kind: str) -> list[str]:
    return [block.split("```", 1)[0] for block in DOC.read_text().split(f"```{kind}\n")[1:]]


def test_the_doc_commands_run_as_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/build-backends.md's CPU commands, on a tree holding one saxpy/saxpy.cu (a passing program of
    tests/run_programs/) and its recorded output; its error example, as printed."""
    reason = missing_tools()
    if reason is not None:
        pytest.skip(reason)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src" / "saxpy").mkdir(parents=True)
    shutil.copy(PROGRAMS_DIR / "block_reduce" / "block_reduce.cu", tmp_path / "src" / "saxpy" / "saxpy.cu")
    (tmp_path / "expected").mkdir()
    shutil.copy(PROGRAMS_DIR / "block_reduce" / "expected.txt", tmp_path / "expected" / "saxpy.txt")
    commands = [
        shlex.split(line.replace("~/HIP-CPU", str(HIP_CPU.parent))) for line in doc_blocks("sh")[0].splitlines()
    ]
    assert [c[:2] for c in commands] == [
        ["git", "clone"],
        ["sudo", "apt-get"],
        ["hipconv", "build"],
        ["hipconv", "compare"],
    ]
    built = run_cli(*commands[2][1:])
    assert built.code == 0, built.stderr
    assert "ran: saxpy/saxpy: exit 0 (output in hip/.hipconv-cpu/bin/saxpy/saxpy.out)" in built.stderr.splitlines()
    assert run_cli(*commands[3][1:]).code == 0

    error = doc_blocks("text")[1].splitlines()
    missing = run_cli("build", "src", "-o", "elsewhere", "--backend", "hip-cpu", "--hip-cpu", "/opt/HIP-CPU")
    assert missing.code == 2 and missing.stderr.splitlines()[:2] == error


def test_the_doc_nvidia_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (command,) = doc_blocks("sh")[1].splitlines()
    why = no_gpu_reason(os.environ)
    if why is not None:
        pytest.skip(f"no NVIDIA GPU: {why}")
    monkeypatch.chdir(tmp_path)
    shutil.copytree(PROGRAMS_DIR / "block_reduce", tmp_path / "src" / "block_reduce")
    assert run_cli(*shlex.split(command)[1:]).code == 0


def test_gxx_errors_are_grouped_by_their_name() -> None:
    """g++'s wording of an undeclared name and a missing header (the CPU build's compiler) counts as clang's."""
    ruleset = load_ruleset()
    headers = MissingHeaders(ruleset)
    undeclared = ClangDiagnostic("a.cpp", 3, 5, "error", "'hipMemCreate' was not declared in this scope; did you mean")
    assert classify(undeclared, ruleset, headers)[:2] == ("undeclared", "hipMemCreate")
    missing = ClangDiagnostic("a.cpp", 1, 10, "fatal error", "nvml.h: No such file or directory")
    cause = classify(missing, ruleset, headers)
    assert cause[:2] == ("missing-header", "nvml.h") and "ROCm SMI" in cause.origin
