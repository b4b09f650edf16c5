"""Fuzzing the translator with CUDA-like files (issue #14).

Files are built from small hand-written CUDA fragments (kernels, launches, runtime, cuBLAS and cuDNN
calls, warp builtins, includes, macros) and random tokens, then roughened: comments between any two
tokens, preprocessor lines between tokens, line splices between and inside tokens and in place of line
breaks (`}\\` then the next line's code), random bytes (some not UTF-8), a BOM, and LF, CRLF or mixed line
endings (so a splice is `\\` + LF or `\\` + CRLF). The fragments include every construct whose rewrite
inserts directive lines or rewrites one in place (GUARDED_FRAGMENTS): hipconv's own guard blocks (`#if 0` /
`#if !(...)` ... `#endif`: HC012 operators, redefinitions, HC013/HC016 case labels), the runtime include and
hipconv_compat.h's include, a project's HIP switch and version tests (`#if 1 /* hipconv: ... */`:
__CUDA_ARCH__, CUDART_VERSION, an `#elif defined(__HIPCC__)` chain); test_fuzz_spliced_guards draws files
around one of them with one to three of the line breaks before, inside and right after it made splices.
FOUND holds what the lanes found, fixed (none is open: the last, a project switch seen only on a second
pass, is in FOUND too, and the checks excuse nothing).
Each file is translated for one target
(`--rocm-version` 5.2 or 6.3, `--kernel-launch` chevron or hip, a .cu, .cpp or .cuh name), and:

  1. no crash: translation never raises and never reports an internal error; a binary file (a NUL
     byte) is refused with DecodeFailure, one that is not UTF-8 is translated with its bytes kept,
     and through the CLI the exit code is 0, 1 or 2 with no traceback (2 exactly for the refused files);
  2. idempotence: translating the output again changes nothing;
  3. the output lexes to the same comments and preprocessor directives, in the same order, but for
     hipconv's guard blocks; each guard line is a physical line of its own (no splice joins it to the line
     before or after it, so no inserted directive takes in the next line), and each opening has its #endif;
  4. every byte outside the edits (located from FileResult.replacements) is unchanged; a guard line may
     come between any two bytes;
  5. comments are invisible: a file with comments inserted between its tokens gets the same
     diagnostics, and the same output tokens, as the file without them. (Not one of the four the issue
     names, but none of them sees a comment that changes what a rule decides, such as a false HC202.)

`check()` and `comments_are_invisible()` return a list of problems (empty when every property holds),
so the same checks serve the tests and an ad-hoc bucketing of failures.

Both lanes are derandomized: CI, which gates what lands, sees the same examples on every run. Set
HIPCONV_FUZZ_RANDOM=1 to have the `slow` lane draw fresh ones, and add what it finds to FOUND below.
"""

from __future__ import annotations

import bisect
import collections
import dataclasses
import functools
import os
import re
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from helpers import ruleset, run_cli
from hipconv.results import FileResult, FileStatus
from hipconv.rules.model import LookupTable, Rule, RuleKind, Scope
from hipconv.settings import Settings, Version
from hipconv.translate.compat import COMPAT_HEADER
from hipconv.translate.facts.hip_switches import hip_tests, may_be_switch, project_switches
from hipconv.translate.launches import LAUNCH_RULE_ID
from hipconv.translate.lexer import TokenKind, Tokens, lex
from hipconv.translate.project import NO_PROJECT, Project
from hipconv.translate.source import UTF8_BOM, DecodeFailure, SourceFile
from hipconv.translate.syntax import prev_code
from hipconv.translate.translator import translate_sources
from hipconv.translate.version_tests import MACROS as VERSION_MACROS

# Example counts. The property tests run once per targeted ROCm release (ROCM_RELEASES), so xdist can spread
# them over the cores. Normal lane: 2 x 80 + 2 x 50 + 2 x 30 + 3 = 323 examples; slow lane: 2 x 250 + 2 x 150
# + 2 x 80 + 8 = 968 (an example takes about 30 ms on an idle core, two translations and three lexings, and
# several times that on the two shared cores CI and the helpers use: the counts keep the slow lane near two
# minutes there). A CLI example is a tree of up to CLI_TREE_FILES files, translated by one CLI run.
ROCM_RELEASES = ("5.2", "6.3")
FAST_PROPERTIES = 80  # properties 1-4 on roughened files, per release
FAST_INVISIBLE_COMMENTS = 30  # property 5, per release
FAST_SPLICED_GUARDS = 50  # properties 1-4 on files around a GUARDED_FRAGMENTS construct, spliced, per release
FAST_CLI = 3  # property 1 through hipconv.cli.main, in-process (each run loads the rules: ~1 s)
SLOW_PROPERTIES = 250
SLOW_INVISIBLE_COMMENTS = 80
SLOW_SPLICED_GUARDS = 150
SLOW_CLI = 8
CLI_TREE_FILES = 6

# ---------------------------------------------------------------- fragments

FRAGMENTS = [
    # includes and macros
    "#include <cuda_runtime.h>",
    '#include "cuda_fp16.h"',
    "#include <cublas_v2.h>",
    "#include <cudnn.h>",
    "#include <cub/cub.cuh>",
    "#include <stdio.h>",
    "#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) abort(); } while (0)",
    "#define FULL_MASK 0xffffffff",
    "#define LAUNCH(k, n) k<<<((n) + 255) / 256, 256>>>(n)",
    "#ifdef __CUDA_ARCH__\n#define ON_DEVICE 1\n#else\n#define ON_DEVICE 0\n#endif",
    "#if CUDART_VERSION >= 11000\ntypedef cudaStream_t stream_t;\n#endif",
    "// Copyright the fuzz authors.\n// A header comment block.",
    "/* kernels for the reduction */",
    # kernels
    "__global__ void saxpy(int n, float a, const float* x, float* y) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = a * x[i] + y[i];\n}",
    "__global__ void reduce(float* out, const float* in) {\n  float v = in[threadIdx.x];\n"
    "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
    "  if (threadIdx.x == 0) out[blockIdx.x] = v;\n}",
    "__device__ float warp_sum(float v) {\n  v += __shfl_xor_sync(0xffffffff, v, 16);\n"
    "  v += __shfl_xor_sync(FULL_MASK, v, 8, 32);\n  return v;\n}",
    "unsigned vote = __ballot_sync(__activemask(), x > 0);",
    "if (__any_sync(0x0000ffff, p)) { __syncthreads(); }",
    "int lane = __shfl_sync(mask, value, 0);",
    "__shared__ float tile[32][33];",
    "template <typename T, int N>\n__global__ void fill(T* p, T v) { p[threadIdx.x] = v; }",
    "__syncwarp();",
    # launches
    "saxpy<<<grid, block>>>(n, 2.0f, d_x, d_y);",
    "reduce<<<blocks, 256, 0, stream>>>(d_out, d_in);",
    "fill<float, 4><<<dim3(8, 8), dim3(16, 16), shmem, s>>>(p, 1.0f);",
    "ops::scale<<<g, b, 0, cudaStreamPerThread>>>(cudaMallocHost, f(a, b));",
    "k<<<g, b, 0, s>>>(args);",
    "v = __shfl_xor_sync(0xffffffff, k<<<1, 1>>>(x), 16);",
    # runtime and driver
    "cudaMalloc(&d_x, n * sizeof(float));",
    "cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice);",
    "cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream);",
    "cudaStream_t stream;\ncudaStreamCreate(&stream);",
    'cudaError_t err = cudaGetLastError();\nif (err != cudaSuccess) printf("%s\\n", cudaGetErrorString(err));',
    "CHECK(cudaDeviceSynchronize());",
    "cudaFree(d_x);",
    "cudaEvent_t start;\ncudaEventCreate(&start);\ncudaEventRecord(start, stream);",
    "CUdeviceptr dp;\ncuMemAlloc(&dp, bytes);",
    "__half h = __float2half(1.0f);",
    # C++ libraries
    "cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n);",
    "thrust::device_vector<float> v(n);\nthrust::sort(thrust::cuda::par.on(stream), v.begin(), v.end());",
    # cuBLAS
    "cublasHandle_t handle;\ncublasCreate(&handle);",
    "cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, d_A, lda, d_B, ldb, &beta, d_C, ldc);",
    "cublasSaxpy(handle, n, &alpha, d_x, 1, d_y, 1);",
    "cublasDestroy(handle);",
    # cuDNN
    "cudnnHandle_t h;\ncudnnCreate(&h);",
    "cudnnTensorDescriptor_t d;\ncudnnCreateTensorDescriptor(&d);",
    "cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w);",
    "cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n, c, h, w);",
    "cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, r, s);",
    "cudnnAddTensor(h, &one, biasDesc, bias, &one, yDesc, y);",
    "cudnnStatus_t st = cudnnConvolutionForward(h, &alpha, xDesc, x, wDesc, w, convDesc, algo, ws, wsSize, "
    "&beta, yDesc, y);",
    "checkCUDNN(cudnnConvolutionBackwardData(h, &alpha, wDesc, w, dyDesc, dy, convDesc, algo, ws, wsSize, "
    "&beta, dxDesc, dx));",
    # reshaped calls with the wrong number of arguments
    "__shfl_xor_sync();",
    "__ballot_sync(m);",
    "cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW);",
]

# Rewrites that insert directive lines, or rewrite a directive line in place: code put under hipconv's own
# `#if 0` / `#if !(...)` ... `#endif` (GUARD_OPENING): an operator HIP declares (HC012, two on one line too), a
# redefinition once translated, a later case label of the same value (HC013 same code, HC016 other code); the
# runtime include (runtime_include: at the top, or above a header's first include) and hipconv_compat.h's
# include after it (a shim's name, a shimmed header); a project's own HIP switch (project_hip) and version
# tests (`#if 1 /* hipconv: ... */`: __CUDA_ARCH__, CUDART_VERSION, a chain whose `#elif` tests __HIPCC__).
# The fragment draws take them as they take FRAGMENTS, and cuda_files(guarded=True) puts one in every file,
# with line splices before, inside and right after it.
GUARDED_FRAGMENTS = [
    "inline __host__ __device__ int2 operator+(int2 a, int2 b) { return make_int2(a.x + b.x, a.y + b.y); }",
    "__device__ float4 operator*(float4 a, float s) { return make_float4(a.x * s, a.y * s, a.z * s, a.w * s); }",
    "__device__ int2 operator-(int2 a, int2 b) { return a; } __device__ int2 operator*(int2 a, int2 b) { return b; }",
    "static const char *name(cudaError_t e) { return cudaGetErrorName(e); }\n"
    "static const char *name(CUresult e) { const char *n; cuGetErrorName(e, &n); return n; }",
    "switch (algo) {\n#if USE_TC\n  case CUBLAS_GEMM_DEFAULT_TENSOR_OP:\n#endif\n"
    "  case CUBLAS_GEMM_DEFAULT: return 1;\n}",
    "switch (a) {\n#ifdef FAST\n  case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 2;\n#endif\n"
    "  case CUBLAS_GEMM_DEFAULT: return 1;\n}",
    '#include <stdio.h>\n#include "cuda_fp16.h"\n'
    "__global__ void k(float* p) { p[0] = __shfl_sync(0xffffffff, p[1], 0); }",
    "__global__ void ld(float4 *p) { float4 v = __ldcs(p); __syncwarp(); }",
    "#include <cooperative_groups/reduce.h>",
    "#ifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n#define cudaMalloc hipMalloc\n#else\n"
    "#include <cuda_runtime.h>\n#endif",
    "#if defined(MYLIB_USE_HIP) && !defined(NO_VOTE)\nunsigned v = __ballot(x);\n#elif CUDART_VERSION >= 9000\n"
    "unsigned v = __ballot_sync(0xffffffff, x);\n#endif",
    "#if __CUDA_ARCH__ >= 700 || CUDA_VERSION < 11000\n__syncwarp();\n#endif",
    "#if __CUDA_ARCH__ >= 700\n__syncwarp();\n#elif defined(__HIPCC__)\n__syncthreads();\n#endif",
    "#if CUDART_VERSION >= 11000\ntypedef cudaStream_t stream_t;\n#else\ntypedef int stream_t;\n#endif",
]

# Random tokens; SAFE_TOKENS cannot open a comment or a literal next to an inserted comment.
SAFE_TOKENS = [
    "x",
    "k",
    "int",
    "return",
    "cudaMalloc",
    "cudaFree",
    "cudaStream_t",
    "__shfl_xor_sync",
    "__ballot_sync",
    "cublasSgemm",
    "cudnnSetTensor4dDescriptor",
    "CUDNN_TENSOR_NCHW",
    "__global__",
    "threadIdx",
    "dim3",
    "template",
    "<<<",
    ">>>",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    "<",
    ">",
    "::",
    ".",
    "->",
    "=",
    "&",
    "*",
    "#",
    "0",
    "16",
    "0xffffffff",
    "1.0f",
]
ROUGH_TOKENS = SAFE_TOKENS + ["/", "\\", "//", "/*", "*/", '"', "'", '"cudaFree"', "'c'", "#include", "cuda_runtime.h"]
DIRECTIVE_LINES = ["#if X\n", "#endif\n", "#else\n", "#define M 1\n", "#ifdef __CUDA_ARCH__\n", "#undef M\n"]
COMMENT_WORDS = ["c", "cudaMalloc", "__shfl_xor_sync(0xffffffff, v, 16)", "k<<<g, b>>>(x)", "#if X", "note"]

_FRAGMENT_TOKEN = re.compile(
    r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|(?<=include[ ])<[^>\n]*>
    |<<<|>>>|::|->|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|\+=|-=|[A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.])*|\S""",
    re.X | re.S,
)


def split_tokens(text: str) -> tuple[tuple[str, str], ...]:
    """(whitespace before, token) pairs of a fragment; an include's header name is one token."""
    out, pos = [], 0
    for m in _FRAGMENT_TOKEN.finditer(text):
        out.append((text[pos : m.start()], m.group()))
        pos = m.end()
    return tuple(out)


FRAGMENT_TOKENS = [split_tokens(f) for f in FRAGMENTS]
GUARDED_TOKENS = [split_tokens(f) for f in GUARDED_FRAGMENTS]


@dataclass(frozen=True)
class Setup:
    rocm: str
    launch: str
    path: str

    def cli_args(self) -> list[str]:
        extra = ["--kernel-launch", self.launch] if self.launch != "chevron" else []
        return ["--rocm-version", self.rocm, *extra]


@dataclass(frozen=True)
class FuzzFile:
    data: bytes  # with everything inserted
    plain: bytes  # the same file with each inserted comment replaced by a blank or a newline


def setups(rocm: str | None = None) -> st.SearchStrategy[Setup]:
    """A target: the given ROCm release (any bundled one when None), a launch style, a file name."""
    releases = st.just(rocm) if rocm else st.sampled_from(ROCM_RELEASES)
    return st.builds(Setup, releases, st.sampled_from(["chevron", "hip"]), st.sampled_from(["t.cu", "t.cpp", "t.cuh"]))


def _comment(kind: str, n: int, word: str) -> tuple[str, str]:
    """(inserted text, what stands for it in the plain file). A line splice counts as a comment here: it
    is as invisible, and inserted between two tokens it never joins them (they are lexed apart without it)."""
    if kind == "block":
        return f"/* {word} {n} */", " "
    if kind == "line":
        return f"// {word} {n}\n", "\n"
    if kind == "splice":
        return "\\\n", ""
    return " \\\n ", " "


comments = st.tuples(
    st.sampled_from(["block", "block", "line", "splice", "spaced-splice"]), st.sampled_from(COMMENT_WORDS)
)
rough_inserts = st.one_of(
    st.sampled_from(DIRECTIVE_LINES).map(lambda line: "\n" + line),
    st.sampled_from(ROUGH_TOKENS).map(lambda t: f" {t} "),
    st.binary(min_size=1, max_size=3),
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=2),
)


@st.composite
def cuda_files(draw: st.DrawFn, *, rough: bool, guarded: bool = False) -> FuzzFile:
    """A file of fragments (FRAGMENTS and GUARDED_FRAGMENTS) and token runs, roughened. `guarded`: one of
    GUARDED_FRAGMENTS among them, with one to three of the line breaks before it, inside it and right after
    it made splices (and a rough file's splices inside tokens put in it)."""
    vocab = ROUGH_TOKENS if rough else SAFE_TOKENS
    runs = st.lists(st.sampled_from(vocab), min_size=1, max_size=8).map(lambda ts: tuple((" ", t) for t in ts))
    fragments = st.one_of(st.sampled_from(FRAGMENT_TOKENS), st.sampled_from(GUARDED_TOKENS), runs)
    items = draw(st.lists(fragments, min_size=0 if guarded else 1, max_size=4 if guarded else 5))
    at = draw(st.integers(0, len(items))) if guarded else -1
    if guarded:
        items.insert(at, draw(st.sampled_from(GUARDED_TOKENS)))
    tokens: list[tuple[str, str]] = []
    construct = (0, 0)  # the guarded construct's first token, and the token after it (after its line break)
    for n_item, item in enumerate(items):
        ws, tok = item[0]
        first = len(tokens)
        tokens += [("\n" + ws if tokens and "\n" not in ws else ws, tok), *item[1:]]
        construct = (first, len(tokens)) if n_item == at else construct
    n = len(tokens)
    near = range(construct[0], min(construct[1] + 1, n)) if guarded else range(n)
    inserted: dict[int, list[tuple[str | bytes, str | bytes]]] = collections.defaultdict(list)
    for k, (gap, (kind, word)) in enumerate(draw(st.lists(st.tuples(st.integers(0, n), comments), max_size=10))):
        inserted[gap].append(_comment(kind, k, word))
    if rough:
        for gap, text in draw(st.lists(st.tuples(st.integers(0, n), rough_inserts), max_size=5)):
            inserted[gap].append((text, text))
        for i, cut in draw(st.lists(st.tuples(st.sampled_from(near), st.integers(1, 40)), max_size=2)):
            ws, tok = tokens[i]
            if len(tok) > 1:
                cut = cut % (len(tok) - 1) + 1
                tokens[i] = (ws, tok[:cut] + "\\\n" + tok[cut:])
    breaks = [i for i in near if "\n" in tokens[i][0]]
    spliced = st.lists(st.sampled_from(breaks), min_size=int(guarded), max_size=3) if breaks else st.just([])
    for i in draw(spliced):  # a line break becomes a splice: `}\` + code
        ws, tok = tokens[i]
        tokens[i] = (ws.replace("\n", "\\\n", 1), tok)
    endings = draw(st.sampled_from(["lf", "crlf", "mixed"]))
    crlf = [endings == "crlf"] if endings != "mixed" else draw(st.lists(st.booleans(), min_size=2, max_size=6))
    bom = draw(st.integers(0, 9)) == 0
    return FuzzFile(_render(tokens, inserted, 0, crlf, bom), _render(tokens, inserted, 1, crlf, bom))


def _render(
    tokens: Sequence[tuple[str, str]],
    inserted: dict[int, list[tuple[str | bytes, str | bytes]]],
    which: int,
    crlf: Sequence[bool],
    bom: bool,
) -> bytes:
    chunks: list[str | bytes] = []
    for gap in range(len(tokens) + 1):
        ws, tok = tokens[gap] if gap < len(tokens) else ("", "")
        chunks.append(ws)
        for pair in inserted.get(gap, ()):
            text = pair[which]
            before = chunks[-1] if chunks else ""
            if isinstance(text, str) and text.startswith("/") and before[-1:] in ("/", b"/"):
                text = " " + text  # `/` + `/* c */` would start a line comment
            chunks.append(text)
        chunks.append(tok)
    ending = _endings(crlf)
    out = [c if isinstance(c, bytes) else re.sub("\n", lambda _: next(ending), c).encode() for c in chunks]
    return (UTF8_BOM if bom else b"") + b"".join(out)


def _endings(crlf: Sequence[bool]) -> Iterator[str]:
    while True:
        for use in crlf:
            yield "\r\n" if use else "\n"


# ---------------------------------------------------------------- translation


@functools.cache
def _table(rocm: str, launch: str) -> tuple[LookupTable, Settings]:
    s = Settings(Version.parse(rocm), kernel_launch=launch)
    return ruleset().table(s), s


def translate(data: bytes, setup: Setup, tokens: Tokens | None = None, project: Project = NO_PROJECT) -> FileResult:
    """The library's translation of one file; `tokens`: its body already lexed (saves a libclang call);
    `project`: what the other files of its run tell it."""
    table, s = _table(setup.rocm, setup.launch)
    lexed = {0: tokens} if tokens is not None else None
    return translate_sources([SourceFile.from_bytes(setup.path, data)], table, s, lexed=lexed, project=project)[0]


def decodable(data: bytes) -> bool:
    """hipconv translates it (a byte that is not UTF-8 is kept; a NUL byte makes it binary)."""
    try:
        SourceFile.from_bytes("f.cu", data)
    except DecodeFailure:
        return False
    return True


def lexed(data: bytes) -> Tokens:
    """The tokens hipconv sees in a file: its body, with a byte that is not UTF-8 escaped."""
    return lex(SourceFile.from_bytes("f.cu", data).body)


@functools.cache
def _rules() -> dict[str, Rule]:
    return {rule.id: rule for rule in ruleset().rules}


@functools.cache
def _lane_mask_builtins() -> frozenset[bytes]:
    return frozenset(rule.cuda.encode() for rule in ruleset().rules if rule.lane_mask)


@functools.cache
def _required_defines() -> tuple[str, ...]:
    return tuple(sorted({rule.requires_define for rule in ruleset().rules if rule.requires_define}))


@functools.cache
def _template_comment_prefixes() -> tuple[str, ...]:
    """The comments the cuDNN statement templates write (string literals starting `// ` in templates/)."""
    root = Path(__file__).resolve().parents[1] / "templates"
    found = {m.group(1) for f in root.rglob("*.j2") for m in re.finditer(r'"(// [^"]*)"', f.read_text())}
    return tuple(sorted(found))


# ---------------------------------------------------------------- the checks


def check(data: bytes, setup: Setup) -> list[str]:
    """Properties 1-4 for one file: the problems found (empty when all hold)."""
    bom = UTF8_BOM if data.startswith(UTF8_BOM) else b""
    try:
        before = lexed(data) if decodable(data) else None
        result = translate(data, setup, before)
    except DecodeFailure as exc:
        return [] if not decodable(data) else [f"1 no crash: decodable file refused: {exc}"]
    except Exception as exc:  # property 1: nothing may escape
        return [f"1 no crash: translate_sources raised {exc!r}"]
    if before is None:
        return ["1 no crash: undecodable file was translated"]
    if result.status is FileStatus.FAILED or "internal error" in result.reason:
        return [f"1 no crash: {result.status.value}: {result.reason}"]
    if result.output is None:
        return []  # unchanged: the other properties hold trivially
    out = result.output
    if not out.startswith(bom):
        return ["4 bytes: the BOM was lost"]
    after = lexed(out)
    problems = []
    try:
        again = translate(out, setup, after)
    except Exception as exc:
        return [f"2 idempotence: second pass raised {exc!r}"]
    if again.status is FileStatus.FAILED or (again.output is not None and again.output != out):
        problems.append(f"2 idempotence: second pass gives {again.output!r} ({again.reason})")
    table, _ = _table(setup.rocm, setup.launch)
    regions = edit_regions(before, result, table)
    problems += bytes_outside_edits(before, after.body, regions, table)
    paired = len(guard_directives(after)) == 2 * len(re.findall(rb"(?m)^#if (?:0|!)[^\r\n]*// hipconv: ", out))
    if paired or not _unbalanced(before):
        # (a guard around an `#if` without its `#endif`, in a file that cannot be preprocessed, pairs with
        # the input's directives: left to properties 1, 2 and 4)
        problems += same_comments(before, after, regions)
        problems += same_directives(before, after, regions, table)
        problems += guards_stand_alone(after)
    return problems


def _unbalanced(tokens: Tokens) -> bool:
    """The file's #if/#ifdef/#ifndef and #endif lines do not pair up."""
    depth = 0
    for d in directives(tokens):
        depth += (d.name in ("if", "ifdef", "ifndef")) - (d.name == "endif")
        if depth < 0:
            return True
    return depth != 0


# A region of the input that an edit rewrote: `alts` are the texts it may have become; None: any text
# (a reshaped call, a statement template, a launch or a version test's line). `kind` is "rename", "mask",
# "call", "statement", "launch" or "version".
@dataclass(frozen=True)
class Region:
    start: int
    end: int
    alts: tuple[bytes, ...] | None
    kind: str


def edit_regions(tokens: Tokens, result: FileResult, table: LookupTable) -> list[Region]:
    """The input regions the translation rewrote, from FileResult.replacements (a Replacement records the
    line, column, CUDA and HIP spellings and rule of a rename, a reshaped call or a launch), plus the
    edits it does not record: a widened 32-bit lane-mask literal, a runtime include line (which may move up),
    and the lines inserted at the top or above an include (handled by bytes_outside_edits)."""
    body = tokens.body
    starts = _line_starts(body)
    regions = []
    for r in result.replacements:
        offset = _body_offset(body, starts[r.line - 1], r.col)
        regions.append(_region(body, tokens, offset, r.cuda, r.hip, r.rule_id))
    regions += _mask_regions(tokens)
    regions += _runtime_lines(tokens, table)
    regions += _version_test_lines(tokens)
    if result.output is not None and b"/* case " in result.output:
        regions += _case_labels(tokens)
    if result.output is not None and b"// hipconv: as translated, a redefinition" in result.output:
        regions += _unrecorded_renames(tokens, table, {(g.start, g.end) for g in regions})
    return sorted(regions, key=lambda g: (g.start, -g.end))


_DROPPED_LABEL = re.compile(r"/\* case [^*]*: \*/")  # a case label HC013/HC016 made a comment


def _case_labels(tokens: Tokens) -> list[Region]:
    """`case X:` labels, which HC013/HC016 may turn into a comment (not recorded as a replacement)."""
    found = []
    for k in range(len(tokens)):
        if tokens.kinds[k] == TokenKind.KEYWORD and tokens.text(k) == "case":  # (`cas\\\ne` too)
            colon = next((j for j in range(k + 1, min(k + 12, len(tokens))) if tokens.raw(j) == b":"), None)
            if colon is not None:
                found.append(Region(tokens.starts[k], tokens.ends[colon], None, "label"))
    return found


def _unrecorded_renames(tokens: Tokens, table: LookupTable, known: set[tuple[int, int]]) -> list[Region]:
    """The names a redefinition put under `#if 0` (HC013) is still translated with, which FileResult does not
    record (the code is dropped): any name the table rewrites may be kept or renamed."""
    found = []
    for k in range(len(tokens)):
        res = table.identifiers.get(tokens.text(k)) if tokens.kinds[k] == TokenKind.IDENTIFIER else None
        if res is not None and res.rewrites and res.rule is not None and res.rule.hip:
            if (tokens.starts[k], tokens.ends[k]) not in known:
                alts = (tokens.raw(k), res.rule.hip.encode())
                found.append(Region(tokens.starts[k], tokens.ends[k], alts, "rename"))
    return found


def _version_test_lines(tokens: Tokens) -> list[Region]:
    """A line that names a CUDA version or architecture macro (version_macros rewrites its test, or the
    use of the value, with the original in a `/* hipconv: ... */` comment), or a name that may be a project's
    HIP switch (project_hip, the same way: the fragments' MYLIB_USE_HIP, or I1MYLIB_USE_HIP or aMYLIB_USE_HIP
    after a rough insert): its text, whole, may change."""
    body = tokens.body
    regions = []
    for k in range(len(tokens)):
        if tokens.kinds[k] == TokenKind.IDENTIFIER and (
            tokens.text(k) in VERSION_MACROS or may_be_switch(tokens.text(k))  # (any case: `aMYLIB_USE_HIP` too)
        ):
            start = body.rfind(b"\n", 0, tokens.starts[k]) + 1
            while start > 0 and body[: start - 1].removesuffix(b"\r").endswith(b"\\"):  # a spliced line
                start = body.rfind(b"\n", 0, start - 1) + 1
            end = body.find(b"\n", tokens.ends[k])
            while end > 0 and body[:end].removesuffix(b"\r").endswith(b"\\"):
                end = body.find(b"\n", end + 1)
            regions.append(Region(start, len(body) if end < 0 else end, None, "version"))
    return regions


COMPAT_LINE = f'#include "{COMPAT_HEADER}"'  # a file of the fuzzed setups sits at the tree's root
COMPAT_INCLUDE = re.escape(COMPAT_LINE.encode()) + rb"\r?\n"


_INCLUDE_TARGET = re.compile(r"""\s*(?:#|%:)\s*include\s*(<[^>\n]*>|"[^"\n]*")""")


def _include_target(d: Directive) -> str | None:
    """The header an include directive names first (`<x.h>` or `"x.h"`), read past comments and line splices;
    None where something else comes first (`#include # <x.h>` includes nothing hipconv rewrites)."""
    if d.name != "include":
        return None
    m = _INCLUDE_TARGET.match(re.sub(r"/\*.*?\*/", " ", re.sub(r"\\\r?\n", "", d.text), flags=re.S))
    return m.group(1) if m else None


def _is_compat_include(d: Directive) -> bool:
    """An include of hipconv_compat.h: inserted after the runtime include, or a shimmed header's, rewritten."""
    return _include_target(d) == f'"{COMPAT_HEADER}"'


def _is_shimmed_include(d: Directive) -> bool:
    """An include of a CUDA header that hipconv_compat.h stands for (no bundled release has one)."""
    shimmed = {r.cuda for r in _rules().values() if r.compat and r.kind is RuleKind.INCLUDE}
    return _include_target(d) in {f"<{p}>" for p in shimmed} | {f'"{p}"' for p in shimmed}


def _is_runtime_include(d: Directive, runtime: str | None) -> bool:
    paths = {"cuda_runtime.h", runtime or "cuda_runtime.h"}
    text = re.sub(r"\\\r?\n", "", d.text)  # `<cuda_\\<newline>runtime.h>` names it too
    return d.name == "include" and any(f"<{p}>" in text or f'"{p}"' in text for p in paths)


def _runtime_lines(tokens: Tokens, table: LookupTable) -> list[Region]:
    """A runtime include line, whole (to its line break): kept, its path (and what follows it on the line)
    rewritten, or removed when the runtime moves up (before the first HIP include; in a .cu file, before
    code or a project header)."""
    body = tokens.body
    regions = []
    for d in directives(tokens):
        if _is_runtime_include(d, table.runtime_header):
            nl = body.find(b"\n", d.end)
            while nl > 0 and body[:nl].rstrip(b"\r").endswith(b"\\"):  # a line splice continues the line
                nl = body.find(b"\n", nl + 1)
            start = body.rfind(b"\n", 0, d.start) + 1
            while start > 0 and body[: start - 1].removesuffix(b"\r").endswith(b"\\"):  # spliced to the line above
                start = body.rfind(b"\n", 0, start - 1) + 1
            regions.append(Region(start, len(body) if nl < 0 else nl + 1, None, "runtime"))
    return regions


_ESCAPED_BYTE = re.compile(b"\xef[\x9e\x9f][\x80-\xbf]")  # a byte that is not UTF-8, as hipconv's body holds it


def _body_offset(body: bytes, line_start: int, col: int) -> int:
    """The body offset of a column of the file as read: an escaped byte is one column, three bytes of body."""
    at = line_start
    for _ in range(col - 1):
        at += 3 if _ESCAPED_BYTE.match(body, at) else 1
    return at


def _line_starts(body: bytes) -> list[int]:
    return [0] + [m.end() for m in re.finditer(b"\n", body)]


def _region(body: bytes, tokens: Tokens, offset: int, cuda: str, hip: str, rule_id: str) -> Region:
    i = bisect.bisect_left(tokens.starts, offset)
    if rule_id == LAUNCH_RULE_ID:
        chevron = next((k for k in range(i, len(tokens)) if tokens.raw(k) == b"<<<"), i)
        close = _close_paren(tokens, next((k for k in range(chevron, len(tokens)) if tokens.raw(k) == b">>>"), i))
        return Region(offset, tokens.ends[close], None, "launch")
    rule = _rules().get(rule_id)
    if rule is not None and rule.params is not None and (rule.template or rule.args != rule.params):
        close = _close_paren(tokens, i)
        if rule.template and rule.scope is Scope.STATEMENT:
            begin, end = _statement(tokens, i, close)
            return Region(begin, end, None, "statement")
        return Region(offset, tokens.ends[close], None, "call")
    if rule is not None and rule.kind is RuleKind.INCLUDE:
        # a header path is rewritten whole, up to its closing delimiter, and written unspliced: line splices
        # inside it (`<cuda_\\<newline>runtime.h>`) or right before the delimiter go with it
        end = _spelled_end(body, offset, cuda)
        if rule.compat and hip == COMPAT_HEADER:
            # a header the target lacks: `<cuda/header.h>` becomes `"hipconv_compat.h"`, its delimiters with it
            return Region(offset - 1, end + 1, (f'"{hip}"'.encode(),), "rename")
        return Region(offset, end, (hip.encode(),), "rename")
    if body[offset : offset + len(cuda)] == cuda.encode():
        return Region(offset, offset + len(cuda), (hip.encode(),), "rename")
    # the name is spelled with line splices or comments inside (a::/*c*/b): take tokens until it is complete
    spelled, k, commented = "", i, False
    while spelled != cuda and k < len(tokens):
        commented |= tokens.kinds[k] == TokenKind.COMMENT
        spelled += tokens.text(k) if tokens.kinds[k] != TokenKind.COMMENT else ""
        k += 1
    # the comments inside it are kept around the HIP name: properties 3 and 5 check them and the code
    return Region(offset, tokens.ends[k - 1], None if commented else (hip.encode(),), "rename")


_SPLICE = re.compile(rb"\\\r?\n")


def _spelled_end(body: bytes, offset: int, text: str) -> int:
    """Where `text`, spelled in body from offset with line splices anywhere in it, ends (past the splices
    right after it)."""
    at = offset
    for char in (*text.encode(), None):
        while (m := _SPLICE.match(body, at)) is not None:
            at = m.end()
        at += char is not None
    return at


def _close_paren(tokens: Tokens, i: int) -> int:
    """The `)` closing the first `(` after token i."""
    depth = 0
    for k in range(i + 1, len(tokens)):
        t = tokens.raw(k) if tokens.kinds[k] == TokenKind.PUNCTUATION else b""
        depth += (t == b"(") - (t == b")")
        if t == b")" and depth == 0:
            return k
    return len(tokens) - 1


def _statement(tokens: Tokens, callee: int, close: int) -> tuple[int, int]:
    """A span that holds the statement around a call: from the end of the `;`, `{` or `}` before it to
    the `;` after it (never narrower than what the translator's statement templates replace)."""
    depth, k = 0, callee - 1
    while k >= 0:
        t = tokens.raw(k) if tokens.kinds[k] == TokenKind.PUNCTUATION else b""
        depth += (t in (b")", b"]")) - (t in (b"(", b"["))
        if t in (b";", b"{", b"}") and depth <= 0:
            break
        k -= 1
    begin = tokens.ends[k] if k >= 0 else 0
    depth = 0
    for k in range(close + 1, len(tokens)):
        t = tokens.raw(k) if tokens.kinds[k] == TokenKind.PUNCTUATION else b""
        depth += (t in (b"(", b"[")) - (t in (b")", b"]"))
        if t == b";" and depth <= 0:
            return begin, tokens.ends[k]
    return begin, len(tokens.body)


# C++'s integer suffixes: one `u` with one `l`, `ll`/`LL` or C++23's `z`, in either order (the tail of any other
# pp-number, `0xffffzz`, makes it no literal, left as written)
_INT = re.compile(rb"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)((?:[uU](?:ll|LL|[lLzZ])?|(?:ll|LL|[lLzZ])[uU]?)?)")


def _mask_regions(tokens: Tokens) -> list[Region]:
    """The first argument of a lane-mask builtin, or the value of a #define (a mask given by name), when
    it is one 32-bit integer literal: kept, or widened to 64 bits (0xffffffff -> 0xffffffffffffffffull,
    other literals get `ull`). Not recorded as a replacement, so it is located here."""
    found = []
    for k in range(len(tokens)):
        if tokens.kinds[k] != TokenKind.LITERAL:
            continue
        m = _INT.fullmatch(tokens.raw(k))
        if m is None or not (_is_mask_argument(tokens, k) or _defines_a_macro(tokens, k)):
            continue  # (`#define NAME 0xffffffff`: a lane mask widened where it is defined)
        digits, suffix = m.groups()
        value = int(digits, 16 if digits[:2].lower() == b"0x" else 8 if len(digits) > 1 else 10)
        if value <= 0xFFFFFFFF and b"ll" not in suffix.lower():
            wide = b"0xffffffffffffffffull" if value == 0xFFFFFFFF else digits + b"ull"
            found.append(Region(tokens.starts[k], tokens.ends[k], (tokens.raw(k), wide), "mask"))
    return found + _cast_mask_regions(tokens)


def _is_mask_argument(tokens: Tokens, k: int) -> bool:
    """Token k is the first argument of a lane-mask builtin."""
    paren = prev_code(tokens, k)
    callee = prev_code(tokens, paren)
    return callee >= 0 and tokens.raw(paren) == b"(" and tokens.text(callee).encode() in _lane_mask_builtins()


def _defines_a_macro(tokens: Tokens, k: int) -> bool:
    """Token k is the value of `#define NAME k`."""
    define = prev_code(tokens, prev_code(tokens, k))
    return define > 0 and tokens.text(define) == "define" and tokens.raw(prev_code(tokens, define)) in (b"#", b"%:")


def _cast_mask_regions(tokens: Tokens) -> list[Region]:
    """A lane mask given by a name defined as a 32-bit literal that has other uses: cast at the call."""
    found = []
    for k in range(len(tokens)):
        if tokens.kinds[k] == TokenKind.IDENTIFIER and _is_mask_argument(tokens, k):
            raw = tokens.raw(k)
            cast = b"static_cast<unsigned long long>(" + raw + b")"
            found.append(Region(tokens.starts[k], tokens.ends[k], (raw, cast), "mask"))
    return found


def _top_level(regions: Sequence[Region]) -> list[Region]:
    """The regions not inside another (what is inside a rewritten call is that call's business)."""
    top: list[Region] = []
    for g in regions:
        if top and g.start < top[-1].end:
            continue
        top.append(g)
    return top


def _insert_patterns(table: LookupTable, *, runtime_only: bool = False) -> list[re.Pattern[bytes]]:
    """What the translator may insert at the top: guarded #defines the rules require, then the runtime
    include, then the include of hipconv_compat.h; one pattern per shape, so that each possible length is
    tried. `runtime_only`: what it may insert above an include line of a header (the runtime include, and
    hipconv_compat.h's after it)."""
    names = b"|".join(re.escape(d.encode()) for d in _required_defines())
    guard = rb"#ifndef (?:%s)\r?\n#define (?:%s)\r?\n#endif\r?\n" % (names, names)
    header = rb"#include <%s>\r?\n" % re.escape((table.runtime_header or "").encode())
    if runtime_only:
        return [re.compile(header + COMPAT_INCLUDE * k) for k in (0, 1)]
    return [
        re.compile(rb"(?:\r?\n)?" + guard * n + header * h + COMPAT_INCLUDE * k)
        for n in range(len(_required_defines()) + 1)
        for h in (0, 1)
        for k in (0, 1)
        if n or h or k
    ]


def _include_lines(tokens: Tokens) -> set[int]:
    """Where the runtime include may go in a header: the start of an include directive's line, or before
    the blank lines that line splices join to it; after the block comment that line starts inside."""
    body, points = tokens.body, set()
    for d in directives(tokens):
        if d.name == "include":
            line = body.rfind(b"\n", 0, d.start) + 1
            run = re.search(rb"(?:^|\n)((?:[ \t]*\\\r?\n)+)$", body[:line])  # blank lines spliced onto it
            points |= {line} | ({run.start(1)} if run else set())
            k = bisect.bisect_right(tokens.starts, line) - 1
            if k >= 0 and tokens.kinds[k] == TokenKind.COMMENT and tokens.starts[k] < line < tokens.ends[k]:
                points.add(tokens.ends[k])
    return points


def _insert_points(tokens: Tokens) -> set[int]:
    """Where the top insertion may go: before the first code token, at the start of its line, or before
    the blank lines that line splices join to that line."""
    first = 0
    while first < len(tokens) and tokens.kinds[first] == TokenKind.COMMENT:
        first += 1
    if first == len(tokens):
        return {len(tokens.body)}
    pos = tokens.starts[first]
    line = tokens.body.rfind(b"\n", 0, pos) + 1
    run = re.search(rb"(?:^|\n)((?:[ \t]*\\\r?\n)+)$", tokens.body[:line])  # blank lines spliced onto it
    return {pos, line} | ({run.start(1)} if run else set())


def bytes_outside_edits(tokens: Tokens, after: bytes, regions: Sequence[Region], table: LookupTable) -> list[str]:
    """Property 4: `after` is `before` with each top-level region replaced (by one of its texts, or by
    anything for a reshaped call or launch) and at most the top insertion added; nothing else differs."""
    pieces: list[tuple[int, object]] = []  # (input offset, piece): bytes, alternatives, None (any) or patterns
    before = tokens.body
    insert, runtime = _insert_patterns(table), _insert_patterns(table, runtime_only=True)
    at = {p: runtime for p in _include_lines(tokens)} | {p: insert for p in _insert_points(tokens)}
    points = sorted(at.items(), key=lambda point: point[0])
    pos = 0
    for g in [*_top_level(regions), Region(len(before), len(before), (b"",), "end")]:
        while points and points[0][0] < pos:  # inside a rewritten region: nothing goes there
            points.pop(0)
        while points and pos <= points[0][0] <= g.start:
            p, patterns = points.pop(0)
            pieces += [(pos, before[pos:p]), (p, patterns)]
            pos = p
        pieces += [(pos, before[pos : g.start]), (g.start, g.alts)]
        pos = g.end
    guards = _guard_insertions(after)
    states = _closure({0}, guards)
    for offset, piece in pieces:
        states = _closure(_advance(after, states, piece, guards), guards)
        if not states:
            return [f"4 bytes: output does not keep the input around offset {offset}: expected {piece!r} at "
                    f"input {before[max(0, offset - 30) : offset + 30]!r}"]  # fmt: skip
    return [] if len(after) in states else ["4 bytes: output has extra bytes at its end"]


def _advance(out: bytes, states: set[int], piece: object, guards: dict[int, set[int]]) -> set[int]:
    if piece is None:  # any text: every position from the earliest
        return set(range(min(states), len(out) + 1))
    if isinstance(piece, bytes) and guards:  # a guard line may go between any two bytes
        for byte in piece:
            states = _closure({s + 1 for s in states if s < len(out) and out[s] == byte}, guards)
        return states
    if isinstance(piece, bytes):
        return {s + len(piece) for s in states if out.startswith(piece, s)}
    if isinstance(piece, tuple):
        return {s + len(alt) for s in states for alt in piece if out.startswith(alt, s)}
    assert isinstance(piece, list)  # the top insertion: absent, or one of these shapes
    return states | {m.end() for s in states for p in piece if (m := p.match(out, s)) is not None}


# The lines of hipconv's guards (translate.branches.guard, vector_ops._disable): `#if 0` or `#if !(condition)`
# with a `// hipconv: why` comment, on a line of its own (after a line break it inserts when the construct
# does not start a line), and `#endif` after the construct's last token, on a line of its own.
GUARD_OPENING = re.compile(r"#if (?:0|!.*?) +// hipconv: .*")
_GUARD_INSERTS = (
    re.compile(rb"(?:\r?\n)?#if (?:0|![^\r\n]*?) +// hipconv: [^\r\n]*\r?\n"),
    re.compile(rb"\r?\n#endif(?:\r?\n)?"),
)


def _guard_insertions(out: bytes) -> dict[int, set[int]]:
    """Where a guard line may have been inserted in the output: its start -> its possible ends (with or
    without the line breaks around it)."""
    spans: dict[int, set[int]] = collections.defaultdict(set)
    for m in re.finditer(rb"#if 0|#if !|#endif", out):
        for lead in (m.start(), m.start() - 1, m.start() - 2):
            if lead < 0 or (lead < m.start() and not out[lead : m.start()].lstrip(b"\r") == b"\n"):
                continue
            for pattern in _GUARD_INSERTS:
                for end in _match_ends(pattern, out, lead, m.start()):
                    spans[lead].add(end)
    return spans


def _match_ends(pattern: re.Pattern[bytes], out: bytes, lead: int, at: int) -> set[int]:
    """The ends of the pattern's matches at `lead` that start the directive at `at`, with and without
    the optional line break after it."""
    m = pattern.match(out, lead)
    if m is None or (lead < at) != bool(re.match(rb"\r?\n", out[lead:at])) or m.group().lstrip(b"\r\n")[:1] != b"#":
        return set()
    ends = {m.end()}
    tail = re.search(rb"\r?\n$", m.group())
    if tail is not None and not m.group().startswith(b"#if"):  # `#endif` needs no line break after it
        ends.add(m.end() - len(tail.group()))
    return ends


def _closure(states: set[int], guards: dict[int, set[int]]) -> set[int]:
    """The states, and those reached from them by skipping inserted guard lines."""
    todo, seen = list(states), set(states)
    while todo:
        for end in guards.get(todo.pop(), ()):
            if end not in seen:
                seen.add(end)
                todo.append(end)
    return seen


def guard_directives(tokens: Tokens) -> list[Directive]:
    """hipconv's guards in a file: each `#if ... // hipconv: ...` line and the `#endif` closing it."""
    found, stack = [], []
    for d in directives(tokens):
        if d.name in ("if", "ifdef", "ifndef"):
            stack.append(d if GUARD_OPENING.fullmatch(d.text) else None)
        elif d.name == "endif" and stack:
            opening = stack.pop()
            if opening is not None:
                found += [opening, d]
    return sorted(found, key=lambda d: d.start)


def guards_stand_alone(after: Tokens) -> list[str]:
    """No guard line takes in code: each one is a whole physical line (no splice joins it to the line before
    or after: an `#endif\\` would make the next line's declaration part of the directive), each opening has
    its `#endif`, and no guard's text is left out of a directive (spliced onto the line before)."""
    body, problems = after.body, []
    guards = guard_directives(after)
    for d in guards:
        line_start = body.rfind(b"\n", 0, d.start) + 1
        line_end = body.find(b"\n", d.start)
        line = body[line_start : len(body) if line_end < 0 else line_end].removesuffix(b"\r")
        if line.rstrip(b" \t") != d.text.encode() or line.endswith(b"\\"):
            problems.append(f"3 guards: {d.text!r} is not a line of its own: {line!r}")
    openings = [m for m in re.finditer(rb"^#if (?:0|!)[^\r\n]*// hipconv: ", body, re.M)]
    if len(openings) * 2 != len(guards):
        problems.append(f"3 guards: {len(openings)} guard lines, {len(guards)} guard directives: {guards}")
    return problems[:1]


@dataclass(frozen=True)
class Directive:
    start: int
    end: int
    name: str  # the directive's name (`include`, `if`, ...): the first token after the `#`
    name_at: int  # where the name starts
    text: str


def directives(tokens: Tokens) -> list[Directive]:
    """Preprocessor lines: a `#` preceded on its line by comments at most, to the end of its logical line."""
    found = []
    for i in range(len(tokens)):
        if (
            tokens.kinds[i] != TokenKind.PUNCTUATION
            or tokens.raw(i) not in (b"#", b"%:")
            or not _starts_line(tokens, i)
        ):
            continue
        last = i
        while last + 1 < len(tokens) and not _has_newline(tokens.body[tokens.ends[last] : tokens.starts[last + 1]]):
            last += 1
        name = next((k for k in range(i + 1, last + 1) if tokens.kinds[k] != TokenKind.COMMENT), None)
        text = tokens.body[tokens.starts[i] : tokens.ends[last]].decode()
        if name is None:
            found.append(Directive(tokens.starts[i], tokens.ends[last], "", tokens.ends[i], text))
        else:
            found.append(Directive(tokens.starts[i], tokens.ends[last], tokens.text(name), tokens.starts[name], text))
    return found


def _has_newline(gap: bytes) -> bool:
    """A newline that ends a line (not one continued by a line splice)."""
    return bool(re.search(rb"(?<!\\)(?<!\\\r)\n", gap))


def _starts_line(tokens: Tokens, i: int) -> bool:
    k = i - 1
    while k >= 0:
        if _has_newline(tokens.body[tokens.ends[k] : tokens.starts[k + 1]]):
            return True
        if tokens.kinds[k] != TokenKind.COMMENT:
            return False
        k -= 1
    return True


def same_comments(before: Tokens, after: Tokens, regions: Sequence[Region]) -> list[str]:
    """Property 3, comments: the output lexes to the input's comments in the input's order. Allowed, and
    nothing more: the comments a cuDNN statement template writes (`// hipconv: ...`), and, inside a call
    whose arguments a rule reorders or repeats (a reshape or template), its comments in any order, each at
    least once (a template may write an argument twice). A comment in a dropped argument is lost: a problem."""
    calls = _top_level([g for g in regions if g.kind in ("call", "statement")])
    groups: list[frozenset[str]] = []
    last_call = None
    for k in range(len(before)):
        if before.kinds[k] != TokenKind.COMMENT:
            continue
        text, start = before.raw(k).decode(), before.starts[k]
        call = next((g for g in calls if g.start <= start < g.end), None)
        if call is not None and call == last_call:
            groups[-1] |= {text}
        else:
            groups.append(frozenset({text}))
        last_call = call
    prefixes = (*_template_comment_prefixes(), "/* hipconv: ")  # the original of a rewritten version test
    openings = [(d.start, d.end) for d in guard_directives(after) if d.name == "if"]  # their `// hipconv: why`
    got = [
        after.raw(k).decode()
        for k in range(len(after))
        if after.kinds[k] == TokenKind.COMMENT and not any(s <= after.starts[k] < e for s, e in openings)
    ]
    written = {t for g in groups for t in g}
    got = [c for c in got if not c.startswith(prefixes) and (c in written or not _DROPPED_LABEL.fullmatch(c))]
    if _groups_match(tuple(groups), tuple(got)):
        return []
    want = [sorted(g) if len(g) > 1 else next(iter(g)) for g in groups]
    return [f"3 comments: input has {want}, output has {got}"]


def _groups_match(groups: tuple[frozenset[str], ...], got: tuple[str, ...]) -> bool:
    @functools.cache
    def match(i: int, j: int) -> bool:
        if i == len(groups):
            return j == len(got)
        seen: set[str] = set()
        for k in range(j, len(got)):
            if got[k] not in groups[i]:
                return False
            seen.add(got[k])
            if seen == groups[i] and match(i + 1, k + 1):
                return True
        return False

    return match(0, 0)


def same_directives(before: Tokens, after: Tokens, regions: Sequence[Region], table: LookupTable) -> list[str]:
    """Property 3, directives: the output's directive lines are the input's, in order, with the same names
    (unless the name itself is an API name an edit rewrote: `#cudaFree` is no directive); a directive no
    edit touched is unchanged. Allowed, and nothing more: rewrites inside a directive line
    (an include path, a name in a #define body or #if condition; checked byte for byte by property 4), and
    the lines inserted at the top (guarded #defines and the runtime include), which must end like the
    file's lines (see _newline_ok). A rewritten directive (a version or switch test) spans no more lines than
    the input's: it does not end in a splice that takes in the line after it."""
    guards = guard_directives(after)
    want, got = directives(before), [d for d in directives(after) if d not in guards]
    runtime = [d for d in got if _is_runtime_include(d, table.runtime_header)]
    if len(runtime) > 1 + sum(_is_runtime_include(d, table.runtime_header) for d in want):
        return [f"3 directives: more than one runtime include added: {[d.text for d in got]}"]
    compat = [d for d in got if _is_compat_include(d)]  # inserted after the runtime include, or a shimmed header's
    shimmed = [d for d in want if _is_compat_include(d) or _is_shimmed_include(d)]
    if len(compat) > 1 + len(shimmed):
        return [f"3 directives: more than one {COMPAT_HEADER} include added: {[d.text for d in got]}"]
    want, got = (
        [d for d in want if not _is_runtime_include(d, table.runtime_header) and d not in shimmed],
        [d for d in got if d not in runtime and d not in compat],
    )  # a runtime include may move before the first HIP include: the order of the others is checked
    extra = len(got) - len(want)
    inserted, rest = got[: max(extra, 0)], got[max(extra, 0) :]
    problems = []
    if extra < 0 or not _inserted_block([d.text for d in inserted], table):
        return [f"3 directives: input has {[d.text for d in want]}, output has {[d.text for d in got]}"]
    for w, g in zip(want, rest):
        touched = any(r.start < w.end and w.start < r.end for r in regions)
        renamed = any(r.start <= w.name_at < r.end for r in regions)  # `#cudaFoo`: not a directive name
        if (w.name != g.name and not renamed) or (not touched and w.text != g.text):
            problems.append(f"3 directives: {w.text!r} became {g.text!r}")
        elif g.text.count("\n") > w.text.count("\n"):  # a rewritten line ends in a splice: it takes in the next
            problems.append(f"3 directives: {w.text!r} became {g.text!r}, which takes in the line after it")
    for d in inserted:
        ending = after.body[d.end : d.end + 2]
        if not _newline_ok(before.body, ending[:1] == b"\r", inserted[0].start):
            problems.append(f"3 directives: inserted line {d.text!r} ends with {ending!r}")
    return problems[:1]


def _inserted_block(lines: Sequence[str], table: LookupTable) -> bool:
    """Guards `#ifndef D / #define D / #endif` for distinct required defines D, then the runtime include."""
    lines = list(lines)
    if lines and lines[-1] == f"#include <{table.runtime_header}>":
        lines.pop()
    triples = [lines[n : n + 3] for n in range(0, len(lines), 3)]
    names = [t[0].removeprefix("#ifndef ") for t in triples]
    return len(set(names)) == len(names) and all(
        d in _required_defines() and t == [f"#ifndef {d}", f"#define {d}", "#endif"] for d, t in zip(names, triples)
    )


def _newline_ok(body: bytes, crlf: bool, at: int) -> bool:
    """The newline of an inserted line: the file's when all its lines end alike (LF when it has none); in a
    mixed file, that of most lines or of a line next to the insertion."""
    n_crlf = body.count(b"\r\n")
    n_lf = body.count(b"\n") - n_crlf
    if not n_crlf or not n_lf:
        return crlf == bool(n_crlf)
    nearby = set()
    for nl in (body.rfind(b"\n", 0, at), body.find(b"\n", at)):
        if nl != -1:
            nearby.add(body[nl - 1 : nl] == b"\r")
    return crlf in nearby or (crlf if n_crlf > n_lf else not crlf) or n_crlf == n_lf


# ---------------------------------------------------------------- property 5

_UID = re.compile(r"^(\w+?)_\d+_\d+$")  # names a statement template makes unique by line and column


def comments_are_invisible(f: FuzzFile, setup: Setup) -> list[str]:
    """Property 5: `f.data` (comments inserted) and `f.plain` get the same diagnostics (code and rule) and
    the same output tokens once comments are left out."""
    with_comments, without = translate(f.data, setup), translate(f.plain, setup)
    if FileStatus.FAILED in (with_comments.status, without.status):
        return []  # property 1's business
    problems = []
    diags = [collections.Counter((d.code, d.rule_id) for d in r.diagnostics) for r in (with_comments, without)]
    if diags[0] != diags[1]:
        problems.append(f"5 comments: diagnostics {sorted(diags[0].elements())} != {sorted(diags[1].elements())}")
    words = [_code_tokens(r, data) for r, data in ((with_comments, f.data), (without, f.plain))]
    if words[0] != words[1]:
        n = next((k for k, (a, b) in enumerate(zip(*words)) if a != b), min(map(len, words)))
        problems.append(f"5 comments: output tokens differ at {words[0][n : n + 8]} vs {words[1][n : n + 8]}")
    return problems


def _code_tokens(result: FileResult, data: bytes) -> list[str]:
    """The output's tokens but comments, spelled without line splices (a token's extent may start with one)."""
    out = result.output if result.output is not None else data
    tokens = lexed(out)
    return [
        _UID.sub(r"\1_L_C", re.sub(r"\\\r?\n", "", tokens.raw(k).decode()))
        for k in range(len(tokens))
        if tokens.kinds[k] != TokenKind.COMMENT
    ]


# ---------------------------------------------------------------- property 1 through the CLI


def cli_problems(files: Sequence[bytes], setup: Setup) -> list[str]:
    """`hipconv translate SRC -o OUT` in-process on a tree of the files (one CLI run loads the rules, which
    dominates its time): exit 0, or 2 when a file is not UTF-8; no traceback and no internal error on
    stderr; each output the library's translation (an undecodable file copied unchanged), given the project
    switches of the whole tree (a switch seen in one file is read as defined in all)."""
    suffix = Path(setup.path).suffix
    names = [f"f{n}{suffix}" for n in range(len(files))]
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        src.mkdir()
        for name, data in zip(names, files):
            (src / name).write_bytes(data)
        run = run_cli("translate", src, "-o", out, *setup.cli_args())
        written = {name: (out / name).read_bytes() if (out / name).is_file() else None for name in names}
    if "Traceback" in run.stderr or "internal error" in run.stderr:
        return [f"1 cli: exit {run.code}, stderr {run.stderr[:3000]}"]
    expected_code = 0 if all(map(decodable, files)) else 2
    problems = [] if run.code == expected_code else [f"1 cli: exit {run.code}, stderr {run.stderr[:3000]}"]
    table, _ = _table(setup.rocm, setup.launch)
    readable = [SourceFile.from_bytes(name, data) for name, data in zip(names, files) if decodable(data)]
    project = Project(hip_switches=project_switches(t for f in readable for t in hip_tests(f.body, table)))
    for name, data in zip(names, files):
        result = translate(data, dataclasses.replace(setup, path=name), project=project) if decodable(data) else None
        expected = data if result is None or result.output is None else result.output
        if written[name] != expected:
            problems.append(f"1 cli: {name} written as {written[name]!r}, the library gives {expected!r}")
    return problems


# ---------------------------------------------------------------- inputs the slow lane found, fixed

FOUND = [
    pytest.param(  # a header's include line starts inside a block comment: the runtime went into the comment
        b"\xef\xbb\xbfcudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w);\n"
        b' x x // c 0\n/*\n/* c 1 */#include "cuda_fp16.h"',
        Setup("6.3", "chevron", "t.h"),
        id="header-include-line-starting-inside-a-comment",
    ),
    pytest.param(  # the same with code spliced before the comment: that #include is no directive, nothing goes in
        b"\xef\xbb\xbfcudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w);\n"
        b' x x \\\n/*\n/* c 1 */#include "cuda_fp16.h"',
        Setup("6.3", "chevron", "t.cuh"),
        id="include-after-a-comment-opened-after-code",
    ),
    pytest.param(  # a .cu file's runtime include after code, its line spliced to a comment's: moved up all the same
        b"\xef\xbb\xbf x\n/* c 0 */\\\n#include <cuda_runtime.h>",
        Setup("5.2", "chevron", "t.cu"),
        id="late-runtime-include-spliced-to-a-comment",
    ),
    pytest.param(  # an unterminated string in a launch's config: the comment after `>>>` went inside it
        b'\xef\xbb\xbfsaxpy<<<grid,  " block// c 0\n>>>/* c 1 */(n, 2.0f, d_x, d_y);',
        Setup("6.3", "hip", "t.cu"),
        id="launch-with-an-unterminated-string",
    ),
    pytest.param(  # an unterminated string hid the `;`: two cuDNN statement templates claimed one statement
        b"\xef\xbb\xbf#include <cuda_runtime.h>\nCHECK(cudaDeviceSynchronize());\ncudnnStatus_t st = "
        b"cudnnConvolutionForward(h, &alpha, xDesc, x, wDesc, w, convDesc, algo, ws, wsSize, &beta, yDesc, y) "
        b'" ;\ncudnnAddTensor(h, &one, biasDesc, bias, &one, yDesc, y);',
        Setup("5.2", "chevron", "t.cu"),
        id="two-statement-templates-one-statement",
    ),
    pytest.param(  # the runtime goes above the header's first HIP include, after a statement template
        b"\xef\xbb\xbf x\ncudnnAddTensor(h, &one, biasDesc, bias, &one, yDesc, y);\n#include <stdio.h>\n"
        b'#include "cuda_fp16.h"',
        Setup("5.2", "chevron", "t.cuh"),
        id="runtime-above-an-include-after-a-statement",
    ),
    pytest.param(  # ... before the blank lines that splices join to the include's line
        b'\xef\xbb\xbf x\n\\\n#include "cuda_fp16.h"', Setup("6.3", "chevron", "t.cuh"), id="runtime-before-splices"
    ),
    pytest.param(  # a stray `)` stretched the second statement over the first: both templates are left
        b"cudnnAddTensor(h, &one, biasDesc, bias, &one, yDesc, y);\n )\n"
        b"cudnnAddTensor(h, &one, biasDesc, bias, &one, yDesc, y);\n#include <cuda_runtime.h>",
        Setup("6.3", "chevron", "t.cu"),
        id="overlapping-statements",
    ),
    pytest.param(  # a stray `]` stretched a statement to the top, where the second pass finds a directive
        b'cudaError_t err = cudaGetLastError();\nif (err != cudaSuccess) printf("%s\\n", cudaGetErrorString(err));\n'
        b"cudnnAddTensor(h, &one, biasDesc, bias, &one, yDesc, y);\n"
        b" ] cudnnAddTensor(h, &one, biasDesc, bias, &one, yDesc, y);",
        Setup("6.3", "chevron", "t.cu"),
        id="statement-stretched-to-an-inserted-directive",
    ),
    pytest.param(  # a function name before `::`: renamed, so the second run took the next name as foreign
        b"\xef\xbb\xbf cudaMalloc ::\ncudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW);",
        Setup("6.3", "chevron", "t.cu"),
        id="function-name-as-a-qualifier",
    ),
    pytest.param(  # a CUDA type before `::` qualifies a CUDA name; its HIP name must too, in the second run
        b"\xef\xbb\xbf cudaStream_t ::\n"
        b"cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n, c, h, w);",
        Setup("6.3", "chevron", "t.cu"),
        id="type-name-as-a-qualifier",
    ),
    pytest.param(  # an include's path must be on its line
        b'#include "cuda_fp16.h"\n#// c 0\ninclude <cuda_runtime.h>\n#include // c 1\n<cuda_runtime.h>',
        Setup("5.2", "chevron", "t.cu"),
        id="include-path-on-the-next-line",
    ),
    pytest.param(  # a line splice makes the `#` of the next line code: no include, nothing after it
        b"\xef\xbb\xbf__syncwarp();\n x \\\n#include <cuda_runtime.h>",
        Setup("5.2", "chevron", "t.cu"),
        id="spliced-include-is-no-directive",
    ),
    pytest.param(  # `}\\` then a blank line: HC012's #endif ended in the splice, a directive continued
        b"inline __host__ __device__ int2 operator+(int2 a, int2 b) { return make_int2(a.x + b.x, a.y + b.y); }\\\r\n"
        b"\r\nint after;\r\n",
        Setup("6.3", "chevron", "t.cu"),
        id="endif-before-a-splice-onto-a-blank-line",
    ),
    pytest.param(  # a directive line inside a redefinition's declaration: HC013's #if 0 split `#if X` in two
        b"static const char *name(cudaError_t e) { return cudaGetErrorName(e); }\nstatic const char *\n#if X\n"
        b"name(CUresult e) { const char *n; cuGetErrorName(e, &n); return n; }",
        Setup("5.2", "chevron", "t.cu"),
        id="redefinition-cut-by-a-directive",
    ),
    pytest.param(  # a comment before the first definition: its #if 0 took the runtime include's place, and a
        # second pass added the include, then another #if 0 (the comment hid the first one)
        b"/* c 0 */inline __host__ __device__ int2 operator+(int2 a, int2 b) "
        b"{ return make_int2(a.x + b.x, a.y + b.y); }",
        Setup("6.3", "chevron", "t.cu"),
        id="comment-before-a-disabled-definition",
    ),
    pytest.param(  # a pp-number that is no integer literal (`0x0000ffffzz`): widened to 0x0000ffffull, its tail lost
        b"if (__any_sync(0x0000ffffzz, p)) { __syncthreads(); }",
        Setup("6.3", "chevron", "t.cu"),
        id="mask-with-a-tail-that-is-no-suffix",
    ),
    pytest.param(  # C++23's z suffix: a literal, widened whole (the model took it for no literal)
        b"if (__any_sync(0x0000ffffZ, p)) { __syncthreads(); }",
        Setup("6.3", "chevron", "t.cu"),
        id="mask-with-a-z-suffix",
    ),
    pytest.param(  # a later label whose line starts inside a block comment: its #if went into the comment
        b"switch (a) {\n#ifdef FAST\n  case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 2;\n#endif\n/* a\n"
        b" b */ case CUBLAS_GEMM_DEFAULT: return 1;\n}",
        Setup("5.2", "chevron", "t.cu"),
        id="guarded-label-on-a-line-starting-in-a-comment",
    ),
    pytest.param(  # a spliced `cas\<newline>e` label made a comment (the model took only `case` spelled whole)
        b"switch (a) {\n#ifdef FAST\n  case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 2;\n#\x02endif\n"
        b"  \x1bcas\\\ne CUBLAS_GEMM_DEFAULT: return 1;\n}",
        Setup("5.2", "chevron", "t.cu"),
        id="spliced-case-keyword-dropped",
    ),
    pytest.param(  # `}\` then `#include`: HC012's #endif after the brace made the #include a directive
        b"\xef\xbb\xbfinline __host__ __device__ int2 operator+(int2 a, int2 b) { return make_int2(a.x + b.x, "
        b"a.y + b.y); }\\\n#include <cuda_runtime.h>",
        Setup("5.2", "chevron", "t.cu"),
        id="include-spliced-onto-a-disabled-definition",
    ),
    pytest.param(  # `}\` then `#include <x>` (code, under the first guard), then a second definition: left for a
        # second pass, which saw the first guard's #endif line before it (vector_ops)
        b"inline __host__ __device__ int2 operator+(int2 a, int2 b) { return make_int2(a.x + b.x, a.y + b.y); }\\\n"
        b"#include <cudnn.h>\ninline __host__ __device__ int2 operator+(int2 a, int2 b) "
        b"{ return make_int2(a.x + b.x, a.y + b.y); }\n",
        Setup("5.2", "chevron", "t.cu"),
        id="definition-after-a-directive-spliced-under-a-guard",
    ),
    pytest.param(  # `defined(M// c` then `)` on the next line (code): the rewrite took the `)` and the line break
        # with it, and the next line went into the comment (project_hip); next to a statement template
        b"cudnnAddTensor(h, &one, biasDesc/* c 6 */, bias, &/* c 5 */one, yDesc, y);\r\n"
        b"#if defined(MYLIB_USE_HIP// c 0\r\n) && !defined(NO_VOTE)\r\nunsigned v = __ballot(x);\r\n#endif\r\n"
        b"#ifdef MYLIB_USE_HIP\r\n#include <hip/hip_runtime.h>\r\n#define cudaMalloc hipMalloc\r\n#else\r\n"
        b"#include <cuda_runtime.h>\r\n#endif\r\n",
        Setup("6.3", "hip", "t.cu"),
        id="switch-test-whose-paren-is-on-the-next-line",
    ),
    pytest.param(  # `#ifdef 0MYLIB_USE_HIP` (a rough insert) tests a number: hip_switches took it for a switch
        b"#ifdef 0MYLIB_USE_HIP\r\n#include <hip/hip_runtime.h>\r\n#endif\r\n#ifdef MYLIB_USE_HIP\r\n"
        b"#include <hip/hip_runtime.h>\r\n#else\r\n#include <cuda_runtime.h>\r\n#endif\r\n",
        Setup("5.2", "chevron", "t.cpp"),
        id="switch-test-of-a-number",
    ),
    pytest.param(  # a shimmed header's include with comments and a splice in it (the checks' model of it)
        b"/* c 1 */#/* c 2 */include /* c 3 */<cooperative_groups/reduce.h>\\\r\n// c 4\r\nswitch (a) {\r\n"
        b"#ifdef FAST\r\n  case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 2;\r\n#endif\r\n"
        b"  case CUBLAS_GEMM_DEFAULT: return 1;\r\n}",
        Setup("5.2", "hip", "t.cpp"),
        id="shimmed-include-with-comments-and-a-splice",
    ),
    pytest.param(  # a comment inside a rewritten switch test was lost with it
        b"#ifdef MYLIB_USE_HIP\nhipFree(q);\n#endif\ncudaStream_t s;\n#ifdef /* c */MYLIB_USE_HIP\n"
        b"#include <hip/hip_runtime.h>\n#endif\n",
        Setup("6.3", "chevron", "t.cuh"),
        id="comment-in-a-project-switch-test",
    ),
    pytest.param(  # a splice makes `#ifdef FAST` code: the later label of the same value becomes a comment
        b"switch (a) {\\\n#ifdef FAST\n  case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 2;\n#endif\n"
        b"  case CUBLAS_GEMM_DEFAULT: return 1;\n}",
        Setup("5.2", "chevron", "t.cu"),
        id="spliced-directive-in-a-switch",
    ),
    pytest.param(  # a comment after a guarded label goes onto the #endif line, where it stays a comment
        b"switch (a) {\n#ifdef FAST\n  case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 2;\n#endif\n"
        b"  case CUBLAS_GEMM_DEFAULT: // c 0\nreturn 1;\n}",
        Setup("5.2", "chevron", "t.cu"),
        id="comment-after-a-guarded-label",
    ),
    pytest.param(  # an API name before an operator definition is no specifier: the #if 0 line undid its rename
        b" cudaMalloc\ninline __host__ __device__ int2 operator+(int2 a, int2 b) "
        b"{ return make_int2(a.x + b.x, a.y + b.y); }",
        Setup("6.3", "chevron", "t.cu"),
        id="api-name-before-an-operator-definition",
    ),
    pytest.param(  # a comment spliced onto the first definition's line: its #if 0 took the runtime include's place
        b"/* c 0 */ \\\n inline __host__ __device__ int2 operator+(int2 a, int2 b) "
        b"{ return make_int2(a.x + b.x, a.y + b.y); }",
        Setup("5.2", "chevron", "t.cu"),
        id="comment-spliced-onto-a-disabled-definition",
    ),
    # a project switch test that a second pass first read as one: `/* note */#elif` (a comment before the
    # `#`) was no directive to the byte-level reader (words.line_directives), so the switch's branch seemed
    # to run on into the #elif branch, whose cudaMalloc the first pass made hipMalloc
    pytest.param(
        b" -> threadIdx <<< cublasSgemm [ /* c 1 *// dim3 cudaStream_t\n#if defined(MYLIB_USE_HIP) && "
        b"!defined/* #if X 2 */(NO_VOTE)\nunsigned v = __ballot(x);\n/* note 5 */#elif /* c 3 */CUDART_VERSION >= "
        b"9000\n// c 0\n\\\nunsigned v = __ballot_sync(0xffffffff, x);\n cudaMalloc #endif\ninl\\\nine __host__ "
        b"__device__ int2 operator+(int2 a, int2 b) { return make_int2(a.x + b.x, \\\na.y + b.y); }",
        Setup("6.3", "chevron", "t.cpp"),
        id="switch-branch-read-past-a-commented-elif",
    ),
    # a test of a project switch whose branch held CUDA code only: the first pass left the test and made the
    # branch HIP (a runtime include become `hip/hip_runtime.h`, `cudaMalloc` become `hipMalloc`), and a second
    # pass read that as the switch's HIP code and rewrote the test (`#if 1 /* hipconv: ... */`); CUDA code that
    # becomes HIP is now evidence of a switch too (hipconv.translate.facts.hip_switches), on the first pass
    pytest.param(
        b"#ifdef MYLIB_USE_HIP\n#include <cuda_runtime.h>\n#endif\n",
        Setup("6.3", "chevron", "t.cpp"),
        id="switch-whose-branch-gets-the-hip-runtime-include",
    ),
    pytest.param(
        b"__global__ void ld(float4 *p) { float4 v = __ldcs(p); }\n#if defined(MYLIB_USE_HIP) && !defined(NO_VOTE)\n"
        b" cudaMalloc unsigned v = __ballot(x);\n#endif",
        Setup("6.3", "chevron", "t.cu"),
        id="switch-whose-branch-gets-a-hip-name",
    ),
    pytest.param(  # a splice takes the HIP include into the #ifdef line: the branch holds the CUDA one only
        b"#ifdef MYLIB_USE_HIP\\\n#include <hip/hip_runtime.h>\n#define cudaMalloc hipMalloc\\\n/* c */#else\n"
        b"#include <cuda_runtime.h>\n#endif\n",
        Setup("6.3", "hip", "t.cpp"),
        id="switch-whose-hip-include-is-spliced-onto-its-test",
    ),
    pytest.param(  # an HC013 guard's condition named the switch as written, and a second pass rewrote it there
        b"#ifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\\\n#endif\n"
        b"switch (algo) {\\\n#if USE_TC\n  case CUBLAS_GEMM_DEFAULT_TENSOR_OP:\n#endif\n"
        b"  case CUBLAS_GEMM_DEFAULT: return 1;\n}",
        Setup("5.2", "chevron", "t.cu"),
        id="guard-built-from-a-switch-test",
    ),
    pytest.param(  # a CUDA name in a comment, which translation leaves, was taken for the switch's CUDA code
        b"#if __CUDA_ARCH__ >= 700\n__syncwarp();\n#elif defined(a__HIPCC__)\n"
        b"/* cudaMalloc 0 */__syncthreads();\n#endif",
        Setup("5.2", "chevron", "t.cu"),
        id="cuda-name-in-a-comment-of-a-switch-branch",
    ),
    pytest.param(  # `/* c */#in\<newline>clude`: an include include_lines did not read, in a file it then read as HIP's
        b"__device__ int2 operator+(int2 a, int2 b) { return a; }\n#ifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n"
        b"#define cudaMalloc hipMalloc\n#else\n/* c 0 */#in\\\nclude <cuda_runtime.h>\n#endif\n"
        b"__device__ int2 operator+(int2 a, int2 b) { return a; }",
        Setup("5.2", "chevron", "t.cu"),
        id="spliced-include-after-a-comment",
    ),
    pytest.param(  # a splice inside an include's path: the path was read as written, so left as it was
        b"\xef\xbb\xbf#include <c\\\nooperative_groups/reduce.h>",
        Setup("6.3", "chevron", "t.cu"),
        id="include-path-cut-by-a-splice",
    ),
    pytest.param(  # the same, and the next include spliced onto its line (no directive: it stays as it is)
        b'#include <c\\\nooperative_groups/reduce.h>\\\n#include "cuda_fp16.h"',
        Setup("5.2", "chevron", "t.cu"),
        id="include-path-cut-by-a-splice-then-an-include-spliced-on",
    ),
    pytest.param(  # a header: the runtime, spliced in its name, goes before the first HIP include
        b'#include "cuda_\\\r\nfp16.h"\r\n#include <cuda_\\\r\nruntime.h>\r\n',
        Setup("6.3", "chevron", "t.cuh"),
        id="header-include-paths-cut-by-splices",
    ),
    pytest.param(  # `}\` then `# /*` never closed: HC012's #endif went into the comment, its #if 0 never closed
        b"inline __host__ __device__ int2 operator+(int2 a, int2 b) { return make_int2(a.x + b.x, a.y + b.y); }\\\n"
        b"# /* include <cuda_runtime.h>\n",
        Setup("6.3", "chevron", "t.cu"),
        id="endif-into-a-comment-never-closed",
    ),
    pytest.param(  # `}\` then `/* c */#`: the comment hid the `#`, so the #endif went before the splice, and the
        # `#`, on a line of its own after it, became a directive (a runtime include, added again on a second pass)
        b"inline __host__ __device__ int2 operator+(int2 a, int2 b) { return make_int2(a.x + b.x, a.y + b.y); }\\\n"
        b"/* c */#include <cuda_runtime.h>\n",
        Setup("5.2", "chevron", "t.cu"),
        id="commented-directive-spliced-onto-a-disabled-definition",
    ),
    pytest.param(  # the same with a comment across the line break after the `#`: the #endif went into it
        b"inline __host__ __device__ int2 operator+(int2 a, int2 b) { return make_int2(a.x + b.x, a.y + b.y); }\\\r\n"
        b"# /* // c\r\n */\r\n",
        Setup("6.3", "chevron", "t.cu"),
        id="endif-into-a-comment-across-the-line-break",
    ),
    pytest.param(  # a redefinition whose body holds `#endif` then `#if X`: HC013's #if 0 paired with that #endif
        b"static const char *name(cudaError_t e) { return cudaGetErrorName(e); }\nstatic const char *name(CUresult e) "
        b"{ \n#endif\n\n#if X\nconst char *n; cuGetErrorName(e, &n); return n; }",
        Setup("5.2", "chevron", "t.cu"),
        id="redefinition-whose-body-closes-and-opens-an-if",
    ),
    pytest.param(  # a switch named in lower case after a rough insert: rewritten, which the model took for no switch
        b"cudaStream_t s;\n#ifdef aMYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n#define cudaMalloc hipMalloc\n#else\n"
        b"#include <cuda_runtime.h>\n#endif",
        Setup("6.3", "chevron", "t.cu"),
        id="switch-named-in-lower-case",
    ),
]


def test_a_switch_seen_in_one_file_of_a_cli_tree_is_read_in_the_others() -> None:
    """Property 1's CLI check models the project switches of the tree: the random slow lane found a tree whose
    second file tests the switch the first one's HIP include makes (#40), which the CLI rightly rewrote there."""
    files = [
        b"#ifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif\n",
        b"#if defined(MYLIB_USE_HIP) && !defined(NO_VOTE)\nunsigned v = __ballot(x);\n#endif\ncudaStream_t s;\n",
    ]
    setup = Setup("6.3", "chevron", "t.cu")
    assert cli_problems(files, setup) == []
    assert b"hipconv: defined(MYLIB_USE_HIP)" not in (translate(files[1], setup).output or b"")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_rewritten_test_that_takes_in_the_next_line_is_seen(newline: str) -> None:
    """Property 3 refuses a rewritten directive line that ends in a splice (the line after it goes into it)."""
    table, _ = _table("6.3", "chevron")
    data = f"#if CUDART_VERSION >= 9000{newline}int a;{newline}#endif{newline}".encode()
    regions = [Region(0, data.index(b"9000") + 4, None, "version")]
    good = data.replace(b"CUDART_VERSION >= 9000", b"1 /* hipconv: CUDART_VERSION >= 9000 */")
    assert same_directives(lexed(data), lexed(good), regions, table) == []
    bad = good.replace(b"*/", b"*/\\", 1)
    assert "takes in the line after it" in same_directives(lexed(data), lexed(bad), regions, table)[0]


@pytest.mark.parametrize(
    ("out", "problem"),
    [
        pytest.param(b"#if 0 // hipconv: why\nint a;\n#endif\nint b;\n", None, id="guard"),
        pytest.param(b"#if 0 // hipconv: why\nint a:\n#endif \nint b;\n", None, id="the-input's-blank-after-it"),
        pytest.param(b"x;\n#if !(A)  // hipconv: why\ncase 1:\n#endif\r\n", None, id="conditional-guard"),
        pytest.param(
            b"#if 0 // hipconv: why\nint a;\n#endif\\\n\nint b;\n", "is not a line of its own", id="endif-spliced"
        ),
        pytest.param(b"#if 0 // hipconv: why\\\nint a;\n#endif\n", "1 guard lines, 0 guard", id="opening-spliced"),
        pytest.param(
            b"x \\\n#if 0 // hipconv: why\nint a;\n#endif\n", "1 guard lines, 0 guard", id="spliced-onto-code"
        ),
        pytest.param(b"#if 0 // hipconv: why\nint a;\n", "1 guard lines, 0 guard", id="no-endif"),
    ],
)
def test_the_guard_check_sees_what_it_checks(out: bytes, problem: str | None) -> None:
    """guards_stand_alone accepts hipconv's guard blocks and refuses one that takes in or loses a line."""
    problems = guards_stand_alone(lexed(out))
    assert problems == [] if problem is None else problem in problems[0]


def test_guard_lines_are_the_only_insertions_property_4_allows() -> None:
    """Property 4 skips a guard line inserted between any two input bytes, and nothing else."""
    data = b"int a; int b;\n"
    table, _ = _table("6.3", "chevron")
    tokens = lexed(data)
    guarded = b"int a;\n#if 0  // hipconv: why\n int b;\n#endif\n"
    assert bytes_outside_edits(tokens, guarded, [], table) == []
    assert bytes_outside_edits(tokens, guarded.replace(b" int b", b" int c"), [], table) != []
    assert bytes_outside_edits(tokens, guarded.replace(b"#if 0 ", b"#if 1 "), [], table) != []


@pytest.mark.parametrize(("data", "setup"), FOUND)
def test_found_inputs(data: bytes, setup: Setup) -> None:
    assert check(data, setup) == []


@pytest.mark.parametrize("rocm", ["5.2", "7.2"])
@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"__global__ void k(float4 *p) { float4 v = __ldcs(p); __syncwarp(); }\n", id="top"),
        pytest.param(  # hipconv_compat.h goes right after the file's runtime include
            b"// c\n#include <cuda_runtime.h>\n__global__ void k(float4 *p) { float4 v = __ldcs(p); }\n",
            id="after-the-runtime-include",
        ),
        pytest.param(  # the header it stands for becomes its include, delimiters and all; no second one
            b"#include <cooperative_groups/reduce.h>\n__device__ void f() { __syncwarp(); }\n",
            id="shimmed-header",
        ),
    ],
)
def test_compat_edits_keep_the_properties(data: bytes, rocm: str) -> None:
    """The properties model hipconv_compat.h's include and shims, which the fuzzed rule names reach."""
    setup = Setup(rocm, "chevron", "t.cu")
    out = translate(data, setup).output
    assert out is not None and out.count(COMPAT_LINE.encode()) == 1
    assert re.search(rb"hipconv_(ldcs|syncwarp)\(", out)
    assert check(data, setup) == []


VOTE = b'#include "cuda_fp16.h"\nunsigned vote = __ballot_sync(__activemask(), x > 0);\n'


@pytest.mark.parametrize(
    ("data", "plain", "setup"),
    [
        pytest.param(  # the runtime include moves up whether or not a comment shares its line (it stays)
            VOTE + b"/* c 0 */#include <cuda_runtime.h>",
            VOTE + b" #include <cuda_runtime.h>",
            Setup("5.2", "chevron", "t.cu"),
            id="comment-on-a-moved-runtime-include",
        ),
        pytest.param(  # ... or a blank line is spliced onto it
            VOTE + b"\\\n/* c */#include <cuda_runtime.h>",
            VOTE + b"\\\n#include <cuda_runtime.h>",
            Setup("5.2", "chevron", "t.cu"),
            id="spliced-blank-line-before-a-moved-runtime-include",
        ),
        pytest.param(  # ... or splices run inside it
            VOTE + b"/* c */#\\\ninclude <cuda_runtime.h>",
            VOTE + b"#\\\ninclude <cuda_runtime.h>",
            Setup("5.2", "chevron", "t.cu"),
            id="spliced-moved-runtime-include",
        ),
        pytest.param(  # a header's runtime include follows the defines a rewrite needs, comment or not
            b'/* c 0 */#include "cuda_fp16.h"\n__global__ void k(float v) { v += __shfl_down_sync(0xffffffff, v, 1); }',
            b' #include "cuda_fp16.h"\n__global__ void k(float v) { v += __shfl_down_sync(0xffffffff, v, 1); }',
            Setup("6.3", "chevron", "t.cuh"),
            id="header-defines-then-runtime",
        ),
        pytest.param(  # a comment after a switch test's `#` hid the test from hip_switches: no HC030
            b"#/* c 0 */ifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif",
            b"# ifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif",
            Setup("5.2", "chevron", "t.cu"),
            id="comment-after-the-hash-of-a-switch-test",
        ),
        pytest.param(  # a comment before a CUDA include hid it (include_lines): the file read as written for HIP
            b"#if __CUDA_ARCH__ >= 700\n__syncwarp();\n#endif\n#ifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n"
            b"#else\n/* c 0 */#include <cuda_runtime.h>\n#endif",
            b"#if __CUDA_ARCH__ >= 700\n__syncwarp();\n#endif\n#ifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n"
            b"#else\n #include <cuda_runtime.h>\n#endif",
            Setup("6.3", "chevron", "t.cu"),
            id="comment-before-the-cuda-include-of-a-switch",
        ),
        pytest.param(  # `<<<` in a comment asked for the launches of a file written for HIP (project_hip): renamed
            b"\xef\xbb\xbf#// k<<<g, b>>>(x) 0\nifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\\\n"
            b"#define cudaMalloc hipMalloc\n#else\\\n#include <cuda_runtime.h>\n#endif",
            b"\xef\xbb\xbf#\nifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\\\n"
            b"#define cudaMalloc hipMalloc\n#else\\\n#include <cuda_runtime.h>\n#endif",
            Setup("6.3", "hip", "t.cu"),
            id="launch-in-a-comment-of-a-hip-file",
        ),
    ],
)
def test_found_comment_inputs(data: bytes, plain: bytes, setup: Setup) -> None:
    assert comments_are_invisible(FuzzFile(data, plain), setup) == []
    assert check(data, setup) == []


# ---------------------------------------------------------------- the tests

_FAST = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_SLOW = settings(_FAST, derandomize=os.environ.get("HIPCONV_FUZZ_RANDOM") != "1")


def _assert_none(problems: list[str], data: object, setup: Setup) -> None:
    note(f"input {data!r}\nsettings {setup}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("rocm", ROCM_RELEASES)
@settings(_FAST, max_examples=FAST_PROPERTIES)
@given(data=st.data())
def test_fuzz_properties(rocm: str, data: st.DataObject) -> None:
    f, setup = data.draw(cuda_files(rough=True)), data.draw(setups(rocm))
    _assert_none(check(f.data, setup), f.data, setup)


@pytest.mark.parametrize("rocm", ROCM_RELEASES)
@settings(_FAST, max_examples=FAST_INVISIBLE_COMMENTS)
@given(data=st.data())
def test_fuzz_comments_are_invisible(rocm: str, data: st.DataObject) -> None:
    f, setup = data.draw(cuda_files(rough=False)), data.draw(setups(rocm))
    _assert_none(comments_are_invisible(f, setup), f.data, setup)


@pytest.mark.parametrize("rocm", ROCM_RELEASES)
@settings(_FAST, max_examples=FAST_SPLICED_GUARDS)
@given(data=st.data())
def test_fuzz_spliced_guards(rocm: str, data: st.DataObject) -> None:
    f, setup = data.draw(cuda_files(rough=True, guarded=True)), data.draw(setups(rocm))
    _assert_none(check(f.data, setup), f.data, setup)


trees = st.lists(cuda_files(rough=True).map(lambda f: f.data), min_size=1, max_size=CLI_TREE_FILES)


@settings(_FAST, max_examples=FAST_CLI)
@given(trees, setups())
def test_fuzz_cli(files: list[bytes], setup: Setup) -> None:
    _assert_none(cli_problems(files, setup), files, setup)


@pytest.mark.slow
@pytest.mark.parametrize("rocm", ROCM_RELEASES)
@settings(_SLOW, max_examples=SLOW_PROPERTIES)
@given(data=st.data())
def test_fuzz_properties_slow(rocm: str, data: st.DataObject) -> None:
    f, setup = data.draw(cuda_files(rough=True)), data.draw(setups(rocm))
    _assert_none(check(f.data, setup), f.data, setup)


@pytest.mark.slow
@pytest.mark.parametrize("rocm", ROCM_RELEASES)
@settings(_SLOW, max_examples=SLOW_INVISIBLE_COMMENTS)
@given(data=st.data())
def test_fuzz_comments_are_invisible_slow(rocm: str, data: st.DataObject) -> None:
    f, setup = data.draw(cuda_files(rough=False)), data.draw(setups(rocm))
    _assert_none(comments_are_invisible(f, setup), f.data, setup)


@pytest.mark.slow
@pytest.mark.parametrize("rocm", ROCM_RELEASES)
@settings(_SLOW, max_examples=SLOW_SPLICED_GUARDS)
@given(data=st.data())
def test_fuzz_spliced_guards_slow(rocm: str, data: st.DataObject) -> None:
    f, setup = data.draw(cuda_files(rough=True, guarded=True)), data.draw(setups(rocm))
    _assert_none(check(f.data, setup), f.data, setup)


@pytest.mark.slow
@settings(_SLOW, max_examples=SLOW_CLI)
@given(trees, setups())
def test_fuzz_cli_slow(files: list[bytes], setup: Setup) -> None:
    _assert_none(cli_problems(files, setup), files, setup)
