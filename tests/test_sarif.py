"""`hipconv scan --format sarif` validated against the SARIF 2.1.0 JSON Schema (tools/fetch_sarif_schema.py
fetches it, and .ci/run runs that; the repository keeps no copy), on a small tree with findings of each
severity, relative and absolute paths, a file that cannot be scanned and a baseline."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli

jsonschema = pytest.importorskip("jsonschema")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from fetch_sarif_schema import default_path  # noqa: E402

SCHEMA = default_path()
if not SCHEMA.is_file():
    pytest.skip(
        f"no SARIF 2.1.0 schema at {SCHEMA}: run python tools/fetch_sarif_schema.py (.ci/run does)",
        allow_module_level=True,
    )

KERNEL = b"""#include <cuda_runtime.h>
__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && threadIdx.x % 32 == 0) x[i] *= 2.0f;
  unsigned m = __ballot_sync(0xffffffff, i < n);
  if (m == 0xffffffff) x[0] = 0;
}
void flush() {
  cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                     cudaFlushGPUDirectRDMAWritesToOwner);
}
"""


def validator() -> Any:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def sarif_errors(text: bytes | str) -> list[str]:
    log = json.loads(text)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator().iter_errors(log)]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "kernels").mkdir(parents=True)
    (root / "src" / "kernels" / "scale.cu").write_bytes(KERNEL)
    (root / "src" / "util.cuh").write_bytes(b"#pragma once\n__device__ int lane() { return threadIdx.x % 32; }\n")
    (root / "src" / "blob.cu").write_bytes(b"\x7fELF\x00\x01")  # not scanned: a notification
    monkeypatch.chdir(root)
    return root


def test_the_vendored_schema_rejects_what_sarif_forbids() -> None:
    """The schema copy is the real one: a result without a message, an unknown level or a missing version fail."""
    good = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": []}]}
    assert sarif_errors(json.dumps(good)) == []
    bad_result = {"ruleId": "HC001", "level": "fatal"}
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [bad_result]}]}
    assert len(sarif_errors(json.dumps(bad))) == 2  # no message, and `fatal` is no level
    assert sarif_errors(json.dumps({"runs": []})) == [": 'version' is a required property"]


@pytest.mark.parametrize("where", ["relative", "absolute"])
def test_scan_sarif_is_valid_sarif_2_1_0(project: Path, where: str) -> None:
    target = "src" if where == "relative" else project / "src"
    result = run_cli("scan", "--format", "sarif", target)
    assert result.code == 2, result.stderr  # findings, and a file that could not be scanned
    assert sarif_errors(result.stdout) == []
    run = json.loads(result.stdout)["runs"][0]
    levels = {r["level"] for r in run["results"]}
    assert {"error", "warning"} <= levels, levels
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    if where == "relative":
        assert "src/kernels/scale.cu" in uris
    else:
        assert (project / "src" / "kernels" / "scale.cu").as_uri() in uris
    notifications = run["invocations"][0]["toolExecutionNotifications"]
    failed = [n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for n in notifications]
    assert [uri.rsplit("/", 1)[-1] for uri in failed] == ["blob.cu"]
    assert run["invocations"][0]["executionSuccessful"] is False


def test_scan_sarif_with_a_baseline_and_no_findings_is_valid(project: Path, tmp_path: Path) -> None:
    (project / "src" / "blob.cu").unlink()
    baseline = tmp_path / "baseline.json"
    assert run_cli("scan", "--write-baseline", baseline, "src").code == 0
    result = run_cli("scan", "--format", "sarif", "--baseline", baseline, "src")
    assert result.code == 0, result.stderr
    assert sarif_errors(result.stdout) == []
    run = json.loads(result.stdout)["runs"][0]
    assert run["results"] == [] and run["invocations"][0]["executionSuccessful"] is True
