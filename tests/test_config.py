"""Configuration: [tool.hipconv] in pyproject.toml or .hipconv.toml; flags override; bad input names the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.config import Config, find_config, load_config
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
