"""The Python API (hipconv.translate_source, hipconv.translate_tree): what it returns, what it writes
(the same tree as `hipconv translate src -o dst`), the errors it raises, and that `import hipconv` stays
cheap. The example of docs/api.md is run as written."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hipconv
from helpers import hipcc_syntax, hipcc_syntax_missing, run_cli, tree
from hipconv.errors import ConfigError, HipconvError, SourceError
from hipconv.results import FileStatus

REPO = Path(__file__).resolve().parents[1]

REDUCE = """\
#include <cuda_runtime.h>

__global__ void reduce(const float* in, float* out, int n) {
  __shared__ float part[256];
  part[threadIdx.x] = threadIdx.x < n ? in[threadIdx.x] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = part[0];
}

float sum(const float* host, int n, cudaStream_t stream, cudaGraph_t graph, cudaGraphExec_t* exec) {
  float *in, *out, result;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  cudaMemcpyAsync(in, host, n * sizeof(float), cudaMemcpyHostToDevice, stream);
  reduce<<<1, 256, 0, stream>>>(in, out, n);
  cudaGraphInstantiateWithParams(exec, graph, nullptr);
  cudaMemcpy(&result, out, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(out);
  return result;
}
"""
GRAPH_LINE = 20  # cudaGraphInstantiateWithParams: HIP has it from ROCm 6.2 on


def test_translate_source_returns_hip_text_diagnostics_and_replacements() -> None:
    result = hipconv.translate_source(REDUCE, path="reduce.cu", rocm_version="5.2")
    assert isinstance(result, hipconv.SourceTranslation)
    assert result.changed and result.path == "reduce.cu"
    text = result.text
    assert text.startswith("#include <hip/hip_runtime.h>\n\n__global__ void reduce(")
    assert "hipMalloc(&in, n * sizeof(float));" in text and "hipStream_t stream, hipGraph_t graph" in text
    assert "hipMemcpyAsync(in, host, n * sizeof(float), hipMemcpyHostToDevice, stream);" in text
    assert "reduce<<<1, 256, 0, stream>>>(in, out, n);" in text  # chevron launches are valid HIP
    assert "  cudaGraphInstantiateWithParams(exec, graph, nullptr);" in text  # not in ROCm 5.2: left
    assert result.data == text.encode()
    (unported,) = result.unported
    assert (unported.line, unported.col, unported.code) == (GRAPH_LINE, 3, "HC003")
    assert unported.format().startswith(
        f"reduce.cu:{GRAPH_LINE}:3: error[HC003 cudart.cudaGraphInstantiateWithParams]: "
    )
    assert ("cudaFree", "hipFree") in {(r.cuda, r.hip) for r in result.replacements}
    assert all(r.line != GRAPH_LINE for r in result.replacements)


def test_translate_source_options() -> None:
    newer = hipconv.translate_source(REDUCE, path="reduce.cu", rocm_version="6.3")
    assert "  hipGraphInstantiateWithParams(exec, graph, nullptr);" in newer.text and newer.unported == ()
    launch = hipconv.translate_source(REDUCE.encode(), path="reduce.cu", kernel_launch="hip").text
    assert "hipLaunchKernelGGL(reduce, dim3(1), dim3(256), 0, stream, in, out, n);" in launch


SHIMMED = """\
#include <cuda_runtime.h>

__global__ void smallest(const unsigned* in, unsigned* out, unsigned cap) {
  out[threadIdx.x] = umin(__ldcs(in + threadIdx.x), cap);
}
"""


def test_translate_source_returns_the_compat_header(tmp_path: Path) -> None:
    """A source that uses shims comes with the hipconv_compat.h it includes, the one `hipconv translate`
    writes beside its output; the two files compile together against ROCm 6.3 (where hipcc-syntax runs)."""
    result = hipconv.translate_source(SHIMMED, path="smallest.cu", rocm_version="6.3")
    assert '#include "hipconv_compat.h"' in result.text and "hipconv_umin(hipconv_ldcs(" in result.text
    assert result.compat_header is not None
    (tmp_path / "smallest.cu").write_text(SHIMMED)
    assert (
        run_cli(
            "translate", tmp_path / "smallest.cu", "-o", tmp_path / "hip" / "smallest.cu", "--rocm-version", "6.3"
        ).code
        == 0
    )
    assert result.compat_header == (tmp_path / "hip" / "hipconv_compat.h").read_bytes()
    assert result.data == (tmp_path / "hip" / "smallest.cu").read_bytes()
    assert hipconv.translate_source(REDUCE, path="reduce.cu").compat_header is None  # no shim, no header
    assert hipconv.translate_source(SHIMMED, path="smallest.cu", compat=False).compat_header is None
    if hipcc_syntax_missing() is None:
        checked = hipcc_syntax(tmp_path / "hip" / "smallest.cu")
        assert checked.returncode == 0, checked.stderr


def test_translate_source_reports_unported_apis() -> None:
    result = hipconv.translate_source(b"void f() { cudaDeviceFlushGPUDirectRDMAWrites(a, b); }\n", path="f.cpp")
    assert [(d.code, d.symbol) for d in result.unported] == [("HC002", "cudaDeviceFlushGPUDirectRDMAWrites")]
    assert not result.changed


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(b"int main() { return 0; }\n", id="plain-cpp"),
        pytest.param(b"\xef\xbb\xbf// cudaMalloc in a comment\r\nint x;\r\n", id="bom-crlf-comment"),
    ],
)
def test_translate_source_noop(source: bytes) -> None:
    result = hipconv.translate_source(source, path="x.cpp")
    assert not result.changed and result.data == source and result.replacements == ()


def test_translate_source_keeps_bom_and_line_endings() -> None:
    source = b"\xef\xbb\xbfvoid f(float** p) {\r\n  cudaMalloc(p, 4);\r\n}\r\n"
    expected = b"\xef\xbb\xbfvoid f(float** p) {\r\n  hipMalloc(p, 4);\r\n}\r\n"
    assert hipconv.translate_source(source, path="f.cpp").data == expected


def test_translate_source_refuses_what_the_cli_refuses() -> None:
    mixed = "// \uf7ff\n".encode() + b"\xff\n"  # hipconv keeps a non-UTF-8 byte as U+F7xx: not both
    with pytest.raises(SourceError, match=r"^bad\.cu: not valid UTF-8 \(byte 0xff on line 2\), and it holds") as caught:
        hipconv.translate_source(mixed, path="bad.cu")
    assert isinstance(caught.value, HipconvError)
    with pytest.raises(SourceError, match="binary file"):
        hipconv.translate_source(b"a\0b", path="bin.cu")
    with pytest.raises(ConfigError, match="not a bundled release"):
        hipconv.translate_source(REDUCE, rocm_version="six")
    with pytest.raises(ConfigError, match="kernel launch style"):
        hipconv.translate_source(REDUCE, kernel_launch="triple")
    with pytest.raises(ConfigError, match="rule directory"):
        hipconv.translate_source(REDUCE, rules_dirs=["/no/such/rules"])


def _project(root: Path) -> Path:
    src = root / "csrc"
    (src / "kernels").mkdir(parents=True)
    (src / "kernels" / "reduce.cu").write_text(REDUCE)
    (src / "kernels" / "reduce.cuh").write_text("#pragma once\n#include <cuda_fp16.h>\n__half twice(__half x);\n")
    (src / "ops.cpp").write_text('#include "kernels/reduce.cuh"\nint ops() { return 0; }\n')
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(ops LANGUAGES CXX CUDA)\n"
        "set(CMAKE_CUDA_ARCHITECTURES 80)\nadd_library(ops ops.cpp kernels/reduce.cu)\n"
    )
    (src / "README.md").write_text("not translated, copied\n")
    return src


def test_translate_tree_writes_what_the_cli_writes(tmp_path: Path) -> None:
    src = _project(tmp_path)
    result = hipconv.translate_tree(src, tmp_path / "hip", rocm_version="5.2")
    assert isinstance(result, hipconv.TreeTranslation) and result.output == tmp_path / "hip"
    by_path = {Path(r.path).relative_to(src).as_posix(): r for r in result.files}
    assert sorted(by_path) == ["CMakeLists.txt", "README.md", "kernels/reduce.cu", "kernels/reduce.cuh", "ops.cpp"]
    assert by_path["README.md"].status is FileStatus.COPIED
    assert by_path["ops.cpp"].status is FileStatus.UNCHANGED
    assert result.counts == {"converted": 3, "copied": 1, "unchanged": 1}
    assert result.failed == () and [d.symbol for d in result.unported] == ["cudaGraphInstantiateWithParams"]
    assert [(d.line, d.code) for d in by_path["kernels/reduce.cu"].diagnostics] == [(GRAPH_LINE, "HC003")]
    assert all(r.output is None for r in result.files)  # the results do not hold the files' contents

    cli = run_cli("translate", src, "-o", tmp_path / "cli", "--rocm-version", "5.2")
    assert cli.code == 0, cli.stderr
    written = tree(tmp_path / "hip")
    assert written == tree(tmp_path / "cli")
    assert "project(ops LANGUAGES CXX HIP)" in written["CMakeLists.txt"].decode()
    assert "#include <hip/hip_fp16.h>" in written["kernels/reduce.cuh"].decode()

    again = hipconv.translate_tree(src, tmp_path / "hip", rocm_version="5.2", jobs=2, excludes=["README.md"])
    assert again.counts == {"converted": 3, "unchanged": 1}
    assert tree(tmp_path / "hip") == written


def test_translate_tree_reports_a_bad_file_and_translates_the_others(tmp_path: Path) -> None:
    src = _project(tmp_path)
    (src / "blob.cu").write_bytes(b"\x7fELF\x00cudaMalloc")
    (src / "latin1.cu").write_bytes(b"// caf\xe9\nvoid f(float** p) { cudaMalloc(p, 4); }\n")
    result = hipconv.translate_tree(src, tmp_path / "hip")
    assert [(Path(r.path).name, r.status) for r in result.failed] == [("blob.cu", FileStatus.FAILED)]
    assert "binary file" in result.failed[0].reason
    assert (tmp_path / "hip" / "blob.cu").read_bytes() == (src / "blob.cu").read_bytes()  # copied unchanged
    latin1 = (tmp_path / "hip" / "latin1.cu").read_bytes()  # translated, its Latin-1 byte kept
    assert latin1.startswith(b"// caf\xe9\n") and latin1.endswith(b"void f(float** p) { hipMalloc(p, 4); }\n")
    assert "hipMalloc" in (tmp_path / "hip" / "kernels" / "reduce.cu").read_text()


def test_translate_tree_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file or directory"):
        hipconv.translate_tree(tmp_path / "missing", tmp_path / "out")
    (tmp_path / "one.cu").write_text("int x;\n")
    with pytest.raises(ConfigError, match="not a directory"):
        hipconv.translate_tree(tmp_path / "one.cu", tmp_path / "out")
    assert not (tmp_path / "out").exists()
    src = _project(tmp_path)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("someone else's\n")
    with pytest.raises(ConfigError):
        hipconv.translate_tree(src, foreign)
    assert sorted(p.name for p in foreign.iterdir()) == ["mine.txt"]
    assert hipconv.translate_tree(src, foreign, force=True).counts["converted"] == 3
    with pytest.raises(ConfigError):
        hipconv.translate_tree(src, src / "hip")  # output inside the input tree


def test_import_hipconv_loads_neither_libclang_nor_the_api() -> None:
    code = (
        "import sys, hipconv\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('clang', 'hipconv.', 'rich', 'jinja2')))\n"
        "print(loaded)\n"
        "hipconv.translate_source\n"
        "print('hipconv.api' in sys.modules, 'clang.cindex' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["['hipconv.version']", "True False"]  # the version is a leaf
    assert hipconv.__version__ and "translate_tree" in hipconv.__all__
    with pytest.raises(AttributeError, match="no attribute 'translate_everything'"):
        hipconv.translate_everything  # noqa: B018


def test_docs_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first code block of docs/api.md runs, prints what it says and writes the compat header."""
    block = re.search(r"```python\n(.*?)```", (REPO / "docs" / "api.md").read_text(encoding="utf-8"), re.S)
    assert block is not None
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block.group(1), "docs/api.md", "exec"), {})
    printed = out.getvalue()
    assert "void record(float* x, hipStream_t stream, hipGraph_t graph, hipGraphExec_t* exec)" in printed
    assert re.search(r"^scale\.cu:7:3: error\[HC003 cudart\.cudaGraphInstantiateWithParams\]", printed, re.M)
    assert "hipconv_ldcs(&x[threadIdx.x])" in printed
    assert b"hipconv_ldcs" in (tmp_path / "hipconv_compat.h").read_bytes()


@pytest.mark.parametrize("function", [hipconv.translate_source, hipconv.translate_tree], ids=lambda f: f.__name__)
def test_docs_signatures_are_the_apis(function: object) -> None:
    """docs/api.md writes each function's signature as Python prints it: every parameter, its default, in order."""
    page = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    name = getattr(function, "__name__", "")
    written = re.search(rf"`{name}\((.*?)\)`", page, re.S)
    assert written is not None, name
    parts: list[str] = []
    for p in inspect.signature(function).parameters.values():  # type: ignore[arg-type]
        if p.kind is p.KEYWORD_ONLY and "*" not in parts:
            parts.append("*")
        parts.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    assert " ".join(written.group(1).split()) == ", ".join(parts).replace("'", '"')


@pytest.mark.parametrize(
    ("value", "documented"),
    [
        pytest.param("SourceTranslation", "`SourceTranslation`:", id="source"),
        pytest.param("TreeTranslation", "`TreeTranslation`:", id="tree"),
    ],
)
def test_docs_name_every_field_of_the_results(value: str, documented: str) -> None:
    """Every field and property of the returned values is named in docs/api.md's paragraph about it."""
    page = " ".join((REPO / "docs" / "api.md").read_text(encoding="utf-8").split())
    paragraph = page.split(documented, 1)[1].split(". ", 1)[0]
    cls = getattr(hipconv.api, value)
    names = [f.name for f in dataclasses.fields(cls)] + [n for n, v in vars(cls).items() if isinstance(v, property)]
    assert [n for n in names if f"`{n}`" not in paragraph] == []
