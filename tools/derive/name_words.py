"""Name similarity for the twins search (twins.py): a name's words without vendor prefixes and suffixes,
common abbreviations spelled out, and the tests of two names (or two enumerators of their enums) alike."""

from __future__ import annotations

import collections
import functools
import re
from collections.abc import Callable, Iterable

_VENDOR = {"cu", "cuda", "hip", "t", "st", "enum", "v1", "v2", "v3"}
_PREFIX = re.compile(r"^(cuda|CUDA_|CU_|CU|cu|hip|HIP_|HIP)(?=[A-Za-z_])")
_SYNONYMS = {
    "maximum": "max",
    "minimum": "min",
    "attr": "attribute",
    "dev": "device",
    "tex": "texture",
    "surf": "surface",
}
_SPLIT = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+[a-zA-Z]?")


@functools.cache
def name_words(name: str) -> tuple[str, ...]:
    """Lower-case words of a name, vendor prefixes and suffixes (cu, cuda, hip, _t, _st, _v1) left out,
    digits kept with a following letter (1D, 3D), common abbreviations spelled out."""
    out = []
    for part in re.split(r"_+", _PREFIX.sub("", name)):
        for w in _SPLIT.findall(part) or [part]:
            w = w.lower()
            if w and w not in _VENDOR:
                out.append(_SYNONYMS.get(w, w))
    return tuple(out)


def _word_match(a: str, b: str) -> bool:
    return a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a)))


def shared_words(a: str, b: str) -> int:
    """How many words of `a` match a word of `b` (the same, or one a prefix of the other: surf ~ surface)."""
    wb = name_words(b)
    return sum(1 for w in name_words(a) if any(_word_match(w, v) for v in wb))


def similar(a: str, b: str, *, both: bool = False) -> bool:
    """Every word of the shorter name matches one of the longer's (`both`: and the other way round); or the
    two are one spelling but for case (MipmappedArray ~ MipMappedArray, gesvdjInfo ~ GesvdjInfo)."""
    na, nb = name_words(a), name_words(b)
    if not na or not nb:
        return False
    if "".join(na) == "".join(nb):
        return True
    short, long_ = (a, b) if len(na) <= len(nb) else (b, a)
    ok = shared_words(short, long_) == len(name_words(short))
    return ok and (not both or shared_words(long_, short) == len(name_words(long_)))


def significant(name: str, members: list[str]) -> list[str]:
    """The words of an enumerator that are not common in its enum (in a third of its enumerators or more:
    `error` in hipError_t, `device attribute` in hipDeviceAttribute_t)."""
    counts = collections.Counter(w for m in members for w in set(name_words(m)))
    return [w for w in name_words(name) if 3 * counts[w] < len(members)]


def alike(a: str, a_members: list[str], b: str, b_members: list[str]) -> bool:
    """At least half of each enumerator's significant words match one of the other's."""
    wa, wb = significant(a, a_members), significant(b, b_members)
    sa = sum(1 for w in wa if any(_word_match(w, v) for v in wb))
    sb = sum(1 for w in wb if any(_word_match(w, v) for v in wa))
    return sa >= 1 and 2 * sa >= len(wa) and 2 * sb >= len(wb)


def shortening(hip: str, cuda: str, hip_prefix: int, cuda_prefix: int) -> bool:
    """The HIP words after its enum's prefix begin the CUDA words after theirs, word by word, two words or
    more (MaxTexture1DLinear ~ MaxTexture1DLinearWidth, MaxTexture1DMipmap ~ MaxTexture1DMipmappedWidth;
    not the one-word sentinel HIPBLASLT_MATMUL_PREF_MAX ~ CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT)."""
    hw, cw = name_words(hip)[hip_prefix:], name_words(cuda)[cuda_prefix:]
    return len(hw) >= 2 and len(hw) <= len(cw) and all(_word_match(h, c) for h, c in zip(hw, cw))


def reordering(hip: str, cuda: str, hip_prefix: int, cuda_prefix: int) -> bool:
    """The HIP words after its enum's prefix are the CUDA words after theirs in another order, three words or
    more (PersistingL2CacheMaxSize ~ MAX_PERSISTING_L2_CACHE_SIZE, AccessPolicyMaxWindowSize ~
    MAX_ACCESS_POLICY_WINDOW_SIZE)."""
    hw, cw = name_words(hip)[hip_prefix:], name_words(cuda)[cuda_prefix:]
    return len(hw) >= 3 and hw != cw and sorted(hw) == sorted(cw)


def common_prefix(names: Iterable[str]) -> int:
    lists = [name_words(n) for n in names]
    n = 0
    while lists and all(len(w) > n + 1 for w in lists) and len({w[n] for w in lists}) == 1:
        n += 1
    return n


def unique_pairs(pairs: Iterable[tuple[str, str]], same: Callable[[str], object] | None = None) -> dict[str, str]:
    """The pairs whose CUDA and HIP names each occur once (`same`: CUDA names with one key are one type,
    which may share a HIP name)."""
    pairs = list(pairs)
    cc = collections.Counter(c for c, _ in pairs)
    key = same or (lambda c: c)
    hc = {h: len({key(c) for c, hh in pairs if hh == h}) for _, h in pairs}
    return {c: h for c, h in pairs if cc[c] == 1 and hc[h] == 1}
