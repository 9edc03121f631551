"""The layout of a sweep's tables (:class:`gdl.engines.sweep.Sweep`), shared by the code that builds them
and the numba kernel that evaluates them (:mod:`gdl.engines.sweep_kernel`)."""

from __future__ import annotations

#: Sections of a sweep's tables, in order; the array starts with their offsets (``SECTIONS + 1``).
SIZES, OP, NODE, FIRST, END, LITS, OUTPUT_LITS = range(7)
SECTIONS = 7
#: Fields of the SIZES section: base propositions, the slot of false (base propositions and inputs come
#: before it), the slots of values (the outputs' bits follow them in a sweep's working memory).
BASES, FALSE_SLOT, VALUE_SLOTS = range(3)
