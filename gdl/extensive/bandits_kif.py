"""Deprecated place of :mod:`gdl.bandits.kif` (the bandit maze is its own package); it goes in the next
release."""

from gdl.deprecation import moved_module

__getattr__ = moved_module(__name__, "gdl.bandits.kif")
