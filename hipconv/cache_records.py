"""hipconv's records as its caches store them (hipconv.cache_format): which classes are records (dataclasses,
NamedTuples and enums of modules under hipconv/, nothing else), how their fields are laid out, and how a record
is built back from its stored field values without running its class's code."""

from __future__ import annotations

import dataclasses
import enum
import functools
import importlib
import itertools
import typing
from typing import Any, Callable

_PACKAGE = "hipconv"
PLAIN = frozenset({str, bool, int, float, type(None)})  # what JSON holds as it is
LIST_TYPE = frozenset({list})

# How a field is stored by its declared type (typed_fields): its items as a JSON array, or an enum member as
# its value. Most of a file's result and facts are empty tuples and sets, and each tag costs json an object
# and a call of _hook when read back: a rerun reads thousands of them.
AS_TUPLE, AS_FROZENSET, AS_MEMBER = "t", "f", "e"


@functools.cache
def typed_fields(kind: Any) -> tuple[tuple[int, str, type], ...]:
    """The fields of a record class declared a tuple, a frozenset or an enum whose values JSON holds as they
    are: (position, how it is stored, declared type)."""
    if not (issubclass(kind, tuple) and hasattr(kind, "_fields")) and not dataclasses.is_dataclass(kind):
        return ()
    hints = typing.get_type_hints(kind)
    found: list[tuple[int, str, type]] = []
    for position, name in enumerate(field_order(kind)):
        hint = hints.get(name)
        origin = typing.get_origin(hint)
        if origin is tuple or origin is frozenset:
            found.append((position, AS_TUPLE if origin is tuple else AS_FROZENSET, origin))
        elif isinstance(hint, type) and issubclass(hint, enum.Enum) and all(type(m.value) in PLAIN for m in hint):
            found.append((position, AS_MEMBER, hint))
    return tuple(found)


def field_order(kind: Any) -> tuple[str, ...]:
    """The field names of a NamedTuple or dataclass, in order."""
    return kind._fields if issubclass(kind, tuple) else field_names(kind)


def scalar_fields(kind: type) -> bool:
    """Whether every field of the record class is declared a scalar JSON holds as it is."""
    hints = typing.get_type_hints(kind)
    return bool(hints) and all(set(typing.get_args(h) or (h,)) <= PLAIN for h in hints.values())


def record_name(kind: type) -> str:
    if kind.__module__ != _PACKAGE and not kind.__module__.startswith(_PACKAGE + "."):
        raise TypeError(f"{kind.__module__}.{kind.__qualname__} is not one of hipconv's records")
    return f"{kind.__module__}:{kind.__qualname__}"


@functools.cache
def rows_builder(name: str) -> Callable[[list[Any]], tuple[Any, ...]]:
    """How a tuple of records of the class `name` is built from their rows of field values: NamedTuples (a
    file's replacements, tens of thousands in a run) at C speed, once every row is known to be a list of their
    size; other records one by one (record_builder)."""
    kind = record_class(name)
    if not issubclass(kind, tuple):
        build = record_builder(name)
        return lambda rows: tuple(build(row) for row in rows)  # TypeError for a row that is no list: damaged
    size = {len(kind._fields)}  # type: ignore[attr-defined]

    def named_tuples(rows: list[Any]) -> tuple[Any, ...]:
        if not set(map(type, rows)) <= LIST_TYPE or not set(map(len, rows)) <= size:
            raise TypeError(f"a row of {kind.__qualname__} that is no list of its {len(kind._fields)} fields")  # type: ignore[attr-defined]
        return tuple(map(tuple.__new__, itertools.repeat(kind), rows))

    return named_tuples


_MEMBERS: dict[tuple[str, Any], Any] = {}


def enum_member(name: str, value: Any) -> Any:
    """The member of the enum `name` of that value, looked up once (an enum's call is slow)."""
    key = (name, value)  # TypeError for a value that is no enum's: damaged
    found = _MEMBERS.get(key)
    if found is None:
        found = _MEMBERS[key] = record_class(name)(value)
    return found


@functools.cache
def record_class(name: str) -> type:
    """The class a record names: a dataclass, NamedTuple or enum of a module under hipconv/, nothing else."""
    module, _, qualname = name.partition(":")
    if module != _PACKAGE and not module.startswith(_PACKAGE + "."):
        raise TypeError(f"{module} is not one of hipconv's modules")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        if part.startswith("__"):
            raise TypeError(f"{qualname} is not a record")
        found = getattr(found, part)
    if not isinstance(found, type) or not (
        dataclasses.is_dataclass(found) or issubclass(found, enum.Enum) or issubclass(found, tuple)
    ):
        raise TypeError(f"{name} is not a record")
    if issubclass(found, tuple) and not hasattr(found, "_fields"):
        raise TypeError(f"{name} is not a NamedTuple")
    return found


@functools.cache
def record_builder(name: str) -> Callable[[list[Any]], Any]:
    """How a record of the class `name` is built from its field values, as unpickling builds it: a NamedTuple
    as a tuple of its class, a dataclass without its __init__ (no __post_init__ runs again)."""
    kind = record_class(name)
    if issubclass(kind, tuple):
        size = len(kind._fields)  # type: ignore[attr-defined]

        def named_tuple(items: list[Any]) -> Any:
            if len(items) != size:
                raise TypeError(f"{kind.__qualname__} has {size} fields, not {len(items)}")
            return tuple.__new__(kind, items)

        return named_tuple
    names = field_names(kind)  # type: ignore[arg-type]  # a dataclass: hashable

    def dataclass(items: list[Any]) -> Any:
        if len(names) != len(items):
            raise TypeError(f"{kind.__qualname__} has {len(names)} fields, not {len(items)}")
        record = object.__new__(kind)
        if hasattr(record, "__dict__"):
            record.__dict__.update(zip(names, items))
        else:
            for field, item in zip(names, items):
                object.__setattr__(record, field, item)
        return record

    return dataclass


@functools.cache
def typed_builder(name: str) -> Callable[[list[Any]], Any]:
    """How a record stored with its typed fields untagged (_typed_encoder) is built: those fields made their
    declared type again, the record then built as any (record_builder)."""
    kind = record_class(name)
    build = record_builder(name)
    convert = [(position, _converter(stored, declared)) for position, stored, declared in typed_fields(kind)]
    if not convert:
        raise TypeError(f"{name} has no typed field")

    def typed(items: list[Any]) -> Any:
        for position, to_type in convert:
            items[position] = to_type(items[position])  # IndexError for a record cut short: damaged
        return build(items)

    return typed


def _converter(stored: str, declared: type) -> Callable[[Any], Any]:
    if stored == AS_MEMBER:
        enum_name = record_name(declared)
        return lambda value: enum_member(enum_name, value)

    def to_type(value: Any) -> Any:
        if type(value) is list:
            return declared(value)
        if type(value) is declared and declared is tuple:  # rows of records or of scalars, read by _hook
            return value
        raise TypeError(f"a {declared.__name__} stored as a {type(value).__name__}")

    return to_type


@functools.cache
def field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind))
