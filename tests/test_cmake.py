"""CMake projects (issue #13): plain library names and FindCUDA variables, .cu sources through globs and
functions, no-op leftovers, one diagnostic per place; and the flags `hipconv build` reads from a
translated CMake project without -p (tests/fixtures/cmake_project; its golden and idempotence tests are
in test_buildfiles.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import HAS_DEBIAN_CMAKE_HIP, cmake_build_with_debian_hip, run_cli
from hipconv.builder.cmakeflags import cmake_flags
from hipconv.buildfiles import translate_build_file
from hipconv.buildfiles.findcuda import toolkit_variable
from hipconv.translate.source import SourceFile
from tools.derive import findcuda

FIXTURES = Path(__file__).parent / "fixtures"
CMAKE_PROJECT = FIXTURES / "cmake_project" / "cuda"
INFERENCE_PROJECT = FIXTURES / "build_inference" / "cuda"
# what must never reach a hipcc line: nvcc's one-dash flags (clang reads -use_fast_math as -u se_fast_math)
NVCC_ONLY_WORDS = ("-use_fast_math", "-expt-", "-lineinfo", "-maxrregcount", "-Xptxas", "-u", "-rdc")


def _translate(text: str, name: str = "CMakeLists.txt") -> tuple[str, list[str]]:
    result = translate_build_file(SourceFile.from_bytes(name, text.encode()))
    output = text if result.output is None else result.output.decode()
    return output, [f"{d.line}:{d.col} {d.code} {d.message}" for d in result.diagnostics]


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "project(p LANGUAGES CXX CUDA)\nadd_executable(app main.cu)\n"
            "target_link_libraries(app PRIVATE cublas cufft curand cusparse cusolver cudnn)\n",
            "project(p LANGUAGES CXX HIP)\nadd_compile_definitions(HIP_ENABLE_WARP_SYNC_BUILTINS)\n"
            "find_package(hipblas REQUIRED)\nfind_package(hipfft REQUIRED)\nfind_package(hiprand REQUIRED)\n"
            "find_package(hipsparse REQUIRED)\nfind_package(hipsolver REQUIRED)\nfind_package(miopen REQUIRED)\n"
            "add_executable(app main.cu)\nset_source_files_properties(main.cu PROPERTIES LANGUAGE HIP)\n"
            "target_link_libraries(app PRIVATE roc::hipblas hip::hipfft hip::hiprand roc::hipsparse "
            "roc::hipsolver MIOpen)\n",
            id="plain-names-after-project",
        ),
        pytest.param(
            "find_package(CUDAToolkit REQUIRED)\n"
            "target_link_libraries(t CUDA::cudart_static CUDA::cuda_driver CUDA::cublas_static -lcurand)\n",
            "find_package(hip REQUIRED)\nfind_package(hipblas REQUIRED)\nfind_package(hiprand REQUIRED)\n"
            "target_link_libraries(t hip::host roc::hipblas hip::hiprand)\n",
            id="static-and-driver-targets",
        ),
        pytest.param(
            "find_package(CUDA REQUIRED)\n"
            "target_link_libraries(t ${CUDA_LIBRARIES} ${CUDA_CUBLAS_LIBRARIES} ${CUDA_CUFFT_LIBRARIES} "
            "${CUDA_cusparse_LIBRARY} ${CUDA_CUDA_LIBRARY})\n",
            "find_package(hip REQUIRED)\nfind_package(hipblas REQUIRED)\nfind_package(hipfft REQUIRED)\n"
            "find_package(hipsparse REQUIRED)\n"
            "target_link_libraries(t hip::host roc::hipblas hip::hipfft roc::hipsparse)\n",
            id="findcuda-variables",
        ),
        pytest.param(
            "set(GPU_LIBS cudart curand)\nlist(APPEND GPU_LIBS cusparse)\nset(NAMES cublas)\n"
            "target_link_libraries(app ${GPU_LIBS})\n",
            "find_package(hip REQUIRED)\nfind_package(hiprand REQUIRED)\nfind_package(hipsparse REQUIRED)\n"
            "set(GPU_LIBS hip::host hip::hiprand)\nlist(APPEND GPU_LIBS roc::hipsparse)\nset(NAMES cublas)\n"
            "target_link_libraries(app ${GPU_LIBS})\n",
            id="names-through-a-link-variable",
        ),
        pytest.param(
            "if(USE_GPU)\n  add_executable(app a.cu)\n  target_link_libraries(app curand)\nendif()\n",
            "find_package(hiprand REQUIRED)\nif(USE_GPU)\n  add_executable(app a.cu)\n"
            "  set_source_files_properties(a.cu PROPERTIES LANGUAGE HIP)\n"
            "  target_link_libraries(app hip::hiprand)\nendif()\n",
            id="find-package-before-the-block",
        ),
        pytest.param(
            "file(GLOB_RECURSE KERNELS CONFIGURE_DEPENDS src/*.cu)\nadd_library(k ${KERNELS})\n",
            "file(GLOB_RECURSE KERNELS CONFIGURE_DEPENDS src/*.cu)\n"
            "set_source_files_properties(${KERNELS} PROPERTIES LANGUAGE HIP)\nadd_library(k ${KERNELS})\n",
            id="glob-of-cu-files",
        ),
        pytest.param(
            'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -Xptxas -v")\nstring(APPEND CMAKE_CUDA_FLAGS " -lineinfo")\n'
            'string(APPEND CMAKE_CUDA_FLAGS " --expt-extended-lambda")\n',
            'string(APPEND CMAKE_HIP_FLAGS " -gline-tables-only")\n',
            id="flag-leftovers-removed",
        ),
        pytest.param(
            "target_compile_options(t PRIVATE\n  $<$<COMPILE_LANGUAGE:CUDA>:\n    -Xcompiler -fPIC\n"
            "    --use_fast_math\n    -maxrregcount=32\n  >)\n",
            "target_compile_options(t PRIVATE\n  $<$<COMPILE_LANGUAGE:HIP>:\n    -fPIC\n    -ffast-math\n  >)\n",
            id="genex-over-several-lines",
        ),
        pytest.param(
            "find_library(CUBLAS_LIB cublas PATHS ${CUDA_TOOLKIT_ROOT_DIR}/lib64 /usr/local/cuda/lib64)\n"
            "find_library(CUFFT_LIBRARY cufft HINTS ${CUDA_TOOLKIT_ROOT_DIR}/lib64)\n"
            "find_library(RT cudart /usr/local/cuda/lib64 /opt/local/lib)\n"
            "target_link_libraries(app ${CUBLAS_LIB} ${CUFFT_LIBRARY} ${RT})\n",
            "find_library(CUBLAS_LIB hipblas PATHS $ENV{ROCM_PATH}/lib /opt/rocm/lib)\n"
            "find_library(CUFFT_LIBRARY hipfft HINTS $ENV{ROCM_PATH}/lib /opt/rocm/lib)\n"
            "find_library(RT amdhip64 $ENV{ROCM_PATH}/lib /opt/rocm/lib /opt/local/lib)\n"
            "target_link_libraries(app ${CUBLAS_LIB} ${CUFFT_LIBRARY} ${RT})\n",
            id="find-library",
        ),
        pytest.param(
            "find_library(CUBLAS NAMES cublas cublas_static\n  HINTS ${CUDA_TOOLKIT_ROOT_DIR}/lib64\n"
            "  /usr/local/cuda/lib64\n  REQUIRED)\n",
            "find_library(CUBLAS NAMES hipblas\n  HINTS $ENV{ROCM_PATH}/lib /opt/rocm/lib\n  REQUIRED)\n",
            id="find-library-names-merged",
        ),
        pytest.param(
            "find_package(CUDAToolkit REQUIRED)\n"
            "target_link_libraries(app PRIVATE CUDA::cudart hip::host m m cublas cublas_static\n"
            "  PUBLIC CUDA::cuda_driver)\n",
            "find_package(hip REQUIRED)\nfind_package(hipblas REQUIRED)\n"
            "target_link_libraries(app PRIVATE hip::host m m roc::hipblas\n  PUBLIC hip::host)\n",
            id="link-items-merged-per-list",
        ),
        pytest.param(
            "find_library(M_LIB m PATHS /usr/local/cuda/lib64)\n"
            "target_link_libraries(app debug cudart optimized cudart)\n",
            "find_library(M_LIB m PATHS /usr/local/cuda/lib64)\n"
            "find_package(hip REQUIRED)\ntarget_link_libraries(app debug hip::host optimized hip::host)\n",
            id="find-library-of-another-library-and-per-configuration-items-kept",
        ),
        pytest.param(
            "set(X ${X})\ntarget_compile_options(t PRIVATE)\n",
            "set(X ${X})\ntarget_compile_options(t PRIVATE)\n",
            id="written-no-ops-kept",
        ),
    ],
)
def test_cmake_mapping(src: str, expected: str) -> None:
    assert _translate(src)[0] == expected
    assert _translate(expected)[0] == expected  # translating twice changes nothing


def test_find_library_and_merged_items_are_reported() -> None:
    _, diagnostics = _translate(
        "find_library(CUBLAS NAMES cublas cublas_static HINTS /usr/local/cuda/lib64)\n"
        "find_library(NVRTC nvrtc PATHS ${CUDA_TOOLKIT_ROOT_DIR}/lib64)\n"
        "target_link_libraries(app CUDA::cudart CUDA::cuda_driver)\n"
    )
    assert diagnostics == [
        "1:27 HC405 find_library(CUBLAS): cublas becomes hipblas, its ROCm library",
        "1:34 HC403 cublas_static becomes hipblas, which cublas became already in this find_library(); merged into it",
        "1:54 HC405 /usr/local/cuda/lib64: a CUDA toolkit directory; ROCm's libraries are searched in "
        "$ENV{ROCM_PATH}/lib and /opt/rocm/lib instead",
        "2:20 HC401 nvrtc is CUDA's nvrtc library, with no ROCm library (hiprtc: part of libamdhip64 before "
        "ROCm 6); left unchanged",
        "2:32 HC401 ${CUDA_TOOLKIT_ROOT_DIR}: a CUDA toolkit path; point it at ROCm (such as /opt/rocm) by hand",
        "3:1 HC405 find_package(hip) added: the CMake targets of the HIP libraries linked here come from "
        "these packages",
        "3:40 HC403 CUDA::cuda_driver becomes hip::host, which CUDA::cudart became already in this "
        "target_link_libraries(); merged into it",
    ]


def test_libraries_without_a_hip_target() -> None:
    output, diagnostics = _translate("target_link_libraries(app nvToolsExt nvidia-ml CUDA::nvToolsExt)\n")
    assert output == "target_link_libraries(app roctx64 nvidia-ml CUDA::nvToolsExt)\n"
    assert diagnostics == [
        "1:27 HC405 nvToolsExt: linked as roctx64, which ROCm ships no CMake target for (add ROCm's lib "
        "directory with target_link_directories if the linker does not find it)",
        "1:38 HC401 nvidia-ml is CUDA's nvidia-ml library, with no HIP counterpart (AMD's counterpart is "
        "rocm_smi (another API)); left unchanged",
        "1:48 HC401 CUDA::nvToolsExt has no ROCm CMake target (link roctx64 (roctracer) by hand: ROCm ships no "
        "CMake target for it); left unchanged",
    ]


def test_one_diagnostic_per_place() -> None:
    """A name written twice in one argument is reported once there."""
    _, diagnostics = _translate('message(STATUS "${CUDA_TOOLKIT_ROOT_DIR} ${CUDA_TOOLKIT_ROOT_DIR}")\n')
    assert diagnostics == [
        "1:16 HC401 ${CUDA_TOOLKIT_ROOT_DIR}: a CUDA toolkit path; point it at ROCm (such as /opt/rocm) by hand"
    ]


def test_mixed_glob_marks_only_its_cu_files() -> None:
    output, diagnostics = _translate("file(GLOB SRC *.cpp *.cu)\n")
    assert output == (
        "file(GLOB SRC *.cpp *.cu)\nset(hipconv_cu_sources ${SRC})\n"
        'list(FILTER hipconv_cu_sources INCLUDE REGEX "\\\\.cu$")\n'
        "set_source_files_properties(${hipconv_cu_sources} PROPERTIES LANGUAGE HIP)\n"
    )
    assert diagnostics == [
        "1:1 HC405 *.cu: the .cu files of SRC marked LANGUAGE HIP (CMake compiles .cu files as CUDA otherwise)"
    ]


@pytest.mark.parametrize(
    ("src", "marked"),
    [
        pytest.param("my_add_sample(demo demo.cu util.cpp)\n", "demo.cu", id="project-function"),
        pytest.param("cuda_add_executable(app src/main.cu)\n", "src/main.cu", id="findcuda-command"),
        pytest.param('add_kernels(NAME k SOURCES "k 1.cu" k2.cu)\n', '"k 1.cu" k2.cu', id="quoted-and-plain"),
        pytest.param("foreach(s a.cu ${X}/b.cu)\n  add_executable(${s}_app ${s})\nendforeach()\n",
                     "a.cu ${X}/b.cu", id="foreach-items"),
    ],
)  # fmt: skip
def test_cu_sources_named_by_any_command_are_marked(src: str, marked: str) -> None:
    """A .cu file reaches a target through a project function, a macro or a loop: it is marked where it is named
    (functions and macros run in their caller's directory, whose source properties the target sees)."""
    output, _ = _translate(src)
    assert f"set_source_files_properties({marked} PROPERTIES LANGUAGE HIP)" in output
    assert _translate(output)[0] == output


@pytest.mark.parametrize(
    "src",
    [
        pytest.param('message(STATUS "building kernel.cu")\n', id="message"),
        pytest.param('string(REPLACE ".cu" ".o" OBJ "${SRC}")\n', id="suffix-only"),
        pytest.param("file(GLOB_RECURSE SRC *.cpp)\ninstall(FILES kernel.cu DESTINATION src)\n", id="install"),
        pytest.param("function(add_sample name)\nendfunction()\n", id="definition"),
    ],
)
def test_cu_names_that_are_not_sources_are_not_marked(src: str) -> None:
    assert "set_source_files_properties" not in _translate(src)[0]


# ---------------------------------------------------------------- nvcc flags anywhere, the project's CUDA_* variables


@pytest.mark.parametrize(
    ("src", "expected", "codes"),
    [
        pytest.param("set(CUDA_FLAGS -use_fast_math -expt-relaxed-constexpr)\n", "set(CUDA_FLAGS -ffast-math)\n",
                     ["HC403", "HC403"], id="project-flags-variable"),
        pytest.param('set(NVCC_OPTS "${NVCC_OPTS} -use_fast_math -lineinfo")\n',
                     'set(NVCC_OPTS "${NVCC_OPTS} -ffast-math -gline-tables-only")\n', ["HC403", "HC403"],
                     id="named-like-nvcc"),
        pytest.param('string(APPEND CUDA_FLAGS " -ftz=true -prec-div=false -fmad=true")\n',
                     'string(APPEND CUDA_FLAGS " -fgpu-flush-denormals-to-zero '
                     '-fno-hip-fp32-correctly-rounded-divide-sqrt -ffp-contract=fast")\n', ["HC403"] * 3,
                     id="string-append-fast-math-family"),
        pytest.param("set(KERNEL_OPTS -O3 -use_fast_math)\nlist(APPEND KERNEL_OPTS -Xptxas=-v)\n",
                     "set(KERNEL_OPTS -O3 -ffast-math)\n", ["HC403"] * 3,
                     id="holding-an-nvcc-flag"),  # the emptied list(APPEND) is removed
        pytest.param("target_compile_options(k PRIVATE -Wall -use_fast_math -Xptxas -v -fPIC)\n",
                     "target_compile_options(k PRIVATE -Wall -ffast-math -fPIC)\n", ["HC403", "HC403"],
                     id="target-compile-options"),
        pytest.param("add_compile_options(-lineinfo)\n", "add_compile_options(-gline-tables-only)\n", ["HC403"],
                     id="add-compile-options"),
        pytest.param("target_compile_options(k PRIVATE -maxrregcount=64)\n", "", ["HC403", "HC403"],
                     id="target-compile-options-emptied"),
        pytest.param('set_target_properties(k PROPERTIES COMPILE_FLAGS "-O3 -use_fast_math")\n',
                     'set_target_properties(k PROPERTIES COMPILE_FLAGS "-O3 -ffast-math")\n', ["HC403"],
                     id="compile-flags-property"),
        pytest.param('set(CUDA_FLAGS "-maxrregcount=64;-use_fast_math;-Xptxas;-v;-O3")\n',
                     'set(CUDA_FLAGS "-ffast-math;-O3")\n', ["HC403"] * 3, id="list-items"),
        pytest.param('target_compile_options(k PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-use_fast_math;-lineinfo>")\n',
                     'target_compile_options(k PRIVATE "$<$<COMPILE_LANGUAGE:HIP>:-ffast-math;-gline-tables-only>")\n',
                     ["HC403"] * 2, id="list-in-a-generator-expression"),
        pytest.param("set(CUDA_FLAGS -O3 -weird_flag)\n", "set(CUDA_FLAGS -O3 -weird_flag)\n", ["HC402"],
                     id="unknown-flag-in-nvcc-variable-reported"),
        pytest.param("target_compile_options(k PRIVATE ${CUDA_FLAGS} ${CUDA_NVCC_FLAGS})\n",
                     "target_compile_options(k PRIVATE ${CUDA_FLAGS} ${CUDA_NVCC_FLAGS})\n", ["HC401"],
                     id="toolkit-variable-beside-a-project-one"),
    ],
)  # fmt: skip
def test_nvcc_flags_wherever_they_are(src: str, expected: str, codes: list[str]) -> None:
    """nvcc flags go through the flag table in every variable and command that holds them; a flag clang would
    misread is never left silently."""
    output, diagnostics = _translate(src)
    assert output == expected
    assert [d.split()[1] for d in diagnostics] == codes
    assert _translate(expected)[0] == expected


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("set(MY_FLAGS -O2 -Wall)\ntarget_compile_options(app PRIVATE ${MY_FLAGS} -fPIC)\n",
                     id="host-flags"),
        pytest.param('option(CUDA_USE_GRAPHS "graphs" ON)\nset(CUDA_KERNEL_SRCS a.cpp b.cpp)\n'
                     'if(CUDA_USE_GRAPHS)\n  add_definitions(-DGRAPHS)\nendif()\n'
                     'message(STATUS "${CUDA_USE_GRAPHS} ${CUDA_KERNEL_SRCS} ${CUDA_ARCH_LIST}")\n',
                     id="project-cuda-variables"),
        pytest.param("if(APPLE)\n  target_compile_options(app PRIVATE -arch arm64)\nendif()\n",
                     id="host-arch-flag"),
        pytest.param('message(STATUS "build with -use_fast_math")\n', id="flag-in-a-message"),
    ],
)  # fmt: skip
def test_project_variables_and_host_flags_noop(src: str) -> None:
    result = translate_build_file(SourceFile.from_bytes("CMakeLists.txt", src.encode()))
    assert result.output is None and result.diagnostics == ()


@pytest.mark.parametrize(
    ("name", "toolkit"),
    [
        ("CUDA_NVCC_FLAGS", True),
        ("CUDA_NVCC_FLAGS_RELEASE", True),  # CUDA_NVCC_FLAGS_<CONFIG>
        ("CUDA_TOOLKIT_ROOT_DIR", True),
        ("CUDA_INCLUDE_DIRS", True),
        ("CUDA_VERSION_MAJOR", True),
        ("CUDA_nvjpeg_LIBRARY", True),  # any library variable, by its pattern
        ("CUDA_HOME", True),  # where the toolkit is
        ("CUDA_FLAGS", False),
        ("CUDA_KERNEL_SRCS", False),
        ("CUDA_USE_GRAPHS", False),
        ("CUDA_ARCH_LIST", False),
    ],
)
def test_toolkit_variables(name: str, toolkit: bool) -> None:
    assert toolkit_variable(name) is toolkit
    diagnostics = _translate(f'message(STATUS "${{{name}}}")\n')[1]
    assert [d.split()[1] for d in diagnostics] == (["HC401"] if toolkit else [])


@pytest.mark.skipif(findcuda.modules_dir() is None, reason="no CMake with FindCUDA.cmake under /usr/share")
def test_findcuda_variables_are_derived() -> None:
    """hipconv/buildfiles/findcuda.variables is what tools/derive/findcuda.py reads from CMake's modules."""
    modules = findcuda.modules_dir()
    assert modules is not None
    assert findcuda.OUTPUT.read_text(encoding="utf-8") == "".join(f"{n}\n" for n in findcuda.variables(modules))


def test_build_inference_diagnostics(tmp_path: Path) -> None:
    """The inference project: every nvcc flag mapped or dropped and said so; FindCUDA's variable reported, the
    project's own CUDA_* variables not."""
    result = run_cli("translate", INFERENCE_PROJECT, "-o", tmp_path / "hip", "--rocm-version", "5.2")
    assert result.code == 0, result.stderr
    lines = [line.split("/cuda/", 1)[1] for line in result.stderr.splitlines() if "HC40" in line]
    fast_math = "-use_fast_math becomes -ffast-math: hipcc's clang does not take nvcc's one-dash spelling " \
                "(clang reads it as -u se_fast_math)"  # fmt: skip
    assert [line for line in lines if "HC405" not in line] == [
        "CMakeLists.txt:11:30: note[HC404]: CUDA architectures 80 90 replaced by the AMD targets gfx90a",
        "CMakeLists.txt:14:16: warning[HC401]: ${CUDA_TOOLKIT_ROOT_DIR}: a CUDA toolkit path; point it at ROCm "
        "(such as /opt/rocm) by hand",
        f"CMakeLists.txt:17:16: note[HC403]: {fast_math}",
        "CMakeLists.txt:17:31: note[HC403]: -expt-relaxed-constexpr dropped: clang lets host and device code call "
        "constexpr functions without it",
        "CMakeLists.txt:18:24: note[HC403]: -lineinfo becomes -gline-tables-only: hipcc's clang does not take "
        "nvcc's one-dash spelling (clang reads it as -l ineinfo)",
        "CMakeLists.txt:18:34: note[HC403]: -Xptxas=-v dropped: PTX assembler options have no AMD counterpart",
        "CMakeLists.txt:26:60: note[HC403]: -maxrregcount=128 dropped: no register cap flag for AMD GPUs: bound "
        "register use with __launch_bounds__ in the source",
        f"CMakeLists.txt:32:49: note[HC403]: {fast_math}",
    ]
    assert "CUDA_USE_GRAPHS" not in result.stderr and "CUDA_FLAGS" not in result.stderr


@pytest.mark.hipcc
def test_build_inference_compile_lines(tmp_path: Path) -> None:
    """hipconv build reads the project's ${CUDA_FLAGS} back: -ffast-math reaches each kernel's hipcc line, none
    of nvcc's flags does."""
    out = tmp_path / "hip"
    result = run_cli("build", INFERENCE_PROJECT, "-o", out, "--check-only", "--rocm-version", "5.2", "-j", "2")
    assert result.code == 0, result.stderr
    database = {Path(e["file"]).name: e["arguments"] for e in json.loads((out / "compile_commands.json").read_text())}
    assert sorted(database) == ["main.cu", "rmsnorm.cu", "softmax.cu"]
    for name, arguments in database.items():
        assert "-ffast-math" in arguments, name
        assert not [a for a in arguments if a.startswith(NVCC_ONLY_WORDS)], name
    assert "-gline-tables-only" in database["rmsnorm.cu"] and "-DINFER_USE_GRAPHS=1" in database["main.cu"]


@pytest.mark.hipcc
@pytest.mark.skipif(
    not HAS_DEBIAN_CMAKE_HIP,
    reason="needs cmake, clang++-15 and Debian's hip-lang (docs/build.md: Building the translated tree with CMake)",
)
def test_cmake_builds_the_inference_project(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """CMake's own HIP compile lines of the translated project carry -ffast-math, not `-u se_fast_math`."""
    out = tmp_path / "hip"
    result = run_cli("translate", INFERENCE_PROJECT, "-o", out, "--rocm-version", "5.2")
    assert result.code == 0, result.stderr
    build = cmake_build_with_debian_hip(out, tmp_path, hip_env)
    assert os.access(build / "tiny_infer", os.X_OK)
    for target in ("infer_kernels", "tiny_infer"):
        flags = (build / "CMakeFiles" / f"{target}.dir" / "flags.make").read_text()
        words = [w for line in flags.splitlines() if line.startswith("HIP_FLAGS") for w in line.split()]
        assert "-ffast-math" in words, flags
        assert not [w for w in words if w.startswith(NVCC_ONLY_WORDS)], flags


def test_cmake_project_diagnostics(tmp_path: Path) -> None:
    result = run_cli("translate", CMAKE_PROJECT, "-o", tmp_path / "hip", "--rocm-version", "5.2")
    assert result.code == 0, result.stderr
    lines = [line.split("/cuda/", 1)[1] for line in result.stderr.splitlines() if "CMakeLists.txt" in line]
    assert lines == [
        "CMakeLists.txt:4:1: note[HC405]: add_compile_definitions(HIP_ENABLE_WARP_SYNC_BUILTINS) added: HIP declares "
        "the *_sync warp builtins only with it (ROCm 6.2+)",
        "CMakeLists.txt:8:30: note[HC404]: CUDA architectures 70 80 replaced by the AMD targets gfx90a",
        "CMakeLists.txt:9:1: note[HC403]: set(CMAKE_HIP_FLAGS ...) does nothing once its nvcc flags are dropped; "
        "removed",
        "CMakeLists.txt:9:22: note[HC403]: --expt-relaxed-constexpr dropped: clang lets host and device code call "
        "constexpr functions without it",
        "rng/CMakeLists.txt:2:1: note[HC405]: *.cu: the .cu files of RNG_SOURCES marked LANGUAGE HIP (CMake "
        "compiles .cu files as CUDA otherwise)",
        "rng/CMakeLists.txt:3:1: note[HC405]: find_package(hiprand) find_package(hipsparse) added: the CMake "
        "targets of the HIP libraries linked here come from these packages",
        "samples/CMakeLists.txt:3:3: note[HC405]: ${name}.cu: marked LANGUAGE HIP (CMake compiles .cu files as "
        "CUDA otherwise)",
        "samples/CMakeLists.txt:5:3: note[HC405]: find_package(hip) added: the CMake targets of the HIP "
        "libraries linked here come from these packages",
        "samples/CMakeLists.txt:18:1: note[HC405]: scale.cu: marked LANGUAGE HIP (CMake compiles .cu files as "
        "CUDA otherwise)",  # passed to a macro: marked where it is named
        "samples/CMakeLists.txt:20:1: note[HC403]: target_compile_options(histogram ...) does nothing once its "
        "nvcc flags are dropped; removed",
        "samples/CMakeLists.txt:21:26: note[HC403]: --extended-lambda dropped: clang compiles `__device__` lambdas "
        "without it",
        "samples/CMakeLists.txt:22:26: note[HC403]: -Xptxas=-v dropped: PTX assembler options have no AMD counterpart",
    ]


# ---------------------------------------------------------------- flags hipconv build reads


def _flags(root: Path) -> dict[str, list[str]]:
    files = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    return cmake_flags(root, files, [".cu", ".cpp"])


def test_cmake_flags_of_the_project() -> None:
    """Directory and target flags, PUBLIC ones through links, -std by language, -fopenmp for C++ only."""
    root = (FIXTURES / "cmake_project" / "hip").resolve()
    common, rng = f"-I{root}/common/inc", f"-I{root}/rng/include"
    warp_sync = "-DHIP_ENABLE_WARP_SYNC_BUILTINS"  # added by the translation after project()
    library = [warp_sync, "-DSAMPLES_VERSION=3", "-DRNG_SEED=1234ULL", common, rng]
    samples = [warp_sync, "-DSAMPLES_VERSION=3", "-DSAMPLE_BLOCK=256", common, "-std=c++17"]
    assert _flags(root) == {
        "rng/demo/demo.cpp": [*library, "-fopenmp", "-std=c++17"],
        "rng/stats.cpp": [*library, "-fopenmp", "-std=c++17"],
        "rng/uniform.cu": [*library, "-std=c++17"],
        "samples/histogram.cu": samples,
        "samples/scale.cu": [warp_sync, "-DSAMPLES_VERSION=3", common, "-std=c++17"],  # ${ARGN} of a macro
        "samples/vector_add.cu": samples,
    }


def test_cmake_flags_conditions_and_generator_expressions(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    for name in ("k.cu", "host.cpp", "orphan.cu"):
        (tmp_path / "src" / name).write_text("int x;\n")
    (tmp_path / "CMakeLists.txt").write_text(
        "project(p LANGUAGES CXX HIP)\n"
        'option(WITH_FAST ON)\noption(WITH_TRACE "" OFF)\n'
        'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -Wall -Wl,--as-needed")\n'
        "set(CMAKE_HIP_STANDARD 20)\nset(CMAKE_CXX_STANDARD 14)\n"
        "if(WIN32)\n  add_definitions(-DON_WINDOWS)\nelseif(WITH_TRACE)\n  add_definitions(-DTRACE)\n"
        "else()\n  add_definitions(-DPLAIN)\nendif()\n"
        "if(CMAKE_BUILD_TYPE STREQUAL Debug)\n  add_definitions(-DFIRST_BRANCH)\nelse()\n"
        "  add_definitions(-DSECOND_BRANCH)\nendif()\n"
        "add_library(k src/k.cu src/host.cpp)\n"
        "target_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-ffast-math -munsafe-fp-atomics>\n"
        "  $<$<CONFIG:Debug>:-O0> $<$<COMPILE_LANGUAGE:CXX>:-Wextra>)\n"
        "target_include_directories(k PRIVATE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/inc>)\n"
    )
    flags = _flags(tmp_path)
    inc = f"-I{tmp_path}/inc"
    # CMAKE_BUILD_TYPE is empty unless set, as in CMake: the else() branch
    assert flags["src/k.cu"] == ["-Wall", "-DPLAIN", "-DSECOND_BRANCH", inc, "-ffast-math", "-munsafe-fp-atomics",
                                 "-std=c++20"]  # fmt: skip
    assert flags["src/host.cpp"] == ["-DPLAIN", "-DSECOND_BRANCH", inc, "-Wextra", "-std=c++14"]
    assert flags["src/orphan.cu"] == ["-Wall", "-DPLAIN", "-DSECOND_BRANCH", "-std=c++20"]  # no target: the directory


@pytest.mark.hipcc
def test_build_uses_the_cmake_flags(tmp_path: Path) -> None:
    """Without -p, each TU gets the translated CMake project's flags: SAMPLES_VERSION, SAMPLE_BLOCK, RNG_SEED
    and OpenMP are checked with #error in the sources."""
    out = tmp_path / "hip"
    result = run_cli("build", CMAKE_PROJECT, "-o", out, "--check-only", "--rocm-version", "5.2", "-j", "2")
    assert result.code == 0, result.stderr
    database = {
        Path(e["file"]).relative_to(out.resolve()).as_posix(): e["arguments"]
        for e in json.loads((out / "compile_commands.json").read_text())
    }
    assert sorted(database) == [
        "rng/demo/demo.cpp",
        "rng/stats.cpp",
        "rng/uniform.cu",
        "samples/histogram.cu",
        "samples/scale.cu",
        "samples/vector_add.cu",
    ]
    assert "-fopenmp" in database["rng/stats.cpp"] and "-fopenmp" not in database["rng/uniform.cu"]
    assert "-DSAMPLE_BLOCK=256" in database["samples/histogram.cu"]


@pytest.mark.hipcc
@pytest.mark.skipif(
    not HAS_DEBIAN_CMAKE_HIP,
    reason="needs cmake, clang++-15 and Debian's hip-lang (docs/build.md: Building the translated tree with CMake)",
)
def test_cmake_builds_the_translated_cmake_project(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """Plain library names became targets whose packages are found (Debian ships hipRAND and hipSPARSE)."""
    out = tmp_path / "hip"
    result = run_cli("translate", CMAKE_PROJECT, "-o", out, "--rocm-version", "5.2")
    assert result.code == 0, result.stderr
    build = cmake_build_with_debian_hip(out, tmp_path, hip_env)
    for program in ("samples/vector_add", "samples/histogram", "samples/scale_sample", "rng/rng_demo"):
        assert os.access(build / program, os.X_OK), program
