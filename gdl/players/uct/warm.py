"""Warming the uct player's kernels up: compiled (or loaded from numba's cache) and run once on the smallest
game, by ``make`` and by the player server's worker processes before any clock."""

from __future__ import annotations

import time
from functools import cache

import numpy as np

from gdl.engines.compiled import CompiledReasoner
from gdl.players.uct.decisive import watch
from gdl.players.uct.tree import Tree, goal_values


def _smallest_tree() -> tuple[Tree, int]:
    """A tree of the smallest game, and the game's initial state."""
    from gdl.check import check_text
    from gdl.engines.warm import WARM_UP_GAME
    from gdl.engines.warm import warm_up as warm_engines

    warm_engines()
    checked = check_text(WARM_UP_GAME).checked
    assert checked is not None
    compiled = CompiledReasoner(checked)
    tree = Tree(
        compiled.kernel, goal_values(compiled), 64, 256, 1, watch=watch(compiled.kernel), averages=True
    )
    return tree, compiled.initial()


def warm_up_search() -> None:
    """Compile (or load) the kernels of the search and of tree reuse alone; ``make`` compiles them beside
    the playouts' kernel (:func:`warm_up_playouts`), each taking minutes."""
    tree, initial = _smallest_tree()
    root = tree.root(initial)
    tree.search(
        root, 4, greed=0.5, decisive=1, anti=1, cutoff=2, rave=1, prior=2, savers=1, minimax=0.5, probe=3
    )
    tree.keep(root)


def warm_up_solver() -> None:
    """Load the kernels that solve a small game at the start (:mod:`gdl.players.solved`)."""
    from gdl.check import check_text
    from gdl.engines.warm import WARM_UP_GAME
    from gdl.game import Game
    from gdl.players.solved import solve_small

    checked = check_text(WARM_UP_GAME).checked
    assert checked is not None
    solve_small(Game(checked, CompiledReasoner(checked)), time.monotonic() + 60)


def warm_up_playouts() -> None:
    """Compile (or load) the kernel of the playouts from a state (the heuristic's samples) alone."""
    tree, _ = _smallest_tree()
    tree.sample(np.full(2, 1, dtype=np.int64), decisive=1)


@cache
def warm_up() -> float:
    """Compile (or load from numba's cache) the search kernels and run them once on the smallest game;
    the seconds it took (the first call only)."""
    started = time.perf_counter()
    warm_up_search()
    warm_up_playouts()
    warm_up_solver()
    return time.perf_counter() - started
