"""docs/semantics.md, the verdict of every semantic rewrite (issue #39), kept true: every test it names exists
(collected by pytest, parametrized ids included), every row that claims "exact" names a run, every "reported"
verdict names a code, every code named is one hipconv has, every shim of the bundled rules (`Rule.compat`) and
every conversion table of hipconv/data is listed, and every line of the verdict list carries its command."""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

from hipconv.diagnostics import CODES
from hipconv.resources import data_files
from hipconv.rules import load_ruleset

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "semantics.md"

NODE_ID = re.compile(r"tests/test_\w+\.py::[A-Za-z_]\w*(?:\[[^\]\s`']+\])?")
CODE = re.compile(r"\bHC\d{3}\b")
VERDICTS = ("exact if", "exact", "reported HC", "not run")
COMMAND = re.compile(r" — `python -m pytest -q '?(" + NODE_ID.pattern + r")'?`$")


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def node_ids(text: str) -> list[str]:
    """The pytest node ids a text names, in order, each once."""
    return list(dict.fromkeys(NODE_ID.findall(text)))


def section(text: str, heading: str) -> str:
    """The body of the `## heading` section, up to the next `## `."""
    _, found, rest = text.partition(f"\n## {heading}\n")
    assert found, f"docs/semantics.md has no section '## {heading}'"
    return rest.split("\n## ", 1)[0]


class Row:
    """A row of one of the page's tables: | CUDA | HIP output | verdict | checked by | test |."""

    def __init__(self, line: str) -> None:
        self.line = line
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        assert len(cells) == 5, f"a row of five cells: {line}"
        self.cuda, self.hip, self.verdict, self.checked_by, self.tests = cells


def rows(text: str) -> list[Row]:
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    return [Row(line) for line in lines if not line.startswith(("| CUDA |", "| --- |"))]


@functools.cache
def collected(files: tuple[str, ...]) -> frozenset[str]:
    """The node ids pytest collects from the files (one collection, in a subprocess, as a user runs it)."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider", *files],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return frozenset(line for line in run.stdout.splitlines() if "::" in line)


def test_node_ids_are_read_with_their_parameters() -> None:
    text = (
        "`tests/test_a.py::test_b`, `tests/test_c.py::test_d[x@6.3]` and "
        "'tests/test_e.py::test_f[HC315_launch_bounds_1024.cu]'; not tests/helpers.py::f nor test_g"
    )
    assert node_ids(text) == [
        "tests/test_a.py::test_b",
        "tests/test_c.py::test_d[x@6.3]",
        "tests/test_e.py::test_f[HC315_launch_bounds_1024.cu]",
    ]


def test_every_named_test_exists() -> None:
    """Each node id of the page is a test pytest collects: a parametrized one exactly, a plain function name when
    pytest collects it, or any of its parameters."""
    named = node_ids(page())
    assert len(named) > 40
    found = collected(tuple(sorted({node.split("::")[0] for node in named})))
    missing = [node for node in named if node not in found and not any(f.startswith(node + "[") for f in found)]
    assert missing == []


def test_every_row_has_a_verdict_and_a_test() -> None:
    table = rows(page())
    assert len(table) > 40
    assert [row.line for row in table if not row.verdict.startswith(VERDICTS)] == []
    assert [row.line for row in table if not node_ids(row.tests)] == []


def test_exact_is_claimed_only_where_a_test_runs_it() -> None:
    claims = [row for row in rows(page()) if row.verdict.startswith("exact")]
    assert claims
    assert [row.line for row in claims if "run (" not in row.checked_by] == []


def test_a_reported_verdict_names_its_code() -> None:
    reported = [row for row in rows(page()) if row.verdict.startswith("reported")]
    assert reported
    assert [row.line for row in reported if not CODE.search(row.verdict)] == []


def test_every_code_named_exists() -> None:
    named = set(CODE.findall(page()))
    assert {"HC012", "HC013", "HC016", "HC104", "HC105", "HC106"} <= named
    assert sorted(named - set(CODES)) == []


def test_every_shim_of_the_bundled_rules_is_listed() -> None:
    listed = set(re.findall(r"`(hipconv_\w+)`", section(page(), "Every shim of the bundled rules")))
    shims = {rule.compat for rule in load_ruleset().rules if rule.compat}
    assert len(shims) > 150
    assert sorted(shims - listed) == []


def test_every_conversion_table_is_listed() -> None:
    tables = [path.name for path in data_files("*.conversion")]
    assert tables
    assert [name for name in tables if f"`{name}`" not in page()] == []


def test_every_line_of_the_verdict_list_has_its_command() -> None:
    """One line per rewrite, `- what: verdict — command`, the command running one named test."""
    lines = [line for line in section(page(), "The verdict list").splitlines() if line.strip()]
    bullets = [line for line in lines if line.startswith("- ")]
    assert len(bullets) > 40
    assert [line for line in lines if not line.startswith("- ") and not line.startswith("One line per")] == []
    assert [line for line in bullets if not COMMAND.search(line)] == []
    verdicts = [line[2:].split(": ", 1)[-1] for line in bullets]
    assert [v for v in verdicts if not v.startswith(VERDICTS)] == []


def test_a_misnamed_test_is_caught() -> None:
    """What test_every_named_test_exists relies on: pytest collects this file's tests, and no name it lacks."""
    found = collected(("tests/test_semantics_doc.py",))
    assert "tests/test_semantics_doc.py::test_every_named_test_exists" in found
    node = "tests/test_semantics_doc.py::test_every_named_test"
    assert node not in found and not any(f.startswith(node + "[") for f in found)
