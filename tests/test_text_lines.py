"""Line numbers after a form feed (issue #40, low): str.splitlines() also breaks at \\f, \\v, \\x1c-\\x1e,
\\x85 and U+2028/U+2029, so every line number after one was off by one, in compare's and --verdicts' reports,
build --run's Makefile `run` commands and HC407's lines, and a Makefile line or .gitignore pattern holding
one was cut in two. Each reader numbers lines as C and editors do (hipconv.text_lines)."""

from __future__ import annotations

import pytest

from hipconv.builder.make_reader import logical_lines
from hipconv.compare import compare_outputs
from hipconv.text_lines import text_lines
from hipconv.verdicts import read_verdicts

BREAKS_OF_SPLITLINES = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("odd", BREAKS_OF_SPLITLINES, ids=[f"U+{ord(c):04X}" for c in BREAKS_OF_SPLITLINES])
def test_only_line_feeds_and_returns_end_lines(odd: str) -> None:
    assert text_lines(f"a{odd}b\nc\r\nd\re\n") == [f"a{odd}b", "c", "d", "e"]


@pytest.mark.parametrize("text", ["", "\n", "a", "a\n", "a\n\n", "\r\n", "a\r\nb\r\n"])
def test_the_same_as_splitlines_without_the_odd_breaks(text: str) -> None:
    assert text_lines(text) == text.splitlines()


@pytest.mark.parametrize("odd", BREAKS_OF_SPLITLINES, ids=[f"U+{ord(c):04X}" for c in BREAKS_OF_SPLITLINES])
def test_compare_names_the_line_that_differs(odd: str) -> None:
    expected = f"header{odd}page 2\nsum = 1\nlast = 3\n"
    actual = f"header{odd}page 2\nsum = 1\nlast = 4\n"
    found = compare_outputs(expected, actual)
    assert [(d.line, d.actual_line) for d in found.differences] == [(3, 3)]
    assert found.expected.lines == 3


def test_a_verdict_line_is_numbered_as_the_file_is() -> None:
    verdicts = read_verdicts("out.txt", "run 1\f\nrun 2\nTest PASSED\n")
    assert [line.number for line in verdicts.lines] == [3]


def test_a_makefile_line_with_a_form_feed_stays_one_line() -> None:
    assert list(logical_lines("CFLAGS = -O2\f-g \\\n  -DX\nall: app\n")) == ["CFLAGS = -O2\f-g  -DX", "all: app"]
