"""`hipconv scan`: formats, suppressions, baselines, exit codes; it never writes a source file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helpers import REPO, run_cli, tree
from hipconv.diagnostics import CODES
from hipconv.scan.formats import findings_from_json

UNPORTED = (
    b"#include <cuda_runtime.h>\nvoid flush() {\n"
    b"  cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, "
    b"cudaFlushGPUDirectRDMAWritesToOwner);\n}\n"
)
HAZARD = b"__global__ void k(int* p) {\n  p[threadIdx.x % 32] = 0;\n}\n"
CLEAN = b"#include <cuda_runtime.h>\nvoid f(float** p) { cudaMalloc(p, 4); }\n"


@pytest.fixture
def src(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "sub").mkdir(parents=True)
    (root / "unported.cu").write_bytes(UNPORTED)
    (root / "sub" / "hazard.cuh").write_bytes(HAZARD)
    (root / "clean.cu").write_bytes(CLEAN)
    (root / "notes.txt").write_bytes(b"threadIdx.x % 32\n")
    return root


def findings_of(result) -> list[tuple[str, int, str]]:
    data = json.loads(result.stdout)
    return [(f["path"].rsplit("/", 1)[-1], f["line"], f["code"]) for f in data["findings"]]


def test_text_output_and_nothing_written(src: Path) -> None:
    before = tree(src)
    result = run_cli("scan", src)
    assert result.code == 1
    findings = result.stdout.decode()  # on stdout, so that `> file` keeps them; the summary on stderr
    assert f"{src.as_posix()}/sub/hazard.cuh:2:19: warning[HC301 wavefront.warp-size-literal]" in findings
    assert f"{src.as_posix()}/unported.cu:3:3: error[HC002" in findings
    assert "hint: use warpSize" in findings
    assert "hipconv scan: 3 files" in result.stderr and "hipconv scan:" not in findings
    assert "warning[" not in result.stderr and "notes.txt" not in findings + result.stderr
    assert tree(src) == before and not list(src.parent.glob("*.hipconv*"))


def test_clean_file_exits_0(src: Path) -> None:
    result = run_cli("scan", src / "clean.cu")
    assert result.code == 0, result.stderr
    assert "1 file, 0 findings" in result.stderr


@pytest.mark.parametrize(
    ("fail_on", "paths", "code"),
    [
        pytest.param("warning", ["sub/hazard.cuh"], 1, id="warning-fails-on-warning"),
        pytest.param("error", ["sub/hazard.cuh"], 0, id="error-ignores-warning"),
        pytest.param("error", ["unported.cu"], 1, id="error-fails-on-error"),
        pytest.param("never", ["unported.cu", "sub/hazard.cuh"], 0, id="never"),
    ],
)
def test_fail_on_sets_the_exit_code(src: Path, fail_on: str, paths: list[str], code: int) -> None:
    assert run_cli("scan", "--fail-on", fail_on, *[src / p for p in paths]).code == code


def test_usage_errors_exit_2(src: Path, tmp_path: Path) -> None:
    assert run_cli("scan", tmp_path / "missing.cu").code == 2
    bad = run_cli("scan", "--disable", "HC999", src)
    assert bad.code == 2 and "unknown code HC999" in bad.stderr
    assert run_cli("scan", "--format", "xml", src).code == 2
    assert run_cli("scan", "--rocm-version", "six", src).code == 2


def test_unreadable_file_exits_2_and_others_are_scanned(src: Path) -> None:
    (src / "blob.cu").write_bytes(b"\x7fELF\x00\x01")
    result = run_cli("scan", "--format", "json", src)
    assert result.code == 2
    data = json.loads(result.stdout)
    assert [f["path"].rsplit("/", 1)[-1] for f in data["failures"]] == ["blob.cu"]
    assert "blob.cu: error: binary file (contains NUL bytes)" in result.stderr  # not only in the JSON
    assert {"HC002", "HC301"} <= {f["code"] for f in data["findings"]}


def test_json_round_trips_to_the_same_findings(src: Path) -> None:
    result = run_cli("scan", "--format", "json", src)
    assert result.code == 1
    data = json.loads(result.stdout)
    findings = findings_from_json(data)
    assert [f.diagnostic.code for f in findings] == [f["code"] for f in data["findings"]]
    again = json.loads(json.dumps(data))
    assert findings_from_json(again) == findings
    first = data["findings"][0]
    assert set(first) >= {"path", "line", "col", "severity", "code", "message", "hint", "fingerprint"}
    assert data["summary"]["files"] == 3 and data["summary"]["findings"] == len(findings)


def test_sarif_has_the_required_fields(src: Path) -> None:
    result = run_cli("scan", "--format", "sarif", src)
    assert result.code == 1
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0" and "sarif-2.1.0" in sarif["$schema"]
    run = sarif["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "hipconv"
    rule_ids = [r["id"] for r in driver["rules"]]
    assert rule_ids == list(CODES)
    assert run["results"]
    for res in run["results"]:
        assert res["ruleId"] in rule_ids and rule_ids[res["ruleIndex"]] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note") and res["message"]["text"]
        region = res["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    hazard = next(r for r in run["results"] if r["ruleId"] == "HC301")
    assert hazard["locations"][0]["physicalLocation"]["region"] == {"startLine": 2, "startColumn": 19}
    assert hazard["level"] == "warning"


def _sarif_rules(*args: str | Path) -> dict[str, dict]:
    result = run_cli("scan", "--format", "sarif", *args)
    assert result.code == 1, result.stderr
    return {r["id"]: r for r in json.loads(result.stdout)["runs"][0]["tool"]["driver"]["rules"]}


def test_sarif_rules_describe_each_code_and_link_its_section_of_the_codes_page(
    src: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HIPCONV_DOCS_URL", raising=False)
    rules = _sarif_rules(src)
    page = REPO / "docs" / "codes.md"  # the installed copy: a checkout's docs/ (hipconv/_data/docs/ in a wheel)
    text = page.read_text()
    for code in CODES.values():
        rule = rules[code.code]
        assert rule["shortDescription"]["text"] == code.title
        assert rule["fullDescription"]["text"] == code.title + (f". {code.hint}" if code.hint else "")
        assert code.example is not None
        for form in ("text", "markdown"):  # the meaning, the hint and the runnable example
            assert code.title in rule["help"][form] and code.hint in rule["help"][form]
            assert code.example.diagnostic in rule["help"][form]
            assert f"hipconv {' '.join(code.example.command_line)}" in rule["help"][form]
        assert rule["helpUri"] == f"{page.as_uri()}#{code.code.lower()}"
        assert f'<a id="{code.code.lower()}"></a>\n\n## {code.code} ' in text


def test_sarif_help_uri_base_from_the_environment_or_the_configuration(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "hipconv.toml"
    config.write_text('docs-url = "https://git.example.com/gpu/hipconv/-/blob/main/docs/"\n')
    monkeypatch.delenv("HIPCONV_DOCS_URL", raising=False)
    rule = _sarif_rules("--config", config, src)["HC301"]
    assert rule["helpUri"] == "https://git.example.com/gpu/hipconv/-/blob/main/docs/codes.md#hc301"
    monkeypatch.setenv("HIPCONV_DOCS_URL", "https://docs.example.org/hipconv")  # the environment wins
    assert (
        _sarif_rules("--config", config, src)["HC302"]["helpUri"] == "https://docs.example.org/hipconv/codes.md#hc302"
    )
    config.write_text("docs-url = 3\n")
    assert run_cli("scan", "--config", config, src).code == 2


def test_github_annotations(src: Path) -> None:
    result = run_cli("scan", "--format", "github", src / "sub" / "hazard.cuh")
    assert result.code == 1
    line = result.stdout.decode().splitlines()[0]
    assert line.startswith(
        f"::warning file={src.as_posix()}/sub/hazard.cuh,line=2,col=19,"
        "title=HC301 wavefront.warp-size-literal::`%25 32` uses 32"
    )
    assert "%0Ahint: " in line


def test_output_file(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.sarif"
    result = run_cli("scan", "--format", "sarif", "-o", out, src)
    assert result.code == 1 and result.stdout == b""
    assert json.loads(out.read_text())["version"] == "2.1.0"


def test_text_output_file(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    result = run_cli("scan", "-o", out, src)
    assert result.code == 1 and result.stdout == b""
    text = out.read_text()
    assert "warning[HC301" in text and "\x1b[" not in text


@pytest.mark.parametrize(
    ("comment", "reported"),
    [
        pytest.param("  // hipconv: ignore\n", False, id="line-before-all"),
        pytest.param("  // hipconv: ignore[HC301]\n", False, id="line-before-code"),
        pytest.param("  /* hipconv: ignore[HC001, HC301] */\n", False, id="block-comment-list"),
        pytest.param("  // hipconv: ignore[HC002]\n", True, id="other-code"),
        pytest.param("  // hipconv ignore\n", True, id="misspelt"),
    ],
)
def test_suppression_on_the_line_before(tmp_path: Path, comment: str, reported: bool) -> None:
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k(int* p) {\n" + comment + "  p[threadIdx.x % 32] = 0;\n}\n")
    result = run_cli("scan", "--format", "json", f)
    assert (result.code == 1) is reported
    assert bool(json.loads(result.stdout)["findings"]) is reported
    if not reported:
        assert json.loads(result.stdout)["summary"]["suppressed"] == 1


def test_suppression_on_the_same_line_covers_only_it(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(
        "__global__ void k(int* p) {\n  p[threadIdx.x % 32] = 0;  // hipconv: ignore[HC301]\n"
        "  p[threadIdx.x & 31] = 1;\n}\n"
    )
    result = run_cli("scan", "--format", "json", f)
    assert findings_of(result) == [("k.cu", 3, "HC301")]


def test_suppression_in_a_string_does_not_count(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text('__global__ void k(int* p) {\n  const char* s = "// hipconv: ignore"; p[threadIdx.x % 32] = 0;\n}\n')
    assert findings_of(run_cli("scan", "--format", "json", f)) == [("k.cu", 2, "HC301")]


def test_baseline_reports_only_new_findings_after_lines_move(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("src").mkdir()
    k = Path("src/k.cu")
    k.write_bytes(HAZARD)
    Path("src/u.cu").write_bytes(UNPORTED)
    written = run_cli("scan", "--write-baseline", ".hipconv-baseline.json", "src")
    assert written.code == 0, written.stderr
    baseline = json.loads(Path(".hipconv-baseline.json").read_text())
    assert {(e["path"], e["code"]) for e in baseline["findings"]} >= {("src/k.cu", "HC301"), ("src/u.cu", "HC002")}
    assert run_cli("scan", "--baseline", ".hipconv-baseline.json", "src").code == 0
    # the known line moves down and is re-indented; a new hazard is added
    k.write_bytes(
        b"// a new comment\n\n__global__ void k(int* p) {\n      p[threadIdx.x % 32] = 0;\n"
        b"  p[threadIdx.x & 31] = 1;\n}\n"
    )
    result = run_cli("scan", "--format", "json", "--baseline", ".hipconv-baseline.json", "src")
    assert result.code == 1
    assert findings_of(result) == [("k.cu", 5, "HC301")]
    assert json.loads(result.stdout)["summary"]["baselined"] == len(baseline["findings"])
    # a second copy of a known line is new
    k.write_bytes(HAZARD + b"__global__ void k2(int* p) {\n  p[threadIdx.x % 32] = 0;\n}\n")
    assert findings_of(run_cli("scan", "--format", "json", "--baseline", ".hipconv-baseline.json", "src")) == [
        ("k.cu", 5, "HC301")
    ]


def test_bad_baseline_is_a_usage_error(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_bytes(HAZARD)
    missing = run_cli("scan", "--baseline", tmp_path / "none.json", f)
    assert missing.code == 2 and "none.json" in missing.stderr
    (tmp_path / "bad.json").write_text('{"findings": 3}')
    bad = run_cli("scan", "--baseline", tmp_path / "bad.json", f)
    assert bad.code == 2 and "bad.json: not a hipconv baseline" in bad.stderr


INT_LIMIT = hasattr(sys, "get_int_max_str_digits")  # 3.11+: a longer integer is a ValueError
TOO_LONG = "not valid JSON: a number with too many digits" if INT_LIMIT else "hipconv_baseline is 9999"
GOOD_ENTRY = {"code": "HC301", "path": "k.cu", "fingerprint": "0123abcd", "line": 2, "message": "m"}


def _baseline(**fields: object) -> bytes:
    return json.dumps({"hipconv_baseline": 1, "findings": [GOOD_ENTRY], **fields}).encode()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(b"", "not valid JSON: Expecting value: line 1 column 1", id="empty"),
        pytest.param(_baseline()[:40], "not valid JSON: ", id="truncated"),
        pytest.param(b"\xef\xbb\xbf" + _baseline(), "not valid JSON: Unexpected UTF-8 BOM", id="bom"),
        pytest.param(b"[" * 100_000, "not valid JSON: nested too deeply", id="deep-list"),
        pytest.param(b'{"a": ' * 100_000, "not valid JSON: nested too deeply", id="deep-object"),
        pytest.param(
            _baseline()[:-2] + b", " + b"[" * 100_000, "not valid JSON: nested too deeply", id="deep-in-findings"
        ),
        pytest.param(b'{"hipconv_baseline": ' + b"9" * 5000 + b"}", TOO_LONG, id="huge-int"),
        pytest.param(
            _baseline().replace(b'"line": 2', b'"line": ' + b"7" * 5000),
            TOO_LONG,
            id="huge-int-in-entry",
            marks=pytest.mark.skipif(not INT_LIMIT, reason="Python < 3.11 converts any integer"),
        ),
        pytest.param(_baseline().replace(b"HC301", b"HC\xff01"), "not UTF-8: byte ", id="invalid-utf8"),
        pytest.param(b'"baseline"', "the top level is a string, not an object", id="top-string"),
        pytest.param(b"[1, 2]", "the top level is a list, not an object", id="top-list"),
        pytest.param(b"null", "the top level is null or missing, not an object", id="top-null"),
        pytest.param(b"3", "the top level is a number, not an object", id="top-number"),
        pytest.param(_baseline(hipconv_baseline=True), "hipconv_baseline is true, not 1", id="version-true"),
        pytest.param(_baseline(hipconv_baseline=1.0), "hipconv_baseline is 1.0, not 1", id="version-float"),
        pytest.param(_baseline(hipconv_baseline="1"), 'hipconv_baseline is "1", not 1', id="version-string"),
        pytest.param(_baseline(hipconv_baseline=2), "hipconv_baseline is 2, not 1", id="version-newer"),
        pytest.param(b'{"findings": []}', "hipconv_baseline is null, not 1", id="version-missing"),
        pytest.param(_baseline(findings={"a": 1}), "findings is an object, not a list", id="findings-object"),
        pytest.param(b'{"hipconv_baseline": 1}', "findings is null or missing, not a list", id="findings-missing"),
        pytest.param(_baseline(findings=[GOOD_ENTRY, "k.cu"]), "finding #2 needs string fields", id="entry-string"),
        pytest.param(_baseline(findings=[{**GOOD_ENTRY, "code": 301}]), "finding #1 needs string", id="code-int"),
        pytest.param(_baseline(findings=[{**GOOD_ENTRY, "path": None}]), "finding #1 needs string", id="path-null"),
        pytest.param(_baseline(findings=[{"code": "HC301", "path": "k.cu"}]), "finding #1 needs", id="no-fingerprint"),
    ],
)
def test_a_baseline_of_any_bad_shape_is_an_error_naming_it(tmp_path: Path, content: bytes, message: str) -> None:
    """Bad JSON of any shape exits 2 with `error: BASELINE: ...` (and a hint), never a traceback."""
    f = tmp_path / "k.cu"
    f.write_bytes(HAZARD)
    baseline = tmp_path / "base.json"
    baseline.write_bytes(content)
    result = run_cli("scan", "--baseline", baseline, f)
    assert result.code == 2 and result.stdout == b""
    first, *rest = result.stderr.splitlines()
    assert first.startswith(f"error: {baseline}: ") and message in first and "Traceback" not in result.stderr
    assert rest and rest[0].startswith("hint: ")


def test_a_baseline_the_configuration_names_that_is_a_directory_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "k.cu").write_bytes(HAZARD)
    (tmp_path / "base.json").mkdir()
    (tmp_path / ".hipconv.toml").write_text('baseline = "base.json"\n')
    result = run_cli("scan", "k.cu")
    assert result.code == 2 and f"error: {tmp_path.resolve() / 'base.json'}: cannot read baseline: " in result.stderr


def test_a_well_formed_baseline_of_odd_but_valid_json_is_read(tmp_path: Path) -> None:
    """Valid JSON nested within the decoder's depth, extra keys, and reader-only fields of any type are fine."""
    f = tmp_path / "k.cu"
    f.write_bytes(HAZARD)
    extra = {"deep": json.loads("[" * 500 + "]" * 500), "big": 10**4000}
    entry = {**GOOD_ENTRY, "line": "two", "message": None}
    (tmp_path / "base.json").write_bytes(_baseline(findings=[entry], **extra))
    assert run_cli("scan", "--baseline", tmp_path / "base.json", f).code == 1  # k.cu's finding is not recorded


def test_exclude_applies_to_named_files_too(src: Path) -> None:
    result = run_cli("scan", "--exclude", "sub/*", "--exclude", "unported.cu", src / "unported.cu", src)
    assert result.code == 0, result.stderr
    assert "1 file, 0 findings" in result.stderr


def test_rocm_version_changes_api_findings(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text("__device__ unsigned long long m() { return __activemask(); }\n")
    # 5.2 lacks __activemask: a compat shim (HC011); the wave64 hazard is reported at every release
    assert [c for _, _, c in findings_of(run_cli("scan", "--format", "json", "--rocm-version", "5.2", f))] == [
        "HC011",
        "HC305",
    ]
    assert [c for _, _, c in findings_of(run_cli("scan", "--format", "json", "--rocm-version", "6.3", f))] == ["HC305"]


NOTE_AND_WARNING = (
    b"#include <cuda_runtime.h>\n"
    b"__global__ void k(float* p) {\n"
    b"  float v = __shfl_down_sync(0xffffffff, p[threadIdx.x], 1);\n"
    b"  p[threadIdx.x % 32] = v;\n}\n"
)


def test_github_annotations_leave_notes_to_verbose(tmp_path: Path) -> None:
    """A pull request gets an annotation for what needs a change; the notes (here HC104, the widened full
    mask) only with -v. The exit code and the summary do not change."""
    (tmp_path / "k.cu").write_bytes(NOTE_AND_WARNING)
    plain = run_cli("scan", "--format", "github", tmp_path / "k.cu")
    verbose = run_cli("scan", "-v", "--format", "github", tmp_path / "k.cu")
    commands = [line.split(" ", 1)[0] for line in plain.stdout.decode().splitlines()]
    assert commands == ["::warning"] and "line=4," in plain.stdout.decode()
    verbose_lines = verbose.stdout.decode().splitlines()
    assert [line.split(" ", 1)[0] for line in verbose_lines] == ["::notice", "::warning"]
    assert "line=3," in verbose_lines[0] and "title=HC104" in verbose_lines[0]
    assert plain.code == verbose.code == 1


def test_sarif_columns_are_utf16_code_units(tmp_path: Path) -> None:
    """`columnKind: utf16CodeUnits`: é is 2 bytes and 1 unit, 𝄞 (U+1D11E) 4 bytes and 2 units (a surrogate
    pair), a Latin-1 byte of a file that is not UTF-8 1 byte and 1 unit; the text and JSON formats keep
    byte columns, as compilers print them."""
    (tmp_path / "utf8.cu").write_bytes("__global__ void k(int* p) {\n  /* é𝄞 */ p[threadIdx.x % 32] = 0;\n}\n".encode())
    (tmp_path / "latin1.cu").write_bytes(b"__global__ void k(int* p) {\n  /* \xe9\xe9 */ p[threadIdx.x % 32] = 0;\n}\n")
    ascii_col = len("  /* ") + len(" */ p[threadIdx.x % ") + 1  # at the 32
    result = run_cli("scan", "--format", "sarif", tmp_path)
    run = json.loads(result.stdout)["runs"][0]
    assert run["columnKind"] == "utf16CodeUnits"
    columns = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].rsplit("/", 1)[-1]: r["locations"][0][
            "physicalLocation"
        ]["region"]["startColumn"]
        for r in run["results"]
        if r["ruleId"] == "HC301"
    }
    assert columns == {"utf8.cu": ascii_col + 3, "latin1.cu": ascii_col + 2}
    json_columns = {f[0]: f[2] for f in _json_columns(tmp_path)}
    assert json_columns == {"utf8.cu": ascii_col + 6, "latin1.cu": ascii_col + 2}


def _json_columns(path: Path) -> list[tuple[str, int, int]]:
    data = json.loads(run_cli("scan", "--format", "json", path).stdout)
    return [(f["path"].rsplit("/", 1)[-1], f["line"], f["col"]) for f in data["findings"] if f["code"] == "HC301"]
