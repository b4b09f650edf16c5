"""`hipconv build`: what a missing header stands for (hipconv/builder/missing.py, packages.yaml), the split of
causes into "a translator could fix this" and "nothing can", and the report's one line per TU (JSON and
Markdown). Compiler output is recorded (Debian's hipcc 5.2, ROCm 6.3's hipcc-syntax); the end-to-end tests
use a fake hipcc that prints it, and hipcc-syntax when ../shared has it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.builder.hipcc import parse_diagnostics
from hipconv.builder.missing import LibraryIndex, MissingHeaders, packages
from hipconv.builder.plan import FIX_NONE, FIX_NOT_CODE, FIX_TRANSLATOR, Unit, UnitResult, group_failures, holds_code
from hipconv.builder.report import build_json_report, build_markdown_report, unit_lines
from hipconv.errors import ConfigError
from hipconv.resources import hip_headers
from hipconv.rules import load_ruleset
from hipconv.rules.model import RuleKind, RuleSet
from hipconv.settings import Version

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
HIPCC_SYNTAX = SHARED / "rocm-6.3" / "bin" / "hipcc-syntax"


@pytest.fixture(scope="module")
def ruleset() -> RuleSet:
    return load_ruleset()


def headers_at_52(ruleset: RuleSet, tree: Path | None = None) -> MissingHeaders:
    """As `hipconv build` sees them with Debian's hipcc: targeting 5.2, hipcc's HIP 5.2."""
    return MissingHeaders(ruleset, tree=tree, target=Version.parse("5.2"), installed="5.2.21153")


# ---------------------------------------------------------------- what a missing header is


@pytest.mark.parametrize(
    ("header", "text", "fixable"),
    [
        pytest.param("hipblas.h", "install ROCm's hipBLAS (Debian 12 has no package)", False, id="hipblas-flat"),
        pytest.param(
            "hipblas/hipblas.h",
            "install ROCm's hipBLAS (Debian 12 has no package); hipcc's ROCm 5.2 has no hipblas/hipblas.h (ROCm 5.7",
            False,
            id="hipblas-newer-path",
        ),
        pytest.param("hipsparse/hipsparse.h", "install ROCm's hipSPARSE (Debian 12: libhipsparse-dev)", False),
        pytest.param("hiprand/hiprand_kernel.h", "install ROCm's hipRAND (Debian 12: libhiprand-dev)", False),
        pytest.param("rocrand/rocrand_kernel.h", "install ROCm's rocRAND (Debian 12: librocrand-dev)", False),
        pytest.param("rocprim/rocprim.hpp", "install ROCm's rocPRIM (Debian 12: librocprim-dev)", False),
        pytest.param("hip/hip_runtime.h", "install ROCm's HIP (Debian 12: libamdhip64-dev)", False),
        pytest.param("hipfft.h", "install ROCm's hipFFT (Debian 12 has no package)", False),
        pytest.param("hipsolver.h", "install ROCm's hipSOLVER", False),
        pytest.param("internal/hipsolver-types.h", "install ROCm's hipSOLVER", False, id="hipsolver-internal"),
        pytest.param("hipcub/hipcub.hpp", "install ROCm's hipCUB", False),
        pytest.param("thrust/device_vector.h", "install ROCm's rocThrust", False),
        pytest.param("miopen/miopen.h", "install ROCm's MIOpen", False),
        pytest.param("rccl/rccl.h", "install ROCm's RCCL", False),
        pytest.param("hipblaslt/hipblaslt.h", "install ROCm's hipBLASLt", False),
        pytest.param("roctracer/roctx.h", "install ROCm's roctracer (Debian 12 has no package)", False),
        pytest.param(
            "hip/hip_bf16.h",
            "hipcc's ROCm 5.2 has no hip/hip_bf16.h (ROCm 5.7–7.2 have it): the translation targets a newer release",
            True,
            id="hip-header-of-a-newer-release",
        ),
        pytest.param(
            "cuda_bf16.h",
            "a CUDA header: hipconv left it because hip/hip_bf16.h exists from ROCm 5.7 on and the target is ROCm 5.2",
            False,
            id="cuda-header-counterpart-later",
        ),
        pytest.param("cusolverMg.h", "a CUDA header hipconv leaves: HIP has no counterpart", False),
        pytest.param(
            "cuda.h",
            "a CUDA header, which hipconv translates to hip/hip_runtime.h: the file that includes it was not",
            True,
        ),
        pytest.param(
            "nvtx3/nvToolsExt.h",
            "a CUDA header hipconv leaves: HIP has no counterpart (NVTX has no HIP counterpart in the inventories; "
            "ROCm's roctracer ships roctx",
            False,
        ),
        pytest.param("nvToolsExt.h", "a CUDA header hipconv leaves: HIP has no counterpart (NVTX", False),
        pytest.param(
            "nvml.h",
            "a CUDA header (NVML) hipconv leaves: HIP has no counterpart; AMD's counterpart is ROCm SMI",
            False,
        ),
        pytest.param("NvInfer.h", "a CUDA header (TensorRT) hipconv leaves", False),
        pytest.param("mpi.h", "MPI, not part of CUDA or ROCm: install it (Debian 12: mpi-default-dev)", False),
        pytest.param("GL/glut.h", "GLUT, not part of CUDA or ROCm: install it (Debian 12: freeglut3-dev)", False),
        pytest.param(
            "helper_cuda.h",
            "one of the CUDA samples' Common/ headers, not part of CUDA or ROCm: put the samples' Common directory",
            False,
        ),
        pytest.param("zlib.h", "not in the tree, and neither a CUDA nor a ROCm header hipconv knows", False),
    ],
)
def test_header_hint(ruleset: RuleSet, header: str, text: str, fixable: bool) -> None:
    hint = headers_at_52(ruleset).hint(header)
    assert hint.text.startswith(text), hint.text
    assert hint.fixable is fixable


def test_project_header_names_the_directory_to_add(ruleset: RuleSet, tmp_path: Path) -> None:
    """`#include "util/timer.h"` with the file at common/util/timer.h: -I common finds it."""
    (tmp_path / "common" / "util").mkdir(parents=True)
    (tmp_path / "common" / "util" / "timer.h").write_text("#pragma once\n")
    (tmp_path / ".hipconv-build" / "util").mkdir(parents=True)  # hidden directories are not searched
    (tmp_path / ".hipconv-build" / "util" / "timer.h").write_text("")
    hint = headers_at_52(ruleset, tmp_path).hint("util/timer.h")
    assert hint == (f"not on the include path; the tree has it: add --hipcc-arg -I{tmp_path / 'common'}", True)
    # a file of that name elsewhere in the tree that the include path cannot reach is no answer
    assert headers_at_52(ruleset, tmp_path).hint("other/timer.h").fixable is False


# ---------------------------------------------------------------- packages.yaml against the project's data


def test_every_hip_header_has_a_rocm_library(ruleset: RuleSet) -> None:
    """The header -> library mapping derived from the include rules covers every header of every release."""
    index = LibraryIndex.of(ruleset, packages())
    orphans = sorted(h for h in hip_headers() if index.library(h) is None)
    assert orphans == []


def test_include_rules_agree_with_the_libraries(ruleset: RuleSet) -> None:
    """Every library of an include rule with a HIP header is some ROCm library's; no root belongs to two."""
    facts = packages()
    by_cuda = {cuda: lib.name for lib in facts.rocm for cuda in lib.cuda}
    includes = [r for r in ruleset.rules if r.kind is RuleKind.INCLUDE and r.hip]
    assert sorted({r.library for r in includes} - set(by_cuda)) == []
    owners: dict[str, set[str]] = {}
    for rule in includes:
        owners.setdefault(rule.hip.split("/")[0].split(".")[0].split("-")[0], set()).add(by_cuda[rule.library])
    for lib in facts.rocm:
        for root in lib.roots:
            owners.setdefault(root, set()).add(lib.name)
    assert {root: names for root, names in owners.items() if len(names) > 1} == {}


def _debian_12() -> bool:
    path = Path("/etc/debian_version")
    return shutil.which("apt-cache") is not None and path.is_file() and path.read_text().startswith("12")


@pytest.mark.skipif(not _debian_12(), reason="checks packages.yaml's Debian 12 names with apt-cache (not Debian 12)")
def test_debian_packages_exist() -> None:
    facts = packages()
    names = sorted({d for d in [*(lib.debian for lib in facts.rocm), *(d.debian for d in facts.other)] if d})
    done = subprocess.run(["apt-cache", "show", "--no-all-versions", *names], capture_output=True, text=True)
    shown = {line.split(": ", 1)[1] for line in done.stdout.splitlines() if line.startswith("Package: ")}
    assert sorted(set(names) - shown) == []


def test_unknown_key_in_packages_file(tmp_path: Path) -> None:
    bad = tmp_path / "packages.yaml"
    bad.write_text("rocm:\n  - name: hipBLAS\n    debain: null\ncuda: []\nother: []\n")
    with pytest.raises(ConfigError, match="rocm: unknown key.*debain"):
        packages(bad)


# ---------------------------------------------------------------- grouping recorded compiler output

DEBIAN_HIPCC = """\
clang: warning: -lamdhip64: 'linker' input unused [-Wunused-command-line-argument]
/w/hip/src/gemm.cu:2:10: fatal error: 'hipblas.h' file not found
#include <hipblas.h>
         ^~~~~~~~~~~
1 error generated when compiling for host.
"""
ROCPRIM_FROM_HIPCUB = """\
In file included from /w/hip/src/sort.cu:3:
In file included from /opt/rocm/include/hipcub/hipcub.hpp:38:
/opt/rocm/include/hipcub/backend/rocprim/hipcub.hpp:35:10: fatal error: 'rocprim/rocprim.hpp' file not found
   35 | #include <rocprim/rocprim.hpp>
      |          ^~~~~~~~~~~~~~~~~~~~~
1 error generated when compiling for gfx90a.
"""
PROJECT_HEADER = """\
/w/hip/src/main.cu:1:10: fatal error: 'util/timer.h' file not found
    1 | #include "util/timer.h"
      |          ^~~~~~~~~~~~~~
1 error generated when compiling for host.
"""
UNPORTED_THEN_SYNTAX = """\
/w/hip/src/l2.cu:7:3: error: use of undeclared identifier 'cudaCtxResetPersistingL2Cache'
    7 |   cudaCtxResetPersistingL2Cache();
      |   ^
/w/hip/src/l2.cu:9:12: error: expected ';' after expression
2 errors generated when compiling for host.
"""
SYNTAX_THEN_HEADER = """\
/w/hip/src/trace.cu:4:3: error: expected ';' after expression
/w/hip/src/trace.cu:5:10: fatal error: 'nvtx3/nvToolsExt.h' file not found
"""


def failed(source: str, output: str, returncode: int = 1) -> UnitResult:
    unit = Unit(source, f"/w/hip/{source}", ("hipcc", "-c", f"/w/hip/{source}"), "/w/hip", None)
    return UnitResult(unit, False, 0.5, parse_diagnostics(output), output, returncode)


def compiled(source: str) -> UnitResult:
    unit = Unit(source, f"/w/hip/{source}", ("hipcc", "-c", f"/w/hip/{source}"), "/w/hip", None)
    return UnitResult(unit, True, 0.5, (), "")


@pytest.fixture
def results() -> list[UnitResult]:
    return [
        failed("src/gemm.cu", DEBIAN_HIPCC),
        failed("src/sort.cu", ROCPRIM_FROM_HIPCUB),
        failed("src/main.cu", PROJECT_HEADER),
        failed("src/l2.cu", UNPORTED_THEN_SYNTAX),
        failed("src/trace.cu", SYNTAX_THEN_HEADER),
        failed("src/crash.cu", "clang: error: unable to execute command: Killed\n", 254),
        compiled("src/scale.cu"),
    ]


def test_causes_say_who_can_fix_them(ruleset: RuleSet, results: list[UnitResult], tmp_path: Path) -> None:
    (tmp_path / "common" / "util").mkdir(parents=True)
    (tmp_path / "common" / "util" / "timer.h").write_text("")
    groups = group_failures(results, ruleset, headers_at_52(ruleset, tmp_path))
    by_name = {g.cause.name: g for g in groups}
    assert by_name["hipblas.h"].cause.origin == "install ROCm's hipBLAS (Debian 12 has no package)"
    assert by_name["rocprim/rocprim.hpp"].cause.origin == "install ROCm's rocPRIM (Debian 12: librocprim-dev)"
    assert by_name["util/timer.h"].cause.fix == FIX_TRANSLATOR
    fixes = {name: g.cause.fix for name, g in by_name.items()}
    assert fixes == {
        "hipblas.h": FIX_NONE,
        "rocprim/rocprim.hpp": FIX_NONE,
        "util/timer.h": FIX_TRANSLATOR,
        "cudaCtxResetPersistingL2Cache": FIX_NONE,  # no HIP counterpart
        "expected ';' after expression": FIX_TRANSLATOR,
        "nvtx3/nvToolsExt.h": FIX_NONE,
        "hipcc failed: clang: error: unable to execute command: Killed": FIX_TRANSLATOR,
    }
    # a TU counts in every group of its errors, and leads the group of its first error only
    syntax = by_name["expected ';' after expression"]
    assert syntax.units == ("src/l2.cu", "src/trace.cu") and syntax.leading == ("src/trace.cu",)
    assert by_name["nvtx3/nvToolsExt.h"].leading == ()
    assert sorted(tu for g in groups for tu in g.leading) == sorted(r.unit.source for r in results if not r.ok)


def test_one_line_per_tu(ruleset: RuleSet, results: list[UnitResult]) -> None:
    groups = group_failures(results, ruleset, headers_at_52(ruleset))
    lines = {line.file: line for line in unit_lines(results, groups)}
    assert list(lines) == sorted(lines)
    gemm = lines["src/gemm.cu"]
    assert (gemm.exit_status, gemm.first_error) == (1, "src/gemm.cu:2:10: 'hipblas.h' file not found")
    assert gemm.cause is not None and gemm.cause.name == "hipblas.h"
    # the first error may sit in a header outside the tree: its path is kept
    sort = lines["src/sort.cu"]
    assert sort.first_error.startswith("/opt/rocm/include/hipcub/backend/rocprim/hipcub.hpp:35:10: 'rocprim/")
    assert lines["src/crash.cu"].exit_status == 254
    assert lines["src/crash.cu"].first_error == "hipcc failed: clang: error: unable to execute command: Killed"
    assert lines["src/scale.cu"] == ("src/scale.cu", 0, "", None)


def test_report_json_and_markdown(ruleset: RuleSet, results: list[UnitResult]) -> None:
    groups = group_failures(results, ruleset, headers_at_52(ruleset))
    report = build_json_report(
        results,
        groups,
        hipcc="/usr/bin/hipcc",
        hip_version="5.2.21153",
        rocm="5.2",
        archs=["gfx90a"],
        check_only=True,
        seconds=3.5,
        skipped=[],
    )
    report = json.loads(json.dumps(report))  # plain JSON
    # no tree given: util/timer.h is nowhere, so nothing can fix it either
    assert report["summary"]["failed_by_fix"] == {"translator": 2, "none": 4, "not-code": 0}
    assert set(report["fixes"]) == {"translator", "none", "not-code"}
    units = {u["file"]: u for u in report["units"]}
    assert units["src/gemm.cu"]["exit_status"] == 1
    assert units["src/gemm.cu"]["first_error"] == "src/gemm.cu:2:10: 'hipblas.h' file not found"
    assert units["src/gemm.cu"]["cause"] == {"kind": "missing-header", "name": "hipblas.h", "fix": "none"}
    assert units["src/scale.cu"]["first_error"] is None and units["src/scale.cu"]["cause"] is None
    cause = next(c for c in report["causes"] if c["name"] == "hipblas.h")
    assert cause["fix"] == "none" and cause["first_error_of"] == ["src/gemm.cu"]
    assert (
        cause["message"]
        == "1 TU fails because of missing header hipblas.h: install ROCm's hipBLAS (Debian 12 has no package)"
    )

    markdown = build_markdown_report(report, results, groups)
    assert (
        "| `src/gemm.cu` | 1 | src/gemm.cu:2:10: 'hipblas.h' file not found | missing header hipblas.h: install "
        "ROCm's hipBLAS (Debian 12 has no package) | nothing can |"
    ) in markdown
    assert "| `src/scale.cu` | 0 |  |  |  |" in markdown
    assert (
        "| `src/trace.cu` | 1 | src/trace.cu:4:3: expected ';' after expression | expected ';' after expression | "
        "a translator |"
    ) in markdown
    assert (
        "Failed TUs by the cause of their first error: 2 that a translator could fix, 4 that nothing can." in markdown
    )
    assert "- nothing can: a library or dependency that is not installed" in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| `src/")]
    assert len(rows) == len(results)


LICENCE = """\
Copyright (c) 2021 The Example Lab. All rights reserved.

Redistribution and use are permitted provided that the following conditions are met:
\u00b7 Redistributions of source code must retain the above copyright notice.
\u00b7 Neither the name of the lab nor the names of its members may be used to endorse products.
"""
# hipcc-syntax (ROCm 6.3) on a licence text named LICENSE.scan.cu, recorded
LICENCE_ERRORS = """\
{file}:1:1: error: unknown type name 'Copyright'
{file}:1:14: error: expected ';' after top level declarator
{file}:4:1: error: character <U+00B7> not allowed at the start of an identifier
3 errors generated when compiling for host.
"""


@pytest.mark.parametrize(
    ("text", "code"),
    [
        pytest.param(LICENCE, False, id="licence"),
        pytest.param("Build with make; run ./app.\n\nSee the README for the options.\n", False, id="notes"),
        pytest.param("#include <cstdio>\n", True, id="directive-only"),
        pytest.param("__global__ void scale(float *x, float a);\n", True, id="declaration-only"),
        pytest.param("namespace k {\n}\n", True, id="brace"),
    ],
)
def test_holds_code(tmp_path: Path, text: str, code: bool) -> None:
    (tmp_path / "f.cu").write_text(text, encoding="utf-8")
    assert holds_code(str(tmp_path / "f.cu")) is code


def test_a_text_named_like_a_source_is_not_code(ruleset: RuleSet, tmp_path: Path) -> None:
    """A licence named .cu is no translator failure: its errors make one cause, with nothing to fix."""
    licence, source = tmp_path / "LICENSE.scan.cu", tmp_path / "scan.cu"
    licence.write_text(LICENCE, encoding="utf-8")
    source.write_text("int main() { Copyright(); }\n")
    results = []
    for path, output in (
        (licence, LICENCE_ERRORS),
        (source, f"{source}:1:14: error: use of undeclared identifier 'Copyright'\n"),
    ):
        unit = Unit(path.name, str(path), ("hipcc", "-c", str(path)), str(tmp_path), None)
        results.append(UnitResult(unit, False, 0.5, parse_diagnostics(output.format(file=path)), output, 1))
    groups = group_failures(results, ruleset, headers_at_52(ruleset))
    assert [(g.cause.kind, g.cause.name, g.cause.fix, g.units) for g in groups] == [
        ("undeclared", "Copyright", FIX_TRANSLATOR, ("scan.cu",)),  # the same error in code is counted as before
        ("not-code", "no C or C++ code", FIX_NOT_CODE, ("LICENSE.scan.cu",)),
    ]
    report = build_json_report(
        results,
        groups,
        hipcc="hipcc",
        hip_version=None,
        rocm="6.3",
        archs=["gfx90a"],
        check_only=True,
        seconds=1.0,
        skipped=[],
    )
    assert report["summary"]["failed_by_fix"] == {"translator": 1, "none": 0, "not-code": 1}
    markdown = build_markdown_report(report, results, groups)
    assert (
        "Failed TUs by the cause of their first error: 1 that a translator could fix, 0 that nothing can, "
        "1 that hold no code." in markdown
    )
    assert (
        "| `LICENSE.scan.cu` | 1 | LICENSE.scan.cu:1:1: unknown type name 'Copyright' | no C or C++ code "
        "(no directive, brace or statement; a text named like a source file, such as a licence, which no build "
        "compiles) | "
        "nothing to fix |"
    ) in markdown


# ---------------------------------------------------------------- end to end

GEMM = """\
#include <cublas_v2.h>

void scale(cublasHandle_t handle, int n, float alpha, float *x) { cublasSscal(handle, n, &alpha, x, 1); }
"""
SCALE = """\
__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }
"""


def fake_hipcc(tmp_path: Path) -> Path:
    """Debian's hipcc, recorded: HIP 5.2; a file that includes hipblas.h fails as it does there."""
    script = tmp_path / "bin" / "hipcc"
    script.parent.mkdir()
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "HIP version: 5.2.21153-0"; exit 0; fi\n'
        'for a in "$@"; do f="$a"; done\n'
        'if grep -q "hipblas.h" "$f"; then\n'
        "  echo \"$f:2:10: fatal error: 'hipblas.h' file not found\" >&2\n"
        '  echo "1 error generated when compiling for host." >&2\n'
        "  exit 1\n"
        "fi\n"
        "exit 0\n"
    )
    script.chmod(0o755)
    return script


def tiny_tree(tmp_path: Path) -> Path:
    src = tmp_path / "cuda"
    (src / "src").mkdir(parents=True)
    (src / "src" / "gemm.cu").write_text(GEMM)
    (src / "src" / "scale.cu").write_text(SCALE)
    return src


def test_build_names_the_missing_package(tmp_path: Path) -> None:
    src = tiny_tree(tmp_path)
    hipcc = fake_hipcc(tmp_path)
    out, report, markdown = tmp_path / "hip", tmp_path / "build.json", tmp_path / "build.md"
    result = run_cli("build", src, "-o", out, "--hipcc", hipcc, "--check-only", "-j", "1", "--report", report)
    assert result.code == 1
    assert (
        "error[HC410]: 1 TU fails because of missing header hipblas.h: install ROCm's hipBLAS "
        "(Debian 12 has no package)\n"
    ) in result.stderr
    assert "TUs: src/gemm.cu" in result.stderr
    data = json.loads(report.read_text())
    lines = {u["file"]: (u["exit_status"], u["first_error"], u["cause"]) for u in data["units"]}
    assert lines == {
        "src/gemm.cu": (
            1,
            "src/gemm.cu:2:10: 'hipblas.h' file not found",
            {"kind": "missing-header", "name": "hipblas.h", "fix": "none"},
        ),
        "src/scale.cu": (0, None, None),
    }
    again = run_cli("build", src, "-o", out, "--hipcc", hipcc, "--check-only", "-j", "1", "--report", markdown)
    assert again.code == 1
    text = markdown.read_text()
    assert text.startswith("# hipconv build report\n")
    assert "| `src/scale.cu` | 0 |  |  |  |" in text
    assert "| `src/gemm.cu` | 1 | src/gemm.cu:2:10: 'hipblas.h' file not found | missing header hipblas.h" in text


@pytest.mark.skipif(not HIPCC_SYNTAX.exists(), reason=f"{HIPCC_SYNTAX} not found (../shared is absent)")
@pytest.mark.skipif(shutil.which("clang++-19") is None, reason="clang++-19 not found (apt-get install -y clang-19)")
def test_hipcc_syntax_names_a_cuda_header_and_a_project_header(tmp_path: Path) -> None:
    """ROCm 6.3's headers have every library; NVTX has no counterpart, and util/timer.h sits in common/."""
    src = tmp_path / "cuda"
    (src / "src").mkdir(parents=True)
    (src / "common" / "util").mkdir(parents=True)
    (src / "common" / "util" / "timer.h").write_text("#pragma once\ninline double seconds() { return 0.0; }\n")
    (src / "src" / "trace.cu").write_text("#include <nvtx3/nvToolsExt.h>\nvoid mark() { nvtxRangePop(); }\n")
    (src / "src" / "main.cu").write_text('#include "util/timer.h"\nint main() { return seconds() > 0; }\n')
    out, report = tmp_path / "hip", tmp_path / "build.md"
    result = run_cli("build", src, "-o", out, "--check-only", "--hipcc", HIPCC_SYNTAX, "-j", "1", "--report", report)
    assert result.code == 1
    assert (
        "1 TU fails because of missing header nvtx3/nvToolsExt.h: a CUDA header hipconv leaves: "
        "HIP has no counterpart (NVTX has no HIP counterpart in the inventories; ROCm's roctracer ships roctx"
    ) in result.stderr
    assert (
        f"1 TU fails because of missing header util/timer.h: not on the include path; the tree has it: "
        f"add --hipcc-arg -I{(out / 'common').resolve()}"
    ) in result.stderr
    text = report.read_text()
    assert "Failed TUs by the cause of their first error: 1 that a translator could fix, 1 that nothing can." in text
