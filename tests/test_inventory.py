"""Rule data against the API inventories.

The compact name lists in hipconv/data (derived from ../shared/api-inventory by
tools/derive_rules.py, i.e. `python -m tools.derive`) make these checks work on a fresh clone;
where the full inventory is present (our machines, CI), the derivation is re-run and must
reproduce the committed rules and data exactly.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_INVENTORY

from helpers import hip_headers, hip_names, ruleset
from hipconv.resources import data_file, hip_releases
from hipconv.settings import Version
from hipconv.translate.launches import HIP_KERNEL_NAME, HIP_LAUNCH

REPO = Path(__file__).resolve().parents[1]


names, headers = hip_names, hip_headers  # loaded once per session


def releases_in_range(rule) -> list[str]:
    lowest, since, until = Version((0,)), rule.rocm.since, rule.rocm.until
    return [
        r
        for r in hip_releases()
        if (since or lowest) <= Version.parse(r) and (until is None or Version.parse(r) < until)
    ]


def test_bundled_releases() -> None:
    assert hip_releases() == ["5.2", "6.3"]


def test_every_emitted_hip_name_exists_in_its_releases() -> None:
    missing = []
    for rule in ruleset().rules:
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
    ruled = {r.cuda for r in ruleset().rules}
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
    ruled = {r.cuda for r in ruleset().rules}
    lines = data_file("cuda-13.names").read_text().splitlines()
    api = [n for lib, _, n in (line.partition("\t") for line in lines) if lib in ("cuda_runtime", "cuda_driver")]
    uncovered = sorted(n for n in api if n not in ruled and not n.startswith(("PFN_", "__", "_")))
    assert len(uncovered) <= len(api) // 50, uncovered[:50]


# -- the derivation (tools/derive) ---------------------------------------------------------------

NO_INVENTORY = f"{SHARED_INVENTORY} is not on this machine: the derivation cannot be re-run"


def _derivation_copy(tmp_path: Path) -> Path:
    """A repository root holding a copy of tools/ and empty output folders, so the derivation
    writes there and not into this checkout."""
    work = tmp_path / "repo"
    shutil.copytree(REPO / "tools", work / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    (work / "rules").mkdir()
    (work / "hipconv" / "data").mkdir(parents=True)
    return work


def _derive(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the copy's tools/derive_rules.py; hipconv (its rule loader) comes from this checkout."""
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, str(work / "tools" / "derive_rules.py"), *args],
        cwd=work,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=600,
    )


def _derived_files(root: Path, written: bool) -> set[str]:
    """The derivation's output files under a repository root: all of rules/ and hipconv/data/ in a
    fresh copy (`written`), else the committed rules/*.yaml and hipconv/data/* but its README.md."""
    rules = (root / "rules").iterdir() if written else (root / "rules").glob("*.yaml")
    data = [p for p in (root / "hipconv" / "data").iterdir() if written or p.name != "README.md"]
    return {f"rules/{p.name}" for p in rules} | {f"hipconv/data/{p.name}" for p in data}


@pytest.mark.skipif(not SHARED_INVENTORY.is_dir(), reason=NO_INVENTORY)
def test_derivation_reproduces_the_committed_data(tmp_path: Path) -> None:
    work = _derivation_copy(tmp_path)
    done = _derive(work, "--inventory", str(SHARED_INVENTORY))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    written, committed = _derived_files(work, written=True), _derived_files(REPO, written=False)
    assert written == committed, (
        f"not written by the derivation: {sorted(committed - written)}; "
        f"written but not committed: {sorted(written - committed)}"
    )
    stale = [name for name in sorted(written) if (work / name).read_bytes() != (REPO / name).read_bytes()]
    assert stale == [], f"stale (run `python tools/derive_rules.py` and commit the result): {stale}"


def test_curated_facts_with_an_unknown_key_fail_the_derivation(tmp_path: Path) -> None:
    """A misspelled key in curated.yaml is an error with its file and line, every one reported at once,
    before the inventory is read or anything is written."""
    work = _derivation_copy(tmp_path)
    curated = tmp_path / "curated.yaml"
    curated.write_text("mappings:\n  cudaMalloc:\n    hipp: hipMalloc\n    note: misspelled\nignor: [assert]\n")
    done = _derive(work, "--curated", str(curated), "--inventory", str(tmp_path / "no-inventory"))
    assert done.returncode != 0
    assert f"{curated}:3 (cudaMalloc): unknown key 'hipp'" in done.stderr, done.stderr
    assert f"{curated}:5: unknown key 'ignor'" in done.stderr, done.stderr
    assert "2 problem(s)" in done.stderr
    assert not any((work / "rules").iterdir()) and not any((work / "hipconv" / "data").iterdir())


def test_committed_curated_facts_fit_their_schema() -> None:
    from tools.derive.curated import Curated

    assert Curated.load(REPO / "tools" / "curated.yaml").section("mappings")
