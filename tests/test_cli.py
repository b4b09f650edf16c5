"""The command line: every exit code, every bad input, nothing lost, nothing written where it must not be."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run_cli, tree
from hipconv import file_reads

KERNEL = (
    b"#include <cuda_runtime.h>\n__global__ void k(float* p) { p[threadIdx.x] = 0; }\n"
    b"int main() { float* p; cudaMalloc(&p, 4); k<<<1, 1>>>(p); cudaFree(p); }\n"
)
UNPORTED = (
    b"#include <cuda_runtime.h>\nvoid f() { cudaDeviceFlushGPUDirectRDMAWrites("
    b"cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner); }\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "kernels").mkdir(parents=True)
    (src / "kernels" / "k.cu").write_bytes(KERNEL)
    (src / "main.cpp").write_bytes(b'#include "kernels/k.cuh"\nint run() { return cudaDeviceSynchronize(); }\n')
    (src / "kernels" / "k.cuh").write_bytes(b"#pragma once\ncudaError_t run();\n")
    (src / "CMakeLists.txt").write_bytes(b"project(demo LANGUAGES CXX CUDA)\n")
    (src / "data.bin").write_bytes(bytes(range(256)))
    script = src / "build.sh"
    script.write_bytes(b"#!/bin/sh\nnvcc k.cu\n")
    script.chmod(0o755)
    return src


def test_single_file_to_stdout(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_bytes(KERNEL)
    result = run_cli("translate", f)
    assert result.code == 0
    assert b"hipMalloc(&p, 4)" in result.stdout and b"#include <hip/hip_runtime.h>" in result.stdout
    assert f.read_bytes() == KERNEL


def test_single_file_to_file_and_existing_output(tmp_path: Path) -> None:
    f, out = tmp_path / "k.cu", tmp_path / "k.hip"
    f.write_bytes(KERNEL)
    assert run_cli("translate", f, "-o", out).code == 0
    assert b"hipFree(p)" in out.read_bytes()
    out.write_bytes(b"precious")
    again = run_cli("translate", f, "-o", out)
    assert again.code == 2 and "already exists" in again.stderr and "--force" in again.stderr
    assert out.read_bytes() == b"precious"
    assert run_cli("translate", f, "-o", out, "--force").code == 0
    assert b"hipFree(p)" in out.read_bytes()


def test_tree_layout_and_copies(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "hip"
    result = run_cli("translate", project, "-o", out)
    assert result.code == 0, result.stderr
    got = tree(out)
    assert sorted(got) == sorted(tree(project))
    assert b"hipMalloc" in got["kernels/k.cu"] and b"hipError_t run();" in got["kernels/k.cuh"]
    assert got["data.bin"] == bytes(range(256))
    assert got["CMakeLists.txt"] == (  # build files are translated (issue #6)
        b"project(demo LANGUAGES CXX HIP)\nadd_compile_definitions(HIP_ENABLE_WARP_SYNC_BUILTINS)\n"
    )
    assert stat.S_IMODE((out / "build.sh").stat().st_mode) == 0o755
    assert tree(project)["kernels/k.cu"] == KERNEL  # inputs untouched
    # a rerun into hipconv's own output directory is fine and writes nothing new
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert run_cli("translate", project, "-o", out).code == 0
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == before


def test_directory_needs_output(project: Path) -> None:
    result = run_cli("translate", project)
    assert result.code == 2 and "needs -o/--output" in result.stderr


def test_output_inside_input_is_refused(project: Path) -> None:
    result = run_cli("translate", project, "-o", project / "hip")
    assert result.code == 2 and "inside the input tree" in result.stderr
    assert not (project / "hip").exists()


def test_foreign_output_directory_is_refused(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    result = run_cli("translate", project, "-o", out)
    assert result.code == 2 and "not written by hipconv" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]
    assert run_cli("translate", project, "-o", out, "--force").code == 0
    assert (out / "mine.txt").read_text() == "keep"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        pytest.param(
            "// \uf7a9 private use\n".encode() + b"int x = 1; // caf\xe9\ncudaFree(p);\n",
            "not valid UTF-8 (byte 0xe9 on line 2), and it holds private-use characters U+F780-U+F7FF",
            id="latin1-and-private-use",
        ),
        pytest.param(b"\x7fELF\x00\x00\x01cudaFree", "binary file", id="binary"),
        pytest.param("cudaFree(p);\n".encode("utf-16"), "UTF-16 text", id="utf16"),
        *(
            pytest.param(
                bom + "// é\ncudaFree(p);\n".encode(f"utf-{bits}-{order[0]}e"),
                f"UTF-{bits} text ({order}-endian{'' if bom else ', without a byte-order mark'}",
                id=f"utf{bits}-{order[0]}e{'-bom' if bom else ''}",
            )
            for bits, order, bom in (
                (16, "little", b"\xff\xfe"),
                (16, "big", b"\xfe\xff"),
                (32, "little", b"\xff\xfe\x00\x00"),
                (32, "big", b"\x00\x00\xfe\xff"),
                (16, "little", b""),
                (16, "big", b""),
                (32, "little", b""),
                (32, "big", b""),
            )
        ),
    ],
)
def test_bad_file_is_reported_and_others_go_on(project: Path, tmp_path: Path, content: bytes, reason: str) -> None:
    (project / "bad.cu").write_bytes(content)
    out = tmp_path / "hip"
    result = run_cli("translate", project, "-o", out)
    assert result.code == 2
    assert f"{project / 'bad.cu'}: error: {reason}" in result.stderr
    assert (out / "bad.cu").read_bytes() == content  # copied unchanged: nothing lost
    assert b"hipMalloc" in (out / "kernels" / "k.cu").read_bytes()


def test_latin1_file_is_translated_and_its_bytes_kept(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    cp1252 = b"// \xa9 2011 Jos\xe9\n#include <cuda_runtime.h>\n/* 5 \xb5s */ void f(float** p) { cudaMalloc(p, 4); }\n"
    (src / "k.cu").write_bytes(cp1252)
    (src / "u.cu").write_bytes(b"/* \xe9\xe9 */ int x = cudaFooBar();\n")
    out = tmp_path / "out"
    result = run_cli("translate", src, "-o", out)
    assert result.code == 0, result.stderr
    assert (out / "k.cu").read_bytes() == cp1252.replace(b"cuda_runtime.h", b"hip/hip_runtime.h").replace(
        b"cudaMalloc", b"hipMalloc"
    )
    assert (out / "u.cu").read_bytes() == (src / "u.cu").read_bytes()
    assert f"{src / 'u.cu'}:1:18: warning[HC001]" in result.stderr  # columns count the file's bytes
    diff = run_cli("translate", src / "k.cu", "--diff")
    assert diff.code == 0 and b"-/* 5 \xb5s */ void f(float** p) { cudaMalloc(p, 4); }" in diff.stdout


def test_empty_and_crlf_files(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "empty.cu").write_bytes(b"")
    (src / "crlf.cu").write_bytes(b"#include <cuda_runtime.h>\r\nvoid f() { cudaFree(0); }\r\n")
    out = tmp_path / "out"
    assert run_cli("translate", src, "-o", out).code == 0
    assert (out / "empty.cu").read_bytes() == b""
    assert (out / "crlf.cu").read_bytes() == b"#include <hip/hip_runtime.h>\r\nvoid f() { hipFree(0); }\r\n"


def test_huge_file_is_refused_clearly(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_reads, "MAX_SOURCE_BYTES", 64)
    result = run_cli("translate", project, "-o", tmp_path / "hip")
    assert result.code == 2
    assert "k.cu: error: larger than" in result.stderr


def test_large_file_translates(tmp_path: Path) -> None:
    f = tmp_path / "big.cu"
    f.write_bytes(KERNEL * 20000)  # ~3 MB
    result = run_cli("translate", f, "-o", tmp_path / "big.hip")
    assert result.code == 0
    assert (tmp_path / "big.hip").read_bytes().count(b"hipMalloc") == 20000


def test_unreadable_file(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = open

    def fake_open(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).endswith("main.cpp"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(file_reads, "open", fake_open, raising=False)
    result = run_cli("translate", project, "-o", tmp_path / "hip")
    assert result.code == 2
    assert "main.cpp: error: cannot read: Permission denied" in result.stderr
    assert (tmp_path / "hip" / "kernels" / "k.cu").exists()


def test_symlink_loop_and_broken_link(project: Path, tmp_path: Path) -> None:
    os.symlink("loop", project / "kernels" / "loop")  # a link to `..` is kept as a link: tests/test_filesystem.py
    os.symlink("missing.cu", project / "dangling.cu")
    result = run_cli("translate", project, "-o", tmp_path / "hip")
    assert result.code == 2
    assert "loop: error: symbolic link loop" in result.stderr
    assert "dangling.cu: error: broken symbolic link" in result.stderr
    assert (tmp_path / "hip" / "kernels" / "k.cu").exists()


def test_missing_input() -> None:
    result = run_cli("translate", "/nonexistent/x.cu")
    assert result.code == 2 and "no such file or directory" in result.stderr


def test_in_place_keeps_backup(project: Path) -> None:
    result = run_cli("translate", project, "--in-place")
    assert result.code == 0
    assert (project / "kernels" / "k.cu.orig").read_bytes() == KERNEL
    assert b"hipMalloc" in (project / "kernels" / "k.cu").read_bytes()
    assert not (project / "data.bin.orig").exists()


def test_dry_run_and_diff_write_nothing(project: Path, tmp_path: Path) -> None:
    before = tree(project)
    dry = run_cli("translate", project, "-o", tmp_path / "hip", "--dry-run")
    assert dry.code == 0 and not (tmp_path / "hip").exists()
    diff = run_cli("translate", project, "-o", tmp_path / "hip", "--diff")
    assert diff.code == 0 and not (tmp_path / "hip").exists()
    assert b"-int main() { float* p; cudaMalloc(&p, 4);" in diff.stdout
    assert b"+#include <hip/hip_runtime.h>" in diff.stdout
    assert tree(project) == before
    assert run_cli("translate", project, "--diff", "--dry-run").code == 2


def test_strict_exit_code(tmp_path: Path) -> None:
    f = tmp_path / "u.cu"
    f.write_bytes(UNPORTED)
    assert run_cli("translate", f, "-o", tmp_path / "a.hip").code == 0
    strict = run_cli("translate", f, "-o", tmp_path / "b.hip", "--strict")
    assert strict.code == 1
    assert "error[HC002 cudart.cudaDeviceFlushGPUDirectRDMAWrites]" in strict.stderr
    ok = tmp_path / "ok.cu"
    ok.write_bytes(KERNEL)
    assert run_cli("translate", ok, "-o", tmp_path / "c.hip", "--strict").code == 0


def test_report_and_stats(project: Path, tmp_path: Path) -> None:
    (project / "u.cu").write_bytes(UNPORTED)
    report = tmp_path / "r.json"
    result = run_cli("translate", project, "-o", tmp_path / "hip", "--report", report, "--stats")
    assert result.code == 0
    data = json.loads(report.read_text())
    files = {Path(e["path"]).name: e for e in data["files"]}
    assert files["k.cu"]["status"] == "converted"
    assert {
        "line": 3,
        "col": 24,
        "cuda": "cudaMalloc",
        "hip": "hipMalloc",
        "rule": "cudart.cudaMalloc",
        "library": "cudart",
    } in files["k.cu"]["replacements"]
    assert files["u.cu"]["diagnostics"][0]["code"] == "HC002"
    assert files["data.bin"]["status"] == "copied"
    assert data["settings"]["rocm_version"] == "7.2"  # the newest bundled release
    assert (
        "replacements: cudart" in result.stderr
        and "unported [HC002] cudaDeviceFlushGPUDirectRDMAWrites" in result.stderr
    )


def test_exclude(project: Path, tmp_path: Path) -> None:
    assert run_cli("translate", project, "-o", tmp_path / "hip", "--exclude", "kernels/*").code == 0
    assert not (tmp_path / "hip" / "kernels").exists() or not any((tmp_path / "hip" / "kernels").iterdir())


def test_jobs_give_the_same_result(project: Path, tmp_path: Path) -> None:
    assert run_cli("translate", project, "-o", tmp_path / "one", "--jobs", "1").code == 0
    assert run_cli("translate", project, "-o", tmp_path / "two", "--jobs", "2").code == 0
    assert tree(tmp_path / "one") == tree(tmp_path / "two")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--rocm-version", "six"], "ROCm 'six' is not a bundled release", id="bad-version"),
        pytest.param(["--kernel-launch", "triple"], "Invalid value for '--kernel-launch'", id="bad-choice"),
        pytest.param(["--jobs", "0"], "Invalid value for '-j' / '--jobs'", id="bad-jobs"),
        pytest.param(["--rules-dir", "/nonexistent"], "rule directory /nonexistent does not exist", id="bad-rules-dir"),
    ],
)
def test_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    f = tmp_path / "k.cu"
    f.write_bytes(KERNEL)
    result = run_cli("translate", f, "-o", tmp_path / "k.hip", *args)
    assert result.code == 2
    assert message in result.stderr
    assert not (tmp_path / "k.hip").exists()


def test_invalid_extra_rules_are_a_usage_error(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "mine.yaml").write_text("rules:\n  - cuda: cudaMalloc\n    hip: myMalloc\n")
    f = tmp_path / "k.cu"
    f.write_bytes(KERNEL)
    result = run_cli("translate", f, "--rules-dir", rules)
    assert result.code == 2
    assert "mine.yaml:2 (cudaMalloc): 'kind' must be one of" in result.stderr
    assert "'library' is required" in result.stderr


def test_debug_tokens_round_trip(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_bytes(KERNEL)
    result = run_cli("debug", "tokens", f)
    assert result.code == 0
    assert "identifier\t'cudaMalloc'" in result.stdout.decode()


def test_rules_show_and_list() -> None:
    show = run_cli("rules", "show", "cudaMalloc")
    assert show.code == 0 and "hip: hipMalloc" in show.stdout.decode()
    assert run_cli("rules", "show", "noSuchThing").code == 2
    listing = run_cli("rules", "list", "--library", "cudart", "--status", "unsupported").stdout.decode()
    assert "cudaDeviceFlushGPUDirectRDMAWrites" in listing and "hipMalloc" not in listing


def test_markdown_report(project: Path, tmp_path: Path) -> None:
    (project / "u.cu").write_bytes(UNPORTED)
    report = tmp_path / "nested" / "report.md"
    assert run_cli("translate", project, "-o", tmp_path / "hip", "--report", report).code == 0
    text = report.read_text()
    assert text.startswith("# hipconv translation report\n")
    assert "| cudart |" in text
    assert "| `cudaDeviceFlushGPUDirectRDMAWrites` | HC002 | 1 |" in text
    assert f"| `{project / 'u.cu'}` | converted |" in text  # one row per file with findings
    assert "error HC002 `cudart.cudaDeviceFlushGPUDirectRDMAWrites`" in text


def test_generated_pages_are_current() -> None:
    result = run_cli("rules", "docs", "--check", Path(__file__).resolve().parents[1] / "docs")
    assert result.code == 0, result.stderr


def test_rules_docs_writes_whole_pages_and_checks_them(tmp_path: Path) -> None:
    """--write writes every generated page whole (a hand edit is overwritten), --check names the stale ones
    and exits 1; a file where the folder should be (README.md, where sections were once spliced) is an error."""
    docs = tmp_path / "docs"
    stale = run_cli("rules", "docs", "--check", docs)
    assert stale.code == 1 and f"{docs / 'codes.md'} is stale: run `hipconv rules docs --write {docs}`" in stale.stderr
    assert run_cli("rules", "docs", "--write", docs).code == 0
    assert sorted(p.name for p in docs.iterdir()) == ["codes.md", "coverage.md", "cudnn-functions.md", "nvcc-flags.md"]
    assert "| [HC101](#hc101) | warning |" in (docs / "codes.md").read_text()
    assert run_cli("rules", "docs", "--check", docs).code == 0
    coverage = docs / "coverage.md"
    coverage.write_text(coverage.read_text().replace("| cudart |", "| cudart (edited) |"))
    again = run_cli("rules", "docs", "--check", docs)
    assert again.code == 1 and again.stderr.count("is stale") == 1 and "coverage.md" in again.stderr
    assert run_cli("rules", "docs", "--write", docs).code == 0 and "(edited)" not in coverage.read_text()
    (tmp_path / "README.md").write_text("nothing here\n")
    spliced = run_cli("rules", "docs", "--write", tmp_path / "README.md")
    assert spliced.code == 2 and "hint: `hipconv rules docs --write docs` writes codes.md" in spliced.stderr
    printed = run_cli("rules", "docs").stdout.decode()
    assert printed.startswith("<!-- docs/codes.md -->\n") and "<!-- docs/cudnn-functions.md -->" in printed


def test_rule_cache_follows_rule_edits(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    rule = rules / "mine.yaml"
    rule.write_text("defaults: {library: mine, kind: function}\nrules:\n  - cuda: cudaMyThing\n    hip: hipFree\n")
    f = tmp_path / "k.cpp"
    f.write_bytes(b"void g() { cudaMyThing(p); }\n")
    assert run_cli("translate", f, "--rules-dir", rules).stdout == b"void g() { hipFree(p); }\n"
    rule.write_text(rule.read_text().replace("hipFree", "hipMalloc"))
    assert run_cli("translate", f, "--rules-dir", rules).stdout == b"void g() { hipMalloc(p); }\n"
    rule.write_text(rule.read_text().replace("hip: hipMalloc", "hipp: hipMalloc"))
    assert run_cli("translate", f, "--rules-dir", rules).code == 2


def test_plain_progress_lines_when_not_a_terminal(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for n in range(25):
        (src / f"k{n}.cu").write_bytes(KERNEL)
    result = run_cli("translate", src, "-o", tmp_path / "out")
    assert result.code == 0
    progress = [line for line in result.stderr.splitlines() if line.startswith("hipconv: ")]
    assert progress[-1] == "hipconv: 25/25 files" and len(progress) == 10


def test_build_progress_counts_translation_units(tmp_path: Path) -> None:
    """`hipconv build` compiles TUs: its progress lines say so, not "files" (a fake hipcc passes every TU)."""
    src = tmp_path / "src"
    src.mkdir()
    for n in range(20):
        (src / f"k{n}.cu").write_bytes(KERNEL)
    hipcc = tmp_path / "hipcc"
    hipcc.write_text('#!/bin/sh\n[ "$1" = "--version" ] && echo "HIP version: 5.2.21153-0"\nexit 0\n')
    hipcc.chmod(0o755)
    result = run_cli("build", src, "-o", tmp_path / "hip", "--hipcc", hipcc, "--check-only", "-j", "1")
    assert result.code == 0, result.stderr
    compiling = [line for line in result.stderr.splitlines() if line.startswith("hipconv: ")][-10:]
    assert compiling == [f"hipconv: {n}/20 TUs" for n in range(2, 21, 2)]


def test_a_closed_pipe_ends_the_command_quietly() -> None:
    """`hipconv rules list | head`: when the reader goes away, hipconv stops as git and coreutils do under
    `| head`, with 141 (128 + SIGPIPE), no traceback and no error message."""
    done = subprocess.Popen(
        [sys.executable, "-m", "hipconv", "rules", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.stdout is not None and done.stderr is not None
    first = done.stdout.readline()
    done.stdout.close()  # the reader goes away after one line
    errors = done.stderr.read()
    assert done.wait(timeout=120) == 141
    assert first.count(b"\t") == 4 and errors == b""


def test_nothing_is_written_outside_the_output(project: Path, tmp_path: Path) -> None:
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert run_cli("translate", project, "-o", tmp_path / "hip").code == 0
    after = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert [p for p in after if p not in before and p.parts[0] != "hip"] == []
    assert not list(tmp_path.rglob("*.tmp"))


def test_progress_bar_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for n in range(5):
        (src / f"k{n}.cu").write_bytes(KERNEL)
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich then treats stderr as a terminal
    result = run_cli("translate", src, "-o", tmp_path / "out")
    assert result.code == 0
    assert "translating" in result.stderr and "5/5" in result.stderr
    assert "hipconv: 5/5 files" not in result.stderr


def test_translate_reads_the_project_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()  # the configuration search stops at the repository root
    (tmp_path / ".hipconv.toml").write_text('rocm-version = "5.2"\nkernel-launch = "hip"\nexclude = ["skip_*"]\n')
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_bytes(b"__global__ void k() {}\nvoid f() { k<<<1, 1>>>(); __activemask(); }\n")
    (src / "skip_me.cu").write_bytes(KERNEL)
    monkeypatch.chdir(tmp_path)
    result = run_cli("translate", "src", "-o", "out")
    assert result.code == 0
    assert b"hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0)" in (tmp_path / "out" / "k.cu").read_bytes()
    assert "is not in ROCm 5.2" in result.stderr  # __activemask: first in 6.2
    assert not (tmp_path / "out" / "skip_me.cu").exists()
    flags_win = run_cli("translate", "src", "-o", "out2", "--kernel-launch", "chevron", "--rocm-version", "6.3")
    assert b"k<<<1, 1>>>()" in (tmp_path / "out2" / "k.cu").read_bytes() and "ROCm 5.2" not in flags_win.stderr
    (tmp_path / ".hipconv.toml").write_text('rocm-verison = "5.2"\n')
    bad = run_cli("translate", "src", "-o", "out3")
    assert bad.code == 2 and ".hipconv.toml" in bad.stderr
