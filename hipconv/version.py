"""hipconv's version: a leaf module (it imports nothing from hipconv), so that what stamps its output
with the version need not import the package root."""

from __future__ import annotations

__version__ = "0.1.0"
