"""Enumerator conversions (hipconv/data/TYPE.conversion, written by tools/derive_rules.py): where a HIP
function takes another enum than CUDA's for the same meaning (hipBLAS's v1 API, before ROCm 6.0, takes
hipblasDatatype_t where cuBLAS's *Ex functions take cudaDataType and cublasComputeType_t; its GemmEx
functions from 6.0 take hipblasComputeType_t where code written for CUDA 10 passes a cudaDataType), each
CUDA enumerator's value and the HIP enumerator of the same meaning, or why there is none. A rule's
`converts:` names a conversion per parameter; the translation writes the HIP enumerator for an enumerator
argument and passes anything else the HIP function does not take as it is through the shim hipconv_TYPE of
hipconv_compat.h, made from the same table (hipconv.translate.converts)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from hipconv.resources import data_file, data_files

SUFFIX = ".conversion"


@dataclass(frozen=True)
class Converted:
    cuda: str  # the CUDA enumerator
    value: int  # its value
    hip: str | None  # the HIP enumerator of the same meaning; None: none
    why: str  # why there is none


@dataclass(frozen=True)
class Conversion:
    target: str  # the HIP type
    entries: Mapping[str, Converted]  # by CUDA name

    @property
    def shim(self) -> str:
        """The function of hipconv_compat.h that converts a value at run time."""
        return f"hipconv_{self.target}"

    def cases(self) -> list[tuple[int, str, list[str]]]:
        """(CUDA value, HIP enumerator, the CUDA names of that value) for each value with a counterpart."""
        by_value: dict[int, tuple[str, list[str]]] = {}
        for entry in sorted(self.entries.values(), key=lambda e: (e.value, e.cuda)):
            if entry.hip is not None:
                by_value.setdefault(entry.value, (entry.hip, []))[1].append(entry.cuda)
        return [(value, hip, names) for value, (hip, names) in sorted(by_value.items())]


def conversion_names() -> frozenset[str]:
    """The HIP types that a bundled conversion converts to."""
    return frozenset(path.name.removesuffix(SUFFIX) for path in data_files(f"*{SUFFIX}"))


@functools.cache
def conversion(target: str) -> Conversion:
    """The conversion to HIP type `target` (KeyError when none is bundled)."""
    path = data_file(target + SUFFIX)
    if not path.is_file():
        raise KeyError(target)
    entries = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cuda, value, hip, why = line.split("\t")
        entries[cuda] = Converted(cuda, int(value), hip or None, why)
    return Conversion(target, entries)


def all_conversions() -> dict[str, Conversion]:
    return {name: conversion(name) for name in sorted(conversion_names())}
