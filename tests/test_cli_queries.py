"""Issue #12, the porting workflow: --diff and --dry-run on a tree without -o, `rules list|show --json` and
the did-you-mean of unknown names and filter values, and translate's exit codes beside scan --fail-on."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.rules.model import RuleStatus

USAGE = Path(__file__).resolve().parents[1] / "docs" / "usage.md"

KERNEL = b"#include <cuda_runtime.h>\nvoid f(float* p) { cudaMalloc(&p, 4); cudaFree(p); }\n"
UNPORTED = (  # HC002, an error: cudaDeviceFlushGPUDirectRDMAWrites has no HIP equivalent
    b"#include <cuda_runtime.h>\nvoid g() { cudaDeviceFlushGPUDirectRDMAWrites("
    b"cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner); }\n"
)
DEPRECATED = (  # HC004, a warning: translated, not unported
    b"#include <cuda_runtime.h>\n"
    b"void h(void* d, cudaArray_t a) { cudaMemcpyFromArray(d, a, 0, 0, 4, cudaMemcpyDeviceToHost); }\n"
)
NO_RULE = b"void k() { __APPROX_FCAST2(x); }\n"  # HC001, a warning: a CUDA API left unported
CLEAN = b"int add(int a, int b) { return a + b; }\n"


def snapshot(root: Path) -> dict[str, tuple[str, bytes | str, int, int]]:
    """Every entry under root, links not followed: kind, content (or link target), mode, mtime."""
    found: dict[str, tuple[str, bytes | str, int, int]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            st = path.lstat()
            if path.is_symlink():
                found[str(path.relative_to(root))] = ("link", os.readlink(path), st.st_mode, st.st_mtime_ns)
            elif path.is_dir():
                found[str(path.relative_to(root))] = ("dir", b"", st.st_mode, st.st_mtime_ns)
            else:
                found[str(path.relative_to(root))] = ("file", path.read_bytes(), st.st_mode, st.st_mtime_ns)
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "kernels").mkdir(parents=True)
    (src / "kernels" / "k.cu").write_bytes(KERNEL)
    (src / "kernels" / "u.cu").write_bytes(UNPORTED)
    (src / "main.cpp").write_bytes(b"int main() { return 0; }\n")  # unchanged
    (src / "CMakeLists.txt").write_bytes(b"project(demo LANGUAGES CXX CUDA)\n")
    (src / "data.bin").write_bytes(bytes(range(256)))
    os.symlink("kernels/k.cu", src / "alias.cu")  # a link into the tree
    return src


# ---------------------------------------------------------------- --diff and --dry-run on a tree, no -o


def test_diff_on_a_tree_needs_no_output(project: Path, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    result = run_cli("translate", project, "--diff")
    assert result.code == 0, result.stderr
    assert snapshot(tmp_path) == before  # nothing written, no output directory, no .hipconv-output marker
    diff = result.stdout.decode()
    k, cmake = project / "kernels" / "k.cu", project / "CMakeLists.txt"
    assert f"--- a/{k}\n+++ b/{k}\n" in diff  # the input paths
    assert "\n-void f(float* p) { cudaMalloc(&p, 4); cudaFree(p); }\n" in diff
    assert "\n+void f(float* p) { hipMalloc(&p, 4); hipFree(p); }\n" in diff
    assert f"--- a/{cmake}\n" in diff and "+project(demo LANGUAGES CXX HIP)\n" in diff  # build files too
    assert "main.cpp" not in diff and "data.bin" not in diff and "alias.cu" not in diff
    assert "error[HC002 cudart.cudaDeviceFlushGPUDirectRDMAWrites]" in result.stderr


def test_diff_without_output_is_the_diff_with_output(project: Path, tmp_path: Path) -> None:
    with_output = run_cli("translate", project, "-o", tmp_path / "hip", "--diff")
    assert not (tmp_path / "hip").exists()
    assert run_cli("translate", project, "--diff").stdout == with_output.stdout != b""


def test_dry_run_on_a_tree_needs_no_output_and_reports_as_usual(project: Path, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    result = run_cli("translate", project, "--dry-run")
    assert result.code == 0 and result.stdout == b""
    assert snapshot(tmp_path) == before
    assert f"{project / 'kernels' / 'u.cu'}:2:12: error[HC002" in result.stderr
    assert result.stderr == run_cli("translate", project, "-o", tmp_path / "hip", "--dry-run").stderr
    report = tmp_path / "report.json"  # a report is the one file a dry run writes, when asked
    assert run_cli("translate", project, "--dry-run", "--report", report).code == 0
    files = {Path(e["path"]).name: e["status"] for e in json.loads(report.read_text())["files"]}
    assert files == {
        "CMakeLists.txt": "converted",
        "alias.cu": "linked",
        "data.bin": "copied",
        "k.cu": "converted",
        "main.cpp": "unchanged",
        "u.cu": "converted",
    }


def test_diff_of_several_files_needs_no_output(tmp_path: Path) -> None:
    a, b = tmp_path / "a.cu", tmp_path / "b.cu"
    a.write_bytes(KERNEL)
    b.write_bytes(UNPORTED)
    before = snapshot(tmp_path)
    result = run_cli("translate", a, b, "--diff")
    assert result.code == 0
    assert f"--- a/{a}\n".encode() in result.stdout and f"--- a/{b}\n".encode() in result.stdout
    assert snapshot(tmp_path) == before


def test_writing_a_tree_still_needs_an_output(project: Path, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    result = run_cli("translate", project)
    assert result.code == 2
    assert "error: translating a directory or several files needs -o/--output DIR (or --in-place)" in result.stderr
    assert "hint: --diff and --dry-run need neither" in result.stderr
    assert snapshot(tmp_path) == before


def test_diff_on_a_tree_fails_on_like_a_translation(project: Path) -> None:
    result = run_cli("translate", project, "--diff", "--fail-on", "error")
    assert result.code == 1 and b"+#include <hip/hip_runtime.h>" in result.stdout


# ---------------------------------------------------------------- rules list / show --json

RECORD_KEYS = [
    "id",
    "cuda",
    "hip",
    "compat",
    "library",
    "section",
    "kind",
    "status",
    "rocm",
    "nvidia",
    "note",
    "params",
    "args",
    "drops",
    "optional",
    "fill",
    "casts",
    "converts",
    "contracts",
    "uncalled",
    "tag",
    "tagless",
    "defined_only",
    "rewrite_code",
    "lane_mask",
    "requires_define",
    "after",
    "template",
    "scope",
    "code",
    "origin",
]


def test_rules_list_json_has_every_rule_with_stable_keys() -> None:
    result = run_cli("rules", "list", "--json")
    assert result.code == 0
    records = json.loads(result.stdout)
    assert all(list(r) == RECORD_KEYS for r in records)
    assert all(list(r["rocm"]) == ["since", "until", "deprecated", "removed"] for r in records)
    lines = run_cli("rules", "list").stdout.decode().splitlines()
    assert [r["id"] for r in records] == [line.split("\t")[0] for line in lines]
    malloc = next(r for r in records if r["id"] == "cudart.cudaMalloc")
    assert malloc["cuda"] == "cudaMalloc" and malloc["hip"] == "hipMalloc"
    assert (malloc["library"], malloc["kind"], malloc["status"]) == ("cudart", "function", "supported")
    assert malloc["rocm"]["removed"] is None and malloc["origin"].startswith("rules/")


def test_rules_show_names_the_shim_of_a_shimmed_name() -> None:
    """A name hipconv_compat.h shims is not just "unsupported": `rules show` and --json name the shim."""
    (record,) = json.loads(run_cli("rules", "show", "__ldcs", "--json").stdout)["rules"]
    assert (record["hip"], record["status"], record["compat"]) == (None, "unsupported", "hipconv_ldcs")
    text = run_cli("rules", "show", "__ldcs").stdout.decode()
    assert "  compat: hipconv_ldcs\n" in text
    assert "  shimmed: uses become hipconv_ldcs of the generated hipconv_compat.h" in text
    assert "shimmed:" not in run_cli("rules", "show", "cudaMalloc").stdout.decode()
    converted = json.loads(run_cli("rules", "show", "cublasGemmEx", "--json").stdout)["rules"]
    assert any(r["converts"] for r in converted)  # the cuBLAS data types converted for hipBLAS's v1 API


def test_rules_list_names_the_shim_of_a_shimmed_name() -> None:
    """`rules list` prints the lines docs/usage.md shows: a shimmed name's HIP column names the shim of
    hipconv_compat.h (after the HIP spelling where a newer ROCm has one), not `-` as for a name with neither."""
    commands, shown = re.search(r"```sh\n(hipconv rules list [^`]*)```\n\n```\n([^`]*)```", USAGE.read_text()).groups()
    printed = []
    for command in commands.splitlines():
        words, pattern = (shlex.split(part) for part in command.split(" | grep "))
        result = run_cli(*words[1:])
        assert result.code == 0
        printed += [line for line in result.stdout.decode().splitlines() if pattern[0] in line]
    assert [line.rstrip("\t") for line in printed] == shown.splitlines()
    assert "\thipconv_ldcs (hipconv_compat.h)\t" in printed[0]
    (record,) = json.loads(run_cli("rules", "show", "__ldcs", "--json").stdout)["rules"]
    assert record["hip"] is None and record["compat"] == "hipconv_ldcs"  # --json keeps the two apart
    unsupported = run_cli("rules", "list", "--library", "device", "--status", "unsupported").stdout.decode()
    assert "device.__brkpt\t__brkpt\t-\tunsupported\t\n" in unsupported  # neither a HIP name nor a shim


def test_rules_show_json_names_a_null_argument_contract() -> None:
    """cuSOLVER's getrs takes a NULL pivot array (no interchanges); the hipSOLVER call it becomes rejects it."""
    records = json.loads(run_cli("rules", "show", "cusolverDnDgetrs", "--json").stdout)["rules"]
    translated = [r for r in records if r["hip"]]
    assert translated and all("rocSOLVER" in r["contracts"]["devIpiv"] for r in translated)
    getrf = json.loads(run_cli("rules", "show", "cusolverDnDgetrf", "--json").stdout)["rules"]
    assert all(r["contracts"] == {} for r in getrf)


def test_rules_list_json_filters() -> None:
    result = run_cli("rules", "list", "--library", "cudart", "--status", "deprecated", "--json")
    records = json.loads(result.stdout)
    assert records and {(r["library"], r["status"]) for r in records} == {("cudart", "deprecated")}
    text = run_cli("rules", "list", "--library", "cudart", "--status", "deprecated").stdout.decode()
    assert [r["id"] for r in records] == [line.split("\t")[0] for line in text.splitlines()]


def test_rules_show_json() -> None:
    result = run_cli("rules", "show", "__shfl_xor_sync", "--json")
    assert result.code == 0
    shown = json.loads(result.stdout)
    assert shown["name"] == "__shfl_xor_sync" and shown["no_rule"] is None
    rules = {r["id"]: r for r in shown["rules"]}
    assert rules["device.shfl-xor-sync-maskless"]["rocm"]["until"] == "6.2"
    assert rules["device.shfl-xor-sync-maskless"]["drops"] == ["mask"]
    assert rules["device.shfl-xor-sync"]["requires_define"] == "HIP_ENABLE_WARP_SYNC_BUILTINS"
    template = json.loads(run_cli("rules", "show", "cudnnAddTensor", "--json").stdout)["rules"][0]
    assert (template["template"], template["scope"]) == ("cudnn/add_tensor.j2", "statement")
    by_hip = json.loads(run_cli("rules", "show", "hipMalloc", "--json").stdout)
    assert "cudart.cudaMalloc" in [r["id"] for r in by_hip["rules"]]


def test_rules_show_a_cuda_api_without_a_rule() -> None:
    text = run_cli("rules", "show", "__APPROX_FCAST2")
    assert text.code == 0
    assert text.stdout == b"__APPROX_FCAST2: CUDA API (fp16) with no rule: left unchanged with warning HC001\n"
    shown = json.loads(run_cli("rules", "show", "__APPROX_FCAST2", "--json").stdout)
    assert shown == {"name": "__APPROX_FCAST2", "rules": [], "no_rule": {"library": "fp16", "code": "HC001"}}


def test_rules_show_text_names_every_field_that_is_set() -> None:
    result = run_cli("rules", "show", "cudaMalloc")
    assert result.code == 0
    lines = result.stdout.decode().splitlines()
    assert lines[0].startswith("cudart.cudaMalloc  (rules/")
    assert "  hip: hipMalloc" in lines and "  rocm: since 5.2" in lines and "  status: supported" in lines
    assert not any(line.startswith("  params") for line in lines)  # unset fields are not shown


# ---------------------------------------------------------------- did you mean


@pytest.mark.parametrize(
    ("args", "error"),
    [
        pytest.param(
            ["list", "--library", "cublass"], "error: unknown library 'cublass'; did you mean 'cublas'?", id="library"
        ),
        pytest.param(
            ["list", "--library", "CUDART", "--json"],
            "error: unknown library 'CUDART'; did you mean 'cudart'?",
            id="case",
        ),
        pytest.param(
            ["list", "--status", "supportd"], "error: unknown status 'supportd'; did you mean 'supported'?", id="status"
        ),
        pytest.param(
            ["show", "cudaMaloc"],
            "error: no rule for 'cudaMaloc'; did you mean 'cudaMalloc', 'cudaMalloc3D' or 'cudaMallocHost'?",
            id="cuda-name",
        ),
        pytest.param(["show", "hipMaloc", "--json"], "did you mean 'hipMalloc'", id="hip-name"),
        pytest.param(["show", "cudart.cudaMaloc"], "did you mean 'cudart.cudaMalloc'", id="rule-id"),
        pytest.param(
            ["coverage", "--library", "cublass"],
            "error: no coverage data for library 'cublass'; did you mean 'cublas'?",
            id="coverage",
        ),
    ],
)
def test_unknown_values_suggest_the_closest(args: list[str], error: str) -> None:
    result = run_cli("rules", *args)
    assert result.code == 2 and result.stdout == b""
    assert error in result.stderr.splitlines()[0]


def test_unknown_values_with_nothing_close_list_the_valid_ones() -> None:
    library = run_cli("rules", "list", "--library", "xyzzy")
    assert library.code == 2 and library.stdout == b""
    assert library.stderr.splitlines()[0] == "error: unknown library 'xyzzy'"
    assert "hint: valid libraries: bf16, " in library.stderr and ", cudart, " in library.stderr
    status = run_cli("rules", "list", "--status", "gone")
    assert status.code == 2
    statuses = ", ".join(sorted(s.value for s in RuleStatus))
    assert status.stderr == f"error: unknown status 'gone'\nhint: valid statuses: {statuses}\n"
    name = run_cli("rules", "show", "qqqqqqqqqq")
    assert name.code == 2
    assert name.stderr.startswith("error: no rule for 'qqqqqqqqqq'\nhint: `hipconv rules list` lists every rule")
    coverage = run_cli("rules", "coverage", "--library", "cudart")  # a rule library, but no coverage data
    assert coverage.code == 2
    assert "error: no coverage data for library 'cudart'\nhint: libraries with coverage data: cub, " in coverage.stderr


def test_a_valid_filter_that_matches_nothing_is_no_error(tmp_path: Path) -> None:
    result = run_cli("rules", "list", "--library", "fp8", "--status", "removed", "--json")
    assert result.code == 0 and json.loads(result.stdout) == []


def test_libraries_of_extra_rules_are_valid_filter_values(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "mine.yaml").write_text(
        "defaults: {library: mine, kind: function}\nrules:\n  - {cuda: cudaMine, hip: hipMine}\n"
    )
    assert run_cli("rules", "list", "--library", "mine").code == 2
    result = run_cli("rules", "list", "--library", "mine", "--rules-dir", rules)
    assert result.code == 0 and result.stdout == b"mine.cudaMine\tcudaMine\thipMine\tsupported\t\n"
    shown = json.loads(run_cli("rules", "show", "cudaMine", "--rules-dir", rules, "--json").stdout)
    assert shown["rules"][0]["origin"].endswith("mine.yaml:3")


# ---------------------------------------------------------------- translate's exit codes, beside scan's

CASES = {  # file content, and the exit code for: default, --strict, --fail-on never / error / warning
    "clean": (CLEAN, 0, 0, 0, 0, 0),
    "error": (UNPORTED, 0, 1, 0, 1, 1),  # HC002: unported, an error
    "warning": (DEPRECATED, 0, 0, 0, 0, 1),  # HC004: translated, a warning
    "unported-warning": (NO_RULE, 0, 1, 0, 0, 1),  # HC001: unported, a warning
}
OPTIONS = ([], ["--strict"], ["--fail-on", "never"], ["--fail-on", "error"], ["--fail-on", "warning"])


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("option", range(len(OPTIONS)), ids=["default", "strict", "never", "error", "warning"])
def test_translate_exit_codes(tmp_path: Path, case: str, option: int) -> None:
    content, *codes = CASES[case]
    source, out = tmp_path / "k.cu", tmp_path / "k.hip"
    source.write_bytes(content)
    result = run_cli("translate", source, "-o", out, *OPTIONS[option])
    assert result.code == codes[option], result.stderr
    assert out.exists()  # exit 1 or 0: the translation is written all the same
    if case == "error":
        assert "error[HC002 cudart.cudaDeviceFlushGPUDirectRDMAWrites]" in result.stderr


@pytest.mark.parametrize("case", [c for c in CASES if c != "clean"])
@pytest.mark.parametrize("level", ["never", "error", "warning"])
def test_translate_fails_on_what_scan_fails_on(tmp_path: Path, case: str, level: str) -> None:
    source = tmp_path / "k.cu"
    source.write_bytes(CASES[case][0])
    translated = run_cli("translate", source, "-o", tmp_path / "k.hip", "--fail-on", level)
    scanned = run_cli("scan", source, "--fail-on", level)
    assert translated.code == scanned.code


def test_strict_and_fail_on_together(tmp_path: Path) -> None:
    source = tmp_path / "k.cu"
    source.write_bytes(NO_RULE)
    assert run_cli("translate", source, "--fail-on", "error").code == 0
    assert run_cli("translate", source, "--fail-on", "error", "--strict").code == 1  # either one fails the run


def test_a_file_that_cannot_be_read_is_2_whatever_fail_on(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "u.cu").write_bytes(UNPORTED)
    (src / "bad.cu").write_bytes(b"int x; // \x00\n")
    for option in ([], ["--fail-on", "never"], ["--fail-on", "error"], ["--strict"]):
        result = run_cli("translate", src, "-o", tmp_path / "hip", *option)
        assert result.code == 2 and "bad.cu: error: binary file" in result.stderr


def test_fail_on_in_the_configuration_is_scans_only(tmp_path: Path) -> None:
    config = tmp_path / ".hipconv.toml"
    config.write_text('fail-on = "error"\n')
    source = tmp_path / "k.cu"
    source.write_bytes(UNPORTED)
    assert run_cli("scan", source, "--config", config).code == 1
    assert run_cli("translate", source, "--config", config).code == 0
    assert run_cli("translate", source, "--config", config, "--fail-on", "error").code == 1


def test_fail_on_takes_only_known_levels(tmp_path: Path) -> None:
    source = tmp_path / "k.cu"
    source.write_bytes(KERNEL)
    result = run_cli("translate", source, "-o", tmp_path / "k.hip", "--fail-on", "warnings")
    assert result.code == 2 and "Invalid value for '--fail-on'" in result.stderr
    assert not (tmp_path / "k.hip").exists()
