"""Shims: a CUDA name the targeted ROCm lacks, where HIP can express it exactly, becomes the name of a
definition in the generated header hipconv_compat.h (a rule's `compat:` field; Action.SHIM).

Each use is renamed to the shim and reported as a note (HC011); the file then includes the header
(by a path relative to it: the header sits at the root of the output tree) right after the runtime
include; the run writes one header holding the shims its files use (compat_header). A shim that would
change the meaning of a use is not written there: a warp builtin (__syncwarp, __match_*_sync,
__reduce_*_sync) with a lane mask other than the full one stays reported as it is without shims,
saying why. `--no-compat` (Settings.compat) turns shims off.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from hipconv.diagnostics import FULL_MASK_WIDENED, SHIMMED
from hipconv.results import COMPAT_HEADER as COMPAT_HEADER  # re-exported: its home is the leaf results.py
from hipconv.rules.conversions import all_conversions
from hipconv.rules.model import Action, Resolution
from hipconv.rules.ranges import RANGE_PREFIX, range_label
from hipconv.rules.simd import SIMD_TEMPLATE, simd_ops
from hipconv.settings import Version
from hipconv.translate.context import FileContext
from hipconv.translate.edits import Edit
from hipconv.translate.found import Found
from hipconv.translate.full_masks import is_full_mask
from hipconv.translate.status import status_message
from hipconv.translate.syntax import Span, int_literal, is_punct, next_code, parse_call, prev_code
from hipconv.translate.templates import render
from hipconv.translate.words import WORDY_KINDS, identifier_tokens, inside

# the first line of every generated hipconv_compat.h (templates/compat/hipconv_compat.h.j2): a file of that
# name without it is the user's, which a run never overwrites
COMPAT_MARKER = b"// hipconv_compat.h: written by hipconv"
NOTE_CODE = SHIMMED
# shims whose first argument is a CUDA lane mask: written only for no argument or the full 32-bit mask
# (every lane of the warp: the whole wavefront, which is what they do); any other mask would change the meaning
MASKED_SHIMS = frozenset(
    {"hipconv_syncwarp", "hipconv_match_any_sync", "hipconv_match_all_sync"}
    | {f"hipconv_reduce_{op}_sync" for op in ("add", "min", "max", "and", "or", "xor")}
)
_CG_NAMESPACE = "cooperative_groups"
_CG_ALIAS = re.compile(rb"\bnamespace\s+(\w+)\s*=\s*(?:::\s*)?cooperative_groups\s*;")
_CONVENTIONAL_CG_ALIAS = "cg"  # CUDA's documentation and most code: `namespace cg = cooperative_groups;`


def shim_use(c: Found, i: int, last: int, name: str, resolution: Resolution) -> None:
    """The use of `name` (tokens i..last) that the target lacks: renamed to the rule's shim, or, where the
    shim would change its meaning, reported as the rule reports it without shims."""
    rule = resolution.rule
    assert rule is not None and rule.compat is not None and resolution.action is Action.SHIM
    start, end = c.tokens.starts[i], c.tokens.ends[last]
    problem, full_mask = _mask_problem(c, last, rule.compat)
    if problem is not None:  # reported as without shims, and why the shim is not used
        assert resolution.unshimmed is not None
        reported = status_message(c, name, rule, resolution.unshimmed)
        assert reported is not None
        code, message = reported
        c.diag(start, code, f"{message}; not shimmed by {COMPAT_HEADER}: {problem}", rule, name)
        return
    rename(c, start, end, name, rule.compat, rule.id, rule.library)
    if full_mask is not None:  # a verdict at the mask, as a widened one is (HC104): the shim acts on every
        # lane of the wavefront, so scan's HC302 is not repeated there
        mask = c.tokens.body[full_mask[0] : full_mask[1]].decode().strip()
        message = f"32-bit full lane mask {mask} (all 32 lanes of a CUDA warp): {rule.compat} acts on all 64 lanes"
        c.diag(full_mask[0], FULL_MASK_WIDENED, message, rule, about_api=False)


def rename(c: Found, start: int, end: int, cuda: str, shim: str, rule_id: str, library: str) -> None:
    c.edits.append(Edit.replace(start, end, shim, rule_id))
    c.replaced(start, cuda, shim, rule_id, library)
    c.shims.add(shim)
    message = f"{cuda} is not in ROCm {c.settings.rocm}: shimmed by {COMPAT_HEADER} as {shim}"
    if shim.startswith(RANGE_PREFIX):
        message = f"{cuda} is spelled differently across ROCm {range_label(c.settings)}: {shim}, {RANGED}"
    c.diag(start, NOTE_CODE, message, None, cuda)


def shim_include(c: Found, path_span: Span, path: str, resolution: Resolution) -> None:
    """`#include <cuda/header.h>` that the target lacks: it includes hipconv_compat.h instead, whose shims
    stand for the header's API."""
    rule = resolution.rule
    assert rule is not None and rule.compat is not None
    body = c.tokens.body
    start, end = path_span[0] - 1, path_span[1] + 1  # with its quotes or angle brackets
    if body[start : start + 1] not in (b"<", b'"') or body[end - 1 : end] not in (b">", b'"'):
        return
    c.edits.append(Edit.replace(start, end, f'"{c.ctx.compat_include}"', rule.id))
    c.replaced(path_span[0], path, c.ctx.compat_include, rule.id, rule.library)
    c.shims.add(rule.compat)
    c.compat_included = True
    message = f"{path} is not in ROCm {c.settings.rocm}: {COMPAT_HEADER} included instead, with {rule.compat}"
    if rule.compat.startswith(RANGE_PREFIX):
        message = f"{path} is another header across ROCm {range_label(c.settings)}: {COMPAT_HEADER} included instead"
        message += f" ({rule.compat}), whose #include lines are guarded by HIP_VERSION"
    c.diag(path_span[0], NOTE_CODE, message, None, path)


def match_aliased(c: Found, skip: list[Span], words: frozenset[bytes]) -> None:
    """`cg::reduce(...)`, `cg::plus<float>()`: names of cooperative_groups spelled through a namespace alias
    (declared in the file, or the conventional `cg` in a file that names cooperative_groups) that a shim
    stands for. The full spelling (`cooperative_groups::reduce`) is the identifier matcher's."""
    if not c.settings.compat or _CG_NAMESPACE.encode() not in words:
        return
    aliases = {m.decode() for m in _CG_ALIAS.findall(c.tokens.body)} | {_CONVENTIONAL_CG_ALIAS}
    tokens = c.tokens
    skip_starts = [s for s, _ in skip]
    for i in identifier_tokens(tokens, frozenset(a.encode() for a in aliases) & words):
        sep = next_code(tokens, i)
        member = next_code(tokens, sep)
        before = prev_code(tokens, i)
        if (
            not is_punct(tokens, sep, "::")
            or member >= len(tokens)
            or tokens.kinds[member] not in WORDY_KINDS
            or is_punct(tokens, before, "::", ".", "->")
            or (skip and inside(skip, skip_starts, tokens.starts[i]))
        ):
            continue
        resolution = c.table.identifiers.get(f"{_CG_NAMESPACE}::{tokens.text(member)}")
        if resolution is None or resolution.action is not Action.SHIM or resolution.rule is None:
            continue
        rule = resolution.rule
        assert rule.compat is not None
        spelled = f"{tokens.text(i)}::{tokens.text(member)}"
        rename(c, tokens.starts[i], tokens.ends[member], spelled, rule.compat, rule.id, rule.library)


def include_line(ctx: FileContext, shims: frozenset[str], *, compat_included: bool) -> str | None:
    """The include of hipconv_compat.h that the file needs: when it uses a shim (`shims`, the matchers')
    and does not include it yet (`compat_included`: a CUDA header's include became it)."""
    if not shims or compat_included or _includes_header(ctx.tokens.body):
        return None
    return f'#include "{ctx.compat_include}"'


def _includes_header(body: bytes) -> bool:
    # the name first: the pattern, anchored at each line's start, is tried at every byte of the body
    return COMPAT_HEADER.encode() in body and _COMPAT_INCLUDE.search(body) is not None


_COMPAT_INCLUDE = re.compile(
    rb'^[ \t]*#[ \t]*include[ \t]*"(?:[^"\n]*/)?' + re.escape(COMPAT_HEADER.encode()) + rb'"', re.M
)


def _mask_problem(c: Found, last: int, shim: str) -> tuple[str | None, Span | None]:
    """Why a call of a masked shim cannot be shimmed (its mask is not the full one), else None; and the
    span of the full mask it is called with (None when it has none)."""
    if shim not in MASKED_SHIMS:
        return None, None
    tokens = c.tokens
    if not is_punct(tokens, next_code(tokens, last), "("):
        return None, None
    call = parse_call(tokens, last)
    if call is None:
        return "cannot read its arguments", None
    if not call.args:
        return None, None
    text = tokens.body[call.args[0][0] : call.args[0][1]].decode().strip()
    literal = int_literal(text)
    if literal is not None and is_full_mask(literal):
        return None, call.args[0]
    return (
        f"only the full lane mask (0xffffffff: every lane) keeps its meaning on a 64-wide wavefront, and the "
        f"mask {text!r} is another or cannot be seen"
    ), None


_INCLUDE = re.compile(r"^#include\b.*$", re.M)
_VERSION_INCLUDE = "#include <hip/hip_version.h>"  # HIP_VERSION, which a release range's guards test
RANGED = f"which {COMPAT_HEADER} defines per release (#if HIP_VERSION >= ...)"


def compat_header(
    shims: Iterable[str],
    rocm: Version,
    ranged: Mapping[str, str] | None = None,
    texts: Callable[[Iterable[str], Callable[[str], str]], Mapping[str, str]] | None = None,
) -> bytes:
    """hipconv_compat.h holding the given shims (sorted), each shim_text, a body that several shims share once;
    the headers a shim includes go to the top, once each. `ranged`: the definitions of a release range's macros
    (LookupTable.ranged), guarded by HIP_VERSION, which keep their #include lines where they are. `texts`: where
    the shims' texts come from, given the names and how to render one (hipconv.shim_store); else rendered."""
    includes: list[str] = []
    bodies = []
    names = sorted(set(shims))
    rendered = (texts or _rendered)([s for s in names if not (ranged and s in ranged)], shim_text)
    for shim in names:
        if ranged and shim in ranged:
            if _VERSION_INCLUDE not in includes:
                includes.append(_VERSION_INCLUDE)
            bodies.append(ranged[shim])
            continue
        text = rendered[shim]
        for line in _INCLUDE.findall(text):
            if line not in includes:
                includes.append(line)
        body = _INCLUDE.sub("", text).strip("\n")
        if body not in bodies:  # shims of one family share a body (templates/compat/_cublas_emulation.j2)
            bodies.append(body)
    text = render("compat/hipconv_compat.h.j2", rocm=str(rocm), includes=includes, bodies=bodies)
    return text.rstrip("\n").encode() + b"\n"


def shim_text(shim: str) -> str:
    """One shim's definition: templates/compat/SHIM.h.j2 (a SIMD intrinsic's from its facts, hipconv.rules.simd)."""
    simd = simd_ops()
    if shim in simd:
        return render(SIMD_TEMPLATE, simd=simd[shim])
    return render(f"compat/{shim}.h.j2", conversions=all_conversions())


def _rendered(names: Iterable[str], render_one: Callable[[str], str]) -> dict[str, str]:
    return {name: render_one(name) for name in names}


def is_generated_header(data: bytes) -> bool:
    """True when `data` is a hipconv_compat.h that hipconv wrote (a later run may rewrite it)."""
    return data.startswith(COMPAT_MARKER)
