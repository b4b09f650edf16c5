"""The template rewrite mechanism: a rule's jinja2 template renders the HIP call or statement."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli
from hipconv.errors import RuleSchemaError
from hipconv.rules import load_ruleset
from hipconv.rules.load import load_rules
from hipconv.settings import Settings, Version
from hipconv.translate.source import SourceFile
from hipconv.translate.translator import translate_one

RULES = """\
defaults: {library: fakednn, kind: function}
rules:
  - cuda: dnnSetTensor
    hip: fakeSetTensor
    params: [desc, format, type, n, c, h, w]
    template: set_tensor.j2
  - cuda: dnnConvolve
    hip: fakeConvolve
    params: [handle, x, y, workspace, size]
    template: convolve.j2
    scope: statement
  - cuda: DNN_FLOAT
    hip: fakeFloat
    kind: enumerator
  - cuda: dnnFusedThing
    status: unsupported
    code: HC201
    note: no fused operations on this side
"""
TEMPLATES = {
    "set_tensor.j2": (
        "{% if src.format == 'DNN_NHWC' %}{{ leave('HC202', 'the NHWC layout has no counterpart') }}{% endif %}"
        "{{ hip }}({{ args.desc }}, {{ args.type }}, {{ args.n }}, {{ args.c }}, {{ args.h }}, {{ args.w }})"
    ),
    "convolve.j2": (
        "/* the HIP side needs its algorithm found first{{ ' (' ~ declared ~ ')' if declared }} */{{ nl }}"
        "{{ indent }}fakeFind_{{ uid }}({{ args.handle }}, {{ args.x }}, {{ args.y }});{{ nl }}"
        "{{ indent }}{{ before }}{{ hip }}({{ args.handle }}, {{ args.x }}, {{ args.y }}, {{ args.workspace }}, "
        "{{ args.size }}){{ after }}"
        "{{ note('HC004', 'a Find step was added') }}"
    ),
}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("rules")
    (folder / "fake.yaml").write_text(RULES)
    for name, text in TEMPLATES.items():
        (folder / name).write_text(text)
    settings = Settings(Version.parse("6.3"))
    return load_ruleset([folder]).table(settings), settings


def run(table, src: str):
    table, settings = table
    result = translate_one(SourceFile.from_bytes("t.cpp", src.encode()), table, settings)
    return (result.output.decode() if result.output is not None else src), result.diagnostics


def test_call_template_reshapes_and_keeps_nested_translations(table) -> None:
    out, _ = run(table, "dnnSetTensor(d, DNN_NCHW, DNN_FLOAT, n, c, h, w);")
    assert out == "fakeSetTensor(d, fakeFloat, n, c, h, w);"


def test_template_can_leave_the_call_with_a_diagnostic(table) -> None:
    out, diagnostics = run(table, "dnnSetTensor(d, DNN_NHWC, DNN_FLOAT, n, c, h, w);")
    assert out == "dnnSetTensor(d, DNN_NHWC, DNN_FLOAT, n, c, h, w);"  # kept whole: it builds against one API
    assert [(d.code, d.message) for d in diagnostics] == [
        ("HC202", "dnnSetTensor: the NHWC layout has no counterpart; left unchanged")
    ]


def test_statement_template_adds_a_statement_with_the_indentation(table) -> None:
    src = "void f() {\n    CHECK(dnnConvolve(h, x, y, ws, n));\n}\n"
    out, diagnostics = run(table, src)
    assert out == (
        "void f() {\n    /* the HIP side needs its algorithm found first */\n"
        "    fakeFind_2_11(h, x, y);\n    CHECK(fakeConvolve(h, x, y, ws, n));\n}\n"
    )
    assert [d.code for d in diagnostics] == ["HC004"]


def test_statement_template_learns_the_declared_name(table) -> None:
    out, _ = run(table, "const dnnStatus_t st = dnnConvolve(h, x, y, ws, n);")
    assert out.startswith("/* the HIP side needs its algorithm found first (st) */")
    assert out.endswith("const dnnStatus_t st = fakeConvolve(h, x, y, ws, n);")
    out, _ = run(table, "st = dnnConvolve(h, x, y, ws, n);")
    assert out.startswith("/* the HIP side needs its algorithm found first */")


@pytest.mark.parametrize(
    "src",
    [
        pytest.param("if (ok) dnnConvolve(h, x, y, ws, n);", id="control-head"),
        pytest.param("return dnnConvolve(h, x, y, ws, n);", id="return"),
        pytest.param("#define RUN dnnConvolve(h, x, y, ws, n);\n", id="macro-definition"),
        pytest.param("{ #\ndnnConvolve(h, x, y, ws, n);", id="stray-hash"),
    ],
)
def test_statement_template_refuses_what_it_cannot_extend(table, src: str) -> None:
    out, diagnostics = run(table, src)
    assert out == src
    assert [d.code for d in diagnostics] == ["HC007"]


def test_unsupported_rule_reports_its_own_code(table) -> None:
    _, diagnostics = run(table, "dnnFusedThing(p);")
    assert [(d.code, d.message) for d in diagnostics] == [
        ("HC201", "dnnFusedThing has no HIP equivalent; left unchanged (no fused operations on this side)")
    ]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        pytest.param(
            "  - {cuda: a, hip: b, template: nowhere.j2, params: [x]}",
            "template 'nowhere.j2' not found",
            id="missing-template",
        ),
        pytest.param("  - {cuda: a, hip: b, template: set_tensor.j2}", "'template' needs 'params'", id="no-params"),
        pytest.param(
            "  - {cuda: a, hip: b, template: set_tensor.j2, params: [x], args: [x]}",
            "'template' and 'args'/'drops' exclude each other",
            id="with-args",
        ),
        pytest.param(
            "  - {cuda: a, hip: b, params: [x], scope: statement}", "'scope' goes with 'template'", id="scope-alone"
        ),
        pytest.param(
            "  - {cuda: a, status: unsupported, code: HC999}", "'code' 'HC999' is not a diagnostic code", id="bad-code"
        ),
    ],
)
def test_template_rule_validation(tmp_path: Path, entry: str, message: str) -> None:
    (tmp_path / "set_tensor.j2").write_text(TEMPLATES["set_tensor.j2"])
    (tmp_path / "bad.yaml").write_text("defaults: {library: x, kind: function}\nrules:\n" + entry + "\n")
    with pytest.raises(RuleSchemaError, match=message):
        load_rules([tmp_path / "bad.yaml"])


def test_findings_inside_a_dropped_argument_are_forgotten(table) -> None:
    # the template drops `format`; an unsupported name there is not in the output, so not reported
    out, diagnostics = run(table, "dnnSetTensor(d, dnnFusedThing, DNN_FLOAT, n, c, h, w);")
    assert out == "fakeSetTensor(d, fakeFloat, n, c, h, w);"
    assert diagnostics == ()
    out, diagnostics = run(table, "dnnSetTensor(d, DNN_NCHW, dnnFusedThing, n, c, h, w);")  # kept: reported
    assert [d.code for d in diagnostics] == ["HC201"]


@pytest.mark.parametrize(
    ("template", "message"),
    [
        pytest.param(
            "{% if src.x | trim != '0' %}{{ leave('HC999', 'x must be 0') }}{% endif %}{{ hip }}({{ args.x }})",
            r"bad\.yaml:3 \(a\): template t\.j2:1: leave\(\): 'HC999' is not a diagnostic code",
            id="unknown-code",
        ),
        pytest.param(
            "{{ hip }}({{ args.x }})\n{{ note(cuda ~ 'HC202', 'why') }}",
            r"template t\.j2:2: note\(\) takes a literal diagnostic code",
            id="computed-code",
        ),
        pytest.param("{{ hip }}({% if %})", r"template t\.j2:1: Expected an expression", id="syntax-error"),
    ],
)
def test_a_template_is_checked_when_the_rules_load(tmp_path: Path, template: str, message: str) -> None:
    """A template's mistakes fail the rule files at load, with the rule's file:line, before any call renders
    it (and whether or not a call ever takes the branch that holds them)."""
    (tmp_path / "t.j2").write_text(template)
    (tmp_path / "bad.yaml").write_text(
        "defaults: {library: x, kind: function}\nrules:\n  - {cuda: a, hip: b, template: t.j2, params: [x]}\n"
    )
    with pytest.raises(RuleSchemaError, match=message):
        load_rules([tmp_path / "bad.yaml"])


# ---------------------------------------------------------------- a tree's templates run no Python (issue #40)

ESCAPES = [
    pytest.param("{{ ''.__class__.__mro__[1].__subclasses__() }}", "'__class__'", id="subclasses"),
    pytest.param(
        "{{ cycler.__init__.__globals__.os.popen('touch ' ~ marker).read() }}", "'__init__'", id="cycler-globals"
    ),
    pytest.param("{{ joiner['__init__'] }}", "'__init__'", id="getitem"),
    pytest.param("{{ hip | attr('__class__') }}", "'__class__'", id="attr-filter"),
]


@pytest.mark.parametrize(("template", "name"), ESCAPES)
def test_a_template_that_reaches_python_is_refused_when_the_rules_load(
    tmp_path: Path, template: str, name: str
) -> None:
    (tmp_path / "t.j2").write_text(template)
    (tmp_path / "bad.yaml").write_text(
        "defaults: {library: x, kind: function}\nrules:\n  - {cuda: a, hip: b, template: t.j2, params: [x]}\n"
    )
    with pytest.raises(RuleSchemaError, match=rf"template t\.j2:1: {name} is not allowed"):
        load_rules([tmp_path / "bad.yaml"])


@pytest.mark.parametrize(
    "template",
    [
        pytest.param(
            "{% set n = '_' ~ '_class__' %}{{ hip | attr(n) }}{{ cycler | attr('_' ~ '_init__') }}", id="built-name"
        ),
        pytest.param("{{ args.update({'x': 'y'}) }}{{ hip }}({{ args.x }})", id="mutation"),
        pytest.param("{% include 'escape.inc' %}", id="included"),
    ],
)
def test_what_the_sandbox_refuses_when_rendering_stops_the_run(tmp_path: Path, template: str) -> None:
    """What no check at load can see (a name built at render time, a method that changes a value, an included
    file) meets jinja2's immutable sandbox: the run stops with exit 2 and names the template, and no code ran."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "t.j2").write_text(template)
    (rules / "escape.inc").write_text(
        "{{ cycler.__init__.__globals__.os.popen('touch " + str(tmp_path / "ran") + "') }}"
    )
    (rules / "r.yaml").write_text(
        "defaults: {library: x, kind: function}\n"
        "rules:\n  - {cuda: dnnRun, hip: fakeRun, template: t.j2, params: [x]}\n"
    )
    (tmp_path / "k.cu").write_text("#include <cuda_runtime.h>\nvoid f(int x) { dnnRun(x); }\n")
    result = run_cli("translate", tmp_path / "k.cu", "-o", tmp_path / "out", "--rules-dir", rules, "--no-cache")
    assert result.code == 2, result.stderr
    assert f"error: template {rules / 't.j2'}" in result.stderr and "unsafe" in result.stderr
    assert "sandbox" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "ran").exists()


def test_the_bundled_templates_render_the_same_in_the_sandbox() -> None:
    """Each shim of hipconv_compat.h renders as it did outside the sandbox (the fixtures hold a few of them)."""
    import jinja2

    from hipconv.rules.conversions import all_conversions
    from hipconv.translate.templates import environment

    sandboxed = environment()
    plain = jinja2.Environment(
        loader=sandboxed.loader,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    names = [n for n in sandboxed.list_templates() if n.startswith("compat/hipconv_") and n.endswith(".h.j2")]
    assert len(names) > 20
    for name in names:
        context = {"conversions": all_conversions(), "rocm": "6.3", "includes": ["<cstdint>"], "bodies": ["int x;"]}
        assert sandboxed.get_template(name).render(**context) == plain.get_template(name).render(**context), name
