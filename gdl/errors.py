"""The public exceptions of gdl, all in this module and all under :class:`GdlError`.

Each also subclasses the builtin that fits: :class:`ValueError` when the input given was wrong, and
:class:`RuntimeError` (through :class:`LimitError`) when a budget of time, memory or size ran out. The
limits that were ValueErrors before stay ValueErrors too, so that ``except ValueError`` keeps working.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gdl.diagnostics import Diagnostic


class GdlError(Exception):
    """The root of gdl's own exceptions: catching it catches every one of them."""


class LimitError(GdlError, RuntimeError):
    """A budget of time, memory or size ran out: the work was too large for it, not wrong."""


class DeadlinePassedError(LimitError):
    """A search was stopped at the deadline it was given (it can be taken up again)."""


class InvalidGameError(GdlError, ValueError):
    """A game description has syntax or static errors."""

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        self.diagnostics = diagnostics
        errors = [d for d in diagnostics if d.level.value == "error"]
        shown = "\n".join(d.format() for d in errors[:5])
        more = f"\n... and {len(errors) - 5} more errors" if len(errors) > 5 else ""
        super().__init__(f"invalid game: {len(errors)} error(s)\n{shown}{more}")


class KifSyntaxError(GdlError, ValueError):
    """A text is not well-formed KIF (e.g. a move or term given as text)."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = ()) -> None:
        self.diagnostics = diagnostics
        super().__init__(message)


class UnknownRoleError(GdlError, ValueError):
    """A role name that the game does not declare."""


class IllegalMoveError(GdlError, ValueError):
    """A move that is not legal for its role in the given state."""


class GameDefinitionError(GdlError, ValueError):
    """The rules break a run-time promise of GDL (no legal move, no single goal value, ...)."""


class InconsistentViewError(GdlError, ValueError):
    """A player's view (moves, percepts, legal moves) that no play of the game can produce."""


class BeliefDepletedError(InconsistentViewError):
    """A sampled belief kept no state that fits the view, though the full belief may have one."""


class InvalidStateError(GdlError, ValueError):
    """Fluents that cannot make a state of the game: not ground, or never true in any of its states."""


class ProtocolError(GdlError, ValueError):
    """A network message or reply that does not follow the GGP protocol."""


class PlayerTimeoutError(ProtocolError):
    """A player's reply did not come within its clock (ggp-base records ``TO``)."""


class PlayerConnectionError(ProtocolError):
    """A player could not be reached, hung up or answered with an HTTP error (ggp-base records ``CE``)."""


class GameTooLargeError(LimitError, ValueError):
    """A game too large to instantiate within the budgets of atoms and time."""


class PlayerSpecError(GdlError, ValueError):
    """A player description (``KIND[:option=value,...]``) with an unknown kind or option or a bad value."""


class BudgetExceededError(GameTooLargeError):
    """Loading a game took more than a budget of CPU time."""

    def __init__(self, message: str, total: bool) -> None:
        super().__init__(message)
        #: Whether the total budget was spent (no other engine should then be tried).
        self.total = total


class LimitExceeded(ProtocolError, LimitError):
    """Work on a game broke its CPU-time or memory limit; the worker was ended."""


class PlayerLeft(GdlError):
    """A player leaves the match (a person ended their input with Ctrl-D): the match is aborted."""


class ClusterError(GdlError, ValueError):
    """A cluster that cannot be used: an unknown ``--cluster`` value, Ray missing or unreachable."""


class UngroundableGameError(GdlError, ValueError):
    """A game whose moves and base propositions cannot be listed: it neither instantiates within the
    budgets nor has relaxed domains within their bounds."""


class NotResetError(GdlError, RuntimeError):
    """An environment asked to step or observe before its first ``reset()``."""


# -- extensive-form games -------------------------------------------------------------------------------


class ExtensiveGameError(GdlError, ValueError):
    """An extensive-form game that breaks a rule of the model."""


class InformationSetError(ExtensiveGameError):
    """One information set used by two players or with two different action lists."""


class ImperfectRecallError(ExtensiveGameError):
    """Two histories in one information set differ in its player's own past."""

    def __init__(self, infoset: str, player: str, first: tuple[str, ...], second: tuple[str, ...]) -> None:
        self.infoset = infoset
        self.player = player
        self.histories = (first, second)
        super().__init__(
            f"imperfect recall: information set {infoset!r} of player {player!r} holds histories "
            f"({', '.join(first)}) and ({', '.join(second)}), along which the player's own past differs"
        )


class LPError(ExtensiveGameError):
    """The linear program could not be solved (numerical trouble in HiGHS)."""


class LPTimeoutError(LPError, LimitError):
    """The linear program was not solved within its time budget."""


@dataclass(frozen=True)
class JsonProblem:
    """One problem of a JSON game: where it is (``states[3].actions[1]``) and what is wrong."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: error: {self.message}"


#: The problems a :class:`JsonGameError` shows (it counts the rest).
MAX_PROBLEMS = 100


class JsonGameError(ExtensiveGameError):
    """A JSON game that cannot be read; carries every problem found, each with its JSON path."""

    def __init__(self, problems: Sequence[JsonProblem], source: str = "<json>") -> None:
        self.problems = tuple(problems)
        self.source = source
        shown = [f"{source}: {problem}" for problem in self.problems[:MAX_PROBLEMS]]
        if len(self.problems) > MAX_PROBLEMS:
            shown.append(f"{source}: note: and {len(self.problems) - MAX_PROBLEMS} more problems")
        super().__init__("\n".join(shown))


class JsonWriteError(ExtensiveGameError):
    """A game the JSON format cannot hold (not two players, not zero-sum, chance not uniform...)."""


class UnknownFormatError(ExtensiveGameError):
    """A file whose suffix names no extensive-form format gdl reads or writes."""


class NotTwoPlayerError(ExtensiveGameError):
    """A game that the sequence-form solvers cannot solve (not two players, or not constant-sum)."""


class GdlSourceError(ExtensiveGameError):
    """A GDL game that gives no extensive-form game: errors in its rules, too large, ..."""


class NotExtensiveError(GdlSourceError):
    """A GDL game that is not a game of one player or a two-player constant-sum game (besides nature)."""


class OutOfTimeError(GdlSourceError, LimitError):
    """The time given ran out before the extensive form of a GDL game was complete."""


class ExtensiveTooLargeError(GdlSourceError, LimitError):
    """The extensive form of a GDL game has more nodes (or longer plays) than the import makes."""


class ArraysUnsupportedError(GdlError):
    """A GDL game whose extensive form cannot be generated into arrays (walking State objects makes it)."""


class EfgError(ExtensiveGameError):
    """A ``.efg`` text that is not a well-formed Gambit extensive game (with its line and column)."""

    def __init__(self, message: str, line: int, column: int, file: str = "<string>") -> None:
        self.message, self.line, self.column, self.file = message, line, column, file
        super().__init__(f"{file}:{line}:{column}: error: {message}")


# -- the bandit maze (gdl.bandits) ----------------------------------------------------------------------


class MazeError(GdlError, ValueError):
    """A maze file that cannot be read: the message names the file, line and (for a symbol) column."""

    def __init__(self, file: str, line: int, message: str, column: int = 0) -> None:
        self.file, self.line, self.column, self.message = file, line, column, message
        where = f"{file}:{line}:{column}" if column else f"{file}:{line}"
        super().__init__(f"{where}: error: {message}")


class BanditsExportError(GdlError, ValueError):
    """A maze whose game cannot be written as GDL-II (a payoff above 100, a die too large)."""


class HintsError(GdlError, ValueError):
    """A game's drawing hints file (``GAME.view.json``) that is not JSON or breaks its schema."""


class RecordError(GdlError, ValueError):
    """A match record (gdl's or ggp-base's JSON) that cannot be read; the message gives the JSON path."""


class ViewerError(GdlError, ValueError):
    """The viewer's page cannot be served: its port is taken or not ours to use."""


class WorkerStartError(GdlError, ValueError):
    """Worker processes that cannot start (e.g. a script without an ``if __name__ == "__main__":`` guard)."""


class UnreadableFileError(GdlError, OSError, ValueError):
    """A file that cannot be read as a game: missing, not a regular file, too large or not UTF-8."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        #: Why, without the path: ``not a regular file (a FIFO)``.
        self.reason = reason


class MissingFileError(UnreadableFileError, FileNotFoundError):
    """A game file that is not there (a :class:`FileNotFoundError` too, as opening it would raise)."""


class DomainTooLargeError(GameTooLargeError):
    """An argument position of a game ranges over more terms than the analysis of its domains keeps."""


class NoNetworkError(GdlError):
    """A game without a propositional network, which the native solver needs (the search solves it)."""


class RoundingBoundError(GdlError, ValueError):
    """A best response the rounding-error analysis cannot bound (a probability that would underflow)."""
