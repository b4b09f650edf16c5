"""The warp programs of tests/warp_programs/ (issue #11), translated as CUDA with `hipconv translate`,
compile for an AMD GPU: for ROCm 5.2 with Debian's hipcc (gfx90a), and for ROCm 6.3 against ROCm 6.3's
own headers (../shared/rocm-6.3/bin/hipcc-syntax).

tests/test_hip_cpu.py runs the same programs on 64-lane wavefronts. A hazard one of them declares
(`// HAZARD: HCnnn`) is wrong behaviour on 64 lanes, which hipconv reports; it must not stop the
program from compiling, so every program must compile at both releases.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_hip_cpu import PROGRAMS

from helpers import debian_hipcc, hipcc_syntax, hipcc_syntax_missing, run_cli

# Known gaps: (program, release) -> the defect. Strict, so that a fix makes the test say so.
KNOWN_GAPS: dict[tuple[str, str], str] = {}


def _params(release: str) -> list[object]:
    params = []
    for program in PROGRAMS:
        gap = KNOWN_GAPS.get((program.stem, release))
        marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
        params.append(pytest.param(program, id=program.stem, marks=marks))
    return params


def translated(program: Path, release: str, work: Path) -> Path:
    """The program translated by `hipconv translate` for `release`, alone in its tree (with the
    hipconv_compat.h the translation writes beside it)."""
    src, out = work / "cuda", work / "hip"
    src.mkdir()
    shutil.copyfile(program, src / program.name)
    done = run_cli("translate", src, "-o", out, "--rocm-version", release)
    assert done.code in (0, 1), done.stderr  # 1: findings (the hazards), which do not stop the output
    return out / program.name


@pytest.mark.hipcc
@pytest.mark.parametrize("program", _params("5.2"))
def test_warp_program_compiles_for_rocm52_with_debian_hipcc(
    program: Path, tmp_path: Path, hip_env: dict[str, str]
) -> None:
    unit = translated(program, "5.2", tmp_path)
    obj = tmp_path / f"{program.stem}.o"
    done = debian_hipcc(unit, obj, hip_env, [unit.parent])
    assert done.returncode == 0, f"{' '.join(done.args)}\n{done.stderr[-4000:]}"
    assert obj.stat().st_size > 0


@pytest.mark.hipcc
@pytest.mark.skipif(hipcc_syntax_missing() is not None, reason=hipcc_syntax_missing() or "")
@pytest.mark.parametrize("program", _params("6.3"))
def test_warp_program_compiles_for_rocm63(program: Path, tmp_path: Path) -> None:
    unit = translated(program, "6.3", tmp_path)
    done = hipcc_syntax(unit, [unit.parent])
    assert done.returncode == 0, f"{' '.join(done.args)}\n{(done.stdout + done.stderr)[-4000:]}"
