"""The shims of hipconv_compat.h as rendered, kept in the cache directory beside the rule sets
(`shims-<version>-<key>.json`). A shim's text depends on hipconv's code, bundled data and templates alone,
never on the tree translated: it is rendered once for them, as a rule set is built once, not in every run
that writes a header (jinja2 compiles a shim's template in 2 to 100 ms, and a header takes tens of them).

The store is sealed JSON (hipconv.cache_format), written as a rule set entry is (hipconv.rules.cache): a
damaged or altered store reads as empty, and its shims are rendered again and rewritten. A cache folder that
cannot be written costs the rendering only.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable, Mapping

from hipconv.cache_format import Damaged, unseal_plain
from hipconv.filecache import code_digest
from hipconv.resources import templates_dir
from hipconv.rules.cache import entry_path, evict, files_under, store_entry

KIND = "shims"


def stored_shims(names: Iterable[str], render: Callable[[str], str]) -> dict[str, str]:
    """The text of each named shim: from the store, else render(name), then kept there."""
    key = shims_key()
    path = entry_path(key, KIND)
    seal = KIND.encode() + key.encode()
    try:
        stored = _texts(unseal_plain(seal, path.read_bytes()))
    except (OSError, Damaged):
        stored = {}
    wanted = list(dict.fromkeys(names))
    missing = [name for name in wanted if name not in stored]
    if missing:
        stored.update((name, render(name)) for name in missing)
        if store_entry(path, seal, stored):
            evict(path.parent, keep=path, kind=KIND)
    return {name: stored[name] for name in wanted}


@functools.cache
def shims_key() -> str:
    """What a shim's text is rendered from: hipconv's code and bundled data (code_digest: the SIMD facts, the
    conversions, jinja2's release), and every file under templates/ (outside the package in a checkout)."""
    digest = hashlib.sha256(code_digest().encode() + b"\0")
    for path in sorted(files_under(templates_dir())):
        digest.update(str(path.relative_to(templates_dir())).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _texts(data: object) -> dict[str, str]:
    """The store's shims; Damaged when it is not a mapping of names to texts."""
    if not isinstance(data, Mapping) or not all(type(k) is str and type(v) is str for k, v in data.items()):
        raise Damaged("a shim store of another layout")
    return dict(data)
