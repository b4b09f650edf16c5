"""Every scan check against its fixture: `// expect: HCxxx` lines must fire, `// expect-ok` lines must not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, SHARED_INVENTORY

from helpers import comment_annotations
from hipconv.diagnostics import CODES
from hipconv.rules import load_ruleset
from hipconv.scan.checks import CHECKS
from hipconv.scan.device_props import DEVICE_PROP_SINCE
from hipconv.scan.scanner import scan_sources
from hipconv.settings import Settings, Version
from hipconv.translate.source import SourceFile

CHECK_FIXTURES = sorted((FIXTURES / "scan" / "checks").glob("*.cu"))


def scan_text(data: bytes, rocm: str = "6.3", path: str = "k.cu", disabled: frozenset[str] = frozenset()):
    settings = Settings(Version.parse(rocm))
    return scan_sources(
        [SourceFile.from_bytes(path, data)], load_ruleset().table(settings), settings, disabled=disabled
    )[0]


def check_codes(data: bytes, rocm: str = "6.3") -> set[tuple[int, str]]:
    return {
        (f.diagnostic.line, f.diagnostic.code)
        for f in scan_text(data, rocm).findings
        if f.diagnostic.code.startswith("HC3")
    }


@pytest.mark.parametrize("fixture", CHECK_FIXTURES, ids=lambda p: p.name)
def test_check_fixture(fixture: Path) -> None:
    data = fixture.read_bytes()
    annotations = comment_annotations(data)
    expected = {(line, text.split(":", 1)[1].strip()) for line, text in annotations if text.startswith("expect:")}
    ok_lines = {line for line, text in annotations if text.startswith("expect-ok")}
    assert expected and ok_lines, "each fixture needs a true positive and a look-alike"
    assert {code for _, code in expected} == {fixture.name[:5]}
    found = check_codes(data)
    missed, incorrect = expected - found, found - expected
    assert not missed and not incorrect, f"missed: {sorted(missed)}; incorrect: {sorted(incorrect)}"
    assert not {line for line, _ in found} & ok_lines


def test_every_check_has_a_code_and_a_fixture() -> None:
    scan_codes = {c for c in CODES if c.startswith("HC3")}
    # a rule's own code (HC312 for __CUDA_ARCH__'s value) is reported by translate and scan alike
    rule_codes = {rule.code for rule in load_ruleset().rules if rule.code in scan_codes}
    assert rule_codes == {"HC312"}
    assert [c.code for c in CHECKS] == sorted(scan_codes - rule_codes)
    assert len({c.id for c in CHECKS}) == len(CHECKS)
    assert {p.name[:5] for p in CHECK_FIXTURES} == scan_codes
    assert all(CODES[c].hint for c in scan_codes)


def test_device_prop_field_follows_the_target_release() -> None:
    src = b"void f() { cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0); int x = prop.luid[0]; }\n"
    assert check_codes(src, rocm="5.2") == {(1, "HC314")}
    assert check_codes(src, rocm="6.3") == set()


def test_checks_see_every_preprocessor_branch_and_macro_body() -> None:
    src = b"#if 0\n__device__ int a() { return threadIdx.x % 32; }\n#else\n#define LANE() (threadIdx.x & 31)\n#endif\n"
    assert check_codes(src) == {(2, "HC301"), (4, "HC301")}


def test_checks_noop_on_plain_cpp() -> None:
    src = b"int main() { int a[32]; for (int i = 16; i > 0; i /= 2) a[i % 32] = i & 31; return a[0] / 32; }\n"
    assert scan_text(src, path="main.cpp").findings == ()


def test_disabled_check_is_not_run() -> None:
    src = b"__global__ void k(int* p) { p[threadIdx.x % 32] = 0; }\n"
    assert scan_text(src, disabled=frozenset({"HC301"})).findings == ()


@pytest.mark.skipif(not SHARED_INVENTORY.is_dir(), reason="../shared/api-inventory not present")
def test_device_prop_table_matches_the_inventories() -> None:
    def fields(folder: str, name: str) -> set[str]:
        inventory = SHARED_INVENTORY / folder / ("cuda_runtime.jsonl" if folder == "cuda" else "hip_runtime.jsonl")
        for line in inventory.open():
            record = json.loads(line)
            if record["name"] == name and record.get("fields"):
                return set(record["fields"])
        raise AssertionError(f"{name} has no fields in {folder}")

    cuda = fields("cuda", "cudaDeviceProp")
    hip = {"5.2": fields("hip-debian-5.2", "hipDeviceProp_t"), "6.3": fields("hip", "hipDeviceProp_tR0600")}
    derived = {f: next((v for v in ("5.2", "6.3") if f in hip[v]), None) for f in cuda}
    assert DEVICE_PROP_SINCE == {f: v for f, v in derived.items() if v != "5.2"}
