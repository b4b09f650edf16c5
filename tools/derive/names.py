"""Spellings: mechanical HIP candidates for a CUDA name, name words and normal forms, sections."""

from __future__ import annotations

import re
from pathlib import Path

_SECTIONS = (
    ("error", ("error", "result", "success")),
    ("graph", ("graph",)),
    ("stream", ("stream",)),
    ("event", ("event",)),
    ("texture", ("tex", "surf", "channel", "resview", "resource_view", "address_mode", "filter_mode")),
    ("interop", ("gl", "egl", "vdpau", "graphics", "external", "ipc", "d3d", "nvsci")),
    ("context", ("ctx", "context", "primary")),
    ("module", ("module", "library", "kernel", "link", "jit")),
    ("execution", ("launch", "func", "occupancy", "cooperative", "cluster")),
    ("memory", ("mem", "malloc", "free", "array", "pitch", "extent", "host", "pointer", "ptr", "alloc")),
    ("device", ("device", "dev", "limit", "cache", "p2p", "peer")),
    ("version", ("version", "init")),
    ("profiler", ("profiler",)),
)


def is_internal(name: str) -> bool:
    """Implementation details a user never writes."""
    return bool(
        re.match(r"^(__cuda|_+[A-Z])", name)  # __cudaLaunch..., __CUDA_ALIGN__
        or re.search(r"_pt(sz|ds)$", name)  # per-thread-stream variants picked by macros
        or re.match(r"^__(i|u|ll|ull|ill|f|d|f2|f4|us|u128)Atomic", name)  # atomics' helpers
        or "_internal" in name
    )


def section_for(name: str, header: str) -> str:
    """A coarse, informative grouping from keywords in the name (first match wins)."""
    low = name.lower()
    for section, keys in _SECTIONS:
        if any(k in low for k in keys):
            return section
    return Path(header or "misc").stem


def _host_spellings(n: str) -> list[str]:
    out: list[str] = []
    if m := re.match(r"^cudaDevAttr(\w+)$", n):
        out.append("hipDeviceAttribute" + m[1])
    if m := re.match(r"^cuda([A-Z]\w*)$", n):
        out += ["hip" + m[1], "hip" + m[1] + "_t"]
    if m := re.match(r"^cu([A-Z]\w*)$", n):
        out += ["hip" + m[1], "hipModule" + m[1], "hipDrv" + m[1]]
    if m := re.match(r"^CU(?!DA_|_)([A-Za-z]\w*?)(_st|_enum)?$", n):
        cap = m[1][0].upper() + m[1][1:]
        out += ["hip" + cap + "_t", "hip" + cap] if not m[2] else ["hip" + cap, "hip" + cap + "_t"]
    if m := re.match(r"^(CUDA|CU)_([A-Z0-9_]+?)(_st)?$", n):
        out.append("HIP_" + m[2])
    if m := re.match(r"^make_cuda(\w+)$", n):
        out.append("make_hip" + m[1])
    return out


def host_candidates(name: str) -> list[str]:
    """Mechanical HIP spellings for a runtime or driver API name, best first."""
    base = re.sub(r"_v\d+$", "", name)
    out = [c for n in dict.fromkeys([name, base]) for c in _host_spellings(n)]
    return list(dict.fromkeys(c for c in out if c != name))


def device_candidates(name: str) -> list[str]:
    out = []
    if m := re.match(r"^CUDART_(\w+)$", name):
        out.append("HIP_" + m[1])
    if m := re.match(r"^__nv_(\w+)$", name):
        out.append("__hip_" + m[1])
    if m := re.match(r"^cu(C\w+)$", name):  # cuComplex family: cuCadd -> hipCadd
        out.append("hip" + m[1])
    if m := re.match(r"^cu(\w*Complex\w*)$", name):
        out.append("hip" + m[1][0].upper() + m[1][1:])
    if m := re.match(r"^make_cu(\w+)$", name):
        out.append("make_hip" + m[1])
    return out


def words(name: str) -> list[str]:
    if "_" in name and name.upper() == name:
        return [w.lower() for w in name.split("_") if w]
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|\d+", name)]


def sibling_key(name: str) -> tuple[str, ...]:
    """The words of a HIP name, unordered, Malloc read as Alloc."""
    return tuple(sorted("alloc" if w == "malloc" else w for w in words(name)))


def fuzzy_key(name: str) -> str:
    return re.sub(r"(_t|_enum|_st)$", "", name).lower().replace("_", "")


def vendorless(name: str) -> str:
    return re.sub(r"^(cuda|cu|hip)", "", name.lower().replace("_", ""))
