"""The layout of the uct player's tree arrays shared by the Python side (:mod:`gdl.players.uct.tree`) and
the numba kernels (:mod:`gdl.players.uct.kernel`), which importing numba would load."""

from __future__ import annotations

#: Node flags: the node's state is terminal (or a role has no legal move there); its value is proven;
#: its moves (edges) are laid out; it is a node where several roles choose and its edges are followed by
#: a slot per joint move, which links the child that joint move leads to (see :data:`JOINT_LIMIT`).
TERMINAL_NODE, SOLVED, EXPANDED, JOINT = 1, 2, 4, 8
#: Fields of the tree's counters (``meta``): nodes used, edges used, whether the tree ran out of room,
#: and the random generator's state.
NODES_USED, EDGES_USED, FULL, RANDOM = range(4)
#: ``mover`` of a node where two or more roles choose at once: its children are linked by joint move
#: (where there are at most :data:`JOINT_LIMIT` joint moves; else they are found by their state only), and
#: it is proven where a role has a move that wins against every move of the others, or where all its
#: children are proven and two roles choose with a pure saddle point.
SIMULTANEOUS = -1
#: The most joint moves a node where several roles choose links its children by (a slot each).
JOINT_LIMIT = 256
#: The value of a proven win (a goal of 100).
WIN = 1.0
#: Fields of the search's options (a float64 array the kernels read): the role of nature (-1: none);
#: how often a playout move is the better of two by MAST; whether playouts look for decisive moves; how
#: many candidates a step tries at most; how often a move that lets the next role win at once is drawn
#: again; after how many moves a playout stops and is scored by the heuristic (0: never); GRAVE's
#: reference threshold, the visits that make a node's move averages the reference of the nodes below it
#: (0: no move averages in the selection); GRAVE's bias, how fast a move's own mean takes over from them;
#: how many visits a heuristic prior adds to a move at its first visit (0: none); whether a move that
#: lets the next role win at once is replaced by a saver first (a move that flips what the winning
#: move's legality reads); the weight of the implicit minimax value of a move's child in its mean (0:
#: none); within how many plies a node's role to move is searched for a forced win (0: never), and at
#: which visit of the node (:mod:`gdl.players.uct.probe_kernel`); how often a playout step where one role
#: chooses plays its best capture by the material heuristic (0: never); how many answers that do not
#: lose at once a probe follows a move against (0: all, a full-width probe).
(CHANCE, GREED, DECISIVE, TRIES, ANTI, CUTOFF, RAVE, BIAS, PRIOR, SAVERS, MINIMAX, PROBE,
 PROBE_VISIT, CAPTURE, THREATS) = range(15)
#: The most plies of a probe (the rows of its room).
MOST_PROBE_PLIES = 9
#: The value of a node that has no heuristic estimate (its children's, once they have one, is backed up).
NO_ESTIMATE = -1.0
