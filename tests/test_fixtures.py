"""Golden fixtures: each tests/fixtures/<case>/cuda tree translates to <case>/hip exactly.

`pytest --update-golden` rewrites the expected trees; review the diff.
Inline annotations in the CUDA sources (comments, so they survive translation):
`// expect: HC001 [rule-id]` - the next line must produce that diagnostic;
`// expect-ok` - the next line must produce no diagnostic.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from helpers import check_golden, comment_annotations, run_cli, tree

from hipconv.translate.lexer import TokenKind, lex
from hipconv.resources import data_file, hip_releases
from hipconv.rules import load_ruleset

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p.parent for p in FIXTURES.glob("*/case.yaml"))
TRANSLATION_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".hip")


def case_config(case: Path) -> dict:
    return yaml.safe_load((case / "case.yaml").read_text()) or {}


def translate_case(case: Path, out: Path, source: Path | None = None) -> tuple[int, dict]:
    report = out.parent / f"{out.name}.report.json"
    result = run_cli("translate", source or case / "cuda", "-o", out, "--report", report, "--force",
                     *case_config(case).get("args", []))
    assert result.code in (0, 1), result.stderr
    return result.code, json.loads(report.read_text())


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden(case: Path, tmp_path: Path, update_golden: bool) -> None:
    out = tmp_path / "hip"
    translate_case(case, out)
    check_golden(out, case / "hip", update=update_golden)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_idempotent(case: Path, tmp_path: Path) -> None:
    """Translating the translation again changes nothing."""
    once, twice = tmp_path / "once", tmp_path / "twice"
    translate_case(case, once)
    translate_case(case, twice, source=once)
    assert tree(twice) == tree(once)


ANNOTATED = [c for c in CASES if any(comment_annotations(p.read_bytes()) for p in (c / "cuda").rglob("*") if p.is_file())]


@pytest.mark.parametrize("case", ANNOTATED, ids=[c.name for c in ANNOTATED])
def test_annotations(case: Path, tmp_path: Path) -> None:
    _, report = translate_case(case, tmp_path / "hip")
    diagnostics = {}
    for entry in report["files"]:
        rel = Path(entry["path"]).relative_to(case / "cuda").as_posix()
        diagnostics[rel] = entry["diagnostics"]
    checked = 0
    for source in sorted((case / "cuda").rglob("*")):
        if not source.is_file():
            continue
        rel = source.relative_to(case / "cuda").as_posix()
        for line, annotation in comment_annotations(source.read_bytes()):
            on_line = [d for d in diagnostics.get(rel, []) if d["line"] == line]
            if annotation.startswith("expect-ok"):
                assert on_line == [], f"{rel}:{line}: expected no diagnostic, got {on_line}"
            elif annotation.startswith("expect:"):
                code, *rule = annotation.split(":", 1)[1].split()
                hits = [d for d in on_line if d["code"] == code and (not rule or d["rule"] == rule[0])]
                assert hits, f"{rel}:{line}: missed {code} {' '.join(rule)}; got {on_line}"
            checked += 1
    assert checked


COMPILE_CASES = [c for c in CASES if case_config(c).get("compile")]


@pytest.mark.hipcc
@pytest.mark.parametrize("case", COMPILE_CASES, ids=[c.name for c in COMPILE_CASES])
def test_compiles_with_hipcc(case: Path, tmp_path: Path, hip_env: dict[str, str]) -> None:
    """The golden HIP output builds with a real hipcc for an AMD target."""
    hip_dir = case / "hip"
    units = sorted(p for p in hip_dir.rglob("*") if p.suffix in TRANSLATION_UNITS)
    assert units, "a compile case needs at least one translation unit"
    include_dirs = sorted({str(p.parent) for p in hip_dir.rglob("*") if p.suffix in (".h", ".cuh", ".hpp")})
    for unit in units:
        language = ["-x", "hip"] if unit.suffix in (".cu", ".hip") else []
        cmd = ["hipcc", "--offload-arch=gfx90a", *language, *[f"-I{d}" for d in include_dirs],
               "-c", str(unit), "-o", str(tmp_path / (unit.stem + ".o"))]
        done = subprocess.run(cmd, env=hip_env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stderr[-4000:]}"
        assert (tmp_path / (unit.stem + ".o")).stat().st_size > 0


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.hipcc
def test_bundled_example_translates_and_compiles(tmp_path: Path, hip_env: dict[str, str]) -> None:
    """The README's first command: `hipconv translate examples/ -o /tmp/hip`, then hipcc."""
    out = tmp_path / "hip"
    result = run_cli("translate", EXAMPLES, "-o", out, "--stats")
    assert result.code == 0, result.stderr
    assert "files converted" in result.stderr
    unit = out / "saxpy" / "saxpy.cu"
    assert "hipMalloc" in unit.read_text()
    cmd = ["hipcc", "--offload-arch=gfx90a", "-x", "hip", "-c", str(unit), "-o", str(tmp_path / "saxpy.o")]
    done = subprocess.run(cmd, env=hip_env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_emitted_hip_names_exist_in_the_target_release(case: Path) -> None:
    """Every hip*/HIP* identifier the translation introduced is declared by the targeted ROCm release."""
    args = case_config(case).get("args", [])
    release = args[args.index("--rocm-version") + 1] if "--rocm-version" in args else hip_releases()[-1]
    known = set(data_file(f"hip-{release}.names").read_text().split())
    known |= {r.requires_define for r in load_ruleset().rules if r.requires_define}  # opt-in macros hipconv defines
    written_by_user = set()
    for source in (case / "cuda").rglob("*"):
        if source.is_file():
            written_by_user |= set(re.findall(r"\b(?:hip|HIP)\w*", source.read_text(errors="replace")))
    unknown = set()
    for output in (case / "hip").rglob("*"):
        if output.is_file():
            # header paths are checked by the include rules' own test; blank the include lines here
            data = re.sub(rb"(?m)^[ \t]*#[ \t]*include[^\n]*", lambda m: b" " * len(m.group()), output.read_bytes())
            tokens = lex(data)
            for i in range(len(tokens)):
                text = tokens.text(i)
                if tokens.kinds[i] == TokenKind.IDENTIFIER and re.match(r"(?:hip|HIP)\w*$", text) \
                        and text not in written_by_user and text not in known:
                    unknown.add(f"{output.relative_to(case)}: {text}")
    assert sorted(unknown) == []
