"""`hipconv compare`: two program outputs compared the way a numerical analyst would.

Each line is cut into numbers and the text between them. Numbers are equal when
|actual - expected| <= atol + rtol * |expected| (numpy's `allclose`, with EXPECTED as the reference),
computed in decimal from the printed digits, so a tolerance of 1e-5 means exactly that. Text must match
exactly once runs of whitespace are collapsed and the whitespace beside a number is dropped (printf's
field widths do not count). Verdict words (PASS, FAILED, OK, ERROR, ...) are compared exactly, even in a
line that is otherwise ignored. Lines that report timings or bandwidth are ignored (DEFAULT_IGNORE, or
the caller's patterns), and so are blank lines; the remaining lines are paired in order, so a line one
side lacks is a difference.

Pure functions of text: reading the two outputs (read_output) is the only I/O; printing is hipconv.cli's.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal
from typing import Any, BinaryIO, Literal

from hipconv.errors import ConfigError
from hipconv.text_lines import text_lines

RTOL, ATOL = 1e-5, 1e-8  # numpy.allclose's defaults
JSON_VERSION = 1
# A line that says how long something took or how fast it ran; searched case-insensitively. A unit may
# be glued to its number (3.2ms, 12GB/s) but not to a letter (items, status, runtime stay data).
DEFAULT_IGNORE = (
    r"(?<![a-z])(time|timing|timer|elapsed|duration|ms|msec|millisec\w*|us|usec|µs|ns|nsec|sec|secs|seconds?"
    r"|[kmgt]i?b/s|[mgtp]flop/?s|bandwidth|throughput)(?![a-z])"
)
VERDICT = re.compile(
    r"(?<![a-z])(pass|passed|fail|failed|failure|ok|error|errors|success|successful|succeeded|correct"
    r"|incorrect|mismatch|mismatches)(?![a-z])",
    re.IGNORECASE,
)
# A number: not glued after a letter, digit, '_' or '.' (float4, sm_80, v1.2.3 stay text); hex floats
# (printf's %a), hex integers, decimal integers and floats with an exponent, inf and nan (as glibc and MSVC
# print them). The lookahead first: most positions fail on it, which is faster than on the lookbehind.
NUMBER = re.compile(
    r"(?=[-+.\dIiNn])(?<![\w.])(?:(?P<hexfloat>[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)"
    r"|(?P<hex>[+-]?0[xX][0-9a-fA-F]+)"
    r"|(?P<dec>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<special>[+-]?(?:inf(?:inity)?|nan)(?:\([\w]*\))?)(?!\w))",
    re.IGNORECASE,
)
Kind = Literal["number", "text", "verdict", "missing", "extra"]
MAX_INPUT_MB = 64  # the largest output read (--max-input): beyond it, compare stops with an error
# The arithmetic of the differences: exact enough for any tolerance, and no exponent traps (a printed
# 1e999999 or 1e-999999 is a value, never an exception).
_ARITHMETIC = Context(prec=34, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[])
_DOUBLE_MAX = Decimal(sys.float_info.max)
Tolerance = tuple[Decimal, Decimal]  # (atol, rtol)


@dataclass(frozen=True)
class Rules:
    """What counts as equal: the tolerances and the patterns of lines to ignore."""

    rtol: float = RTOL
    atol: float = ATOL
    ignore: tuple[str, ...] = (DEFAULT_IGNORE,)

    def __post_init__(self) -> None:
        for name, value in (("--rtol", self.rtol), ("--atol", self.atol)):
            if not math.isfinite(value) or value < 0:
                raise ConfigError(f"{name} {value}: a tolerance must be a finite number >= 0")

    def ignored(self) -> list[tuple[re.Pattern[str], bool]]:
        """(pattern, whether it is searched in the lower-cased line): the default pattern is written in
        lower case, which is several times faster than an IGNORECASE search; the caller's patterns are
        searched case-insensitively in the line as it is."""
        patterns = []
        for text in self.ignore:
            try:
                lower = text == DEFAULT_IGNORE
                pattern = re.compile(text, 0 if lower else re.IGNORECASE)
            except re.error as exc:
                raise ConfigError(f"--ignore {text!r}: not a regular expression: {exc}") from None
            if pattern.fullmatch(""):
                raise ConfigError(
                    f"--ignore {text!r}: matches the empty string, so it is found in every line and would ignore "
                    "them all",
                    hint="give a pattern that matches some text, e.g. --ignore 'seed:'",
                )
            patterns.append((pattern, lower))
        return patterns

    def tolerance(self) -> tuple[Decimal, Decimal]:
        """(atol, rtol) as the decimals their shortest spelling says (1e-05 is exactly 1e-5)."""
        return Decimal(repr(self.atol)), Decimal(repr(self.rtol))


@dataclass(frozen=True)
class Line:
    """A line that takes part in the comparison: its number in the file and its text; `verdict_only`:
    it matched an ignore pattern, and only its verdict words are compared."""

    number: int
    text: str
    verdict_only: bool = False

    @property
    def shown(self) -> str:
        return " ".join(self.text.split())


@dataclass(frozen=True)
class Difference:
    """One line pair that differs, or the lines one side has beyond the other's end (`count` of them).
    `expected`/`got`: the numbers or the verdict words that differ, else the whole lines (None: that side
    has no line there); `expected_text`/`got_text`: the whole lines, whitespace collapsed."""

    kind: Kind
    line: int | None  # in EXPECTED; None for lines only ACTUAL has
    actual_line: int | None  # in ACTUAL; None for lines only EXPECTED has
    expected: str | None
    got: str | None
    expected_text: str | None
    got_text: str | None
    abs_diff: float | None = None
    rel_diff: float | None = None
    count: int = 1

    @property
    def message(self) -> str:
        """`line N: expected X, got Y (rel. diff Z)`, and the like for the other kinds."""
        where = _where(self.line, self.actual_line)
        return f"{where}: expected {self._shown(self.expected)}, got {self._shown(self.got)}{self._note()}"

    def _shown(self, value: str | None) -> str:
        if value is None:
            return "end of output"
        if self.kind == "verdict":
            return value or "no verdict"
        if self.kind == "number":
            return value
        return f'"{value}"'

    def _note(self) -> str:
        if self.kind == "verdict":
            return f' (verdict, in "{self.expected_text}" and "{self.got_text}")'
        if self.kind in ("missing", "extra"):
            return f" ({self.count} {self.kind} line{_s(self.count)})"
        if self.rel_diff is not None:
            return f" (rel. diff {self.rel_diff:.3g})"
        return f" (abs. diff {self.abs_diff:.3g})" if self.abs_diff is not None else ""


@dataclass(frozen=True)
class Side:
    name: str  # the path as given, or "-"
    lines: int  # all lines
    compared: int
    ignored: int  # matched an ignore pattern (lines kept for their verdicts count as compared)


@dataclass(frozen=True)
class Comparison:
    expected: Side
    actual: Side
    rules: Rules
    differences: tuple[Difference, ...]

    @property
    def equal(self) -> bool:
        return not self.differences

    @property
    def different_lines(self) -> int:
        return sum(d.count for d in self.differences)


def _where(line: int | None, actual_line: int | None) -> str:
    if line is None:
        return f"actual line {actual_line}"
    return f"line {line}" if actual_line in (None, line) else f"line {line} (actual line {actual_line})"


def read_output(name: str, stdin: BinaryIO, *, max_mb: int = MAX_INPUT_MB) -> str:
    """The text of the output file `name` (`-`: stdin); a ConfigError when it cannot be read, is larger
    than `max_mb` MiB (only that much and one byte more is read), holds a NUL byte (binary) or is not
    UTF-8. A leading byte-order mark is dropped."""
    label = "stdin" if name == "-" else name
    limit = max_mb * 2**20
    try:
        if name == "-":
            data = stdin.read(limit + 1)
        else:
            with open(name, "rb") as file:
                data = file.read(limit + 1)
    except OSError as exc:
        raise ConfigError(f"{label}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise ConfigError(
            f"{label}: larger than {max_mb} MiB (--max-input); nothing was compared",
            hint=f"raise --max-input, or compare a part of it (head -c {max_mb}M {label} > part.txt)",
        )
    nul = data.find(b"\0")
    if nul >= 0:
        raise ConfigError(
            f"{label}: a binary file (NUL byte at offset {nul})",
            hint="compare the text a program prints; convert binary dumps to text first",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{label}: not UTF-8 (byte {data[exc.start]:#04x} at offset {exc.start})",
            hint="re-encode it, e.g. iconv -f latin1 -t utf-8",
        ) from None


def compare_outputs(
    expected: str, actual: str, rules: Rules = Rules(), *, names: tuple[str, str] = ("-", "-")
) -> Comparison:
    """Compare the text of two outputs line by line."""
    patterns = rules.ignored()
    sides, kept = [], []
    for name, text in zip(names, (expected, actual)):
        lines = text_lines(text)
        ours = list(_kept(lines, patterns))
        kept.append(ours)
        ignored = sum(line.verdict_only for line in ours) + sum(1 for li in lines if li.strip()) - len(ours)
        sides.append(Side(name, len(lines), len(ours), ignored))
    differences = tuple(_differences(kept[0], kept[1], rules.tolerance()))
    return Comparison(sides[0], sides[1], rules, differences)


def _kept(lines: Sequence[str], patterns: Sequence[tuple[re.Pattern[str], bool]]) -> Iterator[Line]:
    """The lines compared: not blank, and not ignored unless they hold a verdict."""
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        lowered = text.lower()
        if any(p.search(lowered if lower else text) for p, lower in patterns):
            if VERDICT.search(text):
                yield Line(number, text, verdict_only=True)
            continue
        yield Line(number, text)


def _differences(expected: list[Line], actual: list[Line], tolerance: Tolerance) -> Iterator[Difference]:
    for e, a in zip(expected, actual):
        if e.text != a.text:
            found = _line_difference(e, a, tolerance)
            if found is not None:
                yield found
    n = min(len(expected), len(actual))
    if len(expected) > n:
        e = expected[n]
        yield Difference("missing", e.number, None, e.shown, None, e.shown, None, count=len(expected) - n)
    elif len(actual) > n:
        a = actual[n]
        yield Difference("extra", None, a.number, None, a.shown, None, a.shown, count=len(actual) - n)


def _line_difference(e: Line, a: Line, tolerance: Tolerance) -> Difference | None:
    """How the line pair differs: verdicts first, then text, then numbers beyond the tolerances. Verdict
    words are text, so equal text means equal verdicts: the lines' verdicts are read only when their
    text differs, or when one of them is kept only for its verdicts."""
    if e.verdict_only or a.verdict_only:
        return _text_or_verdict(e, a, verdicts_only=True)
    mine, theirs = _pieces(e.text), _pieces(a.text)
    if len(mine) != len(theirs):
        return _text_or_verdict(e, a)
    number = None
    for (x_kind, x), (y_kind, y) in zip(mine, theirs):
        if x == y:
            continue
        if not x_kind or not y_kind:  # text, or text against a number
            return _text_or_verdict(e, a)
        if number is None:
            found = _number_difference(_value(x_kind, x), _value(y_kind, y), tolerance)
            if found is not None:
                number = Difference("number", e.number, a.number, x, y, e.shown, a.shown, *found)
    return number


def _text_or_verdict(e: Line, a: Line, *, verdicts_only: bool = False) -> Difference | None:
    verdicts = " ".join(VERDICT.findall(e.text)), " ".join(VERDICT.findall(a.text))
    if verdicts[0] != verdicts[1]:
        return Difference("verdict", e.number, a.number, *verdicts, e.shown, a.shown)
    return None if verdicts_only else Difference("text", e.number, a.number, e.shown, a.shown, e.shown, a.shown)


def _pieces(line: str) -> list[tuple[str, str]]:
    """(kind, text) for each number (kind: hex, dec or special) and each run of text between them
    (kind ""), the text with its whitespace collapsed and dropped at its ends; a run that is only
    whitespace is left out."""
    pieces = []
    at = 0
    for match in NUMBER.finditer(line):
        words = " ".join(line[at : match.start()].split())
        if words:
            pieces.append(("", words))
        kind = match.lastgroup
        assert kind is not None
        pieces.append((kind, match.group()))
        at = match.end()
    words = " ".join(line[at:].split())
    if words:
        pieces.append(("", words))
    return pieces


def _value(kind: str, text: str) -> Decimal | int:
    """A hex integer as an int (a bit pattern); any other number as a Decimal, a finite one beyond a double's
    range as the infinity of its sign (what strtod reads; a double cannot hold more), a hex float exactly."""
    if kind == "hex":
        return int(text, 16)
    if kind == "special":
        return _decimal(text)
    if kind == "hexfloat":
        try:
            return Decimal(float.fromhex(text))
        except OverflowError:
            return Decimal("-inf" if text.startswith("-") else "inf")
    value = Decimal(text)
    if value.copy_abs().compare_total(_DOUBLE_MAX) > 0:
        return Decimal("-inf" if value.is_signed() else "inf")
    return value


def _decimal(text: str) -> Decimal:
    """inf and nan as Decimal spells them; MSVC's and glibc's nan(...) payloads dropped."""
    return Decimal(re.sub(r"(?i)inity|\(.*\)$", "", text))


def _number_difference(
    x: Decimal | int, y: Decimal | int, tolerance: Tolerance
) -> tuple[float | None, float | None] | None:
    """None when `y` equals the expected `x` within the tolerances, else (abs. diff, rel. diff): None
    where it is not a finite number. Hex integers (bit patterns) must be equal; a NaN equals a NaN."""
    if isinstance(x, int) or isinstance(y, int):
        return None if x == y else (None, None)
    if x.is_nan() or y.is_nan() or x.is_infinite() or y.is_infinite():
        return None if (x.is_nan() and y.is_nan()) or x == y else (None, None)
    atol, rtol = tolerance
    math_ = _ARITHMETIC
    diff = math_.abs(math_.subtract(y, x))
    if diff <= math_.add(atol, math_.multiply(rtol, math_.abs(x))):
        return None
    return _finite(diff), (_finite(math_.divide(diff, math_.abs(x))) if x else None)


def _finite(value: Decimal) -> float | None:
    """As a float, or None beyond a float's range (JSON has no infinity)."""
    number = float(value)
    return number if math.isfinite(number) else None


def comparison_json(comparison: Comparison, max_diffs: int) -> dict[str, Any]:
    """The stable shape of `--format json` (JSON_VERSION; docs/verify-a-port.md describes it)."""
    shown = comparison.differences if max_diffs == 0 else comparison.differences[:max_diffs]
    return {
        "version": JSON_VERSION,
        "equal": comparison.equal,
        "expected": _side(comparison.expected),
        "actual": _side(comparison.actual),
        "rtol": comparison.rules.rtol,
        "atol": comparison.rules.atol,
        "ignore": list(comparison.rules.ignore),
        "differences": comparison.different_lines,
        "shown": [_difference(d) for d in shown],
    }


def _side(side: Side) -> dict[str, Any]:
    return {"path": side.name, "lines": side.lines, "compared": side.compared, "ignored": side.ignored}


def _difference(d: Difference) -> dict[str, Any]:
    return {
        "kind": d.kind,
        "line": d.line,
        "actual_line": d.actual_line,
        "expected": d.expected,
        "got": d.got,
        "abs_diff": d.abs_diff,
        "rel_diff": d.rel_diff,
        "expected_text": d.expected_text,
        "got_text": d.got_text,
        "count": d.count,
        "message": d.message,
    }


def text_report(comparison: Comparison, max_diffs: int) -> tuple[list[str], str]:
    """(the difference lines for stdout, the one-line summary for stderr)."""
    differences = comparison.differences
    lines = [d.message for d in (differences if max_diffs == 0 else differences[:max_diffs])]
    if len(differences) > len(lines):
        lines.append(f"... {len(differences) - len(lines)} more (--max-diffs 0 shows all)")
    e, a, rules = comparison.expected, comparison.actual, comparison.rules
    said = f"rtol {rules.rtol:g}, atol {rules.atol:g}"
    if e.ignored or a.ignored:
        said += f"; ignored {e.ignored} line{_s(e.ignored)} of EXPECTED, {a.ignored} of ACTUAL"
    if comparison.equal:
        return lines, f"equal: {e.compared} line{_s(e.compared)} compared ({said})"
    n = comparison.different_lines
    return lines, f"different: {n} line{_s(n)} of {max(e.compared, a.compared)} compared ({said})"


def _s(n: int) -> str:
    return "" if n == 1 else "s"
