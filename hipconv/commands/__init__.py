"""The commands as plain functions: a request in, an outcome out (hipconv.cli maps it to an exit code).

They sit above everything else: they use discover, the translator (pipeline), output,
scan, build and the reports; nothing below imports them.
"""
