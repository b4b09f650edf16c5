"""The template rewrite mechanism: a rule's jinja2 template renders the HIP call or statement."""

from __future__ import annotations

from pathlib import Path

import pytest

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
