"""`hipconv translate --annotate`: a `// hipconv: HCnnn ...` marker above each line that still holds
unported CUDA. The golden output of a whole program is the `annotate` fixture (tests/test_fixtures.py,
which also translates it twice); these tests pin the placement rules, idempotence through the CLI, and
that the markers travel through every output mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli, tree
from hipconv.diagnostics import Diagnostic
from hipconv.translate.annotate import marker_text

FIXTURE = Path(__file__).parent / "fixtures" / "annotate" / "cuda"
FLUSH = "cudaDeviceFlushGPUDirectRDMAWrites has no HIP equivalent; left unchanged"
FLUSH_MARKER = f"// hipconv: HC002 {FLUSH}"
SYNCWARP_MARKER = "// hipconv: HC002 __syncwarp has no HIP equivalent; left unchanged ("  # a note follows
UNPORTED = (
    "#include <cuda_runtime.h>\n"
    "void flush(float** p) {\n"
    "  cudaMalloc(p, 4);\n"
    "  cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,\n"
    "                                     cudaFlushGPUDirectRDMAWritesToOwner);\n"
    "}\n"
)


def annotate(tmp_path: Path, source: str | bytes, *args: str, name: str = "k.cu") -> str:
    """The --annotate translation of source, from stdout."""
    f = tmp_path / name
    f.write_bytes(source.encode() if isinstance(source, str) else source)
    result = run_cli("translate", f, "--annotate", "--no-compat", *args)  # __syncwarp: unported, not shimmed
    assert result.code == 0, result.stderr
    return result.stdout.decode()


def marker_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("// hipconv: HC")]


def line_after(text: str, marker_prefix: str) -> str:
    """The line that directly follows the one marker starting with marker_prefix."""
    lines = text.splitlines()
    hits = [n for n, line in enumerate(lines) if line.strip().startswith(marker_prefix)]
    assert len(hits) == 1, text
    return lines[hits[0] + 1]


def test_each_line_gets_one_marker_with_its_findings_in_column_order(tmp_path: Path) -> None:
    out = annotate(tmp_path, UNPORTED)
    lines = out.splitlines()
    assert lines[3] == (
        f"  {FLUSH_MARKER}; HC002 cudaFlushGPUDirectRDMAWritesTargetCurrentDevice has no HIP equivalent; left unchanged"
    )  # same indentation as the line below it
    assert lines[4].startswith("  cudaDeviceFlushGPUDirectRDMAWrites(")
    assert lines[5].strip() == (
        "// hipconv: HC002 cudaFlushGPUDirectRDMAWritesToOwner has no HIP equivalent; left unchanged"
    )
    assert lines[6].strip() == "cudaFlushGPUDirectRDMAWritesToOwner);"
    assert "hipMalloc(p, 4);" in lines[2] and len(marker_lines(out)) == 2


def test_same_finding_twice_on_a_line_is_named_once(tmp_path: Path) -> None:
    out = annotate(tmp_path, "__device__ void f() { __syncwarp(); __syncwarp(); }\n")
    (marker,) = marker_lines(out)
    assert marker.startswith(SYNCWARP_MARKER) and marker.count("HC002") == 1


def test_the_target_release_shapes_the_markers(tmp_path: Path) -> None:
    source = "#include <cuda_runtime.h>\nvoid f() { cudaDeviceSetLimit(cudaLimitStackSize, 4096); }\n"
    old = annotate(tmp_path, source, "--rocm-version", "5.2")
    (marker,) = marker_lines(old)
    assert marker.startswith("// hipconv: HC003 hipDeviceSetLimit is not in ROCm 5.2; first in 5.7")
    assert "; HC003 hipLimitStackSize is not in ROCm 5.2" in marker
    assert marker_lines(annotate(tmp_path, source, "--rocm-version", "6.3")) == []


def test_macro_continuation_lines_get_their_marker_above_the_define(tmp_path: Path) -> None:
    define = (
        "#define FLUSH()                                  \\\n"
        "  do {                                           \\\n"
        "    cudaDeviceFlushGPUDirectRDMAWrites(          \\\n"
        "        cudaFlushGPUDirectRDMAWritesToOwner);    \\\n"
        "  } while (0)\n"
    )
    out = annotate(tmp_path, "#include <cuda_runtime.h>\n" + define + "void f() { FLUSH(); }\n")
    assert out == (
        "#include <hip/hip_runtime.h>\n"
        f"{FLUSH_MARKER}; HC002 cudaFlushGPUDirectRDMAWritesToOwner has no HIP equivalent; left unchanged\n"
        + define
        + "void f() { FLUSH(); }\n"
    )


def test_line_splice_outside_a_directive(tmp_path: Path) -> None:
    source = "void f() {\n  int x = 1 + \\\n  2; __syncwarp();\n}\n"
    out = annotate(tmp_path, source, name="k.cpp")
    assert line_after(out, "// hipconv: HC002 __syncwarp") == "  int x = 1 + \\"


def test_no_marker_inside_a_raw_string_a_string_or_a_block_comment(tmp_path: Path) -> None:
    raw = (
        'const char* src = R"(\n  __syncwarp(); cudaDeviceFlushGPUDirectRDMAWrites();\n)"; void g() { __syncwarp(); }\n'
    )
    spliced = 'const char* s = "one \\\ntwo"; void h() { __syncwarp(); }\n'
    comment = "/* cudaDeviceFlushGPUDirectRDMAWrites\n   is not portable */ void k() { __syncwarp(); }\n"
    out = annotate(tmp_path, raw + spliced + comment, name="k.cpp")
    lines = out.splitlines()
    starts = [n for n, line in enumerate(lines) if line.startswith("// hipconv: HC")]
    assert [lines[n + 1] for n in starts] == [
        'const char* src = R"(',
        'const char* s = "one \\',
        "/* cudaDeviceFlushGPUDirectRDMAWrites",
    ]
    assert all(lines[n].startswith(SYNCWARP_MARKER) for n in starts)
    assert "".join(line + "\n" for n, line in enumerate(lines) if n not in starts) == raw + spliced + comment


def test_crlf_file_keeps_crlf_on_the_marker(tmp_path: Path) -> None:
    source = UNPORTED.replace("\n", "\r\n").encode()
    f = tmp_path / "k.cu"
    f.write_bytes(source)
    out = run_cli("translate", f, "--annotate").stdout
    assert b"\r\n  " + FLUSH_MARKER.encode() in out
    assert out.count(b"\n") == out.count(b"\r\n") == source.count(b"\n") + 2


def test_mixed_line_endings_the_marker_takes_its_lines(tmp_path: Path) -> None:
    source = b"void a() {}\r\n__device__ void f() {\n  __syncwarp();\n}\r\n"
    out = annotate(tmp_path, source, name="k.cpp").encode()
    assert b"{\n  // hipconv: HC002 __syncwarp" in out and b"scheduling)\n  __syncwarp();\n}\r\n" in out


def test_marker_on_the_first_line_goes_after_the_bom(tmp_path: Path) -> None:
    # a header: no implicit runtime include comes first (a .cu or .cpp file holding device code gets one)
    out = annotate(tmp_path, b"\xef\xbb\xbf__device__ void f() { __syncwarp(); }\n", name="k.cuh").encode()
    assert out.startswith(b"\xef\xbb\xbf" + SYNCWARP_MARKER.encode())
    assert out.endswith(b")\n__device__ void f() { __syncwarp(); }\n")


def test_first_line_of_code_after_a_comment_with_the_implicit_include(tmp_path: Path) -> None:
    """The implicit runtime include splits the first line; the marker goes above the code, not the comment."""
    source = "/* k */ __global__ void k() { __syncwarp(); }\n"
    out = annotate(tmp_path, source)
    assert out.splitlines()[:2] == ["/* k */ ", "#include <hip/hip_runtime.h>"]
    assert line_after(out, SYNCWARP_MARKER) == "__global__ void k() { __syncwarp(); }"
    assert annotate(tmp_path, out, name="again.cu") == out


def test_second_run_changes_nothing(tmp_path: Path) -> None:
    """Through the CLI on the output tree: -o gives the same bytes, --in-place writes nothing."""
    once, twice = tmp_path / "once", tmp_path / "twice"
    assert run_cli("translate", FIXTURE, "-o", once, "--annotate", "--rocm-version", "5.2").code == 0
    assert marker_lines((once / "rdma_pipeline.cu").read_text())
    assert run_cli("translate", once, "-o", twice, "--annotate", "--rocm-version", "5.2").code == 0
    assert tree(twice) == tree(once)
    result = run_cli("translate", once, "--in-place", "--annotate", "--rocm-version", "5.2")
    assert result.code == 0 and tree(once) == tree(twice)  # nothing rewritten, so no backup either


def test_markers_reach_the_worker_processes(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for n in range(3):
        (src / f"k{n}.cu").write_text(UNPORTED)
    assert run_cli("translate", src, "-o", tmp_path / "hip", "--annotate", "-j", "2").code == 0
    for n in range(3):
        assert FLUSH_MARKER in (tmp_path / "hip" / f"k{n}.cu").read_text()


def test_fixed_lines_lose_their_markers(tmp_path: Path) -> None:
    annotated = annotate(tmp_path, UNPORTED)
    fixed = annotated.replace("cudaFlushGPUDirectRDMAWritesToOwner);", "0);")
    f = tmp_path / "fixed.cu"
    f.write_text(fixed)
    assert run_cli("translate", f).stdout.decode() == fixed  # without --annotate, markers are comments
    again = run_cli("translate", f, "--annotate").stdout.decode()
    assert marker_lines(again) == [marker_lines(annotated)[0]]
    kept = [line for line in fixed.splitlines(keepends=True) if "ToOwner has no HIP equivalent" not in line]
    assert again == "".join(kept)


def test_stale_marker_in_a_file_with_nothing_left_to_port(tmp_path: Path) -> None:
    source = "// hipconv: HC002 cudaFoo has no HIP equivalent; left unchanged\nint x;\n"
    assert annotate(tmp_path, source, name="k.cpp") == "int x;\n"


def test_a_stale_marker_is_replaced_not_duplicated(tmp_path: Path) -> None:
    source = "  // hipconv: HC002 something else\n  __device__ void f() { __syncwarp(); }\n"
    out = annotate(tmp_path, source, name="k.cpp")
    assert len(marker_lines(out)) == 1
    assert line_after(out, SYNCWARP_MARKER) == "  __device__ void f() { __syncwarp(); }"


def test_marker_lines_in_a_macro_are_not_taken_for_markers(tmp_path: Path) -> None:
    """A marker-like comment continued from a #define line is part of the macro: it stays."""
    source = "#define X 1 \\\n// hipconv: HC002 not a marker\nint y;\n"
    assert annotate(tmp_path, source, name="k.cpp") == source


def test_nothing_unported_nothing_added(tmp_path: Path) -> None:
    clean = "#include <cuda_runtime.h>\nvoid f(float** p) { cudaMalloc(p, 4); }\n"
    f = tmp_path / "clean.cu"
    f.write_text(clean)
    assert run_cli("translate", f, "--annotate").stdout == run_cli("translate", f).stdout
    plain = "int add(int a, int b) { return a + b; }\n"
    assert annotate(tmp_path, plain, name="plain.cpp") == plain


def test_in_place_keeps_the_backup(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(UNPORTED)
    result = run_cli("translate", f, "--in-place", "--annotate")
    assert result.code == 0, result.stderr
    assert (tmp_path / "k.cu.orig").read_text() == UNPORTED
    assert FLUSH_MARKER in f.read_text()


def test_diff_shows_the_markers_and_writes_nothing(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(UNPORTED)
    result = run_cli("translate", f, "-o", tmp_path / "out.cu", "--diff", "--annotate")
    assert result.code == 0
    assert f"+  {FLUSH_MARKER}; HC002" in result.stdout.decode()
    assert not (tmp_path / "out.cu").exists() and f.read_text() == UNPORTED


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(UNPORTED)
    result = run_cli("translate", f, "--in-place", "--dry-run", "--annotate")
    assert result.code == 0 and f.read_text() == UNPORTED and not (tmp_path / "k.cu.orig").exists()


def test_diagnostics_keep_the_source_lines(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(UNPORTED)
    report = tmp_path / "r.json"
    assert run_cli("translate", f, "--annotate", "--report", report).code == 0
    lines = [d["line"] for d in json.loads(report.read_text())["files"][0]["diagnostics"]]
    assert lines == [4, 4, 5]
    assert (
        f"k.cu:4:3: error[HC002 cudart.cudaDeviceFlushGPUDirectRDMAWrites]: {FLUSH}"
        in run_cli("translate", f, "--annotate").stderr
    )


def test_scan_still_reports_what_the_markers_name(tmp_path: Path) -> None:
    """A marker is not a `// hipconv: ignore[...]` suppression."""
    plain, annotated = tmp_path / "plain.cu", tmp_path / "annotated.cu"
    plain.write_bytes(run_cli("translate", FIXTURE / "rdma_pipeline.cu").stdout)
    annotated.write_bytes(run_cli("translate", FIXTURE / "rdma_pipeline.cu", "--annotate").stdout)

    def codes(path: Path) -> list[str]:
        data = json.loads(run_cli("scan", "--format", "json", path).stdout)
        assert data["summary"]["suppressed"] == 0
        return sorted(f["code"] for f in data["findings"])

    assert codes(annotated) == codes(plain) and "HC002" in codes(annotated)


def test_rule_note_over_several_lines_stays_on_the_marker_line(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "mine.yaml").write_text(
        "defaults: {library: mine, kind: function}\nrules:\n"
        '  - cuda: cudaMyThing\n    status: unsupported\n    note: "first line\\nsecond line"\n'
    )
    out = annotate(tmp_path, "void g() { cudaMyThing(); }\n", "--rules-dir", str(rules), name="k.cpp")
    assert out.splitlines()[0] == (
        "// hipconv: HC002 cudaMyThing has no HIP equivalent; left unchanged (first line second line)"
    )


@pytest.mark.parametrize("ending", ["\\", "\\  ", "text \\\t"])
def test_marker_never_ends_with_a_line_splice(ending: str) -> None:
    d = Diagnostic("k.cu", 1, 1, "HC002", f"cudaX has no HIP equivalent; {ending}")
    assert not marker_text([d]).rstrip().endswith("\\")
