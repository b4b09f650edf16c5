"""The README's installation commands work as written in a fresh virtual environment: `pip install .`
from a clone, then `pip install "hipconv @ git+URL@<commit>"`; each install carries rules/, templates/
and the inventories, and translates away from the checkout."""

from __future__ import annotations

import json
import subprocess
import venv
from pathlib import Path

import pytest

from hipconv import __version__

REPO = Path(__file__).resolve().parents[1]
INSTALLED_DATA = (  # what `import hipconv` must find inside the installed package, not in a checkout
    "hipconv/_data/rules/runtime.yaml",
    "hipconv/_data/templates/report/summary.md.j2",
    "hipconv/_data/docs/codes.md",  # SARIF's helpUri: the installed copy of the codes' page
    "hipconv/data/cuda.names",
    "hipconv/builder/packages.yaml",  # hipconv build's data (the package was build/, a name tools skip)
    "hipconv/builder/hip_cpu.yaml",
    "hipconv/builder/hip_cpu_include/hipcpu_prelude.h",
)
LIST_FILES = "import importlib.metadata as m; print('\\n'.join(str(f) for f in m.files('hipconv')))"


def _translates(bin_dir: Path, work: Path) -> None:
    """`hipconv --version`, then a translation with a Markdown report (rules and templates in use)."""
    version = subprocess.run([str(bin_dir / "hipconv"), "--version"], capture_output=True, text=True, timeout=120)
    assert version.returncode == 0 and version.stdout.startswith("hipconv"), version.stderr
    assert __version__ in version.stdout.splitlines()[0]
    (work / "k.cu").write_text(
        "__global__ void k(float* p) { p[0] = 1; }\n"
        "int main() { float* p; cudaMalloc(&p, 4); k<<<1, 1>>>(p); return cudaFree(p); }\n"
    )
    done = subprocess.run(
        [str(bin_dir / "hipconv"), "translate", "k.cu", "-o", "k.hip", "--force", "--report", "r.md"]
        + ["--kernel-launch", "hip"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = (work / "k.hip").read_text()
    assert out.startswith("#include <hip/hip_runtime.h>\n")
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, p)" in out and "hipFree(p)" in out
    assert (work / "r.md").read_text().startswith("# hipconv translation report")


def _installed_files(bin_dir: Path) -> set[str]:
    listed = subprocess.run([str(bin_dir / "python"), "-c", LIST_FILES], capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    return set(listed.stdout.split())


@pytest.mark.slow
def test_readme_install_commands_work_in_a_fresh_venv(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    work = tmp_path / "work"  # away from the checkout, so nothing can be read from it
    work.mkdir()

    # from a clone: `pip install .`
    subprocess.run([str(bin_dir / "pip"), "install", "-q", "."], cwd=REPO, check=True, timeout=900)
    assert set(INSTALLED_DATA) <= _installed_files(bin_dir)
    _translates(bin_dir, work)

    # from a git URL, pinned to a commit: `pip install "hipconv @ git+URL@<commit>"` (a file:// URL here;
    # it installs the committed tree, so this also catches a file the build needs but git does not track)
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    if head.returncode != 0:
        pytest.skip("this checkout is not a git repository: the git URL install is not tried")
    commit = head.stdout.strip()
    spec = f"hipconv @ git+file://localhost{REPO.as_posix()}@{commit}"  # pip wants a host in `name @ URL`
    pip = [str(bin_dir / "pip"), "install", "-q", "--no-deps", "--force-reinstall", spec]
    subprocess.run(pip, cwd=work, check=True, timeout=900)
    direct_url = next(p for p in _installed_files(bin_dir) if p.endswith(".dist-info/direct_url.json"))
    site = subprocess.run(
        [str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    recorded = json.loads((Path(site) / direct_url).read_text())
    assert recorded["vcs_info"] == {"vcs": "git", "requested_revision": commit, "commit_id": commit}
    assert set(INSTALLED_DATA) <= _installed_files(bin_dir)
    _translates(bin_dir, work)
