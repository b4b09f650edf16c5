"""Argument contracts that differ, not names (hipconv/data/library.contracts, written by
tools/derive_rules.py from `contracts:` in tools/curated.yaml): a parameter the CUDA function accepts as a
null pointer, with a meaning of its own, that the HIP function it is translated to rejects or reads
otherwise. cuSOLVER's getrs solves without row interchanges when devIpiv is NULL; hipSOLVER passes the
pointer to rocSOLVER's getrs, which returns an invalid-pointer status and solves nothing. The translation
reports such a call where the argument is a null literal (hipconv.translate.contracts)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from hipconv.resources import data_file

FILE = "library.contracts"


@dataclass(frozen=True)
class Contract:
    cuda: str  # the CUDA function
    param: str  # the parameter, as CUDA's prototype names it
    index: int  # its position among the call's arguments
    note: str  # what CUDA does with a null pointer there, and what HIP does


@functools.cache
def contracts() -> Mapping[str, tuple[Contract, ...]]:
    """The contracts of each CUDA function that has one, by name."""
    out: dict[str, list[Contract]] = {}
    path = data_file(FILE)
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    for line in lines:
        cuda, param, index, note = line.split("\t")
        out.setdefault(cuda, []).append(Contract(cuda, param, int(index), note))
    return {name: tuple(found) for name, found in out.items()}


@functools.cache
def contract_words() -> frozenset[bytes]:
    """The CUDA functions with a contract, as the prefilter's words."""
    return frozenset(name.encode() for name in contracts())
