"""Target releases: `--rocm-version` takes exactly the bundled ROCm releases (5.2 ... 7.2, the newest by
default), and what a translation reports for a name that is not yet, or no longer, in the target."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.resources import hip_releases

LISTED = "5.2, 5.7, 6.0, 6.1, 6.2, 6.3, 6.4, 7.0, 7.1, 7.2"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()  # the configuration search stops here
    monkeypatch.chdir(tmp_path)
    return tmp_path


def translate(source: str, *args: str) -> tuple[int, str, str]:
    """Translate one CUDA file (in the current folder): exit code, the HIP text, stderr."""
    Path("k.cu").write_text(source)
    result = run_cli("translate", "k.cu", "-o", "k.hip", "--force", *args)
    out = Path("k.hip").read_text() if Path("k.hip").exists() else ""
    return result.code, out, result.stderr


def scan_settings(*args: str) -> dict[str, str]:
    result = run_cli("scan", "--format", "json", *args, ".")
    assert result.code in (0, 1), result.stderr
    settings: dict[str, str] = json.loads(result.stdout)["settings"]
    return settings


def test_the_default_is_the_newest_bundled_release(project: Path) -> None:
    Path("k.cu").write_text("int main() { return 0; }\n")
    assert hip_releases()[-1] == "7.2"
    assert scan_settings()["rocm_version"] == "7.2"
    assert "(default --rocm-version 7.2)" in run_cli("--version").stdout.decode()


@pytest.mark.parametrize("release", ["5.2", "5.7", "6.0", "6.1", "6.2", "6.3", "6.4", "7.0", "7.1", "7.2"])
def test_every_bundled_release_is_accepted(project: Path, release: str) -> None:
    Path("k.cu").write_text("int main() { return 0; }\n")
    assert scan_settings("--rocm-version", release)["rocm_version"] == release


@pytest.mark.parametrize(("given", "release"), [("6.3.0", "6.3"), ("6.3.2", "6.3"), ("7.0.2", "7.0"), ("5.2.3", "5.2")])
def test_a_patch_release_is_its_minor_release(project: Path, given: str, release: str) -> None:
    Path("k.cu").write_text("int main() { return 0; }\n")
    assert scan_settings("--rocm-version", given)["rocm_version"] == release


@pytest.mark.parametrize("given", ["4.5", "9.9", "6.5", "7", "6.3.x", "garbage", ""])
def test_a_release_that_is_not_bundled_is_a_usage_error(project: Path, given: str) -> None:
    Path("k.cu").write_text("cudaDeviceSynchronize();\n")
    result = run_cli("translate", "k.cu", "-o", "k.hip", "--rocm-version", given)
    assert result.code == 2
    assert f"error: ROCm {given!r} is not a bundled release: the rules know {LISTED}" in result.stderr
    assert not Path("k.hip").exists()  # nothing written
    assert run_cli("scan", "--rocm-version", given, ".").code == 2


def test_the_configuration_file_takes_bundled_releases_only(project: Path) -> None:
    Path("k.cu").write_text("int main() { return 0; }\n")
    Path(".hipconv.toml").write_text('rocm-version = "6.2.1"\n')
    assert scan_settings()["rocm_version"] == "6.2"
    Path(".hipconv.toml").write_text('rocm-version = "4.5"\n')
    result = run_cli("scan", ".")
    assert result.code == 2
    assert ".hipconv.toml: [tool.hipconv] rocm-version: ROCm '4.5' is not a bundled release" in result.stderr
    assert LISTED in result.stderr


def test_not_yet_in_the_target_names_the_first_release(project: Path) -> None:
    """HC003: the HIP name is not in the targeted release; the message names the first one that has it."""
    source = "cudaDeviceSetLimit(cudaLimitStackSize, 4096);\n"
    code, out, err = translate(source, "--rocm-version", "5.2", "--strict")
    assert code == 1
    assert "hipDeviceSetLimit is not in ROCm 5.2; first in 5.7; cudaDeviceSetLimit left unchanged" in err
    assert "cudaDeviceSetLimit(" in out
    code, out, err = translate(source, "--rocm-version", "5.7")
    assert "hipDeviceSetLimit(" in out and "HC003" not in err


def test_hipblas_v1_takes_complex_arguments_cast(project: Path) -> None:
    """ROCm 5.x has no hipblasCgemm_v2; hipblasCgemm takes hipblasComplex*, the layout of hipComplex."""
    source = "cuComplex a, x;\ncublasCgemm_v2(h, op, op, 1, 1, 1, &a, 0, 1, 0, 1, &a, 0, 1);\n"
    code, out, err = translate(source, "--rocm-version", "5.2")
    assert "hipblasCgemm(h, op, op, 1, 1, 1, reinterpret_cast<const hipblasComplex*>(&a), " in out
    assert "HC003" not in err
    assert "hipblasCgemm_v2(" in translate(source, "--rocm-version", "6.0")[1]


def test_hipblas_v2_functions_take_the_plain_names_from_7_0(project: Path) -> None:
    """hipBLAS 3.0 (ROCm 7.0) removed the `_v2` functions; the plain names took over their prototypes."""
    source = "cublasZgemm_v2(h, op, op, 1, 1, 1, &a, 0, 1, 0, 1, &b, 0, 1);\n"
    assert "hipblasZgemm_v2(" in translate(source, "--rocm-version", "6.4")[1]
    for release in ("7.0", "7.1", "7.2"):
        assert "hipblasZgemm(" in translate(source, "--rocm-version", release)[1]


def test_removed_from_hip_names_the_release(project: Path) -> None:
    """HC006: the HIP counterpart is gone at or before the target; the message says since which release."""
    source = "CUDA_MEMSET_NODE_PARAMS params;\n"
    code, out, err = translate(source, "--strict")
    assert code == 1
    assert "error[HC006 cuda_driver.CUDA_MEMSET_NODE_PARAMS.removed]" in err
    assert "CUDA_MEMSET_NODE_PARAMS was removed from HIP in ROCm 7.0; left unchanged" in err
    assert "CUDA_MEMSET_NODE_PARAMS params;" in out
    assert "HIP_MEMSET_NODE_PARAMS params;" in translate(source, "--rocm-version", "6.4")[1]


def test_a_name_missing_from_one_release_only(project: Path) -> None:
    """hipGraphAddExternalSemaphoresSignalNode: in 5.7, not in 6.0, back from 6.1."""
    source = "cudaGraphAddExternalSemaphoresSignalNode(&n, g, 0, 0, &p);\n"
    assert "hipGraphAddExternalSemaphoresSignalNode(" in translate(source, "--rocm-version", "5.7")[1]
    code, out, err = translate(source, "--rocm-version", "6.0", "--strict")
    assert code == 1 and "was removed from HIP in ROCm 6.0" in err and "cudaGraph" in out
    assert "hipGraphAddExternalSemaphoresSignalNode(" in translate(source, "--rocm-version", "6.1")[1]


def test_a_rule_that_ends_before_the_target_reports_hc006(project: Path) -> None:
    """A rule of one's own whose range ends (`until`) at or before the target, with no rule after it."""
    Path("mine").mkdir()
    Path("mine/r.yaml").write_text(
        "defaults: {library: mine, kind: function}\n"
        "rules:\n  - {cuda: cudaOldCall, hip: hipOldCall, rocm: {since: '5.2', until: '6.1'}}\n"
    )
    code, out, err = translate("cudaOldCall(1);\n", "--rules-dir", "mine", "--rocm-version", "6.2", "--strict")
    assert code == 1
    assert "error[HC006 mine.cudaOldCall]: hipOldCall was removed in ROCm 6.1; cudaOldCall left unchanged" in err
    assert "hipOldCall(1)" in translate("cudaOldCall(1);\n", "--rules-dir", "mine", "--rocm-version", "6.0")[1]


def test_rules_show_says_what_is_carried_forward() -> None:
    """A name that the host-only inventories (6.4 ... 7.2) cannot see is carried forward from 6.3."""
    lines = run_cli("rules", "show", "cub::BlockReduce").stdout.decode().splitlines()
    assert "  ROCm 6.4–7.2: carried forward from 6.3 (host-only inventories)" in lines
    record = json.loads(run_cli("rules", "show", "cub::BlockReduce", "--json").stdout)
    assert record["rules"][0]["carried_forward"] == {"6.4": "6.3", "7.0": "6.3", "7.1": "6.3", "7.2": "6.3"}
    runtime = run_cli("rules", "show", "cudaDeviceSynchronize").stdout.decode()
    assert "carried forward" not in runtime  # the host-only inventories declare hipDeviceSynchronize
