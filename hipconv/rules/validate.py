"""A YAML document checked against a JSON Schema, each error a `file:line` problem.

jsonschema runs on the composed document; an error's path leads back to the YAML node it is about,
whose mark gives the line, and its message is built from the schema fragment that failed. An
*entry* is a fragment with a `title` (a rule, a group, the defaults, a curated fact): an error
inside an entry names the entry (its `cuda`, or its key) and sits on the line of the field it is
about (an unknown key: on the key's own line).

jsonschema is imported when a document is checked, which happens only when the rule cache is cold.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple, Union

import yaml

from hipconv.rules.nodes import duplicate_keys

KeyPath = tuple[Union[str, int], ...]  # where in a document: keys and list indexes


class Problem(NamedTuple):
    entry: KeyPath  # the path of the entry it concerns (() for the document)
    line: int  # 1-based
    text: str  # file:line (name): what is wrong


def schema_problems(
    root: yaml.Node, value: Any, schema: Mapping[str, Any], file: str, *, top_level: str = "key"
) -> list[Problem]:
    """Every way `value` (composed from `root`) does not fit `schema`: keys given twice, then by line."""
    import jsonschema  # here: only a cold rule cache pays for importing it

    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    found = [
        problem for error in validator.iter_errors(value) for problem in _problems(error, root, schema, file, top_level)
    ]
    twice = [Problem((), 0, text) for text in duplicate_keys(root, file)]  # a schema sees the last value only
    return twice + sorted(set(found), key=lambda p: (p.line, p.text))


def by_entry(problems: Sequence[Problem]) -> dict[KeyPath, list[str]]:
    out: dict[KeyPath, list[str]] = {}
    for problem in problems:
        out.setdefault(problem.entry, []).append(problem.text)
    return out


def _problems(error: Any, root: yaml.Node, schema: Mapping[str, Any], file: str, top_level: str) -> Iterator[Problem]:
    path: KeyPath = tuple(error.absolute_path)
    entry = _entry_path(schema, path)
    rest = path[len(entry) :]
    node = _node(root, entry)
    named = _named(entry, node)
    if error.validator == "additionalProperties" and not rest:
        yield from _unknown_keys(error, entry, node, file, named, top_level)
    elif "propertyNames" in error.relative_schema_path:  # a key that must be a regular expression
        key_node = _key_node(root, path + (error.instance,))
        line = _line(key_node or node)
        yield Problem(entry, line, f"{file}:{line}: invalid regular expression {error.instance!r}: {error.cause}")
    elif not rest and not entry:  # the document's own: no line to point at
        yield Problem(entry, 0, f"{file}: {_entry_message(error)}")
    elif not rest:
        line = _line(_key_node(root, entry) or node)
        title = _fragment(schema, entry).get("title", "entry")
        if error.validator == "type":  # the entry itself is no mapping: named by its key, or by what it is
            what = f"{entry[-1]!r}" if isinstance(entry[-1], str) else f"a {title}"
            yield Problem(entry, line, f"{file}:{line}: {what} must be a mapping")
        else:
            yield Problem(entry, line, f"{file}:{line}{named}: {_entry_message(error)}")
    else:
        field = rest[0]
        line = _line(_key_node(root, entry + (field,)) or node)
        fragment = _fragment(schema, entry + (field,))
        yield Problem(entry, line, f"{file}:{line}{named}: {_field_message(error, str(field), rest[1:], fragment)}")


def _unknown_keys(
    error: Any, entry: KeyPath, node: yaml.Node | None, file: str, named: str, top_level: str
) -> Iterator[Problem]:
    """Each key the entry's schema does not know, on its own line."""
    allowed = error.schema.get("properties", {})
    for key, key_node in _keys(node):
        if key in allowed:
            continue
        if entry == ("defaults",):
            yield Problem(entry, _line(node), f"{file}:{_line(node)}: 'defaults' cannot set {key!r}")
        elif not entry:
            line = _line(key_node)
            yield Problem(entry, line, f"{file}:{line}: unknown {top_level} {key!r} (expected {', '.join(allowed)})")
        else:
            yield Problem(entry, _line(key_node), f"{file}:{_line(key_node)}{named}: unknown key {key!r}")


def _entry_message(error: Any) -> str:
    if error.validator == "required":
        missing = [key for key in error.validator_value if key not in error.instance]
        return f"{' and '.join(map(repr, missing))} {'is' if len(missing) == 1 else 'are'} required"
    if error.validator == "anyOf":  # the document's `rules` or `unsupported`
        return "no 'rules:' list"
    if error.validator == "type":
        return f"expected {'a mapping' if error.validator_value == 'object' else error.validator_value}"
    return str(error.message)


def _field_message(error: Any, key: str, sub: KeyPath, fragment: Mapping[str, Any]) -> str:
    """What is wrong with field `key` of an entry (`sub`: where inside its value)."""
    if error.validator == "enum" and not sub:
        if "description" in fragment:
            return f"{key!r} {error.instance!r} is not {fragment['description']}"
        return f"{key!r} must be one of {', '.join(map(str, fragment['enum']))}"
    if "properties" in fragment:  # versions: {since: "6.2", ...}
        if not sub:
            return f"{key!r} takes {' / '.join(fragment['properties'])}"
        return _version_message(error, f"{key}.{sub[0]}")
    extra = fragment.get("additionalProperties")
    if isinstance(extra, dict) and extra.get("type") == "string":
        return f"{key!r} must map names to non-empty strings"
    if "pattern" in fragment:
        return _version_message(error, key)
    return f"{key!r} must be {_shape(fragment)}"


def _version_message(error: Any, name: str) -> str:
    if error.validator == "pattern":
        return f"{name}: invalid version {error.instance!r}: expected X.Y or X.Y.Z"
    return f'{name} must be a quoted version string such as "6.2"'


def _shape(fragment: Mapping[str, Any]) -> str:
    """What a field holds, as its schema fragment says."""
    kinds = fragment.get("type")
    if isinstance(kinds, list):
        return " or ".join(_shape({**fragment, "type": kind}) for kind in kinds if kind != "null")
    if kinds == "boolean":
        return "true or false"
    if kinds == "array":
        return "a list of names" if fragment.get("items", {}).get("type") == "string" else "a list"
    if kinds == "object":
        return "a mapping"
    return "a string"


def _entry_path(schema: Mapping[str, Any], path: KeyPath) -> KeyPath:
    """The longest prefix of `path` whose fragment is an entry (has a title)."""
    best: KeyPath = ()
    fragment: Mapping[str, Any] | None = schema
    for n, step in enumerate(path):
        fragment = _step(fragment, step)
        if fragment is None:
            break
        if "title" in fragment:
            best = path[: n + 1]
    return best


def _fragment(schema: Mapping[str, Any], path: KeyPath) -> Mapping[str, Any]:
    fragment: Mapping[str, Any] | None = schema
    for step in path:
        fragment = _step(fragment, step)
    return fragment or {}


def _step(fragment: Mapping[str, Any] | None, step: str | int) -> Mapping[str, Any] | None:
    if fragment is None:
        return None
    if isinstance(step, int):
        items = fragment.get("items")
        return items if isinstance(items, dict) else None
    properties = fragment.get("properties", {})
    if step in properties:
        found: Mapping[str, Any] = properties[step]
        return found
    extra = fragment.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def _named(entry: KeyPath, node: yaml.Node | None) -> str:
    """` (name)` of an entry: its key, or for a list item its `cuda`."""
    if not entry:
        return ""
    last = entry[-1]
    if isinstance(last, str):
        return f" ({last})"
    cuda = _child(node, "cuda")
    return f" ({cuda.value})" if isinstance(cuda, yaml.ScalarNode) and cuda.tag.endswith(":str") else ""


def _keys(node: yaml.Node | None) -> list[tuple[str, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        return []
    return [(str(key.value), key) for key, _ in node.value]


def _node(root: yaml.Node, path: KeyPath) -> yaml.Node | None:
    node: yaml.Node | None = root
    for step in path:
        node = _child(node, step)
    return node


def _key_node(root: yaml.Node, path: KeyPath) -> yaml.Node | None:
    """The key node of the last step of `path` (None when it is a list index)."""
    if not path or isinstance(path[-1], int):
        return None
    parent = _node(root, path[:-1])
    return dict(_keys(parent)).get(str(path[-1]))


def _child(node: yaml.Node | None, step: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
        child: yaml.Node = node.value[step]
        return child
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.value == step or key.value == str(step):
                found: yaml.Node = value
                return found
    return None


def _line(node: yaml.Node | None) -> int:
    return node.start_mark.line + 1 if node is not None else 0
