"""The layout of the native kernel's array (:class:`gdl.engines.native.Kernel`): its sections, the fields
of its sizes and tallies, and the kernel's outcomes; shared by the code that flattens a network
(:mod:`gdl.engines.native`) and the numba kernel that runs it (:mod:`gdl.engines.native_kernel`)."""

from __future__ import annotations

#: Sections of the array, in order; the array starts with the offsets of the sections (``SECTIONS + 1``).
(
    # The network.
    SIZES, OP, NODE, FIRST, END, LITS, LEGAL_LITS, LEGAL_INPUTS, GROUP_STARTS, GROUP_OF, GUARDS,
    LEGAL_STARTS, GOAL_LITS, GOAL_STARTS, NEXT_LITS, FANOUT_STARTS, FANOUT,
    # The state handed in and out (bit ``i`` of the words for base proposition ``i``), the goals read.
    STATE_IN, STATE_OUT, GOALS,
    # The network in a state (the counters, the sets), and its saved copy: two runs of the same layout.
    COUNTERS, MEMBERS, POSITIONS, SET_SIZES, SAVED,
    # Scratch memory of a propagation.
    QUEUED, STACK,
) = range(27)
SECTIONS = 27
#: Fields of the SIZES section.
NODES, BASES, ROLES, LEGAL_OUTPUTS, GOAL_SHIFT, SWAP_INPUTS, WORK, GOAL_ENTRIES = range(8)
#: Kernel outcomes.
TERMINAL, NO_LEGAL_MOVE, DEPTH_LIMIT = 0, 1, 2
#: How a playout starts: from the saved network; from the state handed in (propagating the base
#: propositions that differ from the saved network's, then saving); from the state handed in, evaluated
#: afresh (then saved).
FROM_SAVED, FROM_STATE, FROM_SCRATCH = 0, 1, 2
#: Fields of the tallies of many walks (:meth:`Kernel.charges`): the walks that ended at a terminal
#: state, without a legal move, at the depth limit (``TALLY_TERMINAL + outcome``); the joint moves made
#: in all; then, from ``TALLY_GOALS`` on, how many walks ended with each goal output the only one of its
#: role that holds (in the order of the network's goal outputs, role after role).
TALLY_TERMINAL, TALLY_NO_LEGAL_MOVE, TALLY_DEPTH_LIMIT, TALLY_MOVES, TALLY_GOALS = range(5)
