"""The human player: a person chooses moves at a terminal prompt."""

from __future__ import annotations

import re
import sys
from typing import TextIO

from gdl.errors import KifSyntaxError, PlayerLeft
from gdl.game import State
from gdl.players.base import Player
from gdl.syntax.model import Term
from gdl.syntax.reader import parse_term
from gdl.views import View


class HumanPlayer(Player):
    """Lists the legal moves, numbered, and reads a number or a move's KIF text until one is legal.

    In a GDL-II game the person sees only the player's own view: its moves so far and what it saw after
    each, then its legal moves (the match's display, e.g. ``gdl play``, must not show more either). When
    several people share one terminal (``hand_over``), each turn begins with a prompt to hand the
    terminal over, waits for Enter before the view is shown, and ends by clearing the screen.
    Invalid input is explained and asked again. The streams default to standard input and output;
    tests pass scripted ones. The moves are listed in natural order (``2`` before ``10``), and a legal
    move typed as such wins over a number in the list. End of input (Ctrl-D) raises
    :class:`PlayerLeft`: the match runner aborts the match.
    """

    name = "human"
    is_human = True
    thinks = False  # the person does, not a CPU

    #: Whether people take turns at this terminal (hot seat): hand over before a view is shown.
    hand_over = False

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self.input = input
        self.output = output

    def play(self, state: State, deadline: float) -> Term:
        return self._choose_from(state.legal_moves(self.role))

    def play_view(self, view: View, deadline: float) -> Term:
        out = self.output or sys.stdout
        spell = self.game.spell
        if self.hand_over:
            role = spell(self.role)
            print(f"\n=== hand the terminal to {role}; {role}, press Enter when no one else can see the "
                  "screen ===", file=out, flush=True)
            self._line()
        print(f"What {spell(self.role)} knows:", file=out)
        if not view.moves:
            print("  (nothing yet: the match has just begun)", file=out)
        for step, (move, seen) in enumerate(zip(view.moves, view.percepts, strict=True), 1):
            shown = " ".join(sorted(map(spell, seen))) or "nothing"
            print(f"  step {step}: played {spell(move)}, saw {shown}", file=out)
        move = self._choose_from(list(view.legal))
        if self.hand_over:
            clear = "\033[2J\033[H" if out.isatty() else ""
            print(f"{clear}({spell(self.role)} has moved)", file=out, flush=True)
        return move

    def _line(self) -> str:
        """A line of input; end of input (Ctrl-D) raises :class:`PlayerLeft`."""
        line = (self.input or sys.stdin).readline()
        if not line:
            print(file=self.output or sys.stdout)
            raise PlayerLeft(f"{self.game.spell(self.role)} left the match (end of input)")
        return line

    def _choose_from(self, moves: list[Term]) -> Term:
        moves = natural_order(moves)
        out = self.output or sys.stdout
        spell = self.game.spell
        print(f"Legal moves for {spell(self.role)}:", file=out)
        for number, move in enumerate(moves, 1):
            print(f"  {number:>3}. {spell(move)}", file=out)
        while True:
            print(f"{spell(self.role)}> ", end="", file=out, flush=True)
            line = self._line()
            choice = _choose(line.strip(), moves)
            if choice is not None:
                return choice
            print(
                f"not a legal move: {line.strip()!r}; type a number from 1 to {len(moves)} or a move",
                file=out,
            )


def _choose(text: str, moves: list[Term]) -> Term | None:
    """The move meant by ``text``: a legal move written so (in any case) first, so that in a game whose
    moves are numbers ``2`` is the move 2; else the move at that number in the list; else None."""
    if not text:
        return None
    try:
        move = parse_term(text)
    except KifSyntaxError:
        return None
    if move in moves:
        return move
    if text.isascii() and text.isdigit():
        number = int(text) if len(text) < 10 else 0
        return moves[number - 1] if 1 <= number <= len(moves) else None
    return None


def natural_order(moves: list[Term]) -> list[Term]:
    """Moves in the order a person expects: numbers inside them by value (``2`` before ``10``)."""
    return sorted(moves, key=lambda move: [_part_order(part) for part in re.split(r"([0-9]+)", str(move))])


def _part_order(part: str) -> tuple[int, int, str]:
    """Digits by value (compared as text of equal length: no ``int``, which refuses huge numbers)."""
    if part.isdigit():
        digits = part.lstrip("0")
        return 0, len(digits), digits
    return 1, 0, part
