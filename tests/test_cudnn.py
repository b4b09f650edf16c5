"""cuDNN -> MIOpen: the golden output of every cudnn_* fixture is well-formed and calls only
MIOpen functions that exist, each with the number of arguments its prototype has
(hipconv/data/miopen-6.3.arity, derived from the MIOpen inventory)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hipconv.resources import data_file
from hipconv.rules import load_ruleset
from hipconv.translate.lexer import TokenKind, lex

FIXTURES = Path(__file__).parent / "fixtures"
OUTPUTS = sorted(p for p in FIXTURES.glob("cudnn_*/hip*/**/*") if p.is_file())  # hip/ or hip-<release>/
PAIRS = {"(": ")", "[": "]", "{": "}"}


def arity() -> dict[str, set[int]]:
    table = {}
    for line in data_file("miopen-6.3.arity").read_text().splitlines():
        name, counts = line.split("\t")
        table[name] = {int(c) for c in counts.split(",")}
    return table


def code_tokens(data: bytes) -> list[tuple[TokenKind, str]]:
    tokens = lex(data)
    at = 0
    for i in range(len(tokens)):  # libclang's tokens, in order; the gaps between them are blanks only
        assert tokens.starts[i] >= at and not data[at : tokens.starts[i]].replace(b"\\\n", b"").strip(), (
            f"bytes outside any token at {at}"
        )
        at = tokens.ends[i]
    assert not data[at:].replace(b"\\\n", b"").strip()
    return [
        (tokens.kinds[i], tokens.text(i))
        for i in range(len(tokens))
        if tokens.kinds[i] not in (TokenKind.WHITESPACE, TokenKind.COMMENT)
    ]


def miopen_calls(toks: list[tuple[TokenKind, str]]) -> list[tuple[str, int]]:
    """(callee, argument count) of every `miopenX(...)` call, counting top-level commas."""
    calls = []
    for i, (kind, text) in enumerate(toks[:-1]):
        if kind != TokenKind.IDENTIFIER or not text.startswith("miopen") or toks[i + 1][1] != "(":
            continue
        depth, count = 0, 0
        for _, t in toks[i + 1 :]:
            if t in PAIRS:
                depth += 1
                if depth == 1:
                    count = 0
                    empty = True
                    continue
            elif t in PAIRS.values():
                depth -= 1
                if depth == 0:
                    break
            if depth == 1:
                empty = False
                if t == ",":
                    count += 1
        calls.append((text, 0 if empty else count + 1))
    return calls


def test_there_are_cudnn_fixtures() -> None:
    assert {p.parts[-3] for p in OUTPUTS} >= {"cudnn_inference", "cudnn_training", "cudnn_unsupported"}


@pytest.mark.parametrize("path", OUTPUTS, ids=[p.relative_to(FIXTURES).as_posix() for p in OUTPUTS])
def test_output_relexes_with_balanced_brackets(path: Path) -> None:
    stack = []
    for kind, text in code_tokens(path.read_bytes()):
        if kind != TokenKind.PUNCTUATION:
            continue
        if text in PAIRS:
            stack.append(PAIRS[text])
        elif text in PAIRS.values():
            assert stack and stack.pop() == text, f"unbalanced {text!r} in {path}"
    assert stack == []


@pytest.mark.parametrize("path", OUTPUTS, ids=[p.relative_to(FIXTURES).as_posix() for p in OUTPUTS])
def test_miopen_calls_exist_with_the_prototypes_arity(path: Path) -> None:
    table = arity()
    for callee, count in miopen_calls(code_tokens(path.read_bytes())):
        assert callee in table, f"{path.name}: {callee} is not a MIOpen function"
        assert count in table[callee], (
            f"{path.name}: {callee} called with {count} arguments, prototype has {table[callee]}"
        )


def test_the_realistic_program_is_rewritten() -> None:
    text = (FIXTURES / "cudnn_inference" / "hip" / "infer.cu").read_text()
    calls = {c for c, _ in miopen_calls(code_tokens(text.encode()))}
    assert {
        "miopenFindConvolutionForwardAlgorithm",
        "miopenConvolutionForward",
        "miopenOpTensor",
        "miopenActivationForward",
        "miopenPoolingForward",
        "miopenSoftmaxForward_V2",
    } <= calls
    assert re.search(r"miopenConvolutionForward\([^;]*foundPerf_\d+_\d+\.fwd_algo", text)


def test_every_cudnn_rule_writes_a_known_miopen_name_and_unsupported_ones_say_why() -> None:
    table = arity()
    rules = [r for r in load_ruleset().rules if r.library == "cudnn" and r.kind != "include"]
    assert rules
    for rule in rules:
        if rule.hip is None:
            assert rule.note and rule.code in ("HC201", "HC202"), rule.id
        elif rule.kind.value == "function":
            assert rule.hip in table, rule.id
            if rule.template is None and not rule.args:
                assert not rule.params or len(rule.params) in table[rule.hip], rule.id


def test_arity_file_covers_the_inventory_sample() -> None:
    table = arity()
    assert table["miopenConvolutionForward"] == {13}
    assert table["miopenFindConvolutionForwardAlgorithm"] == {14}
    assert table["miopenSet4dTensorDescriptor"] == {6}
