"""Old import paths of moved names, kept working for one release with a :class:`DeprecationWarning`."""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any


def moved_names(module: str, new: str, *names: str) -> None:
    """Make taking one of ``names`` from ``module`` (``from module import name``) warn that it moved to
    the module ``new``. The module's own code still reads the name from its globals, unwarned: the
    names stay imported there."""

    class Deprecating(types.ModuleType):
        def __getattribute__(self, name: str) -> Any:
            if name in names:
                warnings.warn(
                    f"{module}.{name} is deprecated: import it from {new}",
                    DeprecationWarning,
                    stacklevel=2,
                )
            return super().__getattribute__(name)

    sys.modules[module].__class__ = Deprecating


def moved_module(old: str, new: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for a module that moved to ``new``: each name taken from ``old`` warns
    and comes from ``new``."""

    def __getattr__(name: str) -> Any:
        warnings.warn(f"{old} is deprecated: use {new}", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(new), name)

    return __getattr__
