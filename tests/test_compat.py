"""hipconv_compat.h: shims where the targeted ROCm lacks a CUDA API (HC011), only the used ones written,
the include path relative to each file, --no-compat and `compat = false`, partial lane masks kept."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import hip_names, run_cli, tree
from hipconv.api import translate_source
from hipconv.diagnostics import Severity
from hipconv.resources import hip_releases
from hipconv.results import compat_include_path
from hipconv.settings import Version
from hipconv.translate.compat import COMPAT_HEADER, compat_header, is_generated_header

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
    assert "error[HC002 device.__syncwarp]: __syncwarp has no HIP equivalent; left unchanged (" in err
    assert "; not shimmed by hipconv_compat.h: only the full lane mask (0xffffffff: every lane)" in err


@pytest.mark.parametrize(
    ("call", "reported"),
    [
        (
            "__match_any_sync(mask, v)",
            "error[HC003 device.match-any-sync]: __match_any_sync is not in ROCm 5.2; first in 6.2",
        ),
        (
            "__match_all_sync(0x0000ffff, v, &p)",
            "error[HC003 device.match-all-sync]: __match_all_sync is not in ROCm 5.2",
        ),
        (
            "__reduce_add_sync(0xffff, v)",
            "error[HC002 device.__reduce_add_sync]: __reduce_add_sync has no HIP equivalent",
        ),
    ],
)
def test_partial_mask_of_warp_shim_is_reported_as_without_shims(tmp_path: Path, call: str, reported: str) -> None:
    """A 32-bit partial mask (or one that cannot be seen) would mean other lanes on 64: no shim, the same
    error as with --no-compat, saying why."""
    source = f"__global__ void k(unsigned mask, int v, unsigned long long *out) {{ int p; *out = {call}; }}\n"
    out, err, _ = translate_tree(tmp_path, {"k.cu": source})
    assert call in out["k.cu"].decode() and COMPAT_HEADER not in out
    assert reported in err and "not shimmed by hipconv_compat.h: only the full lane mask" in err


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
    assert is_generated_header(text.encode())  # the marker that lets a later run rewrite it


# Every warp builtin of CUDA, one call a line, with the full mask or a mask the translator cannot see
WARP_BUILTINS = {
    "__syncwarp": "__syncwarp({mask})",
    "__activemask": "__activemask()",
    "__match_any_sync": "__match_any_sync({mask}, v)",
    "__match_all_sync": "__match_all_sync({mask}, v, &pred)",
    **{f"__reduce_{op}_sync": f"__reduce_{op}_sync({{mask}}, u)" for op in ("add", "min", "max", "and", "or", "xor")},
    "__shfl_sync": "__shfl_sync({mask}, v, 0)",
    "__shfl_up_sync": "__shfl_up_sync({mask}, v, 1)",
    "__shfl_down_sync": "__shfl_down_sync({mask}, v, 1)",
    "__shfl_xor_sync": "__shfl_xor_sync({mask}, v, 1)",
    "__ballot_sync": "__ballot_sync({mask}, v > 0)",
    "__all_sync": "__all_sync({mask}, v > 0)",
    "__any_sync": "__any_sync({mask}, v > 0)",
}
_CALLED = re.compile(r"\b(\w+)\s*\(")


def warp_kernel(mask: str) -> list[str]:
    """The kernel's lines: a call of each builtin on lines 3, 4, ..., in WARP_BUILTINS' order."""
    calls = [f"  out[{k}] = {call.format(mask=mask)};" for k, call in enumerate(WARP_BUILTINS.values())]
    calls[0] = calls[0].replace("out[0] = ", "")  # __syncwarp returns nothing
    return [
        "__global__ void k(unsigned long long *out, int v, unsigned u, unsigned mask) {",
        "  int pred;",
        *calls,
        "}",
    ]


@pytest.mark.parametrize("mask", ["0xffffffff", "mask"])
@pytest.mark.parametrize("release", hip_releases())
def test_every_warp_builtin_is_translated_shimmed_or_reported(release: str, mask: str) -> None:
    """For each bundled release: each warp builtin becomes a name the release declares, a shim of
    hipconv_compat.h (HC011), or stays as it is with an error or warning saying so; never silent, never
    a name the release lacks. A shim is written only for the full mask."""
    source = warp_kernel(mask)
    result = translate_source("\n".join(source) + "\n", path="k.cu", rocm_version=release)
    translated = result.text.splitlines()
    declared = hip_names(release)
    for k, cuda in enumerate(WARP_BUILTINS):
        line = 3 + k  # in the CUDA source, as diagnostics count
        marker = f"out[{k}] = " if k else "syncwarp("
        hip = next(text for text in translated if marker in text)
        called = _CALLED.search(hip)
        assert called is not None, hip
        name = called.group(1)
        diagnostics = [d for d in result.diagnostics if d.line == line]
        codes = sorted(d.code for d in diagnostics)
        where = f"ROCm {release}, mask {mask}: {source[line - 1].strip()} -> {hip.strip()} {codes}"
        if name.startswith("hipconv_"):
            assert "HC011" in codes and (mask == "0xffffffff" or "{mask}" not in WARP_BUILTINS[cuda]), where
            assert f" {name}(" in compat_header([name], Version.parse(release)).decode(), where
        elif name != cuda or name in declared:
            assert name in declared, where
        else:
            assert any(d.severity in (Severity.ERROR, Severity.WARNING) for d in diagnostics), where


USER_HEADER = "#pragma once\n// the project's own compatibility macros\n#define COMPAT_INLINE inline\n"


def test_users_header_in_the_input_is_never_replaced(tmp_path: Path) -> None:
    out, err, code = translate_tree(tmp_path, {"k.cu": KERNEL, COMPAT_HEADER: USER_HEADER})
    assert code == 2 and out == {}  # nothing written, not even the output directory's files
    assert f"error: {tmp_path / 'src' / COMPAT_HEADER} was not written by hipconv, and the hipconv_compat.h" in err
    assert "hint: rename it, or pass --no-compat" in err
    out, err, code = translate_tree(tmp_path, {}, "--no-compat")
    assert code == 0 and out[COMPAT_HEADER] == USER_HEADER.encode() and "__syncwarp();" in out["k.cu"].decode()


def test_users_header_in_the_output_is_never_replaced(tmp_path: Path) -> None:
    write(tmp_path / "out", {COMPAT_HEADER: USER_HEADER})
    _, err, code = translate_tree(tmp_path, {"k.cu": KERNEL}, "--force")
    assert code == 2 and f"{tmp_path / 'out' / COMPAT_HEADER} was not written by hipconv" in err
    assert (tmp_path / "out" / COMPAT_HEADER).read_text() == USER_HEADER and not (tmp_path / "out" / "k.cu").exists()


def test_in_place_and_output_reruns_rewrite_their_own_header(tmp_path: Path) -> None:
    once, _, _ = translate_tree(tmp_path, {"k.cu": KERNEL})
    _, err, code = translate_tree(tmp_path, {})  # -o into the output of the first run
    assert code == 0 and tree(tmp_path / "out") == once, err
    src = write(tmp_path / "inplace", {"k.cu": KERNEL})
    for _ in range(2):
        run = run_cli("translate", src, "--in-place", "--rocm-version", "5.2")
        assert run.code == 0, run.stderr
    assert (src / COMPAT_HEADER).read_bytes() == once[COMPAT_HEADER]
    assert (src / "k.cu").read_bytes() == once["k.cu"]
