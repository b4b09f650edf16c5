"""`hipconv compare EXPECTED ACTUAL`, through the command line: tolerances at their boundaries, timing
lines, verdicts, text, line counts, stdin, --format json and bad input (exit 2)."""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers import Run, run_cli

REPO = Path(__file__).resolve().parents[1]


def compare(tmp_path: Path, expected: str | bytes, actual: str | bytes, *options: str) -> Run:
    """Run `hipconv compare` on two files holding `expected` and `actual`."""
    paths = []
    for name, content in (("expected.txt", expected), ("actual.txt", actual)):
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        paths.append(path)
    return run_cli("compare", *paths, *options)


def out(run: Run) -> str:
    return run.stdout.decode()


# ---------------------------------------------------------------- numbers and tolerances


@pytest.mark.parametrize(
    ("expected", "actual", "options", "code"),
    [
        # default rtol 1e-5, atol 1e-8: tolerance at 100 is 0.00100001
        pytest.param("x = 100\n", "x = 100.00100001\n", (), 0, id="rtol-default-at-boundary"),
        pytest.param("x = 100\n", "x = 100.00100002\n", (), 1, id="rtol-default-just-beyond"),
        pytest.param("x = 100\n", "x = 99.99899999\n", (), 0, id="rtol-default-below-at-boundary"),
        pytest.param("x = 100\n", "x = 99.99899998\n", (), 1, id="rtol-default-below-just-beyond"),
        pytest.param("x = 1000\n", "x = 1000.01\n", ("--atol", "0"), 0, id="rtol-only-at-boundary"),
        pytest.param("x = 1000\n", "x = 1000.0101\n", ("--atol", "0"), 1, id="rtol-only-beyond"),
        pytest.param("x = 1000\n", "x = 1000.05\n", ("--rtol", "1e-4"), 0, id="looser-rtol"),
        # near zero only atol counts
        pytest.param("r = 0\n", "r = 1e-8\n", (), 0, id="atol-at-boundary"),
        pytest.param("r = 0\n", "r = -1.0000001e-8\n", (), 1, id="atol-beyond"),
        pytest.param("r = 0\n", "r = 5e-7\n", ("--atol", "1e-6"), 0, id="looser-atol"),
        pytest.param("r = 0.0\n", "r = -0\n", (), 0, id="negative-zero"),
        # the tolerance scales with EXPECTED, not ACTUAL (numpy's allclose)
        pytest.param("x = 1\n", "x = 2\n", ("--rtol", "0.5", "--atol", "0"), 1, id="relative-to-expected"),
        pytest.param("x = 2\n", "x = 1\n", ("--rtol", "0.5", "--atol", "0"), 0, id="relative-to-expected-2"),
        pytest.param("x = 2\n", "x = 0.99\n", ("--rtol", "0.5", "--atol", "0"), 1, id="relative-to-expected-3"),
        # spellings of one number
        pytest.param("a 1 2.5 -3\n", "a 1.0 2.500e+00 -3.000\n", ("--rtol", "0"), 0, id="same-value-other-format"),
        pytest.param("v = .5\n", "v = 0.5\n", ("--rtol", "0", "--atol", "0"), 0, id="leading-dot"),
        pytest.param("v = +7\n", "v = 7\n", ("--rtol", "0", "--atol", "0"), 0, id="plus-sign"),
        pytest.param(
            "n = 12345678901234567890\n",
            "n = 12345678901234567891\n",
            ("--rtol", "0", "--atol", "0"),
            1,
            id="big-int-exact",
        ),
        # inf and nan
        pytest.param("nan -nan nan(ind) NaN\n", "-nan nan NAN -nan(0x8000)\n", (), 0, id="nan-equals-nan"),
        pytest.param("inf -inf Infinity\n", "inf -inf INF\n", (), 0, id="inf-same-sign"),
        pytest.param("v = inf\n", "v = -inf\n", (), 1, id="inf-other-sign"),
        pytest.param("v = 1.0\n", "v = nan\n", (), 1, id="number-vs-nan"),
        pytest.param("v = 1e308\n", "v = inf\n", (), 1, id="large-vs-inf"),
        # hexadecimal integers are bit patterns: no tolerance
        pytest.param("mask 0xff\n", "mask 0xFF\n", (), 0, id="hex-case"),
        pytest.param("id 0x186a0\n", "id 0x186a1\n", ("--rtol", "1e-3"), 1, id="hex-exact"),
        # beyond a double's range: what strtod reads, the infinity of the sign (issue #40 item 8)
        pytest.param("v = 1e999999\n", "v = inf\n", (), 0, id="huge-exponent-is-inf"),
        pytest.param("v = 1e9999999999\n", "v = 1e999999\n", (), 0, id="huger-exponent-is-inf"),
        pytest.param("v = -1e9999999999\n", "v = -inf\n", (), 0, id="huge-negative-is-minus-inf"),
        pytest.param("v = 1e9999999999\n", "v = -1e9999999999\n", (), 1, id="huge-other-sign"),
        pytest.param("v = 1e9999999999\n", "v = 1\n", (), 1, id="huge-vs-finite"),
        pytest.param("v = 1.7976931348623157e308\n", "v = 1.7976931348623157e308\n", (), 0, id="double-max-finite"),
        pytest.param("v = 1.7976931348623157e308\n", "v = inf\n", (), 1, id="double-max-is-not-inf"),
        # below a double's smallest: a value next to zero, within atol of it
        pytest.param("v = 1e-999999999\n", "v = 0\n", (), 0, id="tiny-exponent-near-zero"),
        pytest.param("v = 1e-999999999\n", "v = 1e-9999999999999\n", ("--atol", "0"), 1, id="tiny-exact-atol-0"),
        pytest.param("v = 1e-99999\n", "v = 1e-5\n", (), 1, id="tiny-vs-small"),
        # printf's %a: a hex float is a number, read exactly, with the tolerances
        pytest.param("v = 0x1.8p+3\n", "v = 12\n", ("--rtol", "0", "--atol", "0"), 0, id="hex-float-exact"),
        pytest.param("v = 0x1.8p+3\n", "v = 12.0001\n", ("--rtol", "1e-4"), 0, id="hex-float-tolerance"),
        pytest.param("v = 0x1.8p+3\n", "v = 13\n", (), 1, id="hex-float-differs"),
        pytest.param("v = -0x1p-1074\n", "v = -0x0.0000000000001p-1022\n", ("--atol", "0"), 0, id="hex-subnormal"),
        pytest.param("v = 0x1p+99999\n", "v = inf\n", (), 0, id="hex-float-overflow-is-inf"),
        pytest.param("v = 0x1p-99999\n", "v = 0\n", (), 0, id="hex-float-underflow-is-zero"),
        pytest.param("v = nan\n", "v = 1e999999\n", (), 1, id="nan-vs-huge"),
        pytest.param("v = -nan\n", "v = nan\n", (), 0, id="negative-nan-is-nan"),
    ],
)
def test_numbers(tmp_path: Path, expected: str, actual: str, options: tuple[str, ...], code: int) -> None:
    result = compare(tmp_path, expected, actual, *options)
    assert result.code == code, (out(result), result.stderr)
    assert bool(out(result)) == bool(code)  # a difference is shown exactly when there is one


def test_number_difference_message(tmp_path: Path) -> None:
    result = compare(tmp_path, "n = 4\nsum = 1000\n", "n = 4\nsum = 1000.0101\n", "--atol", "0")
    assert result.code == 1
    assert out(result) == "line 2: expected 1000, got 1000.0101 (rel. diff 1.01e-05)\n"
    assert "different: 1 line of 2 compared (rtol 1e-05, atol 0)" in result.stderr


def test_difference_near_zero_is_absolute(tmp_path: Path) -> None:
    result = compare(tmp_path, "residual 0\n", "residual 2.5e-8\n")
    assert out(result) == "line 1: expected 0, got 2.5e-8 (abs. diff 2.5e-08)\n"


def test_numbers_glued_to_words_are_text(tmp_path: Path) -> None:
    """float4, sm_80, V100 and v1.2.3 are names, not numbers: a change in them is a text difference."""
    assert compare(tmp_path, "float4 sm_80 V100 v1.2.3\n", "float4 sm_80 V100 v1.2.3\n").code == 0
    result = compare(tmp_path, "arch sm_80\n", "arch sm_800000\n", "--rtol", "1")
    assert result.code == 1
    assert out(result) == 'line 1: expected "arch sm_80", got "arch sm_800000"\n'


def test_first_differing_number_of_a_line_is_shown(tmp_path: Path) -> None:
    result = compare(tmp_path, "row 1.0 2.0 3.0\n", "row 1.0 2.5 3.5\n")
    assert out(result) == "line 1: expected 2.0, got 2.5 (rel. diff 0.25)\n"


# ---------------------------------------------------------------- text


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        pytest.param("x=   1.50 y=  2\n", "x=1.5 y=2\n", id="field-widths"),
        pytest.param("a   b\tc  \n", "  a b c\n", id="whitespace-runs"),
        pytest.param("a\r\nb\r\n", "a\nb", id="crlf-and-final-newline"),
        pytest.param("a\n\n\nb\n\n", "a\nb\n", id="blank-lines"),
        pytest.param("\ufeffa 1\n", "a 1\n", id="utf8-bom"),
        pytest.param("", "\n  \n", id="both-empty"),
    ],
)
def test_text_equal_noop(tmp_path: Path, expected: str, actual: str) -> None:
    result = compare(tmp_path, expected, actual)
    assert result.code == 0, out(result)
    assert out(result) == ""


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        pytest.param("mode: fast\n", "mode: slow\n", id="word"),
        pytest.param("a b\n", "ab\n", id="space-inside-text"),
        pytest.param("values 1 2\n", "values 12\n", id="numbers-merged"),
        pytest.param("values 1, 2\n", "values 1 2\n", id="separator"),
        pytest.param("Done\n", "done\n", id="case"),
        pytest.param("n = 3\n", "n = three\n", id="number-vs-word"),
    ],
)
def test_text_differences(tmp_path: Path, expected: str, actual: str) -> None:
    result = compare(tmp_path, expected, actual, "--rtol", "1", "--atol", "100")
    assert result.code == 1
    shown = " ".join(expected.split())
    assert out(result) == f'line 1: expected "{shown}", got "{" ".join(actual.split())}"\n'


# ---------------------------------------------------------------- timing lines


TIMED_EXPECTED = "Kernel time: 0.118 ms\nbandwidth: 106.6 GB/s\nPerformance= 812.3 GFlop/s\nelapsed 3.2s\nsum = 42\n"
TIMED_ACTUAL = "Kernel time: 41.9 ms\nbandwidth: 0.3 GB/s\nPerformance= 2.1 GFlop/s\nelapsed 9.8s\nsum = 42\n"


def test_timing_lines_are_ignored_by_default(tmp_path: Path) -> None:
    result = compare(tmp_path, TIMED_EXPECTED, TIMED_ACTUAL)
    assert result.code == 0, out(result)
    assert "equal: 1 line compared" in result.stderr and "ignored 4 lines of EXPECTED, 4 of ACTUAL" in result.stderr


@pytest.mark.parametrize(
    "line",
    ["total 3.5ms", "took 12 usec", "12.5 µs", "copy 3.1 GiB/s", "throughput 3 items", "duration: 3", "3 sec"],
)
def test_units_glued_to_numbers_are_timings(tmp_path: Path, line: str) -> None:
    assert compare(tmp_path, f"{line}\n", f"{line.replace('3', '4').replace('12', '99')}\n").code == 0


@pytest.mark.parametrize(
    "line",
    ["items 3", "status 3", "runtime check 3", "3 buses", "times 3", "milestones 3", "columns 3", "float4 3"],
)
def test_data_lines_are_not_taken_for_timings_noop(tmp_path: Path, line: str) -> None:
    """Units and timing words inside other words do not make a line a timing line."""
    result = compare(tmp_path, f"{line}\n", f"{line.replace('3', '4')}\n")
    assert result.code == 1, line


def test_no_default_ignore_compares_timing_lines(tmp_path: Path) -> None:
    result = compare(tmp_path, TIMED_EXPECTED, TIMED_ACTUAL, "--no-default-ignore", "--max-diffs", "0")
    assert result.code == 1
    assert out(result).splitlines()[0] == "line 1: expected 0.118, got 41.9 (rel. diff 354)"
    assert len(out(result).splitlines()) == 4


def test_ignore_adds_patterns(tmp_path: Path) -> None:
    expected = "Device: NVIDIA A100\nKernel time: 1 ms\nsum = 42\n"
    actual = "Device: HIP-CPU\nKernel time: 7 ms\nsum = 42\n"
    assert compare(tmp_path, expected, actual).code == 1
    assert compare(tmp_path, expected, actual, "--ignore", "^device").code == 0  # case-insensitive
    # with --no-default-ignore, only what --ignore names is ignored
    alone = compare(tmp_path, expected, actual, "--ignore", "^Device", "--no-default-ignore")
    assert alone.code == 1 and out(alone) == "line 2: expected 1, got 7 (rel. diff 6)\n"


# ---------------------------------------------------------------- verdicts


@pytest.mark.parametrize(
    ("expected", "actual", "shown"),
    [
        pytest.param("Result = PASS\n", "Result = FAIL\n", "expected PASS, got FAIL", id="pass-fail"),
        pytest.param("Test passed\n", "Test failed\n", "expected passed, got failed", id="test-passed"),
        pytest.param("PASSED\n", "Passed\n", "expected PASSED, got Passed", id="case"),
        pytest.param("&&&& saxpy PASSED\n", "&&&& saxpy\n", "expected PASSED, got no verdict", id="verdict-gone"),
        # a verdict inside a line with numbers, the numbers within tolerance
        pytest.param("max err 1e-9 OK\n", "max err 2e-9 ERROR\n", "expected OK, got ERROR", id="with-numbers"),
        # a verdict inside a timing line, which is otherwise ignored
        pytest.param("Test PASSED in 3.1 ms\n", "Test FAILED in 2.9 ms\n", "expected PASSED, got FAILED", id="timing"),
    ],
)
def test_verdicts_compared_exactly(tmp_path: Path, expected: str, actual: str, shown: str) -> None:
    result = compare(tmp_path, expected, actual, "--rtol", "10")
    assert result.code == 1
    assert out(result).startswith(f"line 1: {shown} (verdict, in ")


def test_verdict_reported_before_an_earlier_number(tmp_path: Path) -> None:
    """A line whose numbers and verdict both differ is reported as a verdict difference, and one whose
    numbers and later text differ as a text difference."""
    result = compare(tmp_path, "err 1.0 PASS\nerr 1.0 mode a\n", "err 9.0 FAIL\nerr 9.0 mode b\n", "--max-diffs", "0")
    lines = out(result).splitlines()
    assert lines[0].startswith("line 1: expected PASS, got FAIL (verdict")
    assert lines[1] == 'line 2: expected "err 1.0 mode a", got "err 9.0 mode b"'


def test_verdict_in_timing_line_equal(tmp_path: Path) -> None:
    """Only the verdict of a timing line is compared: its times may differ."""
    result = compare(tmp_path, "Test PASSED in 3.1 ms\n", "Test PASSED in 9.9 ms (4 GB/s)\n")
    assert result.code == 0, out(result)


# ---------------------------------------------------------------- line counts


def test_actual_ends_early(tmp_path: Path) -> None:
    result = compare(tmp_path, "a 1\nb 2\nc 3\n", "a 1\n")
    assert result.code == 1
    assert out(result) == 'line 2: expected "b 2", got end of output (2 missing lines)\n'
    assert "different: 2 lines of 3 compared" in result.stderr


def test_empty_actual(tmp_path: Path) -> None:
    """A program that crashed before printing anything."""
    result = compare(tmp_path, "PASS\n", "")
    assert result.code == 1 and out(result) == 'line 1: expected "PASS", got end of output (1 missing line)\n'


def test_actual_has_more_lines(tmp_path: Path) -> None:
    result = compare(tmp_path, "a 1\n", "a 1\nwarning: retried\n")
    assert result.code == 1
    assert out(result) == 'actual line 2: expected end of output, got "warning: retried" (1 extra line)\n'


def test_line_numbers_of_both_sides_after_ignored_lines(tmp_path: Path) -> None:
    result = compare(tmp_path, "time 1 ms\nv 1\n", "v 2\n")
    assert out(result) == "line 2 (actual line 1): expected 1, got 2 (rel. diff 1)\n"


# ---------------------------------------------------------------- how much is shown


def test_max_diffs(tmp_path: Path) -> None:
    expected = "".join(f"v {i}\n" for i in range(1, 13))
    actual = "".join(f"v {i + 1}\n" for i in range(1, 13))
    default = compare(tmp_path, expected, actual)
    lines = out(default).splitlines()
    assert len(lines) == 11 and lines[-1] == "... 2 more (--max-diffs 0 shows all)"
    assert len(out(compare(tmp_path, expected, actual, "--max-diffs", "0")).splitlines()) == 12
    assert out(compare(tmp_path, expected, actual, "--max-diffs", "1")).splitlines()[1:] == [
        "... 11 more (--max-diffs 0 shows all)"
    ]


def test_quiet_hides_the_verdict_line(tmp_path: Path) -> None:
    result = compare(tmp_path, "v 1\n", "v 2\n", "-q")
    assert result.code == 1 and out(result) and result.stderr == ""
    assert compare(tmp_path, "v 1\n", "v 1\n", "-q").stderr == ""


# ---------------------------------------------------------------- stdin


def cli(*args: str, stdin: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "hipconv", *args], input=stdin, capture_output=True, cwd=cwd, env=env, timeout=120
    )


def test_stdin_as_actual_or_expected(tmp_path: Path) -> None:
    (tmp_path / "expected.txt").write_text("sum = 1.0\nPASS\n")
    piped = cli("compare", "expected.txt", "-", stdin=b"sum = 1.000001\nPASS\n", cwd=tmp_path)
    assert piped.returncode == 0, piped.stderr
    other = cli("compare", "-", "expected.txt", stdin=b"sum = 1.1\nPASS\n", cwd=tmp_path)
    assert other.returncode == 1
    assert other.stdout.decode() == "line 1: expected 1.1, got 1.0 (rel. diff 0.0909)\n"
    both = cli("compare", "-", "-", stdin=b"", cwd=tmp_path)
    assert both.returncode == 2
    assert "error: EXPECTED and ACTUAL cannot both be - (stdin)" in both.stderr.decode()


# ---------------------------------------------------------------- JSON


def test_json_shape(tmp_path: Path) -> None:
    expected = "n 4\ntime 1 ms\nsum = 0\nResult = PASS\nc 3\n"
    actual = "n 4\ntime 9 ms\nsum = 2e-7\nResult = FAIL\n"
    result = compare(tmp_path, expected, actual, "--format", "json")
    assert result.code == 1 and result.stderr == ""
    report = json.loads(result.stdout)
    assert report == {
        "version": 1,
        "equal": False,
        "expected": {"path": str(tmp_path / "expected.txt"), "lines": 5, "compared": 4, "ignored": 1},
        "actual": {"path": str(tmp_path / "actual.txt"), "lines": 4, "compared": 3, "ignored": 1},
        "rtol": 1e-05,
        "atol": 1e-08,
        "ignore": [report["ignore"][0]],
        "differences": 3,
        "shown": [
            {
                "kind": "number",
                "line": 3,
                "actual_line": 3,
                "expected": "0",
                "got": "2e-7",
                "expected_text": "sum = 0",
                "got_text": "sum = 2e-7",
                "abs_diff": 2e-07,
                "rel_diff": None,
                "count": 1,
                "message": "line 3: expected 0, got 2e-7 (abs. diff 2e-07)",
            },
            {
                "kind": "verdict",
                "line": 4,
                "actual_line": 4,
                "expected": "PASS",
                "got": "FAIL",
                "expected_text": "Result = PASS",
                "got_text": "Result = FAIL",
                "abs_diff": None,
                "rel_diff": None,
                "count": 1,
                "message": 'line 4: expected PASS, got FAIL (verdict, in "Result = PASS" and "Result = FAIL")',
            },
            {
                "kind": "missing",
                "line": 5,
                "actual_line": None,
                "expected": "c 3",
                "got": None,
                "expected_text": "c 3",
                "got_text": None,
                "abs_diff": None,
                "rel_diff": None,
                "count": 1,
                "message": 'line 5: expected "c 3", got end of output (1 missing line)',
            },
        ],
    }
    assert "time" in report["ignore"][0]


def test_json_equal_and_limited(tmp_path: Path) -> None:
    equal = json.loads(compare(tmp_path, "a 1\n", "a 1.0\n", "--format", "json").stdout)
    assert equal["equal"] is True and equal["differences"] == 0 and equal["shown"] == []
    many = compare(tmp_path, "a 1\nb 1\nc 1\n", "a 2\nb 2\nc 2\n", "--format", "json", "--max-diffs", "2")
    report = json.loads(many.stdout)
    assert report["differences"] == 3 and [d["line"] for d in report["shown"]] == [1, 2]
    user = json.loads(
        compare(tmp_path, "a\n", "a\n", "--format", "json", "--no-default-ignore", "--ignore", "x").stdout
    )
    assert user["ignore"] == ["x"]


def test_json_has_no_infinity(tmp_path: Path) -> None:
    """A difference beyond a float's range is null, never JSON's invalid Infinity."""
    result = compare(tmp_path, "v 1e-400\n", "v 1e400\n", "--format", "json")
    assert b"Infinity" not in result.stdout
    assert json.loads(result.stdout)["shown"][0]["abs_diff"] is None


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("expected", "actual", "options", "message"),
    [
        pytest.param(b"a\n", b"a\0b\n", (), "actual.txt: a binary file (NUL byte at offset 1)", id="binary"),
        pytest.param(b"caf\xe9 1\n", b"a\n", (), "expected.txt: not UTF-8 (byte 0xe9 at offset 3)", id="latin1"),
        pytest.param(
            b"a\n",
            b"a\n",
            ("--rtol", "-1e-5"),
            "--rtol -1e-05: a tolerance must be a finite number >= 0",
            id="negative-rtol",
        ),
        pytest.param(b"a\n", b"a\n", ("--atol", "-1"), "--atol -1.0: a tolerance must be", id="negative-atol"),
        pytest.param(b"a\n", b"a\n", ("--atol", "nan"), "--atol nan: a tolerance must be", id="nan-atol"),
        pytest.param(b"a\n", b"a\n", ("--rtol", "inf"), "--rtol inf: a tolerance must be", id="inf-rtol"),
        pytest.param(b"a\n", b"a\n", ("--rtol", "abc"), "'abc' is not a valid float", id="not-a-number"),
        pytest.param(b"a\n", b"a\n", ("--ignore", "(time"), "--ignore '(time': not a regular expression", id="regex"),
        # a pattern found in every line would call any two outputs equal (issue #40)
        pytest.param(b"a\n", b"b\n", ("--ignore", ""), "--ignore '': matches the empty string", id="empty-ignore"),
        pytest.param(b"a\n", b"b\n", ("--ignore", "x*"), "--ignore 'x*': matches the empty string", id="star-ignore"),
        pytest.param(b"a\n", b"b\n", ("--ignore", "a|"), "--ignore 'a|': matches the empty string", id="alt-ignore"),
        pytest.param(b"a\n", b"a\n", ("--max-input", "0"), "--max-input", id="max-input-0"),
        pytest.param(b"a\n", b"a\n", ("--max-diffs", "-1"), "--max-diffs", id="max-diffs"),
        pytest.param(b"a\n", b"a\n", ("--format", "xml"), "'xml' is not one of 'text', 'json'", id="format"),
    ],
)
def test_bad_input_exits_2(
    tmp_path: Path, expected: bytes, actual: bytes, options: tuple[str, ...], message: str
) -> None:
    result = compare(tmp_path, expected, actual, *options)
    assert result.code == 2
    assert message in result.stderr
    assert result.stdout == b""


def test_ignore_that_matches_text_is_kept(tmp_path: Path) -> None:
    """A pattern that needs text to match (`^seed`, `a+`) is no empty pattern: it ignores only its lines."""
    result = compare(tmp_path, "seed 1\nv 2\n", "seed 9\nv 3\n", "--ignore", "^seed", "--ignore", "q+")
    assert result.code == 1 and "expected 2, got 3" in out(result)


@pytest.mark.parametrize("which", ["expected", "actual", "stdin"])
def test_input_larger_than_max_input_exits_2(tmp_path: Path, which: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An output over --max-input stops compare before anything is compared; only the limit and one byte
    more are read (a program that printed without end cannot exhaust memory)."""
    big = b"v 1\n" * (2**18 + 1)  # one line over 1 MiB
    small = b"v 1\n"
    expected, actual = (big, small) if which == "expected" else (small, big)
    if which == "stdin":
        (tmp_path / "expected.txt").write_bytes(small)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(big)))
        result = run_cli("compare", "--max-input", "1", tmp_path / "expected.txt", "-")
        label = "stdin"
    else:
        result = compare(tmp_path, expected, actual, "--max-input", "1")
        label = str(tmp_path / f"{which}.txt")
    assert result.code == 2 and result.stdout == b""
    assert f"error: {label}: larger than 1 MiB (--max-input); nothing was compared" in result.stderr
    assert compare(tmp_path, big, big, "--max-input", "2").code == 0


def test_max_input_reads_no_more_than_the_limit(tmp_path: Path) -> None:
    """An endless input (/dev/zero) is an error at the limit, not a hang or an exhausted memory."""
    (tmp_path / "expected.txt").write_text("a\n")
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero on this system")
    result = run_cli("compare", "--max-input", "1", tmp_path / "expected.txt", "/dev/zero")
    assert result.code == 2 and "/dev/zero: larger than 1 MiB" in result.stderr


# ---------------------------------------------------------------- --verdicts: programs that check themselves


@pytest.mark.parametrize(
    ("output", "code", "shown"),
    [
        pytest.param("n = 1024\nmax error: 1.2e-07\nTest passed\n", 0, ["line 3: PASS: Test passed"], id="passed"),
        pytest.param("Result = PASS\n&&&& vecadd PASSED\n", 0, ["line 1: PASS", "line 2: PASS"], id="two-passes"),
        pytest.param("Passed: 12, Failed: 0\n", 0, ["line 1: PASS: Passed: 12, Failed: 0"], id="zero-failed"),
        pytest.param("0 failures\ncheck: SUCCESS\n", 0, ["line 1: PASS", "line 2: PASS"], id="zero-failures"),
        pytest.param(
            "Test passed\nTest FAILED at 17\n", 1, ["line 1: PASS", "line 2: FAIL: Test FAILED at 17"], id="one-failed"
        ),
        pytest.param("Passed: 0, Failed: 3\n", 1, ["line 1: FAIL"], id="counted-failures"),
        pytest.param("[FAIL] reduce\n", 1, ["line 1: FAIL: [FAIL] reduce"], id="bracketed"),
        # no verdict line: not proven, so it does not pass
        pytest.param("sum = 42\nmax error: 0\nmismatches: 0\n", 1, [], id="no-verdict"),
        pytest.param("", 1, [], id="empty"),
        # words that hold a verdict word are not verdicts
        pytest.param("compass bypass failsafe\n", 1, [], id="glued-words"),
    ],
)
def test_verdicts_gate_on_the_program_s_own_check(tmp_path: Path, output: str, code: int, shown: list[str]) -> None:
    (tmp_path / "out.txt").write_text(output)
    result = run_cli("compare", "--verdicts", tmp_path / "out.txt")
    assert result.code == code, result.stderr
    lines = out(result).splitlines()
    assert len(lines) == len(shown) and all(line.startswith(want) for line, want in zip(lines, shown))
    summary = {0: "passed: ", 1: "failed: " if shown else "no verdict: "}[code]
    assert result.stderr.startswith(summary)


def test_verdicts_json(tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_text("x 1\nTest FAILED\n")
    result = run_cli("compare", "--verdicts", "--format", "json", tmp_path / "out.txt")
    assert result.code == 1
    assert json.loads(result.stdout) == {
        "version": 1,
        "mode": "verdicts",
        "path": str(tmp_path / "out.txt"),
        "passed": False,
        "verdicts": [{"line": 2, "verdict": "fail", "text": "Test FAILED"}],
        "summary": "failed: 1 of 1 verdict line says it failed",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(("--verdicts", "a.txt", "a.txt"), "--verdicts reads one output", id="two-outputs"),
        pytest.param(("a.txt",), "compare needs EXPECTED and ACTUAL", id="one-output-without-verdicts"),
        pytest.param(("--verdicts", "missing.txt"), "missing.txt: cannot read", id="missing"),
    ],
)
def test_verdicts_bad_use_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("PASS\n")
    result = run_cli("compare", *args)
    assert result.code == 2 and message in result.stderr and result.stdout == b""


@pytest.mark.parametrize("which", ["missing", "directory"])
def test_unreadable_file_exits_2(tmp_path: Path, which: str) -> None:
    (tmp_path / "expected.txt").write_text("a\n")
    target = tmp_path / "out"
    if which == "directory":
        target.mkdir()
    result = run_cli("compare", tmp_path / "expected.txt", target)
    assert result.code == 2 and result.stdout == b""
    assert result.stderr.startswith(f"error: {target}: cannot read: ")


def test_help_shows_the_defaults() -> None:
    from hipconv.compare import DEFAULT_IGNORE

    result = run_cli("compare", "--help")
    assert result.code == 0
    text = " ".join(out(result).split())
    assert "--rtol FLOAT" in text and "[default: 1e-05]" in text and "[default: 1e-08]" in text
    assert "allclose" in text and "Exit 0 when they are equal, 1 when they differ, 2 for bad input" in text
    assert "".join(DEFAULT_IGNORE.split()) in "".join(out(result).split())


# ---------------------------------------------------------------- docs/verify-a-port.md

DOCS = REPO / "docs" / "verify-a-port.md"
RECORDED = "saxpy on 1048576 elements\nkernel time: 0.118 ms\nbandwidth: 106.6 GB/s\nchecksum = 1.83243275\n"
RECORDED += "max error = 0\nResult = PASS\n"
PORT_OUTPUT = "hip/.hipconv-cpu/bin/saxpy.out"  # where `hipconv build --backend hip-cpu --run` saves src/saxpy.cu's


def blocks(language: str) -> list[str]:
    """The page's fenced blocks in `language`."""
    return [b.split("```", 1)[0] for b in DOCS.read_text(encoding="utf-8").split(f"```{language}\n")[1:]]


def compare_commands() -> list[tuple[list[str], bool, str | None]]:
    """(the words after `hipconv`, whether stdin is a pipe, the file stdout is redirected to) of every
    `hipconv compare` the page shows, in its shell blocks and its CI workflow."""
    lines = [line for block in blocks("sh") for line in block.splitlines()]
    lines += [step.get("run", "") for step in yaml_workflow()["jobs"]["cpu-run"]["steps"]]
    found = []
    for line in lines:
        piped = "|" in line
        words = shlex.split(line.split("|")[-1], comments=True)
        if words[:2] == ["hipconv", "compare"]:
            redirect = words[words.index(">") + 1] if ">" in words else None
            found.append((words[1 : words.index(">")] if redirect else words[1:], piped, redirect))
    return found


def yaml_workflow() -> dict[Any, Any]:
    (block,) = blocks("yaml")
    loaded = yaml.safe_load(block)
    assert isinstance(loaded, dict)
    return loaded


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """expected/saxpy.txt and the port's output as the page's example has them, in the working directory."""
    (tmp_path / "expected").mkdir()
    (tmp_path / PORT_OUTPUT).parent.mkdir(parents=True)
    (tmp_path / "expected" / "saxpy.txt").write_text(RECORDED)
    actual = RECORDED.replace("0.118 ms", "41.9 ms").replace("106.6 GB/s", "0.3 GB/s").replace("PASS", "FAIL")
    actual = actual.replace("1.83243275", "1.83251953") + "warning: 3 blocks retried\n"
    (tmp_path / PORT_OUTPUT).write_text(actual)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_docs_commands_run_as_shown(recorded: Path) -> None:
    commands = compare_commands()
    assert len(commands) == 6  # the workflow, the three of "Run and compare", --verdicts, the CI step
    shown_output = blocks("text")[0]
    for words, piped, redirect in commands:
        if piped:
            done = cli(*words, stdin=(recorded / PORT_OUTPUT).read_bytes(), cwd=recorded)
            code, stdout = done.returncode, done.stdout
        else:
            result = run_cli(*words)
            code, stdout = result.code, result.stdout
        assert code == 1, words  # the example's port prints FAIL where CUDA printed PASS
        if words == ["compare", "expected/saxpy.txt", PORT_OUTPUT]:
            assert stdout.decode() == shown_output
        if redirect:
            (recorded / redirect).write_bytes(stdout)
            assert json.loads(stdout)["shown"][1]["kind"] == "verdict"


SAXPY = r"""// y = 2x + y, as the page's saxpy: a checksum, a timing and a verdict
#include <cstdio>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 16;
  static float x[n], y[n];
  for (int i = 0; i < n; ++i) {
    x[i] = (i % 16) / 16.0f;
    y[i] = 1.0f;
  }
  float *dx, *dy;
  cudaMalloc(&dx, sizeof(x));
  cudaMalloc(&dy, sizeof(y));
  cudaMemcpy(dx, x, sizeof(x), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, sizeof(y), cudaMemcpyHostToDevice);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, dx, dy);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaMemcpy(y, dy, sizeof(y), cudaMemcpyDeviceToHost);
  double sum = 0, error = 0;
  for (int i = 0; i < n; ++i) {
    sum += y[i];
    double e = y[i] - (2.0 * x[i] + 1.0);
    error = e > error ? e : (-e > error ? -e : error);
  }
  printf("saxpy on %d elements\nkernel time: %.3f ms\n", n, ms);
  printf("bandwidth: %.1f GB/s\n", 3.0 * sizeof(float) * n / (ms > 0 ? ms : 1e-3) / 1e6);
  printf("checksum = %.9g\nmax error = %g\nResult = %s\n", sum / n, error, error == 0 ? "PASS" : "FAIL");
  cudaFree(dx);
  cudaFree(dy);
  return error == 0 ? 0 : 1;
}
"""
SAXPY_RECORDED = "saxpy on 65536 elements\nkernel time: 0.021 ms\nbandwidth: 37.4 GB/s\nchecksum = 1.9375\n"
SAXPY_RECORDED += "max error = 0\nResult = PASS\n"  # what the CUDA build prints: 1 + 2 * mean(x), x = 0/16 .. 15/16


def test_docs_build_and_compare_run_as_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's first block, steps 2-5: its `hipconv build` (with this machine's HIP-CPU for ~/HIP-CPU)
    builds and runs a small saxpy of our own, and its `hipconv compare` finds the output equal to the one
    recorded for CUDA (the timing lines differ)."""
    from test_hip_cpu import HIP_CPU, missing_tools

    reason = missing_tools()
    if reason is not None:
        pytest.skip(reason)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "saxpy.cu").write_text(SAXPY)
    (tmp_path / "expected").mkdir()
    (tmp_path / "expected" / "saxpy.txt").write_text(SAXPY_RECORDED)
    monkeypatch.chdir(tmp_path)
    commands = [shlex.split(line, comments=True) for line in blocks("sh")[0].splitlines()]
    (build,) = [words[1:] for words in commands if words[:2] == ["hipconv", "build"]]
    (compare,) = [words[1:] for words in commands if words[:2] == ["hipconv", "compare"]]
    built = run_cli(*[str(HIP_CPU.parent) if word == "~/HIP-CPU" else word for word in build])
    assert built.code == 0, built.stderr
    assert f"ran: saxpy: exit 0 (output in {PORT_OUTPUT})" in built.stderr.splitlines(), built.stderr
    result = run_cli(*compare)
    assert result.code == 0, result.stdout.decode() + result.stderr
    assert "Result = PASS" in (tmp_path / PORT_OUTPUT).read_text()


def test_docs_json_example_is_what_compare_prints(recorded: Path) -> None:
    """The page's JSON is the output for its example, where only the checksum differs."""
    (recorded / PORT_OUTPUT).write_text(RECORDED.replace("1.83243275", "1.83251953"))
    result = run_cli("compare", "expected/saxpy.txt", PORT_OUTPUT, "--format", "json")
    assert result.code == 1
    printed = json.loads(result.stdout)
    shown = json.loads(blocks("json")[0])
    assert printed["ignore"][0].startswith(shown["ignore"][0].removesuffix("..."))
    assert shown == {**printed, "ignore": shown["ignore"]}


def test_docs_name_the_rules_the_code_applies() -> None:
    from hipconv.compare import DEFAULT_IGNORE, VERDICT

    text = DOCS.read_text(encoding="utf-8")
    assert f"\n  {DEFAULT_IGNORE}\n" in text
    words = VERDICT.pattern.split("(", 2)[2].split(")")[0].split("|")
    listed = text.split("**Verdicts** (", 1)[1].split(", in any case)", 1)[0]
    assert " ".join(listed.replace("`", "").split()).split(", ") == [w.upper() for w in words]
    for option in ("--rtol", "--atol", "--ignore", "--no-default-ignore", "--max-diffs", "--format json", "-q"):
        assert f"| `{option}" in text, option


def test_docs_workflow_is_valid_for_github_actions(tmp_path: Path) -> None:
    (block,) = blocks("yaml")
    (tmp_path / "verify.yml").write_text(block)
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", "verify.yml"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_readme_links_the_page() -> None:
    assert "(docs/verify-a-port.md)" in (REPO / "README.md").read_text(encoding="utf-8")
