"""Any GDL or GDL-II game as an OpenSpiel Python game: :func:`openspiel_game`, :func:`register`.

Players are numbered in role order (nature excluded); nature is OpenSpiel's chance player, its legal moves
equally likely chance outcomes. A player's action ``i`` is its ``i``-th move (:mod:`gdl.env.encoding`).
A state where no one has a choice is played through.

**Returns** come at the end, in goal units (so that OpenSpiel's values and exploitabilities read as
``gdl solve``'s): each player's goal, or with ``zero_sum=True`` its goal less the players' mean goal (the
game is then declared zero-sum). Without ``zero_sum``, a game is declared constant-sum when every
terminal state reachable from the start has the same sum of goals, which is proved by visiting them all
(at most :data:`CONSTANT_SUM_STATES` states; ``constant_sum=True`` or ``False`` declares it without the
proof), and general-sum otherwise.

**Loading by name.** Importing this module registers the game ``"gdl"`` with OpenSpiel:
``pyspiel.load_game("gdl", {"path": "games/kuhn.kif"})`` loads any GDL or GDL-II file, with the options
of :func:`register` as further parameters (``zero_sum``, ``dynamics``, ``engine``, ``max_game_length``).

**Dynamics.** ``"sequential"``: in a state where several players have a choice they choose one after
another in role order, each without seeing the others' pending moves (the usual sequential form of a
simultaneous move, so the game has imperfect information). ``"simultaneous"``: such a state is an
OpenSpiel simultaneous node. ``"auto"`` (default): sequential for GDL-II games (what CFR and the
extensive-form algorithms need), and for GDL games sequential unless random playouts from the start
(a sample, not a proof) meet a state where two players have a choice.

**Information states** are from the player's view. GDL-II: :meth:`gdl.views.View.information_state`
(its moves and percepts), with its pending move if any. GDL: the joint moves so far and the state.
Observation strings and tensors: GDL-II, the last percepts, last own move and step count (the tensor laid
out as the PettingZoo observation, its part for earlier percepts empty: OpenSpiel may observe every
state); GDL, the state (the tensor 0/1 over base propositions).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from gdl.env.encoding import Encoding, as_game
from gdl.game import Game, State
from gdl.syntax.model import Term
from gdl.syntax.reader import parse_term
from gdl.views import View, told

#: Random playouts (and steps per playout) the "auto" dynamics looks through for simultaneous choices.
_PROBE_PLAYOUTS = 20
_PROBE_STEPS = 200
#: The game length declared to OpenSpiel by default (GDL games declare none; some algorithms size by it).
DEFAULT_MAX_GAME_LENGTH = 1000

#: The most states visited to prove that a game is constant-sum (see the module docstring).
CONSTANT_SUM_STATES = 100_000

#: The registered games and their contexts, by short name.
_registered: dict[str, Game] = {}
_contexts: dict[str, _Context] = {}


def openspiel_game(game: Game | str | Path, **options: Any) -> pyspiel.Game:
    """``game`` registered with OpenSpiel (:func:`register`, with its options) and loaded."""
    return pyspiel.load_game(register(game, **options))


def register(
    game: Game | str | Path,
    *,
    dynamics: str = "auto",
    zero_sum: bool = False,
    constant_sum: bool | None = None,
    max_game_length: int = DEFAULT_MAX_GAME_LENGTH,
    engine: str = "auto",
) -> str:
    """Register ``game`` with OpenSpiel; returns its short name, ``python_gdl_NAME`` (with a number
    appended when another game has that name)."""
    loaded = as_game(game, engine)
    context, name = _context(loaded, dynamics, zero_sum, constant_sum, max_game_length)
    game_type, game_info = _describe(context, name, max_game_length, {})

    class RegisteredGame(GdlGame):
        def __init__(self, params: dict[str, Any] | None = None) -> None:
            super().__init__(context, game_type, game_info, params or {})

    pyspiel.register_game(game_type, RegisteredGame)
    _registered[name] = loaded
    return name


def _context(
    game: Game, dynamics: str, zero_sum: bool, constant_sum: bool | None, max_game_length: int
) -> tuple[_Context, str]:
    """The context of ``game`` under a short name of its own (see :func:`register`)."""
    if dynamics not in ("auto", "sequential", "simultaneous"):
        raise ValueError(f"unknown dynamics {dynamics!r} (choose from: auto, sequential, simultaneous)")
    if max_game_length < 1:
        raise ValueError(f"max_game_length must be at least 1, got {max_game_length}")
    base = "python_gdl_" + "".join(c if c.isalnum() else "_" for c in game.name)
    name = next(
        n for n in itertools.chain([base], (f"{base}_{i}" for i in itertools.count(2)))
        if n not in _registered or _registered[n] is game
    )
    if zero_sum or constant_sum is False:
        total = None
    else:
        total = _constant_sum(game)
        if constant_sum and total is None:
            raise ValueError(
                f"game {game.name!r} is declared constant-sum, but its goals were not found to have one "
                f"sum in every terminal state within {CONSTANT_SUM_STATES} states"
            )
    context = _contexts[name] = _Context(name, Encoding(game), zero_sum, dynamics, total)
    return context, name


class GdlGame(pyspiel.Game):
    """A GDL game as an OpenSpiel game (see the module docstring)."""

    def __init__(
        self, context: _Context, game_type: pyspiel.GameType, game_info: pyspiel.GameInfo,
        params: dict[str, Any],
    ) -> None:
        super().__init__(game_type, game_info, params)
        self._context = context
        #: The numbering of moves: ``encoding.action(role, move)`` is a move's action.
        self.encoding = context.encoding

    def new_initial_state(self) -> GdlState:
        return GdlState(self, self._context)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> GdlObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return GdlObserver(self._context, recall)


#: The parameters of ``pyspiel.load_game("gdl", {...})`` and their defaults.
_PATH_PARAMETERS: dict[str, Any] = {
    "path": "",
    "dynamics": "auto",
    "zero_sum": False,
    "engine": "auto",
    "max_game_length": DEFAULT_MAX_GAME_LENGTH,
}
#: The contexts of games loaded by path, by their path and options.
_loaded_by_path: dict[tuple[Any, ...], _Context] = {}


class GdlGameFromPath(GdlGame):
    """The game behind ``pyspiel.load_game("gdl", {"path": ...})``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = {**_PATH_PARAMETERS, **(params or {})}
        path = str(given["path"])
        if not path:
            raise ValueError('pyspiel.load_game("gdl", {"path": FILE}): give the path of a GDL game')
        key = (str(Path(path).resolve()), given["dynamics"], given["zero_sum"], given["engine"])
        context = _loaded_by_path.get(key)
        if context is None:
            game = as_game(path, str(given["engine"]))
            context, _ = _context(
                game, str(given["dynamics"]), bool(given["zero_sum"]), None, int(given["max_game_length"])
            )
            _registered[context.name] = game
            _loaded_by_path[key] = context
        game_type, game_info = _describe(context, "gdl", int(given["max_game_length"]), _PATH_PARAMETERS)
        super().__init__(context, game_type, game_info, given)


def _constant_sum(game: Game) -> int | None:
    """The sum of the players' goals when every reachable terminal state has the same one, proved by
    visiting every state reachable from the start (at most :data:`CONSTANT_SUM_STATES`); else None."""
    start = game.initial_state()
    seen = {start}
    stack = [start]
    sums: set[int] = set()
    while stack:
        state = stack.pop()
        if state.is_terminal():
            goals = state.goals()
            sums.add(sum(goals[p] for p in game.players))
            if len(sums) > 1:
                return None
            continue
        legal = [state.legal_moves(role) for role in game.roles]
        for joint in itertools.product(*legal):
            following = state.next(dict(zip(game.roles, joint, strict=True)))
            if following not in seen:
                if len(seen) >= CONSTANT_SUM_STATES:
                    return None
                seen.add(following)
                stack.append(following)
    return sums.pop() if sums else None


@dataclass(eq=False)
class _Context:
    """What every state of one game shares; never copied when OpenSpiel clones a state, and pickled by
    the game's registered name."""

    name: str
    encoding: Encoding
    zero_sum: bool
    dynamics: str
    #: The sum of the goals in every terminal state, when proved (see :func:`_constant_sum`).
    constant_sum: int | None
    simultaneous: bool = field(init=False)
    perfect: bool = field(init=False)

    def __post_init__(self) -> None:
        game = self.encoding.game
        imperfect = self.encoding.imperfect
        seen = self.dynamics == "simultaneous" or (not imperfect and _has_simultaneous_choice(game))
        self.simultaneous = self.dynamics == "simultaneous" or (self.dynamics == "auto" and seen)
        self.perfect = not imperfect and (self.simultaneous or not seen)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Context:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return _context_named, (self.name,)


def _context_named(name: str) -> _Context:
    try:
        return _contexts[name]
    except KeyError:
        raise ValueError(
            f"no GDL game is registered as {name!r} in this process; register it first"
        ) from None


def _has_simultaneous_choice(game: Game) -> bool:
    """Whether random playouts from the start meet a state where two players have a choice."""
    rng = random.Random(0)
    for _ in range(_PROBE_PLAYOUTS):
        state = game.initial_state()
        for _ in range(_PROBE_STEPS):
            if state.is_terminal():
                break
            legal = {role: state.legal_moves(role) for role in game.roles}
            if sum(len(legal[p]) > 1 for p in game.players) > 1:
                return True
            state = state.next({role: rng.choice(moves) for role, moves in legal.items()})
    return False


def _describe(
    context: _Context, name: str, max_game_length: int, parameters: dict[str, Any]
) -> tuple[pyspiel.GameType, pyspiel.GameInfo]:
    encoding = context.encoding
    game = encoding.game
    kind = pyspiel.GameType
    chance = game.chance_role
    players = len(encoding.players)
    if context.zero_sum:
        utility, utility_sum, lowest = kind.Utility.ZERO_SUM, 0.0, -100.0
    elif context.constant_sum is not None:
        utility, utility_sum, lowest = kind.Utility.CONSTANT_SUM, float(context.constant_sum), 0.0
    else:
        utility, utility_sum, lowest = kind.Utility.GENERAL_SUM, None, 0.0
    game_type = kind(
        short_name=name,
        long_name=f"GDL game {game.name}",
        dynamics=kind.Dynamics.SIMULTANEOUS if context.simultaneous else kind.Dynamics.SEQUENTIAL,
        chance_mode=kind.ChanceMode.EXPLICIT_STOCHASTIC if chance else kind.ChanceMode.DETERMINISTIC,
        information=(
            kind.Information.PERFECT_INFORMATION if context.perfect
            else kind.Information.IMPERFECT_INFORMATION
        ),
        utility=utility,
        reward_model=kind.RewardModel.TERMINAL,
        max_num_players=players,
        min_num_players=players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )
    game_info = pyspiel.GameInfo(
        num_distinct_actions=max(1, *(len(encoding.moves[p]) for p in encoding.players)),
        max_chance_outcomes=len(encoding.moves[chance]) if chance else 0,
        num_players=players,
        min_utility=lowest,
        max_utility=100.0,
        utility_sum=utility_sum,
        max_game_length=max_game_length,
    )
    return game_type, game_info


@dataclass(frozen=True)
class _Node:
    """An immutable position: the GDL state, the moves chosen so far in the current step, each player's
    view (GDL-II) and the joint moves so far (as text). Pickled by value, the state as its fluents (so
    that OpenSpiel's ``serialize`` works), with the name of the game it belongs to."""

    context: str
    state: State
    pending: tuple[tuple[int, Term], ...]
    views: tuple[View, ...]
    history: tuple[str, ...]

    def __deepcopy__(self, memo: dict[int, Any]) -> _Node:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        fluents = tuple(str(f) for f in self.state.fluents())
        pending = tuple((index, str(move)) for index, move in self.pending)
        return _restored_node, (self.context, fluents, pending, self.views, self.history)


def _restored_node(
    context: str, fluents: tuple[str, ...], pending: tuple[tuple[int, str], ...], views: tuple[View, ...],
    history: tuple[str, ...],
) -> _Node:
    game = _context_named(context).encoding.game
    moves = tuple((index, parse_term(move)) for index, move in pending)
    return _Node(context, game.state(fluents), moves, views, history)


class GdlState(pyspiel.State):
    """An OpenSpiel state of a GDL game."""

    def __init__(self, game: pyspiel.Game, context: _Context) -> None:
        super().__init__(game)
        self._context = context
        encoding = context.encoding
        state = encoding.game.initial_state()
        views = tuple(View.initial(state, p) for p in encoding.players) if encoding.imperfect else ()
        self._node = _Node(context.name, state, (), views, ())
        self._settle()

    @property
    def gdl_state(self) -> State:
        """The GDL state (the moves chosen so far in this step not yet applied)."""
        return self._node.state

    # -- positions ------------------------------------------------------------------------------------

    def _legal(self, player: str) -> list[Term]:
        state = self._node.state
        return [] if state.is_terminal() else state.legal_moves(player)

    def _waiting(self) -> list[int]:
        """The players with a choice that have not chosen yet in this step."""
        pending = {index for index, _ in self._node.pending}
        players = self._context.encoding.players
        return [i for i, p in enumerate(players) if i not in pending and len(self._legal(p)) > 1]

    def _chance_options(self) -> list[Term]:
        chance = self._context.encoding.game.chance_role
        return self._legal(chance) if chance is not None else []

    def _settle(self) -> None:
        """Play through the steps where nobody (nature included) has a choice left."""
        while not self._node.state.is_terminal() and not self._waiting():
            options = self._chance_options()
            if len(options) > 1:
                return
            self._advance(options[0] if options else None)

    def _advance(self, chance_move: Term | None) -> None:
        """Play the step: the pending moves, the only legal move of the other players, nature's move."""
        node = self._node
        encoding = self._context.encoding
        game = encoding.game
        chosen = dict(node.pending)
        joint: dict[str, Term] = {}
        for index, player in enumerate(encoding.players):
            joint[player] = chosen[index] if index in chosen else self._legal(player)[0]
        if chance_move is not None and game.chance_role is not None:
            joint[game.chance_role] = chance_move
        following = node.state.next(joint)
        views = node.views
        if encoding.imperfect:
            seen = told(node.state, joint)
            ended = following.is_terminal()
            views = tuple(
                v.after(joint[v.role], seen[v.role], () if ended else following.legal_moves(v.role))
                for v in views
            )
        step = " ".join(str(joint[p]) for p in encoding.players)
        self._node = _Node(node.context, following, (), views, (*node.history, f"({step})"))

    # -- the OpenSpiel API ----------------------------------------------------------------------------

    def current_player(self) -> int:
        if self._node.state.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        waiting = self._waiting()
        if not waiting:
            return int(pyspiel.PlayerId.CHANCE)
        if self._context.simultaneous and len(waiting) > 1 and not self._node.pending:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return waiting[0]

    def _legal_actions(self, player: int) -> list[int]:
        encoding = self._context.encoding
        name = encoding.players[player]
        return sorted(encoding.action(name, move) for move in self._legal(name))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        encoding = self._context.encoding
        chance = encoding.game.chance_role
        options = self._chance_options()
        if chance is None or not options:
            return []
        return sorted((encoding.action(chance, move), 1 / len(options)) for move in options)

    def _apply_action(self, action: int) -> None:
        encoding = self._context.encoding
        player = self.current_player()
        if player == pyspiel.PlayerId.CHANCE:
            chance = encoding.game.chance_role
            assert chance is not None
            self._advance(encoding.move(chance, action, self._chance_options()))
        else:
            name = encoding.players[player]
            move = encoding.move(name, action, self._legal(name))
            node = self._node
            pending = (*node.pending, (player, move))
            self._node = _Node(node.context, node.state, pending, node.views, node.history)
        self._settle()

    def _apply_actions(self, actions: list[int]) -> None:
        encoding = self._context.encoding
        chosen = []
        for index, player in enumerate(encoding.players):
            legal = self._legal(player)
            move = encoding.move(player, actions[index], legal)
            if len(legal) > 1:
                chosen.append((index, move))
        node = self._node
        self._node = _Node(node.context, node.state, tuple(chosen), node.views, node.history)
        self._settle()

    def _action_to_string(self, player: int, action: int) -> str:
        encoding = self._context.encoding
        chance = encoding.game.chance_role
        role = chance if player == pyspiel.PlayerId.CHANCE and chance else encoding.players[player]
        return str(encoding.moves[role][action])

    def is_terminal(self) -> bool:
        return self._node.state.is_terminal()

    def returns(self) -> list[float]:
        players = self._context.encoding.players
        if not self._node.state.is_terminal():
            return [0.0] * len(players)
        goals = self._node.state.goals()
        shift = sum(goals.values()) / len(goals) if self._context.zero_sum else 0.0
        return [goals[p] - shift for p in players]

    def __str__(self) -> str:
        fluents = " ".join(sorted(map(str, self._node.state.fluents())))
        players = self._context.encoding.players
        pending = "".join(f" (pending {players[i]} {m})" for i, m in self._node.pending)
        return f"(state {fluents}){pending}"

    # -- what a player knows --------------------------------------------------------------------------

    def information(self, player: int, recall: bool) -> str:
        """The player's information state (``recall``) or observation, as a string."""
        node = self._node
        own = "".join(f" (pending {move})" for index, move in node.pending if index == player)
        if self._context.encoding.imperfect:
            view = node.views[player]
            if recall:
                return view.information_state() + own
            seen = " ".join(sorted(map(str, view.percepts[-1]))) if view.percepts else ""
            last = str(view.moves[-1]) if view.moves else ""
            return f"(seen {seen}) (moved {last}) (step {len(view.moves)}){own}"
        state = " ".join(sorted(map(str, node.state.fluents())))
        if recall:
            return f"(history {' '.join(node.history)}) (state {state}){own}"
        return f"(state {state}){own}"

    def tensor(self, player: int) -> np.ndarray:
        encoding = self._context.encoding
        if not encoding.imperfect:
            return encoding.state_vector(self._node.state)
        view = self._node.views[player]
        last = view.percepts[-1] if view.percepts else frozenset()
        return encoding.view_vector(
            encoding.players[player], last, (), view.moves[-1] if view.moves else None, len(view.moves)
        )


class GdlObserver:
    """An OpenSpiel observer (the PyObserver interface): strings and tensors from a player's view."""

    def __init__(self, context: _Context, recall: bool) -> None:
        self.recall = recall
        encoding = context.encoding
        size = max(encoding.observation_size(p) for p in encoding.players)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: GdlState, player: int) -> None:
        vector = state.tensor(player)
        self.tensor.fill(0)
        self.tensor[: len(vector)] = vector

    def string_from(self, state: GdlState, player: int) -> str:
        return state.information(player, self.recall)


#: ``"gdl"``: any GDL file by its path (see the module docstring); each loaded game describes itself.
pyspiel.register_game(
    pyspiel.GameType(
        short_name="gdl",
        long_name="GDL game from a file",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=100,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_PATH_PARAMETERS,
    ),
    GdlGameFromPath,
)
