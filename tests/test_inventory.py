"""Rule data against the API inventories, for every bundled ROCm release.

The compact name lists in hipconv/data (derived from ../shared/api-inventory by
tools/derive_rules.py, i.e. `python -m tools.derive`) make the name checks work on a fresh clone;
where the full inventory is present (our machines, CI), the parameter counts are checked against it
and the derivation is re-run and must reproduce the committed rules and data exactly.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_INVENTORY

from helpers import hip_headers, hip_names, ruleset
from hipconv import resources
from hipconv.resources import data_file, hip_releases
from hipconv.rules.model import Rule, RuleKind
from hipconv.settings import Version
from hipconv.translate.launches import HIP_KERNEL_NAME, HIP_LAUNCH

REPO = Path(__file__).resolve().parents[1]
BUNDLED = ["5.2", "5.7", "6.0", "6.1", "6.2", "6.3", "6.4", "7.0", "7.1", "7.2"]
HOST_ONLY = ["6.4", "7.0", "7.1", "7.2"]  # hip-python's host C APIs: the rest is carried forward from 6.3
NO_INVENTORY = f"{SHARED_INVENTORY} is not on this machine: the inventory checks and the derivation cannot run"

names, headers = hip_names, hip_headers  # loaded once per session


def releases_in_range(rule: Rule) -> list[str]:
    return [r for r in hip_releases() if rule.rocm.available(Version.parse(r)) and rule.rocm.covers(Version.parse(r))]


def test_bundled_releases() -> None:
    assert hip_releases() == BUNDLED
    assert [r for r in BUNDLED if resources.carried_from(r)] == HOST_ONLY
    assert {resources.carried_from(r) for r in HOST_ONLY} == {"6.3"}


@pytest.mark.parametrize("release", BUNDLED)
def test_every_emitted_hip_name_exists_in_its_releases(release: str) -> None:
    """Every HIP name (or header) a rule writes for `release` is declared by that release."""
    missing = []
    for rule in ruleset().rules:
        if rule.hip is None or release not in releases_in_range(rule) or rule.library == "nvcc":
            continue  # rules/compiler.yaml: macros the compiler predefines are in no header
        known = headers(release) if rule.kind is RuleKind.INCLUDE else names(release)
        if rule.hip not in known:
            missing.append(f"{rule.origin}: {rule.hip} not in ROCm {release}")
    assert missing == []


def test_compact_lists_cover_every_release() -> None:
    """hip.names / hip.headers: `name<TAB>releases[<TAB>carried]`, spans of bundled releases; a name is
    carried forward only in host-only releases, and only in releases that have it."""
    assert len({len(names(r)) for r in BUNDLED}) > 1  # the releases differ
    for table in (resources.hip_names(), resources.hip_headers()):
        for name, presence in table.items():
            assert presence.releases, name
            assert set(presence.carried) <= set(presence.releases) & set(HOST_ONLY), name
    assert len(data_file("hip.names").read_text().splitlines()) == len(resources.hip_names())


@pytest.mark.parametrize(
    ("name", "releases", "carried"),
    [
        ("hipblasGemmEx_v2", "6.0-6.4", ""),  # hipBLAS 3.0 (ROCm 7.0) removed the _v2 functions
        ("hipblasComplex", "5.2-6.4", ""),
        ("__shfl_sync", "6.2-7.2", "6.4-7.2"),  # device code: carried forward
        ("hipcub::BlockReduce", "5.2-7.2", "6.4-7.2"),
        ("hipDeviceAttributeGcnArch", "5.2-5.7", ""),
        ("hipGraphAddExternalSemaphoresSignalNode", "5.7,6.1-7.2", ""),  # missing from 6.0 only
        ("hipLaunchKernelExC", "7.0-7.2", ""),
    ],
)
def test_presence_of_known_names(name: str, releases: str, carried: str) -> None:
    presence = resources.hip_names()[name]
    assert presence.releases == resources.expand_spans(releases, BUNDLED)
    assert presence.carried == resources.expand_spans(carried, BUNDLED)


@pytest.mark.parametrize("release", BUNDLED)
def test_launch_spellings_exist(release: str) -> None:
    assert {HIP_LAUNCH, HIP_KERNEL_NAME, "dim3"} <= names(release)


# -- against the full inventory (../shared/api-inventory) ------------------------------------------


@functools.cache
def inventory():  # type: ignore[no-untyped-def]
    """The derivation's own view of the inventories (tools/derive/inventory.py: what host-only
    releases carry forward is decided there, once)."""
    from tools.derive.inventory import Inventory

    return Inventory.load(SHARED_INVENTORY)


@functools.cache
def signature_differs() -> frozenset[str]:
    """CUDA names whose curated mapping says the parameter counts differ by design (a default argument)."""
    from tools.derive.curated import Curated

    cur = Curated.load(REPO / "tools" / "curated.yaml")
    facts = {**cur.section("mappings"), **cur.section("twins")}  # twins: read like mappings (tools/derive/twins.py)
    return frozenset(name for name, fact in facts.items() if fact.get("signature_differs"))


def _counts(records: list[dict]) -> set[int]:
    return {len(r["params"]) for r in records if r["kind"] == "function" and "params" in r}


def call_counts(rule: Rule) -> set[int]:
    """How many arguments the call the rule writes may have: its `args` (less omitted `optional` ones),
    else those of the CUDA call (the function, or what a CUDA macro of the same name forwards to)."""
    if rule.args is not None or rule.params is not None:
        args = rule.args if rule.args is not None else rule.params
        assert args is not None
        optional = [p for p in rule.optional if p in args]
        return {len(args) - k for k in range(len(optional) + 1)}
    cuda = inventory().cuda
    records = cuda.records(rule.cuda)
    targets = [str(r.get("value", "")) for r in records if r["kind"] == "macro" and not r.get("params")]
    counts = _counts(records)
    for target in targets:
        counts |= _counts(cuda.records(target.strip("() ").split("(")[-1]))
    return counts


@pytest.mark.skipif(not SHARED_INVENTORY.is_dir(), reason=NO_INVENTORY)
@pytest.mark.parametrize("release", BUNDLED)
def test_emitted_functions_take_the_call_s_arguments(release: str) -> None:
    """For every bundled release: a function a rule writes is declared by that release (carried forward
    where its inventory is host-only) and takes as many arguments as the call has, where both sides
    record parameters.  Templates write their own calls (tests/test_cudnn.py checks MIOpen's)."""
    snapshot = inventory().hip[release]
    wrong = []
    for rule in ruleset().rules:
        if rule.hip is None or rule.kind is not RuleKind.FUNCTION or release not in releases_in_range(rule):
            continue
        if not snapshot.has(rule.hip):
            wrong.append(f"{rule.origin}: {rule.hip} not in ROCm {release}")
            continue
        if rule.template is not None or rule.cuda in signature_differs():
            continue
        have, want = _counts(snapshot.records(rule.hip)), call_counts(rule)
        if have and want and not have & want:
            wrong.append(f"{rule.origin}: {rule.hip} takes {sorted(have)} in ROCm {release}, the call {sorted(want)}")
    assert wrong == []


@pytest.mark.skipif(not SHARED_INVENTORY.is_dir(), reason=NO_INVENTORY)
def test_compact_lists_are_the_inventory_s() -> None:
    """hip.names holds, per release, exactly the names of that release's (carried-forward) inventory."""
    inv = inventory()
    for release in BUNDLED:
        assert names(release) == frozenset(inv.hip[release].plain_names()), release


@pytest.mark.skipif(not SHARED_INVENTORY.is_dir(), reason=NO_INVENTORY)
@pytest.mark.parametrize("release", BUNDLED)
def test_enumerator_values_are_the_inventory_s(release: str) -> None:
    """hip.enumerators holds, per release, the value of every HIP enumerator a rule writes that the release's
    (carried-forward) inventory gives one integer value, and nothing else."""
    snapshot = inventory().hip[release]
    expected = {}
    for rule in ruleset().rules:
        if rule.hip and rule.kind is RuleKind.ENUMERATOR:
            values = {r.get("value") for r in snapshot.records(rule.hip) if r["kind"] == "enumerator"}
            if len(values) == 1 and isinstance(value := values.pop(), int):
                expected[rule.hip] = value
    assert dict(resources.hip_enumerator_values(release)) == expected


@pytest.mark.parametrize("release", BUNDLED)
def test_enumerator_values_of_known_names(release: str) -> None:
    """Two names of one value (hipError_t has both), and a value that changed (hipsparseOrder_t, ROCm 6.0)."""
    values = resources.hip_enumerator_values(release)
    assert values["hipErrorMemoryAllocation"] == values["hipErrorOutOfMemory"] == 2
    assert values["HIPBLAS_STATUS_SUCCESS"] == 0
    assert values["HIPSPARSE_ORDER_ROW"] == (0 if release in ("5.2", "5.7") else 2)


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
    hip = names(hip_releases()[-1])
    without_rule = []
    for line in data_file("cuda.names").read_text().splitlines():
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
    lines = data_file("cuda.names").read_text().splitlines()
    api = [n for lib, _, n in (line.partition("\t") for line in lines) if lib in ("cuda_runtime", "cuda_driver")]
    uncovered = sorted(n for n in api if n not in ruled and not n.startswith(("PFN_", "__", "_")))
    assert len(uncovered) <= len(api) // 50, uncovered[:50]


# -- the derivation (tools/derive) ---------------------------------------------------------------


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


# hipconv/data files another script writes, from the real HIP headers rather than the inventories:
# hip.vector-ops (tools/derive/vector_ops.py; tests/test_vector_ops.py checks it)
PROBED_DATA = frozenset({"README.md", "hip.vector-ops"})


def _derived_files(root: Path, written: bool) -> set[str]:
    """The derivation's output files under a repository root: all of rules/ and hipconv/data/ in a
    fresh copy (`written`), else the committed rules/*.yaml and hipconv/data/* but its README.md and
    the files probed from the headers."""
    rules = (root / "rules").iterdir() if written else (root / "rules").glob("*.yaml")
    data = [p for p in (root / "hipconv" / "data").iterdir() if written or p.name not in PROBED_DATA]
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


def test_curated_facts_are_checked_against_the_schema_of_their_declarations(tmp_path: Path) -> None:
    """curated.yaml is validated by the JSON Schema generated from tools/derive/curated.py's Entry and
    Section declarations: each problem names its line and entry, all at once."""
    from hipconv.errors import RuleSchemaError
    from tools.derive.curated import Curated

    curated = tmp_path / "curated.yaml"
    curated.write_text(
        "mappings:\n"
        "  cudaFree:\n"
        "    hip: 3\n"
        "    status: gone\n"
        "rocm_since:\n"
        "  hipFoo: '6.x'\n"
        "warp_sync:\n"
        "  __shfl_sync: {maskless: __shfl}\n"
        "includes:\n"
        "  cuda.h: {hip: [a.h, 3]}\n"
        "libraries:\n"
        "  cublas:\n"
        "    unsupported_notes: {'cublas(': a note}\n"
        "compiler_macros:\n"
        "  __X__: {hip: __Y__, note: n, note: m}\n"
    )
    with pytest.raises(RuleSchemaError) as info:
        Curated.load(curated)
    assert str(info.value).splitlines()[1:] == [
        f"  {curated}:15: key 'note' given twice",
        f"  {curated}:3 (cudaFree): 'hip' must be a string",
        f"  {curated}:4 (cudaFree): 'status' must be one of supported, deprecated, experimental, unsupported, removed",
        f"  {curated}:6 (rocm_since): hipFoo: invalid version '6.x': expected X.Y or X.Y.Z",
        f"  {curated}:8 (__shfl_sync): 'since' is required",
        f"  {curated}:10 (cuda.h): 'hip' must be a string or a list of names",
        f"  {curated}:13: invalid regular expression 'cublas(': missing ), unterminated subpattern at position 6",
    ]


def test_committed_curated_facts_fit_their_schema() -> None:
    from tools.derive.curated import Curated

    assert Curated.load(REPO / "tools" / "curated.yaml").section("mappings")
