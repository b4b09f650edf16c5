"""`hipconv scan` as a gate (issue #12): one report per lane mask, a note where the translator fixed it;
adopting the gate on an existing tree with a baseline; the pre-commit hook's files; findings on stdout,
the summary and progress on stderr."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from helpers import run_cli
from hipconv.file_kinds import TRANSLATED_SUFFIXES
from hipconv.scan.view import FileView
from hipconv.settings import Settings, Version
from hipconv.translate.lexer import lex

REPO = Path(__file__).resolve().parents[1]
REDUCE = """#include <cuda_runtime.h>
#define FULL 0xffffffff
__global__ void reduce(float* p) {{
  float v = p[threadIdx.x];
  v += {call};
  p[threadIdx.x] = v;
}}
"""
UNPORTED_CALL = "  cudaDeviceFlushGPUDirectRDMAWrites(target, scope);\n"  # no HIP equivalent: HC002


def findings(result) -> list[tuple[str, int, str]]:
    """(file name, line, code) of a `--format json` run's findings."""
    return [(f["path"].rsplit("/", 1)[-1], f["line"], f["code"]) for f in json.loads(result.stdout)["findings"]]


# ---------------------------------------------------------------- one report per lane mask


@pytest.mark.parametrize(
    ("rocm", "call", "code", "exit_code"),
    [
        pytest.param("6.3", "__shfl_down_sync(0xffffffff, v, 8)", "HC104", 0, id="full-mask-widened-is-a-note"),
        pytest.param("6.3", "__shfl_down_sync(0xFFFFFFFFu, v, 8)", "HC104", 0, id="full-mask-spelt-otherwise"),
        pytest.param("6.3", "__shfl_down_sync(/* all */ 0xffffffff, v, 8)", "HC104", 0, id="comment-before-mask"),
        pytest.param("6.3", "__shfl_down_sync(0x0000ffff, v, 8)", "HC101", 1, id="other-mask-keeps-lanes-0-31"),
        pytest.param("6.3", "__shfl_down_sync(FULL, v, 8)", "HC104", 0, id="full-mask-by-name-widened-where-defined"),
        pytest.param("6.3", "__shfl_down_sync(FULL, v, 8) + (FULL & 3)", "HC101", 1, id="named-mask-with-other-uses"),
        pytest.param("5.2", "__shfl_down_sync(0xffffffff, v, 8)", "HC101", 1, id="full-mask-dropped"),
        pytest.param("5.2", "__shfl_down_sync(FULL, v, 8)", "HC101", 1, id="named-32-bit-mask-dropped"),
        pytest.param("5.2", "__shfl_down_sync(mask, v, 8)", "HC102", 1, id="unknown-mask-dropped"),
    ],
)
def test_a_lane_mask_is_reported_once(tmp_path: Path, rocm: str, call: str, code: str, exit_code: int) -> None:
    f = tmp_path / "k.cu"
    f.write_text(REDUCE.format(call=call))
    result = run_cli("scan", "--format", "json", "--rocm-version", rocm, "--fail-on", "warning", f)
    assert findings(result) == [("k.cu", 5, code)]
    assert result.code == exit_code


def test_a_mask_split_over_lines_is_reported_once(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(REDUCE.format(call="__shfl_down_sync(\n      0xffffffff,\n      v, 8)"))
    assert findings(run_cli("scan", "--format", "json", f)) == [("k.cu", 6, "HC104")]


def test_disabling_the_note_does_not_bring_back_the_warning(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(REDUCE.format(call="__shfl_down_sync(0xffffffff, v, 8) + __shfl_xor_sync(FULL, v, 1)"))
    result = run_cli("scan", "--format", "json", "--disable", "HC104", f)
    assert findings(result) == []  # both masks widened, the named one where it is defined: no HC302


def test_a_mask_the_translator_has_no_rule_for_is_reported_by_the_check(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text("__device__ void sync_all() {\n  __syncwarp(0xffffffff);\n}\n")
    result = run_cli("scan", "--format", "json", "--no-compat", f)  # (with shims, __syncwarp is HC011)
    assert findings(result) == [("k.cu", 2, "HC002"), ("k.cu", 2, "HC302")]


def test_a_full_mask_a_shim_acts_on_is_a_note_not_a_warning(tmp_path: Path) -> None:
    """hipconv_syncwarp syncs the whole wavefront: the full mask's verdict (HC104) covers HC302."""
    f = tmp_path / "k.cu"
    f.write_text("__device__ void sync_all() {\n  __syncwarp(0xffffffff);\n}\n")
    result = run_cli("scan", "--format", "json", "--fail-on", "warning", f)
    assert findings(result) == [("k.cu", 2, "HC011"), ("k.cu", 2, "HC104")]
    assert result.code == 0


def test_translate_reports_the_widened_mask_as_a_note(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(REDUCE.format(call="__shfl_down_sync(0xffffffff, v, 8)"))
    result = run_cli("translate", "--rocm-version", "6.3", f)
    assert result.code == 0
    assert b"__shfl_down_sync(0xffffffffffffffffull, v, 8)" in result.stdout
    assert f"{f}:5:25: note[HC104 device.shfl-down-sync]: 32-bit full lane mask 0xffffffff" in result.stderr
    assert "warning" not in result.stderr


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        pytest.param("f(a, 0x1 + b, c)", ("0x1", "b"), True, id="start-and-middle-of-one-argument"),
        pytest.param("f(a, /* m */ b, c)", ("/*", "b"), True, id="comment-before-it"),
        pytest.param("f(a, b, c)", ("a", "b"), False, id="two-arguments"),
        pytest.param("f(a, g(b), c)", ("g", "b"), False, id="nested-call"),
    ],
)
def test_argument_at_names_one_argument_wherever_in_it(first: str, second: tuple[str, str], same: bool) -> None:
    data = first.encode()
    view = FileView(lex(data), Settings(Version.parse("6.3")))
    a, b = (view.argument_at(data.index(word.encode(), 2)) for word in second)
    assert a is not None and b is not None
    assert (a == b) is same


# ---------------------------------------------------------------- adopting the gate on an existing tree


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with CUDA code that has findings today, a header among it, as the working directory."""
    (tmp_path / ".git").mkdir()  # the configuration is searched for up to the repository root
    src = tmp_path / "src"
    (src / "kernels").mkdir(parents=True)
    (src / "kernels" / "reduce.cuh").write_text(REDUCE.format(call="__shfl_down_sync(0x0000ffff, v, 8)"))
    (src / "lane.cu").write_text("__global__ void k(int* p) {\n  p[threadIdx.x % 32] = 0;\n}\n")
    (src / "flush.cu").write_text("#include <cuda_runtime.h>\nvoid flush() {\n" + UNPORTED_CALL + "}\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_first_run_blocks_then_the_baseline_passes_and_only_new_findings_fail(repo: Path) -> None:
    assert run_cli("scan", "src", "--fail-on", "warning").code == 1  # a first run blocks every file
    written = run_cli("scan", "src", "--write-baseline", ".hipconv-baseline.json")
    assert written.code == 0, written.stderr
    assert "3 findings recorded in .hipconv-baseline.json" in written.stderr and written.stdout == b""
    (repo / "pyproject.toml").write_text('[tool.hipconv]\nfail-on = "warning"\nbaseline = ".hipconv-baseline.json"\n')

    clean = run_cli("scan", "src")
    assert clean.code == 0, clean.stdout
    assert clean.stdout == b"" and "0 findings (3 in the baseline)" in clean.stderr

    # code moves: lines above the old findings, re-indented; still nothing new
    lane = repo / "src" / "lane.cu"
    lane.write_text("// lanes\n\n__global__ void k(int* p) {\n    p[threadIdx.x % 32] = 0;\n}\n")
    assert run_cli("scan", "src").code == 0

    # a new unported call: only it is reported, and the gate fails
    flush = repo / "src" / "flush.cu"
    flush.write_text(flush.read_text() + "void flush_again() {\n" + UNPORTED_CALL + "}\n")
    new = run_cli("scan", "src")
    assert new.code == 1
    assert new.stdout.decode().splitlines()[0].startswith("src/flush.cu:6:3: error[HC002")
    assert new.stdout.decode().count("error[") == 1 and "warning[" not in new.stdout.decode()
    assert findings(run_cli("scan", "--format", "json", "src")) == [("flush.cu", 6, "HC002")]


def test_the_hook_passes_files_one_by_one_and_from_a_subfolder(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli("scan", "src", "--write-baseline", ".hipconv-baseline.json").code == 0
    # as pre-commit runs it: the files named, the baseline in the hook's args
    files = ["src/kernels/reduce.cuh", "src/lane.cu", "src/flush.cu"]
    assert run_cli("scan", "--baseline", ".hipconv-baseline.json", *files).code == 0
    # from a subfolder, with the baseline named by the configuration (relative to it)
    (repo / ".hipconv.toml").write_text('baseline = ".hipconv-baseline.json"\n')
    monkeypatch.chdir(repo / "src")
    assert run_cli("scan", ".").code == 0
    (repo / "src" / "lane.cu").write_text("__global__ void k(int* p) {\n  p[threadIdx.x & 31] = 0;\n}\n")
    assert findings(run_cli("scan", "--format", "json", ".")) == [("lane.cu", 2, "HC301")]


def test_a_file_that_cannot_be_read_is_not_recorded_and_exits_2(repo: Path) -> None:
    (repo / "src" / "blob.cu").write_bytes(b"\x7fELF\x00\x01")
    written = run_cli("scan", "src", "--write-baseline", ".hipconv-baseline.json")
    assert written.code == 2
    assert "src/blob.cu: error:" in written.stderr and "3 findings recorded" in written.stderr
    recorded = json.loads((repo / ".hipconv-baseline.json").read_text())["findings"]
    assert sorted(e["path"] for e in recorded) == ["src/flush.cu", "src/kernels/reduce.cuh", "src/lane.cu"]


def test_a_baseline_the_configuration_names_must_exist(repo: Path) -> None:
    (repo / ".hipconv.toml").write_text('baseline = "missing.json"\n')
    result = run_cli("scan", "src")
    assert result.code == 2
    assert "missing.json" in result.stderr and "--write-baseline" in result.stderr
    (repo / ".hipconv.toml").write_text('baseline = ["a.json"]\n')
    bad = run_cli("scan", "src")
    assert bad.code == 2 and "[tool.hipconv] baseline must be a string" in bad.stderr


# ---------------------------------------------------------------- the pre-commit hook's files


def test_the_hook_runs_on_every_source_suffix_scan_reads_and_nothing_else() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    pattern = re.compile(next(h for h in hooks if h["id"] == "hipconv-scan")["files"])
    assert {".cu", ".cuh", ".h", ".hpp", ".inl", ".cpp", ".cc", ".cxx"} <= TRANSLATED_SUFFIXES
    for suffix in TRANSLATED_SUFFIXES:
        for name in (f"src/kernel{suffix}", f"src/KERNEL{suffix.upper()}"):
            assert pattern.search(name), name
    for name in ("setup.py", "README.md", "kernel.cu.orig", "notes.txt", "CMakeLists.txt", "Makefile", "a.cuda"):
        assert not pattern.search(name), name


# ---------------------------------------------------------------- stdout, stderr, progress


def test_findings_on_stdout_failures_and_summary_on_stderr(repo: Path) -> None:
    (repo / "src" / "blob.cu").write_bytes(b"\x7fELF\x00\x01")
    result = run_cli("scan", "src")
    assert result.code == 2
    out = result.stdout.decode()
    assert sorted(line.split(":", 1)[0] for line in out.splitlines() if not line.startswith(" ")) == [
        "src/flush.cu",
        "src/kernels/reduce.cuh",
        "src/lane.cu",
    ]
    assert "\x1b[" not in out  # not a terminal: no colour
    assert "src/blob.cu: error:" in result.stderr and "blob" not in out
    assert "hipconv scan: 4 files, 3 findings (1 files not scanned)" in result.stderr
    assert "[HC" not in result.stderr


def test_progress_on_a_tree_only(tmp_path: Path) -> None:
    for n in range(20):
        (tmp_path / f"k{n:02}.cu").write_text("__global__ void k(int* p) {\n  p[threadIdx.x % 32] = 0;\n}\n")
    tree = run_cli("scan", tmp_path)
    assert re.findall(r"hipconv: (\d+)/20 files", tree.stderr) == [str(n) for n in range(2, 21, 2)]
    assert b"hipconv: " not in tree.stdout and tree.stdout.count(b"warning[HC301") == 20
    named = run_cli("scan", *sorted(tmp_path.glob("*.cu")))
    assert named.code == 1 and not re.search(r"hipconv: \d+/\d+ files", named.stderr)
