"""Reasoners: engines that compute legal moves, successor states, termination and goals."""

from __future__ import annotations

from typing import Any

from gdl.check import CheckedProgram
from gdl.engines.base import Reasoner


def make_reasoner(checked: CheckedProgram, engine: str = "auto") -> Reasoner[Any]:
    """The reasoner named by ``engine`` ("datalog", or "auto" for the best available)."""
    if engine in ("auto", "datalog"):
        from gdl.engines.datalog import DatalogReasoner

        return DatalogReasoner(checked)
    raise ValueError(f"unknown engine: {engine!r} (choose from: auto, datalog)")
