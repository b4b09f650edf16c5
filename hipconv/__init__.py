"""hipconv: ahead-of-time CUDA to HIP source translation."""

__version__ = "0.1.0"
