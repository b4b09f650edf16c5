"""Shared test helpers: run the CLI in-process and capture everything; fixture annotations; inventories
and the rule set loaded once per test session."""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hipconv import resources
from hipconv.cli import main
from hipconv.diagnostics import CODES
from hipconv.rules import load_ruleset
from hipconv.rules.model import RuleSet
from hipconv.scan.checks import CHECKS
from hipconv.translate.includes import INSERT_RULE_ID
from hipconv.translate.lane_masks import mask_rule_id
from hipconv.translate.launches import LAUNCH_RULE_ID
from hipconv.translate.lexer import TokenKind, lex
from hipconv.translate.source import SourceFile

PACKAGE = Path(__file__).resolve().parents[1] / "hipconv"


@dataclass
class Run:
    code: int
    stdout: bytes
    stderr: str


def run_cli(*args: str | Path) -> Run:
    out, err = io.BytesIO(), io.StringIO()
    fake_stdout = io.TextIOWrapper(out, encoding="utf-8")
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(fake_stdout):
        code = main([str(a) for a in args])
        fake_stdout.flush()
    return Run(code, out.getvalue(), err.getvalue())


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".hipconv-output"
    }


def check_golden(out: Path, expected: Path, *, update: bool) -> None:
    """The translated tree `out` equals the golden tree `expected` (rewritten first with --update-golden)."""
    if update:
        shutil.rmtree(expected, ignore_errors=True)
        shutil.copytree(out, expected, ignore=shutil.ignore_patterns(".hipconv-output"))
    got, want = tree(out), tree(expected)
    assert sorted(got) == sorted(want)
    for name in want:
        if got[name] != want[name]:  # the text for a readable diff, then the bytes: a Latin-1 byte must be kept
            assert got[name].decode(errors="backslashreplace") == want[name].decode(errors="backslashreplace"), name
            assert got[name] == want[name], name


# ---------------------------------------------------------------- loaded once per session


@functools.cache
def ruleset() -> RuleSet:
    """The bundled rule set (hipconv's own cache still hashes every rule file on each load_ruleset())."""
    return load_ruleset()


@functools.cache
def hip_names(release: str) -> frozenset[str]:
    """The HIP names ROCm `release` declares (hipconv/data/hip.names)."""
    return frozenset(name for name, presence in resources.hip_names().items() if release in presence.releases)


@functools.cache
def hip_headers(release: str) -> frozenset[str]:
    """The HIP headers of ROCm `release` (hipconv/data/hip.headers)."""
    return frozenset(name for name, presence in resources.hip_headers().items() if release in presence.releases)


@functools.cache
def build_file_rule_ids() -> frozenset[str]:
    """`cmake.<what>` / `make.<what>`: the ids hipconv/buildfiles gives its rewrites (the last, literal,
    argument of each `.rewrite(...)` call in cmake.py and make.py)."""
    ids = set()
    for library in ("cmake", "make"):
        module = ast.parse((PACKAGE / "buildfiles" / f"{library}.py").read_text(encoding="utf-8"))
        for node in ast.walk(module):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "rewrite"
                and node.args
                and isinstance(node.args[-1], ast.Constant)
                and isinstance(node.args[-1].value, str)
            ):
                ids.add(f"{library}.{node.args[-1].value}")
    return frozenset(ids)


@functools.cache
def known_rule_ids() -> frozenset[str]:
    """Every id a diagnostic's `rule` can carry: the loaded rules' ids, the ids hipconv makes up in code
    (a widened lane mask `<rule>.mask`, the launch rewrite, the implicit include, build-file rewrites: an
    HC009 names the id of the edit it dropped) and the scan checks' ids."""
    rule_ids = {rule.id for rule in ruleset().rules}
    synthetic = {LAUNCH_RULE_ID, INSERT_RULE_ID}
    masks = {mask_rule_id(i) for i in rule_ids}
    return frozenset(rule_ids | masks | synthetic | build_file_rule_ids() | {check.id for check in CHECKS})


# ---------------------------------------------------------------- annotations in fixture sources

ANNOTATION_KINDS = ("expect", "expect-ok", "todo-expect")
# a comment whose text starts with one of the kinds as a whole word is an annotation (and must parse)
_ANNOTATION = re.compile(r"(?P<kind>todo-expect|expect-ok|expect)\b(?:\[(?P<targets>[^\]]*)\])?(?P<rest>.*)", re.S)


def comment_annotations(data: bytes) -> list[tuple[int, str]]:
    """(line the annotation applies to, annotation text) from `// expect...` comments (comment tokens only).

    An annotation applies to the next line that is not itself an annotation comment alone on its line,
    so several annotations (e.g. one per target) can stack above one line of code."""
    data = SourceFile.from_bytes("fixture", data).body  # a Latin-1 fixture is lexed as hipconv lexes it
    tokens = lex(data)
    found, alone = [], set()
    for i in range(len(tokens)):
        if tokens.kinds[i] != TokenKind.COMMENT:
            continue
        text = tokens.text(i).lstrip("/* ").rstrip("*/ ").strip()
        if _ANNOTATION.match(text):
            start = tokens.starts[i]
            line = data.count(b"\n", 0, start) + 1
            if not data[data.rfind(b"\n", 0, start) + 1 : start].strip():
                alone.add(line)
            found.append((line, text))
    result = []
    for line, text in found:
        target = line + 1
        while target in alone:
            target += 1
        result.append((target, text))
    return result


@dataclass(frozen=True)
class Annotation:
    path: str  # relative to the fixture's source tree
    line: int  # the line it applies to
    text: str
    kind: str = ""  # one of ANNOTATION_KINDS; "" when the text could not be parsed
    targets: tuple[str, ...] = ()  # the ROCm releases it applies to; () for every one
    code: str = ""
    rule: str = ""
    error: str = ""  # why the text could not be parsed

    def applies_to(self, target: str | None) -> bool:
        return not self.targets or target in self.targets

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: '// {self.text}'"


def parse_annotation(path: str, line: int, text: str) -> Annotation:
    """`expect[T,...]: CODE [rule-id]`, `todo-expect[T,...]: CODE [rule-id]`, `expect-ok[T,...]`; `[...]` optional."""
    m = _ANNOTATION.match(text)
    if m is None:
        return Annotation(path, line, text, error="not an annotation")
    kind, rest = m["kind"], m["rest"].strip()
    targets = tuple(t.strip() for t in m["targets"].split(",")) if m["targets"] is not None else ()
    if any(not t for t in targets) or m["targets"] == "":
        return Annotation(path, line, text, error="empty target in [...]")
    if kind == "expect-ok":
        if rest:
            return Annotation(path, line, text, error="expect-ok takes no code (write `// expect-ok` alone)")
        return Annotation(path, line, text, kind, targets)
    if not rest.startswith(":"):
        return Annotation(path, line, text, error=f"{kind} needs ': CODE [rule-id]'")
    words = rest[1:].split()
    if len(words) not in (1, 2):
        return Annotation(path, line, text, error=f"{kind} takes one code and at most one rule id")
    return Annotation(path, line, text, kind, targets, words[0], words[1] if len(words) == 2 else "")


def source_annotations(root: Path) -> list[Annotation]:
    """Every annotation in the files under `root`, in path and line order."""
    found = []
    for source in sorted(root.rglob("*")):
        if source.is_file():
            rel = source.relative_to(root).as_posix()
            found += [parse_annotation(rel, line, text) for line, text in comment_annotations(source.read_bytes())]
    return found


def annotation_problems(annotations: Iterable[Annotation], targets: Sequence[str | None]) -> list[str]:
    """What is wrong with the annotations themselves: bad syntax, a diagnostic code not in CODES, a rule id
    hipconv never reports, or a target the fixture is not translated for."""
    problems = []
    for a in annotations:
        if a.error:
            problems.append(f"{a}: {a.error}")
            continue
        if a.code and a.code not in CODES:
            problems.append(f"{a}: unknown diagnostic code {a.code!r} (not in hipconv.diagnostics.CODES)")
        if a.rule and a.rule not in known_rule_ids():
            problems.append(f"{a}: unknown rule id {a.rule!r} (no loaded rule, scan check or id made up in code)")
        stray = [t for t in a.targets if t not in targets]
        if stray:
            problems.append(f"{a}: target {', '.join(stray)} is not among the fixture's targets {list(targets)}")
    return problems


def unmet(annotation: Annotation, diagnostics: Mapping[str, Sequence[Mapping]]) -> str | None:
    """Why the annotation does not hold for the translation's diagnostics (report JSON entries by path),
    or None when it does. A todo-expect is checked like an expect."""
    on_line = [d for d in diagnostics.get(annotation.path, []) if d["line"] == annotation.line]
    if annotation.kind == "expect-ok":
        return f"{annotation}: expected no diagnostic, got {on_line}" if on_line else None
    hits = [d for d in on_line if d["code"] == annotation.code and annotation.rule in ("", d["rule"])]
    return None if hits else f"{annotation}: missed {annotation.code} {annotation.rule}".rstrip() + f"; got {on_line}"


__all__ = [
    "Run",
    "run_cli",
    "tree",
    "check_golden",
    "comment_annotations",
    "sys",
    "Annotation",
    "parse_annotation",
    "source_annotations",
    "annotation_problems",
    "unmet",
    "ruleset",
    "hip_names",
    "hip_headers",
    "known_rule_ids",
]


DEBIAN_CMAKE = Path("/usr/lib/x86_64-linux-gnu/cmake")  # Debian's HIP CMake packages (hip-lang, hip, ...)
HAS_DEBIAN_CMAKE_HIP = bool(
    shutil.which("cmake") and shutil.which("clang++-15") and (DEBIAN_CMAKE / "hip-lang").is_dir()
)


def cmake_build_with_debian_hip(source: Path, work: Path, env: Mapping[str, str]) -> Path:
    """Configure and build a translated CMake project with CMake's HIP language on Debian's HIP, as the
    docs/build.md says (a ROCm root whose lib/cmake/hip-lang is Debian's); the build directory."""
    rocm = work / "rocm-root"
    (rocm / "lib" / "cmake").mkdir(parents=True)
    (rocm / "lib" / "cmake" / "hip-lang").symlink_to(DEBIAN_CMAKE / "hip-lang")
    env = {**env, "CMAKE_PREFIX_PATH": str(DEBIAN_CMAKE)}
    build = work / "build"
    configure = [
        "cmake",
        "-S",
        str(source),
        "-B",
        str(build),
        "-DCMAKE_HIP_COMPILER=clang++-15",
        f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={rocm}",
        "-DCMAKE_HIP_FLAGS=--rocm-path=/usr --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
    ]
    for cmd in (configure, ["cmake", "--build", str(build), "-j2"]):
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return build


REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
HIPCC_SYNTAX = SHARED / "rocm-6.3" / "bin" / "hipcc-syntax"  # clang-19 on ROCm 6.3's headers, syntax only, gfx90a
COMPILE_TIMEOUT_S = 600


def hipcc_syntax_missing() -> str | None:
    """Why ROCm 6.3's syntax checker cannot run here, or None."""
    if not HIPCC_SYNTAX.exists():
        return f"{HIPCC_SYNTAX} not found (../shared is on the project's machines and in CI only)"
    if shutil.which("clang++-19") is None:
        return "clang++-19 not found (apt-get install -y clang-19; .ci/run does)"
    return None


def hipcc_syntax(
    unit: Path, include_dirs: Iterable[str | Path] = (), flags: Iterable[str] = ()
) -> subprocess.CompletedProcess[str]:
    """Check one translation unit against ROCm 6.3's headers (and libraries) for gfx90a (with `flags`:
    `-DHIPBLAS_V2`, ...)."""
    cmd = [str(HIPCC_SYNTAX), "-std=c++17", *flags, *[f"-I{d}" for d in include_dirs], str(unit)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False)


def debian_hipcc(
    unit: Path, obj: Path, env: Mapping[str, str], include_dirs: Iterable[str | Path] = ()
) -> subprocess.CompletedProcess[str]:
    """Compile one translation unit for gfx90a with Debian's hipcc (HIP 5.2); a .cu or .hip file as HIP.
    `env` must hold HIP_PLATFORM=amd (conftest's hip_env)."""
    language = ["-x", "hip"] if unit.suffix in (".cu", ".hip") else []
    cmd = ["hipcc", "--offload-arch=gfx90a", *language, *[f"-I{d}" for d in include_dirs], "-c", str(unit)]
    cmd += ["-o", str(obj)]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S, check=False)
