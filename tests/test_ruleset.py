from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_layering import imports, modules

from helpers import ruleset
from hipconv.errors import RuleSchemaError
from hipconv.resources import rules_dir
from hipconv.rules import cache, load_ruleset
from hipconv.rules.load import load_rules
from hipconv.rules.model import Action, RuleSet
from hipconv.settings import Settings, Version

INVALID = Path(__file__).parent / "fixtures" / "rules_invalid"
CASES = sorted(INVALID.glob("*.yaml"))


def expected_problems(path: Path) -> list[str]:
    """The `# error: ...` lines at the top of a bad-rule fixture: one per problem the file must produce."""
    lines = path.read_text().splitlines()
    expected = [line.removeprefix("# error: ") for line in lines if line.startswith("# error: ")]
    assert expected, f"{path.name} has no '# error: ' line"
    return expected


def reported_problems(error: RuleSchemaError) -> list[str]:
    """The problem lines of a RuleSchemaError, checked against the count in its header line."""
    header, *problems = str(error).replace("tests/fixtures/", "").splitlines()
    assert header == f"{len(problems)} problem(s) in the rule files:", str(error)
    return [p.strip() for p in problems]


def load_problems(paths: list[Path]) -> list[str]:
    with pytest.raises(RuleSchemaError) as info:
        load_rules(paths)
    return reported_problems(info.value)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_invalid_rule_file_is_a_clear_error(path: Path) -> None:
    """Each fixture yields exactly the problems its `# error:` lines name, in that order, and no other."""
    expected, problems = expected_problems(path), load_problems([path])
    assert len(problems) == len(expected), problems
    for want, got in zip(expected, problems):
        assert want in got


def test_all_problems_are_reported_at_once() -> None:
    """Loading every bad file together reports each file's own problems, all of them, and nothing more."""
    together = load_problems(CASES)
    alone = [problem for path in CASES for problem in load_problems([path])]
    assert len(together) == len(alone) == sum(len(expected_problems(p)) for p in CASES)
    assert sorted(together) == sorted(alone)


def test_unsupported_names_merge_into_the_rules_by_name(tmp_path: Path) -> None:
    """An `unsupported:` group's names are rules of their own: status unsupported, the group's fields over
    the file's defaults, their own line as origin, and placed among `rules:` by name."""
    path = tmp_path / "mine.yaml"
    path.write_text(
        "defaults: {library: cudart, kind: function, section: memory}\n"
        "rules:\n"
        "  - cuda: cudaAlpha\n"
        "    hip: hipAlpha\n"
        "  - cuda: cudaGamma\n"
        "    hip: hipGamma\n"
        "unsupported:\n"
        "  - kind: enumerator\n"
        "    nvidia: {since: '12.9'}\n"
        "    names:\n"
        "      - cudaBeta\n"
        "      - cudaDelta\n"
        "  - names: [cudaAaa]\n"
    )
    rules = load_rules([path])
    assert [r.cuda for r in rules] == ["cudaAaa", "cudaAlpha", "cudaBeta", "cudaDelta", "cudaGamma"]
    beta = rules[2]
    assert beta.origin == f"{path}:11"
    assert (beta.status.value, beta.kind.value, beta.section, beta.hip) == ("unsupported", "enumerator", "memory", None)
    assert dict(beta.nvidia) == {"since": "12.9"}
    assert (rules[0].kind.value, rules[0].id, rules[0].origin) == ("function", "cudart.cudaAaa", f"{path}:13")


def test_a_warm_start_does_not_import_jsonschema(tmp_path: Path) -> None:
    """The rule files are checked against their JSON Schema only when the rule cache is cold."""
    probe = "import sys; from hipconv.rules import load_ruleset; load_ruleset(); print('jsonschema' in sys.modules)"
    env = {**os.environ, "HIPCONV_CACHE_DIR": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True) for _ in "12"]
    assert [run.stdout.strip() for run in runs] == ["True", "False"], [run.stderr for run in runs]


@pytest.mark.parametrize("changed", ["rules/validate.py", "rules/nodes.py", "diagnostics.py", "settings.py"])
def test_a_change_to_the_code_that_builds_a_rule_set_rebuilds_it(
    changed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cached rule set is keyed by the loader's code, not only by the model and the rule files: a fixed
    validator must not be served the rule set that the old one built."""
    package = tmp_path / "hipconv"
    shutil.copytree(cache.RULES_PACKAGE, package / "rules")
    for name in cache.BUILD_MODULES:
        shutil.copy(cache.RULES_PACKAGE.parent / name, package / name)
    monkeypatch.setattr(cache, "RULES_PACKAGE", package / "rules")
    monkeypatch.setenv("HIPCONV_CACHE_DIR", str(tmp_path / "cache"))
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: []\n")
    built: list[str] = []

    def build(name: str) -> RuleSet:
        built.append(name)
        return RuleSet((), {name: "cudart"})

    assert cache.cached([rules], [], lambda: build("old")).cuda_api == {"old": "cudart"}
    assert cache.cached([rules], [], lambda: build("again")).cuda_api == {"old": "cudart"}  # a hit
    with (package / changed).open("a") as source:
        source.write("# fixed\n")
    assert cache.cached([rules], [], lambda: build("new")).cuda_api == {"new": "cudart"}
    assert built == ["old", "new"]


def test_the_rule_cache_key_covers_every_module_the_build_imports() -> None:
    """Every hipconv module that hipconv.rules imports, at any depth, is among the files of the key."""
    keyed = {path.resolve() for path in cache.build_sources()}
    todo, seen = [m for m in modules() if m.startswith("hipconv.rules")], set()
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += [i.target for i in imports(module) if i.target in modules()]
    missing = sorted(m for m in seen if modules()[m].resolve() not in keyed)
    assert not missing, f"add them to hipconv.rules.cache.BUILD_MODULES: {missing}"


def test_shipped_rules_load() -> None:
    loaded = load_ruleset()
    assert len(loaded.rules) > 1000
    shipped = {p.stem for p in rules_dir().glob("*.yaml")}
    assert shipped >= {"runtime", "driver", "device", "includes", "complex", "fp16"}


def resolve(name: str, rocm: str) -> Action:
    table = ruleset().table(Settings(Version.parse(rocm)))
    return table.identifiers[name].action


def test_version_split_rules_pick_the_targets_spelling() -> None:
    table52 = ruleset().table(Settings(Version.parse("5.2")))
    table63 = ruleset().table(Settings(Version.parse("6.3")))
    assert table52.identifiers["__shfl_xor_sync"].rule.hip == "__shfl_xor"
    assert table63.identifiers["__shfl_xor_sync"].rule.hip == "__shfl_xor_sync"


def test_rule_newer_than_target_is_unavailable() -> None:
    newer = [
        r
        for r in ruleset().rules
        if r.kind.value != "include"
        and r.rocm.since == Version.parse("6.3")
        and r.rocm.until is None
        and r.status.value == "supported"
    ]
    assert newer, "the inventory has names that are only in ROCm 6.3"
    assert resolve(newer[0].cuda, "5.2") is Action.UNAVAILABLE
    assert resolve(newer[0].cuda, "6.3") is Action.REWRITE


def test_lookup_is_one_dict() -> None:
    table = ruleset().table(Settings(Version.parse("6.3")))
    assert isinstance(table.identifiers, dict)
    assert table.identifiers["cudaMalloc"].rule.hip == "hipMalloc"


def test_editor_schema_is_current() -> None:
    """rules/schema.json (named by each rule file's yaml-language-server header) is `hipconv rules schema`."""
    import json

    from hipconv.rules.schema import json_schema

    assert json.loads((rules_dir() / "schema.json").read_text()) == json_schema()
    for path in rules_dir().glob("*.yaml"):
        assert path.read_text().startswith("# yaml-language-server: $schema=schema.json\n"), path.name


def test_shipped_rule_files_satisfy_the_editor_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    from hipconv.rules.schema import json_schema

    validator = jsonschema.Draft202012Validator(json_schema())
    for path in sorted(rules_dir().glob("*.yaml")):
        data = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        errors = [e.message for e in validator.iter_errors(data)]
        assert errors == [], path.name
