"""translate --single-source (hipconv.single_source, single_source.fold) and scan's drift report.

The golden trees are tests/fixtures/single_*/hip-*/ (tests/test_fixtures.py checks them and their idempotence);
here: the fold itself, reruns after the CUDA side changed, drift (HC034-HC036), and the same output files built
three ways (nvcc, Debian's hipcc, ROCm 6.3's hipcc-syntax), and run on HIP-CPU beside the `translate -o` twin.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import COMPILE_TIMEOUT_S, HIPCC_SYNTAX, SHARED, hipcc_syntax_missing, run_cli, tree
from hipconv.single_source.fold import HIP_TEST, blocks, digest, fold, unwrap

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = sorted(p for case in FIXTURES.glob("single_*") if (case / "case.yaml").exists() for p in case.glob("hip-*"))
NVCC = Path(os.environ.get("CUDA_PATH", "/usr/local/cuda")) / "bin" / "nvcc"
HIP_CPU = SHARED / "hip-cpu"
INCLUDE = 'hipconv_portability.h"'


def folded(cuda: str, hip: str) -> str:
    return fold(cuda, hip, header_include="hipconv_portability.h").text


@pytest.mark.parametrize(
    ("cuda", "hip", "expected"),
    [
        pytest.param(
            "void f(float **p) { cudaMalloc(p, 4); }\n",
            "void f(float **p) { hipMalloc(p, 4); }\n",
            "void f(float **p) { cudaMalloc(p, 4); }\n",
            id="rename-stays-cuda",
        ),
        pytest.param(
            "#include <cuda_runtime.h>\nvoid f(float **p) { cudaMalloc(p, 4); }\n",
            "#include <hip/hip_runtime.h>\nvoid f(float **p) { hipMalloc(p, 4); }\n",
            f"#if {HIP_TEST} // hipconv single-source {digest(['#include <cuda_runtime.h>'])}\n"
            '#include "hipconv_portability.h"\n#include <hip/hip_runtime.h>\n#else // hipconv single-source\n'
            "#include <cuda_runtime.h>\n"
            f"#endif // hipconv single-source {digest(['#include <cuda_runtime.h>'])}\n"
            "void f(float **p) { cudaMalloc(p, 4); }\n",
            id="include-beside-rename",
        ),
        pytest.param(
            "  v += __shfl_down_sync(0xffffffffu, v, 1);\n",
            "  v += __shfl_down(v, 1);\n",
            f"#if {HIP_TEST} // hipconv single-source {digest(['  v += __shfl_down_sync(0xffffffffu, v, 1);'])}\n"
            "  v += __shfl_down(v, 1);\n#else // hipconv single-source\n"
            "  v += __shfl_down_sync(0xffffffffu, v, 1);\n"
            f"#endif // hipconv single-source {digest(['  v += __shfl_down_sync(0xffffffffu, v, 1);'])}\n",
            id="reshaped-call-guarded",
        ),
        pytest.param(
            "#ifdef __CUDA_ARCH__\n",
            "#ifdef __HIP_DEVICE_COMPILE__\n",
            f"#if ({HIP_TEST}) ? (defined(__HIP_DEVICE_COMPILE__)) : (defined(__CUDA_ARCH__)) "
            f"// hipconv single-source {digest(['#ifdef __CUDA_ARCH__'])}\n",
            id="conditional-chooses-its-test",
        ),
    ],
)
def test_fold(cuda: str, hip: str, expected: str) -> None:
    assert folded(cuda, hip) == expected
    assert unwrap(expected) == cuda  # a rerun starts from the CUDA text
    assert folded(unwrap(expected), hip) == expected  # and writes the same bytes


def test_fold_keeps_a_macro_whole() -> None:
    """A change on a continuation line guards the whole #define: an #if cannot stand inside a macro."""
    cuda = "#define SUM(v) \\\n    __shfl_xor_sync(0xffffffffu, v, 1)\nint x;\n"
    hip = "#define SUM(v) \\\n    __shfl_xor(v, 1)\nint x;\n"
    text = folded(cuda, hip)
    lines = text.splitlines()
    assert lines[0].startswith(f"#if {HIP_TEST}") and lines[1:3] == hip.splitlines()[:2]
    assert lines[4:6] == cuda.splitlines()[:2] and lines[6].startswith("#endif") and lines[7] == "int x;"
    assert unwrap(text) == cuda


def test_fold_a_name_renamed_two_ways_is_no_define() -> None:
    """One CUDA name written as two HIP names: neither can be a #define; the lines become edits."""
    result = fold("a(cudaX);\nb(cudaX);\n", "a(hipX);\nb(hipY);\n", header_include="h.h")
    assert result.renames == frozenset()
    assert result.text.count("#else // hipconv single-source") == 1  # the two touching lines, one edit


def test_fold_noop_keeps_bytes_and_line_endings() -> None:
    text = "// plain C++\r\nint main() { return 0; }\r\n"
    assert folded(text, text) == text
    crlf = folded("x(cudaMalloc);\r\n#include <cuda.h>\r\n", "x(hipMalloc);\r\n#include <hip/hip_runtime.h>\r\n")
    assert "\n" not in crlf.replace("\r\n", "")


def test_blocks_drift_when_the_cuda_side_changes() -> None:
    text = folded("  v += __shfl_down_sync(0xffffffffu, v, 1);\n", "  v += __shfl_down(v, 1);\n")
    assert [b.drifted for b in blocks(text.splitlines(keepends=True))] == [False]
    edited = text.replace("v, 1);\n#endif", "v, 2);\n#endif")
    assert [b.drifted for b in blocks(edited.splitlines(keepends=True))] == [True]


def _translate(src: Path, out: Path, *args: str) -> None:
    done = run_cli("translate", src, "-o", out, "--single-source", "--no-cache", "--force", *args)
    assert done.code == 0, done.stderr


def _scan(path: Path, rocm: str) -> tuple[int, str]:
    done = run_cli("scan", "--single-source", path, "--rocm-version", rocm, "--color", "never")
    return done.code, done.stdout.decode()


def test_scan_finds_no_drift_in_the_golden_trees() -> None:
    for golden in GOLDEN:
        code, out = _scan(golden, golden.name.removeprefix("hip-"))
        assert (code, out) == (0, ""), golden


def test_rerun_after_the_cuda_side_changed(tmp_path: Path) -> None:
    """The CUDA side edited in a guarded edit (HC035), a CUDA call added that the header lacks (HC034) and an
    include not guarded (HC036): scan reports each; a rerun of translate --single-source on the tree
    regenerates the header and the edits, after which scan is clean and a second rerun changes nothing."""
    work = tmp_path / "tree"
    shutil.copytree(FIXTURES / "single_reduce" / "hip-6.3", work)
    unit = work / "reduce.cu"
    text = unit.read_text()
    text = text.replace(
        "#else // hipconv single-source\nconstexpr unsigned FULL_MASK = 0xffffffffu;",
        "#else // hipconv single-source\nconstexpr unsigned FULL_MASK = 0xFFFFFFFFu;",
    )
    text = text.replace(
        "    CHECK(cudaStreamSynchronize(stream));\n",
        "    CHECK(cudaStreamSynchronize(stream));\n    CHECK(cudaDeviceSynchronize());\n",
    )
    unit.write_text(text)
    (work / "extra.cu").write_text("#include <cuda_runtime.h>\nvoid wait() { cudaDeviceSynchronize(); }\n")
    code, out = _scan(work, "6.3")
    assert code == 1
    assert "reduce.cu:12:1: warning[HC035]" in out
    assert "warning[HC034]: cudaDeviceSynchronize reads hipDeviceSynchronize under hipcc" in out
    assert "extra.cu:1:1: warning[HC036]" in out
    again = tmp_path / "again"
    _translate(work, again, "--rocm-version", "6.3")
    assert "#define cudaDeviceSynchronize hipDeviceSynchronize" in (again / "hipconv_portability.h").read_text()
    regenerated = (again / "reduce.cu").read_text()
    assert "= 0xFFFFFFFFu;" in regenerated and digest(["constexpr unsigned FULL_MASK = 0xFFFFFFFFu;"]) in regenerated
    assert _scan(again, "6.3") == (0, "")
    twice = tmp_path / "twice"
    _translate(again, twice, "--rocm-version", "6.3")
    assert tree(twice) == tree(again)


def _units(golden: Path) -> list[Path]:
    return sorted(p for p in golden.iterdir() if p.suffix in (".cu", ".cpp"))


def _compile(cmd: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False
    )
    assert done.returncode == 0, f"{' '.join(map(str, cmd))}\n{done.stderr[-4000:]}"


@pytest.mark.parametrize("golden", GOLDEN, ids=[f"{p.parent.name}/{p.name}" for p in GOLDEN])
def test_builds_as_cuda_with_nvcc(golden: Path, tmp_path: Path) -> None:
    """nvcc (and the host compiler, for host-only .cpp files) builds the output tree as CUDA, as before."""
    if not NVCC.exists():
        pytest.skip(f"{NVCC} not found: no CUDA toolkit on this machine")
    cuda_include = NVCC.parents[1] / "include"
    for unit in _units(golden):
        if "cublas" in unit.read_text() and not (cuda_include / "cublas_v2.h").exists():
            print(f"{unit.name}: skipped, this CUDA toolkit has no cuBLAS headers")
            continue
        if unit.suffix == ".cpp":
            _compile(["g++", "-std=c++17", f"-I{cuda_include}", "-c", unit, "-o", tmp_path / "host.o"], golden)
        else:
            _compile([NVCC, "-x", "cu", "-c", unit, "-o", tmp_path / "unit.o"], golden)


@pytest.mark.parametrize("golden", [g for g in GOLDEN if g.name == "hip-6.3"], ids=lambda p: p.parent.name)
def test_builds_as_hip_with_rocm63_syntax(golden: Path) -> None:
    """ROCm 6.3's headers (hipcc-syntax, as hipcc picks the language: .cu and .cpp as HIP), no extra flags."""
    missing = hipcc_syntax_missing()
    if missing:
        pytest.skip(missing)
    for unit in _units(golden):
        _compile([HIPCC_SYNTAX, unit], golden)


@pytest.mark.hipcc
@pytest.mark.parametrize("golden", [g for g in GOLDEN if g.name == "hip-5.2"], ids=lambda p: p.parent.name)
def test_builds_as_hip_with_debian_hipcc(golden: Path, tmp_path: Path, hip_env: dict[str, str]) -> None:
    """Debian's hipcc (HIP 5.2) builds the same .cu files, with no -x hip."""
    for unit in _units(golden):
        _compile(["hipcc", "--offload-arch=gfx90a", "-c", unit, "-o", tmp_path / "unit.o"], golden, hip_env)


@pytest.mark.hipcc
def test_a_file_without_blas_builds_where_hipblas_is_missing(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """The header serves the whole tree and includes no library: each file includes its own HIP headers under
    its guard, so the host file that uses no hipBLAS builds with Debian's hipcc, which has no hipBLAS."""
    golden = FIXTURES / "single_blas" / "hip-6.3"
    assert "hipblas.h" not in (golden / "hipconv_portability.h").read_text()
    assert "#include <hipblas/hipblas.h>" in (golden / "gemm.cu").read_text()
    _compile(["hipcc", "--offload-arch=gfx90a", "-c", golden / "main.cpp", "-o", tmp_path / "main.o"], golden, hip_env)


DOCS = Path(__file__).resolve().parents[1] / "docs" / "single-source.md"


@pytest.mark.hipcc
def test_the_docs_first_commands_run(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """docs/single-source.md's first block, with cuda/ the single_reduce fixture: translate, nvcc, hipcc."""
    page = DOCS.read_text()
    block = page[page.index("```sh\n") + 6 :]
    lines = [line.split("#")[0].split() for line in block[: block.index("```")].splitlines()]
    shutil.copytree(FIXTURES / "single_reduce" / "cuda", tmp_path / "cuda")
    for words in lines:
        if words[0] == "hipconv":
            done = run_cli(*[tmp_path / w if w.endswith("/") else w for w in words[1:]], "--no-cache")
            assert done.code == 0, done.stderr
        elif words[0] == "nvcc" and not NVCC.exists():
            print(f"{' '.join(words)}: skipped, {NVCC} not found")
        else:
            _compile([NVCC if words[0] == "nvcc" else words[0], *words[1:]], tmp_path, hip_env)
    assert (tmp_path / "reduce-hip.o").stat().st_size > 0


def test_runs_on_hip_cpu_as_its_translate_twin(tmp_path: Path) -> None:
    """The single-source tree and the `translate -o` tree of single_reduce, each built and run on HIP-CPU
    (the same files that nvcc builds, for the first): equal output (hipconv compare)."""
    if not (HIP_CPU / "include" / "hip" / "hip_runtime.h").exists():
        pytest.skip(f"{HIP_CPU} not found (../shared is on the project's machines and in CI only)")
    outputs = []
    for name, extra in (("single", ["--single-source"]), ("twin", [])):
        out = tmp_path / name
        args = ["build", FIXTURES / "single_reduce" / "cuda", "-o", out, "--backend", "hip-cpu"]
        done = run_cli(*args, "--hip-cpu", HIP_CPU, "--run", "-j", "1", *extra)
        assert done.code == 0, done.stderr
        outputs.append(out / ".hipconv-cpu" / "bin" / "reduce.out")
    assert outputs[0].read_text() == "sum = 196603.0\n"
    compared = run_cli("compare", *outputs)
    assert compared.code == 0, compared.stdout


# --- the portability header is hipconv's -------------------------------------------------------------------

OWN_HEADER = "// our own portability layer, by hand\n#pragma once\n#define gpuMalloc cudaMalloc\n"


@pytest.mark.parametrize(
    ("where", "args"),
    [
        pytest.param("out", ("-o", "{out}", "--force"), id="in-the-output"),  # --force: write into a tree of files
        pytest.param("src", ("-o", "{out}"), id="in-the-input-root"),
        pytest.param("src", ("--in-place",), id="in-place"),
    ],
)
def test_a_users_portability_header_is_never_replaced(where: str, args: tuple[str, ...], tmp_path: Path) -> None:
    """A hipconv_portability.h that hipconv did not write, where the run would write its own: the run stops before
    anything is written (exit code 2), saying which file and what to do; the user's header and the tree are as
    they were."""
    src, out = tmp_path / "src", tmp_path / "out"
    shutil.copytree(FIXTURES / "single_reduce" / "cuda", src)
    (tmp_path / where).mkdir(exist_ok=True)
    own = tmp_path / where / "hipconv_portability.h"
    own.write_text(OWN_HEADER)
    before = {p: tree(p) for p in (src, out) if p.exists()}
    done = run_cli("translate", src, *(a.format(out=out) for a in args), "--single-source", "--no-cache")
    err = done.stderr
    assert done.code == 2, err
    assert f"error: {own} was not written by hipconv, and the hipconv_portability.h of --single-source" in err
    assert "nothing was written" in err and "rename it" in err
    assert own.read_text() == OWN_HEADER
    assert {p: tree(p) for p in (src, out) if p.exists()} == before


def test_hipconvs_own_portability_header_is_rewritten_noop(tmp_path: Path) -> None:
    """The header a run wrote (its first line says so) is hipconv's: a rerun in place rewrites it, here to the same
    bytes, and exits 0."""
    work = tmp_path / "tree"
    shutil.copytree(FIXTURES / "single_reduce" / "hip-6.3", work)
    before = tree(work)
    done = run_cli("translate", work, "--in-place", "--single-source", "--rocm-version", "6.3", "--no-cache")
    assert done.code == 0, done.stderr
    assert tree(work) == before


# --- scan reads the release the header was written for -----------------------------------------------------


def _scan_as_given(*args: str | Path) -> tuple[int, str, str]:
    done = run_cli("scan", "--single-source", *args, "--color", "never")
    return done.code, done.stdout.decode(), done.stderr


@pytest.mark.parametrize("release", ["5.2", "6.3"])
def test_scan_takes_the_release_of_the_header_and_says_so(release: str) -> None:
    """No --rocm-version: the tree is checked for the release its header records (line 2), not the newest one,
    and scan says which it used; a file named alone (as pre-commit names them) finds the header above it."""
    golden = FIXTURES / "single_reduce" / f"hip-{release}"
    code, out, err = _scan_as_given(golden)
    assert (code, out) == (0, ""), out
    assert f"hipconv scan: checking for ROCm {release}, which {golden / 'hipconv_portability.h'} was written for" in err
    code, out, err = _scan_as_given(golden / "reduce.cu")
    assert (code, out) == (0, "") and f"checking for ROCm {release}" in err


def test_scan_takes_a_range_from_the_header(tmp_path: Path) -> None:
    out = tmp_path / "portable"
    _translate(FIXTURES / "single_reduce" / "cuda", out, "--rocm-version", "5.2..7.2")
    assert (out / "hipconv_portability.h").read_text().splitlines()[1].startswith("// for ROCm 5.2..7.2: do not edit")
    code, found, err = _scan_as_given(out)
    assert (code, found) == (0, "") and "checking for ROCm 5.2..7.2, which" in err


@pytest.mark.parametrize(
    ("release", "header_says"),
    [pytest.param("6.3", "5.2", id="other-release"), pytest.param("5.2..7.2", "5.2", id="range")],
)
def test_scan_for_another_release_than_the_header_is_refused(release: str, header_says: str) -> None:
    """--rocm-version that differs from the header's: exit 2, naming the header, both releases and the two ways
    out, rather than a report of every name the releases spell differently."""
    golden = FIXTURES / "single_reduce" / f"hip-{header_says}"
    code, out, err = _scan_as_given(golden, "--rocm-version", release)
    assert (code, out) == (2, "")
    assert (
        f"error: {golden / 'hipconv_portability.h'} was written for ROCm {header_says}, and this scan checks for "
        f"ROCm {release}: it would report the differences between the releases, not drift"
    ) in err
    assert "hint: scan without --rocm-version" in err and f"--single-source --rocm-version {release}`" in err


def test_scan_of_trees_for_different_releases_needs_the_release() -> None:
    trees = [FIXTURES / "single_reduce" / "hip-5.2", FIXTURES / "single_reduce" / "hip-6.3"]
    code, out, err = _scan_as_given(*trees)
    assert (code, out) == (2, "")
    assert "error: the trees' hipconv_portability.h files were written for different releases (" in err
    assert (
        f"{trees[0] / 'hipconv_portability.h'} for ROCm 5.2; {trees[1] / 'hipconv_portability.h'} for ROCm 6.3" in err
    )


# --- scan covers the build files the split wrote -----------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "name", "before", "after", "hip"),
    [
        pytest.param(
            "single_build_make",
            "Makefile",
            "LDLIBS += -lcublas\n",
            "LDLIBS += -lcublas -lcurand\n",
            "LDLIBS += -lhipblas -lhiprand\n",
            id="make",
        ),
        pytest.param(
            "single_build_cmake",
            "CMakeLists.txt",
            "  project(vecdemo LANGUAGES CXX CUDA)\n",
            "  project(vecdemo VERSION 1.1 LANGUAGES CXX CUDA)\n",
            "  project(vecdemo VERSION 1.1 LANGUAGES CXX HIP)\n",
            id="cmake",
        ),
    ],
)
def test_a_build_files_cuda_side_edited_since_is_drift(
    case: str, name: str, before: str, after: str, hip: str, tmp_path: Path
) -> None:
    """The CUDA side of a GPU_BACKEND branch edited after the split: scan reports HC035 at the branch (and
    nothing before the edit); a rerun writes the branch again from the edited side, after which scan is clean and
    a second rerun changes nothing."""
    tree_ = tmp_path / "portable"
    _translate(FIXTURES / case / "cuda", tree_, "--rocm-version", "6.3")
    assert _scan(tree_, "6.3") == (0, "")
    build = tree_ / name
    text = build.read_text()
    assert text.count(before) == 1
    build.write_text(text.replace(before, after))
    code, out = _scan(tree_, "6.3")
    opening = text[: text.index(before)].rsplit("single-source ", 1)
    line = opening[0].count("\n") + 1
    assert code == 1
    assert f"{name}:{line}:1: warning[HC035]: the CUDA side of this GPU_BACKEND branch (lines {line}-" in out
    assert f"(digest {opening[1][:12]}); rerun `hipconv translate --single-source` to regenerate it" in out
    again = tmp_path / "again"
    _translate(tree_, again, "--rocm-version", "6.3")
    regenerated = (again / name).read_text()
    assert hip in regenerated and after in regenerated and opening[1][:12] not in regenerated
    assert _scan(again, "6.3") == (0, "")
    twice = tmp_path / "twice"
    _translate(again, twice, "--rocm-version", "6.3")
    assert tree(twice) == tree(again)
