"""Warp programs run on 64-lane wavefronts (issue #11): each CUDA program in tests/warp_programs/ is
translated by hipconv, compiled with g++ against AMD's HIP-CPU runtime (../shared/hip-cpu, whose
wavefronts have 64 lanes, as on AMD GPUs) and run.

For every program exactly one of two things must hold: it prints PASS, or hipconv reported (as a
translation diagnostic or a `hipconv scan` finding) the line that makes it fail. A program declares
that line with a `// HAZARD: HCnnn` comment on it; a program that fails without a declared and
reported line fails the test, and so does one that declares a hazard but passes on 64 lanes.

HIP-CPU predates the `*_sync` builtins and g++ cannot parse `<<<...>>>`, so the programs are
translated for ROCm 5.2 (which drops the masks) with hipLaunchKernelGGL launches; the scan runs
at the newest bundled release, as a user would run it. hipconv/builder/hip_cpu_include/ (which
`hipconv build --backend hip-cpu` force-includes too) stands in for the few ROCm device functions
HIP-CPU lacks (see its headers).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from hipconv.api import translate_tree
from hipconv.config import Config, settings_from
from hipconv.resources import build_file
from hipconv.rules import load_ruleset
from hipconv.scan.scanner import scan_sources
from hipconv.translate.source import SourceFile

PROGRAM_DIR = Path(__file__).parent / "warp_programs"
PROGRAMS = sorted(PROGRAM_DIR.glob("*.cu"))
STAND_INS = build_file("hip_cpu_include")  # hipcpu_prelude.h (force-included) and hip/hip_cooperative_groups.h
HIP_CPU = Path(__file__).resolve().parents[2] / "shared" / "hip-cpu" / "include"
TBB_HEADERS = (Path("/usr/include/tbb"), Path("/usr/include/oneapi/tbb"))
HAZARD = re.compile(r"//\s*HAZARD:\s*(HC\d{3})\b")
CXX_FLAGS = ("-std=c++17", "-O1", "-w", f"-I{STAND_INS}", f"-I{HIP_CPU}")
COMPILE_TIMEOUT_S, RUN_TIMEOUT_S = 300, 60


def missing_tools() -> str | None:
    """Why the programs cannot be built here, or None."""
    if not (HIP_CPU / "hip" / "hip_runtime.h").is_file():
        return f"HIP-CPU not found at {HIP_CPU} (../shared/hip-cpu)"
    if shutil.which("g++") is None:
        return "g++ not found on PATH"
    if not any(p.is_dir() for p in TBB_HEADERS):
        return "TBB headers not found (apt-get install libtbb-dev; .ci/run does)"
    return None


@pytest.fixture(scope="module")
def prelude(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The force-included prelude, precompiled once (HIP-CPU's headers take most of a compile)."""
    reason = missing_tools()
    if reason is not None:
        print(f"test_hip_cpu: skipped: {reason}")
        pytest.skip(reason)
    pch_dir = tmp_path_factory.mktemp("hip-cpu-pch")
    header = pch_dir / "hipcpu_prelude.h"
    shutil.copyfile(STAND_INS / "hipcpu_prelude.h", header)
    # a failed precompile only costs time: g++ then reads the header itself
    subprocess.run(
        ["g++", *CXX_FLAGS, "-x", "c++-header", str(header), "-o", f"{header}.gch"],
        capture_output=True,
        timeout=COMPILE_TIMEOUT_S,
        check=False,
    )
    return header


def declared_hazards(program: Path) -> set[tuple[int, str]]:
    """(line, code) of each `// HAZARD: HCnnn` comment in the CUDA source."""
    lines = program.read_text().splitlines()
    return {(n, m.group(1)) for n, line in enumerate(lines, 1) for m in HAZARD.finditer(line)}


def scan_findings(program: Path) -> set[tuple[int, str]]:
    """(line, code) of what `hipconv scan PROGRAM` reports, at the newest bundled release."""
    settings = settings_from(Config(), None, "chevron")
    table = load_ruleset().table(settings)
    scan = scan_sources([SourceFile.from_bytes(program.name, program.read_bytes())], table, settings)[0]
    assert not scan.failure, scan.trace or scan.failure
    return {(f.diagnostic.line, f.diagnostic.code) for f in scan.findings}


@dataclass
class Run:
    passed: bool
    output: str  # the compiler's or the program's output, for the failure message


def build_and_run(translated: Path, prelude: Path, work: Path) -> Run:
    binary = work / translated.stem
    compiled = subprocess.run(
        ["g++", *CXX_FLAGS, f"-I{translated.parent}", "-include", str(prelude), "-x", "c++", str(translated)]
        + ["-x", "none", "-o", str(binary), "-ltbb", "-lpthread"],
        capture_output=True,
        text=True,
        timeout=COMPILE_TIMEOUT_S,
        check=False,
    )
    if compiled.returncode != 0:
        return Run(False, f"g++ failed (exit {compiled.returncode}):\n{compiled.stderr[-4000:]}")
    ran = subprocess.run([str(binary)], capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
    says_pass = ran.stdout.startswith("PASS")
    # a program's exit status and its verdict must agree, or the program itself is broken
    assert says_pass == (ran.returncode == 0), f"exit {ran.returncode} with output:\n{ran.stdout}{ran.stderr}"
    return Run(says_pass, f"exit {ran.returncode}: {ran.stdout}{ran.stderr}")


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_warp_program_passes_on_64_lanes_or_its_hazard_is_reported(
    program: Path, prelude: Path, tmp_path: Path
) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    shutil.copyfile(program, src / program.name)
    translation = translate_tree(src, out, rocm_version="5.2", kernel_launch="hip")
    assert not translation.failed, translation.failed
    reported = {(d.line, d.code) for d in translation.diagnostics} | scan_findings(program)

    run = build_and_run(out / program.name, prelude, tmp_path)

    declared = declared_hazards(program)
    if run.passed:
        assert not declared, f"passes on 64 lanes, yet declares hazards {sorted(declared)}: the declaration is wrong"
        return
    assert declared, (
        f"fails on 64 lanes and declares no `// HAZARD: HCnnn` line ({run.output}); hipconv reported {sorted(reported)}"
    )
    unreported = declared - reported
    assert not unreported, (
        f"fails on 64 lanes ({run.output}) and hipconv did not report {sorted(unreported)}; "
        f"it reported {sorted(reported)}"
    )


def test_programs_cover_both_outcomes() -> None:
    """The set holds programs expected to pass and programs with a declared hazard."""
    hazardous = [p.name for p in PROGRAMS if declared_hazards(p)]
    assert hazardous and len(hazardous) < len(PROGRAMS)
