"""Library coverage: computed from the rules and the bundled symbol list."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.resources import hip_releases
from hipconv.rules import load_ruleset
from hipconv.rules.coverage import coverage, load_symbols
from hipconv.rules.load import load_rules
from hipconv.rules.model import RuleSet
from hipconv.settings import Version

NEWEST = Version.parse(hip_releases()[-1])

RULES = """\
defaults: {library: cublas, kind: function}
rules:
  - {cuda: cublasSgemm_v2, hip: hipblasSgemm}
  - {cuda: cublasDgemm_v2, hip: hipblasDgemm, status: deprecated}
  - {cuda: cublasXtInit, status: unsupported}
"""


def test_coverage_counts(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(RULES)
    ruleset = RuleSet(load_rules([tmp_path / "r.yaml"]), {})
    symbols = [
        ("cublas", "cublasSgemm_v2", "hipblasSgemm"),
        ("cublas", "cublasDgemm_v2", "hipblasDgemm"),
        ("cublas", "cublasXtInit", ""),
        ("cublas", "cublasZgemm_v2", "hipblasZgemm"),
        ("cublas", "cublasNoTwin", ""),
        ("nccl", "ncclAllReduce", "ncclAllReduce"),
    ]
    rows = {row.library: row for row in coverage(ruleset, symbols, NEWEST)}
    assert (rows["cublas"].symbols, rows["cublas"].with_rule, rows["cublas"].supported, rows["cublas"].unsupported) == (
        5,
        3,
        2,
        1,
    )
    assert rows["cublas"].twins_without_rule == ("cublasZgemm_v2",)
    assert rows["nccl"].twins_without_rule == ("ncclAllReduce",)


def test_bundled_symbols_are_well_formed() -> None:
    for library, name, _ in load_symbols():
        assert library and name and "\t" not in name


def test_rules_coverage_command_unknown_library() -> None:
    result = run_cli("rules", "coverage", "--library", "nosuchlib")
    assert result.code == 2
    assert "no coverage data" in result.stderr


def test_members_are_covered_by_their_longest_prefix(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(
        "defaults: {library: cub, kind: class}\nrules:\n  - {cuda: cub::DeviceScan, hip: hipcub::DeviceScan}\n"
    )
    ruleset = RuleSet(load_rules([tmp_path / "r.yaml"]), {})
    rows = coverage(
        ruleset,
        [
            ("cub", "cub::DeviceScan::ExclusiveSum", "hipcub::DeviceScan::ExclusiveSum"),
            ("cub", "cub::Other", "hipcub::Other"),
        ],
        NEWEST,
    )
    assert (rows[0].with_rule, rows[0].twins_without_rule) == (1, ("cub::Other",))


def test_every_library_twin_has_a_rule() -> None:
    """The coverage target of the library rules: no CUDA symbol whose HIP twin exists lacks a rule."""
    rows = {row.library: row for row in coverage(load_ruleset(), load_symbols(), NEWEST)}
    expected = {
        "cublas",
        "cublaslt",
        "curand",
        "curand_kernel",
        "cufft",
        "cusparse",
        "cusolver",
        "nccl",
        "nvrtc",
        "cub",
        "thrust",
        "cuda_complex",
    }
    assert expected <= set(rows)
    assert {name: row.twins_without_rule for name, row in rows.items() if row.twins_without_rule} == {}
    for row in rows.values():
        assert row.with_rule == row.supported + row.unsupported <= row.symbols


def test_counts_follow_the_release(tmp_path: Path) -> None:
    """A rule counts as translated only for the releases whose HIP name it may write."""
    (tmp_path / "r.yaml").write_text(
        "defaults: {library: cublas, kind: function}\nrules:\n"
        "  - {cuda: cublasNew, hip: hipblasNew, rocm: {since: '6.0'}}\n"
        "  - {cuda: cublasOld, hip: hipblasOld, id: cublas.old, rocm: {since: '5.2', until: '7.0'}}\n"
        "  - {cuda: cublasOld, id: cublas.old.removed, status: removed, rocm: {since: '7.0', removed: '7.0'}}\n"
    )
    ruleset = RuleSet(load_rules([tmp_path / "r.yaml"]), {})
    symbols = [("cublas", "cublasNew", "hipblasNew"), ("cublas", "cublasOld", "hipblasOld")]
    counts = {
        release: (row.with_rule, row.supported, row.unsupported)
        for release in ("5.2", "6.3", "7.2")
        for row in coverage(ruleset, symbols, Version.parse(release))
    }
    assert counts == {"5.2": (2, 1, 1), "6.3": (2, 2, 0), "7.2": (2, 1, 1)}


@pytest.mark.parametrize("release", ["5.2", "6.3", "7.2"])
def test_rules_coverage_command_prints_the_release(release: str) -> None:
    result = run_cli("rules", "coverage", "--rocm-version", release)
    assert result.code == 0, result.stderr
    out = result.stdout.decode()
    assert f"library coverage, ROCm {release}" in out
    assert "not translated" in out


def test_rules_coverage_differs_between_releases() -> None:
    """hipBLAS is in every bundled release, but much of it (the 64-bit API, the v2 functions) only later."""

    def translated(release: str) -> int:
        rows = coverage(load_ruleset(), load_symbols(), Version.parse(release))
        return next(row.supported for row in rows if row.library == "cublas")

    assert 0 < translated("5.2") < translated("6.3") <= translated("7.2")


def test_rules_coverage_default_is_the_newest_release() -> None:
    default, newest = run_cli("rules", "coverage"), run_cli("rules", "coverage", "--rocm-version", hip_releases()[-1])
    assert default.code == 0 and default.stdout == newest.stdout


@pytest.mark.parametrize("release", ["4.5", "6.5", "9.9", "latest"])
def test_rules_coverage_rejects_a_release_that_is_not_bundled(release: str) -> None:
    result = run_cli("rules", "coverage", "--rocm-version", release)
    assert result.code == 2
    assert "5.2, 5.7, 6.0, 6.1, 6.2, 6.3, 6.4, 7.0, 7.1, 7.2" in result.stderr
