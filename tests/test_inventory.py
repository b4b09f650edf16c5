"""Rule data against the API inventories.

The compact name lists in hipconv/data (derived from ../shared/api-inventory by
tools/derive_rules.py) make these checks work on a fresh clone; where the full
inventory is present (our machines, CI), the derivation is re-run and must
reproduce the committed rules and data exactly.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hipconv.translate.launches import HIP_KERNEL_NAME, HIP_LAUNCH
from hipconv.resources import data_file, hip_releases
from hipconv.rules import load_ruleset
from hipconv.settings import Version

REPO = Path(__file__).resolve().parents[1]
INVENTORY = REPO.parent / "shared" / "api-inventory"


def names(release: str) -> set[str]:
    return set(data_file(f"hip-{release}.names").read_text().split())


def headers(release: str) -> set[str]:
    return set(data_file(f"hip-{release}.headers").read_text().split())


def releases_in_range(rule) -> list[str]:
    lowest, since, until = Version((0,)), rule.rocm.since, rule.rocm.until
    return [r for r in hip_releases() if (since or lowest) <= Version.parse(r) and (until is None or Version.parse(r) < until)]


def test_bundled_releases() -> None:
    assert hip_releases() == ["5.2", "6.3"]


def test_every_emitted_hip_name_exists_in_its_releases() -> None:
    missing = []
    for rule in load_ruleset().rules:
        if rule.hip is None:
            continue
        for release in releases_in_range(rule):
            known = headers(release) if rule.kind.value == "include" else names(release)
            if rule.hip not in known:
                missing.append(f"{rule.origin}: {rule.hip} not in ROCm {release}")
    assert missing == []


def test_launch_spellings_exist() -> None:
    for release in hip_releases():
        assert {HIP_LAUNCH, HIP_KERNEL_NAME, "dim3"} <= names(release)


def _mechanical_twins(cuda: str) -> list[str]:
    if cuda.startswith("cuda"):
        return ["hip" + cuda[4:]]
    if cuda.startswith("CUDA_"):
        return ["HIP_" + cuda[5:]]
    if cuda.startswith("cu") and cuda[2:3].isupper():
        return ["hip" + cuda[2:]]
    if cuda.startswith("CU") and cuda[2:3].islower():
        return ["hip" + cuda[2].upper() + cuda[3:], "hip" + cuda[2].upper() + cuda[3:] + "_t"]
    return []


def test_runtime_and_driver_symbols_with_a_hip_twin_have_rules() -> None:
    """Lists the CUDA runtime/driver symbols whose HIP counterpart exists but that no rule covers."""
    ruled = {r.cuda for r in load_ruleset().rules}
    hip = names("6.3")
    without_rule = []
    for line in data_file("cuda-13.names").read_text().splitlines():
        library, _, cuda = line.partition("\t")
        if library not in ("cuda_runtime", "cuda_driver") or cuda in ruled:
            continue
        twins = [t for t in _mechanical_twins(cuda) if t in hip]
        if twins:
            without_rule.append(f"{library}: {cuda} -> {twins[0]}")
    print("\n".join(without_rule) or "none")
    assert without_rule == []


def test_runtime_and_driver_coverage_is_complete() -> None:
    """Every runtime/driver name of the CUDA inventory has a rule (mapped, or marked unsupported)."""
    ruled = {r.cuda for r in load_ruleset().rules}
    lines = data_file("cuda-13.names").read_text().splitlines()
    api = [n for lib, _, n in (line.partition("\t") for line in lines) if lib in ("cuda_runtime", "cuda_driver")]
    uncovered = sorted(n for n in api if n not in ruled and not n.startswith(("PFN_", "__", "_")))
    assert len(uncovered) <= len(api) // 50, uncovered[:50]


@pytest.mark.skipif(not INVENTORY.is_dir(), reason="../shared/api-inventory is not on this machine")
def test_derivation_reproduces_the_committed_data(tmp_path: Path) -> None:
    work = tmp_path / "repo"
    shutil.copytree(REPO / "tools", work / "tools")
    (work / "rules").mkdir()
    (work / "hipconv" / "data").mkdir(parents=True)
    done = subprocess.run([sys.executable, str(work / "tools" / "derive_rules.py"), "--inventory", str(INVENTORY)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for folder in ("rules", "hipconv/data"):
        for path in sorted((REPO / folder).iterdir()):
            if path.suffix in (".yaml", ".names", ".headers"):
                assert (work / folder / path.name).read_bytes() == path.read_bytes(), f"{folder}/{path.name} is stale"
