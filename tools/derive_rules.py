"""Derive the rules and name lists from the API inventories: a shim for `python -m tools.derive` (tools/derive/)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tools.derive, hipconv
from tools.derive.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
