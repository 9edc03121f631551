"""The domain exceptions of gdl. Each is a ValueError: the input given was wrong, not the program."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gdl.diagnostics import Diagnostic


class InvalidGameError(ValueError):
    """A game description has syntax or static errors."""

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        self.diagnostics = diagnostics
        errors = [d for d in diagnostics if d.level.value == "error"]
        shown = "\n".join(d.format() for d in errors[:5])
        more = f"\n... and {len(errors) - 5} more errors" if len(errors) > 5 else ""
        super().__init__(f"invalid game: {len(errors)} error(s)\n{shown}{more}")


class KifSyntaxError(ValueError):
    """A text is not well-formed KIF (e.g. a move or term given as text)."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = ()) -> None:
        self.diagnostics = diagnostics
        super().__init__(message)


class UnknownRoleError(ValueError):
    """A role name that the game does not declare."""


class IllegalMoveError(ValueError):
    """A move that is not legal for its role in the given state."""


class GameDefinitionError(ValueError):
    """The rules break a run-time promise of GDL (no legal move, no single goal value, ...)."""


class InconsistentViewError(ValueError):
    """A player's view (moves, percepts, legal moves) that no play of the game can produce."""


class BeliefDepletedError(InconsistentViewError):
    """A sampled belief kept no state that fits the view, though the full belief may have one."""


class InvalidStateError(ValueError):
    """Fluents that cannot make a state of the game: not ground, or never true in any of its states."""


class ProtocolError(ValueError):
    """A network message or reply that does not follow the GGP protocol."""


class PlayerTimeoutError(ProtocolError):
    """A player's reply did not come within its clock (ggp-base records ``TO``)."""


class PlayerConnectionError(ProtocolError):
    """A player could not be reached, hung up or answered with an HTTP error (ggp-base records ``CE``)."""


class GameTooLargeError(ValueError):
    """A game too large to instantiate within the budgets of atoms and time."""


class PlayerSpecError(ValueError):
    """A player description (``KIND[:option=value,...]``) with an unknown kind or option or a bad value."""


class HintsError(ValueError):
    """A game's drawing hints file (``GAME.view.json``) that is not JSON or breaks its schema."""


class RecordError(ValueError):
    """A match record (gdl's or ggp-base's JSON) that cannot be read; the message gives the JSON path."""


class ViewerError(ValueError):
    """The viewer's page cannot be served: its port is taken or not ours to use."""


class WorkerStartError(ValueError):
    """Worker processes that cannot start (e.g. a script without an ``if __name__ == "__main__":`` guard)."""


class UnreadableFileError(OSError, ValueError):
    """A file that cannot be read as a game: missing, not a regular file, too large or not UTF-8."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        #: Why, without the path: ``not a regular file (a FIFO)``.
        self.reason = reason
