"""Compiling the numba kernels of the extensive form outside any clock: ``make`` calls :func:`warm_up`
at installation (as for :mod:`gdl.engines.warm`), so that no ``gdl solve`` pays the compilation inside
its time limit."""

from __future__ import annotations

from gdl.check import check_text
from gdl.engines.compiled import CompiledReasoner
from gdl.extensive.count import count_infosets, count_tree
from gdl.extensive.generate import generate_tree
from gdl.extensive.mccfr import FlatTree, solve_mccfr
from gdl.extensive.sampled_solve import solve_sampled
from gdl.extensive.sequence import SequenceForm
from gdl.game import Game

#: A tiny GDL-II game with every kind of node: nature picks a coin, then both players guess it at once
#: (each sees its own guess only); the first wins when it guesses right.
WARM_UP_GAME = """
(role random) (role a) (role b) (coin h) (coin t) (init (s 0))
(<= (legal random (pick ?c)) (true (s 0)) (coin ?c)) (<= (legal random noop) (true (s 1)))
(<= (legal ?r noop) (true (s 0)) (role ?r) (distinct ?r random))
(<= (legal ?r (guess ?c)) (true (s 1)) (coin ?c) (role ?r) (distinct ?r random))
(<= (sees ?r (guessed ?c)) (does ?r (guess ?c)))
(<= (next (coin_is ?c)) (does random (pick ?c))) (<= (next (s 1)) (true (s 0)))
(<= (next (right ?r)) (does ?r (guess ?c)) (true (coin_is ?c))) (<= (next (s 2)) (true (s 1)))
(<= terminal (true (s 2)))
(<= (goal a 100) (true (right a))) (<= (goal a 0) (not (true (right a))))
(<= (goal b 0) (true (right a))) (<= (goal b 100) (not (true (right a))))
"""


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels of the extensive form, on a tiny game; ``make``
    calls this at installation, so that no solve pays the compilation inside its time limit."""
    checked = check_text(WARM_UP_GAME).checked
    assert checked is not None
    game = Game(checked, CompiledReasoner(checked), "warm-up")
    tree = generate_tree(game)
    count_tree(game)
    count_infosets(game, "a")
    form = SequenceForm.from_tree(tree)
    solve_mccfr(form, 2, report_every=2, tree=FlatTree.from_arrays(tree, form))
    solve_sampled(game, 2, bound_plays=2)  # sampling, learning a responder and evaluating it: every kernel
