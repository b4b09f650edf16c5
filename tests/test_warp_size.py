"""The warp size on the host and on the device (hipconv/translate/matchers/warp_size.py, issue #39 item 6): a
project's `#define WARP_SIZE 32` becomes hipconv_warp_size in device code and hipconv_device_warp_size() in host
code where a run-time value will do (HC107); a host use that needs a constant stays and is reported (HC317); a use
whose side the tokens do not decide stays and is reported (HC108). (src, expected) pairs, the noop inputs, a run of
tests/fixtures/warpsize_split on HIP-CPU's 64-lane wavefronts beside the same program with one constant for both
sides, and compiles for a wave64 and a wave32 GPU."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_hip_cpu import build_and_run, prelude  # noqa: F401 (prelude: the precompiled HIP-CPU prelude fixture)

from hipconv.builder.stage import dynamic_shared
from hipconv.diagnostics import HOST_WARP_SIZE_CONSTANT, WARP_SIZE_SIDE_UNDECIDED, WARP_SIZE_SPLIT
from hipconv.rules import load_ruleset
from hipconv.rules.model import LookupTable
from hipconv.settings import Settings, Version
from hipconv.translate.compat import compat_header
from hipconv.translate.source import SourceFile
from hipconv.translate.translator import translate_one
from tests.helpers import COMPILE_TIMEOUT_S, hipcc_syntax, hipcc_syntax_missing

FIXTURE = Path(__file__).parent / "fixtures" / "warpsize_split"
DEFINE = "#define WARP_SIZE 32\n"
KERNEL = "__global__ void k(int* p) { p[0] = 1; }\n"
CODES = (HOST_WARP_SIZE_CONSTANT, WARP_SIZE_SPLIT, WARP_SIZE_SIDE_UNDECIDED)


@functools.cache
def _table(compat: bool) -> tuple[LookupTable, Settings]:
    settings = Settings(Version.parse("6.3"), compat=compat)
    return load_ruleset().table(settings), settings


def translate(src: str, path: str = "t.cu", *, compat: bool = True) -> tuple[str, list[str], list[str]]:
    """The output, `line:code` of the warp-size diagnostics, and their messages."""
    table, settings = _table(compat)
    result = translate_one(SourceFile.from_bytes(path, src.encode()), table, settings)
    text = result.output.decode() if result.output is not None else src
    found = [d for d in result.diagnostics if d.code in CODES]
    return text, [f"{d.line}:{d.code}" for d in found], [d.message for d in found]


def last_line(text: str) -> str:
    return text.rstrip("\n").rsplit("\n", 1)[-1]


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            DEFINE + "__global__ void k(float* p) { __shared__ float s[WARP_SIZE]; s[0] = 1; p[0] = s[0]; }\n",
            "__global__ void k(float* p) { __shared__ float s[hipconv_warp_size]; s[0] = 1; p[0] = s[0]; }",
            id="device-array-bound",
        ),
        pytest.param(
            DEFINE + "template <int N> __device__ int f() { return N; }\n"
            "__global__ void k(int* p) { p[threadIdx.x % WARP_SIZE] = f<WARP_SIZE>(); }\n",
            "__global__ void k(int* p) { p[threadIdx.x % hipconv_warp_size] = f<hipconv_warp_size>(); }",
            id="device-template-argument",
        ),
        pytest.param(
            DEFINE + "__global__ void __launch_bounds__(4 * WARP_SIZE) k(int* p) { p[0] = 1; }\n",
            "__global__ void __launch_bounds__(4 * hipconv_warp_size) k(int* p) { p[0] = 1; }",
            id="kernel-launch-bounds",
        ),
        pytest.param(
            DEFINE + "__device__ float lanes[WARP_SIZE];\n",
            "__device__ float lanes[hipconv_warp_size];",
            id="device-variable",
        ),
        pytest.param(
            "#define WARP_SIZE 64\n__global__ void k(int* p) { p[threadIdx.x / WARP_SIZE] = 1; }\n",
            "__global__ void k(int* p) { p[threadIdx.x / hipconv_warp_size] = 1; }",
            id="device-64",
        ),
        pytest.param(
            DEFINE + KERNEL + "void run(int* p) { k<<<1, 2 * WARP_SIZE, WARP_SIZE * 4>>>(p); }\n",
            "void run(int* p) { k<<<1, 2 * hipconv_device_warp_size(), hipconv_device_warp_size() * 4>>>(p); }",
            id="host-launch",
        ),
        pytest.param(
            DEFINE + KERNEL + "void run(int* p) { dim3 block(WARP_SIZE, 4); k<<<1, block>>>(p); }\n",
            "void run(int* p) { dim3 block(hipconv_device_warp_size(), 4); k<<<1, block>>>(p); }",
            id="host-dim3",
        ),
        pytest.param(
            "constexpr int kWarpSize = 32;\nint lanes() { const int n = kWarpSize; return n; }\n",
            "int lanes() { const int n = hipconv_device_warp_size(); return n; }",
            id="host-constexpr-name",
        ),
    ],
)
def test_rewrites(src: str, expected: str) -> None:
    text, codes, _ = translate(src)
    assert last_line(text) == expected
    assert codes and set(codes) == {f"{src.count(chr(10))}:{WARP_SIZE_SPLIT}"}


@pytest.mark.parametrize(
    ("src", "code", "reason"),
    [
        pytest.param(
            DEFINE + "int main() { float h[WARP_SIZE]; h[0] = 0; return 0; }\n",
            HOST_WARP_SIZE_CONSTANT,
            "on the host as an array bound, where C++ needs a constant",
            id="host-array-bound",
        ),
        pytest.param(
            "#include <array>\n" + DEFINE + "int main() { std::array<float, WARP_SIZE> a{}; return 0; }\n",
            HOST_WARP_SIZE_CONSTANT,
            "on the host as a template argument",
            id="host-template-argument",
        ),
        pytest.param(
            DEFINE + 'int main() { static_assert(WARP_SIZE == 32, "one warp"); return 0; }\n',
            HOST_WARP_SIZE_CONSTANT,
            "on the host in a static_assert",
            id="host-static-assert",
        ),
        pytest.param(
            DEFINE + "int main() {\n  const int lanes = WARP_SIZE;\n  float h[lanes];\n  return h[0] > 0; }\n",
            HOST_WARP_SIZE_CONSTANT,
            "through the const lanes, which line 4 uses as an array bound",
            id="host-const-used-as-constant",
        ),
        pytest.param(
            DEFINE + "template <int W> __global__ void k(int* p) { p[0] = W; }\n"
            "void run(int* p) { k<WARP_SIZE><<<1, 64>>>(p); }\n",
            HOST_WARP_SIZE_CONSTANT,
            "on the host as a template argument",
            id="host-kernel-template-argument",
        ),
        pytest.param(
            DEFINE + "__host__ __device__ int warps(int threads) { return threads / WARP_SIZE; }\n",
            WARP_SIZE_SIDE_UNDECIDED,
            "in a __host__ __device__ function, which runs on both sides",
            id="host-device-function",
        ),
        pytest.param(
            DEFINE + "#define BLOCK (4 * WARP_SIZE)\n",
            WARP_SIZE_SIDE_UNDECIDED,
            "in the body of the macro BLOCK, whose uses decide the side",
            id="macro-body",
        ),
        pytest.param(
            DEFINE + "#if WARP_SIZE == 32\n#endif\n",
            WARP_SIZE_SIDE_UNDECIDED,
            "in a preprocessor condition",
            id="preprocessor-condition",
        ),
        pytest.param(
            DEFINE + "constexpr int kWarps = 256 / WARP_SIZE;\n",
            WARP_SIZE_SIDE_UNDECIDED,
            "in a declaration at file or class scope",
            id="file-scope",
        ),
    ],
)
def test_kept_and_reported(src: str, code: str, reason: str) -> None:
    text, codes, messages = translate(src)
    line = next(n for n, t in enumerate(src.splitlines(), 1) if "WARP_SIZE" in t and not t.startswith("#define W"))
    assert codes == [f"{line}:{code}"]
    assert reason in messages[0]
    assert "hipconv_warp_size" not in text and "hipconv_device_warp_size" not in text


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("#define WARP_SIZE 16\n__global__ void k(int* p) { p[threadIdx.x % WARP_SIZE] = 1; }\n", id="16"),
        pytest.param(
            "#define TILE 32\n__global__ void k(int* p) { __shared__ int t[TILE]; p[0] = t[0]; }\n", id="tile"
        ),
        pytest.param(
            "struct Cfg { int warp_size; };\nint lanes(Cfg cfg) { return cfg.warp_size; }\n", id="member-not-defined"
        ),
        pytest.param(
            DEFINE + "struct T { static constexpr int WARP_SIZE = 32; };\n"
            "int lanes(T t) { return T::WARP_SIZE + t.WARP_SIZE; }\n"
            "#ifdef WARP_SIZE\n#endif\n#if defined(WARP_SIZE)\n#endif\n#undef WARP_SIZE\n",
            id="members-and-tests",
        ),
        pytest.param("__global__ void k(int* p) { p[threadIdx.x % warpSize] = 1; }\n", id="builtin"),
        pytest.param(DEFINE + '// WARP_SIZE lanes\nconst char* name = "WARP_SIZE";\n', id="comments-and-strings"),
        pytest.param("#define WARP_SIZE(x) 32\nint lanes() { return WARP_SIZE(0); }\n", id="function-like-macro"),
    ],
)
def test_noop(src: str) -> None:
    text, codes, _ = translate(src)
    assert not codes
    assert "hipconv_" not in text
    if "__global__" not in src:  # nothing CUDA: the file comes back byte for byte
        assert text == src


def test_second_run_changes_nothing(tmp_path: Path) -> None:
    """The split's output, hipconv_compat.h included, translated again comes back as it is: nothing is split twice,
    and what was kept is reported again."""
    from hipconv.api import translate_tree

    src = tmp_path / "src"
    src.mkdir()
    shutil.copyfile(FIXTURE / "cuda" / "row_sums.cu", src / "row_sums.cu")
    first = translate_tree(src, tmp_path / "once", rocm_version="6.3")
    second = translate_tree(tmp_path / "once", tmp_path / "twice", rocm_version="6.3")
    assert not first.failed and not second.failed
    for name in ("row_sums.cu", "hipconv_compat.h"):
        assert (tmp_path / "twice" / name).read_bytes() == (tmp_path / "once" / name).read_bytes(), name
    reported = (HOST_WARP_SIZE_CONSTANT, WARP_SIZE_SIDE_UNDECIDED)
    kept = sorted((d.code, d.message) for d in first.diagnostics if d.code in reported)
    assert kept and sorted((d.code, d.message) for d in second.diagnostics if d.code in CODES) == kept  # again


def test_no_compat_reports_host_uses_and_rewrites_nothing() -> None:
    src = DEFINE + KERNEL + "void run(int* p) { k<<<1, 2 * WARP_SIZE>>>(p); }\n"
    text, codes, messages = translate(src, compat=False)
    assert "hipconv_" not in text
    assert codes == [f"3:{HOST_WARP_SIZE_CONSTANT}"] and "left as it is (--no-compat)" in messages[0]


def test_project_header_macro_is_split(tmp_path: Path) -> None:
    """WARP_SIZE defined in a project header the source includes: its uses are split too."""
    from hipconv.api import translate_tree

    src = tmp_path / "src"
    src.mkdir()
    (src / "common.cuh").write_text("#pragma once\n" + DEFINE)
    (src / "main.cu").write_text('#include "common.cuh"\n' + KERNEL + "void run(int* p) { k<<<1, WARP_SIZE>>>(p); }\n")
    result = translate_tree(src, tmp_path / "out", rocm_version="6.3")
    assert not result.failed
    assert "k<<<1, hipconv_device_warp_size()>>>(p);" in (tmp_path / "out" / "main.cu").read_text()


# --- runs and compiles -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "verdict"),
    [
        pytest.param("split", "PASS: 0 of 30 sums wrong; 256 threads, 4 warps", id="split"),
        pytest.param("host-keeps-32", "FAIL", id="host-keeps-the-constant"),
    ],
)
def test_split_program_runs_on_64_lanes(variant: str, verdict: str, prelude: Path, tmp_path: Path) -> None:  # noqa: F811
    """tests/fixtures/warpsize_split on HIP-CPU (64-lane wavefronts): hipconv's output gives the sums the host
    computes itself, with blocks of 4 wavefronts; the same output with the host keeping WARP_SIZE (32) while the
    device reads its wavefront size (64) gives wrong per-warp sums: the host expects 4 of them, the kernel writes 2."""
    golden = FIXTURE / "hip-5.2"
    work = tmp_path / "prog"
    work.mkdir()
    shutil.copyfile(golden / "hipconv_compat.h", work / "hipconv_compat.h")
    text = dynamic_shared((golden / "row_sums.cu").read_bytes()).decode()
    if variant == "host-keeps-32":
        text = text.replace("hipconv_device_warp_size()", "WARP_SIZE")
    (work / "row_sums.cu").write_text(text)
    run = build_and_run(work / "row_sums.cu", prelude, tmp_path)
    assert run.output.split(": ", 1)[1].startswith(verdict), run.output


def test_device_constant_is_the_architecture_s(tmp_path: Path) -> None:
    """hipconv_warp_size is 64 on gfx90a's device pass and 32 on gfx1100's (ROCm 6.3's headers, clang 19)."""
    reason = hipcc_syntax_missing()
    if reason is not None:
        print(f"test_warp_size: skipped: {reason}")
        pytest.skip(reason)
    (tmp_path / "hipconv_compat.h").write_bytes(compat_header(["hipconv_warp_size"], Version.parse("6.3")))
    probe = tmp_path / "probe.hip"
    probe.write_text('#include "hipconv_compat.h"\n__global__ void k(int* p) { p[0] = hipconv_warp_size; }\n')
    for arch, lanes in (("gfx90a", "64"), ("gfx1100", "32")):
        done = hipcc_syntax(probe, flags=[f"--offload-arch={arch}", "--cuda-device-only", "-E"])
        assert done.returncode == 0, done.stderr
        assert re.search(rf"p\[0\] = {lanes};", done.stdout), (arch, done.stdout[-2000:])


def test_output_builds_for_wave64_and_wave32_with_debian_hipcc(tmp_path: Path) -> None:
    """The fixture's HIP 5.2 output compiles with Debian's hipcc for gfx90a (wave64) and gfx1030 (wave32), and the
    device pass of each reads its own wavefront size."""
    if shutil.which("hipcc") is None:
        print("test_warp_size: skipped: hipcc not found on PATH")
        pytest.skip("hipcc not found on PATH")
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    unit = FIXTURE / "hip-5.2" / "row_sums.cu"
    for arch, lanes in (("gfx90a", "64"), ("gfx1030", "32")):
        cmd = ["hipcc", f"--offload-arch={arch}", "-x", "hip", "-c", str(unit), "-o", str(tmp_path / f"{arch}.o")]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False)
        assert done.returncode == 0, done.stderr[-4000:]
        cmd = ["hipcc", f"--offload-arch={arch}", "-x", "hip", "--cuda-device-only", "-E", str(unit)]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False)
        assert done.returncode == 0, done.stderr[-4000:]
        assert f"float partial[1024 / {lanes}];" in done.stdout, arch


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_constant_whose_name_a_line_splice_cuts_is_split_too(newline: str) -> None:
    """The prefilter and the reading of the constants join line splices: `WARP_\\<newline>SIZE` is WARP_SIZE,
    in a file whose other lines hold no bytes of the name."""
    src = (
        f"#define WARP_\\{newline}SIZE 32{newline}"
        f"__global__ void k(int* p) {{ p[threadIdx.x % WARP_\\{newline}SIZE] = 1; }}{newline}"
    )
    text, found, _ = translate(src)
    assert found == [f"3:{WARP_SIZE_SPLIT}"]
    assert f"p[threadIdx.x % hipconv_warp_size] = 1; }}{newline}" in text
    assert f"#define WARP_\\{newline}SIZE 32{newline}__global__" in text  # the definition as written
