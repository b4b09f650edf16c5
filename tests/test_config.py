"""Configuration: [tool.hipconv] in pyproject.toml or .hipconv.toml; flags override; bad input names the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.config import Config, find_config, load_config, project_root
from hipconv.errors import ConfigError

HAZARD = b"__global__ void k(int* p) {\n  p[threadIdx.x % 32] = 0;\n}\n"
UNPORTED = (
    b"void f() { cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, "
    b"cudaFlushGPUDirectRDMAWritesToOwner); }\n"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()  # the search stops at the repository root
    (tmp_path / "src" / "vendor").mkdir(parents=True)
    (tmp_path / "src" / "k.cu").write_bytes(HAZARD)
    (tmp_path / "src" / "vendor" / "v.cu").write_bytes(UNPORTED)
    monkeypatch.chdir(tmp_path / "src")
    return tmp_path


def codes(result) -> list[str]:
    return [f["code"] for f in json.loads(result.stdout)["findings"]]


def test_pyproject_table_is_found_from_a_subfolder(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.hipconv]\nexclude = ["vendor/*"]\n'
        'disable = ["HC301"]\nfail-on = "error"\nrocm-version = "5.2"\n'
        'kernel-launch = "hip"\nrules-dirs = ["rules"]\n'
    )
    (project / "rules").mkdir()
    config = load_config(find_config(Path.cwd()))
    assert config == Config(
        project / "pyproject.toml", ("vendor/*",), "5.2", "hip", "error", (project / "rules",), ("HC301",)
    )
    result = run_cli("scan", "--format", "json", ".")
    assert result.code == 0 and codes(result) == []
    assert json.loads(result.stdout)["settings"] == {"rocm_version": "5.2", "kernel_launch": "hip"}


def test_flags_override_the_configuration(project: Path) -> None:
    (project / ".hipconv.toml").write_text('fail-on = "never"\nrocm-version = "5.2"\n')
    assert run_cli("scan", ".").code == 0
    assert run_cli("scan", "--fail-on", "warning", ".").code == 1
    result = run_cli("scan", "--format", "json", "--rocm-version", "6.3", ".")
    assert json.loads(result.stdout)["settings"]["rocm_version"] == "6.3"


def test_hipconv_toml_wins_over_pyproject(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.hipconv]\nfail-on = "never"\n')
    (project / ".hipconv.toml").write_text('[tool.hipconv]\ndisable = ["HC002"]\n')
    assert find_config(Path.cwd()) == project / ".hipconv.toml"
    assert codes(run_cli("scan", "--format", "json", ".")) == ["HC301"]


def test_no_configuration_above_the_repository_root(project: Path) -> None:
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_config(Path.cwd()) is None
    assert load_config(None) == Config()


def test_explicit_config_file(project: Path) -> None:
    other = project / "ci.toml"
    other.write_text('exclude = ["k.cu"]\n')
    assert set(codes(run_cli("scan", "--format", "json", "--config", other, "."))) == {"HC002"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            '[tool.hipconv]\nexcludes = ["x"]\n', "unknown key 'excludes' in [tool.hipconv]", id="unknown-key"
        ),
        pytest.param('[tool.hipconv]\nexclude = "x"\n', "exclude must be a list of strings", id="not-a-list"),
        pytest.param(
            '[tool.hipconv]\nrocm-version = "six"\n',
            "rocm-version: ROCm 'six' is not a bundled release",
            id="bad-version",
        ),
        pytest.param("[tool.hipconv]\nrocm-version = 6.3\n", "rocm-version must be a string", id="float-version"),
        pytest.param(
            '[tool.hipconv]\nfail-on = "always"\n', "fail-on must be one of error, warning, never", id="bad-choice"
        ),
        pytest.param(
            '[tool.hipconv]\nkernel-launch = "cuda"\n', "kernel-launch must be one of chevron, hip", id="launch"
        ),
        pytest.param('[tool.hipconv]\ndisable = ["HC399"]\n', "disable: unknown code HC399", id="bad-code"),
        pytest.param("[tool.hipconv\n", "is not valid TOML", id="syntax"),
    ],
)
def test_invalid_configuration_is_a_clear_error(project: Path, text: str, message: str) -> None:
    path = project / "pyproject.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as excinfo:
        load_config(path)
    assert message in str(excinfo.value) and str(path) in str(excinfo.value)
    if "syntax" not in message:  # the CLI finds the file itself and exits 2 with the message
        result = run_cli("scan", ".")
        assert result.code == 2 and str(path) in result.stderr and message in result.stderr


def test_missing_rules_dir_from_configuration(project: Path) -> None:
    (project / ".hipconv.toml").write_text('rules-dirs = ["no-such-rules"]\n')
    result = run_cli("scan", ".")
    assert result.code == 2 and "no-such-rules" in result.stderr


@pytest.mark.parametrize("where", ["../../elsewhere", "/", "link"])
def test_a_configuration_names_rule_folders_inside_its_project_only(project: Path, where: str) -> None:
    """A cloned tree's .hipconv.toml cannot make hipconv read rules (and templates) from elsewhere: that
    takes --rules-dir on the command line (issue #40)."""
    outside = project.parent / "elsewhere"
    (outside / "rules").mkdir(parents=True, exist_ok=True)
    (outside / "rules" / "r.yaml").write_text("defaults: {library: x, kind: function}\nrules: []\n")
    (project / "link").symlink_to(outside / "rules")
    (project / ".hipconv.toml").write_text(f'rules-dirs = ["{where}"]\n')
    for command in ("scan", "translate"):
        result = run_cli(command, ".", *(("-o", project / "out") if command == "translate" else ()))
        assert result.code == 2 and "is outside the project" in result.stderr and "--rules-dir" in result.stderr
    assert not (project / "out").exists()
    (project / ".hipconv.toml").write_text('rules-dirs = ["rules"]\n')
    (project / "rules").mkdir()
    assert load_config(project / ".hipconv.toml").rules_dirs == (project / "rules",)  # inside: used
    assert run_cli("scan", ".", "--rules-dir", outside / "rules").code == 1  # named by the user: used (HC300s found)


# ---------------------------------------------------------------- how far up the search goes


def nested(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: str | None) -> Path:
    """outer/ (with a configuration that would silence the scan) / project (the marker, if any) / src/k.cu;
    the working directory is src/ (project/ without a marker). Returns the project folder."""
    project = tmp_path / "outer" / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "k.cu").write_bytes(HAZARD)
    (tmp_path / "outer" / ".hipconv.toml").write_text('fail-on = "never"\n')
    if marker == "pyproject.toml":
        (project / marker).write_text('[project]\nname = "x"\n')
    elif marker is not None:
        (project / marker).mkdir()
    monkeypatch.chdir(project / "src" if marker else project)
    return project


@pytest.mark.parametrize("marker", [".git", ".hg", "pyproject.toml", None])
def test_no_configuration_is_read_above_the_project_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: str | None
) -> None:
    """A .hipconv.toml in a parent of the project (a world-writable /tmp, a home folder) changes nothing.
    Without .git, .hg or pyproject.toml the working directory itself is the project root."""
    if marker is None and project_root(tmp_path) != tmp_path.resolve():
        pytest.skip("the temporary folder is inside a project")
    project = nested(tmp_path, monkeypatch, marker)
    assert project_root(Path.cwd()) == project.resolve() and find_config(Path.cwd()) is None
    result = run_cli("scan", "-v", ".")
    assert result.code == 1 and "HC301" in result.stdout.decode()
    searched = f"from {Path.cwd().resolve()} up to the project root {project.resolve()}" if marker else f"in {project}"
    assert f"no configuration file {searched}\n" in result.stderr.replace(str(tmp_path.resolve()), str(tmp_path))


@pytest.mark.parametrize("marker", [".git", ".hg", "pyproject.toml", None])
@pytest.mark.parametrize("command", ["scan", "translate"])
def test_configuration_at_the_project_root_is_used_and_named_by_v(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: str | None, command: str
) -> None:
    project = nested(tmp_path, monkeypatch, marker)
    (project / ".hipconv.toml").write_text('exclude = ["k.cu"]\n')
    assert find_config(Path.cwd()) == project.resolve() / ".hipconv.toml"
    args = ("--dry-run",) if command == "translate" else ()
    result = run_cli(command, "-v", *args, ".")
    assert result.code == 0 and f"using configuration {project.resolve() / '.hipconv.toml'}\n" in result.stderr
    assert "k.cu" not in result.stderr and b"k.cu" not in result.stdout  # excluded by it
    assert "configuration" not in run_cli(command, *args, ".").stderr  # without -v, nothing about it


def test_the_git_root_bounds_the_search_and_a_nested_pyproject_too(tmp_path: Path, monkeypatch) -> None:
    """Inside a repository the search ends at its root; a pyproject.toml below it is a project root of its
    own (as black decides), so a configuration above it is not read from there."""
    project = nested(tmp_path, monkeypatch, ".git")
    (project / ".hipconv.toml").write_text('fail-on = "never"\n')
    (tmp_path / "outer" / ".git").mkdir()  # a repository around the repository changes nothing
    assert find_config(Path.cwd()) == project.resolve() / ".hipconv.toml"
    (project / "src" / "pyproject.toml").write_text('[project]\nname = "bindings"\n')
    assert project_root(Path.cwd()) == (project / "src").resolve() and find_config(Path.cwd()) is None
    assert run_cli("scan", ".").code == 1
