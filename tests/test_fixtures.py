"""Golden fixtures: each tests/fixtures/<case>/cuda tree translates to its golden HIP tree exactly.

`case.yaml` keys: `description`; `args` (extra `hipconv translate` options); `targets` (ROCm releases
to translate for, e.g. ["5.2", "6.3"]: each run adds `--rocm-version T` and has its golden tree in
`hip-T/`; without `targets` there is one run, with `args` alone, and its golden tree is `hip/`);
`compile: true` (the golden output builds with hipcc), `compile_targets` (the targets that are
compiled, when not all of them: Debian's hipcc is HIP 5.2) and `compile_units` (the translation units
that are, when not all of them: Debian's HIP 5.2 has no hipBLAS, hipFFT or hipSOLVER headers).

Each case (and target) is translated once per test session; the golden, idempotence, annotation and
emitted-name tests share that translation. `pytest --update-golden` rewrites the golden trees;
review the diff.

Inline annotations in the CUDA sources (comments, so they survive translation):
`// expect: HC001 [rule-id]` - the next line must produce that diagnostic (with that rule id, if given);
`// expect-ok` - the next line must produce no diagnostic;
`// todo-expect: HC001 [rule-id]` - the next line should produce that diagnostic but does not yet: it
is an xfail(strict) test, so one that starts to hold fails as XPASS and is turned into an `expect:`.
A target list makes an annotation apply only to those targets: `// expect[6.3]: HC103 device.shfl-xor-sync`,
`// expect-ok[5.2,6.3]`; without one it applies to every target. Annotations alone on their lines stack:
all of them apply to the next line that is not one. An unknown diagnostic code (not in
hipconv.diagnostics.CODES), an unknown rule id or a target the case is not translated for fails the test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
import yaml

from helpers import (
    Annotation,
    annotation_problems,
    check_golden,
    debian_hipcc,
    hip_names,
    parse_annotation,
    ruleset,
    run_cli,
    source_annotations,
    tree,
    unmet,
)
from hipconv.resources import hip_releases, releases_between, rocm_range
from hipconv.translate.lexer import TokenKind, lex
from hipconv.translate.source import SourceFile

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p.parent for p in FIXTURES.glob("*/case.yaml"))
TRANSLATION_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".hip")
CASE_KEYS = {"description", "args", "targets", "compile", "compile_targets", "compile_units"}


@cache
def case_config(case: Path) -> dict:
    return yaml.safe_load((case / "case.yaml").read_text()) or {}


@dataclass(frozen=True)
class Target:
    """One translation of a fixture: for one of its `targets`, or (rocm None) with its `args` alone."""

    case: Path
    rocm: str | None = None

    @property
    def id(self) -> str:
        return f"{self.case.name}@{self.rocm}" if self.rocm else self.case.name

    @property
    def golden(self) -> Path:
        return self.case / (f"hip-{self.rocm}" if self.rocm else "hip")

    @property
    def args(self) -> list[str]:
        args = [str(a) for a in case_config(self.case).get("args", [])]
        return [*args, "--rocm-version", self.rocm] if self.rocm else args

    @property
    def release(self) -> str:
        """The ROCm release the translation targets."""
        args = self.args
        return args[args.index("--rocm-version") + 1] if "--rocm-version" in args else hip_releases()[-1]

    @property
    def compiles(self) -> bool:
        config = case_config(self.case)
        chosen = config.get("compile_targets")
        return bool(config.get("compile")) and (self.rocm is None or chosen is None or self.rocm in chosen)


def case_targets(case: Path) -> list[Target]:
    return [Target(case, str(t)) for t in case_config(case).get("targets", [])] or [Target(case)]


TARGETS = [t for case in CASES for t in case_targets(case)]


@dataclass(frozen=True)
class Translation:
    out: Path  # the translated tree
    code: int
    report: dict  # the --report JSON


def translate(target: Target, source: Path, out: Path) -> Translation:
    report = out.parent / f"{out.name}.report.json"
    result = run_cli("translate", source, "-o", out, "--report", report, "--force", *target.args)
    assert result.code in (0, 1), result.stderr
    return Translation(out, result.code, json.loads(report.read_text()))


@pytest.fixture(scope="session")
def translated(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Target], Translation]:
    """Target -> its translation, made on first use and shared by every test of the session. Tests only read it."""
    root = tmp_path_factory.mktemp("fixtures")
    done: dict[Target, Translation] = {}

    def get(target: Target) -> Translation:
        if target not in done:
            done[target] = translate(target, target.case / "cuda", root / target.id / "hip")
        return done[target]

    return get


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_layout(case: Path) -> None:
    """case.yaml has only known keys; golden trees are hip/ or, with targets, exactly one hip-T/ per target."""
    config = case_config(case)
    assert set(config) <= CASE_KEYS, f"unknown case.yaml keys: {sorted(set(config) - CASE_KEYS)}"
    targets = [str(t) for t in config.get("targets", [])]
    assert set(targets) <= set(hip_releases()), f"targets {targets}: bundled releases are {hip_releases()}"
    assert not targets or "--rocm-version" not in config.get("args", []), "targets and --rocm-version in args"
    assert set(config.get("compile_targets", [])) <= set(targets), "compile_targets must be among targets"
    goldens = sorted(p.name for p in case.iterdir() if p.is_dir() and p.name != "cuda")
    assert goldens == sorted(t.golden.name for t in case_targets(case))


@pytest.mark.parametrize("target", TARGETS, ids=[t.id for t in TARGETS])
def test_golden(target: Target, translated: Callable[[Target], Translation], update_golden: bool) -> None:
    check_golden(translated(target).out, target.golden, update=update_golden)


@pytest.mark.parametrize("target", TARGETS, ids=[t.id for t in TARGETS])
def test_idempotent(target: Target, translated: Callable[[Target], Translation], tmp_path: Path) -> None:
    """Translating the translation again changes nothing."""
    once = translated(target).out
    twice = translate(target, once, tmp_path / "twice").out
    assert tree(twice) == tree(once)


def case_annotations(case: Path) -> list[Annotation]:
    return source_annotations(case / "cuda")


def diagnostics_by_path(translation: Translation, case: Path) -> dict[str, list[dict]]:
    return {
        Path(entry["path"]).relative_to(case / "cuda").as_posix(): entry["diagnostics"]
        for entry in translation.report["files"]
    }


ANNOTATED = [t for t in TARGETS if case_annotations(t.case)]


@pytest.mark.parametrize("target", ANNOTATED, ids=[t.id for t in ANNOTATED])
def test_annotations(target: Target, translated: Callable[[Target], Translation]) -> None:
    annotations = case_annotations(target.case)
    problems = annotation_problems(annotations, [t.rocm for t in case_targets(target.case)])
    if problems:
        pytest.fail("bad annotations:\n" + "\n".join(problems), pytrace=False)
    mine = [a for a in annotations if a.applies_to(target.rocm)]
    assert mine, "no annotation applies to this target"
    diagnostics = diagnostics_by_path(translated(target), target.case)
    missed = [m for a in mine if a.kind != "todo-expect" and (m := unmet(a, diagnostics))]
    if missed:
        pytest.fail("annotations that do not hold:\n" + "\n".join(missed), pytrace=False)


TODO = [(t, a) for t in ANNOTATED for a in case_annotations(t.case) if a.kind == "todo-expect" and a.applies_to(t.rocm)]


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="todo-expect: hipconv does not report this yet")
@pytest.mark.parametrize("target, annotation", TODO, ids=[f"{t.id}:{a.path}:{a.line}" for t, a in TODO])
def test_todo_annotation(target: Target, annotation: Annotation, translated: Callable[[Target], Translation]) -> None:
    """A todo-expect that holds now XPASSes, which fails the run: make it an `expect:`."""
    assert unmet(annotation, diagnostics_by_path(translated(target), target.case)) is None


def test_annotation_syntax() -> None:
    """The annotation parser and checker themselves (no fixture has to use every form)."""
    report = {"k.cu": [{"line": 3, "code": "HC101", "rule": "device.shfl-down-sync"}]}
    ok = parse_annotation("k.cu", 3, "expect[6.3]: HC101 device.shfl-down-sync")
    assert (ok.kind, ok.targets, ok.code, ok.rule) == ("expect", ("6.3",), "HC101", "device.shfl-down-sync")
    assert ok.applies_to("6.3") and not ok.applies_to("5.2") and unmet(ok, report) is None
    assert parse_annotation("k.cu", 3, "expect: HC101").applies_to(None)
    assert "missed HC102" in unmet(parse_annotation("k.cu", 3, "todo-expect: HC102"), report)
    assert "expected no diagnostic" in unmet(parse_annotation("k.cu", 3, "expect-ok[5.2, 6.3]"), report)
    assert unmet(parse_annotation("k.cu", 4, "expect-ok"), report) is None
    bad = [
        parse_annotation("k.cu", 1, text)
        for text in (
            "expect HC101",
            "expect:",
            "expect: HC101 a b",
            "expect-ok: HC101",
            "expect[]: HC101",
            "expect: HC999",
            "expect: HC101 device.no-such-rule",
            "expect[7.0]: HC101",
        )
    ]
    problems = annotation_problems(bad, ["5.2", "6.3"])
    assert len(problems) == len(bad), problems
    assert "unknown diagnostic code 'HC999'" in problems[5] and "unknown rule id 'device.no-such-rule'" in problems[6]
    synthetic = [
        "launch.hipLaunchKernelGGL",
        "insert.top",
        "device.shfl-down-sync.mask",
        "cmake.language",
        "make.compiler",
        "wavefront.full-mask-32",
    ]
    assert annotation_problems([parse_annotation("k.cu", 1, f"expect: HC009 {i}") for i in synthetic], [None]) == []


@pytest.mark.hipcc
@pytest.mark.parametrize("target", [t for t in TARGETS if t.compiles], ids=[t.id for t in TARGETS if t.compiles])
def test_compiles_with_hipcc(target: Target, tmp_path: Path, hip_env: dict[str, str]) -> None:
    """The golden HIP output builds with a real hipcc for an AMD target."""
    hip_dir = target.golden
    units = sorted(p for p in hip_dir.rglob("*") if p.suffix in TRANSLATION_UNITS)
    chosen = case_config(target.case).get("compile_units")
    if chosen is not None:
        assert set(chosen) <= {p.relative_to(hip_dir).as_posix() for p in units}, "compile_units: no such unit"
        units = [p for p in units if p.relative_to(hip_dir).as_posix() in chosen]
    assert units, "a compile case needs at least one translation unit"
    include_dirs = sorted({str(p.parent) for p in hip_dir.rglob("*") if p.suffix in (".h", ".cuh", ".hpp")})
    for unit in units:
        done = debian_hipcc(unit, tmp_path / (unit.stem + ".o"), hip_env, include_dirs)
        assert done.returncode == 0, f"{' '.join(done.args)}\n{done.stderr[-4000:]}"
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
    done = debian_hipcc(unit, tmp_path / "saxpy.o", hip_env)
    assert done.returncode == 0, done.stderr[-4000:]


HIP_NAME = re.compile(r"(?:hip|HIP)\w*$")


@pytest.mark.parametrize("target", TARGETS, ids=[t.id for t in TARGETS])
def test_emitted_hip_names_exist_in_the_target_release(target: Target) -> None:
    """Every hip*/HIP* identifier the translation introduced is declared by the targeted ROCm release."""
    # with the opt-in macros hipconv defines
    # (a release range, --rocm-version LOW..HIGH: a name of any of its releases, hipconv_compat.h guards the others)
    releases = releases_between(*rocm_range(target.release)) if ".." in target.release else [target.release]
    known = {name for release in releases for name in hip_names(release)}
    known |= {r.requires_define for r in ruleset().rules if r.requires_define}
    written_by_user = set()
    for source in (target.case / "cuda").rglob("*"):
        if source.is_file():
            written_by_user |= set(re.findall(r"\b(?:hip|HIP)\w*", source.read_text(errors="replace")))
    unknown = set()
    for output in target.golden.rglob("*"):
        if output.is_file():
            # header paths are checked by the include rules' own test; blank the include lines (and the
            # __has_include tests of hipconv_compat.h) here
            data = re.sub(
                rb"(?m)^[ \t]*#[ \t]*include[^\n]*|__has_include\([^)\n]*\)",
                lambda m: b" " * len(m.group()),
                output.read_bytes(),
            )
            tokens = lex(SourceFile.from_bytes(output.name, data).body)  # as hipconv lexes it: Latin-1 kept
            for i in range(len(tokens)):
                text = tokens.text(i)
                if (
                    tokens.kinds[i] == TokenKind.IDENTIFIER
                    and HIP_NAME.match(text)
                    and text not in written_by_user
                    and text not in known
                    and not text.lower().startswith("hipconv_")  # hipconv_compat.h's shims (translate.compat)
                ):
                    unknown.add(f"{output.relative_to(target.case)}: {text}")
    assert sorted(unknown) == []
