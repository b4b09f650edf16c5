"""Other AMD incompatibilities (HC311, HC313-HC316): inline PTX (recognised by scan.ptx), texture references, device
properties, launch bounds, ignored cache configuration. HC312 (__CUDA_ARCH__ used for its value)
comes from the nvcc rules, so translate and scan report it once."""

from __future__ import annotations

from collections.abc import Iterator

from hipconv.diagnostics import (
    CACHE_CONFIG_IGNORED,
    DEVICE_PROP_MISSING,
    INLINE_PTX,
    LAUNCH_BOUNDS_OVER_1024,
    TEXTURE_REFERENCE,
)
from hipconv.scan.device_props import device_props
from hipconv.scan.ptx import ptx_instruction
from hipconv.scan.registry import CheckHit, check
from hipconv.scan.view import FileView
from hipconv.translate.lexer import TokenKind
from hipconv.translate.syntax import matching_close, next_code, parse_call, prev_code
from hipconv.translate.texture_refs import template_use

_MAX_BLOCK = 1024
_MAX_LDS = 64 * 1024
_IGNORED_CONFIG_CALLS = frozenset(
    {
        "cudaFuncSetCacheConfig",
        "cudaDeviceSetCacheConfig",
        "cudaFuncSetSharedMemConfig",
        "cudaDeviceSetSharedMemConfig",
        "hipFuncSetCacheConfig",
        "hipDeviceSetCacheConfig",
        "hipFuncSetSharedMemConfig",
        "hipDeviceSetSharedMemConfig",
    }
)
_SET_ATTRIBUTE_CALLS = frozenset({"cudaFuncSetAttribute", "hipFuncSetAttribute"})


@check(INLINE_PTX, "amd.inline-ptx", words=("asm", "__asm__", "__asm"))
def inline_ptx(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    tokens = view.tokens
    for i in view.occurrences(words):
        j = next_code(tokens, i)
        while view.text(j) in ("volatile", "__volatile__", "__volatile", "goto", "inline"):
            j = next_code(tokens, j)
        close = matching_close(tokens, j) if view.is_punct(j, "(") else None
        if close is None:
            continue
        colon = next((k for k in range(j + 1, close) if view.is_punct(k, ":")), close)
        template = "".join(_string(view.text(k)) for k in range(j + 1, colon) if tokens.kinds[k] == TokenKind.LITERAL)
        if ptx_instruction(template):
            yield tokens.starts[i], "inline PTX assembly: hipcc for AMD GPUs cannot assemble it"


def _string(literal: str) -> str:
    """The characters between the quotes of a string literal token (`"..."`, `u8"..."`), as written."""
    first, last = literal.find('"'), literal.rfind('"')
    return literal[first + 1 : last] if first < last else ""


@check(TEXTURE_REFERENCE, "amd.texture-reference", words=("texture",))
def texture_reference(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """`texture<` as translate.texture_refs recognises it, which reports the API's status there (cudart.texture,
    HC004/HC006); this is the AMD hazard: texture references do not port to what HIP keeps supported."""
    tokens = view.tokens
    for i in view.occurrences(words):
        if template_use(tokens, i):
            yield (
                tokens.starts[i],
                "legacy texture reference: removed in CUDA 12 and deprecated in HIP; texture objects port",
            )


@check(DEVICE_PROP_MISSING, "amd.device-prop-field", words=("cudaDeviceProp", "hipDeviceProp_t"))
def device_prop_field(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    """`prop.luid` where prop is declared as a cudaDeviceProp (value, pointer or reference)."""
    tokens = view.tokens
    target = view.settings.rocm
    props = _declared_names(view, words)
    members = device_props()
    for i in range(len(tokens)):
        if tokens.kinds[i] != TokenKind.IDENTIFIER or view.text(i) not in members:
            continue
        dot = prev_code(tokens, i)
        if not view.is_punct(dot, ".", "->") or view.text(prev_code(tokens, dot)) not in props:
            continue
        if problem := members[view.text(i)].problem(target):
            yield tokens.starts[i], problem


def _declared_names(view: FileView, types: frozenset[str]) -> set[str]:
    """Names declared with one of types: `T x`, `T* x`, `const T& x`."""
    tokens = view.tokens
    names: set[str] = set()
    for i in view.occurrences(types):
        j = next_code(tokens, i)
        while view.is_punct(j, "*", "&") or view.text(j) == "const":
            j = next_code(tokens, j)
        if tokens.kinds[j] == TokenKind.IDENTIFIER:
            names.add(view.text(j))
    return names


@check(LAUNCH_BOUNDS_OVER_1024, "amd.launch-bounds-1024", words=("__launch_bounds__",))
def launch_bounds(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    tokens = view.tokens
    for i in view.occurrences(words):
        call = parse_call(tokens, i)
        if call is None or not call.args:
            continue
        threads = view.constant(*view.span_tokens(call.args[0]))
        if threads is not None and threads > _MAX_BLOCK:
            yield call.args[0][0], f"__launch_bounds__ asks for {threads} threads per block; AMD allows {_MAX_BLOCK}"


@check(CACHE_CONFIG_IGNORED, "amd.ignored-func-config", words=_IGNORED_CONFIG_CALLS | _SET_ATTRIBUTE_CALLS)
def ignored_func_config(view: FileView, words: frozenset[str]) -> Iterator[CheckHit]:
    for i in view.occurrences(words):
        if view.text(i) in _SET_ATTRIBUTE_CALLS:
            yield from _ignored_func_attribute(view, i)
        else:
            yield view.tokens.starts[i], f"{view.text(i)} is accepted and ignored by HIP on AMD GPUs"


def _ignored_func_attribute(view: FileView, i: int) -> Iterator[CheckHit]:
    """`cudaFuncSetAttribute(k, attr, value)` at i with an attribute AMD ignores or a value it cannot honour."""
    tokens = view.tokens
    call = parse_call(tokens, i)
    if call is None or len(call.args) != 3:
        return
    attr = tokens.body[call.args[1][0] : call.args[1][1]].decode()
    if attr.endswith("FuncAttributePreferredSharedMemoryCarveout"):
        yield call.args[1][0], f"{attr} is ignored by HIP on AMD GPUs (the L1/LDS split is fixed)"
    elif attr.endswith("FuncAttributeMaxDynamicSharedMemorySize"):
        size = view.constant(*view.span_tokens(call.args[2]))
        if size is not None and size > _MAX_LDS:
            yield (
                call.args[2][0],
                (
                    f"{size} bytes of dynamic shared memory: an AMD block gets at most "
                    f"{_MAX_LDS} bytes of LDS, so the launch will fail"
                ),
            )
