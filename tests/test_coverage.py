"""Library coverage: computed from the rules and the bundled symbol list."""

from __future__ import annotations

from pathlib import Path

from helpers import run_cli
from hipconv.rules import load_ruleset
from hipconv.rules.coverage import coverage, load_symbols
from hipconv.rules.load import load_rules
from hipconv.rules.model import RuleSet

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
    rows = {row.library: row for row in coverage(ruleset, symbols)}
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
    )
    assert (rows[0].with_rule, rows[0].twins_without_rule) == (1, ("cub::Other",))


def test_every_library_twin_has_a_rule() -> None:
    """The coverage target of the library rules: no CUDA symbol whose HIP twin exists lacks a rule."""
    rows = {row.library: row for row in coverage(load_ruleset(), load_symbols())}
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
