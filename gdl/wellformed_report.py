"""The values a dynamic well-formedness analysis reports (:mod:`gdl.wellformed`): the properties and their
verdicts, counterexamples, simulation evidence and progress, and how a report reads as text or JSON."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from gdl.syntax.model import Term

#: A decided property (True or False) or an undecided one (None).
Verdict = bool | None

#: One move per role, in the order of :attr:`Game.roles`.
JointMove = tuple[Term, ...]

#: Joint moves as KIF text, one tuple per step, from the initial state.
Moves = tuple[tuple[str, ...], ...]

#: The properties in the order reports list them.
PROPERTIES = (
    "terminating",
    "playable",
    "goals_defined",
    "monotonic",
    "weakly_winnable",
    "strongly_winnable",
)

#: The policy of ``gdl check --dynamic`` unless told otherwise: the properties whose failure is an error.
#: They are what the GDL definition of a well-formed game asks; its monotonic goals are left out, since
#: most real games define goals only at the end and competitions play them, and so is strong
#: winnability, which a game of several players need not have. A failure of any other property is a
#: warning.
REQUIRED = ("terminating", "playable", "goals_defined", "weakly_winnable")


@dataclass(frozen=True, slots=True)
class Counterexample:
    """Why a property fails: the joint moves (KIF text, role order) from the initial state that show it.

    For non-termination, ``moves[cycle_start:]`` is a cycle: playing it from the state reached after
    ``moves[:cycle_start]`` returns to that same state. For a failure of winnability, no single play
    can show that no play wins, so ``moves`` leads to a terminal state with the role's best goal value.
    ``state`` holds the fluents of the state the moves lead to (for a cycle: where it starts and ends).
    """

    property: str
    message: str
    moves: tuple[tuple[str, ...], ...] = ()
    cycle_start: int | None = None
    state: tuple[str, ...] = ()

    def to_json(self, roles: Sequence[str]) -> dict[str, Any]:
        return {
            "property": self.property,
            "message": self.message,
            "moves": [dict(zip(roles, joint, strict=True)) for joint in self.moves],
            "cycle_start": self.cycle_start,
            "state": list(self.state),
        }


@dataclass(frozen=True, slots=True)
class Simulation:
    """Evidence from random playouts (no proof): how many ended in a terminal state within the limit."""

    playouts: int
    depth_limit: int
    ended: int
    longest: int

    def __str__(self) -> str:
        return (
            f"{self.ended} of {self.playouts} random playouts ended within {self.depth_limit} moves"
            f" (longest {self.longest})"
        )


@dataclass(frozen=True, slots=True)
class Progress:
    """A snapshot of a running exploration, for progress displays."""

    states: int
    frontier: int
    depth: int
    seconds: float
    max_states: int


@dataclass(frozen=True, slots=True)
class Report:
    """What the exploration found. Counts are lower bounds unless ``complete``."""

    game: str
    roles: tuple[str, ...]
    reachable_states: int
    terminal_states: int
    max_depth: int
    complete: bool
    terminating: Verdict
    playable: Verdict
    goals_defined: Verdict
    monotonic: Verdict
    weakly_winnable: Verdict
    strongly_winnable: Verdict
    counterexamples: tuple[Counterexample, ...]
    longest_play: int | None = None
    simulation: Simulation | None = None
    interrupted: bool = False
    seconds: float = 0.0
    #: GDL-II: the role of nature (``"random"``), or None.
    nature: str | None = None
    #: GDL-II: whether the game has percepts, so the players may not see the state.
    percepts: bool = False

    def verdict(self, name: str) -> Verdict:
        value: Verdict = getattr(self, name)
        return value

    def counterexample(self, name: str) -> Counterexample | None:
        return next((c for c in self.counterexamples if c.property == name), None)

    @property
    def failed(self) -> bool:
        """Whether some property is violated (a game of several roles need not be strongly winnable)."""
        return bool(self.faults())

    def faults(self) -> list[str]:
        """The properties proven false that a game should have: all but the strong winnability of a game
        of several roles (in :data:`PROPERTIES` order)."""
        return [
            name for name in PROPERTIES
            if self.verdict(name) is False and (name != "strongly_winnable" or len(self.roles) == 1)
        ]

    def violations(self, required: Sequence[str] = REQUIRED) -> list[str]:
        """The required properties proven false, each with a counterexample (in :data:`PROPERTIES` order)."""
        return [name for name in PROPERTIES if name in required and self.verdict(name) is False]

    def undecided(self, required: Sequence[str] = REQUIRED) -> list[str]:
        """The required properties not decided: the budget or an interrupt stopped the work first."""
        return [name for name in PROPERTIES if name in required and self.verdict(name) is None]

    def well_formed(self, required: Sequence[str] = REQUIRED) -> Verdict:
        """True when every required property is proven, False when one is disproven, else None."""
        if self.violations(required):
            return False
        return None if self.undecided(required) else True

    def to_json(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "game": self.game,
            "roles": list(self.roles),
            "reachable_states": self.reachable_states,
            "terminal_states": self.terminal_states,
            "max_depth": self.max_depth,
            "complete": self.complete,
        }
        result.update({name: self.verdict(name) for name in PROPERTIES})
        result["counterexamples"] = [c.to_json(self.roles) for c in self.counterexamples]
        result["longest_play"] = self.longest_play
        result["simulation"] = (
            None
            if self.simulation is None
            else {
                "playouts": self.simulation.playouts,
                "depth_limit": self.simulation.depth_limit,
                "ended": self.simulation.ended,
                "longest": self.simulation.longest,
            }
        )
        result["interrupted"] = self.interrupted
        result["seconds"] = round(self.seconds, 3)
        result["nature"] = self.nature
        result["notes"] = {name: note for name in PROPERTIES if (note := self.note(name))}
        return result

    def note(self, name: str) -> str:
        """How a GDL-II game's nature and percepts bear on a property's verdict ("" for a GDL game)."""
        notes = []
        if self.nature is not None:
            notes.append(_NATURE_NOTES[name].format(nature=self.nature))
        if self.percepts and name == "strongly_winnable":
            notes.append("as if the player saw the state, which its percepts may not show")
        return "; ".join(notes)

    def format(self) -> str:
        """A human-readable account: counts, one line per property, then the counterexamples."""
        extent = "explored all" if self.complete else "explored (budget reached)"
        if self.interrupted:
            extent = "interrupted after"
        lines = [
            f"{self.game}: {extent} {self.reachable_states} reachable states "
            f"({self.terminal_states} terminal, {_plural(self.max_depth, 'move')} deep breadth-first) "
            f"in {self.seconds:.1f} s"
        ]
        for name in PROPERTIES:
            lines.append(f"  {name.replace('_', ' '):<18} {self._explain(name)}")
        for example in self.counterexamples:
            lines.append(f"counterexample ({example.property.replace('_', ' ')}): {example.message}")
            lines.extend(_format_moves(example, self.roles))
        return "\n".join(lines)

    def _explain(self, name: str) -> str:
        note = self.note(name)
        return self._answer(name) + (f" [{note}]" if note else "")

    def _answer(self, name: str) -> str:
        value = self.verdict(name)
        if value is True:
            if name == "terminating" and self.longest_play is not None:
                return f"yes (longest play: {_plural(self.longest_play, 'move')})"
            return "yes"
        if value is False:
            return "no"
        stopped = "interrupted" if self.interrupted else "state space not fully explored"
        if name == "terminating" and self.simulation is not None:
            return f"not decided ({stopped}; {self.simulation})"
        return f"not decided ({stopped})"


#: What each verdict means for a game with nature (``{nature}``, GDL-II's ``random``).
_NATURE_NOTES = {
    "terminating": "{nature} is nature: every draw of it followed",
    "playable": "{nature} is nature: it too must always have a legal move",
    "goals_defined": "{nature} is nature: goals of the players only",
    "monotonic": "{nature} is nature: goals of the players only",
    "weakly_winnable": "{nature} is nature: some draw of it may help",
    "strongly_winnable": "{nature} is nature: against every draw of it",
}


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _format_moves(example: Counterexample, roles: Sequence[str]) -> Iterator[str]:
    if not example.moves:
        yield "    (in the initial state)"
    for number, joint in enumerate(example.moves, 1):
        if len(roles) == 1:
            shown = joint[0]
        else:
            shown = ", ".join(f"{role} {move}" for role, move in zip(roles, joint, strict=True))
        mark = "  <- cycle starts" if example.cycle_start == number - 1 else ""
        yield f"    {number}. {shown}{mark}"
    if example.cycle_start is not None:
        yield f"    (back to the state after move {example.cycle_start})"
    yield f"    state: {' '.join(example.state) or '(no fluents)'}"
