"""The documentation (README.md and docs/*.md): every command and option of the command line is in it, its
links lead somewhere, and the commands it shows run as written.

A shell block whose commands need something a test machine may lack, or that another test runs with
sharper checks, carries a marker on the line before its fence (CONTRIBUTING.md, "Documentation"):
`<!-- docs-test: run by tests/test_x.py -->` (that test reads the page), `<!-- docs-test: needs hipcc -->`
(run where the tools are on PATH, else skipped with the reason; a need that is no program, such as an
NVIDIA GPU, always skips), `<!-- docs-test: script, needs ... -->` (the block runs as one bash script,
twice: a recipe must survive being pasted again). Other blocks run here, line by line, in a small
project (a git repository with src/, cuda/, kernel.cu), and each command must exit 0 or 1 (not a usage
error, no traceback); a `git` line runs as it is.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import click
import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib
from conftest import FIXTURES

from helpers import run_cli
from hipconv.cli.app import cli

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
MARKER = re.compile(r"<!-- docs-test: (.*?) -->\s*$")
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
OTHER_PROGRAMS = ("git",)  # run as they are in the project (a git repository) between hipconv commands
NOT_PROGRAMS = ("an NVIDIA GPU", "the network")  # needs that no PATH lookup can find


class Block(NamedTuple):
    page: Path
    line: int  # of the opening fence, 1-based
    marker: str  # "" when the block carries none
    lines: tuple[str, ...]  # its commands: continuations joined, blank and comment-only lines dropped

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def shell_blocks(page: Path) -> Iterator[Block]:
    """The ```sh blocks of a page that run hipconv, with the marker above each."""
    lines = page.read_text(encoding="utf-8").splitlines()
    n = 0
    while n < len(lines):
        fence = FENCE.match(lines[n])
        if not fence:
            n += 1
            continue
        end = next(i for i in range(n + 1, len(lines)) if lines[i].strip() == "```")
        body = "\n".join(line[len(fence.group(1)) :] for line in lines[n + 1 : end]).replace("\\\n", " ")
        commands = tuple(c for c in body.splitlines() if c.strip() and not c.lstrip().startswith("#"))
        marker = MARKER.search(lines[n - 1]) if n else None
        if fence.group(2) == "sh" and any(re.search(r"(^|\s)hipconv\s", c) for c in commands):
            yield Block(page, n + 1, marker.group(1) if marker else "", commands)
        n = end + 1


BLOCKS = [block for page in PAGES for block in shell_blocks(page)]


def documented_text() -> str:
    return "\n".join(page.read_text(encoding="utf-8") for page in PAGES)


def command_tree(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for name, command in sorted(group.commands.items()):
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from command_tree(command, (*prefix, name))


# ---------------------------------------------------------------- every command and option is documented


@pytest.mark.parametrize(
    ("path", "command"), list(command_tree(cli)), ids=lambda v: " ".join(v) if isinstance(v, tuple) else ""
)
def test_every_command_and_option_is_in_the_docs(path: tuple[str, ...], command: click.Command) -> None:
    """Each command (`hipconv rules show`) and each of its options (`--json`) is named in the docs."""
    text = documented_text()
    assert f"hipconv {' '.join(path)}" in text, f"hipconv {' '.join(path)}"
    missing = [
        name
        for param in command.params
        if isinstance(param, click.Option)
        for name in param.opts + param.secondary_opts
        if name.startswith("--") and not re.search(rf"`[^`]*{re.escape(name)}(?![\w-])", text)
    ]
    assert missing == [], f"hipconv {' '.join(path)}: options the docs do not name"


def test_the_groups_own_options_are_in_the_docs() -> None:
    text = documented_text()
    for param in cli.params:
        for name in param.opts:
            assert re.search(rf"`[^`]*{re.escape(name)}(?![\w-])", text), name


# ---------------------------------------------------------------- links


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of a page, and its explicit <a id="..."> ones."""
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    found = set(re.findall(r'<a id="([^"]+)">', text))
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        found.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return found


def _links(page: Path) -> Iterator[tuple[str, str]]:
    """The relative links of a page, outside its code blocks: (path, #anchor); the path is "" for the page itself."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if not re.match(r"[a-z]+:", target):
            path, _, anchor = target.partition("#")
            yield path, anchor


def _leads_to(linked: Path | None, anchor: str) -> bool:
    return (
        linked is not None
        and linked.exists()
        and not (anchor and linked.suffix == ".md" and anchor not in _anchors(linked))
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_links_lead_somewhere(page: Path) -> None:
    """Every relative link of a page names a file of the repository, and its #anchor a heading there."""
    broken = [
        f"{path}#{anchor}".rstrip("#")
        for path, anchor in _links(page)
        if not _leads_to((page.parent / path).resolve() if path else page, anchor)
    ]
    assert broken == []


def shipped_files() -> dict[str, Path]:
    """What the wheel holds, as pyproject.toml's hatch target says: its path -> the file of the checkout."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    sources = {**{name: name for name in wheel["packages"]}, **wheel.get("force-include", {})}
    found = {}
    for source, target in sources.items():
        root = REPO / source
        for path in [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file()]:
            found[posixpath.join(target, path.relative_to(root).as_posix()) if path != root else target] = path
    return found


def test_the_pages_a_wheel_ships_link_only_to_what_it_ships() -> None:
    """An installed page (docs/codes.md, which SARIF's helpUri opens from the installed package) has no
    relative link that leads nowhere once installed: each names a file the wheel ships, and a heading there."""
    shipped = shipped_files()
    pages = {name: path for name, path in shipped.items() if name.endswith(".md")}
    assert "hipconv/_data/docs/codes.md" in pages
    broken = []
    for name, page in pages.items():
        for path, anchor in _links(page):
            linked = shipped.get(posixpath.normpath(posixpath.join(posixpath.dirname(name), path))) if path else page
            if not _leads_to(linked, anchor):
                broken.append(f"{name}: {path}#{anchor}".rstrip("#"))
    assert broken == []


def test_the_readme_is_short_and_links_every_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    assert "(docs/index.md)" in readme
    assert [p.name for p in PAGES[1:] if p.name != "index.md" and f"({p.name})" not in index] == []


# ---------------------------------------------------------------- the commands the docs show


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """What the generic commands name: src/ and cuda/ (a CUDA tree with a portable and an unported file),
    kernel.cu, and the CUDA build's compile_commands.json in build-cuda/."""
    for tree in ("src", "cuda"):
        shutil.copytree(FIXTURES / "vector_add" / "cuda", tmp_path / tree / "vector")
        (tmp_path / tree / "rdma").mkdir()
        shutil.copy(FIXTURES / "unported_apis" / "cuda" / "rdma_signal.cu", tmp_path / tree / "rdma")
    shutil.copy(REPO / "examples" / "saxpy" / "saxpy.cu", tmp_path / "kernel.cu")
    sources = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "src").rglob("*.cu"))
    (tmp_path / "build-cuda").mkdir()
    entries = [{"directory": str(tmp_path), "file": s, "command": f"nvcc -O2 -c {s} -o {s}.o"} for s in sources]
    (tmp_path / "build-cuda" / "compile_commands.json").write_text(json.dumps(entries))
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _unmet(marker: str) -> str | None:
    """Why a block cannot run here (the needs its marker names, comma-separated), or None."""
    for need in (n.strip() for n in marker.partition("needs ")[2].split(",")):
        if need in NOT_PROGRAMS:
            return f"needs {need}"
        for program in need.split():
            if shutil.which(program) is None:
                return f"needs {program}"
    return None


@pytest.mark.parametrize("block", [b for b in BLOCKS if not b.marker.startswith("script")], ids=lambda b: b.id)
def test_the_commands_the_docs_show_run(block: Block, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if block.marker.startswith("run by "):
        test = REPO / block.marker.removeprefix("run by ")
        assert test.is_file() and block.page.name in test.read_text(encoding="utf-8"), block.marker
        pytest.skip(f"{block.id}: {block.marker}")
    why = _unmet(block.marker)
    if why:
        print(f"{block.id}: skipped, {why}")
        pytest.skip(f"{block.id}: {why}")
    for line in block.lines:
        words = shlex.split(line.split(" | ", 1)[0], comments=True)
        while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
            name, _, value = words.pop(0).partition("=")
            monkeypatch.setenv(name, value)
        if words[0] in OTHER_PROGRAMS:
            subprocess.run(words, cwd=project, check=True, capture_output=True, timeout=60)
            continue
        assert words[0] == "hipconv", f"{block.id}: `{line}` is not a hipconv command: mark the block"
        result = run_cli(*words[1:])
        assert result.code in (0, 1), f"{line}\n{result.stderr}"
        assert "Traceback" not in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.marker.startswith("script")], ids=lambda b: b.id)
def test_the_recipes_the_docs_show_run_twice(block: Block, tmp_path: Path) -> None:
    """A recipe block, as a bash script with /tmp/ moved into a folder of its own and hipconv run from this
    checkout, succeeds; pasted a second time, it succeeds again."""
    why = _unmet(block.marker)
    if why:
        print(f"{block.id}: skipped, {why}")
        pytest.skip(f"{block.id}: {why}")
    script = "set -euo pipefail\n" + "\n".join(block.lines).replace("/tmp/", f"{tmp_path}/") + "\n"
    script = re.sub(r"(?m)^hipconv ", f"{shlex.quote(sys.executable)} -m hipconv ", script)
    env = {**os.environ, "PYTHONPATH": str(REPO), "HIP_PLATFORM": "amd"}
    for attempt in ("first", "second"):
        done = subprocess.run(["bash", "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{attempt} run:\n{done.stdout}\n{done.stderr}"


def test_the_set_up_block_is_what_ci_runs(tmp_path: Path) -> None:
    """The README's set-up: its test command is the one .ci/run ends with, and its first command's hipconv
    part translates the bundled example (the pip part needs the network: test_packaging installs)."""
    (setup,) = [b for b in BLOCKS if b.page.name == "README.md" and b.line < 40]
    install, test = setup.lines
    ci = [line for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines() if "pytest" in line]
    assert ci[-1] == test == "python -m pytest -q"
    pip, translate = (shlex.split(part) for part in install.split(" && "))
    assert pip[:2] == ["pip", "install"] and translate[0] == "hipconv"
    assert translate[3:5] == ["-o", "/tmp/hip"]
    result = run_cli(*[str(tmp_path / "hip") if w == "/tmp/hip" else w for w in translate[1:]])
    assert result.code == 0 and (tmp_path / "hip" / "saxpy" / "saxpy.cu").is_file()
