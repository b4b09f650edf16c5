"""hipconv/data/cuda-device-prop.fields: every member of cudaDeviceProp (CUDA 11.8, 12.9, 13.0) and the
ROCm releases whose hipDeviceProp_t has it, the data behind scan check HC314 (hipconv/scan/device_props.py).

Every ROCm set records hipDeviceProp_t's members, the host-only ones (6.4 ...) included: hip-python
declares the struct with its fields (ROCm 6.0 on, as `hipDeviceProp_tR0600`, which hipDeviceProp_t names),
so no release needs 6.3's carried forward.  A CUDA member that HIP lacks under its own name but has with
`Cuda` spelled `Hip` (sparseCudaArraySupported -> sparseHipArraySupported) is listed with HIP's spelling.
"""

from __future__ import annotations

from typing import NamedTuple

from tools.derive.inventory import CUDA_RELEASES, RELEASES, Inventory, Snapshot

CUDA_STRUCT = "cudaDeviceProp"
HIP_STRUCT = "hipDeviceProp_t"


def members(snap: Snapshot, name: str) -> list[str] | None:
    """The members of struct `name` as the set declares them itself (not carried forward), in order."""
    return next((list(r["fields"]) for r in snap.records(name) if r.get("fields") and "carried" not in r), None)


class DeviceProp(NamedTuple):
    member: str  # cudaDeviceProp's
    cuda: list[str]  # the CUDA releases whose cudaDeviceProp has it, oldest first
    hip: list[str]  # the ROCm releases whose hipDeviceProp_t has it (as `spelling`), oldest first
    spelling: str  # hipDeviceProp_t's name for it


def device_props(inv: Inventory) -> list[DeviceProp]:
    """Every member of cudaDeviceProp of any bundled CUDA release, sorted."""
    cuda: dict[str, list[str]] = {}
    for rel in CUDA_RELEASES:
        found = members(inv.cuda_sets[rel], CUDA_STRUCT)
        if found is None:
            raise ValueError(f"CUDA {rel}: {CUDA_STRUCT} has no members in the inventory")
        for member in found:
            cuda.setdefault(member, []).append(rel)
    hip: dict[str, set[str]] = {}
    for rel in RELEASES:
        found = members(inv.hip[rel], HIP_STRUCT)
        if found is None:
            raise ValueError(f"ROCm {rel}: {HIP_STRUCT} has no members in the inventory")
        hip[rel] = set(found)
    out = []
    for member in sorted(cuda):
        spelling = member
        if not any(member in have for have in hip.values()):
            twin = member.replace("Cuda", "Hip")
            spelling = twin if any(twin in have for have in hip.values()) else member
        out.append(DeviceProp(member, cuda[member], [rel for rel in RELEASES if spelling in hip[rel]], spelling))
    return out
