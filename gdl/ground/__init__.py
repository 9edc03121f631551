"""Grounding: a checked game instantiated into ground rules (:mod:`gdl.ground.instantiate`) and built into
a propositional network (:mod:`gdl.ground.propnet`) that the compiled, native and batched engines run."""

from __future__ import annotations

from gdl.ground.grounding import Grounding, GroundRule, Value, atom_text, term_of, value_of, value_text
from gdl.ground.instantiate import DEFAULT_MAX_ATOMS, DEFAULT_MAX_SECONDS, instantiate
from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet, build

__all__ = [
    "DEFAULT_MAX_ATOMS",
    "DEFAULT_MAX_SECONDS",
    "FALSE",
    "TRUE",
    "Gate",
    "GroundRule",
    "Grounding",
    "PropNet",
    "Value",
    "atom_text",
    "build",
    "instantiate",
    "term_of",
    "value_of",
    "value_text",
]
