"""The store of rendered shims (hipconv.shim_store): a shim is rendered once for a hipconv and its templates,
whatever the tree, and the header built from the store is the one rendered directly; a damaged, altered or
unwritable store costs a rendering, never a wrong text; an edit to a template is another store."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv import shim_store
from hipconv.resources import templates_dir
from hipconv.rules.cache import entry_path, store_entry
from hipconv.settings import Version
from hipconv.shim_store import KIND, shims_key, stored_shims
from hipconv.translate.compat import compat_header, shim_text

SHIMS = ["hipconv_ldcs", "hipconv_stcs", "hipconv_vabsdiffu4"]  # two templates and a SIMD intrinsic's facts

KERNEL = b"""#include <cuda_runtime.h>

// streams a vector through the cache-streaming loads and stores, and a byte-wise distance
__global__ void stream_copy(const float4 *in, float4 *out, unsigned *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __stcs(&out[i], __ldcs(&in[i]));
        d[i] = __vabsdiffu4(d[i], 0x01020304u);
    }
}
"""


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("HIPCONV_CACHE_DIR", str(folder))
    return folder


def counting(log: list[str]) -> Callable[[str], str]:
    """shim_text, noting each name it renders."""

    def render(name: str) -> str:
        log.append(name)
        return shim_text(name)

    return render


def test_a_shim_is_rendered_once_and_the_header_is_the_one_rendered_directly() -> None:
    rendered: list[str] = []
    stored = compat_header(SHIMS, Version.parse("6.3"), texts=lambda names, _: stored_shims(names, counting(rendered)))
    assert sorted(rendered) == SHIMS
    again = compat_header(SHIMS, Version.parse("6.3"), texts=lambda names, _: stored_shims(names, counting(rendered)))
    assert sorted(rendered) == SHIMS  # nothing rendered the second time
    assert stored == again == compat_header(SHIMS, Version.parse("6.3"))
    more = stored_shims([*SHIMS, "hipconv_vadd4"], counting(rendered))
    assert rendered[-1:] == ["hipconv_vadd4"] and len(rendered) == 4
    assert more["hipconv_vadd4"] == shim_text("hipconv_vadd4")


@pytest.mark.parametrize("damage", ["flip", "cut", "garbage", "layout"])
def test_a_damaged_or_altered_store_is_rendered_again_and_rewritten(damage: str) -> None:
    stored_shims(SHIMS, shim_text)
    path = entry_path(shims_key(), KIND)
    data = path.read_bytes()
    if damage == "flip":
        at = len(data) // 2
        path.write_bytes(data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1 :])
    elif damage == "cut":
        path.write_bytes(data[: len(data) // 3])
    elif damage == "garbage":
        path.write_bytes(b"\x80\x04not a store")
    else:  # sealed under the right key, but a planted text is no map of names to texts
        store_entry(path, KIND.encode() + shims_key().encode(), {"hipconv_ldcs": ["int", "x"]})
    rendered: list[str] = []
    assert stored_shims(SHIMS, counting(rendered)) == {name: shim_text(name) for name in SHIMS}
    assert sorted(rendered) == SHIMS
    assert path.read_bytes() == data  # the store as it was written first
    rendered.clear()
    stored_shims(SHIMS, counting(rendered))
    assert rendered == []  # rewritten whole: read back


def test_an_unwritable_cache_folder_costs_the_rendering_only(cache: Path) -> None:
    cache.write_text("a file where the cache folder would be")
    rendered: list[str] = []
    assert stored_shims(SHIMS, counting(rendered)) == {name: shim_text(name) for name in SHIMS}
    assert stored_shims(SHIMS, counting(rendered)) == {name: shim_text(name) for name in SHIMS}
    assert len(rendered) == 2 * len(SHIMS)


def test_an_edit_to_any_template_file_is_another_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "templates"
    shutil.copytree(templates_dir(), copy)
    monkeypatch.setattr(shim_store, "templates_dir", lambda: copy)
    before = shims_key.__wrapped__()
    (copy / "compat" / "notes.txt").write_text("a file that is no *.j2 template counts too\n")
    assert shims_key.__wrapped__() != before


def test_a_translated_tree_gets_its_header_from_the_store(tmp_path: Path, cache: Path) -> None:
    (tmp_path / "cuda").mkdir()
    (tmp_path / "cuda" / "stream.cu").write_bytes(KERNEL)
    for out in ("hip-1", "hip-2"):
        run = run_cli("translate", tmp_path / "cuda", "-o", tmp_path / out, "--rocm-version", "6.3", "--no-cache")
        assert run.code == 0, run.err
    header = (tmp_path / "hip-2" / "hipconv_compat.h").read_bytes()
    assert header == (tmp_path / "hip-1" / "hipconv_compat.h").read_bytes()
    assert header == compat_header(SHIMS, Version.parse("6.3"))
    assert sorted(stored_shims(SHIMS, lambda name: pytest.fail(f"{name} rendered again"))) == SHIMS
    assert len(list(cache.glob(f"{KIND}-*.json"))) == 1
