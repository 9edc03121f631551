"""Solving a GDL-II game through its extensive form, the way its size allows.

:func:`solve_gdl2` loads the game and counts its extensive form over its states
(:func:`gdl.extensive.count.count_tree`, without walking its histories). Then:

- a tree whose arrays fit in the memory given is generated (:func:`gdl.extensive.generate.generate_tree`)
  and solved: as a Python object per node up to :data:`DEFAULT_MAX_NODES` nodes
  (:func:`~gdl.extensive.solving.solve_extensive`, exact values where the strategies are an exact
  equilibrium), on its arrays beyond (:func:`~gdl.extensive.solving.solve_tree`, proven bounds);
- a two-player tree too large to store is sampled by Monte Carlo CFR through the engine
  (:func:`gdl.extensive.sampled_solve.solve_sampled`, with a statistical lower bound of the
  exploitability), when the method is ``auto`` or ``mccfr``;
- any other is refused with its size: nodes, terminals, states, and each player's information sets as
  far as the time left counts them; so is a game without a network (its tree walked over State objects)
  whose walk passes :data:`DEFAULT_MAX_NODES` nodes or the time.

The outcome says which (:class:`Solved`, :class:`Sampled`, :class:`Refused`), or that the game has no
extensive form gdl solves (:class:`NoExtensiveForm`: neither one player nor two with constant-sum goals),
for the perfect-information solver to report on. Nothing here prints.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from gdl.errors import (
    ArraysUnsupportedError,
    ExtensiveTooLargeError,
    GameTooLargeError,
    GdlSourceError,
    LimitError,
    NotExtensiveError,
    OutOfTimeError,
)
from gdl.extensive.count import InfosetCount, TreeCount, count_infosets, count_tree, least_bytes
from gdl.extensive.from_gdl import (
    DEFAULT_MAX_NODES,
    DEFAULT_SECONDS,
    game_of_tree,
    load_gdl2,
    named_extensive,
)
from gdl.extensive.generate import GameTree, generate_tree
from gdl.extensive.model import ExtensiveGame
from gdl.extensive.sampled_solve import SampledSolution, solve_sampled
from gdl.extensive.solving import DEFAULT_ITERATIONS, ExtensiveSolution, solve_extensive, solve_tree
from gdl.game import Game
from gdl.memory import usable_memory

#: Sampled Monte Carlo CFR stops at the time limit unless ``iterations`` says otherwise.
SAMPLED_ITERATIONS = 10**12
#: The least time left that is worth sampling a game in (else it is refused with its size).
MIN_SAMPLING_SECONDS = 0.5

#: What stopped a tree from being stored (:attr:`NotStored.cause`).
SIZE, TIME, GAME = "size", "time", "game"

#: A progress function: what the work is doing now, in words.
Say = Callable[[str], None]


@dataclass(frozen=True)
class Solved:
    """The extensive form was stored and solved; ``solution`` says how well (exact, or within bounds)."""

    solution: ExtensiveSolution
    #: Seconds taken to load the game and make its extensive form, before solving it.
    load_seconds: float


@dataclass(frozen=True)
class NotStored:
    """The extensive form was too large to store, or to make (``why``); ``cause`` says what stopped it:
    :data:`SIZE` (the tree, or its arrays, past what is allowed), :data:`TIME` (the time ran out first: the
    size is not known) or :data:`GAME` (the game itself, e.g. rules that break GDL on a sampled play);
    ``size`` is the tree's where it was counted, ``made`` the nodes generated before the generation stopped
    (0: none), ``seconds`` the time taken."""

    why: str
    cause: str
    size: TreeCount | None
    made: int
    seconds: float

    @property
    def solved(self) -> bool:
        return False

    @property
    def states(self) -> int:
        """The nodes of the game tree; where they were not counted, a lower bound: the nodes made."""
        return self.made if self.size is None else self.size.nodes

    @property
    def reason(self) -> str:
        return f"not solved: {self.why}"


@dataclass(frozen=True)
class Sampled(NotStored):
    """A tree too large to store, sampled by Monte Carlo CFR instead: never solved, an approximation with
    a statistical bound (``solution``)."""

    solution: SampledSolution

    @property
    def title(self) -> str:
        return self.solution.title

    @property
    def reason(self) -> str:
        told = f"not solved: {self.why}, so it was sampled instead of stored"
        return told if self.size is None else f"{told}; the extensive form has {', '.join(_words(self.size))}"

    def to_json(self) -> dict[str, Any]:
        report = {**self.solution.to_json(), "reason": self.reason}
        if self.size is not None:
            report["size"] = _counts(self.size)
        return report


@dataclass(frozen=True)
class Refused(NotStored):
    """A tree neither stored nor sampled, with the information sets of each player the count could take
    (complete, or as many as were found)."""

    #: The game's name.
    title: str
    infosets: dict[str, InfosetCount]

    @property
    def reason(self) -> str:
        if self.size is None:
            return super().reason
        shown = _words(self.size)
        for player, sets in self.infosets.items():
            least = "" if sets.complete else "at least "
            shown.append(f"{least}{sets.infosets:,} information sets of {player}")
        return f"not solved: {self.why}; the extensive form has {', '.join(shown)}"

    def to_json(self) -> dict[str, Any]:
        report: dict[str, Any] = {"solved": False, "reason": self.reason}
        if self.size is not None:
            infosets = {
                player: {"count": sets.infosets, "complete": sets.complete}
                for player, sets in self.infosets.items()
            }
            report["size"] = {**_counts(self.size), "infosets": infosets}
        return report


@dataclass(frozen=True)
class NoExtensiveForm:
    """The game has no extensive form gdl solves (``reason``): solve it as a game of perfect information."""

    reason: str


#: What :func:`solve_gdl2` did.
Gdl2Outcome = Solved | Sampled | Refused | NoExtensiveForm


def solve_gdl2(
    game: str | Game,
    name: str = "<string>",
    *,
    method: str = "auto",
    iterations: int | None = None,
    seconds: float = DEFAULT_SECONDS,
    memory: int | None = None,
    progress: Say | None = None,
) -> Gdl2Outcome:
    """Solve the GDL-II game ``game`` (its text, or the game loaded) of the file ``name`` through its
    extensive form (see the module docstring), within ``seconds`` of loading, counting, generating and
    solving, with ``memory`` bytes for the tree's arrays (as much again is left for the solver's; by
    default half of :func:`gdl.memory.usable_memory`). ``method`` is one of
    :data:`gdl.extensive.solving.METHODS`; a game of one player is solved exactly whatever it says.
    ``progress(text)`` says what is being done.

    Raises :class:`~gdl.errors.GdlSourceError` (starting with ``name``) for rules with errors or an
    extensive form that cannot be made, :class:`~gdl.errors.OutOfTimeError` when the time runs out while
    the game is loaded, :class:`~gdl.errors.NotTwoPlayerError` and :class:`~gdl.errors.LPError` as the
    solvers do."""
    began = time.monotonic()
    deadline = began + seconds
    say: Say = progress or (lambda text: None)
    memory = usable_memory() // 2 if memory is None else memory
    try:
        if isinstance(game, str):
            game = load_gdl2(game, name, seconds=_left(deadline))
        made = _made(game, name, method, iterations, began, deadline, memory, say)
    except NotExtensiveError as problem:
        return NoExtensiveForm(str(problem))
    if isinstance(made, Sampled | Refused):
        return made
    load_seconds = time.monotonic() - began
    return Solved(solve_stored(made, name, method, iterations, _left(deadline), say), load_seconds)


def solve_stored(
    game: ExtensiveGame | GameTree, name: str, method: str, iterations: int | None, seconds: float, say: Say
) -> ExtensiveSolution:
    """Solve an extensive form held as objects or as arrays, within ``seconds`` (at least a hundredth),
    saying how it goes."""
    iterations = iterations or DEFAULT_ITERATIONS.get(method)
    seconds = max(seconds, 0.01)
    say(f"building the sequence form of {name}")

    def step(iteration: int, exploitability: float) -> None:
        say(f"{method} iteration {iteration} of {iterations}, exploitability {exploitability:.3g}")

    if method == "lp" and len(game.players) == 2:
        say(f"solving the sequence-form LP (HiGHS, at most {seconds:.3g} s)")
    if isinstance(game, GameTree):
        return solve_tree(game, method, iterations, seconds, step)
    return solve_extensive(game, method, iterations, seconds, step)


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.0)


def _made(
    game: Game, name: str, method: str, iterations: int | None, began: float, deadline: float, memory: int,
    say: Say,
) -> ExtensiveGame | GameTree | Sampled | Refused:
    """The extensive form of a loaded game: as objects when it has at most :data:`DEFAULT_MAX_NODES`
    nodes, else as arrays; or what became of it when it was too large to store (the time counted from
    ``began``)."""
    if len(game.players) not in (1, 2):
        return named_extensive(game, name, seconds=_left(deadline))  # raises NotExtensiveError: says why
    samples = len(game.players) == 2 and method in ("auto", "mccfr")

    def not_stored(why: str, size: TreeCount | None, cause: str = SIZE, made: int = 0) -> Sampled | Refused:
        gone = NotStored(why, cause, size, made, 0.0)
        if cause == SIZE and samples:
            return _sampled(game, name, iterations, gone, began, deadline, memory, say)
        return _refused(game, gone, began, deadline, memory)

    size: TreeCount | None = None
    try:
        say(f"counting the extensive form of {name} over its states")
        size = count_tree(game, seconds=_left(deadline) / 2, memory=memory)
    except (ArraysUnsupportedError, LimitError):  # generating it says why, or finds it is too large
        pass
    needed = None if size is None else least_bytes(size, len(game.players))
    if needed is not None and needed > memory:
        why = f"its arrays would take at least {_gib(needed)}, more than the {_gib(memory)} gdl may use"
        return not_stored(why, size)
    if _left(deadline) <= 0:
        return not_stored("the time ran out before the extensive form was made", size, TIME)
    generated = [0, 0.0]
    total = f" of {size.nodes:,}" if size is not None else ""

    def made(nodes: int, seconds: float) -> None:
        generated[:] = [nodes, seconds]
        rate = nodes / max(seconds, 1e-9)
        say(f"generating the extensive form: {nodes:,}{total} nodes, {rate:,.0f} per second")

    try:
        tree = generate_tree(game, seconds=_left(deadline), memory=memory, progress=made)
    except ArraysUnsupportedError as unsupported:  # the walk over objects makes it, or says what is wrong
        try:
            return named_extensive(game, name, seconds=_left(deadline), objects=True)
        except (ExtensiveTooLargeError, OutOfTimeError) as problem:
            why = f"{str(problem).removeprefix(f'{name}: ')} (walked over State objects: {unsupported})"
            # Not sampled: sampling runs on the network the game does not have.
            return _refused(game, NotStored(why, _cause(problem), size, 0, 0.0), began, deadline, memory)
    except (GameTooLargeError, OutOfTimeError) as problem:
        nodes, seconds = int(generated[0]), generated[1]
        rate = nodes / max(seconds, 1e-9)
        why = f"{problem} ({nodes:,} nodes made in {seconds:.3g} s, {rate:,.0f} per second)"
        return not_stored(why, size, _cause(problem), made=nodes)
    return game_of_tree(tree) if tree.nodes <= DEFAULT_MAX_NODES else tree


def _sampled(
    game: Game, name: str, iterations: int | None, gone: NotStored, began: float, deadline: float,
    memory: int, say: Say,
) -> Sampled | Refused:
    """A game too large to store (``gone``), solved by sampled Monte Carlo CFR in the time left; refused
    when too little is left or the sampling fails."""
    left = _left(deadline)
    if left < MIN_SAMPLING_SECONDS:
        why = f"{gone.why}, and no time is left to sample it"
        return _refused(game, replace(gone, why=why), began, deadline, memory)
    say(f"sampling {name} by Monte Carlo CFR for {left:.3g} s (the tree is not stored)")
    try:
        solution = solve_sampled(
            game, iterations or SAMPLED_ITERATIONS, seconds=left, memory=memory, progress=say
        )
    except ArraysUnsupportedError as problem:
        why = f"{gone.why}; sampling it failed: {problem}"
        return _refused(game, replace(gone, why=why), began, deadline, memory)
    except GdlSourceError as problem:  # a sampled play met what the game's rules may not do
        why = f"{gone.why}; sampling it failed: {problem}"
        return _refused(game, replace(gone, why=why, cause=GAME), began, deadline, memory)
    return Sampled(gone.why, gone.cause, gone.size, gone.made, time.monotonic() - began, solution)


def _refused(game: Game, gone: NotStored, began: float, deadline: float, memory: int) -> Refused:
    """A game not solved (``gone``), with its size: its information sets counted too, each player's in
    half the time left."""
    infosets: dict[str, InfosetCount] = {}
    if gone.size is not None:
        for player in game.players:
            try:
                infosets[player] = count_infosets(game, player, seconds=_left(deadline) / 2, memory=memory)
            except ArraysUnsupportedError:
                continue
    return Refused(gone.why, gone.cause, gone.size, gone.made, time.monotonic() - began, game.name, infosets)


def _cause(problem: Exception) -> str:
    """What a stopped generation ran into: the time, or a limit of size."""
    return TIME if isinstance(problem, OutOfTimeError) else SIZE


def _counts(size: TreeCount) -> dict[str, Any]:
    return {
        "nodes": size.nodes, "terminals": size.terminals, "states": size.states, "saturated": size.saturated
    }


def _words(size: TreeCount) -> list[str]:
    least = "at least " if size.saturated else ""  # the counts stop at 2**62
    return [f"{least}{size.nodes:,} nodes", f"{least}{size.terminals:,} terminals", f"{size.states:,} states"]


def _gib(size: float) -> str:
    return f"{size / 2**30:,.1f} GiB"


__all__ = [
    "MIN_SAMPLING_SECONDS", "SAMPLED_ITERATIONS", "Gdl2Outcome", "NoExtensiveForm", "NotStored", "Refused",
    "Sampled", "Solved", "solve_gdl2", "solve_stored",
]
