"""Library coverage: computed from the rules and the bundled symbol list."""

from __future__ import annotations

from pathlib import Path

from hipconv.coverage import coverage, load_symbols
from hipconv.ruleset import load_rules, RuleSet

from helpers import run_cli

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
    symbols = [("cublas", "cublasSgemm_v2", "hipblasSgemm"), ("cublas", "cublasDgemm_v2", "hipblasDgemm"),
               ("cublas", "cublasXtInit", ""), ("cublas", "cublasZgemm_v2", "hipblasZgemm"),
               ("cublas", "cublasNoTwin", ""), ("nccl", "ncclAllReduce", "ncclAllReduce")]
    rows = {row.library: row for row in coverage(ruleset, symbols)}
    assert (rows["cublas"].symbols, rows["cublas"].with_rule, rows["cublas"].supported,
            rows["cublas"].unsupported) == (5, 3, 2, 1)
    assert rows["cublas"].twins_without_rule == ("cublasZgemm_v2",)
    assert rows["nccl"].twins_without_rule == ("ncclAllReduce",)


def test_bundled_symbols_are_well_formed() -> None:
    for library, name, _ in load_symbols():
        assert library and name and "\t" not in name


def test_rules_coverage_command_unknown_library() -> None:
    result = run_cli("rules", "coverage", "--library", "nosuchlib")
    assert result.code == 2
    assert "no coverage data" in result.stderr
