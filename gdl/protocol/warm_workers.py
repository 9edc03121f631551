"""Deprecated place of :mod:`gdl.warm_workers`; it goes in the next release."""

from gdl.deprecation import moved_module

__getattr__ = moved_module(__name__, "gdl.warm_workers")
