"""HIP headers that need another HIP header before them (an include rule's `after`, from tools/curated.yaml
`hip_header_after:`): CUDA's cuda_gl_interop.h and driver_types.h compile alone, HIP's hip_gl_interop.h and
driver_types.h do not. A C or C++ source gets the needed header right above the include; a .cu file or a
header gets the runtime before its first HIP include anyway. The data is checked in the real HIP trees here
(Debian's HIP 5.2, ROCm 6.3 through hipcc-syntax)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import HIPCC_SYNTAX, hipcc_syntax_missing, ruleset, run_cli
from hipconv.rules.model import RuleKind
from hipconv.settings import Version

API = "#include <hip/hip_runtime_api.h>\n"


def translate(tmp_path: Path, name: str, src: str, rocm: str) -> str:
    source = tmp_path / name
    source.write_text(src)
    done = run_cli("translate", source, "--rocm-version", rocm, "-q")
    assert done.code == 0, done.stderr
    return done.stdout.decode()


@pytest.mark.parametrize(
    ("name", "src", "rocm", "expected"),
    [
        pytest.param(
            "viewer.cpp",
            "#include <GL/gl.h>\n#include <cuda_gl_interop.h>\n#include <cuda_runtime.h>\n",
            "6.3",
            "#include <GL/gl.h>\n" + API + "#include <hip/hip_gl_interop.h>\n#include <hip/hip_runtime.h>\n",
            id="cpp-gl-interop-first",
        ),
        pytest.param(
            "viewer.cpp",
            "#include <cuda_gl_interop.h>\n",
            "5.2",
            API,
            id="cpp-gl-interop-5.2-is-the-runtime-api",
        ),
        pytest.param(
            "types.c",
            "#include <stdio.h>\r\n#include <driver_types.h>\r\n",
            "7.2",
            "#include <stdio.h>\r\n" + API.replace("\n", "\r\n") + "#include <hip/driver_types.h>\r\n",
            id="c-driver-types-crlf",
        ),
        pytest.param(
            "viewer.cpp",
            "#ifdef HAVE_GL\n  #include <cudaGL.h>\n#endif\n#include <texture_types.h>\n",
            "6.3",
            f"#ifdef HAVE_GL\n{API}  #include <hip/hip_gl_interop.h>\n#endif\n{API}#include <hip/texture_types.h>\n",
            id="cpp-inside-an-if-block-and-after-it",
        ),
        pytest.param(
            "viewer.cpp",
            "#include <texture_types.h>\n#include <surface_types.h>\n",
            "6.3",
            API + "#include <hip/texture_types.h>\n#include <hip/surface_types.h>\n",
            id="cpp-once",
        ),
        pytest.param(
            "viewer.cpp",
            "#ifdef A\n#include <cuda.h>\n#endif\n#include <cudaGL.h>\n",
            "6.3",
            f"#ifdef A\n#include <hip/hip_runtime.h>\n#endif\n{API}#include <hip/hip_gl_interop.h>\n",
            id="cpp-one-branch-only-before",
        ),
        pytest.param(
            "viewer.cpp",
            "#if A\n#include <cuda.h>\n#elif B\n#include <cuda_runtime_api.h>\n#endif\n#include <cudaGL.h>\n",
            "6.3",
            "#if A\n#include <hip/hip_runtime.h>\n#elif B\n#include <hip/hip_runtime_api.h>\n#endif\n"
            f"{API}#include <hip/hip_gl_interop.h>\n",
            id="cpp-no-else-branch",
        ),
    ],
)
def test_needed_header_goes_above(tmp_path: Path, name: str, src: str, rocm: str, expected: str) -> None:
    assert translate(tmp_path, name, src, rocm) == expected


@pytest.mark.parametrize(
    ("name", "src"),
    [
        pytest.param("viewer.cpp", "#include <cuda_runtime_api.h>\n#include <cuda_gl_interop.h>\n", id="api-before"),
        pytest.param("viewer.cpp", "#include <cuda.h>\n#include <cudaGL.h>\n", id="runtime-before"),
        pytest.param("viewer.cpp", "#include <hip/hip_runtime_api.h>\n#include <driver_types.h>\n", id="hip-before"),
        pytest.param("viewer.cpp", "#include <cuda_fp16.h>\n#include <vector_types.h>\n", id="self-contained"),
        pytest.param(
            "viewer.cpp",
            "#if A\n#include <cuda.h>\n#elif B\n#include <cuda_runtime_api.h>\n"
            "#else\n#include <dynlink_cuda.h>\n#endif\n#include <cudaGL.h>\n",
            id="every-branch-before",
        ),
        pytest.param("viewer.cpp", "#ifdef A\n#include <cuda.h>\n#include <cudaGL.h>\n#endif\n", id="same-branch"),
    ],
)
def test_needed_header_noop(tmp_path: Path, name: str, src: str) -> None:
    """Provided by an earlier include: nothing is inserted (the includes are only renamed)."""
    out = translate(tmp_path, name, src, "6.3")
    assert out.count("\n") == src.count("\n"), out


def test_cu_file_gets_the_runtime_not_the_api(tmp_path: Path) -> None:
    src = "#include <cuda_gl_interop.h>\n__global__ void k() {}\n"
    out = translate(tmp_path, "k.cu", src, "6.3")
    assert out == "#include <hip/hip_runtime.h>\n#include <hip/hip_gl_interop.h>\n__global__ void k() {}\n"


# ------------------------------------------------------------------------------ the data, in real headers

TREES = {"5.2": Path("/usr/include/hip"), "6.3": HIPCC_SYNTAX.parent.parent / "include"}


def _host_headers() -> list[tuple[str, str, str | None]]:
    """(release, HIP header, after) of every include rule of the runtime and the driver API, for the releases
    with a HIP tree here."""
    found = set()
    for rule in ruleset().rules:
        if rule.kind is not RuleKind.INCLUDE or rule.hip is None or rule.library not in ("cudart", "cuda_driver"):
            continue
        for release in TREES:
            if rule.rocm.covers(Version.parse(release)) and rule.rocm.available(Version.parse(release)):
                found.add((release, rule.hip, rule.after))
    return sorted(found, key=str)


def _compile(release: str, text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`text` as host C++ (the .cpp of a HIP build) with release's HIP headers."""
    unit = tmp_path / "unit.cpp"
    unit.write_text(text)
    if release == "5.2":
        cmd = ["g++", "-D__HIP_PLATFORM_AMD__", "-fsyntax-only", str(unit)]
    else:
        cmd = [str(HIPCC_SYNTAX), "-x", "c++", str(unit)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)


def _tree_missing(release: str) -> str | None:
    if release == "5.2":
        if not TREES["5.2"].is_dir() or shutil.which("g++") is None:
            return "Debian's HIP 5.2 headers (/usr/include/hip) or g++ not found"
        return None
    return hipcc_syntax_missing()


@pytest.mark.hipcc
@pytest.mark.parametrize(("release", "header", "after"), _host_headers(), ids=lambda v: str(v))
def test_hip_header_compiles_alone_or_after_its_need(
    release: str, header: str, after: str | None, tmp_path: Path
) -> None:
    """Each HIP header the runtime and driver include rules write compiles alone in a host C++ file, or, when its
    rule says `after`, does not alone and does after that header."""
    if (missing := _tree_missing(release)) is not None:
        pytest.skip(missing)
    alone = _compile(release, f"#include <{header}>\n", tmp_path)
    if after is None:
        assert alone.returncode == 0, f"{header} (ROCm {release}) needs a header first:\n{alone.stderr[-2000:]}"
        return
    assert alone.returncode != 0, f"{header} (ROCm {release}) compiles alone: `after: {after}` is not needed"
    done = _compile(release, f"#include <{after}>\n#include <{header}>\n", tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
