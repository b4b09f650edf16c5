"""translate.statements: where a statement starts and ends, as the translator and `hipconv scan` ask."""

from __future__ import annotations

from hipconv.translate.lexer import Tokens, lex
from hipconv.translate.statements import statement_bounds, statement_extent, statement_last, statement_start


def at(tokens: Tokens, text: str, nth: int = 0) -> int:
    return [i for i in range(len(tokens)) if tokens.text(i) == text][nth]


def test_the_whole_statement_reaches_the_control_head_around_a_call() -> None:
    """The translator's question: a call in an `if (...)` head is in the if statement, no plain one."""
    tokens = lex(b"void k() {\n  if (ok) x = f(a, cudaFoo(b));\n}\n")
    assert tokens.text(statement_start(tokens, at(tokens, "cudaFoo"))) == "if"
    assert statement_bounds(tokens, at(tokens, "cudaFoo"), at(tokens, ")", 2)) is None


def test_a_plain_statement_runs_from_after_the_brace_to_its_semicolon() -> None:
    tokens = lex(b"void k() { int v = cudaFoo(b[i]); }\n")
    first, last = at(tokens, "cudaFoo"), at(tokens, ")", 1)
    assert statement_bounds(tokens, first, last) == (at(tokens, "int"), at(tokens, ";"))


def test_a_statement_holding_a_directive_is_no_plain_one() -> None:
    tokens = lex(b"{ int v = cudaFoo(b,\n#ifdef X\n 1\n#else\n 2\n#endif\n); }\n")
    first, last = at(tokens, "cudaFoo"), at(tokens, ")")
    assert statement_extent(tokens, first, last) is not None
    assert statement_bounds(tokens, first, last) is None


def test_no_statement_when_a_brace_comes_before_the_semicolon() -> None:
    tokens = lex(b"while (cudaFoo(a) != 0) { wait(); }\n")
    assert statement_extent(tokens, at(tokens, "cudaFoo"), at(tokens, ")")) is None


def test_the_innermost_start_stops_inside_the_brackets_around_the_token() -> None:
    """The scan's question: the argument list or condition that holds the token."""
    tokens = lex(b"void k() { y = f(a, threadIdx.x + 1); if (lane < 32) g(); }\n")
    assert tokens.text(statement_start(tokens, at(tokens, "threadIdx"), innermost=True)) == "a"
    assert tokens.text(statement_start(tokens, at(tokens, "threadIdx"))) == "y"
    assert tokens.text(statement_start(tokens, at(tokens, "32"), innermost=True)) == "lane"


def test_the_innermost_start_of_a_macro_body_is_its_name() -> None:
    tokens = lex(b"#define FULL 0xffffffff\n")
    assert tokens.text(statement_start(tokens, at(tokens, "0xffffffff"), innermost=True)) == "FULL"
    assert tokens.text(statement_start(tokens, at(tokens, "0xffffffff"))) == "#"


def test_bracketed_text_before_the_token_is_walked_over_whole() -> None:
    tokens = lex(b"{ v = (a + b) * m[c] + lane; }\n")
    for innermost in (False, True):
        assert tokens.text(statement_start(tokens, at(tokens, "lane"), innermost=innermost)) == "v"


def test_the_innermost_start_after_a_parenthesis_left_unpaired_by_branches() -> None:
    """Two #if branches that each close the call leave a `)` without its opener: the statement starts after
    it (here at the #endif line), where the whole statement goes back to the file's start."""
    tokens = lex(b"x = f(a,\n#if X\n b)\n#else\n c)\n#endif\n + lane;\n")
    assert tokens.text(statement_start(tokens, at(tokens, "lane"), innermost=True)) == "#"
    assert tokens.text(statement_start(tokens, at(tokens, "lane"))) == "x"


def test_the_last_token_of_a_compound_statement() -> None:
    heads = ("if", "while", "for")
    tokens = lex(b"if (a) { b(); } c; for (i = 0; i < n; ++i) s += f(i); d;\n")
    assert statement_last(tokens, at(tokens, "if"), heads) == at(tokens, "}")
    assert statement_last(tokens, at(tokens, "c"), heads) == at(tokens, ";", 1)
    assert statement_last(tokens, at(tokens, "for"), heads) == at(tokens, ";", 4)
    assert statement_last(tokens, at(tokens, "d"), heads) == at(tokens, ";", 5)
