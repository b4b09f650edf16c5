"""hipconv_compat.h: shims where the targeted ROCm lacks a CUDA API (HC011), only the used ones written,
the include path relative to each file, --no-compat and `compat = false`, partial lane masks kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli, tree
from hipconv.settings import Version
from hipconv.translate.compat import COMPAT_HEADER, compat_header, compat_include_path

KERNEL = """#include <cuda_runtime.h>
__global__ void copy(const float4 *in, float4 *out) {
  float4 v = __ldcs(in);
  __syncwarp();
  __stwt(out, v);
}
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def translate_tree(tmp_path: Path, files: dict[str, str], *args: str) -> tuple[dict[str, bytes], str, int]:
    src = write(tmp_path / "src", files)
    out = tmp_path / "out"
    run = run_cli("translate", src, "-o", out, "--rocm-version", "5.2", *args)
    return tree(out), run.stderr, run.code


def test_used_shims_only_with_comment_and_guard(tmp_path: Path) -> None:
    out, err, code = translate_tree(tmp_path, {"k.cu": KERNEL})
    assert code == 0
    header = out[COMPAT_HEADER].decode()
    assert header.startswith("// hipconv_compat.h") and "#ifndef HIPCONV_COMPAT_H\n#define HIPCONV_COMPAT_H" in header
    for shim, cuda in (("hipconv_ldcs", "__ldcs"), ("hipconv_syncwarp", "__syncwarp"), ("hipconv_stwt", "__stwt")):
        assert f"// {shim}: CUDA's {cuda}" in header
    for unused in ("hipconv_ldcg", "hipconv_stcs", "hipconv_cg_reduce", "hipconv_hipsparseGetErrorName"):
        assert unused not in header
    text = out["k.cu"].decode()
    assert text.startswith('#include <hip/hip_runtime.h>\n#include "hipconv_compat.h"\n')
    assert "float4 v = hipconv_ldcs(in);" in text and "hipconv_syncwarp();" in text
    assert "hipconv_stwt(out, v);" in text


def test_a_note_per_use(tmp_path: Path) -> None:
    _, err, _ = translate_tree(tmp_path, {"k.cu": KERNEL})
    notes = [line for line in err.splitlines() if "note[HC011]" in line]
    assert [n.split(": note")[0].rsplit("/", 1)[-1] for n in notes] == ["k.cu:3:14", "k.cu:4:3", "k.cu:5:3"]
    assert "__ldcs is not in ROCm 5.2: shimmed by hipconv_compat.h as hipconv_ldcs" in notes[0]


def test_no_shim_no_header(tmp_path: Path) -> None:
    out, _, _ = translate_tree(tmp_path, {"k.cu": "__global__ void k(float *p) { p[0] = __ldg(p + 1); }\n"})
    assert COMPAT_HEADER not in out
    assert b"hipconv_compat" not in out["k.cu"]


def test_include_path_relative_from_subdirectories(tmp_path: Path) -> None:
    out, _, _ = translate_tree(tmp_path, {"a/b/k.cu": KERNEL, "a/k.cuh": "__device__ void f() { __syncwarp(); }\n"})
    assert b'#include "../../hipconv_compat.h"\n' in out["a/b/k.cu"]
    assert out["a/k.cuh"].startswith(b'#include "../hipconv_compat.h"\n')
    assert COMPAT_HEADER in out and "a/hipconv_compat.h" not in out


@pytest.mark.parametrize(("folder", "path"), [("", "hipconv_compat.h"), ("a/b", "../../hipconv_compat.h")])
def test_compat_include_path(folder: str, path: str) -> None:
    assert compat_include_path(folder) == path


def test_single_file_header_beside_output(tmp_path: Path) -> None:
    src = write(tmp_path, {"k.cu": KERNEL}) / "k.cu"
    (tmp_path / "o").mkdir()
    run = run_cli("translate", src, "-o", tmp_path / "o" / "k.hip", "--rocm-version", "5.2")
    assert run.code == 0
    assert (tmp_path / "o" / COMPAT_HEADER).is_file()
    assert b'#include "hipconv_compat.h"' in (tmp_path / "o" / "k.hip").read_bytes()


def test_no_compat_reports_as_without_shims(tmp_path: Path) -> None:
    out, err, _ = translate_tree(tmp_path, {"k.cu": KERNEL}, "--no-compat")
    assert COMPAT_HEADER not in out
    assert "__ldcs(in)" in out["k.cu"].decode() and "__stwt(out, v)" in out["k.cu"].decode()
    assert "HC011" not in err
    assert "error[HC002 device.__stwt]: __stwt has no HIP equivalent" in err
    assert "error[HC002 device.__syncwarp]" in err


def test_config_compat_false(tmp_path: Path) -> None:
    write(tmp_path, {".hipconv.toml": "compat = false\n"})
    src = write(tmp_path / "src", {"k.cu": KERNEL})
    run = run_cli(
        "translate", src, "-o", tmp_path / "out", "--rocm-version", "5.2", "--config", tmp_path / ".hipconv.toml"
    )
    assert "HC011" not in run.stderr and not (tmp_path / "out" / COMPAT_HEADER).exists()


def test_config_compat_must_be_a_bool(tmp_path: Path) -> None:
    write(tmp_path, {".hipconv.toml": 'compat = "no"\n', "k.cu": KERNEL})
    run = run_cli("translate", tmp_path / "k.cu", "--config", tmp_path / ".hipconv.toml")
    assert run.code == 2 and "compat must be true or false" in run.stderr


@pytest.mark.parametrize("mask", ["0x0000ffff", "mask"])
def test_partial_or_unknown_mask_is_not_shimmed(tmp_path: Path, mask: str) -> None:
    source = f"__global__ void k(unsigned mask) {{ __syncwarp({mask}); }}\n"
    out, err, _ = translate_tree(tmp_path, {"k.cu": source})
    assert f"__syncwarp({mask});" in out["k.cu"].decode()
    assert COMPAT_HEADER not in out
    assert (
        "error[HC002 device.__syncwarp]: __syncwarp has no HIP equivalent; not shimmed: only the full lane mask" in err
    )


def test_counterpart_in_target_is_used_instead(tmp_path: Path) -> None:
    source = "#include <cusparse.h>\nconst char *f(cusparseStatus_t s) { return cusparseGetErrorString(s); }\n"
    src = write(tmp_path / "src", {"k.cpp": source})
    for rocm, expected in (("5.2", b"hipconv_hipsparseGetErrorName(s)"), ("6.3", b"hipsparseGetErrorString(s)")):
        out = tmp_path / f"out{rocm}"
        run_cli("translate", src, "-o", out, "--rocm-version", rocm)
        assert expected in (out / "k.cpp").read_bytes()
        assert (out / COMPAT_HEADER).exists() == (rocm == "5.2")


def test_cg_reduce_through_alias_and_full_name(tmp_path: Path) -> None:
    source = (
        "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
        "namespace cgx = cooperative_groups;\n"
        "__device__ float f(cgx::thread_block_tile<32> t, float v) {\n"
        "  return cgx::reduce(t, v, cgx::plus<float>()) +\n"
        "         cooperative_groups::reduce(t, v, cooperative_groups::less<float>());\n"
        "}\n"
    )
    out, err, _ = translate_tree(tmp_path, {"k.cu": source})
    text = out["k.cu"].decode()
    assert "return hipconv_cg_reduce(t, v, hipconv_cg_plus<float>()) +\n" in text
    assert "  hipconv_cg_reduce(t, v, hipconv_cg_less<float>());\n" in text
    assert '#include "hipconv_compat.h"' in text and "cooperative_groups/reduce.h" not in text
    assert "cooperative_groups/reduce.h is not in ROCm 5.2: hipconv_compat.h included instead" in err


def test_translating_the_output_again_changes_nothing(tmp_path: Path) -> None:
    once, _, _ = translate_tree(tmp_path, {"k.cu": KERNEL, "sub/k.cu": KERNEL})
    again = tmp_path / "again"
    run = run_cli("translate", tmp_path / "out", "-o", again, "--rocm-version", "5.2")
    assert run.code == 0 and "HC011" not in run.stderr
    assert tree(again) == once


def test_header_is_deterministic_and_sorted() -> None:
    text = compat_header(["hipconv_stcs", "hipconv_ldcs", "hipconv_stcs"], Version.parse("5.2")).decode()
    assert text.index("// hipconv_ldcs:") < text.index("// hipconv_stcs:")
    assert text.count("#include <type_traits>") == 1 and text.endswith("#endif  // HIPCONV_COMPAT_H\n")
