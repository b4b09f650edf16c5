"""Fetch the SARIF 2.1.0 JSON Schema (OASIS) for tests/test_sarif.py, into hipconv's test-data cache.

No PyPI package ships the schema, so it is taken from the npm package @microsoft/jest-sarif (MIT), which
carries the official file unchanged, and checked by its sha256 before it is written. The repository keeps
no copy of it; .ci/run calls this before the tests, and the test skips (saying why) where it is absent.

    python tools/fetch_sarif_schema.py [PATH]   # default: the path tests/test_sarif.py reads
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
import tarfile
import urllib.request
from pathlib import Path

TARBALL = "https://registry.npmjs.org/@microsoft/jest-sarif/-/jest-sarif-1.0.0-beta.0.tgz"
MEMBER = "package/lib/schemas/sarif-2.1.0-rtm.5.json"
SHA256 = "2d99159ae54a3eea97f81781cff48780548657c35949f4b7f25e99a2ba4de4f8"
ENV = "HIPCONV_SARIF_SCHEMA"


def default_path() -> Path:
    """Where the schema is kept: $HIPCONV_SARIF_SCHEMA, else ~/.cache/hipconv-tests/."""
    return Path(os.environ.get(ENV) or Path.home() / ".cache" / "hipconv-tests" / "sarif-2.1.0-rtm.5.json")


def fetch(path: Path) -> None:
    if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == SHA256:
        return
    with urllib.request.urlopen(TARBALL, timeout=60) as response:
        archive = tarfile.open(fileobj=io.BytesIO(response.read()), mode="r:gz")
    member = archive.extractfile(MEMBER)
    if member is None:
        raise SystemExit(f"{TARBALL} has no {MEMBER}")
    data = member.read()
    if hashlib.sha256(data).hexdigest() != SHA256:
        raise SystemExit(f"{MEMBER} in {TARBALL} is not the schema expected (sha256 {SHA256})")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


if __name__ == "__main__":
    fetch(Path(sys.argv[1]) if len(sys.argv) > 1 else default_path())
