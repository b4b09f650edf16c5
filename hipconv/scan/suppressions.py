"""`// hipconv: ignore[HC301,...]` comments: which findings a line silences."""

from __future__ import annotations

import re

from hipconv.diagnostics import Diagnostic
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.source import SourceFile

_IGNORE = re.compile(r"hipconv:\s*ignore\b(?:\[([^\]]*)\])?")
_ALL = frozenset({"*"})  # a bare `hipconv: ignore`


def suppressions(tokens: Tokens, source: SourceFile) -> dict[int, frozenset[str]]:
    """Line -> codes silenced there by `// hipconv: ignore[HC001,...]` (`*`: all).

    A comment after code on its line covers that line; a comment on a line of its own covers the next.
    """
    found: dict[int, frozenset[str]] = {}
    last_code_line = 0
    for i in range(len(tokens)):
        start_line = source.line_col(tokens.starts[i])[0]
        if tokens.kinds[i] != TokenKind.COMMENT:
            last_code_line = source.line_col(tokens.ends[i] - 1)[0] if tokens.ends[i] > tokens.starts[i] else start_line
            continue
        m = _IGNORE.search(tokens.text(i))
        if m is None:
            continue
        codes = frozenset(c.strip() for c in m.group(1).split(",") if c.strip()) if m.group(1) else _ALL
        end_line = source.line_col(max(tokens.ends[i] - 1, tokens.starts[i]))[0]
        line = start_line if last_code_line == start_line else end_line + 1
        found[line] = found.get(line, frozenset()) | codes
    return found


def is_suppressed(d: Diagnostic, ignores: dict[int, frozenset[str]]) -> bool:
    codes = ignores.get(d.line)
    return codes is not None and (codes is _ALL or "*" in codes or d.code in codes)
