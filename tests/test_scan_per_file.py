"""A file's findings do not depend on what else a scan names: pre-commit passes the changed files one by
one, CI scans the tree, and both must give a file the same findings. The project facts a file gets (the
names its headers declare: no HC001) come from the files it includes, named in the run or not
(hipconv.translate.include_closure), so a scan of each file alone gives exactly the findings of a scan
of the tree, on every fixture and on every corpus of ../shared/corpora."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from conftest import FIXTURES

from helpers import SHARED, run_cli
from hipconv.config import Config, settings_from
from hipconv.discover import plan
from hipconv.rules import load_ruleset
from hipconv.rules.model import LookupTable
from hipconv.scan.scanner import scan_jobs
from hipconv.settings import Settings

Key = tuple[str, int, int, str]  # path, line, column, code
CORPORA = SHARED / "corpora"
FIXTURE_TREES = sorted({*(p.parent / "cuda" for p in FIXTURES.glob("*/case.yaml")), *FIXTURES.glob("scan/*")})


@cache
def _setup() -> tuple[Settings, LookupTable]:
    settings = settings_from(Config(), None, None)
    return settings, load_ruleset().table(settings)


def _scan(path: Path) -> set[Key]:
    """The findings of `hipconv scan PATH` (its discovery and scan, in this process)."""
    settings, table = _setup()
    jobs = plan([path], None, in_place=True, excludes=(), writes=False, force=False).jobs
    scans = scan_jobs(jobs, table, settings)
    return {
        (f.diagnostic.path, f.diagnostic.line, f.diagnostic.col, f.diagnostic.code) for s in scans for f in s.findings
    }


def _files(tree: Path) -> list[Path]:
    return [Path(job.path) for job in plan([tree], None, in_place=True, excludes=(), writes=False, force=False).jobs]


def _whole_and_per_file(tree: Path) -> tuple[set[Key], set[Key]]:
    whole = _scan(tree.resolve())
    per_file: set[Key] = set()
    for path in _files(tree.resolve()):
        per_file |= _scan(path)
    return whole, per_file


@pytest.mark.parametrize("tree", FIXTURE_TREES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_each_fixture_file_alone_gets_the_findings_of_its_tree(tree: Path) -> None:
    whole, per_file = _whole_and_per_file(tree)
    assert sorted(per_file - whole) == [] and sorted(whole - per_file) == []


def test_the_corpora_files_alone_get_the_findings_of_their_trees() -> None:
    if not CORPORA.is_dir():
        pytest.skip(f"{CORPORA} is not on this machine: no corpus to scan")
    trees = sorted(p for p in CORPORA.iterdir() if p.is_dir())
    for tree in trees:
        whole, per_file = _whole_and_per_file(tree)
        print(
            f"{tree.name}: {len(whole)} findings in the tree, {len(per_file)} file by file,",
            dict(Counter(k[3] for k in whole)),
        )
        assert sorted(per_file - whole) == [], tree.name
        assert sorted(whole - per_file) == [], tree.name


HEADER_NAMES = FIXTURES / "project_header_names" / "cuda"


def _hc001(*args: str | Path) -> tuple[int, list[tuple[str, int, str]]]:
    result = run_cli("scan", "--format", "json", *args)
    findings = json.loads(result.stdout)["findings"]
    return result.code, [(Path(f["path"]).name, f["line"], f["symbol"]) for f in findings if f["code"] == "HC001"]


def test_a_file_named_alone_knows_the_names_of_the_header_it_includes() -> None:
    """What pre-commit runs when only matmul.cu changed: common.h is not named, but matmul.cu includes it,
    so cudaCheck, cublasCheck and CUBLAS_LOWP are the project's; the misspelt API is still reported."""
    assert _hc001(HEADER_NAMES / "matmul.cu") == (1, [("matmul.cu", 21, "cudaDeviceSynchronise")])


def test_a_file_that_does_not_include_the_header_gets_none_of_its_names() -> None:
    """probe.cu calls cudaCheck without including common.h: in the tree as alone, a sibling's declaration
    does not reach it."""
    alone = _hc001(HEADER_NAMES / "tools" / "probe.cu")
    assert alone == (1, [("probe.cu", 8, "cudaCheck")])
    code, in_tree = _hc001(HEADER_NAMES)
    assert code == 1 and [f for f in in_tree if f[0] == "probe.cu"] == alone[1]


def test_include_dirs_of_the_configuration_are_searched_after_the_files_folder(tmp_path: Path) -> None:
    """`#include "common.h"` of src/train.cu is found in include/ only through `include-dirs`, as
    `-Iinclude` finds it for the compiler; `#include <...>` only there, never beside the file."""
    (tmp_path / "include").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "include" / "common.h").write_text((HEADER_NAMES / "common.h").read_text())
    (tmp_path / "include" / "layers.h").write_text('#pragma once\n#include "common.h"\n#define CUDA_LAYERS 12\n')
    (tmp_path / "src" / "layers.h").write_text("#pragma once\n#define CUDA_LAYERS_BESIDE 12\n")
    train = (
        '#include "common.h"\n#include <layers.h>\nvoid step(float *p) {\n'
        "  cudaCheck(cudaMemset(p, 0, CUDA_LAYERS + CUDA_LAYERS_BESIDE));\n}\n"
    )
    (tmp_path / "src" / "train.cu").write_text(train)
    (tmp_path / ".git").mkdir()  # the project root: its configuration is read, none above it
    unconfigured = _hc001(tmp_path / "src" / "train.cu")
    assert unconfigured == (1, [("train.cu", 4, n) for n in ("cudaCheck", "CUDA_LAYERS", "CUDA_LAYERS_BESIDE")])
    (tmp_path / ".hipconv.toml").write_text('include-dirs = ["include"]\n')
    configured = _hc001("--config", tmp_path / ".hipconv.toml", tmp_path / "src" / "train.cu")
    assert configured == (1, [("train.cu", 4, "CUDA_LAYERS_BESIDE")])  # <layers.h>: include/ only
