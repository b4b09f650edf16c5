"""YAML with line numbers: a file's composed node tree, its mappings by key, and the problems found in
them as `file:line` lines, for the rule files and the derivation's tools/curated.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from hipconv.errors import RuleSchemaError
from hipconv.resources import rules_dir

try:  # the C loader is ~10x faster; marks (line numbers) work with both
    from yaml import CSafeLoader as Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as Loader  # type: ignore[assignment]


def raise_problems(problems: list[str], where: str) -> None:
    if problems:
        raise RuleSchemaError(f"{len(problems)} problem(s) in {where}:\n" + "\n".join(f"  {p}" for p in problems))


def display_path(path: Path) -> str:
    try:
        return str(path.relative_to(rules_dir().parent))
    except ValueError:
        return str(path)


def read_mapping(path: Path, name: str, problems: list[str]) -> yaml.MappingNode | None:
    """The YAML file's root mapping node (None, with a problem, when it cannot be read or is not one)."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=Loader)
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{name}: cannot read: {exc}")
        return None
    except yaml.YAMLError as exc:
        problems.append(f"{name}: invalid YAML: {exc}".replace("\n", " "))
        return None
    if root is None:
        return None
    if not isinstance(root, yaml.MappingNode):
        problems.append(f"{name}:{root.start_mark.line + 1}: expected a mapping")
        return None
    return root


def duplicate_keys(root: yaml.Node, name: str) -> list[str]:
    """A problem for each key given twice in a mapping (YAML keeps the last; a schema sees only that)."""
    problems = []
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in node.value:
                if key.value in seen:
                    problems.append(
                        (key.start_mark.line + 1, f"{name}:{key.start_mark.line + 1}: key {key.value!r} given twice")
                    )
                seen.add(key.value)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return [text for _, text in sorted(problems)]


def load_plain(text: str) -> Any:
    """The Python value of a YAML document (no line numbers)."""
    return yaml.load(text, Loader=Loader)


def node_value(node: yaml.Node) -> Any:
    """The Python value of a node."""
    return Loader("").construct_document(node)
