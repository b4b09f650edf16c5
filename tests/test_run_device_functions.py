"""The device functions the CPU backend stands in for (issue #39): ROCm 6.3's device math and intrinsic
functions that HIP-CPU does not declare are either defined by hip_cpu_include/hipcpu_device_functions.h
or listed in hip_cpu.yaml's device_functions_not_supplied with the reason, and each one defined computes
what ROCm computes (tests/run_device_functions/device_functions.cu, run on HIP-CPU).

The sets are derived here, not typed: the names from the ROCm 6.3 inventory (../shared/api-inventory/hip),
what HIP-CPU declares by asking g++ (one `using ::NAME;` per name: an undeclared one is an error naming it).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from test_hip_cpu import CXX_FLAGS, STAND_INS, missing_tools

from helpers import SHARED

INVENTORY = SHARED / "api-inventory" / "hip" / "device.jsonl"  # ROCm 6.3
# ROCm's device math and intrinsics (the rest of device.jsonl: atomics, warp functions, textures, built-in
# variables, constants, which the backend handles elsewhere or not at all)
HEADERS = frozenset(
    {
        "@clang/__clang_hip_math.h",
        "hip/amd_detail/amd_device_functions.h",
        "hip/amd_detail/amd_math_functions.h",
    }
)
PROGRAM = Path(__file__).parent / "run_device_functions" / "device_functions.cu"
_UNDECLARED = re.compile(r"[‘'](\w+)[’'] has not been declared")


def rocm_device_functions() -> list[str]:
    records = [json.loads(line) for line in INVENTORY.read_text(encoding="utf-8").splitlines()]
    return sorted({r["name"] for r in records if r["kind"] == "function" and r["header"] in HEADERS})


def undeclared(names: list[str], tmp_path: Path, *, prelude: bool) -> set[str]:
    """The names g++ finds no declaration of, with HIP-CPU's runtime header (and hipconv's prelude)."""
    probe = tmp_path / f"probe_{prelude}.cpp"
    include = "" if prelude else "#include <hip/hip_runtime.h>\n"
    probe.write_text(include + "namespace probe {\n" + "".join(f"using ::{n};\n" for n in names) + "}\n")
    forced = ["-include", str(STAND_INS / "hipcpu_prelude.h")] if prelude else []
    done = subprocess.run(
        ["g++", *CXX_FLAGS, "-fsyntax-only", "-fmax-errors=0", *forced, str(probe)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    found = set(_UNDECLARED.findall(done.stderr))
    others = [line for line in done.stderr.splitlines() if ": error:" in line and "has not been declared" not in line]
    assert not others, "\n".join(others[:10])
    return found


def not_supplied() -> dict[str, str]:
    data = yaml.safe_load((STAND_INS.parent / "hip_cpu.yaml").read_text(encoding="utf-8"))
    return {name: group["why"] for group in data["device_functions_not_supplied"] for name in group["names"]}


@pytest.fixture(scope="module")
def tools() -> None:
    reason = missing_tools() or (None if INVENTORY.is_file() else f"no ROCm 6.3 inventory at {INVENTORY}")
    if reason is not None:
        print(f"test_run_device_functions: skipped: {reason}")
        pytest.skip(reason)


def test_every_missing_device_function_is_supplied_or_listed_with_its_reason(tools: None, tmp_path: Path) -> None:
    names = rocm_device_functions()
    lacking = undeclared(names, tmp_path, prelude=False)  # what HIP-CPU lacks of ROCm's
    left = undeclared(sorted(lacking), tmp_path, prelude=True)  # and still lacks with hipconv's stand-ins
    listed = not_supplied()
    assert left == set(listed), (
        f"missing and not listed in hip_cpu.yaml: {sorted(left - set(listed))}; "
        f"listed but supplied or declared: {sorted(set(listed) - left)}"
    )
    supplied = lacking - left
    assert {"__fdividef", "__saturatef", "__frcp_rn", "__float2int_rn", "__brev", "__byte_perm"} <= supplied
    # each one supplied is exercised by the program below
    called = set(re.findall(r"\b(__\w+)\(", PROGRAM.read_text(encoding="utf-8")))
    assert supplied <= called, f"supplied but not checked by {PROGRAM.name}: {sorted(supplied - called)}"


def test_supplied_device_functions_compute_what_rocm_computes(tools: None, tmp_path: Path) -> None:
    """Each stand-in, called in a kernel on HIP-CPU, against the value ROCm gives (exact bits)."""
    binary = tmp_path / "device_functions"
    forced = ["-include", str(STAND_INS / "hipcpu_prelude.h")]
    subprocess.run(
        ["g++", *CXX_FLAGS, *forced, "-x", "c++", str(PROGRAM), "-o", str(binary), "-ltbb", "-lpthread"],
        check=True,
        timeout=300,
    )
    done = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout == "PASS\n" and done.returncode == 0, done.stdout + done.stderr


def test_docs_give_the_derived_counts(tools: None, tmp_path: Path) -> None:
    """docs/build-backends.md's counts are the derived ones."""
    names = rocm_device_functions()
    lacking = undeclared(names, tmp_path, prelude=False)
    listed = not_supplied()
    text = " ".join(
        (Path(__file__).resolve().parents[1] / "docs" / "build-backends.md").read_text(encoding="utf-8").split()
    )
    said = (
        f"ROCm 6.3 declares {len(names)} device math and intrinsic functions",
        f"of which HIP-CPU declares {len(names) - len(lacking)}",
        f"defines {len(lacking) - len(listed)} of the others",
        f"The {len(listed)} left are listed",
    )
    for words in said:
        assert words in text, words
