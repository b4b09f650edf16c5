"""nvcc flags -> hipcc flags, and CUDA libraries -> HIP libraries: two data tables and the mapping.

FLAGS drives `map_flags` (used for compile_commands.json entries and Makefiles) and the
docs/nvcc-flags.md table (flag_table.py); LIBRARIES drives `-l` flags and CMake targets alike.
Pure data and functions: no I/O.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from hipconv.buildfiles.defines import hip_definitions
from hipconv.buildfiles.msvc_flags import msvc_options
from hipconv.diagnostics import (
    ARCHS_REPLACED,
    BUILD_CONSTRUCT_UNMAPPED,
    MSVC_HOST_OPTION,
    NVCC_FLAG_DROPPED,
    UNKNOWN_NVCC_FLAG,
)
from hipconv.settings import DEFAULT_OFFLOAD_ARCHS

# HIP declares the *_sync warp builtins only with this defined before its runtime header (ROCm 6.2+; the
# rules' requires_define). A source file can define it only before its first HIP include, so translated
# build files and `hipconv build` define it for the whole build; older releases ignore it.
WARP_SYNC_DEFINE = "HIP_ENABLE_WARP_SYNC_BUILTINS"


class FlagAction(enum.Enum):
    MAP = "map"  # replaced by the `hip` words ({value} is the flag's value)
    ARCH = "arch"  # an NVIDIA architecture: replaced (once) by --offload-arch for each target
    SPLIT = "split"  # a comma-separated list passed on item by item through `hip`
    LIBRARY = "library"  # -l NAME: mapped through LIBRARIES
    DROP = "drop"  # no hipcc counterpart is needed: removed, with a note
    UNSUPPORTED = "unsupported"  # no hipcc counterpart: reported, not passed on


class FlagValue(enum.Enum):
    NONE = "none"  # a switch
    ANY = "any"  # `-f v`, `-f=v` (and `-fv` for the short one-letter flags: -I, -D, -O, ...)


@dataclass(frozen=True)
class NvccFlag:
    names: tuple[str, ...]  # every nvcc spelling; the first is the one shown
    action: FlagAction
    value: FlagValue = FlagValue.NONE
    hip: tuple[str, ...] = ()  # hipcc words; "{value}" / "{item}" are filled in
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # per-value hipcc words (MAP)
    note: str = ""


def _f(
    names: str,
    action: FlagAction,
    *hip: str,
    value: bool = False,
    values: Mapping[str, tuple[str, ...]] | None = None,
    note: str = "",
) -> NvccFlag:
    return NvccFlag(
        tuple(names.split()),
        action,
        FlagValue.ANY if value or values else FlagValue.NONE,
        hip,
        dict(values or {}),
        note,
    )


M, A, S, L, D, U = (
    FlagAction.MAP,
    FlagAction.ARCH,
    FlagAction.SPLIT,
    FlagAction.LIBRARY,
    FlagAction.DROP,
    FlagAction.UNSUPPORTED,
)

FLAGS: tuple[NvccFlag, ...] = (
    _f(
        "-arch --gpu-architecture",
        A,
        value=True,
        note="NVIDIA architectures have no AMD counterpart: replaced by the --offload-arch targets",
    ),
    _f("-gencode --generate-code", A, value=True, note="as -arch"),
    _f("-code --gpu-code", A, value=True, note="as -arch"),
    _f(
        "--expt-relaxed-constexpr -expt-relaxed-constexpr",
        D,
        note="clang lets host and device code call constexpr functions without it",
    ),
    _f(
        "--expt-extended-lambda --extended-lambda -expt-extended-lambda -extended-lambda",
        D,
        note="clang compiles `__device__` lambdas without it",
    ),
    _f("-rdc --relocatable-device-code", M, values={"true": ("-fgpu-rdc",), "false": ("-fno-gpu-rdc",)}),
    _f("-dc --device-c", M, "-fgpu-rdc", "-c"),
    _f("-Xcompiler --compiler-options", S, "{item}", value=True),
    _f("-Xlinker --linker-options", S, "-Wl,{item}", value=True),
    _f("-lineinfo --generate-line-info", M, "-gline-tables-only"),
    _f("--use_fast_math -use_fast_math", M, "-ffast-math"),
    _f(
        "--ftz -ftz",
        M,
        values={"true": ("-fgpu-flush-denormals-to-zero",), "false": ("-fno-gpu-flush-denormals-to-zero",)},
        note="single-precision denormals flushed to zero in device code",
    ),
    _f(
        "--prec-div -prec-div --prec-sqrt -prec-sqrt",
        M,
        values={
            "true": ("-fhip-fp32-correctly-rounded-divide-sqrt",),
            "false": ("-fno-hip-fp32-correctly-rounded-divide-sqrt",),
        },
        note="clang has one switch for single-precision division and square root together (on by default)",
    ),
    _f("--fmad -fmad", M, values={"true": ("-ffp-contract=fast",), "false": ("-ffp-contract=off",)}),
    _f(
        "-maxrregcount --maxrregcount",
        D,
        value=True,
        note="no register cap flag for AMD GPUs: bound register use with __launch_bounds__ in the source",
    ),
    _f("-Xptxas --ptxas-options", D, value=True, note="PTX assembler options have no AMD counterpart"),
    _f("-ccbin --compiler-bindir", D, value=True, note="hipcc compiles host code with its own clang"),
    _f("-cudart --cudart", D, value=True, note="the HIP runtime (libamdhip64) is always linked as a shared library"),
    _f("-Wno-deprecated-gpu-targets", D, note="NVIDIA-specific warning"),
    _f(
        "-forward-unknown-to-host-compiler --forward-unknown-to-host-compiler",
        D,
        note="clang is the host compiler: host flags are understood directly",
    ),
    _f("-t --threads", D, value=True, note="nvcc's parallel per-architecture compilation; use --jobs"),
    _f("-diag-suppress --diag-suppress", D, value=True, note="nvcc diagnostic numbers have no clang counterpart"),
    _f(
        "-res-usage --resource-usage",
        D,
        note="clang reports kernel resources with -Rpass-analysis=kernel-resource-usage",
    ),
    _f("-G --device-debug", M, "-g", note="device debug information; add -O0 for a debuggable build"),
    _f(
        "--default-stream -default-stream",
        M,
        values={"per-thread": ("-fgpu-default-stream=per-thread",), "legacy": ("-fgpu-default-stream=legacy",)},
    ),
    _f("-x --x", M, values={"cu": ("-x", "hip"), "c++": ("-x", "c++"), "c": ("-x", "c")}),
    _f("-std --std", M, "-std={value}", value=True),
    _f("-O --optimize", M, "-O{value}", value=True),
    _f("-g --debug", M, "-g"),
    _f("-I --include-path", M, "-I{value}", value=True),
    _f("-isystem --system-include", M, "-isystem", "{value}", value=True),
    _f("-include --pre-include", M, "-include", "{value}", value=True),
    _f("-D --define-macro", M, "-D{value}", value=True),
    _f("-U --undefine-macro", M, "-U{value}", value=True),
    _f("-L --library-path", M, "-L{value}", value=True),
    _f("-l --library", L, value=True),
    _f("-c --compile", M, "-c"),
    _f("-o --output-file", M, "-o", "{value}", value=True),
    _f("-E --preprocess", M, "-E"),
    _f("-M --generate-dependencies", M, "-M"),
    _f("-MD --generate-dependencies-with-compile", M, "-MD"),
    _f("-MMD --generate-nonsystem-dependencies-with-compile", M, "-MMD"),
    _f("-MP --generate-dependency-targets", M, "-MP"),
    _f("-MF --dependency-output", M, "-MF", "{value}", value=True),
    _f("-MT --dependency-target-name", M, "-MT", "{value}", value=True),
    _f("-shared --shared", M, "-shared"),
    _f("-w --disable-warnings", M, "-w"),
    _f("-m64", M, "-m64"),
    _f("-keep --keep", M, "-save-temps"),
    _f("-ptx --ptx", U, note="emits PTX; AMD GPU assembly comes from --cuda-device-only -S"),
    _f("-cubin --cubin", U, note="emits a CUDA binary; an AMD code object comes from --genco"),
    _f("-fatbin --fatbin", U, note="emits a CUDA fat binary; an AMD code object comes from --genco"),
)

# nvcc's one-letter flags that take their value glued on (-I/path, -DNAME, -O3, -lcublas)
GLUED = ("-I", "-D", "-U", "-L", "-l", "-O")
# clang's one-letter options that take the rest of a word as their value: what it makes of an nvcc flag
# spelled with one dash (-use_fast_math is `-u se_fast_math`, -lineinfo `-l ineinfo`)
_CLANG_JOINED = ("-u", "-l", "-e", "-o")
# build-file variables named like nvcc's flags (NVCCFLAGS, CUDA_NVCC_FLAGS, CUFLAGS, CUDA_FLAGS, GENCODE_FLAGS):
# their values are nvcc flags wherever they are used
NVCC_FLAGS_VARIABLE = re.compile(r"(?i)nvcc|gencode|^cu\w*flags$|^cuda\w*flags$")


@dataclass(frozen=True)
class Library:
    cuda: str  # the -l name
    hip: str | None  # the -l name on ROCm; None: no counterpart
    cmake: tuple[str, ...] = ()  # CUDA:: targets of FindCUDAToolkit
    hip_cmake: str | None = None  # the ROCm CMake target
    package: str | None = None  # the find_package() that provides hip_cmake
    note: str = ""


LIBRARIES: tuple[Library, ...] = (
    Library("cudart", "amdhip64", ("CUDA::cudart", "CUDA::cudart_static"), "hip::host", "hip"),
    Library("cudart_static", "amdhip64", (), "hip::host", "hip"),
    Library(
        "cuda",
        "amdhip64",
        ("CUDA::cuda_driver",),
        "hip::host",
        "hip",
        note="HIP's driver-style API is part of the HIP runtime",
    ),
    Library("cublas", "hipblas", ("CUDA::cublas", "CUDA::cublas_static"), "roc::hipblas", "hipblas"),
    Library("cublasLt", "hipblaslt", ("CUDA::cublasLt", "CUDA::cublasLt_static"), "roc::hipblaslt", "hipblaslt"),
    Library("cufft", "hipfft", ("CUDA::cufft", "CUDA::cufft_static"), "hip::hipfft", "hipfft"),
    Library("curand", "hiprand", ("CUDA::curand", "CUDA::curand_static"), "hip::hiprand", "hiprand"),
    Library("cusparse", "hipsparse", ("CUDA::cusparse", "CUDA::cusparse_static"), "roc::hipsparse", "hipsparse"),
    Library("cusolver", "hipsolver", ("CUDA::cusolver", "CUDA::cusolver_static"), "roc::hipsolver", "hipsolver"),
    Library("cudnn", "MIOpen", (), "MIOpen", "miopen", note="MIOpen's API differs from cuDNN's"),
    Library("nccl", "rccl", (), "rccl::rccl", "rccl"),
    Library(
        "nvToolsExt",
        "roctx64",
        ("CUDA::nvToolsExt",),
        None,
        None,
        note="link roctx64 (roctracer) by hand: ROCm ships no CMake target for it",
    ),
    Library("nvrtc", None, ("CUDA::nvrtc",), None, None, note="hiprtc: part of libamdhip64 before ROCm 6"),
    Library("nvidia-ml", None, ("CUDA::nvml",), None, None, note="AMD's counterpart is rocm_smi (another API)"),
    Library("cupti", None, ("CUDA::cupti",), None, None, note="AMD's counterpart is roctracer (another API)"),
    Library("culibos", None, ("CUDA::culibos",), None, None),
)

LIBRARY_BY_LINK = {lib.cuda: lib for lib in LIBRARIES}
LIBRARY_BY_TARGET = {target: lib for lib in LIBRARIES for target in lib.cmake}


class FlagNote(NamedTuple):
    """What happened to one flag that was not passed on as written."""

    flag: str  # as written (with its value)
    code: str  # HC402 unknown / HC403 dropped or unsupported / HC404 architecture / HC401 library
    message: str


class FlagUnit(NamedTuple):
    """One flag with its value (or one other word) of a word list, and what it becomes."""

    first: int  # the index of its first word
    stop: int  # the index after its last word
    words: tuple[str, ...]  # the hipcc words
    notes: tuple[FlagNote, ...] = ()
    source: bool = False  # a positional (non-flag) word: an input file
    arch: bool = False  # an NVIDIA architecture flag


class Mapped(NamedTuple):
    words: tuple[str, ...]
    notes: tuple[FlagNote, ...]
    sources: tuple[str, ...]  # the positional (non-flag) words: input files
    units: tuple[FlagUnit, ...] = ()  # the words flag by flag, so that callers can rewrite each where it is


_BY_NAME = {name: flag for flag in FLAGS for name in flag.names}


def lookup(word: str) -> tuple[NvccFlag, str | None] | None:
    """The table entry of one nvcc word and its value when it is in the word (`-f=v`, `-Iv`); None: unknown."""
    if word in _BY_NAME:
        return _BY_NAME[word], None
    name, eq, value = word.partition("=")
    if eq and name in _BY_NAME and _BY_NAME[name].value is FlagValue.ANY:
        return _BY_NAME[name], value
    for prefix in GLUED:
        if word.startswith(prefix) and len(word) > len(prefix):
            return _BY_NAME[prefix], word[len(prefix) :]
    return None


def _arch_words(archs: Sequence[str]) -> tuple[str, ...]:
    return tuple(f"--offload-arch={arch}" for arch in archs)


def map_library(name: str) -> tuple[tuple[str, ...], FlagNote | None]:
    """-l NAME -> hipcc words and, when it cannot be mapped, a note (the flag is then kept as written)."""
    lib = LIBRARY_BY_LINK.get(name)
    if lib is None:
        return (f"-l{name}",), None  # not a CUDA library: linked as it is
    if lib.hip is None:
        return (f"-l{name}",), FlagNote(
            f"-l{name}",
            BUILD_CONSTRUCT_UNMAPPED,
            f"CUDA library {name} has no HIP counterpart" + (f" ({lib.note})" if lib.note else "") + "; left unchanged",
        )
    return (f"-l{lib.hip}",), None


def map_flags(
    words: Sequence[str],
    archs: Sequence[str] = DEFAULT_OFFLOAD_ARCHS,
    *,
    keep_unknown: bool = False,
    passthrough: re.Pattern[str] | None = None,
) -> Mapped:
    """Map an nvcc word list to hipcc words. Unknown flags are reported, and dropped unless keep_unknown.

    `passthrough`: words that are kept as they are without a note (a Makefile's `$(VAR)` references).
    The architecture flags become --offload-arch once: a later one maps to nothing, without a note.
    """
    units: list[FlagUnit] = []
    arch_done = False
    i = 0
    while i < len(words):
        unit = _map_unit(words, i, archs, keep_unknown=keep_unknown, passthrough=passthrough)
        if unit.arch and arch_done:
            unit = unit._replace(words=(), notes=())
        arch_done = arch_done or unit.arch
        units.append(unit)
        i = unit.stop
    return Mapped(
        tuple(word for unit in units for word in unit.words),
        tuple(note for unit in units for note in unit.notes),
        tuple(words[unit.first] for unit in units if unit.source),
        tuple(units),
    )


def _map_unit(
    words: Sequence[str],
    i: int,
    archs: Sequence[str],
    *,
    keep_unknown: bool,
    passthrough: re.Pattern[str] | None,
) -> FlagUnit:
    """The flag (with its value) or other word that starts at words[i]."""
    word = words[i]
    if passthrough is not None and passthrough.fullmatch(word):
        return FlagUnit(i, i + 1, (word,))
    if not word.startswith("-") or word == "-":
        return FlagUnit(i, i + 1, (word,), source=True)
    found = lookup(word)
    if found is None:
        unknown = f"unknown nvcc flag {word}; " + ("left unchanged" if keep_unknown else "not passed to hipcc")
        return FlagUnit(i, i + 1, (word,) if keep_unknown else (), (FlagNote(word, UNKNOWN_NVCC_FLAG, unknown),))
    flag, value = found
    written, stop = word, i + 1
    if flag.value is FlagValue.ANY and value is None:
        if stop >= len(words):
            return FlagUnit(
                i, stop, (), (FlagNote(word, UNKNOWN_NVCC_FLAG, f"nvcc flag {word} needs a value; not passed on"),)
            )
        value = words[stop]
        written = f"{word} {value}"
        stop += 1
    if flag.action is FlagAction.SPLIT:
        mapped, notes = _map_split(flag, value or "", written)
    else:
        mapped, note = _map_known(flag, value, written, words[i:stop], archs, keep_unknown=keep_unknown)
        notes = [note] if note else []
    return FlagUnit(i, stop, tuple(mapped), tuple(notes), arch=flag.action is FlagAction.ARCH)


def _map_known(
    flag: NvccFlag, value: str | None, written: str, raw: Sequence[str], archs: Sequence[str], *, keep_unknown: bool
) -> tuple[Sequence[str], FlagNote | None]:
    """One occurrence of a known flag (`raw`: its words as given) -> hipcc words and a note."""
    if flag.action is FlagAction.ARCH:
        words = _arch_words(archs)
        return words, FlagNote(
            written, ARCHS_REPLACED, f"{written}: NVIDIA architecture replaced by {', '.join(words)}"
        )
    if flag.action is FlagAction.DROP:
        return (), FlagNote(written, NVCC_FLAG_DROPPED, f"{written} dropped: {flag.note}")
    if flag.action is FlagAction.UNSUPPORTED:
        note = FlagNote(written, NVCC_FLAG_DROPPED, f"{written} has no hipcc counterpart ({flag.note}); not passed on")
        return (raw if keep_unknown else ()), note
    if flag.action is FlagAction.LIBRARY:
        assert value is not None
        return map_library(value)
    if flag.values:
        if value is not None and value in flag.values:
            return flag.values[value], _respelled(raw, flag.values[value])
        note = FlagNote(
            written,
            UNKNOWN_NVCC_FLAG,
            f"unknown value in nvcc flag {written}; " + ("left unchanged" if keep_unknown else "not passed to hipcc"),
        )
        return (raw if keep_unknown else ()), note
    if flag.names[0] == "-D" and value is not None:
        value = hip_definitions(value)  # -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA: the HIP backend
    hip = [part.format(value=value) for part in flag.hip]
    return hip, _respelled(raw, hip)


def _respelled(raw: Sequence[str], words: Sequence[str]) -> FlagNote | None:
    """A note when nvcc's spelling is one clang would misread (a long name after one dash: -use_fast_math,
    -lineinfo, -rdc=true) and the table gives it another: hipcc would otherwise get it as written."""
    word = raw[0]
    name = word.partition("=")[0]
    if name.startswith("--") or len(name) <= 2 or (words and words[0].startswith(name)):
        return None
    joined = next((f" (clang reads it as {p} {word[len(p) :]})" for p in _CLANG_JOINED if word.startswith(p)), "")
    return FlagNote(
        " ".join(raw),
        NVCC_FLAG_DROPPED,
        f"{' '.join(raw)} becomes {' '.join(words)}: hipcc's clang does not take nvcc's one-dash spelling{joined}",
    )


def _map_split(flag: NvccFlag, value: str, written: str) -> tuple[Sequence[str], list[FlagNote]]:
    """-Xcompiler a,b / -Xlinker a,b -> hipcc words item by item; an MSVC option for the host compiler
    (-Xcompiler /std:c++20) becomes its clang spelling or is dropped (msvc_flags.py), with an HC406 note."""
    words: list[str] = []
    notes: list[FlagNote] = []
    items = [item for item in value.split(",") if item]
    hosts = msvc_options(items) if flag.names[0] == "-Xcompiler" else [None] * len(items)
    for item, host in zip(items, hosts, strict=True):
        if host is None:
            words += [part.format(item=item) for part in flag.hip]
        else:
            words += [host.word] if host.word else []
            notes.append(FlagNote(written, MSVC_HOST_OPTION, host.message))
    return words, notes


def nvcc_only(word: str) -> bool:
    """Is this one word a flag that only nvcc takes (-arch=sm_80, -gencode, -Xcompiler, --use_fast_math)?

    A host compiler's flag (-O3, -I..., -std=..., -Wall) or a library (-lcudart) is not.
    """
    found = lookup(word)
    if found is None or found[0].action is FlagAction.LIBRARY:
        return False
    flag, value = found
    if flag.value is FlagValue.ANY and value is None:  # its value is the next word: -gencode X, but also -o X
        return flag.action in (FlagAction.ARCH, FlagAction.SPLIT, FlagAction.DROP, FlagAction.UNSUPPORTED)
    mapped = map_flags([word], keep_unknown=True)
    return mapped.words != (word,)
