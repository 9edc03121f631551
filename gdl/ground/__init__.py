"""Grounding: a checked game instantiated into ground rules (:mod:`gdl.ground.instantiate`) and built into
a propositional network (:mod:`gdl.ground.propnet`) that the compiled, native and batched engines run."""
