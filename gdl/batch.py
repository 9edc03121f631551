"""Deprecated name of :mod:`gdl.corpus_runs` (corpus-wide runs, not the batched playouts of
:mod:`gdl.engines.batched`); it goes in the next release."""

from gdl.deprecation import moved_module

__getattr__ = moved_module(__name__, "gdl.corpus_runs")
