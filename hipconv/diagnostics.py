"""Diagnostics are data: they travel inside FileResult and are rendered by report.py."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(enum.Enum):
    NOTE = "note"
    WARNING = "warning"
    ERROR = "error"


# Each code's name: code refers to codes by these, never by a bare "HCnnn" string.
NO_RULE = "HC001"
UNSUPPORTED = "HC002"
NOT_IN_TARGET = "HC003"
DEPRECATED = "HC004"
EXPERIMENTAL = "HC005"
REMOVED = "HC006"
UNFIT_CALL = "HC007"
UNPARSED_LAUNCH = "HC008"
OVERLAP = "HC009"
HEADER_GUARD = "HC010"
SHIMMED = "HC011"
VECTOR_OPERATOR = "HC012"
CASE_DROPPED = "HC013"
CASE_MERGED_DIFFERENT_CODE = "HC016"
CG_MEMBER_MISSING = "HC014"
CG_MEMBER_RESPELLED = "HC015"
HALF_ATOMIC_ADD = "HC017"
CUBLAS_TYPE_UNMAPPED = "HC018"
NVCC_SYNTAX = "HC019"
VERSION_TEST_REWRITTEN = "HC020"
VERSION_TEST_UNDECIDED = "HC021"
PROJECT_HIP_PATH = "HC030"
KERNEL_BODY_NOT_COMPILED = "HC022"
NULL_ARGUMENT_REJECTED = "HC023"
SURFACE_MODE_DROPPED = "HC024"
SURFACE_MODE_UNSUPPORTED = "HC025"
MASK_AFTER_EARLY_RETURN = "HC026"
LEGACY_NAME = "HC027"
HOST_MATH_INCLUDED = "HC032"
OVERLOAD_SHIMMED = "HC033"
SINGLE_SOURCE_NAME_MISSING = "HC034"
SINGLE_SOURCE_EDIT_DRIFTED = "HC035"
SINGLE_SOURCE_STALE = "HC036"
RANGE_GAP = "HC037"
RANGE_WARP_SIZE_CONSTANT = "HC038"
ARCH_BRANCH_NVIDIA_ONLY = "HC028"
LITERAL_LANE_MASK = "HC101"
LANE_MASK_DROPPED = "HC102"
LANE_MASK_NOT_64_BIT = "HC103"
FULL_MASK_WIDENED = "HC104"
FULL_MASK_PARTIAL_WAVEFRONT = "HC105"
COALESCED_SCAN_WAVEFRONT = "HC106"
WARP_SIZE_SPLIT = "HC107"
WARP_SIZE_SIDE_UNDECIDED = "HC108"
UNGUARDED_DUPLICATE = "HC109"
CUDNN_NO_REWRITE = "HC201"
CUDNN_VALUE_UNSUPPORTED = "HC202"
MIOPEN_STEP_ADDED = "HC203"
LITERAL_WARP_SIZE = "HC301"
SYNC_MASK_32 = "HC302"
SHUFFLE_FROM_16 = "HC303"
VOTE_IN_32_BITS = "HC304"
ACTIVEMASK = "HC305"
PER_LANE_ARRAY_32 = "HC306"
WARP_SIZE_CONSTANT = "HC307"
INLINE_PTX = "HC311"
CUDA_ARCH_VALUE = "HC312"
TEXTURE_REFERENCE = "HC313"
DEVICE_PROP_MISSING = "HC314"
LAUNCH_BOUNDS_OVER_1024 = "HC315"
CACHE_CONFIG_IGNORED = "HC316"
HOST_WARP_SIZE_CONSTANT = "HC317"
SHUFFLE_WIDTH_BELOW_64 = "HC322"
BUILD_CONSTRUCT_UNMAPPED = "HC401"
UNKNOWN_NVCC_FLAG = "HC402"
NVCC_FLAG_DROPPED = "HC403"
ARCHS_REPLACED = "HC404"
BUILD_COMMANDS_ADDED = "HC405"
MSVC_HOST_OPTION = "HC406"
UNTRUSTED_FLAG_DROPPED = "HC407"
CMAKE_NOT_EVALUATED = "HC409"
HIPCC_FAILED = "HC410"
EXPANSION_CUT = "HC411"
CMAKE_CONFIGURE_FALLBACK = "HC412"
BACKEND_SPLIT = "HC413"
BACKEND_NOT_SPLIT = "HC414"
NOT_RUNNABLE_ON_CPU = "HC420"
PROGRAM_FAILED = "HC421"
CPU_BUILD_FAILED = "HC422"
NVIDIA_BUILD_FAILED = "HC423"
RUN_ARGS_NOT_READ = "HC424"
PROCESSES_LEFT = "HC425"


@dataclass(frozen=True)
class Example:
    """A short input and a diagnostic hipconv prints for it: `hipconv codes CODE` shows it, and the tests run
    `hipconv ARGV` on it (in a directory holding only `file`) and check that the line is printed."""

    source: str  # the content of `file`
    diagnostic: str  # the line hipconv prints for it (among others, maybe)
    argv: tuple[str, ...] = ()  # the command line after `hipconv` [default: translate FILE]
    file: str = "example.cu"
    note: str = ""  # why no bundled rule reproduces it (then the tests cannot run it as it stands)

    @property
    def command_line(self) -> tuple[str, ...]:
        return self.argv or ("translate", self.file)


@dataclass(frozen=True)
class Code:
    code: str
    severity: Severity
    title: str
    hint: str = ""  # what to do about it (shown by `hipconv scan`)
    unported: bool = False  # the CUDA API stays untranslated: --strict fails on it, --stats lists it
    example: Example | None = None  # shown by `hipconv codes CODE`; every code has one


def _codes(*codes: Code) -> dict[str, Code]:
    return {c.code: c for c in sorted(codes, key=lambda c: c.code)}  # in code order, however merged


# Stable codes; docs/codes.md is generated from this (`hipconv rules docs --write docs`).
CODES = _codes(
    Code(
        NO_RULE,
        Severity.WARNING,
        "CUDA API with no hipconv rule, or a CUDA-looking name in no CUDA inventory; left unchanged",
        unported=True,
        example=Example(
            "int v = CUBLAS_VERSION;",
            "example.cu:1:9: warning[HC001]: CUBLAS_VERSION (cublas) is CUDA API with no hipconv rule; left unchanged",
        ),
    ),
    Code(
        UNSUPPORTED,
        Severity.ERROR,
        "CUDA API with no HIP equivalent (unsupported); left unchanged",
        unported=True,
        example=Example(
            "cudaCtxResetPersistingL2Cache();",
            "example.cu:1:1: error[HC002 cudart.cudaCtxResetPersistingL2Cache]: cudaCtxResetPersistingL2Cache "
            "has no HIP equivalent; left unchanged",
        ),
    ),
    Code(
        NOT_IN_TARGET,
        Severity.ERROR,
        "HIP equivalent does not exist in the targeted ROCm release; left unchanged",
        unported=True,
        example=Example(
            "cudaDeviceSetLimit(cudaLimitStackSize, 4096);",
            "example.cu:1:1: error[HC003 cudart.cudaDeviceSetLimit]: hipDeviceSetLimit is not in ROCm 5.2; "
            "first in 5.7; cudaDeviceSetLimit left unchanged",
            argv=("translate", "--rocm-version", "5.2", "example.cu"),
        ),
    ),
    Code(
        DEPRECATED,
        Severity.WARNING,
        "deprecated API, or a value HIP documents as unsupported on AMD GPUs (hipBLAS's TF32 compute type); "
        "translated, but plan to replace it",
        example=Example(
            "cudaProfilerStart();",
            "example.cu:1:1: warning[HC004 cudart.cudaProfilerStart]: cudaProfilerStart is deprecated; "
            "translated to hipProfilerStart",
        ),
    ),
    Code(
        EXPERIMENTAL,
        Severity.WARNING,
        "experimental HIP equivalent; left unchanged unless --experimental",
        unported=True,
        example=Example(
            "cufftXtCallbackType_t type;",
            "example.cu:1:1: warning[HC005 cufft.cufftXtCallbackType_t]: hipfftXtCallbackType_t is "
            "experimental (hipFFT declares load/store callbacks, but what they support depends on the backend "
            "library and its release; translated only with --experimental: check the callbacks on the target); "
            "cufftXtCallbackType_t left unchanged (pass --experimental to translate it)",
        ),
    ),
    Code(
        REMOVED,
        Severity.ERROR,
        "API removed from HIP; left unchanged",
        unported=True,
        example=Example(
            "cudaOldCall(x);",
            "example.cu:1:1: error[HC006 mine.cudaOldCall]: cudaOldCall was removed from HIP; left unchanged",
            argv=("translate", "--rules-dir", "mine", "example.cu"),
            note="a rule of your own with `status: removed` (here mine/old.yaml: library mine, kind function, cuda "
            "cudaOldCall, hip hipOldCall, status removed); the bundled rules report it, with the release, where ROCm "
            "removed the HIP name (CUDA_MEMSET_NODE_PARAMS: HIP_MEMSET_NODE_PARAMS, gone in ROCm 7.0)",
        ),
    ),
    Code(
        UNFIT_CALL,
        Severity.WARNING,
        "call arguments could not be read or do not fit the rule; call left unchanged",
        unported=True,
        example=Example(
            "v = __shfl_xor_sync(0xffffffff, v, 16;",
            "example.cu:1:5: warning[HC007 device.shfl-xor-sync-maskless]: cannot read the arguments of "
            "__shfl_xor_sync; left unchanged",
            argv=("translate", "--rocm-version", "5.2", "example.cu"),
        ),
    ),
    Code(
        UNPARSED_LAUNCH,
        Severity.WARNING,
        "kernel launch could not be parsed; left as a <<<...>>> launch",
        example=Example(
            "kernel<<<grid, block>>>;",
            "example.cu:1:7: warning[HC008]: cannot read this kernel launch; left as a <<<...>>> launch",
            argv=("translate", "--kernel-launch", "hip", "example.cu"),
        ),
    ),
    Code(
        OVERLAP,
        Severity.ERROR,
        "two rewrites overlap; the later one was not applied",
        example=Example(
            "cudaMyCall(cudaMyArg);",
            "example.cu:1:12: error[HC009 mine.cudaMyArg]: this rewrite overlaps another one and was not applied",
            argv=("translate", "--rules-dir", "mine", "example.cu"),
            note="an internal safeguard that the bundled rules do not trigger (rules of your own that rewrite "
            "the same tokens could): the line shows its shape",
        ),
    ),
    Code(
        HEADER_GUARD,
        Severity.NOTE,
        "CUDA header guard tested with #ifdef/defined(): now tests a macro of the HIP counterpart header",
        example=Example(
            "#include <curand.h>\n#ifdef CURAND_H_\nconst char *name(curandStatus_t s);\n#endif",
            "example.cu:2:8: note[HC010 curand.CURAND_H_]: CURAND_H_ rewritten to HIPRAND_VERSION (the include "
            "guard of NVIDIA's curand.h; hiprand/hiprand.h defines HIPRAND_VERSION (hiprand_version.h))",
        ),
    ),
    Code(
        SHIMMED,
        Severity.NOTE,
        "CUDA API the targeted ROCm lacks, shimmed by the generated hipconv_compat.h (--no-compat: reported)",
        example=Example(
            "__global__ void copy(const float4 *in, float4 *out) { out[0] = __ldcs(in); }",
            "example.cu:1:64: note[HC011]: __ldcs is not in ROCm 7.2: shimmed by hipconv_compat.h as hipconv_ldcs",
        ),
    ),
    Code(
        VECTOR_OPERATOR,
        Severity.NOTE,
        "the project's operator on a vector type (helper_math.h style) that the targeted HIP declares, computing"
        " the same: its definition is disabled with #if 0",
        example=Example(
            "inline __host__ __device__ void operator+=(float2 &a, float2 b)\n{\n    a.x += b.x;\n    a.y += b.y;\n}\n",
            "example.cu:1:33: note[HC012]: float2 += float2: HIP declares HIP_vector_type<float, 2>::operator+= "
            "(hip/amd_detail/amd_hip_vector_types.h), which computes the same, component by component, in ROCm 7.2; "
            "the project's definition is disabled (#if 0)",
        ),
    ),
    Code(
        CG_MEMBER_MISSING,
        Severity.ERROR,
        "member function of a CUDA cooperative group that HIP's group lacks in the targeted ROCm; left unchanged",
        hint="target a ROCm release whose group has it (the message names them), or compute it otherwise "
        "(meta_group_rank(): the parent's thread_rank() / the tile size)",
        unported=True,
        example=Example(
            "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
            "__global__ void k(int *out) {\n"
            "  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());\n"
            "  out[tile.meta_group_rank()] = 1;\n}\n",
            "example.cu:5:12: error[HC014]: meta_group_rank() is a member of HIP's thread_block_tile from ROCm 5.7; "
            "the targeted 5.2 lacks it; left unchanged",
            argv=("translate", "--rocm-version", "5.2", "example.cu"),
        ),
    ),
    Code(
        CG_MEMBER_RESPELLED,
        Severity.NOTE,
        "member function of a CUDA cooperative group that HIP's group spells otherwise, with the same meaning: "
        "rewritten (num_threads() to size())",
        example=Example(
            "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
            "__global__ void k(int *out) {\n  cg::thread_block block = cg::this_thread_block();\n"
            "  out[0] = block.num_threads();\n}\n",
            "example.cu:5:18: note[HC015]: num_threads() rewritten to size(), HIP's name for it in thread_block",
        ),
    ),
    Code(
        NVCC_SYNTAX,
        Severity.NOTE,
        "C++ that nvcc accepts and clang rejects, respelled with the same meaning (`register` dropped, a CUDA "
        "keyword or macro glued to a string literal separated, a launch's split chevrons joined)",
        example=Example(
            'extern "C"__global__ void scale(float *x) { register float s = 2.0f; x[0] *= s; }',
            "example.cu:1:11: note[HC019]: space put between a string literal and __global__: clang reads them "
            "glued as a literal suffix",
        ),
    ),
    Code(
        VERSION_TEST_REWRITTEN,
        Severity.NOTE,
        "CUDA version or architecture macro tested by value (HIP defines none): the test is rewritten so that "
        "HIP compiles the branches nvcc compiles, with the device pass of a current NVIDIA GPU for AMD devices",
        "check the branch now compiled for AMD devices: it was written for an NVIDIA GPU of at least that "
        "architecture (32-lane warps, its shared memory size)",
        example=Example(
            "__global__ void k(float *x) {\n#if __CUDA_ARCH__ >= 700\n  x[0] = 1.0f;\n#endif\n}",
            "example.cu:2:5: note[HC020]: #if __CUDA_ARCH__ >= 700 now reads #if defined(__HIP_DEVICE_COMPILE__): "
            "its branch is compiled for AMD devices only, as nvcc compiles it with __CUDA_ARCH__ undefined on the "
            "host pass and newer than every architecture tested on the device pass",
        ),
    ),
    Code(
        VERSION_TEST_UNDECIDED,
        Severity.ERROR,
        "CUDA version or architecture macro used in a way no AMD reading decides (compared with one "
        "architecture, computed with, used in code): left unchanged, and HIP reads it as 0",
        "test what the code needs on AMD: __HIP_DEVICE_COMPILE__ for the device pass, __gfx*__ or "
        "__has_builtin for a feature, HIP_VERSION for the build",
        example=Example(
            "#if __CUDA_ARCH__ == 800\n#define TILE 64\n#else\n#define TILE 32\n#endif",
            "example.cu:1:5: error[HC021]: #if tests __CUDA_ARCH__ in a way no AMD reading decides (it is compared "
            "with one architecture, and no AMD GPU is that NVIDIA one); left unchanged: HIP defines no "
            "__CUDA_ARCH__, so it reads as 0 and this test fails on both passes. Rewrite the test for AMD devices "
            "(__HIP_DEVICE_COMPILE__, __gfx*__) or for the build (HIP_VERSION)",
        ),
    ),
    Code(
        PROJECT_HIP_PATH,
        Severity.NOTE,
        "the project has its own HIP path (a switch such as GGML_USE_HIP, an alias header): its HIP code is kept "
        "as written, and its tests of the switch read it as defined, so its AMD branches are the ones compiled",
        "nothing to do; `--project-hip-path off` translates the CUDA branches instead (docs/project-hip-switch.md)",
        example=Example(
            "#ifdef MYLIB_USE_HIP\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif",
            "example.cu:1:2: note[HC030]: this project has its own HIP path (MYLIB_USE_HIP, 1 test); its AMD "
            "branches are kept, and its tests read MYLIB_USE_HIP as defined",
        ),
    ),
    Code(
        KERNEL_BODY_NOT_COMPILED,
        Severity.ERROR,
        "kernel whose whole body is in a branch not compiled for AMD devices: it compiles empty, and its "
        "launches compute nothing",
        "give the kernel a body for AMD devices, or do not launch it there",
        example=Example(
            "__global__ void k(float *x) {\n#if __CUDA_ARCH__ < 300\n  x[0] = 1.0f;\n#endif\n}",
            "example.cu:1:17: error[HC022]: the whole body of kernel k is in a branch that is not compiled for AMD "
            "devices (line 2): the kernel compiles empty, and every launch of it computes nothing",
        ),
    ),
    Code(
        ARCH_BRANCH_NVIDIA_ONLY,
        Severity.ERROR,
        "NVIDIA-only code (inline PTX, wmma, a name the targeted ROCm lacks) in the branch of an architecture "
        "test that AMD devices compile, with no portable branch in its chain to take instead",
        "give the chain a branch for AMD devices (a portable #else, __gfx*__ builtins), or guard the caller",
        example=Example(
            "__device__ int lane() {\n  int id = 0;\n#if __CUDA_ARCH__ >= 700\n"
            '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));\n#endif\n  return id;\n}',
            "example.cu:4:3: error[HC028]: inline PTX (mov.u32) in the branch of line 3, which is compiled for AMD "
            "devices as nvcc compiles it for a current NVIDIA GPU, and no branch of its chain is portable: this "
            "does not compile for AMD; write the branch for AMD devices (a portable #else, or __gfx*__ builtins)",
        ),
    ),
    Code(
        LEGACY_NAME,
        Severity.WARNING,
        "a legacy CUDA name, in no bundled CUDA inventory (removed before CUDA 11.8), translated to the HIP name "
        "of the same shape that the targeted ROCm declares",
        hint="check the call against the HIP prototype (hipconv checks the argument count), and plan to move to "
        "the API that replaced it in CUDA",
        example=Example(
            "cusparseScsrmv(h, CUSPARSE_OPERATION_NON_TRANSPOSE, m, n, nnz, &a, d, v, r, c, x, &b, y);",
            "example.cu:1:1: warning[HC027 cusparse.cusparseScsrmv]: cusparseScsrmv rewritten to hipsparseScsrmv "
            "(a legacy name, in no CUDA 11.8-13.0 inventory (removed from CUDA before 11.8, or hipSPARSE's own "
            "extension); hipSPARSE declares hipsparseScsrmv in ROCm 5.2-7.2)",
        ),
    ),
    Code(
        HOST_MATH_INCLUDED,
        Severity.NOTE,
        "host code calls a C++ math overload that nvcc's runtime header declares in the global namespace and "
        "HIP's does not (isfinite, abs or sqrt on a float ...): #include <math.h> added",
        example=Example(
            '#include <stdio.h>\nint main() {\n  float x = 0.5f;\n  printf("%d\\n", isfinite(x));\n}\n',
            "example.cu:4:18: note[HC032]: isfinite(...) in host code: nvcc's runtime header declares the C++ math "
            "overloads (isfinite for float among them) in the global namespace, HIP's does not: #include <math.h> "
            "added",
        ),
    ),
    Code(
        OVERLOAD_SHIMMED,
        Severity.NOTE,
        "a CUDA overload the targeted ROCm lacks while it declares the name for other types (16-bit atomicCAS, "
        "__hmax_nan on __nv_bfloat16 ...): hipconv_compat.h defines it under the CUDA name (--no-compat: none)",
        example=Example(
            "__global__ void k(unsigned short *p) { atomicCAS(p, 0, 1); }\n",
            "example.cu:1:40: note[HC033]: atomicCAS(unsigned short *, unsigned short, unsigned short) is not in ROCm "
            "7.2, which declares atomicCAS for other types: hipconv_compat.h adds that overload; the call keeps its "
            "name, and HIP's overloads serve the other types",
        ),
    ),
    Code(
        SINGLE_SOURCE_NAME_MISSING,
        Severity.WARNING,
        "scan --single-source: a CUDA name the file uses, which hipcc must read as its HIP name, that the "
        "hipconv_portability.h of the tree does not #define (or there is no such header)",
        hint="rerun `hipconv translate --single-source` on the tree and commit the header it writes",
        example=Example(
            "#include <cuda_runtime.h>\nvoid get(float **p) { cudaMalloc(p, 4); }\n",
            "example.cu:2:23: warning[HC034]: cudaMalloc reads hipMalloc under hipcc, but there is no "
            "hipconv_portability.h in this folder or above",
            argv=("scan", "--single-source", "example.cu"),
        ),
    ),
    Code(
        SINGLE_SOURCE_EDIT_DRIFTED,
        Severity.WARNING,
        "scan --single-source: a guarded edit whose CUDA side (its #else part; in a build file, the else part of a "
        "GPU_BACKEND branch) changed since hipconv wrote it: its HIP side may no longer do the same",
        hint="rerun `hipconv translate --single-source`: it regenerates the HIP side from the CUDA side",
        example=Example(
            "__device__ float f(float v) {\n"
            "#if defined(__HIP__) || defined(__HIP_PLATFORM_AMD__) // hipconv single-source 5d41402abc4b\n"
            "    return __shfl_xor(v, 1);\n"
            "#else // hipconv single-source\n"
            "    return __shfl_xor_sync(0xffffffffu, v, 2);\n"
            "#endif // hipconv single-source 5d41402abc4b\n"
            "}\n",
            "example.cu:2:1: warning[HC035]: the CUDA side of this guarded edit (lines 2-6) changed since hipconv "
            "wrote its HIP side (digest 5d41402abc4b); rerun `hipconv translate --single-source` to regenerate it",
            argv=("scan", "--single-source", "example.cu"),
        ),
    ),
    Code(
        SINGLE_SOURCE_STALE,
        Severity.WARNING,
        "scan --single-source: a file that is not in the single-source form hipconv writes for it: a CUDA line "
        "that now needs a HIP edit has none, an edit is no longer needed, or a CUDA include is not guarded",
        hint="rerun `hipconv translate --single-source` on the tree and commit what it changes",
        example=Example(
            "#include <cuda_runtime.h>\nvoid get(float **p) { cudaMalloc(p, 4); }\n",
            "example.cu:1:1: warning[HC036]: not in the single-source form hipconv writes for it from this line on "
            "(a CUDA line that needs a HIP edit has none, or an include of the CUDA headers is not guarded)",
            argv=("scan", "--single-source", "example.cu"),
        ),
    ),
    Code(
        RANGE_GAP,
        Severity.ERROR,
        "with --rocm-version LOW..HIGH: a CUDA name or header that some release of the range has no counterpart "
        "for, or calls with other arguments; written as the newest release has it, which the others cannot build",
        hint="narrow the range to the releases that have it (the message names those that lack it), or keep that "
        "code under your own #if HIP_VERSION test",
        unported=True,
        example=Example(
            "#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat16 *p) { p[0] = __float2bfloat16(1.0f); }\n",
            "example.cu:1:11: error[HC037]: cuda_bf16.h does not build on every release of ROCm 5.2..7.2: ROCm 5.2 "
            "has no counterpart (no shim either)",
            argv=("translate", "example.cu", "--rocm-version", "5.2..7.2"),
        ),
    ),
    Code(
        RANGE_WARP_SIZE_CONSTANT,
        Severity.ERROR,
        "with --rocm-version LOW..HIGH reaching ROCm 7.0: HIP's warpSize where C++ needs a constant (an array bound, "
        "a template argument, static_assert, constexpr, a case label, an enumerator), which ROCm 7.0 and later read "
        "at run time",
        hint="define the constant per target (64 on gfx9: GCN, CDNA; 32 on gfx10 and later: RDNA), read warpSize at "
        "run time, or end the range before 7.0",
        example=Example(
            "#ifdef __HIP_PLATFORM_AMD__\n__global__ void k(float *p) { __shared__ float s[warpSize]; p[0] = s[0]; }"
            "\n#endif\n",
            "example.cu:2:50: error[HC038]: warpSize as an array bound, which must be a constant: ROCm 7.0, 7.1 and "
            "7.2 (of the range 6.3..7.2) read warpSize at run time, so this does not build there: define the constant "
            "per target (64 on gfx9 and older: GCN, CDNA; 32 on gfx10-gfx12: RDNA, wave32 by default), read warpSize "
            "at run time, or end the range before 7.0",
            argv=("translate", "example.cu", "--rocm-version", "6.3..7.2"),
        ),
    ),
    Code(
        CASE_DROPPED,
        Severity.NOTE,
        "case label or overload that translation would break, dropped: a constant the targeted ROCm lacks, a "
        "value another label has, a definition another one has",
        example=Example(
            "#include <cublas_v2.h>\nconst char *name(cublasStatus_t s) {\n  switch (s) {\n"
            '    case CUBLAS_STATUS_SUCCESS: return "success";\n'
            '    case CUBLAS_STATUS_LICENSE_ERROR: return "license error";\n  }\n  return "?";\n}',
            "example.cu:5:5: note[HC013]: case CUBLAS_STATUS_LICENSE_ERROR: dropped (the switch value cannot be it "
            "on HIP): CUBLAS_STATUS_LICENSE_ERROR has no HIP counterpart",
        ),
    ),
    Code(
        UNGUARDED_DUPLICATE,
        Severity.WARNING,
        "a definition or case label that becomes a duplicate on HIP, left as it is: #if/#else/#endif lines in it "
        "pair with lines outside it, so no #if that hipconv writes around it could pair up",
        hint="leave it out of the HIP build by hand (its #if/#endif lines moved out of it first), or give the two "
        "CUDA types HIP tells apart",
        example=Example(
            "int id(cudaStream_t s) { return 0; }\n#if FAST\nint id(CUstream s) {\n#endif\n  int n = 1;\n"
            "#if SLOW\n  n = 2;\n  return n;\n}\n#endif\n",
            "example.cu:3:5: warning[HC109]: id(CUstream) left as it is, a redefinition on HIP: it becomes "
            "id(hipStream_t), as does id(cudaStream_t) of line 1; #if/#else/#endif lines in it pair with lines "
            "outside it, so no #if can go around it: leave one out of the HIP build by hand",
        ),
    ),
    Code(
        CASE_MERGED_DIFFERENT_CODE,
        Severity.WARNING,
        "two case labels that become one HIP value run different code: the later label is dropped (or kept only "
        "where the first is not compiled), so HIP runs the first one's code for both",
        hint="decide which code the one value runs on HIP: keep the one you need, or switch on something that "
        "still tells the two apart; the later label's code is kept",
        example=Example(
            "#include <cublas_v2.h>\nint tensor_ops(cublasGemmAlgo_t a) {\n  switch (a) {\n"
            "    case CUBLAS_GEMM_DEFAULT: return 0;\n    case CUBLAS_GEMM_DEFAULT_TENSOR_OP: return 1;\n  }\n"
            "  return -1;\n}",
            "example.cu:5:5: warning[HC016]: case CUBLAS_GEMM_DEFAULT_TENSOR_OP: dropped (a duplicate case value on "
            "HIP): it becomes HIPBLAS_GEMM_DEFAULT, as does case CUBLAS_GEMM_DEFAULT: of line 4; but the two labels "
            "run different code: where CUDA ran this label's, HIP runs that of line 4 for both; this label's code "
            "stays: decide which code the value runs",
        ),
    ),
    Code(
        HALF_ATOMIC_ADD,
        Severity.ERROR,
        "atomicAdd on a __half, __half2, __nv_bfloat16 or __nv_bfloat162 pointer: no ROCm release declares it; "
        "left unchanged",
        hint="write the addition as an atomicCAS loop on the aligned 32-bit word that holds the value",
        unported=True,
        example=Example(
            "#include <cuda_fp16.h>\n__global__ void k(__half *sum, __half v) {\n  atomicAdd(sum, v);\n}\n",
            "example.cu:3:3: error[HC017]: atomicAdd on sum (__half*): no ROCm release declares atomicAdd for __half "
            "(HIP has it for 32- and 64-bit types only); left unchanged: write it as a CAS loop on the 32-bit word "
            "that holds it",
        ),
    ),
    Code(
        CUBLAS_TYPE_UNMAPPED,
        Severity.ERROR,
        "a cuBLAS data-type or compute-type argument with no value of the same meaning in the targeted hipBLAS "
        "(its v1 API, before ROCm 6.0; or a data type as compute type that cuBLAS itself refuses); call left "
        "unchanged",
        hint="pass a type hipBLAS's v1 API can express (CUBLAS_COMPUTE_32F for a TF32 or PEDANTIC compute type), "
        "or target ROCm 6.0 or later; pass a cublasComputeType_t as the compute type",
        unported=True,
        example=Example(
            "void f(cublasHandle_t h, const float *A, float *C) {\n"
            "  float a = 1, b = 0;\n"
            "  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, 8, 8, 8, &a, A, CUDA_R_32F, 8, A, CUDA_R_32F, 8, &b, C,\n"
            "               CUDA_R_32F, 8, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);\n"
            "}\n",
            "example.cu:3:3: error[HC018 cublas.cublasGemmEx@5.2]: cublasGemmEx: computeType "
            "CUBLAS_COMPUTE_32F_FAST_TF32 has no hipblasDatatype_t of the same meaning: TF32 tensor-core compute: "
            "hipblas-common.h says hipBLAS supports it with the cuBLAS backend only; pass CUBLAS_COMPUTE_32F for FP32 "
            "compute; left unchanged",
            argv=("translate", "--rocm-version", "5.2", "example.cu"),
        ),
    ),
    Code(
        NULL_ARGUMENT_REJECTED,
        Severity.ERROR,
        "a null argument the CUDA library call accepts, with a meaning, that the HIP call rejects (cuSOLVER's getrs "
        "with a NULL pivot array): translated, but it fails at run time",
        hint="pass what the HIP function documents instead (a device array of the identity permutation 1..n for "
        "a getrs without pivoting); `hipconv rules show NAME` names the contract",
        example=Example(
            "void solve(cusolverDnHandle_t h, int n, const float *LU, float *b, int *info) {\n"
            "  cusolverDnSgetrs(h, CUBLAS_OP_N, n, 1, LU, n, NULL, b, n, info);\n"
            "}\n",
            "example.cu:2:49: error[HC023 cusolver.cusolverDnSgetrs@6.0]: cusolverDnSgetrs's devIpiv is NULL: "
            "cuSOLVER's getrs applies no row interchanges when devIpiv is NULL (the factors of a getrf without "
            "pivoting); hipSOLVER passes it to rocSOLVER's getrs, which rejects a null ipiv: the call returns an "
            "invalid-value status and B is left unsolved (pass a device array holding 1..n, the identity "
            "permutation) (translated to hipsolverDnSgetrs; fix by hand)",
        ),
    ),
    Code(
        SURFACE_MODE_DROPPED,
        Severity.WARNING,
        "a surface function's boundary-mode argument (trap or zero) dropped: HIP's take none; accesses inside the "
        "surface are the same, an out-of-range one is not trapped or zeroed as CUDA does",
        hint="keep the coordinates inside the surface, or test them before the call",
        example=Example(
            "__global__ void k(cudaSurfaceObject_t s) {\n"
            "  surf2Dwrite(1.0f, s, threadIdx.x * 4, 0, cudaBoundaryModeTrap);\n"
            "}\n",
            "example.cu:2:3: warning[HC024]: surf2Dwrite's boundary mode cudaBoundaryModeTrap: HIP's surf2Dwrite "
            "takes none (5.2 ignores it; ROCm 6 has no parameter): dropped; accesses inside the surface are the "
            "same, an out-of-range access no longer traps",
        ),
    ),
    Code(
        SURFACE_MODE_UNSUPPORTED,
        Severity.ERROR,
        "a surface function's boundary mode that HIP cannot honour (cudaBoundaryModeClamp, or a mode given by a "
        "variable): the argument is left in place (ROCm 6 does not compile it; 5.2 ignores it)",
        hint="clamp the coordinates to the surface before the call, then drop the argument",
        example=Example(
            "__global__ void k(cudaSurfaceObject_t s, float *out) {\n"
            "  surf2Dread(out, s, -4, 0, cudaBoundaryModeClamp);\n"
            "}\n",
            "example.cu:2:3: error[HC025]: surf2Dread's boundary mode cudaBoundaryModeClamp: HIP's surf2Dread takes "
            "none (5.2 ignores it; ROCm 6 has no parameter), so accesses outside the surface compute otherwise; the "
            "argument is left in place: clamp the coordinates before the call and drop it",
        ),
    ),
    Code(
        MASK_AFTER_EARLY_RETURN,
        Severity.WARNING,
        "32-bit full lane mask widened to all 64 lanes in a function that returns early above the call: where "
        "part of a wavefront returned, ROCm's *_sync mask check traps (builds without NDEBUG)",
        hint="pass __activemask() (the lanes that run the call), or keep every lane of the wavefront in the "
        "function until the call",
        example=Example(
            "__device__ float half_warp(float v) {\n"
            "  if (threadIdx.x >= 32) return v;\n"
            "  return v + __shfl_xor_sync(0xffffffff, v, 1);\n"
            "}\n",
            "example.cu:3:30: warning[HC026 device.shfl-xor-sync]: 32-bit full lane mask 0xffffffff (all 32 lanes "
            "of a CUDA warp) written as 0xffffffffffffffffull, all 64 lanes of a wavefront, as ROCm's "
            "__shfl_xor_sync needs, but the function returns early above it (line 2): where threads of one "
            "wavefront return and others reach the call (a CUDA warp returning as a whole is half a wavefront), "
            "the mask names lanes that do not run it, and ROCm's mask check traps in builds without NDEBUG (pass "
            "__activemask(), the lanes that run the call)",
        ),
    ),
    Code(
        LITERAL_LANE_MASK,
        Severity.WARNING,
        "32-bit literal lane mask: on a 64-wide wavefront it covers lanes 0-31 only",
        example=Example(
            "v += __shfl_down_sync(0xffffffff, v, 16);",
            "example.cu:1:23: warning[HC101 device.shfl-down-sync-maskless]: 32-bit lane mask 0xffffffff "
            "covers lanes 0-31 only of a 64-wide wavefront; ROCm 5.2 has only the mask-less __shfl_down, which "
            "acts on all active lanes, so the mask was dropped",
            argv=("translate", "--rocm-version", "5.2", "example.cu"),
        ),
    ),
    Code(
        LANE_MASK_DROPPED,
        Severity.WARNING,
        "lane mask argument dropped: the targeted ROCm has only the mask-less form",
        example=Example(
            "v += __shfl_down_sync(mask, v, 16);",
            "example.cu:1:23: warning[HC102 device.shfl-down-sync-maskless]: lane mask 'mask' dropped: ROCm "
            "5.2 has only the mask-less __shfl_down, which acts on all active lanes",
            argv=("translate", "--rocm-version", "5.2", "example.cu"),
        ),
    ),
    Code(
        LANE_MASK_NOT_64_BIT,
        Severity.NOTE,
        "lane mask must be a 64-bit integer for ROCm's *_sync warp builtins",
        example=Example(
            "v += __shfl_down_sync(mask, v, 16);",
            "example.cu:1:23: note[HC103 device.shfl-down-sync]: lane mask 'mask' must be a 64-bit integer "
            "covering the wavefront's 64 lanes for ROCm's __shfl_down_sync",
        ),
    ),
    Code(
        FULL_MASK_WIDENED,
        Severity.NOTE,
        "32-bit full lane mask 0xffffffff widened to the 64-bit full mask (all 64 lanes)",
        example=Example(
            "v += __shfl_down_sync(0xffffffff, v, 16);",
            "example.cu:1:23: note[HC104 device.shfl-down-sync]: 32-bit full lane mask 0xffffffff (all 32 lanes of a "
            "CUDA warp) written as 0xffffffffffffffffull, all 64 lanes of a wavefront, as ROCm's __shfl_down_sync "
            "needs",
        ),
    ),
    Code(
        FULL_MASK_PARTIAL_WAVEFRONT,
        Severity.WARNING,
        "full lane mask widened to 64 lanes in a kernel a launch gives blocks that leave lanes of a wavefront empty",
        hint="pass __activemask() (the lanes that run the call), or launch blocks of a multiple of 64 threads",
        example=Example(
            "__global__ void k(float* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffff, p[threadIdx.x], 1); }\n"
            "void run(float* p) { k<<<1, 32>>>(p); }\n",
            "example.cu:1:64: warning[HC105 device.shfl-xor-sync]: 32-bit full lane mask 0xffffffff (all 32 lanes "
            "of a CUDA warp) written as 0xffffffffffffffffull, all 64 lanes of a wavefront, as ROCm's "
            "__shfl_xor_sync needs, but kernel k is launched with blocks of 32 threads (line 2): the last wavefront "
            "of each block runs 32 lanes, the mask names 64, and ROCm's mask check traps in builds without NDEBUG "
            "(pass __activemask(), the lanes that run the call)",
        ),
    ),
    Code(
        COALESCED_SCAN_WAVEFRONT,
        Severity.WARNING,
        "scan over a coalesced_group: on AMD the group is the active lanes of a 64-lane wavefront, two CUDA warps",
        hint="scan a thread_block_tile<32> (the same in CUDA and on AMD), or keep the group within 32 lanes",
        example=Example(
            "#include <cooperative_groups/scan.h>\n"
            "namespace cg = cooperative_groups;\n"
            "__global__ void k(int* p) { p[threadIdx.x] = cg::exclusive_scan(cg::coalesced_threads(), 1); }\n",
            "example.cu:3:65: warning[HC106]: cg::exclusive_scan over a coalesced_group: CUDA's group is the active "
            "threads of a 32-thread warp, AMD's those of a 64-lane wavefront, so ranks from lane 32 on continue the "
            "lower half's scan where CUDA's start again at 0 (exact only where the group lies within one 32-lane "
            "half, as with blocks of at most 32 threads; scan a thread_block_tile<32> instead)",
        ),
    ),
    # cuDNN -> MIOpen: rules with a `code` and the templates' leave()/note()
    Code(
        WARP_SIZE_SPLIT,
        Severity.NOTE,
        "a project's warp-size constant split by side: the device's per-architecture constant in device code, the "
        "device's value read at run time on the host",
        example=Example(
            "#define WARP_SIZE 32\n"
            "__global__ void k(float* p) { p[threadIdx.x % WARP_SIZE] = 1.0f; }\n"
            "void run(float* p) { k<<<1, 4 * WARP_SIZE>>>(p); }\n",
            "example.cu:3:33: note[HC107]: WARP_SIZE (32) on the host: hipconv_device_warp_size(), the current "
            "device's wavefront size (hipDeviceGetAttribute(&size, hipDeviceAttributeWarpSize, device), read once "
            "per device)",
        ),
    ),
    Code(
        WARP_SIZE_SIDE_UNDECIDED,
        Severity.WARNING,
        "a warp-size constant where hipconv cannot tell whether host or device code reads it; left as it is",
        hint="give device code hipconv_warp_size (a per-architecture constant) and host code "
        "hipconv_device_warp_size() (the device's value), never one constant for both",
        example=Example(
            "#define WARP_SIZE 32\n__host__ __device__ int warps(int threads) { return threads / WARP_SIZE; }\n",
            "example.cu:2:63: warning[HC108]: WARP_SIZE (32) in a __host__ __device__ function, which runs on both "
            "sides: hipconv cannot tell whether host or device code reads it, and AMD GPUs run 64-lane wavefronts "
            "(gfx9: CDNA, GCN) or 32-lane ones (gfx10 and later: RDNA); left as it is (device code: "
            "hipconv_warp_size; host code: hipconv_device_warp_size(), from hipconv_compat.h)",
        ),
    ),
    Code(
        CUDNN_NO_REWRITE,
        Severity.ERROR,
        "cuDNN API without a faithful MIOpen rewrite; left unchanged",
        unported=True,
        example=Example(
            "cudnnGetCudartVersion();",
            "example.cu:1:1: error[HC201 cudnn.cudnnGetCudartVersion]: cudnnGetCudartVersion has no HIP "
            "equivalent; left unchanged (version, property, error-query and logging-callback functions: MIOpen "
            "reports its version with miopenGetVersion(major, minor, patch); no faithful rewrite)",
        ),
    ),
    Code(
        CUDNN_VALUE_UNSUPPORTED,
        Severity.ERROR,
        "a cuDNN argument value MIOpen cannot express (e.g. the NHWC layout); call left unchanged",
        unported=True,
        example=Example(
            "cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, n, c, h, w);",
            "example.cu:1:1: error[HC202 cudnn.cudnnSetTensor4dDescriptor]: cudnnSetTensor4dDescriptor: format "
            "CUDNN_TENSOR_NHWC is not CUDNN_TENSOR_NCHW; miopenSet4dTensorDescriptor describes a packed NCHW "
            "tensor only (an NHWC tensor needs miopenSetNdTensorDescriptorWithLayout and a lengths array); "
            "left unchanged",
        ),
    ),
    Code(
        MIOPEN_STEP_ADDED,
        Severity.WARNING,
        "MIOpen needs a step cuDNN does not (a Find before the first convolution); hipconv wrote it",
        example=Example(
            "cudnnConvolutionForward(h, &a, xd, x, wd, w, conv, algo, ws, size, &b, yd, y);",
            "example.cu:1:1: warning[HC203 cudnn.cudnnConvolutionForward]: MIOpen must run "
            "miopenFindConvolutionForwardAlgorithm before miopenConvolutionForward; hipconv wrote it and "
            "passes the algorithm it finds instead of algo",
        ),
    ),
    # `hipconv scan` checks (hipconv/scan/checks.py): wavefront-size hazards, then other AMD incompatibilities.
    Code(
        LITERAL_WARP_SIZE,
        Severity.WARNING,
        "literal warp size 32 (or lane mask 31 / 0x1f, a shift by 5, a loop to 32 beside warp code): AMD wavefronts "
        "have 64 lanes",
        "use warpSize in run-time arithmetic (% warpSize, & (warpSize - 1), / warpSize for a shift by 5); where C++ "
        "needs a constant, one defined per target (from ROCm 7.0 warpSize is not a constant expression)",
        example=Example(
            "int lane = threadIdx.x % 32;",
            "example.cu:1:26: warning[HC301 wavefront.warp-size-literal]: `% 32` uses 32 as the warp size: a "
            "64-wide wavefront has lanes 0-63 (use `% warpSize`, or `__lane_id()` for the lane)",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        SYNC_MASK_32,
        Severity.WARNING,
        "32-bit full lane mask 0xffffffff passed to a *_sync warp intrinsic",
        "use a 64-bit mask (0xffffffffffffffffull, or __activemask()) so lanes 32-63 take part",
        example=Example(
            "unsigned long all_lanes = 0xffffffff;\nv += __shfl_xor_sync(all_lanes, v, 1);",
            "example.cu:2:22: warning[HC302 wavefront.full-mask-32]: all_lanes (0xffffffff) as the mask of "
            "__shfl_xor_sync covers lanes 0-31 only of a 64-wide wavefront",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        SHUFFLE_FROM_16,
        Severity.WARNING,
        "shuffle reduction starts at offset 16: assumes 32 lanes",
        "start at warpSize / 2 so a 64-wide wavefront reduces all its lanes",
        example=Example(
            "for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(mask, v, o);",
            "example.cu:1:14: warning[HC303 wavefront.shuffle-offset-16]: shuffle loop starts at offset 16 "
            "(half of a 32-lane warp); on a 64-wide wavefront lanes 32-63 are never combined (start at warpSize / 2)",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        VOTE_IN_32_BITS,
        Severity.WARNING,
        "warp vote result stored in, passed as, or compared with a 32-bit integer",
        "keep ballots in a 64-bit type (unsigned long long, uint64_t, auto), count them with __popcll / __ffsll, "
        "and compare them with 0xffffffffffffffffull",
        example=Example(
            "unsigned int votes = __ballot_sync(mask, pred);",
            "example.cu:1:22: warning[HC304 wavefront.ballot-32bit]: __ballot_sync's 64-bit result (one bit "
            "per lane of a 64-wide wavefront) is stored in the 32-bit votes (declare it unsigned long long)",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        ACTIVEMASK,
        Severity.WARNING,
        "__activemask(): 64-bit on AMD, and wavefront lanes are not independently scheduled",
        "store the result in a 64-bit type; do not rely on it to detect diverged lanes",
        example=Example(
            "unsigned long long active = __activemask();",
            "example.cu:1:29: warning[HC305 wavefront.activemask]: __activemask() returns a 64-bit mask on "
            "AMD, and lanes of a wavefront run in lockstep: code that uses it to find diverged lanes behaves "
            "differently",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        PER_LANE_ARRAY_32,
        Severity.WARNING,
        "shared array of 32 slots, one per lane or per warp, indexed by a warp id or beside warp intrinsics",
        "size per-lane and per-warp arrays for 64 slots (a constant: from ROCm 7.0 warpSize is not a constant "
        "expression), and use only the slots of blockDim.x / warpSize wavefronts",
        example=Example(
            "__shared__ float partial[32];\nv = __shfl_down_sync(mask, v, 1);",
            "example.cu:1:26: warning[HC306 wavefront.per-warp-array-32]: shared array sized 32, one slot per "
            "lane of a 32-wide warp; a 64-wide wavefront indexes lanes 0-63 (size it for 64 lanes)",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        WARP_SIZE_CONSTANT,
        Severity.ERROR,
        "warpSize where C++ needs a constant expression: from ROCm 7.0 warpSize is a run-time value",
        "read warpSize at run time (size arrays for 64 lanes), or define a constant per target: 64 for gfx9 and older "
        "(GCN, CDNA), 32 for gfx10-gfx12 (RDNA, wave32), e.g. by #if defined(__GFX9__); not by "
        "__AMDGCN_WAVEFRONT_SIZE, which ROCm 7's compiler deprecates",
        example=Example(
            "__shared__ float lanes[warpSize];",
            "example.cu:1:24: error[HC307 wavefront.warp-size-not-constant]: warpSize as an array bound, which must "
            "be a constant (from ROCm 7.0 warpSize is no longer a constant expression: define the constant per "
            "target, 64 for gfx9 and older (GCN, CDNA) and 32 for gfx10-gfx12 (RDNA, wave32 by default), or read "
            "warpSize at run time)",
            argv=("scan", "--rocm-version", "7.0", "example.cu"),
        ),
    ),
    Code(
        INLINE_PTX,
        Severity.ERROR,
        "inline PTX assembly: AMD GPUs cannot run it",
        "use the CUDA/HIP intrinsic for the instruction, or keep the asm for the NVIDIA build only "
        "(#ifdef __HIP_PLATFORM_NVIDIA__)",
        example=Example(
            'asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));',
            "example.cu:1:1: error[HC311 amd.inline-ptx]: inline PTX assembly: hipcc for AMD GPUs cannot assemble it",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        CUDA_ARCH_VALUE,
        Severity.WARNING,
        "__CUDA_ARCH__ used for its value: compute capabilities do not exist on AMD",
        "HIP never defines __CUDA_ARCH__; test __HIP_DEVICE_COMPILE__ for the device pass, arch macros "
        "(__gfx90a__, __GFX9__) or __has_builtin for features",
        example=Example(
            "#define __CUDA_ARCH__ 700\n",
            "example.cu:1:9: warning[HC312 nvcc.__CUDA_ARCH__]: __CUDA_ARCH__ is used here for its value, not "
            "only tested with #ifdef or defined(); __HIP_DEVICE_COMPILE__ stands only for being defined, so "
            "__CUDA_ARCH__ is left unchanged (both are defined only on the device pass; __CUDA_ARCH__'s value, "
            "a compute capability, has no AMD counterpart)",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        TEXTURE_REFERENCE,
        Severity.WARNING,
        "legacy texture reference (texture<...>): deprecated in HIP, removed in CUDA 12",
        "use texture objects (cudaTextureObject_t with cudaCreateTextureObject / tex1Dfetch<T>)",
        example=Example(
            "texture<float, 1, cudaReadModeElementType> tex;",
            "example.cu:1:1: warning[HC313 amd.texture-reference]: legacy texture reference: removed in CUDA "
            "12 and deprecated in HIP; texture objects port",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        DEVICE_PROP_MISSING,
        Severity.ERROR,
        "cudaDeviceProp field that hipDeviceProp_t of the targeted ROCm does not have",
        "query it with hipDeviceGetAttribute where an attribute exists, or guard the access; see --rocm-version",
        example=Example(
            "cudaDeviceProp prop;\nint n = prop.maxBlocksPerMultiProcessor;",
            "example.cu:2:14: error[HC314 amd.device-prop-field]: cudaDeviceProp::maxBlocksPerMultiProcessor "
            "has no hipDeviceProp_t counterpart in ROCm 5.2 (it appears in ROCm 6.0)",
            argv=("scan", "--rocm-version", "5.2", "example.cu"),
        ),
    ),
    Code(
        LAUNCH_BOUNDS_OVER_1024,
        Severity.ERROR,
        "__launch_bounds__ above 1024 threads: AMD's maximum block size is 1024",
        "keep the maximum threads per block at or below 1024",
        example=Example(
            "__global__ void __launch_bounds__(2048) k(float* x) {}",
            "example.cu:1:35: error[HC315 amd.launch-bounds-1024]: __launch_bounds__ asks for 2048 threads per "
            "block; AMD allows 1024",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        HOST_WARP_SIZE_CONSTANT,
        Severity.WARNING,
        "a kernel launch sized on the host from a constant warp size (32): the device's wavefront size is 64 or 32",
        hint="size it from the device's value, hipDeviceGetAttribute(&size, hipDeviceAttributeWarpSize, device), and "
        "give device code a per-architecture constant (__AMDGCN_WAVEFRONT_SIZE__ on the device pass), never one "
        "constant for both",
        example=Example(
            "#define WARP_SIZE 32\n"
            "__global__ void k(float* p) { p[threadIdx.x / warpSize] = 1.0f; }\n"
            "void run(float* p) { k<<<1, 4 * WARP_SIZE>>>(p); }\n",
            "example.cu:3:33: warning[HC317 wavefront.warp-size-host-launch]: WARP_SIZE (32) sizes this launch's "
            "block on the host, but AMD GPUs run 64-lane wavefronts (gfx9: CDNA, GCN) or 32-lane ones (gfx10 and "
            "later: RDNA), and only the device knows which: read its size on the host (hipDeviceGetAttribute(&size, "
            "hipDeviceAttributeWarpSize, device)) and derive the launch from it",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        CACHE_CONFIG_IGNORED,
        Severity.WARNING,
        "cache or shared-memory configuration that HIP ignores (or cannot honour) on AMD",
        "AMD GPUs have a fixed L1/LDS split and at most 64 KiB of LDS per block: drop the call or keep it for "
        "NVIDIA only",
        example=Example(
            "cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferShared);",
            "example.cu:1:1: warning[HC316 amd.ignored-func-config]: cudaFuncSetCacheConfig is accepted and "
            "ignored by HIP on AMD GPUs",
            argv=("scan", "example.cu"),
        ),
    ),
    Code(
        SHUFFLE_WIDTH_BELOW_64,
        Severity.WARNING,
        "shuffle with an explicit width below 64 in a function that numbers lanes % warpSize: the two agree "
        "only on 32-lane warps",
        "number the lanes modulo the shuffle's width (`threadIdx.x % 32` beside width 32), or shuffle over the "
        "whole wavefront (width warpSize) and loop to warpSize",
        example=Example(
            "__device__ int scan(int v) {\n  int lane = threadIdx.x % warpSize;\n"
            "  for (int i = 1; i < 32; i *= 2) {\n    int n = __shfl_up_sync(0xffffffff, v, i, 32);\n"
            "    if (lane >= i) v += n;\n  }\n  return v;\n}\n",
            "example.cu:4:46: warning[HC322 wavefront.warpsize-lane-beside-width]: __shfl_up_sync shuffles within "
            "segments of 32 lanes, but the function numbers lanes `% warpSize` (0-63 on a 64-wide wavefront): "
            "lane 40 is lane 8 of its segment, so a lane test reads the wrong position (number lanes `% 32` as "
            "well, or shuffle over warpSize)",
            argv=("scan", "example.cu"),
        ),
    ),
    # build files (hipconv/buildfiles/) and `hipconv build`
    Code(
        BUILD_CONSTRUCT_UNMAPPED,
        Severity.WARNING,
        "build file: CUDA construct with no HIP mapping; left unchanged",
        example=Example(
            "LDFLAGS = -L/usr/local/cuda/lib64 -lcudart",
            "Makefile:1:11: warning[HC401]: -L/usr/local/cuda/lib64: a CUDA toolkit path; point it at ROCm "
            "(such as /opt/rocm) by hand",
            file="Makefile",
        ),
    ),
    Code(
        UNKNOWN_NVCC_FLAG,
        Severity.WARNING,
        "unknown nvcc flag: left unchanged in a build file, not passed to hipcc by build",
        example=Example(
            "NVCCFLAGS = -O3 --frobnicate",
            "Makefile:1:17: warning[HC402]: unknown nvcc flag --frobnicate; left unchanged",
            file="Makefile",
        ),
    ),
    Code(
        NVCC_FLAG_DROPPED,
        Severity.NOTE,
        "build file: an nvcc flag with no hipcc counterpart, a command left doing nothing, or a link item "
        "mapping made a repeat: dropped; or an nvcc flag clang would misread (-use_fast_math): respelled",
        example=Example(
            "NVCCFLAGS = -O3 -Xptxas -v",
            "Makefile:1:17: note[HC403]: -Xptxas -v dropped: PTX assembler options have no AMD counterpart",
            file="Makefile",
        ),
    ),
    Code(
        ARCHS_REPLACED,
        Severity.NOTE,
        "NVIDIA GPU architectures replaced by the --offload-arch targets",
        example=Example(
            "NVCCFLAGS = -O3 -arch=sm_80",
            "Makefile:1:17: note[HC404]: -arch=sm_80: NVIDIA architecture replaced by --offload-arch=gfx90a",
            file="Makefile",
        ),
    ),
    Code(
        BUILD_COMMANDS_ADDED,
        Severity.NOTE,
        "build file: commands added or the compiler re-pointed (.cu sources marked LANGUAGE HIP, -fgpu-rdc for "
        "separable compilation, nvcc's path -> $(ROCM_PATH)/bin/hipcc, find_library() -> ROCm's library)",
        example=Example(
            "add_executable(app main.cu)",
            "CMakeLists.txt:1:1: note[HC405]: main.cu: marked LANGUAGE HIP (CMake compiles .cu files as CUDA "
            "otherwise)",
            file="CMakeLists.txt",
        ),
    ),
    Code(
        MSVC_HOST_OPTION,
        Severity.NOTE,
        "build file: an MSVC option passed to the host compiler (-Xcompiler /std:c++20): hipcc's host compiler is "
        "clang, so it becomes clang's spelling, or is dropped when clang's GNU-style driver has none",
        hint="hipcc takes GNU-style options on every platform: write host options that way in the HIP branch",
        example=Example(
            "NVCCFLAGS = -O2 -Xcompiler /std:c++17,/EHsc",
            "Makefile:1:17: note[HC406]: MSVC option /std:c++17 becomes -std=c++17, its clang spelling (hipcc's "
            "host compiler)",
            file="Makefile",
        ),
    ),
    Code(
        UNTRUSTED_FLAG_DROPPED,
        Severity.WARNING,
        "hipconv build: a flag read from the tree (its Makefiles, CMake files or compilation database) that would "
        "load code while building (a compiler or linker plugin, -B, --gcc-toolchain, --sysroot, -specs, an @file): "
        "dropped before hipcc sees it; flags read from an untrusted tree never load code",
        hint="if you trust the flag, pass it yourself with --hipcc-arg (flags given on the command line are kept)",
        example=Example(
            "CXXFLAGS = -O2 -fplugin=./tools/check.so\nk.o: k.cu\n\thipcc $(CXXFLAGS) -c k.cu",
            "warning[HC407]: -fplugin=./tools/check.so (from Makefile:1) dropped: it would load a compiler plugin, "
            "and flags read from the tree never load code; if you trust it, pass it with --hipcc-arg (1 TU)",
            argv=("build", "src", "-o", "hip", "--check-only"),
            file="src/Makefile",
            note="needs a source file beside the Makefile; tests/test_untrusted_flags.py runs it",
        ),
    ),
    Code(
        CMAKE_NOT_EVALUATED,
        Severity.WARNING,
        "hipconv build's static CMake reader cannot evaluate a condition (it depends on what CMake would run or "
        "find) and reads its branch as if it held, or reads a folder no add_subdirectory() reaches on its own",
        hint="give the value with -D NAME=VALUE, as to cmake, or let CMake configure the tree (--cmake configure)",
        example=Example(
            "project(p)\nfind_package(Foo)\nif(Foo_FOUND)\n  add_compile_definitions(HAVE_FOO)\nendif()",
            "warning[HC409]: CMakeLists.txt:3: if(Foo_FOUND): find_package(Foo) is not run; read as if it held",
            argv=("build", "src", "-o", "hip", "--check-only"),
            file="src/CMakeLists.txt",
        ),
    ),
    Code(
        EXPANSION_CUT,
        Severity.WARNING,
        "hipconv build's static CMake or Makefile reader stopped an expansion past its bounds (its size, its "
        "depth, the commands run); what it would have given is left out",
        hint="a variable that doubles on every line grows exponentially: build with -p compile_commands.json, or "
        "let CMake configure the tree (--cmake configure)",
        example=Example(
            "project(p)\nset(A x)\n" + 'set(A "${A}${A}")\n' * 21 + "add_compile_definitions(A=${A})",
            "warning[HC411]: CMakeLists.txt:23: an expansion grows past 1,048,576 characters; left empty",
            argv=("build", "src", "-o", "hip", "--check-only"),
            file="src/CMakeLists.txt",
        ),
    ),
    Code(
        BACKEND_SPLIT,
        Severity.NOTE,
        "single source: the build file keeps its CUDA build and gains a HIP build beside it, chosen by GPU_BACKEND "
        "(cmake -DGPU_BACKEND=HIP, make GPU_BACKEND=HIP)",
        example=Example(
            "NVCC = nvcc\nNVCCFLAGS = -O2 -arch=sm_80\n",
            "Makefile:1:1: note[HC413]: the CUDA build is kept; 1 stretch of it got a HIP side, chosen by "
            "GPU_BACKEND (make GPU_BACKEND=HIP)",
            argv=("translate", "Makefile", "--single-source"),
            file="Makefile",
        ),
    ),
    Code(
        BACKEND_NOT_SPLIT,
        Severity.WARNING,
        "single source: a build-file line the HIP build needs changed cannot be put in a GPU_BACKEND branch (a "
        "line of a block's structure beyond an if's condition, such as endif(CMAKE_CUDA_COMPILER) or make's "
        "`else ifeq`, or the file sets GPU_BACKEND itself); left as the CUDA build has it",
        hint="write the HIP side of that line by hand, for example by testing GPU_BACKEND in its condition",
        example=Example(
            "set(GPU_BACKEND cuda)\nproject(p LANGUAGES CXX CUDA)\n",
            "CMakeLists.txt:1:1: warning[HC414]: set(GPU_BACKEND cuda): the file sets GPU_BACKEND itself; not split",
            argv=("translate", "CMakeLists.txt", "--single-source"),
            file="CMakeLists.txt",
        ),
    ),
    Code(
        CMAKE_CONFIGURE_FALLBACK,
        Severity.WARNING,
        "--cmake configure: the translated tree could not be configured with CMake's HIP language (no cmake, "
        "no ROCm CMake config, or cmake failed); the flags are read statically instead",
        hint="install cmake (3.21 or newer) and ROCm's hip-lang CMake config, or name them with --cmake-arg",
        example=Example(
            "add_executable(app main.cu)",
            "warning[HC412]: --cmake configure: the tree has no top CMakeLists.txt with project(); the flags are "
            "read statically instead",
            argv=("build", "src", "-o", "hip", "--check-only", "--cmake", "configure"),
            file="src/CMakeLists.txt",
        ),
    ),
    Code(
        HIPCC_FAILED,
        Severity.ERROR,
        "translation unit does not compile with hipcc",
        example=Example(
            "int main() { return cudaCtxResetPersistingL2Cache(); }",
            "error[HC410]: 1 TU fails because of cudaCtxResetPersistingL2Cache (CUDA cudart API with no HIP "
            "equivalent: unported)",
            argv=("build", "src", "-o", "hip", "--check-only"),
            file="src/example.cu",
        ),
    ),
    Code(
        NOT_RUNNABLE_ON_CPU,
        Severity.WARNING,
        "program not runnable on the CPU",
        hint="it needs what HIP-CPU cannot provide (a ROCm library, MPI, graphics interop, textures, inline "
        "assembly); build and run it on a GPU (`hipconv build`, or `--backend nvidia`)",
        example=Example(
            "#include <cublas_v2.h>\nint main() { cublasHandle_t h; return cublasCreate(&h); }",
            "warning[HC420]: example: not runnable on the CPU: hipBLAS (a ROCm library; HIP-CPU provides only "
            "the HIP runtime): #include <hipblas.h>",
            argv=("build", "src", "-o", "hip", "--backend", "hip-cpu", "--hip-cpu", "HIP-CPU"),
            file="src/example.cu",
            note="needs a HIP-CPU checkout, whose path the example cannot know; tests/test_cpu_build.py runs it",
        ),
    ),
    Code(
        PROGRAM_FAILED,
        Severity.ERROR,
        "program failed when run",
        hint="it exited non-zero or did not finish (--run-timeout); its output is saved beside it. On the CPU "
        "(64-lane wavefronts) run `hipconv scan` on the CUDA source for wave64 hazards",
        example=Example(
            '#include <cstdio>\nint main() { puts("FAIL"); return 1; }',
            "error[HC421]: example: exited with 1 (output in hip/.hipconv-cpu/bin/example.out)",
            argv=("build", "src", "-o", "hip", "--backend", "hip-cpu", "--hip-cpu", "HIP-CPU", "--run"),
            file="src/example.cu",
            note="needs a HIP-CPU checkout, whose path the example cannot know; tests/test_cpu_build.py runs it",
        ),
    ),
    Code(
        CPU_BUILD_FAILED,
        Severity.ERROR,
        "translation unit or program does not build on the CPU (the host C++ compiler against HIP-CPU)",
        hint="an unported API or a missing header fails with hipcc too; what HIP-CPU lacks of ROCm's HIP "
        "(a runtime call such as hipStreamGetPriority, a device function) fails only here: build that program "
        "on a GPU",
        example=Example(
            "int main() { int priority; return cudaStreamGetPriority(0, &priority); }",
            "error[HC422]: 1 TU fails because of hipStreamGetPriority (translated from cuStreamGetPriority / "
            "cudaStreamGetPriority; HIP-CPU, which implements only part of HIP, does not declare it)",
            argv=("build", "src", "-o", "hip", "--backend", "hip-cpu", "--hip-cpu", "HIP-CPU"),
            file="src/example.cu",
            note="needs a HIP-CPU checkout, whose path the example cannot know; tests/test_cpu_build.py runs it",
        ),
    ),
    Code(
        NVIDIA_BUILD_FAILED,
        Severity.ERROR,
        "translation unit or program does not build with nvcc against HIP's NVIDIA-platform headers",
        hint="HIP's NVIDIA-platform headers must match the CUDA release (HIP 5.2's do not compile with CUDA 13)",
        example=Example(
            "int main() { return cudaCtxResetPersistingL2Cache(); }",
            "error[HC423]: 1 TU fails because of cudaCtxResetPersistingL2Cache (CUDA cudart API with no HIP "
            "equivalent: unported)",
            argv=("build", "src", "-o", "hip", "--backend", "nvidia"),
            file="src/example.cu",
            note="needs nvcc and HIP's NVIDIA-platform headers",
        ),
    ),
    Code(
        RUN_ARGS_NOT_READ,
        Severity.WARNING,
        "build --run: the Makefile's run target runs the program with a command hipconv cannot read statically "
        "(a pipe, a redirection, a list, a make function or an unknown variable); it runs with no arguments",
        hint="give the arguments yourself: --run-args PROGRAM='ARGS'",
        example=Example(
            "run:\n\t./example $(shell cat args.txt)",
            "warning[HC424]: example: Makefile:2: `./example $(shell cat args.txt)` not read (a make function, or "
            "a variable the Makefile does not assign plainly); give --run-args example=ARGS",
            argv=("build", "src", "-o", "hip", "--backend", "hip-cpu", "--hip-cpu", "HIP-CPU", "--run"),
            file="src/Makefile",
            note="needs a HIP-CPU checkout and a program beside the Makefile; tests/test_run_programs.py runs it",
        ),
    ),
    Code(
        PROCESSES_LEFT,
        Severity.NOTE,
        "build --run: the program left processes running when it ended (a child that left its process group with "
        "setsid(), a daemon); they were killed",
        hint="a program that starts helpers should wait for them before it exits",
        example=Example(
            "#include <unistd.h>\nint main() { if (fork() == 0) { setsid(); pause(); } sleep(1); return 0; }",
            "note[HC425]: example: left 1 process running (a child in a session of its own); killed",
            argv=("build", "src", "-o", "hip", "--backend", "hip-cpu", "--hip-cpu", "HIP-CPU", "--run"),
            file="src/example.cu",
            note="needs a HIP-CPU checkout; tests/test_run_programs.py runs it",
        ),
    ),
)


@dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int
    col: int
    code: str
    message: str
    rule_id: str = ""
    symbol: str = ""  # the CUDA spelling concerned, when there is one

    @property
    def severity(self) -> Severity:
        return CODES[self.code].severity

    def format(self) -> str:
        tag = f"{self.code} {self.rule_id}" if self.rule_id else self.code
        return f"{self.path}:{self.line}:{self.col}: {self.severity.value}[{tag}]: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {
            "line": self.line,
            "col": self.col,
            "severity": self.severity.value,
            "code": self.code,
            "rule": self.rule_id,
            "message": self.message,
            "symbol": self.symbol,
        }

    @property
    def unported(self) -> bool:
        return CODES[self.code].unported
