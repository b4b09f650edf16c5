from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_INVENTORY = Path(__file__).resolve().parents[1].parent / "shared" / "api-inventory"


@pytest.fixture(autouse=True, scope="session")
def _private_rule_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keep the tests' pickled rule sets out of the user's cache directory."""
    os.environ["HIPCONV_CACHE_DIR"] = str(tmp_path_factory.mktemp("hipconv-cache"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite the expected HIP trees of the fixtures")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if hipcc_path() is not None:
        return
    skip = pytest.mark.skip(reason="hipcc not found on PATH (apt-get install hipcc libamdhip64-dev; .ci/run does)")
    for item in items:
        if item.get_closest_marker("hipcc") is not None:
            item.add_marker(skip)


def hipcc_path() -> str | None:
    return shutil.which("hipcc")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(scope="session")
def hip_env() -> dict[str, str]:
    env = dict(os.environ)
    env["HIP_PLATFORM"] = "amd"  # with nvcc on PATH hipcc would otherwise pick the NVIDIA platform
    return env
