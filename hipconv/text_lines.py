"""Lines as editors and compilers count them.

str.splitlines() also breaks at a form feed, a vertical tab, \\x1c-\\x1e, \\x85 and the Unicode line and
paragraph separators: every line number after one of them was off (a C file or a program's output may hold
a form feed; only \\n, \\r\\n and a lone \\r end a line). bytes.splitlines() breaks at those three only.
"""

from __future__ import annotations

import re

_LINE_END = re.compile(r"\r\n|\r|\n")


def text_lines(text: str) -> list[str]:
    """The lines of `text`, without their ends, broken where C and editors break them (as splitlines() does,
    but for the characters above): "a\\fb\\nc" is two lines."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":  # a text ending in a line end has no empty last line, as splitlines()
        lines.pop()
    return lines
