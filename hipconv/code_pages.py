"""What a diagnostic code means, as text (`hipconv codes CODE`, SARIF's rule help) and as Markdown (the
generated docs/codes.md, SARIF's help.markdown): one description of each code, from diagnostics.CODES."""

from __future__ import annotations

from hipconv.config import FAIL_ON, fails_on
from hipconv.diagnostics import Code

CODES_PAGE = "codes.md"  # under docs/; shipped in the wheel as hipconv/_data/docs/codes.md


def anchor(code: Code) -> str:
    """The code's anchor in docs/codes.md (`#hc301`)."""
    return code.code.lower()


def _facts(code: Code) -> list[str]:
    """Whether the code counts as unported, and what makes hipconv exit 1 on it."""
    if code.unported:
        unported = "unported: yes (the CUDA API stays in the code: --strict, --stats, --report and --annotate count it)"
    else:
        unported = "unported: no (--strict, --stats, --report and --annotate do not count it as unported)"
    levels = [f"--fail-on {level}" for level in FAIL_ON if fails_on(level, code.severity)]
    return [unported, f"exit code 1 with: {', '.join(levels + ['--strict'] * code.unported) or 'no option'}"]


def explain_code(code: Code) -> list[str]:
    """What `hipconv codes CODE` prints: the title, severity, what fails on it, the hint and the example."""
    lines = [f"{code.code} ({code.severity.value}): {code.title}", *_facts(code)]
    if code.hint:
        lines.append(f"hint: {code.hint}")
    example = code.example
    if example is not None:
        lines.append(f"example: hipconv {' '.join(example.command_line)}")
        lines.append(f"  {example.file}:")
        lines += [f"    {line}" for line in example.source.splitlines()]
        lines.append("  prints:")
        lines.append(f"    {example.diagnostic}")
        if example.note:
            lines.append(f"  ({example.note})")
    return lines


def code_markdown(code: Code, *, heading: str = "##") -> str:
    """The same as explain_code, in Markdown, under a heading with the code's anchor."""
    lines = [f'<a id="{anchor(code)}"></a>', "", f"{heading} {code.code} ({code.severity.value})", "", code.title, ""]
    lines += [f"- {fact}" for fact in _facts(code)] + [""]
    if code.hint:
        lines += [f"Hint: {code.hint}", ""]
    example = code.example
    if example is not None:
        lines += [f"Example: `hipconv {' '.join(example.command_line)}` with `{example.file}`:", ""]
        lines += ["```cuda", *example.source.splitlines(), "```", "", "prints:", ""]
        lines += ["```text", example.diagnostic, "```", ""]
        if example.note:
            lines += [f"({example.note})", ""]
    return "\n".join(lines)
