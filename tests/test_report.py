"""The effort report (`translate --report FILE`): the summary first (files by status with the failures,
unported APIs by count, the per-directory roll-up, lines of CUDA code), in JSON, Markdown and CSV, and a
Markdown file that stays short on a 3,000-file tree."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.diagnostics import Diagnostic
from hipconv.report import MARKDOWN_LIMITS, markdown_report
from hipconv.results import FileResult, FileStatus, Replacement
from hipconv.settings import Settings, Version
from hipconv.summary import Summary

# Lines 1 (the include) and 2 hold a replacement only, line 3 two replacements, line 4 a replacement and
# an unported API, line 5 an unported API only: 5 lines of CUDA code, 3 translated automatically, 2 needing
# a human.
LINES = (
    b"#include <cuda_runtime.h>\n"
    b"void f(float* p) { cudaFree(p);\n"
    b"  cudaMalloc(&p, 4); cudaDeviceSynchronize();\n"
    b"  cudaFree(p); cudaDeviceFlushGPUDirectRDMAWrites(t, s);\n"
    b"  cudaDeviceFlushGPUDirectRDMAWrites(t, s); }\n"
)
# In each of these, line 1 (the include) is translated automatically and line 2 needs a human.
RARE = b"#include <cuda_runtime.h>\nvoid g() { cudaFree(0); cudaCtxResetPersistingL2Cache(); }\n"
UNPORTED = b"#include <cuda_runtime.h>\nvoid h() { cudaDeviceFlushGPUDirectRDMAWrites(t, s); }\n"

# The Markdown budget docs/usage.md promises, whatever the size of the tree.
SUMMARY_LINES = 160  # everything before "## Files with findings"
MARKDOWN_LINES = 500  # the whole file


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A tree: lines.cu at the top, a failure (UTF-16), an unported API in two files two and three
    levels deep, a rarer one (alphabetically first) in one file, and a CMakeLists.txt."""
    src = tmp_path / "src"
    (src / "lib" / "deep" / "er").mkdir(parents=True)
    (src / "app").mkdir()
    (src / "lines.cu").write_bytes(LINES)
    (src / "bad.cu").write_bytes(b"\xff\xfe not text\n")
    (src / "lib" / "deep" / "er" / "u.cu").write_bytes(UNPORTED)
    (src / "app" / "u.cu").write_bytes(UNPORTED)
    (src / "app" / "rare.cu").write_bytes(RARE)
    (src / "CMakeLists.txt").write_bytes(b"project(demo LANGUAGES CXX CUDA)\n")
    return src


def report(project: Path, tmp_path: Path, name: str, *args: str) -> Path:
    path = tmp_path / name
    result = run_cli("translate", project, "-o", tmp_path / "hip", "--report", path, "--force", *args)
    assert result.code == 2, result.stderr  # bad.cu is UTF-16; everything else was translated
    return path


def test_json_summary(project: Path, tmp_path: Path) -> None:
    data = json.loads(report(project, tmp_path, "r.json").read_text())
    summary = data["summary"]
    assert list(summary) == [
        "files",
        "failures",
        "unported",
        "root",
        "directory_depth",
        "directories",
        "lines",
        "replacements",
        "diagnostics",
    ]
    assert list(summary["files"].items()) == [("failed", 1), ("converted", 5)]  # failures first
    [failure] = summary["failures"]
    assert failure["path"] == str(project / "bad.cu") and "UTF-16 text" in failure["reason"]
    # by count, not by name: cudaCtxResetPersistingL2Cache sorts first alphabetically but occurs once
    flush, rare = summary["unported"]
    assert (flush["symbol"], flush["code"], flush["count"], flush["files"]) == (
        "cudaDeviceFlushGPUDirectRDMAWrites",
        "HC002",
        4,
        3,
    )
    assert flush["paths"] == [str(project / p) for p in ("lines.cu", "app/u.cu", "lib/deep/er/u.cu")]
    assert (rare["symbol"], rare["count"], rare["files"], rare["paths"]) == (
        "cudaCtxResetPersistingL2Cache",
        1,
        1,
        [str(project / "app" / "rare.cu")],
    )
    assert summary["root"] == str(project) and summary["directory_depth"] == 2
    rows = {row["path"]: row for row in summary["directories"]}
    # most lines needing a human first; between equals, most failed files first
    assert [row["path"] for row in summary["directories"]] == [".", "app", "lib/deep"]
    assert rows["app"] == {
        "path": "app",
        "files": 2,
        "converted": 2,
        "failed": 0,
        "replacements": 3,
        "unported": 2,
        "lines_automatic": 2,
        "lines_human": 2,
        "automatic_percent": 50.0,
    }
    assert (rows["."]["files"], rows["."]["failed"], rows["."]["lines_human"]) == (3, 1, 2)
    assert rows["lib/deep"]["files"] == 1  # lib/deep/er/u.cu rolls up to depth 2
    # lines.cu: 3 + 2; each UNPORTED file and rare.cu: 1 + 1; CMakeLists.txt (a build file): none
    assert summary["lines"] == {"cuda": 11, "automatic": 6, "human": 5, "automatic_percent": 54.5}
    # cmake: the language, and the define the *_sync builtins need
    assert summary["replacements"]["cudart"] > 0 and summary["replacements"]["cmake"] == 2
    assert summary["diagnostics"] == {"error": 5, "note": 1}  # the note: the define CMakeLists.txt gets
    entries = {e["path"]: e for e in data["files"]}
    assert entries[str(project / "lines.cu")]["lines"] == {"automatic": 3, "human": 2}
    assert entries[str(project / "CMakeLists.txt")]["lines"] == {"automatic": 0, "human": 0}


def test_markdown_opens_with_the_summary(project: Path, tmp_path: Path) -> None:
    text = report(project, tmp_path, "r.md").read_text()
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == [
        "# hipconv translation report",
        "## Summary",
        "### Failed files",
        "### Unported APIs",
        "### Directories",
        "### Replacements by API family",
        "## Files with findings",
        "## Diagnostics",
    ]
    assert "| failed | 1 |\n| converted | 5 |" in text
    assert "| translated automatically | 6 | 54.5% |\n| needing a human | 5 | 45.5% |\n| all | 11 | |" in text
    assert f"| `{project / 'bad.cu'}` | UTF-16 text" in text
    apis = (
        "| `cudaDeviceFlushGPUDirectRDMAWrites` | HC002 | 4 | 3 |\n| `cudaCtxResetPersistingL2Cache` | HC002 | 1 | 1 |"
    )
    assert apis in text
    assert "| `app` | 2 | 2 | 0 | 3 | 2 | 2 | 50.0% |" in text
    # one row per file with findings, the failure first; per-diagnostic lines only in the Diagnostics block
    files = text.split("## Files with findings")[1].split("## Diagnostics")[0]
    assert files.index(str(project / "bad.cu")) < files.index(str(project / "lines.cu"))
    assert f"| `{project / 'lines.cu'}` | converted | 5 | 2 | 0 | 2 |" in files
    assert f"- `{project / 'lines.cu'}:4:16` error HC002 `cudart.cudaDeviceFlushGPUDirectRDMAWrites`:" in text


def test_csv_has_one_row_per_finding(project: Path, tmp_path: Path) -> None:
    odd = project / 'odd, "quoted" name.cu'  # a comma and quotes: RFC 4180 quoting
    odd.write_bytes(UNPORTED)
    path = report(project, tmp_path, "r.csv")
    raw = path.read_bytes()
    assert raw.startswith(b"path,line,col,severity,code,rule,symbol,message\r\n") and raw.endswith(b"\r\n")
    assert b'"' + str(odd).replace('"', '""').encode() + b'",2,' in raw
    rows = list(csv.reader(io.StringIO(raw.decode(), newline="")))
    assert rows[1][:7] == [str(project / "bad.cu"), "", "", "error", "failed", "", ""]  # failures first
    assert "UTF-16 text" in rows[1][7]
    data = json.loads(report(project, tmp_path, "r.json").read_text())
    expected = [
        [e["path"], str(d["line"]), str(d["col"]), d["severity"], d["code"], d["rule"], d["symbol"], d["message"]]
        for e in data["files"]
        for d in e["diagnostics"]
    ]
    assert rows[2:] == expected and len(expected) == 7  # 6 in sources, the HC405 of CMakeLists.txt
    assert [r[6] for r in rows[2:]].count("cudaDeviceFlushGPUDirectRDMAWrites") == 5


@pytest.mark.parametrize("name", ["r.md", "r.csv"])
def test_text_reports_escape_names_that_are_not_utf8(tmp_path: Path, name: str) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / os.fsdecode(b"caf\xe9.cu")).write_bytes(UNPORTED)
    path = tmp_path / name
    assert run_cli("translate", src, "-o", tmp_path / "hip", "--report", path).code == 0
    assert "caf\\xe9.cu" in path.read_text(encoding="utf-8")


def test_stats_shows_lines_and_apis_by_count(project: Path, tmp_path: Path) -> None:
    result = run_cli("translate", project, "-o", tmp_path / "hip", "--stats")
    assert result.code == 2
    table = result.stderr[result.stderr.index("hipconv translate") :]
    assert table.index("files failed") < table.index("files converted")
    for row in ("lines of CUDA code", "lines translated automatically", "lines needing a human"):
        assert row in table
    assert "54.5%" in table
    flush = next(line for line in table.splitlines() if "unported [HC002] cudaDeviceFlush" in line)
    assert [cell.strip() for cell in flush.split("│")[2:4]] == ["4", "3"]  # occurrences, files
    assert table.index("cudaDeviceFlushGPUDirectRDMAWrites") < table.index("cudaCtxResetPersistingL2Cache")


def big_summary(files: int) -> Summary:
    """What a 3,000-file port might leave, with every list as long as it gets: `files` results over 150
    directories three levels deep, every status (a failure every 97 files), 25 API families, and 90
    unported APIs with zero to three findings per file."""
    summary = Summary(keep_files=True, root="src")
    others = {89: FileStatus.SKIPPED, 53: FileStatus.COPIED, 41: FileStatus.UNCHANGED, 37: FileStatus.LINKED}
    for n in range(files):
        path = f"src/lib{n % 30}/mod{n % 150}/impl/f{n}.cu"
        if n % 97 == 0:
            summary.add(FileResult(path, FileStatus.FAILED, reason="not valid UTF-8 (byte 0xff on line 1)"))
            continue
        status = next((status for k, status in others.items() if n % k == 0), None)
        if status is not None:
            summary.add(FileResult(path, status, reason="a FIFO: skipped" if status is FileStatus.SKIPPED else ""))
            continue
        api = f"cudaApi{n % 120:03d}"
        diagnostics = tuple(
            Diagnostic(path, line, 5, "HC001", f"{api} (cudart) is CUDA API with no hipconv rule", symbol=api)
            for line in range(3, 3 + n % 4)
        )
        replacements = (
            Replacement(1, 10, "cuda_runtime.h", "hip/hip_runtime.h", "cudart.include", "cudart"),
            Replacement(2, 3, "cudaFoo", "hipFoo", f"family{n % 25}.cudaFoo", f"family{n % 25}"),
        )
        summary.add(FileResult(path, FileStatus.CONVERTED, diagnostics=diagnostics, replacements=replacements))
    return summary


def test_markdown_stays_short_on_a_3000_file_tree() -> None:
    big = big_summary(3000)
    text = markdown_report(big, Settings(Version.parse("6.3")))
    lines = text.splitlines()
    summary = text.split("## Files with findings")[0].splitlines()
    assert len(lines) <= MARKDOWN_LINES and len(summary) <= SUMMARY_LINES, (len(lines), len(summary))
    assert lines[4] == "## Summary"
    assert summary[8:10] == ["| failed | 31 |", f"| converted | {big.files['converted']} |"]  # failures first
    # each long list is cut, with a pointer to the full reports
    assert len(big.unported) == 90 and len(big.directories) == 150  # 30 APIs fall on files without findings
    assert f"{31 - MARKDOWN_LIMITS['failures']} more failed files: see the JSON or CSV report." in summary
    assert f"{90 - MARKDOWN_LIMITS['apis']} more APIs: see the JSON or CSV report." in summary
    assert f"{150 - MARKDOWN_LIMITS['directories']} more directories: see the JSON or CSV report." in summary
    assert "more files with findings: see the JSON or CSV report." in text
    assert "more diagnostics: see the JSON or CSV report." in text
    # APIs by occurrences: the APIs of files with n % 4 == 3 come first (three findings per file)
    api_rows = [line for line in summary if line.startswith("| `cudaApi")]
    counts = [int(row.split("|")[3]) for row in api_rows]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1]
    # directories most lines needing a human first
    dirs = [line for line in summary if line.startswith("| `lib")]
    assert len(dirs) == MARKDOWN_LIMITS["directories"]
    human = [int(row.split("|")[7]) for row in dirs]
    assert human == sorted(human, reverse=True)
