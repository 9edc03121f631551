"""Deprecated name of :mod:`gdl.engines.native_kernel` (the native engine's numba kernels); it goes in the
next release."""

from gdl.deprecation import moved_module

__getattr__ = moved_module(__name__, "gdl.engines.native_kernel")
