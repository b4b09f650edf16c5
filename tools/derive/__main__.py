"""`python -m tools.derive`: see tools/derive/__init__.py."""

import sys

from tools.derive.cli import main

sys.exit(main())
