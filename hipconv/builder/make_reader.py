"""A Makefile read as GNU make reads it, without running anything: its variables and its rules.

Logical lines (backslash continuations joined, comments dropped), assignments (`=`, `:=`, `::=`, `:::=`,
`?=`, `+=`; `!=` is empty, as `$(shell ...)`), `define ... endef`, `override`/`export`, `include`/`-include`
of files inside the tree, `ifeq`/`ifneq`/`ifdef`/`ifndef`/`else`/`endif` (evaluated: the branch a plain
`make` takes, with `$(shell ...)` empty), rules (explicit, pattern, static pattern, `::`, inline `; recipe`)
with their recipe lines kept unexpanded, and `$(eval ...)`. The environment is read as make reads it (a
Makefile's own assignments win), and `VAR=value` words of a `$(MAKE)` call win over both. Target-specific
variables (`app: CFLAGS += -g`) are not applied.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hipconv.builder.make_expand import Expander, Variable, reference_end
from hipconv.text_lines import text_lines

MAKEFILE_NAMES = ("GNUmakefile", "makefile", "Makefile")
MAX_INCLUDES = 64
_CONDITIONAL = re.compile(r"(ifeq|ifneq|ifdef|ifndef|else|endif)(?:\s+(.*))?$", re.S)
_ASSIGN_OP = re.compile(r"\s*(:::=|::=|:=|\?=|\+=|!=|=)")
_DIRECTIVE = re.compile(r"(-?include|sinclude|export|unexport|override|vpath|define|undefine)\b\s*(.*)", re.S)
_DEFAULTS = {"MAKE": "make", "CC": "cc", "CXX": "g++", "CPP": "$(CC) -E", "RM": "rm -f", "SHELL": "/bin/sh"}
# make's built-in rules for C++ sources (`make -p`): compile, and compile and link
_BUILTIN_RULES = (
    ("%.o", "%.cpp", "$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(TARGET_ARCH) -c -o $@ $<"),
    ("%.o", "%.cc", "$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(TARGET_ARCH) -c -o $@ $<"),
    ("%", "%.cpp", "$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH) $^ $(LDLIBS) -o $@"),
    ("%", "%.cc", "$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH) $^ $(LDLIBS) -o $@"),
)


@dataclass
class MakeRule:
    targets: list[str]
    prerequisites: list[str]  # order-only ones included: they are made first as well
    recipe: list[str] = field(default_factory=list)  # unexpanded command lines
    static: str = ""  # a static pattern rule's target pattern (`$(OBJS): %.o: %.cu`)


def logical_lines(text: str) -> Iterator[str]:
    """Lines with their backslash continuations joined (one blank for the backslash and the blanks around)."""
    pending = ""
    for raw in text_lines(text):
        line = raw
        backslashes = len(line) - len(line.rstrip("\\"))
        if backslashes % 2:
            pending += (line[:-1].rstrip() if pending else line[:-1]) + " "
            continue
        yield pending + (line.lstrip() if pending else line)
        pending = ""
    if pending:
        yield pending


def top_level(text: str, chars: str) -> int:
    """The index of the first of `chars` outside $(...) and ${...}; -1 when there is none."""
    i = 0
    while i < len(text):
        if text[i] == "$" and i + 1 < len(text) and text[i + 1] in "({":
            i = reference_end(text, i)
            continue
        if text[i] in chars:
            return i
        i += 1
    return -1


class Makefile:
    """The variables and rules of one make invocation in `directory` (its Makefile and what it includes)."""

    def __init__(
        self, root: Path, directory: Path, environ: Mapping[str, str], overrides: Mapping[str, str] | None = None
    ) -> None:
        self.root, self.directory = root, directory
        self.variables: dict[str, Variable] = {n: Variable(v, True, "default") for n, v in _DEFAULTS.items()}
        self.variables.update({n: Variable(v, False, "environment") for n, v in environ.items()})
        self.variables.update({n: Variable(v, False, "command line") for n, v in (overrides or {}).items()})
        self.variables["CURDIR"] = Variable(str(directory), False, "file")
        self.expander = Expander(self.variables, directory, self.read_text)
        self.rules: list[MakeRule] = []
        self.builtin = [MakeRule([t], [p], [r]) for t, p, r in _BUILTIN_RULES]
        self.default_goal: str | None = None
        self.exported: set[str] = set(environ)
        self._conditions: list[tuple[bool, bool]] = []  # (this branch is read, a branch was read)
        self._define: tuple[str, str, list[str], bool] | None = None  # name, operator, lines, read
        self._included = 0

    @property
    def reading(self) -> bool:
        return all(taking for taking, _ in self._conditions)

    def read_file(self, path: Path) -> bool:
        """Read one Makefile; False when it cannot be read or lies outside the tree."""
        resolved = path.resolve()
        if not resolved.is_relative_to(self.root) or not resolved.is_file() or self._included > MAX_INCLUDES:
            return False
        self._included += 1
        try:
            text = resolved.read_bytes().decode("utf-8", "replace")
        except OSError:
            return False
        self.read_text(text)
        return True

    def read_text(self, text: str) -> None:
        in_rule: MakeRule | None = None
        for line in logical_lines(text):
            if in_rule is not None and line.startswith("\t") and self._define is None:
                if self.reading and not _CONDITIONAL.match(line.strip()):
                    in_rule.recipe.append(line[1:])
                    continue
            code = re.split(r"(?<!\\)#", line, maxsplit=1)[0] if self._define is None else line
            if self._define is not None:
                self._define_line(code)
            elif code.strip():
                in_rule = self._line(code.strip(), in_rule)

    def _line(self, code: str, in_rule: MakeRule | None) -> MakeRule | None:
        """One line outside a recipe; the rule whose recipe follows (the one before, after a blank line)."""
        conditional = _CONDITIONAL.match(code)
        if conditional:
            self._conditional(conditional.group(1), conditional.group(2) or "")
            return in_rule
        if not self.reading:
            directive = _DIRECTIVE.match(code)
            if directive and directive.group(1) == "define":
                self._define = ("", "=", [], False)
            return in_rule
        directive = _DIRECTIVE.match(code)
        if directive and self._directive(directive.group(1), directive.group(2)):
            return None
        if self._assignment(code, origin="file"):
            return None
        return self._rule(code)

    def _directive(self, name: str, rest: str) -> bool:
        """include, export, override, define...: whether the line was one (`export` alone also is)."""
        if name in ("include", "-include", "sinclude"):
            for word in self.expander.expand(rest).split():
                self.read_file(self.directory / word)
        elif name in ("export", "override"):
            if not self._assignment(rest, origin="override" if name == "override" else "file"):
                self.exported.update(self.expander.expand(rest).split())
            elif name == "export":
                self.exported.add(self.expander.expand(re.split(r"\s*[:?+!]*=", rest, maxsplit=1)[0]).strip())
        elif name == "undefine":
            self.variables.pop(self.expander.expand(rest).strip(), None)
        elif name == "define":
            operator = _ASSIGN_OP.search(rest)
            variable = rest[: operator.start()] if operator else rest
            self._define = (self.expander.expand(variable).strip(), operator.group(1) if operator else "=", [], True)
        return True

    def _define_line(self, code: str) -> None:
        assert self._define is not None
        name, operator, lines, read = self._define
        if code.strip() == "endef":
            self._define = None
            if read:
                self.assign(name, operator, "\n".join(lines), origin="file")
        else:
            lines.append(code)

    def _assignment(self, code: str, *, origin: str) -> bool:
        split = top_level(code, ":=+?!")
        if split < 0:
            return False
        operator = _ASSIGN_OP.match(code, split)
        if operator is None:
            return False
        name = self.expander.expand(code[:split]).strip()
        if not name or " " in name:
            return False  # a rule with a target-specific variable (`app: CFLAGS = -g`): not applied
        self.assign(name, operator.group(1), code[operator.end() :].strip(), origin=origin)
        return True

    def assign(self, name: str, operator: str, value: str, *, origin: str) -> None:
        old = self.variables.get(name)
        if old is not None and old.origin == "command line" and origin != "override":
            return
        if operator == "?=":
            if old is None:
                self.variables[name] = Variable(value, True, origin)
        elif operator == "+=" and old is not None and old.origin != "default":
            new = value if old.recursive else self.expander.expand(value)
            self.variables[name] = Variable(f"{old.value} {new}".strip(), old.recursive, origin)
        elif operator in (":=", "::=", ":::="):
            self.variables[name] = Variable(self.expander.expand(value), False, origin)
        elif operator == "!=":
            self.variables[name] = Variable("", False, origin)  # a shell command: not run
        else:
            self.variables[name] = Variable(value, True, origin)

    def _conditional(self, keyword: str, rest: str) -> None:
        if keyword == "endif":
            if self._conditions:
                self._conditions.pop()
        elif keyword == "else":
            if not self._conditions:
                return
            _, taken = self._conditions.pop()
            outer = self.reading
            chained = _CONDITIONAL.match(rest.strip()) if rest.strip() else None
            if chained is None:
                self._conditions.append((outer and not taken, True))
            else:  # else ifeq (...): read only when no branch before was
                self._conditions.append(self._test(chained.group(1), chained.group(2) or "", outer=outer and not taken))
        else:
            self._conditions.append(self._test(keyword, rest, outer=self.reading))

    def _test(self, keyword: str, rest: str, *, outer: bool) -> tuple[bool, bool]:
        if not outer:
            return False, True  # inside a branch not read: none of its branches is read
        if keyword in ("ifdef", "ifndef"):
            variable = self.variables.get(self.expander.expand(rest).strip())
            result = variable is not None and bool(variable.value)
            result = result if keyword == "ifdef" else not result
        else:
            left, right = _operands(rest)
            same = self.expander.expand(left).strip() == self.expander.expand(right).strip()
            result = same if keyword == "ifeq" else not same
        return result, result

    def _rule(self, code: str) -> MakeRule | None:
        semicolon = top_level(code, ";")
        head, inline = (code[:semicolon], code[semicolon + 1 :].strip()) if semicolon >= 0 else (code, "")
        expanded = self.expander.expand(head)
        colon = top_level(expanded, ":")
        if colon < 0:
            return None  # $(eval ...) done, or a line make would refuse
        targets = expanded[:colon].split()
        rest = expanded[colon + 1 :].lstrip(":")
        if _ASSIGN_OP.search(rest) and top_level(rest, "=") >= 0:
            return None  # a target-specific variable (`app: CFLAGS += -g`): not applied
        static = ""
        if top_level(rest, ":") >= 0:  # targets: target-pattern: prerequisite-patterns
            static, _, rest = rest.partition(":")
        rule = MakeRule(targets, rest.replace("|", " ").split(), [inline] if inline else [], static.strip())
        self.rules.append(rule)
        if self.default_goal is None:
            self.default_goal = next((t for t in targets if is_goal(t)), None)
        return rule


def is_goal(target: str) -> bool:
    """Can make choose this target as a goal: not a pattern, not a special target (.PHONY; ../x.o can be)."""
    return "%" not in target and not (target.startswith(".") and "/" not in target)


def _operands(rest: str) -> tuple[str, str]:
    """The two operands of ifeq/ifneq: `(a,b)`, `"a" "b"` or `'a' 'b'`."""
    rest = rest.strip()
    if rest.startswith("(") and rest.endswith(")"):
        inner = rest[1:-1]
        comma = top_level(inner, ",")
        return (inner, "") if comma < 0 else (inner[:comma], inner[comma + 1 :])
    quoted = re.findall(r"\"([^\"]*)\"|'([^']*)'", rest)
    if len(quoted) == 2:
        return quoted[0][0] or quoted[0][1], quoted[1][0] or quoted[1][1]
    return rest, ""
