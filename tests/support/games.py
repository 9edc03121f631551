"""Small games and states written for the tests."""

from __future__ import annotations

from gdl.game import Game, State

#: Two roles; ``blocked`` has no legal move in the initial state, which is not terminal.
STUCK = """
(role free) (role blocked)
(init (cell a))
(<= (legal free (go ?c)) (true (cell ?c)))
(<= (legal blocked (go ?c)) (true (cell ?c)) (true (open ?c)))
(<= (next (cell ?c)) (true (cell ?c)))
(<= terminal (true (cell b)))
(goal free 0) (goal blocked 0)
"""


def board(game: Game, rows: list[str], to_move: str) -> State:
    """A tictactoe state from three rows of ``x``, ``o`` and ``.``."""
    fluents = [
        f"(cell {r} {c} {'b' if mark == '.' else mark})"
        for r, row in enumerate(rows, 1)
        for c, mark in enumerate(row, 1)
    ]
    return game.state([*fluents, f"(control {to_move})"])


#: A simultaneous-move game in which ``a`` wins for ``row`` whatever ``column`` does, and ``column``
#: gets 70 from ``l`` and 30 from ``r`` whatever ``row`` does (dominant moves for both).
DOMINANT = """
(role row) (role column)
(init start)
(legal row a) (legal row b) (legal column l) (legal column r)
(<= (next done) (true start))
(<= (next (played ?m)) (does row ?m))
(<= (next (answered ?m)) (does column ?m))
(<= terminal (true done))
(<= (goal row 100) (true (played a)))
(<= (goal row 0) (not (true (played a))))
(<= (goal column 70) (true (answered l)))
(<= (goal column 30) (not (true (answered l))))
"""
