"""The CUDA libraries and their HIP counterparts: files, prefixes and mechanical spellings."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class LibSpec:
    """One CUDA library and its HIP counterpart."""

    file: str  # rules/<file>
    library: str  # default `library` of its rules
    cuda_libs: tuple[str, ...]  # cuda/<lib>.jsonl files
    hip_libs: tuple[str, ...]  # hip/<lib>.jsonl files of the counterpart
    prefixes: tuple[tuple[str, str], ...] = ()  # C libraries: CUDA prefix -> HIP prefix
    qualified: bool = False  # C++ library (cub, thrust): `ns::name` records
    title: str = ""


LIBRARIES = (
    LibSpec(
        "cublas.yaml",
        "cublas",
        ("cublas",),
        ("hipblas",),
        (("cublas", "hipblas"), ("CUBLAS_", "HIPBLAS_")),
        title="cuBLAS (cublas_v2.h, cublas_api.h, legacy cublas.h) -> hipBLAS",
    ),
    LibSpec(
        "cublaslt.yaml",
        "cublaslt",
        ("cublaslt",),
        ("hipblaslt",),
        (("cublasLt", "hipblasLt"), ("CUBLASLT_", "HIPBLASLT_"), ("cublas", "hipblas"), ("CUBLAS_", "HIPBLAS_")),
        title="cuBLASLt (cublasLt.h) -> hipBLASLt",
    ),
    LibSpec(
        "curand.yaml",
        "curand",
        ("curand", "curand_kernel"),
        ("hiprand", "hiprand_kernel"),
        (("curand", "hiprand"), ("CURAND_", "HIPRAND_")),
        title="cuRAND host (curand.h) and device (curand_kernel.h) API -> hipRAND",
    ),
    LibSpec(
        "cufft.yaml",
        "cufft",
        ("cufft",),
        ("hipfft",),
        (("cufft", "hipfft"), ("CUFFT_", "HIPFFT_"), ("cudaLibXt", "hipLibXt"), ("cudaXt", "hipXt")),
        title="cuFFT (cufft.h, cufftXt.h) -> hipFFT",
    ),
    LibSpec(
        "cusparse.yaml",
        "cusparse",
        ("cusparse",),
        ("hipsparse",),
        (("cusparse", "hipsparse"), ("CUSPARSE_", "HIPSPARSE_")),
        title="cuSPARSE (cusparse.h) -> hipSPARSE",
    ),
    LibSpec(
        "cusolver.yaml",
        "cusolver",
        ("cusolver",),
        ("hipsolver",),
        (
            ("cusolver", "hipsolver"),
            ("CUSOLVER_", "HIPSOLVER_"),
            ("CUSOLVERRF_", "HIPSOLVERRF_"),
            ("CUBLAS_", "HIPSOLVER_"),
        ),
        title="cuSOLVER (cusolverDn.h, cusolverSp.h, cusolverRf.h) -> hipSOLVER",
    ),
    LibSpec(
        "nccl.yaml",
        "nccl",
        ("nccl",),
        ("rccl",),
        (("", ""),),
        title="NCCL (nccl.h) -> RCCL (rccl/rccl.h), which keeps the nccl* names",
    ),
    LibSpec(
        "nvrtc.yaml",
        "nvrtc",
        ("nvrtc",),
        ("hiprtc",),
        (("nvrtc", "hiprtc"), ("NVRTC_", "HIPRTC_")),
        title="NVRTC (nvrtc.h) -> hiprtc (hip/hiprtc.h)",
    ),
    LibSpec(
        "cub.yaml",
        "cub",
        ("cub",),
        ("hipcub",),
        (("CUB_", "HIPCUB_"),),
        qualified=True,
        title="CUB (cub::, cub/*.cuh) -> hipCUB (hipcub::, hipcub/*.hpp)",
    ),
    LibSpec(
        "thrust.yaml",
        "thrust",
        ("thrust",),
        ("rocthrust",),
        qualified=True,
        title="Thrust -> rocThrust: thrust:: stays; the CUDA system (thrust::cuda, thrust::system::cuda) "
        "becomes the HIP one",
    ),
)
# symbols listed in hipconv/data/cuda.symbols (inventory file stems)
SYMBOL_LIBS = (
    "cublas",
    "cublaslt",
    "curand",
    "curand_kernel",
    "cufft",
    "cusparse",
    "cusolver",
    "nccl",
    "nvrtc",
    "cub",
    "thrust",
    "cuda_complex",
    "cudnn",
)
# thrust namespace segments of the CUDA system and their rocThrust spelling
THRUST_SEGMENTS = {"cuda": "hip", "cuda_cub": "hip_rocprim"}


def strip_v2(name: str) -> str:
    """cublasSgemm_v2 -> cublasSgemm, cublasSgemm_v2_64 -> cublasSgemm_64."""
    return re.sub(r"_v2(?=(_64)?$)", "", name)


def lib_candidates(name: str, spec: LibSpec) -> list[str]:
    out = []
    for base in dict.fromkeys([name, strip_v2(name)]):
        for cuda_p, hip_p in spec.prefixes:
            if base.startswith(cuda_p):
                out.append(hip_p + base[len(cuda_p) :])
    return list(dict.fromkeys(out))


def qualified_twin(name: str, spec: LibSpec) -> str:
    """The mechanical HIP spelling of a cub/thrust name."""
    segs = name.split("::")
    if spec.library == "cub":
        return "::".join(["hipcub" if segs[0] == "cub" else segs[0]] + segs[1:])
    return "::".join(segs[:1] + [THRUST_SEGMENTS.get(s, s) for s in segs[1:]])
