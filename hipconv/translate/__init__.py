"""The translator: CUDA source bytes -> HIP source bytes, token-exact.

It depends on the rule model (hipconv.rules) and the shared value types only; scan,
build and the command line use it, never the reverse (tests/test_layering.py).
"""
