"""The caches' integrity (issue #40): an edit to anything a rule's template renders from is never served
stale; a damaged or altered cache entry is never served, and never unpickled; a damaged database is said
once and started again; what the caches store reads back only as plain values and hipconv's records."""

from __future__ import annotations

import collections
import dataclasses
import json
import pickle
import sqlite3
from pathlib import Path

import pytest

from helpers import run_cli
from hipconv import cache_format
from hipconv.cache_format import Damaged, seal, unseal
from hipconv.diagnostics import Diagnostic, Severity
from hipconv.filecache import FILE_NAME
from hipconv.results import FileResult, FileStatus, Replacement
from hipconv.rules import cache as rules_cache
from hipconv.rules import load_ruleset, stored
from hipconv.settings import Version
from hipconv.translate.project import FileFacts

SOURCE = b"""#include <cuda_runtime.h>

// scales a vector on the device with the library's call
void scale(float *x, int n, cudaStream_t stream) {
    dnnScale(x, n);
    cudaStreamSynchronize(stream);
}
"""
RULES = """\
defaults: {library: fakednn, kind: function}
rules:
  - cuda: dnnScale
    hip: fakeScale
    params: [x, n]
    template: tmpl/scale.tmpl
"""
TEMPLATE = "{% include 'part.inc' %}({{ args.x }}, {{ args.n }})"
WARNING = "warning: the translation cache"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """src/scale.cu, rules/ (a rule whose template is no *.j2 and includes tmpl/part.inc), and a cache."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "scale.cu").write_bytes(SOURCE)
    (tmp_path / "rules" / "tmpl").mkdir(parents=True)
    (tmp_path / "rules" / "fake.yaml").write_text(RULES)
    (tmp_path / "rules" / "tmpl" / "scale.tmpl").write_text(TEMPLATE)
    (tmp_path / "rules" / "tmpl" / "part.inc").write_text("{{ hip }}")
    monkeypatch.setenv("HIPCONV_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("HIPCONV_NO_CACHE", raising=False)
    return tmp_path


def _translate(project: Path) -> tuple[bytes, str]:
    run = run_cli("translate", project / "src", "-o", project / "out", "--rules-dir", project / "rules", "--force")
    assert run.code == 0, run.stderr
    return (project / "out" / "scale.cu").read_bytes(), run.stderr


# ---------------------------------------------------------------- item 5: stale output


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        pytest.param("tmpl/scale.tmpl", "{{ hip }}_v2({{ args.x }}, {{ args.n }})", b"fakeScale_v2(x, n)", id="not-j2"),
        pytest.param("tmpl/part.inc", "{{ hip }}Async", b"fakeScaleAsync(x, n)", id="included"),
    ],
)
def test_an_edit_to_what_a_template_reads_is_never_served_stale(
    project: Path, path: str, text: str, expected: bytes
) -> None:
    first, _ = _translate(project)
    assert b"fakeScale(x, n)" in first
    (project / "rules" / path).write_text(text)
    assert expected in _translate(project)[0]


def test_a_run_hashes_the_rule_inputs_once(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run whose rule set is cached hashes the rule files once: the table it loads later in the run is read
    by the digest found at its start."""
    _translate(project)  # the rule set into the cache
    digests: list[str | None] = []
    hashed = rules_cache.inputs_digest
    monkeypatch.setattr(rules_cache, "inputs_digest", lambda *args: digests.append(hashed(*args)) or digests[-1])
    monkeypatch.setattr("hipconv.rules.inputs_digest", rules_cache.inputs_digest)
    (project / "src" / "scale.cu").write_bytes(SOURCE + b"// a new file: translated, not found in the cache\n")
    assert b"fakeScale(x, n)" in _translate(project)[0]
    assert len(digests) == 1 and digests[0] is not None


def test_another_jinja2_or_libclang_is_another_key(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [project / "rules" / "fake.yaml"]
    before = rules_cache.inputs_digest(files, [project / "rules"])
    monkeypatch.setattr(rules_cache, "library_versions", lambda: "jinja2: another release")
    assert rules_cache.inputs_digest(files, [project / "rules"]) not in (before, None)
    assert "jinja2" in cache_format.library_versions() and "clang" in cache_format.library_versions()


def test_a_template_outside_its_rule_folder_is_refused(project: Path) -> None:
    (project / "elsewhere.j2").write_text("{{ hip }}()")
    (project / "rules" / "fake.yaml").write_text(RULES.replace("tmpl/scale.tmpl", "../elsewhere.j2"))
    run = run_cli("translate", project / "src", "-o", project / "out", "--rules-dir", project / "rules")
    assert run.code == 2 and "'../elsewhere.j2' is outside" in run.stderr
    assert not (project / "out").exists()


# ---------------------------------------------------------------- item 6 and the low one: damage


def _rows(project: Path) -> list[tuple[bytes, bytes]]:
    with sqlite3.connect(project / "cache" / FILE_NAME) as conn:
        return conn.execute("SELECT key, value FROM entries ORDER BY key").fetchall()


def _set_values(project: Path, values: dict[bytes, bytes]) -> None:
    with sqlite3.connect(project / "cache" / FILE_NAME) as conn:
        conn.executemany("UPDATE entries SET value = ? WHERE key = ?", [(v, k) for k, v in values.items()])


@pytest.mark.parametrize("where", [0, 19, 20, 0.5, -1], ids=lambda w: f"at-{w}")  # digest, text
def test_a_flipped_byte_in_an_entry_is_never_served(project: Path, where: float) -> None:
    expected, _ = _translate(project)
    rows = _rows(project)
    flipped = {}
    for key, value in rows:
        at = int(len(value) * where) if isinstance(where, float) else where
        data = bytearray(value)
        data[at] ^= 0x04
        flipped[key] = bytes(data)
    _set_values(project, flipped)
    output, stderr = _translate(project)
    assert output == expected
    assert stderr.count(WARNING) == 1 and "did not match its checksum" in stderr
    assert len(_rows(project)) == len(rows)  # started again and filled again
    assert _translate(project) == (expected, stderr.split(WARNING)[0])  # said once


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9])
def test_a_truncated_or_overwritten_database_is_said_and_started_again(project: Path, cut: float) -> None:
    expected, quiet = _translate(project)
    database = project / "cache" / FILE_NAME
    with sqlite3.connect(database) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = database.read_bytes()
    database.write_bytes(data[: int(len(data) * cut)] if cut < 0.5 else b"\xff" * 100 + data[100:])
    output, stderr = _translate(project)
    assert output == expected and stderr.count(WARNING) == 1, stderr
    assert _translate(project) == (expected, quiet)  # rebuilt: used again, and nothing more is said
    assert len(_rows(project)) == 1  # the source's translation


class _Planted:
    """Unpickling it writes a file: what an attacker who can write the cache folder would plant."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (exec, (f"open({str(self.path)!r}, 'w').write('ran')",))


def test_a_planted_pickle_is_never_unpickled(project: Path) -> None:
    expected, _ = _translate(project)
    marker = project / "pwned"
    payload = pickle.dumps(_Planted(marker))
    pickle.loads(payload)  # what the payload does when unpickled
    assert marker.read_text() == "ran"
    marker.unlink()
    _set_values(project, {key: payload for key, _ in _rows(project)})
    for entry in (project / "cache").glob("rules-*"):
        entry.write_bytes(payload)
    output, stderr = _translate(project)
    assert output == expected and not marker.exists()
    assert stderr.count(WARNING) == 1


# ---------------------------------------------------------------- the stored format


def test_hipconv_records_read_back_as_they_were() -> None:
    diagnostic = Diagnostic("k.cu", 3, 5, "HC102", "deprecated", "cudart.cudaThreadExit", "cudaThreadExit")
    value = {
        "result": FileResult(
            "k.cu",
            FileStatus.CONVERTED,
            output=b"\xff\xfe not UTF-8",
            diagnostics=(diagnostic, dataclasses.replace(diagnostic, code="HC002")),
            replacements=(Replacement(3, 5, "cudaThreadExit", "hipDeviceReset", "r", "cudart"),),
            shims=frozenset({"a", "b"}),
        ),
        (1, "x"): [Version.parse("6.3"), Path("/tmp/t.j2"), {1.5, None}, float("inf"), Severity.WARNING],
        "mixed": (Version.parse("5.2"), Version.parse("6.3"), (1, 2), Path("p"), Version.parse("7.0")),
        # a file's #include lines and #defines: tuples of tuples of scalars, written as arrays of arrays
        "includes": ((False, "cuda_runtime.h"), (True, "kernels.cuh"), (), (None, 1.5, 7)),
        "one": ((True, "a.h"),),
        "not-scalars": ((Path("a.h"), 1), (True, "b.h")),
        "empty": (),
    }
    back = unseal(b"key", seal(b"key", value))
    assert back == value
    assert type(back["result"].diagnostics) is tuple and type(back["mixed"][2]) is tuple
    assert all(type(row) is tuple for key in ("includes", "one", "not-scalars") for row in back[key])
    assert b'{"T":[[false,"cuda_runtime.h"],[true,"kernels.cuh"],[],[null,1.5,7]]}' in seal(b"key", value)
    # a tuple of records of one class holds the class's name once
    assert seal(b"key", value["result"]).count(b"hipconv.diagnostics:Diagnostic") == 1


def test_a_record_s_tuples_sets_and_enums_are_stored_by_their_declared_type() -> None:
    """A file's result and facts are mostly empty tuples and sets: stored as JSON arrays (an enum member as its
    value), not as tagged objects that json hands to Python one by one, and read back as their declared type."""
    replaced = (Replacement(3, 5, "a", "b", "r", "l"), Replacement(4, 1, "c", "d", "r", "l"))
    result = FileResult("k.cu", FileStatus.CONVERTED, replacements=replaced)
    facts = FileFacts("/t/k.cu", names=frozenset({"cudaThing"}), includes=((True, "k.cuh"),), macros=(("N", "4"),))
    for value in (result, facts):
        sealed = seal(b"key", value)
        back = unseal(b"key", sealed)
        assert back == value and type(back) is type(value)
        assert all(
            type(getattr(back, f)) is type(getattr(value, f))
            for f in ("replacements", "shims", "names")
            if hasattr(value, f)
        )
        assert b'{"m":' in sealed and b'{"f":' not in sealed and b'{"e":' not in sealed
    assert b'"k.cu","converted",null,[],{"R":' in seal(b"key", result)


def test_a_field_not_of_its_declared_type_reads_back_as_it_was() -> None:
    """A record whose field holds another type than declared (a list for a tuple) is stored with every field
    tagged, so that it reads back the same, not made the declared type."""
    result = FileResult("k.cu", FileStatus.CONVERTED, diagnostics=[], shims={"s"})  # type: ignore[arg-type]
    back = unseal(b"key", seal(b"key", result))
    assert back == result and type(back.diagnostics) is list and type(back.shims) is set


@pytest.mark.parametrize(
    "text",
    [
        pytest.param({"r": ["os:system", "touch x"]}, id="not-hipconv"),
        pytest.param({"r": ["hipconv.cli:main"]}, id="not-a-record"),
        pytest.param({"e": ["subprocess:Popen", "x"]}, id="not-an-enum"),
        pytest.param({"r": ["hipconv.results:FileResult.__init__.__globals__"]}, id="dunder"),
        pytest.param({"z": 1}, id="unknown-tag"),
        pytest.param({"R": ["hipconv.settings:Version", 6]}, id="a-row-that-is-no-list"),
        pytest.param({"R": ["hipconv.settings:Version", [6, 3, 0], [6]]}, id="a-row-of-another-size"),
        pytest.param({"T": [[True, "a.h"], "b.h"]}, id="a-scalar-row-that-is-no-list"),
        pytest.param({"T": 6}, id="scalar-rows-that-are-no-list"),
        pytest.param({"m": ["hipconv.results:Replacement", 1, 2, "a", "b", "c", "d"]}, id="typed-without-typed-fields"),
        pytest.param({"m": ["hipconv.results:FileResult", "k.cu", "converted"]}, id="a-typed-record-cut-short"),
        pytest.param(
            {"m": ["hipconv.results:FileResult", "k.cu", "done", None, [], [], "", "", 0, [], []]}, id="no-such-member"
        ),
        pytest.param(
            {"m": ["hipconv.results:FileResult", "k.cu", "converted", None, [], [], "", "", 0, "ab", []]},
            id="a-set-stored-as-text",
        ),
        pytest.param(
            {"m": ["hipconv.results:FileResult", "k.cu", "converted", None, 7, [], "", "", 0, [], []]},
            id="a-tuple-stored-as-a-number",
        ),
        pytest.param(
            {"m": ["hipconv.results:FileResult", "k.cu", "converted", None, [], [], "", "", 0, [[1]], []]},
            id="a-set-of-lists",
        ),
    ],
)
def test_a_value_hipconv_did_not_write_does_not_read(text: object) -> None:
    data = json.dumps(text).encode()
    with pytest.raises(Damaged, match="not a value hipconv wrote"):
        unseal(b"key", cache_format._checksum(b"key", data) + data)


def test_a_file_s_text_is_stored_after_the_json_as_it_is() -> None:
    """Long byte strings (a file's text) follow the JSON text unescaped, each found by its offset and length."""
    text = b"\n#include <cuda_runtime.h>\n// \xff\xfe latin-1, not UTF-8\r\n" + b"x" * 200
    value = (FileResult("k.cu", FileStatus.CONVERTED, output=text), [text[:150], b"short", text])
    sealed = seal(b"key", value)
    assert unseal(b"key", sealed) == value
    assert sealed.endswith(b"\n" + text + text[:150] + text)  # in the order the value holds them
    assert b"short" in sealed.split(b"\n", 1)[0]  # a short one stays in the JSON text


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(b'{"B":[0,4]}', id="no-bytes-after-the-text"),
        pytest.param(b'{"B":[2,4]}\nabcd', id="past-the-end"),
        pytest.param(b'{"B":[-1,2]}\nabcd', id="before-the-start"),
        pytest.param(b'{"B":[3,-2]}\nabcd', id="a-negative-length"),
        pytest.param(b'{"B":[0]}\nabcd', id="no-length"),
        pytest.param(b'{"B":["0",2]}\nabcd', id="not-a-number"),
        pytest.param(b'{"b":7}', id="inline-bytes-that-are-no-text"),
    ],
)
def test_stored_bytes_hipconv_did_not_write_do_not_read(text: bytes) -> None:
    with pytest.raises(Damaged, match="not a value hipconv wrote"):
        unseal(b"key", cache_format._checksum(b"key", text) + text)


def test_a_value_sealed_under_another_key_does_not_read() -> None:
    with pytest.raises(Damaged, match="checksum"):
        unseal(b"other", seal(b"key", (1, 2)))


def test_what_is_not_a_hipconv_record_is_not_stored() -> None:
    with pytest.raises(TypeError, match="not one of hipconv's records"):
        point = collections.namedtuple("point", "x y")
        seal(b"key", point(1, 2))
    with pytest.raises(TypeError, match="is not stored"):
        seal(b"key", object())


def test_the_bundled_rule_set_reads_back_as_it_was() -> None:
    """The rule cache's own layout (hipconv.rules.stored): every field of every rule, through JSON text."""
    ruleset = load_ruleset()
    text = json.dumps(stored.to_data(ruleset))
    assert stored.from_data(json.loads(text)) == dataclasses.replace(ruleset, digest="")  # the key, not stored


def _first_rule(field: str, value: object) -> object:
    """A damage: the first rule's `field` set to `value`, in a column of either layout."""

    def damage(data: dict) -> None:
        column = data["columns"][field]
        if isinstance(column, list):
            column[0] = value
        else:
            column["at"] = [pair for pair in column["at"] if pair[0] != 0] + [[0, value]]

    return damage


def _shared(data: dict) -> dict:
    """A column stored as one value most rules share, and the others by index."""
    return next(column for column in data["columns"].values() if isinstance(column, dict))


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data.update(format=0), id="another-format"),
        pytest.param(lambda data: data["fields"].pop(), id="another-rule-layout"),
        pytest.param(lambda data: data["columns"]["id"].pop(), id="a-short-column"),
        pytest.param(lambda data: data["columns"].pop("cuda"), id="a-missing-column"),
        pytest.param(lambda data: data.update(count="14000"), id="not-a-count"),
        pytest.param(lambda data: _shared(data)["at"].append([-1, None]), id="a-value-before-the-rules"),
        pytest.param(lambda data: _shared(data)["at"].append([10**6, None]), id="a-value-after-the-rules"),
        pytest.param(lambda data: _shared(data)["at"].append([0]), id="a-value-without-its-rule"),
        pytest.param(lambda data: _shared(data).pop("fill"), id="no-shared-value"),
        pytest.param(_first_rule("kind", "spell"), id="no-kind"),
        pytest.param(_first_rule("rocm", 10**6), id="no-range"),
        pytest.param(_first_rule("drops", "x"), id="not-a-list"),
        pytest.param(lambda data: data["ranges"][0].__setitem__(0, ["6"]), id="not-a-version"),
        pytest.param(lambda data: data.update(cuda_api=[]), id="not-an-inventory"),
        pytest.param(lambda data: data.update(columns=[]), id="not-columns"),
    ],
)
def test_a_rule_set_hipconv_did_not_write_does_not_read(damage: object) -> None:
    data = json.loads(json.dumps(stored.to_data(load_ruleset())))
    damage(data)  # type: ignore[operator]
    with pytest.raises(Damaged):
        stored.from_data(data)
