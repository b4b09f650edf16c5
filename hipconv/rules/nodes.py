"""YAML with line numbers: a file's composed node tree, its mappings by key, and the problems found in
them as `file:line` lines, for the rule files and the derivation's tools/curated.yaml."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from hipconv.errors import RuleSchemaError
from hipconv.resources import rules_dir
from hipconv.rules.schema import Field

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


def keyed_nodes(node: yaml.MappingNode, name: str, problems: list[str]) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    """A mapping node's entries by key; a key given twice is a problem."""
    out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key_node, value_node in node.value:
        key = key_node.value
        if key in out:
            problems.append(f"{name}:{key_node.start_mark.line + 1}: key {key!r} given twice")
        out[key] = (key_node, value_node)
    return out


def load_plain(text: str) -> Any:
    """The Python value of a YAML document (no line numbers)."""
    return yaml.load(text, Loader=Loader)


def plain(node: yaml.Node) -> Any:
    """The Python value of a node."""
    return Loader("").construct_document(node)


def known_fields(
    node: yaml.MappingNode,
    value: Mapping[str, Any],
    spec: Mapping[str, Field],
    where: str,
    problems: list[str],
    *,
    named: str = "",
) -> dict[str, Any]:
    """An entry's fields whose keys the spec knows; each unknown key is a problem at its own line."""
    fields: dict[str, Any] = {}
    file = where.rsplit(":", 1)[0]
    for key, (key_node, _) in keyed_nodes(node, where, problems).items():
        if key not in spec:
            problems.append(f"{file}:{key_node.start_mark.line + 1}{named}: unknown key {key!r}")
            continue
        fields[key] = value[key]
    return fields
