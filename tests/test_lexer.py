from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipconv.translate.lexer import TokenKind, Tokens, lex


def kinds_and_texts(src: bytes) -> list[tuple[str, str]]:
    return [(t.kind.name, t.text) for t in lex(src).with_gaps() if t.kind is not TokenKind.WHITESPACE]


@pytest.mark.parametrize(
    "src",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"int x;\r\nint y;\r\n", id="crlf"),
        pytest.param(b"a \t\n\n  b   \n", id="blanks"),
        pytest.param(b'auto s = R"x(cudaMalloc ) " )x";\n', id="raw-string"),
        pytest.param(b"#define A \\\n  cudaMalloc \\\n  (p)\n", id="line-continuation"),
        pytest.param(b"int x = 1; /* unterminated", id="unterminated-comment"),
        pytest.param(b'const char* s = "unterminated', id="unterminated-string"),
        pytest.param(b"x = y <% %> <: :> %: %:%:", id="digraphs"),
        pytest.param('const char* s = "\u00e9\u4e2d"; // \u00fc\n'.encode(), id="utf8"),
        pytest.param(b"#if 0\n#endif\n#endif\n#else\n", id="unbalanced-directives"),
        pytest.param(b"x\\", id="trailing-backslash"),
    ],
)
def test_round_trip(src: bytes) -> None:
    assert "".join(t.text for t in lex(src).with_gaps()).encode() == src


def test_chevrons_are_single_tokens() -> None:
    assert ("PUNCTUATION", "<<<") in kinds_and_texts(b"k<<<g, b>>>(x);")
    assert ("PUNCTUATION", ">>>") in kinds_and_texts(b"k<<<g, b>>>(x);")


def test_shift_in_template_is_not_a_launch() -> None:
    texts = [t for _, t in kinds_and_texts(b"a<b<<c>> x;")]
    assert "<<<" not in texts and "<<" in texts


def test_comments_and_strings_are_tokens() -> None:
    got = kinds_and_texts(b'f("cudaMalloc"); // cudaFree\n/* cudaMemcpy */')
    assert ("LITERAL", '"cudaMalloc"') in got
    assert ("COMMENT", "// cudaFree") in got
    assert ("COMMENT", "/* cudaMemcpy */") in got


def test_inactive_branches_are_lexed() -> None:
    got = kinds_and_texts(b"#if 0\ncudaMalloc(p);\n#else\ncudaFree(p);\n#endif\n")
    assert ("IDENTIFIER", "cudaMalloc") in got and ("IDENTIFIER", "cudaFree") in got


def test_spliced_identifier_spelling() -> None:
    tokens = lex(b"cuda\\\nMalloc(p);")
    assert tokens.text(0) == "cudaMalloc"
    assert tokens.raw(0) == b"cuda\\\nMalloc"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=200))
def test_round_trip_property(text: str) -> None:
    src = text.encode("utf-8")
    assert "".join(t.text for t in lex(src).with_gaps()).encode() == src


def test_closing_brace_steps_over_inner_blocks_and_reads_no_brace_in_a_comment_or_literal() -> None:
    src = b'void f() { if (a) { s = "}"; } /* } */ g({1, 2}); }\nvoid h() { {\n'
    tokens = lex(src)
    opening = [i for i in range(len(tokens)) if tokens.raw(i) == b"{"]
    closing = tokens.closing_brace(opening[0])
    assert closing is not None and tokens.starts[closing] == src.index(b"}\nvoid h")
    assert tokens.raw(tokens.closing_brace(opening[1]) or 0) == b"}"
    assert tokens.starts[tokens.closing_brace(opening[1]) or 0] == src.index(b"} /*")
    assert tokens.closing_brace(opening[-2]) is None  # h's body never closes


def _enclosing_by_walking_back(tokens: Tokens, k: int) -> list[int]:
    """The `{` around token k, found by reading every token back from k: what the braces index must answer."""
    found, depth = [], 0
    for j in range(k - 1, -1, -1):
        if tokens.kinds[j] != TokenKind.PUNCTUATION or tokens.raw(j) not in (b"{", b"}"):
            continue
        if tokens.raw(j) == b"}":
            depth += 1
        elif depth:
            depth -= 1
        else:
            found.append(j)
    return found


def test_enclosing_braces_innermost_first_over_blocks_comments_and_literals() -> None:
    src = b'namespace n { void f() { if (a) { s = "{"; } /* { */ x = 1; } }\nvoid h() { {\n y; } } }\n'
    tokens = lex(src)
    at = {t: next(i for i in range(len(tokens)) if tokens.raw(i) == t) for t in (b"x", b"s", b"y")}
    opens = [tokens.starts[j] for j in tokens.enclosing_braces(at[b"x"])]
    assert opens == [src.index(b"{ if"), src.index(b"{ void")]  # f's body, then the namespace's
    assert [tokens.starts[j] for j in tokens.enclosing_braces(at[b"s"])] == [src.index(b"{ s ="), *opens]
    assert len(list(tokens.enclosing_braces(at[b"y"]))) == 2  # h's body and its inner block; an extra } after


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["{", "}", "x", "/*{*/", '"}"', "\n"]), max_size=60))
def test_enclosing_braces_match_a_walk_back_over_every_token(parts: list[str]) -> None:
    tokens = lex(" ".join(parts).encode())
    for k in range(len(tokens) + 1):
        assert list(tokens.enclosing_braces(k)) == _enclosing_by_walking_back(tokens, k)
