"""What hipconv's caches (hipconv.filecache, hipconv.rules.cache) store: data, never pickles. Anyone who can
write to a pickle's folder runs code as the user who loads it; what is stored here is JSON, and reading it
back builds only plain values and hipconv's own records (dataclasses, NamedTuples and enums of modules
under hipconv/), without running their constructors' code.

Each stored value is sealed with a checksum of its key and its text (seal/unseal): a flipped byte reads as
damaged (None), never as another value, and so does a truncated value or one moved to another key, but for
1 in 2**32.

The libraries whose versions a cached value depends on (libclang lexes, jinja2 renders and checks
templates) go into the keys: `library_versions`.
"""

from __future__ import annotations

import contextvars
import dataclasses
import enum
import functools
import importlib
import importlib.util
import itertools
import json
import operator
import os
import zlib
from pathlib import Path, PurePath
from typing import Any, Callable

from hipconv.cache_records import (
    AS_FROZENSET,
    AS_MEMBER,
    LIST_TYPE,
    PLAIN,
    enum_member,
    field_names,
    field_order,
    record_builder,
    record_name,
    rows_builder,
    scalar_fields,
    typed_builder,
    typed_fields,
)

# The seal, before the text, is a CRC-32 of the key and the text. It finds damage (any run of up to 32 flipped
# bits for sure, a cut or a value under another key but for 1 in 2**32) at a fifth of blake2b's cost per byte.
# A cryptographic digest would stop no one who can write the cache, as anyone can compute it: what makes a
# planted value harmless is that values are data.
SEAL_SIZE = 4
# the libraries whose release changes what is cached: the import name, and the distribution's
KEYED_LIBRARIES = (("clang", "libclang"), ("jinja2", "Jinja2"), ("yaml", "PyYAML"))


class Damaged(ValueError):
    """A stored value that does not read back: not ours, cut short or altered."""


def seal(key: bytes, value: Any) -> bytes:
    """The bytes to store for `value` under `key`: the checksum of both, then the JSON text, then the long byte
    strings of the value as they are (a file's text: no escaping, no character per byte), after a newline,
    which JSON text never holds."""
    blobs = _Blobs()
    kept = _BLOBS.set(blobs)
    try:
        text = _json(_encoded(value))
    finally:
        _BLOBS.reset(kept)
    if blobs.parts:
        text += b"\n" + b"".join(blobs.parts)
    return _checksum(key, text) + text


def unseal(key: bytes, blob: bytes) -> Any:
    """The value sealed under `key`; Damaged when the checksum does not match or the text is not ours."""
    text, _, blobs = _opened(key, blob).partition(b"\n")
    kept = _STORED_BLOBS.set(blobs)
    try:  # text that is not ASCII (json writes none) is a UnicodeDecodeError, a ValueError: damaged
        return _DECODER.decode(text.decode("ascii"))
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, ImportError, RecursionError) as exc:
        raise Damaged(f"not a value hipconv wrote: {exc}") from None
    finally:
        _STORED_BLOBS.reset(kept)


def seal_plain(key: bytes, data: Any) -> bytes:
    """seal() for a value that is JSON already (dicts of str keys, lists, scalars), stored as it is: for a
    caller that lays out a large value itself (hipconv.rules.stored), which json reads without running Python."""
    text = _json(data)
    return _checksum(key, text) + text


def _json(data: Any) -> bytes:
    return _ENCODER.encode(data).encode("ascii")


# one encoder for every seal (json.dumps makes one per call given options); what is encoded is built afresh by
# _encoded, or is a rule set's layout, never a value that holds itself: no check for cycles
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True, allow_nan=True, check_circular=False)


def unseal_plain(key: bytes, blob: bytes) -> Any:
    """The JSON value sealed by seal_plain under `key`; Damaged as unseal()."""
    text = _opened(key, blob)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise Damaged(f"not a value hipconv wrote: {exc}") from None


def _opened(key: bytes, blob: bytes) -> bytes:
    """The text of a sealed blob, once its checksum matches."""
    text = blob[SEAL_SIZE:]
    if len(blob) < SEAL_SIZE or _checksum(key, text) != blob[:SEAL_SIZE]:
        raise Damaged("its checksum does not match its bytes")
    return text


def _checksum(key: bytes, text: bytes) -> bytes:
    return zlib.crc32(text, zlib.crc32(key + b"\0")).to_bytes(SEAL_SIZE, "big")


# A value is encoded as itself when JSON holds it as it is (str, int, float, bool, None), else as a JSON
# object of one key that says what it is ({"t": [...]} a tuple, ...; a record: {"r": [class, *fields]}),
# which json.loads hands to _hook innermost first: no Python runs for the scalars. A tuple of records of one
# class (a file's replacements, its diagnostics) is {"R": [class, [fields], [fields], ...]}: the class once.
_BYTES, _TUPLE, _LIST, _DICT, _SET, _FROZENSET, _PATH, _ENUM, _RECORD = "b", "t", "l", "d", "s", "f", "p", "e", "r"
_TYPED_RECORD = "m"  # a record whose tuple, frozenset and enum fields are stored without a tag (typed_fields)
_BLOB = "B"  # a long byte string, after the JSON text: {"B": [offset, length]} (seal)
_BLOB_BYTES = 128  # from this length on; shorter ones (names, digests) are JSON text


class _Blobs:
    """The long byte strings of the value being sealed, in order, and their length so far."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0


_BLOBS: contextvars.ContextVar[_Blobs] = contextvars.ContextVar("blobs")
_STORED_BLOBS: contextvars.ContextVar[bytes] = contextvars.ContextVar("stored_blobs", default=b"")  # unseal's
_ROWS = "R"
# an empty container's encoding, one object for all (json only reads it): most of a file's facts are empty
_EMPTY: dict[str, dict[str, list[Any]]] = {tag: {tag: []} for tag in (_TUPLE, _LIST, _DICT, _SET, _FROZENSET)}
_SCALAR_ROWS = "T"  # a tuple of tuples of scalars


def _encoded(value: Any) -> Any:
    kind = type(value)
    if kind in PLAIN:
        return value
    encode = _ENCODERS.get(kind)
    if encode is None:
        encode = _ENCODERS[kind] = _encoder(kind)
    return encode(value)


def _items(values: Any) -> list[Any]:
    """The encoded items of a sequence (a scalar as itself, without a call: most items are)."""
    plain = PLAIN
    return [x if type(x) in plain else _encoded(x) for x in values]


def _encoder(kind: type) -> Callable[[Any], Any]:
    """How a value of this type is encoded, decided once per type: a run stores tens of thousands of values."""
    if kind is bytes:
        return _bytes
    if kind is tuple:
        return _tuple
    if kind is list:
        return lambda value: {_LIST: _items(value)} if value else _EMPTY[_LIST]
    if kind is dict:
        return lambda value: {_DICT: _items(x for item in value.items() for x in item)} if value else _EMPTY[_DICT]
    if kind is frozenset or kind is set:
        tag = _FROZENSET if kind is frozenset else _SET
        return lambda value: {tag: _items(value)} if value else _EMPTY[tag]
    if issubclass(kind, PurePath):
        return lambda value: {_PATH: str(value)}
    if issubclass(kind, enum.Enum):
        name = record_name(kind)
        return lambda value: {_ENUM: [name, _encoded(value.value)]}
    found = _record_fields(kind)
    if found is not None:
        name, fields = found
        typed = _typed_encoder(kind)
        if typed is not None:
            return lambda value: typed(value) or {_RECORD: [name, *fields(value)]}
        return lambda value: {_RECORD: [name, *fields(value)]}
    raise TypeError(f"a {kind.__qualname__} is not stored in hipconv's caches")


def _bytes(value: bytes) -> Any:
    blobs = _BLOBS.get(None)
    if blobs is None or len(value) < _BLOB_BYTES:
        return {_BYTES: value.decode("latin-1")}  # a byte per character: source text stays short
    blobs.parts.append(value)
    blobs.size += len(value)
    return {_BLOB: [blobs.size - len(value), len(value)]}


def _tuple(value: tuple[Any, ...]) -> Any:
    if not value:
        return _EMPTY[_TUPLE]
    first = type(value[0])
    if first is tuple:  # the types of the rows, then of their items, gathered at C speed
        if set(map(type, value)) == _TUPLE_TYPE and set(map(type, itertools.chain.from_iterable(value))) <= PLAIN:
            return {_SCALAR_ROWS: value}  # (pairs of names, #include lines): json writes the tuples as arrays
    elif first not in PLAIN and len(value) > 1:
        found = _RECORD_FIELDS.get(first, _UNKNOWN)
        if found is _UNKNOWN:
            found = _RECORD_FIELDS[first] = _record_fields(first)
        untyped = not typed_fields(first)  # type: ignore[arg-type]  # a typed record is stored alone
        if found is not None and untyped and set(map(type, value)) == {first}:
            fields = found[1]  # a NamedTuple of scalars is its own row, which json writes as an array
            return {_ROWS: [found[0], *(value if fields is _as_is else map(fields, value))]}
    return {_TUPLE: _items(value)}


_RecordFields = tuple[str, Callable[[Any], Any]]  # a list or tuple of the encoded field values
_RECORD_FIELDS: dict[type, _RecordFields | None] = {}
_UNKNOWN: Any = object()


def _record_fields(kind: type) -> _RecordFields | None:
    """A record class's name, and how a record's encoded field values are read (None: no record class). A
    record whose fields are all declared scalars (str, int, float, bool, None: Replacement, Diagnostic) is
    handed to json as the tuple of its values, which it writes at C speed; mypy holds the fields to their
    declared types."""
    values = _field_values(kind)
    if values is None:
        return None
    if scalar_fields(kind):
        return record_name(kind), values
    return record_name(kind), (_items if values is _as_is else lambda value: _items(values(value)))


def _field_values(kind: type) -> Callable[[Any], tuple[Any, ...]] | None:
    """How a record's field values are read, as a tuple (None: not a record class)."""
    if issubclass(kind, tuple) and hasattr(kind, "_fields"):
        return _as_is  # a NamedTuple is the tuple of its fields
    if not dataclasses.is_dataclass(kind) or issubclass(kind, enum.Enum):
        return None
    names = field_names(kind)
    getter = operator.attrgetter(*names)  # a tuple of the values, but the one value itself for one field
    return getter if len(names) > 1 else lambda value: (getter(value),)


def _typed_encoder(kind: type) -> Callable[[Any], Any] | None:
    """How a record of the class is stored with its typed fields untagged ({"m": [class, *fields]}): None where
    it has no such field, and the function's None for a record whose field is not of its declared type (stored
    as any record then, so that it reads back as it was)."""
    typed = typed_fields(kind)
    values = _field_values(kind)
    if not typed or values is None:
        return None
    name = record_name(kind)
    how: list[tuple[str, Any] | None] = [None] * len(field_order(kind))  # Any: a test by it narrows nothing
    for position, stored, declared in typed:
        how[position] = (stored, declared)

    def encode(value: Any) -> Any:
        out: list[Any] = [name]
        for item, field in zip(values(value), how):
            if field is None:
                out.append(item if type(item) in PLAIN else _encoded(item))
            elif type(item) is not field[1]:
                return None
            elif field[0] == AS_MEMBER:
                out.append(item.value)
            else:  # a tuple or frozenset: most are empty
                out.append(_untagged(field[0], item) if item else [])
        return {_TYPED_RECORD: out}

    return encode


def _untagged(stored: str, item: Any) -> Any:
    """A typed tuple or frozenset field's value, not empty, as typed_fields stores it."""
    if stored == AS_FROZENSET:
        return _items(item)
    encoded = _tuple(item)
    return encoded[_TUPLE] if _TUPLE in encoded else encoded  # its items, or its rows


def _as_is(value: Any) -> Any:
    return value


_TUPLE_TYPE = frozenset({tuple})
_ENCODERS: dict[type, Callable[[Any], Any]] = {}


def _hook(obj: dict[str, Any]) -> Any:
    """The value of one encoded object, its items decoded already (the tags tried in the order of how often
    a file's facts and results hold them)."""
    if len(obj) != 1:
        raise TypeError("not an encoded value")
    ((tag, data),) = obj.items()
    if tag == _DICT:
        return dict(zip(data[::2], data[1::2]))
    if tag == _ENUM:
        return enum_member(data[0], data[1])
    if tag == _TUPLE:
        return tuple(data)
    if tag == _TYPED_RECORD or tag == _RECORD:
        return (typed_builder if tag == _TYPED_RECORD else record_builder)(data[0])(data[1:])
    if tag == _ROWS or tag == _SCALAR_ROWS:
        return _rows(tag, data)
    if tag == _FROZENSET:
        return frozenset(data)
    if tag == _LIST:
        return list(data)
    if tag == _BYTES or tag == _BLOB:
        return _byte_string(tag, data, _STORED_BLOBS.get())
    if tag == _SET:
        return set(data)
    if tag == _PATH:
        return Path(data)
    raise TypeError(f"unknown tag {tag!r}")


# one decoder for every unseal: json.loads makes a decoder (and its scanner) per call when given a hook
_DECODER = json.JSONDecoder(object_hook=_hook)


def _byte_string(tag: str, data: Any, blobs: bytes) -> bytes:
    if tag == _BYTES:
        text: str = data  # AttributeError below for a value that is no text: damaged
        return text.encode("latin-1")  # UnicodeEncodeError (a ValueError) for a character above 255: damaged
    offset, length = data  # ValueError for another shape
    if type(offset) is not int or type(length) is not int or not 0 <= offset <= offset + length <= len(blobs):
        raise ValueError("a byte string outside the stored bytes")
    return blobs[offset : offset + length]


def _rows(tag: str, data: list[Any]) -> tuple[Any, ...]:
    """A tuple of records of one class (_ROWS), or of tuples of scalars (_SCALAR_ROWS)."""
    if tag == _ROWS:
        return rows_builder(data[0])(data[1:])
    if not set(map(type, data)) <= LIST_TYPE:
        raise TypeError("a row that is no list")
    return tuple(map(tuple, data))


@functools.lru_cache(maxsize=1)
def library_versions() -> str:
    """The installed releases of the libraries whose behaviour a cached value depends on (KEYED_LIBRARIES), read
    from the names of their `*.dist-info` folders and the size and time of their package's files (libclang.so
    too, in clang/native/), without
    importing them (a rerun from the cache loads neither libclang nor jinja2)."""
    found = []
    for module, distribution in KEYED_LIBRARIES:
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            found.append(f"{module}: none")
            continue
        folder = Path(next(iter(spec.submodule_search_locations)))
        prefix = distribution.lower().replace("-", "_") + "-"
        try:
            infos = sorted(n for n in os.listdir(folder.parent) if n.lower().startswith(prefix) and ".dist-info" in n)
            files = _files(folder)
        except OSError:
            infos, files = [], []
        found.append(f"{module}: {folder} {infos} {files}")
    return "\n".join(found)


def _files(folder: Path) -> list[str]:
    """The name, size and time of each file of a package folder and of its subfolders, one level down."""
    found = []
    for entry in os.scandir(folder):
        if entry.is_dir() and entry.name != "__pycache__":
            found += [f"{entry.name}/{name}" for name in _files(Path(entry.path)) if "/" not in name]
        elif entry.is_file():
            info = entry.stat()
            found.append(f"{entry.name}:{info.st_size}:{info.st_mtime_ns}")
    return sorted(found)
