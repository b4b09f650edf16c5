"""Every fixture, translated for ROCm 6.3, against ROCm 6.3's real headers (libraries included), with
`../shared/rocm-6.3/bin/hipcc-syntax` (Debian's clang-19 in syntax-only mode for gfx90a).

A translation unit must compile, or each of its errors must fall on a line hipconv reported: in the
translated file itself, or at the place in it that clang's notes name (`in instantiation of ...
requested here`) when the error is inside a ROCm header. An error on a line hipconv said nothing
about is output that looks ported and is not.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES

from helpers import hipcc_syntax, hipcc_syntax_missing, run_cli

TARGET = "6.3"
CASES = sorted(p.parent for p in FIXTURES.glob("*/case.yaml"))
TRANSLATION_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".hip", ".c")
HEADERS = (".h", ".cuh", ".hpp", ".inl")
# clang's `file:line:col: error|note: ...` lines
LOCATION = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):\d+: (?P<kind>error|fatal error|note): ", re.MULTILINE)


pytestmark = [
    pytest.mark.hipcc,
    pytest.mark.skipif(hipcc_syntax_missing() is not None, reason=hipcc_syntax_missing() or ""),
]


def case_args(case: Path) -> list[str]:
    """The case's own options, less any --rocm-version: this test chooses the target."""
    args = [str(a) for a in (yaml.safe_load((case / "case.yaml").read_text()) or {}).get("args", [])]
    if "--rocm-version" in args:
        i = args.index("--rocm-version")
        del args[i : i + 2]
    return args


def unexplained_errors(output: str, reported: dict[Path, set[int]], tree: Path) -> list[str]:
    """clang's errors that hipconv did not report. An error (with the notes after it) is explained when
    it or one of its notes points at a reported line of a translated file, or when it follows from one:
    a name it quotes stands on a reported line (`use of undeclared identifier 'perf'` where `perf` was
    declared with an unported type), or it sits where an explained error does."""
    found = list(LOCATION.finditer(output))
    texts = {path: path.read_text(errors="replace").splitlines() for path in reported}
    reported_text = {
        path: " ".join(texts[path][n - 1] for n in lines if n <= len(texts[path])) for path, lines in reported.items()
    }
    explained_at: set[str] = set()
    recovered: set[str] = set()
    problems = []
    for n, match in enumerate(found):
        if match["kind"] == "note":
            continue
        group = [match]
        for following in found[n + 1 :]:
            if following["kind"] != "note":
                break
            group.append(following)
        line_text = output[match.start() : output.find("\n", match.start())]
        where = line_text[: line_text.find(f": {match['kind']}:")]
        ours = [(p, int(m["line"])) for m in group if (p := Path(m["file"]).resolve()).is_relative_to(tree)]
        quoted = set(re.findall(r"'([A-Za-z_]\w*)'", line_text.split(": error: ", 1)[-1]))
        explained = (
            any(line in reported.get(path, set()) for path, line in ours)
            or any(
                re.search(rf"\b{re.escape(name)}\b", reported_text.get(path, "")) for path, _ in ours for name in quoted
            )
            or where in explained_at
            or not quoted.isdisjoint(recovered)
        )
        if explained:
            explained_at.add(where)
            recovered |= quoted  # what clang recovered with (`did you mean 'X'`) is part of the same failure
        else:
            problems.append(line_text)
    return problems


def output_lines(source: Path, output: Path, lines: set[int]) -> set[int]:
    """The lines of the translated file that the given lines of its source became (a rewrite may add
    lines: an include, a directive): where a block of lines changed, each of its lines stands for the
    whole block it became."""
    before = source.read_bytes().splitlines()
    after = output.read_bytes().splitlines()
    mapped: set[int] = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        hit = [n for n in range(i1 + 1, i2 + 1) if n in lines]
        if not hit:
            continue
        if tag == "equal":
            mapped |= {j1 + (n - i1) for n in hit}
        else:
            mapped |= set(range(j1 + 1, max(j2, j1 + 1) + 1))
    return mapped


# Known gaps, each a defect with an open issue: strict, so that a fix makes the test say so.
KNOWN_GAPS: dict[str, str] = {}


def _case_param(case: Path) -> object:
    gap = KNOWN_GAPS.get(case.name)
    marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_case_param(c) for c in CASES])
def test_translation_compiles_with_rocm63_or_its_errors_are_reported(case: Path, tmp_path: Path) -> None:
    out, report = tmp_path / "hip", tmp_path / "report.json"
    done = run_cli(
        "translate", case / "cuda", "-o", out, "--rocm-version", TARGET, "--report", report, *case_args(case)
    )
    assert done.code in (0, 1), done.stderr
    tree = out.resolve()
    reported: dict[Path, set[int]] = {}
    source = (case / "cuda").resolve()
    for entry in json.loads(report.read_text())["files"]:
        rel = Path(entry["path"]).resolve().relative_to(source)
        lines = {d["line"] for d in entry["diagnostics"]}  # a note counts: HC103 says a mask must be 64-bit
        if lines:
            reported[tree / rel] = output_lines(source / rel, tree / rel, lines)
    include_dirs = sorted({p.parent for p in out.rglob("*") if p.suffix in HEADERS} | {out})
    units = sorted(p for p in out.rglob("*") if p.suffix in TRANSLATION_UNITS)
    problems = []
    for unit in units:
        run = hipcc_syntax(unit, include_dirs)
        if run.returncode != 0:
            unexplained = unexplained_errors(run.stdout + run.stderr, reported, tree)
            assert "error" in run.stdout + run.stderr, f"{' '.join(run.args)} failed without an error:\n{run.stderr}"
            problems += [f"{unit.relative_to(out)}: {line}" for line in unexplained]
    assert not problems, "errors on lines hipconv did not report:\n" + "\n".join(problems[:20])
