"""Kernel launches: `k<<<grid, block, shm, stream>>>(args)` -> hipLaunchKernelGGL (--kernel-launch hip)."""

from __future__ import annotations

import re

from hipconv.diagnostics import UNPARSED_LAUNCH
from hipconv.translate.comments import code_text, keep_comments
from hipconv.translate.edits import Edit, Part
from hipconv.translate.found import Found
from hipconv.translate.lexer import TokenKind, Tokens
from hipconv.translate.nvcc_syntax import split_chevrons
from hipconv.translate.syntax import Span, holds_unterminated_literal, parse_launch

# HIP spellings used by launch rewrites (checked against the HIP inventory in the tests).
HIP_LAUNCH = "hipLaunchKernelGGL"
HIP_KERNEL_NAME = "HIP_KERNEL_NAME"
LAUNCH_RULE_ID = "launch.hipLaunchKernelGGL"


def match_launches(c: Found) -> None:
    tokens, body = c.tokens, c.tokens.body
    for i in range(len(tokens)):
        text = body[tokens.starts[i] : tokens.ends[i]] if tokens.kinds[i] == TokenKind.PUNCTUATION else b""
        split = split_chevrons(c, i) if text == b"<<" else None  # `k << < grid, block >> > (args)`
        if text != b"<<<" and split is None:
            continue
        launch = parse_launch(tokens, i, split)
        if launch is None:
            c.diag(tokens.starts[i], UNPARSED_LAUNCH, "cannot read this kernel launch; left as a <<<...>>> launch")
            continue
        region = (tokens.starts[launch.start], tokens.ends[launch.close])
        if c.crosses_directive(*region):
            message = "this kernel launch crosses a preprocessor line; left as a <<<...>>> launch"
            c.diag(tokens.starts[i], UNPARSED_LAUNCH, message)
            continue
        if holds_unterminated_literal(tokens, region):
            message = (
                "this kernel launch holds a string or character literal without its closing quote; "
                "left as a <<<...>>> launch"
            )
            c.diag(tokens.starts[i], UNPARSED_LAUNCH, message)
            continue
        name: list[Part] = [HIP_KERNEL_NAME + "(", launch.name, ")"] if launch.templated else [launch.name]
        parts: list[Part] = [HIP_LAUNCH + "(", *name]
        for n, span in enumerate(launch.config):
            parts.append(", ")
            parts.extend(_as_dim3(tokens, span) if n < 2 else [span])
        parts.extend(", 0" for _ in range(4 - len(launch.config)))
        if any(a != b for a, b in launch.args):  # keep the argument list as written (line breaks in macros)
            inside = launch.inside_parens
            parts.extend(["," if body[inside[0] : inside[0] + 1].isspace() else ", ", inside])
        parts.append(")")
        parts = list(keep_comments(tokens, region, parts, c.source.newline_at(region[0])))
        c.edits.append(Edit(*region, tuple(parts), LAUNCH_RULE_ID))
        c.replaced(region[0], "<<<...>>>", HIP_LAUNCH, LAUNCH_RULE_ID, "launch")


def _as_dim3(tokens: Tokens, span: Span) -> list[Part]:
    if re.fullmatch(r"dim3\s*[({].*[)}]", code_text(tokens, span), re.S):
        return [span]
    return ["dim3(", span, ")"]
