"""--exclude patterns and --respect-gitignore: .gitignore rules (hipconv.excludes, on pathspec) decide which
paths of an input tree are skipped, for translate and scan alike; a bad pattern is a usage error (exit 2)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv import excludes
from hipconv.excludes import TreeFilter

KERNEL = b"__global__ void k(float* p) { p[threadIdx.x] = 0; }\n"
TREE = (
    "top.cu",
    "keep.pb.cu",
    "gen.pb.cu",
    "build/out.cu",
    "src/build/deep.cu",
    "src/a.cu",
    "src/gen/x.cu",
    "src/sub/gen/y.cu",
    "docs/a/b/gen/z.cu",
    "notes/build",  # a file named like the directory pattern
    "vendor/lib.cu",
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for name in TREE:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(KERNEL)
    return root


def translated(project: Path, out: Path, *args: str) -> set[str]:
    result = run_cli("translate", project, "-o", out, *args)
    assert result.code == 0, result.stderr
    return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != ".hipconv-output"}


def scanned(*args: str | Path) -> int:
    """The file count of the scan's summary line (`hipconv scan: N files, ...`)."""
    result = run_cli("scan", *args)
    assert result.code in (0, 1), result.stderr
    line = next(x for x in result.stderr.splitlines() if x.startswith("hipconv scan: "))
    return int(line.removeprefix("hipconv scan: ").split()[0])


@pytest.mark.parametrize(
    ("patterns", "skipped"),
    [
        pytest.param(["*.pb.cu"], {"keep.pb.cu", "gen.pb.cu"}, id="name-at-any-depth"),
        pytest.param(["*.pb.cu", "!keep.pb.cu"], {"gen.pb.cu"}, id="negation"),
        pytest.param(["build/"], {"build/out.cu", "src/build/deep.cu"}, id="directory-only"),
        pytest.param(["/build"], {"build/out.cu"}, id="anchored-by-leading-slash"),
        pytest.param(["src/gen"], {"src/gen/x.cu"}, id="anchored-by-inner-slash"),
        pytest.param(["**/gen/"], {"src/gen/x.cu", "src/sub/gen/y.cu", "docs/a/b/gen/z.cu"}, id="double-star-prefix"),
        pytest.param(["docs/**/z.cu"], {"docs/a/b/gen/z.cu"}, id="double-star-middle"),
        pytest.param(["src/**"], {"src/a.cu", "src/build/deep.cu", "src/gen/x.cu", "src/sub/gen/y.cu"}, id="under"),
        pytest.param(["src/*.cu"], {"src/a.cu"}, id="star-stays-in-one-component"),
        pytest.param(["vendor/*", "!vendor/lib.cu"], set(), id="negation-in-a-kept-directory"),
        pytest.param(["vendor/", "!vendor/lib.cu"], {"vendor/lib.cu"}, id="no-negation-inside-a-skipped-directory"),
        pytest.param(["build"], {"build/out.cu", "src/build/deep.cu", "notes/build"}, id="files-and-directories"),
    ],
)
def test_pattern_forms(project: Path, tmp_path: Path, patterns: list[str], skipped: set[str]) -> None:
    args = [arg for p in patterns for arg in ("--exclude", p)]
    assert translated(project, tmp_path / "hip", *args) == set(TREE) - skipped


def test_scan_skips_what_translate_skips(project: Path) -> None:
    args = ("--exclude", "**/gen/", "--exclude", "*.pb.cu", "--exclude", "!keep.pb.cu")
    assert scanned(project, *args) == len(TREE) - 1 - 4  # notes/build is no source; 3 gen files, gen.pb.cu
    named = run_cli("scan", "--exclude", "gen/", project / "src" / "gen" / "x.cu", project / "top.cu")
    assert "1 file" in named.stderr  # a named file is matched by its path as given


def test_gitignore_files_are_honoured_when_asked(project: Path, tmp_path: Path) -> None:
    (project / ".gitignore").write_text("# generated\n*.pb.cu\n!keep.pb.cu\nbuild/\n")
    (project / "src" / ".gitignore").write_text("/gen/\n!/build/\n")  # relative to src/: takes src/build/ back
    (project / "docs" / ".gitignore").write_text("a/\n")
    assert translated(project, tmp_path / "plain") == set(TREE) | {".gitignore", "src/.gitignore", "docs/.gitignore"}
    kept = translated(project, tmp_path / "hip", "--respect-gitignore")
    skipped = {"gen.pb.cu", "build/out.cu", "src/gen/x.cu", "docs/a/b/gen/z.cu"}
    assert kept == (set(TREE) - skipped) | {".gitignore", "src/.gitignore", "docs/.gitignore"}
    assert scanned(project, "--respect-gitignore") == sum(n.endswith(".cu") for n in set(TREE) - skipped)


def test_gitignore_from_the_configuration_and_the_flag_wins(project: Path, tmp_path: Path) -> None:
    (project / ".gitignore").write_text("vendor/\n")
    config = tmp_path / "hipconv.toml"
    config.write_text("respect-gitignore = true\nexclude = ['*.pb.cu']\n")
    kept = translated(project, tmp_path / "hip", "--config", str(config))
    assert "vendor/lib.cu" not in kept and "gen.pb.cu" not in kept and "top.cu" in kept
    assert scanned(project, "--config", config) == len([n for n in kept if n.endswith(".cu")])
    config.write_text("respect-gitignore = 'yes'\n")
    bad = run_cli("scan", "--config", config, project)
    assert bad.code == 2 and "respect-gitignore must be true or false" in bad.stderr


@pytest.mark.parametrize("pattern", ["!", "foo\\", "[z-a].cu"])
def test_a_bad_pattern_is_a_usage_error(project: Path, tmp_path: Path, pattern: str) -> None:
    for command in (
        ["translate", project, "-o", tmp_path / "hip"],
        ["translate", project / "top.cu"],
        ["scan", project],
    ):
        result = run_cli(*command, "--exclude", pattern)
        assert result.code == 2, result.stderr
        assert f"--exclude: invalid pattern {pattern!r}" in result.stderr
    config = tmp_path / "hipconv.toml"
    config.write_text(f"exclude = [{json.dumps(pattern)}]\n")  # a TOML basic string
    result = run_cli("scan", "--config", config, project)
    assert result.code == 2 and f"[tool.hipconv] exclude: invalid pattern {pattern!r}" in result.stderr


def test_a_bad_line_in_a_gitignore_names_the_file(project: Path, tmp_path: Path) -> None:
    (project / "src" / ".gitignore").write_text("ok.cu\n!\n")
    result = run_cli("translate", project, "-o", tmp_path / "hip", "--respect-gitignore")
    assert result.code == 2
    assert f"{project / 'src' / '.gitignore'}: invalid pattern '!'" in result.stderr


@pytest.mark.parametrize("kind", ["link-out", "link-in", "link-dev-zero", "fifo", "directory"])
def test_a_gitignore_that_is_not_a_regular_file_is_not_read(project: Path, tmp_path: Path, kind: str) -> None:
    """Not followed, never waited on (a FIFO), never read without bound (/dev/zero): noted, and its patterns
    unused, as git does; the run ends (before: a FIFO hung, a link to /dev/zero exhausted memory)."""
    outside = tmp_path / "outside.gitignore"
    outside.write_text("*.cu\n")
    (project / "src" / "mine.gitignore").write_text("*.cu\n")
    ignore = project / "src" / ".gitignore"
    if kind == "fifo":
        os.mkfifo(ignore)
    elif kind == "directory":
        ignore.mkdir()
    else:
        targets: dict[str, str | Path] = {
            "link-out": outside,
            "link-in": "mine.gitignore",
            "link-dev-zero": "/dev/zero",
        }
        ignore.symlink_to(targets[kind])
    filter_ = TreeFilter.of(str(project), (), gitignore=True)
    assert filter_ is not None and not filter_.skips("src/a.cu", is_dir=False)
    ((path, why),) = filter_.take_notes()
    assert path == str(ignore) and "not read as an ignore file" in why and filter_.take_notes() == []
    result = run_cli("translate", project, "-o", tmp_path / "hip", "--respect-gitignore")
    assert result.code == 0 and f"{ignore}: note: " in result.stderr
    assert (tmp_path / "hip" / "src" / "a.cu").exists()


def test_a_gitignore_over_the_limit_is_read_in_part(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(excludes, "GITIGNORE_LIMIT", 32)
    content = "a.cu\n" + "# filler line\n" * 2 + "gen/\n"  # gen/ past 32 bytes
    (project / "src" / ".gitignore").write_text(content)
    filter_ = TreeFilter.of(str(project), (), gitignore=True)
    assert filter_ is not None and filter_.skips("src/a.cu", is_dir=False)
    assert not filter_.skips("src/gen", is_dir=True)  # a line cut in two is dropped whole
    ((path, why),) = filter_.take_notes()
    assert path.endswith(".gitignore")
    assert (
        why
        == f"{len(content)} bytes, more than an ignore file is read: only the patterns of its first 32 bytes are used"
    )


def test_a_regular_gitignore_leaves_no_note_noop(project: Path) -> None:
    (project / "src" / ".gitignore").write_text("/gen/\n")
    filter_ = TreeFilter.of(str(project), (), gitignore=True)
    assert filter_ is not None and filter_.skips("src/gen", is_dir=True) and filter_.take_notes() == []


DOCS = Path(__file__).resolve().parents[1] / "docs" / "excludes.md"


def test_the_docs_table_of_pattern_forms_holds(tmp_path: Path) -> None:
    """Each row of docs/excludes.md's table (`pattern` ... | `skipped`, ...: why) is what translate skips in
    the tree its header names."""
    lines = DOCS.read_text().splitlines()
    header = next(line for line in lines if line.startswith("| pattern | skips (in a tree with "))
    tree = {word.strip("`,)") for word in header.split("with ", 1)[1].split() if word.startswith("`")}
    project = tmp_path / "proj"
    for name in tree:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_bytes(KERNEL)
    rows = [line.split(" | ") for line in lines if line.startswith("| `")]
    assert len(rows) >= 8 and len(tree) >= 8
    for n, (patterns, skips) in enumerate(rows):
        args = [arg for p in patterns.strip("| ").split(" ") for arg in ("--exclude", p.strip("`"))]
        named = {word.strip("`,") for word in skips.split(":")[0].split() if word.startswith("`")}
        kept = translated(project, tmp_path / f"hip{n}", *args)
        assert tree - kept == named, patterns
