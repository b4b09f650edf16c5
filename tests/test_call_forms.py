"""Rewrites that depend on how a CUDA name is used, not only on its spelling (issue #10):

- overloads told apart by the number of call arguments (`cudaEventCreate(&e)` / `(&e, flags)`), with
  the rule for a use that is not a call (`uncalled`) and `fill` for an omitted optional argument;
- kernel-pointer casts (`casts`): HIP's `const void*` parameters take no kernel without a cast;
- elaborated type specifiers (`tag`, `tagless`): `struct cudaGraphicsResource` after `struct`;
- compiler-predefined macros (`defined_only`): `__CUDA_ARCH__` only where its definition is tested.

The tests translate with the rules of tests/fixtures/rules_call_forms/ in place of the bundled ones
(`rules_dir` is patched), so that they hold whatever the derived rule data says; rules of a single
test are written into tmp_path.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES, hipcc_path

from helpers import Run, run_cli

RULES = FIXTURES / "rules_call_forms"
HEAD = "#include <cuda_runtime.h>\n"
HIP_HEAD = "#include <hip/hip_runtime.h>\n"


@pytest.fixture(autouse=True)
def call_form_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    use_rules(monkeypatch, RULES)


def use_rules(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Translate with the rule files of `folder` instead of the bundled rules/."""
    monkeypatch.setattr("hipconv.rules.rules_dir", lambda: folder)


def translate(tmp_path: Path, src: str, *args: str, name: str = "k.cu") -> Run:
    source = tmp_path / name
    source.write_text(src)
    return run_cli("translate", source, *args)


def output(tmp_path: Path, src: str) -> str:
    result = translate(tmp_path, src)
    assert result.code == 0, result.stderr
    return result.stdout.decode()


def diagnostics(result: Run) -> list[str]:
    """`line:col: severity[CODE rule]: message` of each diagnostic line on stderr (path left out)."""
    return [m.group(1) for m in re.finditer(r"^\S*/k\.\w+:(\d+:\d+: \w+\[[^\]]*\]: .*)$", result.stderr, re.M)]


def own_rules(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "mine.yaml").write_text(text)
    return folder


# ---------------------------------------------------------------- overloads by argument count


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param("cudaEventCreate(&e);", "hipEventCreate(&e);", id="event-one-argument"),
        pytest.param(
            "cudaEventCreate(&e, cudaEventDisableTiming);",
            "hipEventCreateWithFlags(&e, hipEventDisableTiming);",
            id="event-with-flags",
        ),
        pytest.param(
            "cudaError_t (*create)(cudaEvent_t *) = &cudaEventCreate;",
            "hipError_t (*create)(hipEvent_t *) = &hipEventCreate;",
            id="event-address-taken",
        ),
        pytest.param(
            "cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch);",
            "hipGraphInstantiateWithFlags(&exec, graph, hipGraphInstantiateFlagAutoFreeOnLaunch);",
            id="graph-cuda12-flags",
        ),
        pytest.param(
            "cudaGraphInstantiate(&exec, graph);",
            "hipGraphInstantiateWithFlags(&exec, graph, 0);",
            id="graph-cuda12-default-flags-filled",
        ),
        pytest.param(
            "cudaGraphInstantiate(&exec, graph /* no flags */);",
            "hipGraphInstantiateWithFlags(&exec, graph, 0 /* no flags */);",
            id="graph-fill-before-trailing-comment",
        ),
        pytest.param(
            "cudaGraphInstantiate(&exec, graph, NULL, NULL, 0);",
            "hipGraphInstantiate(&exec, graph, NULL, NULL, 0);",
            id="graph-cuda11-five-arguments",
        ),
        pytest.param(
            "#define CHECK_CREATE(e) check(cudaEventCreate(&(e), cudaEventDisableTiming))\n",
            "#define CHECK_CREATE(e) check(hipEventCreateWithFlags(&(e), hipEventDisableTiming))\n",
            id="in-a-macro-body",
        ),
        pytest.param(
            "if (cudaEventCreate(&e) != cudaSuccess || cudaEventCreate(&f, 0x2)) {}",
            "if (hipEventCreate(&e) != hipSuccess || hipEventCreateWithFlags(&f, 0x2)) {}",
            id="two-forms-in-one-line",
        ),
    ],
)
def test_overloads(tmp_path: Path, src: str, expected: str) -> None:
    assert output(tmp_path, HEAD + src) == HIP_HEAD + expected


def test_a_count_no_overload_takes_is_reported_and_the_call_kept_whole(tmp_path: Path) -> None:
    src = HEAD + "cudaGraphInstantiate(&exec, cudaGraph_t(g), NULL, log);\n"
    result = translate(tmp_path, src)
    assert result.code == 0
    assert result.stdout.decode() == HIP_HEAD + "cudaGraphInstantiate(&exec, cudaGraph_t(g), NULL, log);\n"
    assert diagnostics(result) == [
        "2:1: warning[HC007]: cudaGraphInstantiate is called with 4 arguments; its HIP rewrites take 2, 3 or 5; "
        "left unchanged"
    ]
    strict = translate(tmp_path, src, "--strict")
    assert strict.code == 1


def test_arguments_from_va_args_are_not_counted(tmp_path: Path) -> None:
    src = HEAD + "#define CREATE(...) cudaEventCreate(__VA_ARGS__)\n"
    result = translate(tmp_path, src)
    assert result.stdout.decode() == HIP_HEAD + "#define CREATE(...) cudaEventCreate(__VA_ARGS__)\n"
    assert diagnostics(result) == [
        "2:21: warning[HC007]: cudaEventCreate's arguments come from __VA_ARGS__, so their number, which picks "
        "the HIP function, is unknown; left unchanged"
    ]


OVERLOADS_WITHOUT_DEFAULT = """\
defaults: {library: cudart, kind: function}
rules:
  - {cuda: cudaEventCreate, id: a, hip: hipEventCreate, params: [event]}
  - {cuda: cudaEventCreate, id: b, hip: hipEventCreateWithFlags, params: [event, flags]}
"""


def test_a_use_that_is_not_a_call_needs_an_uncalled_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_rules(monkeypatch, own_rules(tmp_path, OVERLOADS_WITHOUT_DEFAULT))
    result = translate(tmp_path, "auto *create = &cudaEventCreate;\ncudaEventCreate(&e);\n", name="k.cpp")
    assert result.stdout.decode() == "auto *create = &cudaEventCreate;\nhipEventCreate(&e);\n"
    assert "k.cpp:1:17: warning[HC007]: cudaEventCreate is not called here, and its HIP name depends on the " in (
        result.stderr
    )
    assert "number of arguments (1 or 2); left unchanged" in result.stderr


OVERLOADS_BY_RELEASE = """\
defaults: {library: cudart, kind: function}
rules:
  - {cuda: cudaEventCreate, id: a, hip: hipEventCreate, params: [event]}
  - {cuda: cudaEventCreate, id: b, hip: hipEventCreateWithFlags, params: [event, flags], rocm: {since: "6.0"}}
"""


def test_each_overload_follows_its_own_rocm_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_rules(monkeypatch, own_rules(tmp_path, OVERLOADS_BY_RELEASE))
    src = "cudaEventCreate(&e);\ncudaEventCreate(&f, 2);\n"
    new = translate(tmp_path, src, "--rocm-version", "6.3", name="k.cpp")
    assert new.stdout.decode() == "hipEventCreate(&e);\nhipEventCreateWithFlags(&f, 2);\n"
    old = translate(tmp_path, src, "--rocm-version", "5.2", name="k.cpp")
    assert old.stdout.decode() == "hipEventCreate(&e);\ncudaEventCreate(&f, 2);\n"
    assert "k.cpp:2:1: error[HC003 b]: hipEventCreateWithFlags " in old.stderr  # the wording is HC003's


# ---------------------------------------------------------------- kernel-pointer casts


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);",
            "hipFuncSetAttribute(reinterpret_cast<const void*>(kern), hipFuncAttributeMaxDynamicSharedMemorySize, "
            "65536);",
            id="set-attribute",
        ),
        pytest.param(
            "cudaFuncSetAttribute(gemm<float, 4>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);",
            "hipFuncSetAttribute(reinterpret_cast<const void*>(gemm<float, 4>), "
            "hipFuncAttributeMaxDynamicSharedMemorySize, smem);",
            id="template-kernel",
        ),
        pytest.param(
            "cudaFuncGetAttributes(&attr, ops::reduce<T>);",
            "hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(ops::reduce<T>));",
            id="qualified-template-kernel",
        ),
        pytest.param(
            "cudaFuncSetCacheConfig(&kern, cudaFuncCachePreferShared);",
            "hipFuncSetCacheConfig(reinterpret_cast<const void*>(&kern), hipFuncCachePreferShared);",
            id="address-of-kernel",
        ),
        pytest.param(
            "cudaFuncSetSharedMemConfig(/* the kernel */ kern, cudaSharedMemBankSizeEightByte);",
            "hipFuncSetSharedMemConfig(/* the kernel */ reinterpret_cast<const void*>(kern), "
            "hipSharedMemBankSizeEightByte);",
            id="comment-before-the-kernel",
        ),
        pytest.param(
            "cudaLaunchKernel(kern, grid, block, args);",
            "hipLaunchKernel(reinterpret_cast<const void*>(kern), grid, block, args);",
            id="launch-optional-arguments-omitted",
        ),
        pytest.param(
            "cudaLaunchKernel(kern, grid, block, args, 0, stream);",
            "hipLaunchKernel(reinterpret_cast<const void*>(kern), grid, block, args, 0, stream);",
            id="launch-every-argument",
        ),
        pytest.param(
            "#define SET_SMEM(k, n) cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, n)\n",
            "#define SET_SMEM(k, n) hipFuncSetAttribute(reinterpret_cast<const void*>(k), "
            "hipFuncAttributeMaxDynamicSharedMemorySize, n)\n",
            id="in-a-macro-body",
        ),
        pytest.param(
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kern, 256, 0);",
            "hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, kern, 256, 0);",
            id="occupancy-has-a-template-overload-no-cast",
        ),
    ],
)
def test_kernel_pointer_casts(tmp_path: Path, src: str, expected: str) -> None:
    assert output(tmp_path, HEAD + src) == HIP_HEAD + expected


@pytest.mark.parametrize(
    "kernel",
    [
        pytest.param("reinterpret_cast<const void*>(kern)", id="reinterpret-cast"),
        pytest.param("reinterpret_cast< const void * >(&ops::kern<T>)", id="reinterpret-cast-spaced"),
        pytest.param("(const void *)kern", id="c-style"),
        pytest.param("(void*)kern", id="c-style-void-pointer"),
        pytest.param("static_cast<const void*>(ptr)", id="static-cast"),
    ],
)
def test_a_kernel_already_cast_is_not_cast_again(tmp_path: Path, kernel: str) -> None:
    src = HEAD + f"cudaFuncSetCacheConfig({kernel}, cudaFuncCachePreferShared);"
    assert output(tmp_path, src) == HIP_HEAD + f"hipFuncSetCacheConfig({kernel}, hipFuncCachePreferShared);"


def test_a_cast_needs_to_know_which_argument_is_the_kernel(tmp_path: Path) -> None:
    src = (
        "#define SMEM_ARGS kern, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096\ncudaFuncSetAttribute(SMEM_ARGS);\n"
    )
    result = translate(tmp_path, HEAD + src)
    assert result.stdout.decode() == HIP_HEAD + src.replace("cudaFuncAttribute", "hipFuncAttribute")
    assert diagnostics(result) == [
        "3:1: warning[HC007 cudart.cudaFuncSetAttribute]: cudaFuncSetAttribute is called with 1 argument (a macro "
        "standing for several?); its HIP rewrite moves or drops arguments and needs at least 3 of "
        "(func, attr, value); left unchanged"
    ]


MOVED_AND_CAST = """\
defaults: {library: mine, kind: function}
rules:
  - cuda: cudaLaunchWith
    hip: hipLaunchWith
    params: [stream, func, args]
    args: [func, args, stream]
    casts: {func: const void*}
"""


def test_a_cast_also_applies_where_the_arguments_move(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_rules(monkeypatch, own_rules(tmp_path, MOVED_AND_CAST))
    result = translate(tmp_path, "cudaLaunchWith(s, k<2>, args);\ncudaLaunchWith(s, (void*)k, a);\n", name="k.cpp")
    assert result.stdout.decode() == (
        "hipLaunchWith(reinterpret_cast<const void*>(k<2>), args, s);\nhipLaunchWith((void*)k, a, s);\n"
    )


# ---------------------------------------------------------------- elaborated type specifiers


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "struct cudaGraphicsResource *res;", "struct _hipGraphicsResource *res;", id="declaration-takes-the-tag"
        ),
        pytest.param("struct cudaGraphicsResource;", "struct _hipGraphicsResource;", id="forward-declaration"),
        pytest.param(
            "cudaGraphicsResource_t r = (struct cudaGraphicsResource *)p;",
            "hipGraphicsResource_t r = (struct _hipGraphicsResource *)p;",
            id="cast",
        ),
        pytest.param(
            "void unmap(struct cudaGraphicsResource **list, int n);",
            "void unmap(struct _hipGraphicsResource **list, int n);",
            id="parameter",
        ),
        pytest.param("cudaGraphicsResource *res;", "hipGraphicsResource *res;", id="without-keyword-the-typedef"),
        pytest.param("struct cudaFuncAttributes attr;", "struct hipFuncAttributes attr;", id="hip-name-is-its-own-tag"),
    ],
)
def test_elaborated_type_specifiers(tmp_path: Path, src: str, expected: str) -> None:
    assert output(tmp_path, HEAD + src) == HIP_HEAD + expected


TAGLESS = """\
defaults: {library: mine, kind: type}
rules:
  - {cuda: cudaArchFeatures, hip: hipDeviceArch_t, tagless: true}
"""


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param("struct cudaArchFeatures arch;", "hipDeviceArch_t arch;", id="declaration-drops-keyword"),
        pytest.param("f((struct cudaArchFeatures *)p);", "f((hipDeviceArch_t *)p);", id="cast-drops-keyword"),
        pytest.param(
            "struct /* features */ cudaArchFeatures a;", "/* features */ hipDeviceArch_t a;", id="comment-kept"
        ),
        pytest.param("cudaArchFeatures arch;", "hipDeviceArch_t arch;", id="no-keyword"),
    ],
)
def test_a_typedef_of_an_anonymous_struct_drops_the_keyword(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, src: str, expected: str
) -> None:
    use_rules(monkeypatch, own_rules(tmp_path, TAGLESS))
    assert output(tmp_path, src) == expected


def test_a_forward_declaration_of_an_anonymous_struct_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_rules(monkeypatch, own_rules(tmp_path, TAGLESS))
    result = translate(tmp_path, "struct cudaArchFeatures;\n")
    assert result.stdout == b"struct cudaArchFeatures;\n"
    assert diagnostics(result) == [
        "1:8: warning[HC007 mine.cudaArchFeatures]: `struct cudaArchFeatures` declares or defines the struct "
        "itself, and hipDeviceArch_t is a typedef of an anonymous struct, which has no tag to declare; left unchanged"
    ]


# ---------------------------------------------------------------- compiler-predefined macros


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param("#ifdef __CUDACC__\n#endif\n", "#ifdef __HIPCC__\n#endif\n", id="cudacc-ifdef"),
        pytest.param("#if __CUDACC__\n#endif\n", "#if __HIPCC__\n#endif\n", id="cudacc-value"),
        pytest.param(
            "#if defined(__CUDACC__) && !defined(__CUDA_ARCH__)\n#endif\n",
            "#if defined(__HIPCC__) && !defined(__HIP_DEVICE_COMPILE__)\n#endif\n",
            id="host-pass",
        ),
        pytest.param("#ifdef __CUDA_ARCH__\n#endif\n", "#ifdef __HIP_DEVICE_COMPILE__\n#endif\n", id="arch-ifdef"),
        pytest.param(
            "#ifndef __CUDA_ARCH__\n#elif 0\n#endif\n", "#ifndef __HIP_DEVICE_COMPILE__\n#elif 0\n#endif\n", id="ifndef"
        ),
        pytest.param(
            "#if 0\n#elif defined __CUDA_ARCH__\n#endif\n",
            "#if 0\n#elif defined __HIP_DEVICE_COMPILE__\n#endif\n",
            id="elif-defined-without-parentheses",
        ),
        pytest.param(
            "#define ON_DEVICE defined(__CUDA_ARCH__)\n",  # no `defined` from a macro expansion (clang warns)
            "#define ON_DEVICE __HIP_DEVICE_COMPILE__ /* hipconv: defined(__CUDA_ARCH__) */\n",
            id="in-a-macro-body",
        ),
        pytest.param(
            "#  if  defined( /* device pass */ __CUDA_ARCH__ )\n#endif\n",
            "#  if  defined( /* device pass */ __HIP_DEVICE_COMPILE__ )\n#endif\n",
            id="spaced-with-comment",
        ),
        pytest.param("#ifdef __CUDACC_RDC__\n#endif\n", "#ifdef __CLANG_RDC__\n#endif\n", id="relocatable-code"),
    ],
)
def test_predefined_macros(tmp_path: Path, src: str, expected: str) -> None:
    result = translate(tmp_path, src, name="k.h")
    assert result.code == 0 and result.stdout.decode() == expected
    assert "warning" not in result.stderr


@pytest.mark.parametrize(
    ("src", "column"),
    [
        # tests by value in #if lines are rewritten (HC020) and value uses become HIPCONV_CUDA_ARCH (HC011):
        # tests/test_version_macros.py; a definition of it by hand stays HC312
        pytest.param("#define __CUDA_ARCH__ 700\n", 9, id="defined-by-hand"),
    ],
)
def test_a_value_use_of_cuda_arch_is_reported_and_kept(tmp_path: Path, src: str, column: int) -> None:
    result = translate(tmp_path, src, name="k.h")
    assert result.code == 0 and result.stdout.decode() == src
    assert diagnostics(result) == [
        f"1:{column}: warning[HC312 compiler.__CUDA_ARCH__]: __CUDA_ARCH__ is used here for its value, not only "
        "tested with #ifdef or defined(); __HIP_DEVICE_COMPILE__ stands only for being defined, so __CUDA_ARCH__ "
        "is left unchanged (both are defined only in device compilation; __CUDA_ARCH__'s value, a compute "
        "capability, has no AMD counterpart)"
    ]


# ---------------------------------------------------------------- noop: nothing to change


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("timer.cudaEventCreate(&e, 2);\nself->cudaGraphInstantiate(&x, g);\n", id="members"),
        pytest.param("mylib::cudaEventCreate(&e, 2);\n", id="foreign-namespace"),
        pytest.param("struct MyResource *r;\nstruct hipGraphicsResource;\n", id="other-structs"),
        pytest.param(
            "hipFuncSetAttribute(reinterpret_cast<const void*>(k), hipFuncAttributeMaxDynamicSharedMemorySize, 1);\n",
            id="already-hip",
        ),
        pytest.param(
            '// cudaEventCreate(&e, flags); struct cudaGraphicsResource *r;\nputs("#ifdef __CUDA_ARCH__");\n',
            id="comments-and-strings",
        ),
        pytest.param("#error __CUDA_ARCH__ must not be defined here\n", id="error-message-is-prose"),
        pytest.param("#ifdef __HIP_DEVICE_COMPILE__\n#endif\n", id="already-hip-macro"),
    ],
)
def test_call_forms_noop(tmp_path: Path, src: str) -> None:
    result = translate(tmp_path, src, name="k.cpp")
    assert result.code == 0 and result.stdout.decode() == src
    assert result.stderr.count("warning[") == result.stderr.count("error[") == 0


def test_translating_twice_changes_nothing_more(tmp_path: Path) -> None:
    once = output(tmp_path, SNIPPET)
    (tmp_path / "again").mkdir()
    assert output(tmp_path / "again", once) == once


# ---------------------------------------------------------------- the output compiles


SNIPPET = """\
#include <cuda_runtime.h>

template <typename T, int N> __global__ void scale(T *p) { p[threadIdx.x] *= N; }
namespace ops { __global__ void fill(float *p) { p[threadIdx.x] = 1.0f; } }

#if defined(__CUDACC__) && !defined(__CUDA_ARCH__)
void setup(cudaStream_t stream, struct cudaGraphicsResource *resource, int smem) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop, cudaEventDisableTiming);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph);
  cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch);
  cudaFuncSetAttribute(scale<float, 4>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetCacheConfig(ops::fill, cudaFuncCachePreferShared);
  struct cudaFuncAttributes attr;
  cudaFuncGetAttributes(&attr, (const void *)ops::fill);
  int blocks;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, ops::fill, 256, 0);
  void *args[] = {nullptr};
  cudaLaunchKernel(ops::fill, dim3(1), dim3(64), args, 0, stream);
  cudaGraphicsUnregisterResource(resource);
}
#endif
"""

SNIPPET_HIP = """\
#include <hip/hip_runtime.h>

template <typename T, int N> __global__ void scale(T *p) { p[threadIdx.x] *= N; }
namespace ops { __global__ void fill(float *p) { p[threadIdx.x] = 1.0f; } }

#if defined(__HIPCC__) && !defined(__HIP_DEVICE_COMPILE__)
void setup(hipStream_t stream, struct _hipGraphicsResource *resource, int smem) {
  hipEvent_t start, stop;
  hipEventCreate(&start);
  hipEventCreateWithFlags(&stop, hipEventDisableTiming);
  hipGraph_t graph;
  hipGraphExec_t exec;
  hipGraphInstantiateWithFlags(&exec, graph, 0);
  hipGraphInstantiateWithFlags(&exec, graph, hipGraphInstantiateFlagAutoFreeOnLaunch);
  hipFuncSetAttribute(reinterpret_cast<const void*>(scale<float, 4>), hipFuncAttributeMaxDynamicSharedMemorySize, smem);
  hipFuncSetCacheConfig(reinterpret_cast<const void*>(ops::fill), hipFuncCachePreferShared);
  struct hipFuncAttributes attr;
  hipFuncGetAttributes(&attr, (const void *)ops::fill);
  int blocks;
  hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, ops::fill, 256, 0);
  void *args[] = {nullptr};
  hipLaunchKernel(reinterpret_cast<const void*>(ops::fill), dim3(1), dim3(64), args, 0, stream);
  hipGraphicsUnregisterResource(resource);
}
#endif
"""


def test_a_program_using_every_form(tmp_path: Path) -> None:
    result = translate(tmp_path, SNIPPET)
    assert result.code == 0 and result.stdout.decode() == SNIPPET_HIP
    assert diagnostics(result) == []


@pytest.mark.hipcc
def test_the_translation_compiles_with_hipcc(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """Debian's hipcc (HIP 5.2) compiles the translation; without the casts, the tag or the overload
    choice it rejects it."""
    hipcc = hipcc_path()
    assert hipcc is not None
    source = tmp_path / "setup.hip"
    source.write_text(SNIPPET_HIP)
    command = [hipcc, "--offload-arch=gfx90a", "-x", "hip", "-fsyntax-only", "-Wno-unused-result", str(source)]
    done = subprocess.run(command, capture_output=True, text=True, env=hip_env)
    assert done.returncode == 0, done.stderr
    source.write_text(SNIPPET_HIP.replace("reinterpret_cast<const void*>(scale<float, 4>)", "scale<float, 4>"))
    undone = subprocess.run(command, capture_output=True, text=True, env=hip_env)
    assert "no matching function for call to 'hipFuncSetAttribute'" in undone.stderr
