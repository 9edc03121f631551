"""What each role is told after each step, and what one player knows: its view.

**The information model** (:func:`told`, :func:`plays_with_views`), used by every part of gdl that
plays, solves or steps a game (the match runner, the protocol, the extensive form, the environments,
the solvers). It is the GGP world's:

- A game without any ``sees`` rule is played under GDL's protocol: after each step every role is told
  the whole joint move, nature's (``random``'s) included, as the GGP protocol's PLAY message carries it.
  From the joint moves a player works out every state, so tools may hand such a player the state.
- A game with ``sees`` rules is GDL-II: after each step a role is told only its percepts, the
  ``(sees ROLE PERCEPT)`` that hold, never the state nor the others' moves; a role no ``sees`` rule names
  is told nothing (the Dresden GameController's PLAY carries the turn, the player's own last move and its
  percepts, NIL when it has none).

A player's :class:`View` is its own moves, what it was told after each of them and its legal moves now:
everything it can know (in a well-formed game its legal moves depend only on its view).
:meth:`View.information_state` names the view by a canonical string, the information-set key of the
extensive form.

>>> import gdl
>>> game = gdl.load("games/tictactoe.kif")
>>> view = View.initial(game.initial_state(), "oplayer")
>>> view.information_state()
'(view oplayer (legal noop))'
>>> view.after("noop", [], ["noop"]).information_state()
'(view oplayer (step noop (seen)) (legal noop))'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gdl.game import Game, JointLike, State, as_term
from gdl.syntax.model import Constant, Function, Term


def plays_with_views(game: Game) -> bool:
    """Whether the players of ``game`` are told only their percepts (GDL-II: it has ``sees`` rules), and
    so are handed views; in any other game every role is told every joint move, and knows the state."""
    return game.has_percepts


def told(state: State, joint: JointLike) -> dict[str, frozenset[Term]]:
    """What each role (nature included) is told after ``joint`` is played in ``state``: its percepts in
    a GDL-II game, in a GDL game the whole joint move as ``(does ROLE MOVE)`` terms (see the module
    docstring). The moves are checked as by :meth:`State.next`.

    >>> import gdl
    >>> game = gdl.load("games/tictactoe.kif")
    >>> seen = told(game.initial_state(), {"xplayer": "(mark 1 1)", "oplayer": "noop"})
    >>> sorted(map(str, seen["oplayer"]))
    ['(does oplayer noop)', '(does xplayer (mark 1 1))']
    """
    game = state.game
    if plays_with_views(game):
        return state.percepts(joint)
    moves = state.checked_joint(joint)
    everything = frozenset(
        Function("does", (Constant(role), move)) for role, move in zip(game.roles, moves, strict=True)
    )
    return dict.fromkeys(game.roles, everything)


def _sorted(terms: Iterable[Term]) -> tuple[Term, ...]:
    return tuple(sorted(terms, key=str))


@dataclass(frozen=True)
class View:
    """A player's view of a match: its role, its own moves so far, what it saw after each of those steps
    (one set of percepts per move), and its legal moves now (sorted by KIF text)."""

    role: str
    moves: tuple[Term, ...] = ()
    percepts: tuple[frozenset[Term], ...] = ()
    legal: tuple[Term, ...] = ()

    def __post_init__(self) -> None:
        if len(self.moves) != len(self.percepts):
            raise ValueError(
                f"a view has one set of percepts per move: {len(self.moves)} moves, "
                f"{len(self.percepts)} sets of percepts"
            )

    @classmethod
    def initial(cls, state: State, role: str) -> View:
        """The view of ``role`` at ``state`` before any move (the initial state: nothing seen yet)."""
        name = state.game.roles[state.game.role_index(role)]
        return cls(name, (), (), _sorted(state.legal_moves(name)))

    def after(
        self, move: Term | str, percepts: Iterable[Term | str], legal: Iterable[Term | str]
    ) -> View:
        """The view one step later: the player played ``move``, then saw ``percepts`` and may play
        ``legal`` (empty when the game is over)."""
        return View(
            self.role,
            (*self.moves, as_term(move)),
            (*self.percepts, frozenset(map(as_term, percepts))),
            _sorted(map(as_term, legal)),
        )

    def information_state(self) -> str:
        """The whole view as one canonical KIF-like string: ``(view ROLE (step MOVE (seen PERCEPT...))...
        (legal MOVE...))``, percepts and legal moves sorted by KIF text; equal views, equal strings."""
        parts = [f"(view {self.role}"]
        for move, seen in zip(self.moves, self.percepts, strict=True):
            parts.append(f"(step {move} (seen{''.join(' ' + str(p) for p in _sorted(seen))}))")
        parts.append(f"(legal{''.join(' ' + str(m) for m in self.legal)}))")
        return " ".join(parts)
