"""Deprecated place of :mod:`gdl.workers` (the worker processes serve the match runner too, below the
protocol); it goes in the next release."""

from gdl.deprecation import moved_module

__getattr__ = moved_module(__name__, "gdl.workers")
