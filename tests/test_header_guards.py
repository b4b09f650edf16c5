"""CUDA header guards (`#ifdef CURAND_H_`, helper_cuda.h's `#ifdef __DRIVER_TYPES_H__`): a definedness test
becomes a test of a macro the HIP counterpart header defines, reported as note HC010; a value use or a
#define is left alone. The rules come from tools/curated.yaml `header_guards:` through
tools/derive/header_guards.py, whose checks against real headers and inventories are tested on small
trees made here."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from helpers import Run, ruleset, run_cli
from tools.derive.curated import Curated
from tools.derive.header_guards import NOTE_CODE, HeaderGuards, defines
from tools.derive.inventory import RELEASES

REPO = Path(__file__).resolve().parents[1]


def translate(tmp_path: Path, src: str, *args: str) -> Run:
    source = tmp_path / "k.h"
    source.write_text(src)
    return run_cli("translate", source, *args)


def diagnostics(result: Run) -> list[str]:
    """`line:col: severity[CODE rule]` of each diagnostic line on stderr."""
    return re.findall(r"^\S*/k\.h:(\d+:\d+: \w+\[[^\]]*\])", result.stderr, re.M)


# ------------------------------------------------------------------------------ translation


@pytest.mark.parametrize(
    ("src", "expected", "reported"),
    [
        pytest.param(
            "#ifdef __DRIVER_TYPES_H__\n#endif\n",
            "#ifdef HIP_TRSA_OVERRIDE_FORMAT\n#endif\n",
            ["1:8: note[HC010 cudart.__DRIVER_TYPES_H__]"],
            id="ifdef-runtime",
        ),
        pytest.param(
            "#ifdef _COOPERATIVE_GROUPS_H_\n#endif\n",
            "#ifdef __CG_QUALIFIER__\n#endif\n",
            ["1:8: note[HC010 cooperative_groups._COOPERATIVE_GROUPS_H_]"],
            id="ifdef-cooperative-groups",
        ),
        pytest.param(
            "#ifndef CURAND_H_\n#endif\n",
            "#ifndef HIPRAND_VERSION\n#endif\n",
            ["1:9: note[HC010 curand.CURAND_H_]"],
            id="ifndef",
        ),
        pytest.param(
            "#if defined(CUBLAS_API_H_) || defined CUBLAS_V2_H_\n#endif\n",
            "#if defined(hipblasVersionMajor) || defined hipblasVersionMajor\n#endif\n",
            ["1:13: note[HC010 cublas.CUBLAS_API_H_]", "1:39: note[HC010 cublas.CUBLAS_V2_H_]"],
            id="defined-both-forms",
        ),
        pytest.param(
            "#if 0\n#elif defined(_CUFFT_H_) && !defined(CUSPARSEAPI)\n#endif\n",
            "#if 0\n#elif defined(HIPFFT_FORWARD) && !defined(hipsparseVersionMajor)\n#endif\n",
            ["2:15: note[HC010 cufft._CUFFT_H_]", "2:38: note[HC010 cusparse.CUSPARSEAPI]"],
            id="elif",
        ),
        pytest.param(
            "#ifdef __CUDA_RUNTIME_H__\n#endif\n#ifdef CUDNN_H_\n#endif\n",
            "#ifdef hipLaunchKernelGGL\n#endif\n#ifdef MIOPEN_EXPORT\n#endif\n",
            ["1:8: note[HC010 cudart.__CUDA_RUNTIME_H__]", "3:8: note[HC010 cudnn.CUDNN_H_]"],
            id="runtime-and-cudnn",
        ),
    ],
)
def test_a_guard_test_becomes_a_test_of_the_hip_header(
    tmp_path: Path, src: str, expected: str, reported: list[str]
) -> None:
    result = translate(tmp_path, src)
    assert result.code == 0, result.stderr
    assert result.stdout.decode() == expected
    assert diagnostics(result) == reported


def test_the_note_names_both_macros(tmp_path: Path) -> None:
    result = translate(tmp_path, "#ifdef CUSPARSE_H_\n#endif\n", "--rocm-version", "5.2")
    assert result.stdout.decode() == "#ifdef hipsparseVersionMajor\n#endif\n"
    assert "note[HC010 cusparse.CUSPARSE_H_]: CUSPARSE_H_ rewritten to hipsparseVersionMajor (the include guard" in (
        result.stderr
    )


@pytest.mark.parametrize(
    ("src", "reported"),
    [
        pytest.param("#define CURAND_H_\n", ["1:9: warning[HC007 curand.CURAND_H_]"], id="defined-by-hand"),
        pytest.param("#if CURAND_H_ + 0\n#endif\n", ["1:5: warning[HC007 curand.CURAND_H_]"], id="value-in-if"),
        pytest.param(
            "#if defined(CURAND_H_) && CURAND_H_\n#endif\n",
            ["1:27: warning[HC007 curand.CURAND_H_]"],
            id="mixed-line-kept-whole",
        ),
    ],
)
def test_a_value_use_or_define_is_left_alone(tmp_path: Path, src: str, reported: list[str]) -> None:
    result = translate(tmp_path, src)
    assert result.stdout.decode() == src
    assert diagnostics(result) == reported


def test_the_driver_api_guard_tests_the_runtime(tmp_path: Path) -> None:
    """cuda.h's guard (helper_cuda_drvapi.h's driver helpers): HIP's driver API is declared by hip_runtime.h."""
    src = "#ifdef __cuda_cuda_h__\nstatic const char *name(CUresult e);\n#endif\n"
    result = translate(tmp_path, src)
    assert result.stdout.decode() == "#ifdef hipLaunchKernelGGL\nstatic const char *name(hipError_t e);\n#endif\n"
    assert diagnostics(result) == ["1:8: note[HC010 cuda_driver.__cuda_cuda_h__]"]


def test_a_guard_whose_counterpart_defines_nothing_is_reported(tmp_path: Path) -> None:
    """hiprtc.h defines no macro of its own: no test can tell it was included; the test stays and is reported."""
    src = "#if defined(__NVRTC_H__)\nstatic const char *name(nvrtcResult r);\n#endif\n"
    result = translate(tmp_path, src)
    assert result.stdout.decode().startswith("#if defined(__NVRTC_H__)\n")
    assert diagnostics(result) == ["1:13: error[HC002 nvrtc.__NVRTC_H__]"]
    assert "hip/hiprtc.h defines no macro of its own" in result.stderr


def test_every_curated_guard_has_a_bundled_rule() -> None:
    facts = Curated.load(REPO / "tools" / "curated.yaml").section("header_guards")
    rules = {r.cuda: r for r in ruleset().rules if r.section == "header-guard"}
    assert set(rules) == set(facts)
    for cuda, fact in facts.items():
        rule = rules[cuda]
        if fact["hip"] is None:
            assert (rule.hip, rule.status.value, rule.defined_only) == (None, "unsupported", False)
            continue
        assert (rule.hip, rule.defined_only, rule.rewrite_code) == (fact["hip"], True, NOTE_CODE)
        assert rule.origin.startswith("rules/header_guards.yaml")


# ------------------------------------------------------------------------------ the derivation step


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_defines_follows_the_library_includes(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "hiprand/hiprand.h": '#pragma once\n#include "hiprand/hiprand_version.h"\n#include <stdint.h>\n',
            "hiprand/hiprand_version.h": "/* #define HIPRAND_FAKE 1 */\n#  define HIPRAND_VERSION 201100\n",
            "stdint.h": "#define SYSTEM_ONLY 1\n",
        },
    )
    assert defines(root, "hiprand/hiprand.h", "HIPRAND_VERSION") is True
    assert defines(root, "hiprand/hiprand.h", "HIPRAND_FAKE") is False  # in a comment
    assert defines(root, "hiprand/hiprand.h", "HIPRAND_VERS") is False  # a prefix is not the name
    assert defines(root, "hiprand/hiprand.h", "SYSTEM_ONLY") is False  # the system's headers are not followed
    assert defines(root, "hiprand/missing.h", "HIPRAND_VERSION") is None


class _Snapshot:
    def __init__(self, names: set[str], records: dict[str, list[dict[str, Any]]] | None = None) -> None:
        self.names, self._records = names, records or {}

    def has(self, name: str) -> bool:
        return name in self.names

    def records(self, name: str) -> list[dict[str, Any]]:
        return self._records.get(name, [])


@dataclass
class _Inventory:
    hip_names: dict[str, set[str]]
    headers: set[str]
    cuda: _Snapshot = field(default_factory=lambda: _Snapshot(set()))

    @property
    def hip(self) -> dict[str, _Snapshot]:
        return {rel: _Snapshot(self.hip_names.get(rel, set())) for rel in RELEASES}

    def public_headers(self, rel: str) -> set[str]:
        return self.headers


@dataclass
class _Curated:
    sections: dict[str, dict[str, Any]]

    def section(self, key: str) -> dict[str, Any]:
        return self.sections.get(key, {})


@dataclass
class _Deriver:
    inv: _Inventory
    cur: _Curated
    problems: list[str] = field(default_factory=list)
    claimed: set[str] = field(default_factory=set)
    rules: list[dict[str, Any]] = field(default_factory=list)

    def claim(self, fam: Any, rule: dict[str, Any]) -> None:
        self.claimed.add(rule["cuda"])
        fam.rules.append(rule)


CURAND = {"hip": ["hiprand/hiprand.h"], "library": "curand"}
GUARD = {"header": "curand.h", "hip": "HIPRAND_VERSION", "note": "the include guard of curand.h"}


def _guards(
    tmp_path: Path,
    *,
    names: dict[str, set[str]] | None = None,
    hip_tree: dict[str, str] | None = None,
    cuda_tree: dict[str, str] | None = None,
    include: dict[str, Any] | None = CURAND,
    cuda_records: dict[str, list[dict[str, Any]]] | None = None,
) -> tuple[HeaderGuards, Any]:
    inv = _Inventory(
        names if names is not None else {rel: {"HIPRAND_VERSION"} for rel in RELEASES},
        {"hiprand/hiprand.h"},
        _Snapshot(set(), cuda_records),
    )
    cur = _Curated({"includes": {"curand.h": include} if include else {}, "header_guards": {"CURAND_H_": GUARD}})
    d = _Deriver(inv, cur)
    trees = {"5.2": _write(tmp_path / "deb", hip_tree or {}), "6.3": _write(tmp_path / "rocm63", {})}
    guards = HeaderGuards(d, hip_trees=trees, cuda_include=_write(tmp_path / "cuda", cuda_tree or {}))  # type: ignore[arg-type]
    return guards, guards.family()


def test_a_checked_guard_gives_a_defined_only_rule(tmp_path: Path) -> None:
    guards, fam = _guards(
        tmp_path,
        hip_tree={"hiprand/hiprand.h": "#define HIPRAND_VERSION 1\n"},
        cuda_tree={"curand.h": "#if !defined(CURAND_H_)\n#define CURAND_H_\n#endif\n"},
    )
    assert guards.d.problems == []
    assert fam.file == "header_guards.yaml"
    assert fam.rules == [
        {
            "cuda": "CURAND_H_",
            "hip": "HIPRAND_VERSION",
            "kind": "macro",
            "library": "curand",
            "section": "header-guard",
            "defined_only": True,
            "rewrite_code": "HC010",
            "note": "the include guard of curand.h",
        }
    ]
    # the 6.3 tree here has no hiprand: said, not failed
    assert any("ROCm 6.3" in m and "not checked" in m for m in guards.messages)


def test_a_hip_header_that_does_not_define_the_macro_fails(tmp_path: Path) -> None:
    guards, _ = _guards(tmp_path, hip_tree={"hiprand/hiprand.h": "#ifndef HIPRAND_H_\n#define HIPRAND_H_\n#endif\n"})
    assert guards.d.problems == [
        f"header guard CURAND_H_ (curand.h): {tmp_path / 'deb' / 'hiprand/hiprand.h'} (ROCm 5.2) does not #define "
        "HIPRAND_VERSION, nor do its includes"
    ]


def test_a_cuda_header_that_does_not_define_the_guard_fails(tmp_path: Path) -> None:
    guards, _ = _guards(tmp_path, cuda_tree={"curand.h": "#pragma once\n"})
    assert guards.d.problems == [
        f"header guard CURAND_H_ (curand.h): {tmp_path / 'cuda' / 'curand.h'} does not #define CURAND_H_"
    ]


def test_a_cuda_header_missing_here_is_checked_in_the_inventory_or_skipped(tmp_path: Path) -> None:
    guards, _ = _guards(tmp_path)
    assert guards.d.problems == []
    assert any("curand.h is not in" in m for m in guards.messages)
    recorded = {"CURAND_H_": [{"kind": "macro", "header": "curand.h"}]}
    guards, _ = _guards(tmp_path / "again", cuda_records=recorded)
    assert not any("curand.h is not in" in m for m in guards.messages)


def test_a_macro_missing_from_a_release_fails(tmp_path: Path) -> None:
    names = {rel: {"HIPRAND_VERSION"} for rel in RELEASES if rel != "6.4"}
    guards, _ = _guards(tmp_path, names=names)
    assert guards.d.problems == ["header guard CURAND_H_ (curand.h): HIPRAND_VERSION is in no inventory of ROCm 6.4"]


def test_a_header_without_hip_counterpart_fails(tmp_path: Path) -> None:
    guards, fam = _guards(tmp_path, include={"hip": None, "library": "curand"})
    assert fam.rules == []
    assert guards.d.problems == ["header guard CURAND_H_ (curand.h): curand.h has no HIP counterpart in `includes:`"]


ROCM63 = REPO.parent / "shared" / "rocm-6.3"
GUARD_CASE = REPO / "tests" / "fixtures" / "guard_cuda_headers"


def test_guards_of_cuda_headers_run_as_reported(tmp_path: Path) -> None:
    """Issue #39 item 5, proven by a run: the guard_cuda_headers fixture's HIP output, compiled for the host
    with ROCm 6.3's headers and run, takes the cooperative-groups path as CUDA does (the guard is mapped,
    HC010); the fp16 and bf16 tests, which no HIP macro answers in every release, are false on HIP, and
    their translation reports each of them (HC002) instead of leaving them silently false."""
    if shutil.which("clang++-19") is None or not (ROCM63 / "include" / "hip" / "hip_runtime.h").is_file():
        reason = "needs clang++-19 and ROCm 6.3's headers (../shared/rocm-6.3)"
        print(f"test_guards_of_cuda_headers_run_as_reported: skipped: {reason}")
        pytest.skip(reason)
    out = tmp_path / "hip"
    result = run_cli("translate", GUARD_CASE / "cuda", "-o", out, "--rocm-version", "6.3")
    reported = set(re.findall(r"reduce\.cu:(\d+):\d+: \w+\[(HC\d+)", result.stderr))
    assert reported == {("9", "HC010"), ("18", "HC002"), ("27", "HC002")}
    binary = tmp_path / "reduce"
    command = [
        *("clang++-19", "-x", "hip", "--offload-arch=gfx90a", "--cuda-host-only", "-nogpulib"),
        *(f"--rocm-path={ROCM63}", "-isystem", str(ROCM63 / "include"), "-w"),
        *(str(out / "reduce.cu"), "-o", str(binary)),
    ]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    printed = subprocess.run([binary], check=True, capture_output=True, text=True, timeout=60).stdout
    # CUDA prints group=tiled half=half2 bf16=bfloat162
    assert printed == "group=tiled half=float bf16=float\n"
