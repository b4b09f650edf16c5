"""The cache of per-file facts and results (hipconv.filecache): a cached run writes what an uncached one
writes and says the same, in one process or several; a file's bytes, not the cache, decide; old entries
are evicted."""

from __future__ import annotations

import itertools
import shutil
import sqlite3
from pathlib import Path

import pytest

from helpers import run_cli, tree
from hipconv import file_reads, gather, output
from hipconv.cache_format import seal
from hipconv.filecache import FILE_NAME, FileCache, key_of

TREE = Path(__file__).parent / "filecache_tree"  # a warp reduction, its helper header, its Makefile
DOC = Path(__file__).resolve().parents[1] / "docs" / "cache.md"
FIXTURES = Path(__file__).parent / "fixtures"


def _translate(src: Path, out: Path, *extra: str) -> tuple[dict[str, bytes], list[str]]:
    run = run_cli("translate", src, "-o", out, *extra)
    assert run.code == 0, run.stderr
    return tree(out), sorted(line for line in run.stderr.splitlines() if "[HC" in line)


def _entries(cache: Path) -> int:
    with sqlite3.connect(cache / FILE_NAME) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("HIPCONV_CACHE_DIR", str(folder))
    monkeypatch.delenv("HIPCONV_NO_CACHE", raising=False)
    return folder


def test_cached_and_uncached_runs_agree(tmp_path: Path, cache: Path) -> None:
    src = tmp_path / "cuda"
    shutil.copytree(TREE, src)
    expected = _translate(src, tmp_path / "plain", "--no-cache")
    assert not (cache / FILE_NAME).exists()  # --no-cache neither reads nor fills it
    assert any("FULL_MASK = 0xffffffff" in line and "common.cuh:5" in line for line in expected[1])  # the header's
    cold = _translate(src, tmp_path / "cold")
    entries = _entries(cache)
    assert entries >= 6  # facts of 2 sources, results of 2 sources and the Makefile
    assert _translate(src, tmp_path / "warm") == expected == cold
    assert _translate(src, tmp_path / "warm", "-j", "2") == expected  # a rerun into the same output
    assert _entries(cache) == entries  # nothing computed again


def test_a_rerun_reads_each_file_once(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The phases after the first look the cache up by the digest of the bytes that the first one read."""
    src = tmp_path / "cuda"
    shutil.copytree(TREE, src)
    first = _translate(src, tmp_path / "out")
    reads: list[str] = []

    def counting_open(path: str, mode: str) -> object:
        reads.append(Path(path).name)
        return open(path, mode)

    monkeypatch.setattr(file_reads, "open", counting_open, raising=False)
    assert _translate(src, tmp_path / "out") == first
    assert sorted(reads) == ["Makefile", "common.cuh", "reduce.cu"]
    reads.clear()
    (src / "reduce.cu").write_bytes((src / "reduce.cu").read_bytes() + b"\n")  # changed: its phases read it
    _translate(src, tmp_path / "out")
    assert reads.count("reduce.cu") > 1 and reads.count("common.cuh") == 1


def test_the_bytes_decide_not_the_cache(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "cuda"
    shutil.copytree(TREE, src)
    _translate(src, tmp_path / "first")
    header = src / "common.cuh"
    header.write_bytes(header.read_bytes().replace(b"#define FULL_MASK 0xffffffff", b"#define FULL_MASK 0x0000ffff"))
    changed = _translate(src, tmp_path / "second")
    # the header's new value reaches reduce.cu, whose own bytes did not change: the project's facts are in its key
    assert not any("FULL_MASK = 0xffffffff" in line for line in changed[1])
    assert changed == _translate(src, tmp_path / "plain", "--no-cache")
    monkeypatch.setenv("HIPCONV_NO_CACHE", "1")
    (cache / FILE_NAME).unlink()
    assert _translate(src, tmp_path / "env") == changed
    assert not (cache / FILE_NAME).exists()


def test_a_rerun_takes_the_project_from_the_cache(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The project pass of an unchanged run is one look-up; a header that the run does not name but its files
    include is part of that look-up's key: changed, the project is gathered again and what it declares
    (here, a CUDA-looking name: no HC001 where it is called) reaches the files that include it."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "app").mkdir()
    header = tmp_path / "inc" / "helpers.cuh"
    header.write_text("#pragma once\n__device__ float cudaBlendValue(float a, float b) { return 0.5f * (a + b); }\n")
    (tmp_path / "app" / "blend.cu").write_text(
        '#include "../inc/helpers.cuh"\n'
        "__global__ void blend(float *out, const float *a, const float *b, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) out[i] = cudaBlendValue(a[i], b[i]);\n"
        "}\n"
    )
    first = _translate(tmp_path / "app", tmp_path / "first")
    assert not any("cudaBlendValue" in line for line in first[1])

    def not_again(*args: object, **kwargs: object) -> object:
        raise AssertionError("the project was gathered again")

    with monkeypatch.context() as patched:
        patched.setattr(gather, "_merged", not_again)
        assert _translate(tmp_path / "app", tmp_path / "first") == first
    header.write_text(header.read_text().replace("cudaBlendValue", "blendValue"))
    changed = _translate(tmp_path / "app", tmp_path / "second")
    assert changed == _translate(tmp_path / "app", tmp_path / "plain", "--no-cache")
    assert any("HC001" in line and "cudaBlendValue" in line for line in changed[1])


def test_a_rerun_does_not_render_hipconv_compat_h_again(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The header of shims rendered for a run is kept: a rerun with the same shims and ROCm release writes
    it from the cache; another release renders its own, the one an uncached run writes."""
    src = FIXTURES / "bf16_conversions" / "cuda"
    first = _translate(src, tmp_path / "first", "--rocm-version", "6.3")
    assert first[0]["hipconv_compat.h"] == (FIXTURES / "bf16_conversions" / "hip-6.3" / "hipconv_compat.h").read_bytes()

    def not_again(*args: object) -> bytes:
        raise AssertionError("rendered again")

    with monkeypatch.context() as patched:
        patched.setattr(output, "compat_header", not_again)
        assert _translate(src, tmp_path / "again", "--rocm-version", "6.3") == first
    other = _translate(src, tmp_path / "other", "--rocm-version", "7.2")
    assert other == _translate(src, tmp_path / "plain", "--rocm-version", "7.2", "--no-cache")
    assert other[0]["hipconv_compat.h"] == (FIXTURES / "bf16_conversions" / "hip-7.2" / "hipconv_compat.h").read_bytes()


def test_changed_settings_are_not_served_from_the_cache(tmp_path: Path, cache: Path) -> None:
    """A rerun with other settings (another ROCm release, another launch syntax) translates anew, in one
    process or two, and writes what an uncached run with those settings writes; going back to the first
    settings is served from the cache."""
    src = tmp_path / "cuda"
    shutil.copytree(TREE, src)
    first = _translate(src, tmp_path / "first", "--rocm-version", "6.3")
    entries = _entries(cache)
    for n, settings in enumerate((["--rocm-version", "5.2"], ["--kernel-launch", "hip"])):
        plain = _translate(src, tmp_path / f"plain{n}", "--no-cache", *settings)
        assert _translate(src, tmp_path / f"cold{n}", *settings) == plain
        assert _translate(src, tmp_path / f"warm{n}", "-j", "2", *settings) == plain
        assert _entries(cache) > entries  # computed for these settings, and kept
        entries = _entries(cache)
    assert plain != first  # the settings change the output
    assert _translate(src, tmp_path / "again", "--rocm-version", "6.3") == first
    assert _entries(cache) == entries


def test_eviction_keeps_the_most_recently_used(tmp_path: Path) -> None:
    cache = FileCache(tmp_path / FILE_NAME)
    keys = [key_of(str(n)) for n in range(10)]
    for n, key in enumerate(keys):
        cache.put_many({key: b"x" * 1000})
        with cache._connection() as conn:  # type: ignore[union-attr]  # an older use for the earlier ones
            conn.execute("UPDATE entries SET used = ? WHERE key = ?", (1_000_000_000 + n * 1000, key))
    cache.get_many(keys[:1])  # used now: the most recent
    size = len(seal(keys[0], b"x" * 1000))
    cache.evict(max_bytes=6 * size, max_age_days=100_000)  # 10 entries: down to 4.5 of them, the oldest go
    assert set(cache.get_many(keys)) == {keys[0], *keys[7:]}
    cache.evict(max_age_days=1)  # unused for a day: gone, but for the entries used just now
    assert set(cache.get_many(keys)) == {keys[0], *keys[7:]}
    cache.evict(max_age_days=-1)
    assert cache.get_many(keys) == {}


def test_the_commands_of_docs_cache_md(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/cache.md's commands, run as written in a folder holding cuda/: each writes the same hip/; only
    the first fills the cache."""
    block = DOC.read_text().split("```sh", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].split() for line in block.strip().splitlines()]
    shutil.copytree(TREE, tmp_path / "cuda")
    monkeypatch.chdir(tmp_path)
    outputs = []
    for words in commands:
        env = list(itertools.takewhile(lambda w: "=" in w, words))  # VAR=value before the command
        for assignment in env:
            monkeypatch.setenv(*assignment.split("=", 1))
        args = words[len(env) :]
        assert args[0] == "hipconv"
        if (cache / FILE_NAME).exists():
            (cache / FILE_NAME).unlink()
        run = run_cli(*args[1:], "--force")
        assert run.code == 0, run.stderr
        outputs.append(tree(tmp_path / "hip"))
        assert (cache / FILE_NAME).exists() == (words is commands[0])
    assert len(outputs) == 3 and outputs[0] == outputs[1] == outputs[2]
