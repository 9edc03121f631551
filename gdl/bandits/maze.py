"""Maze files of the bandit-ambush game (see :mod:`gdl.bandits.game`).

A maze file holds, each on its own line: the number of rows M, the number of columns N, M rows of N
symbols, the number of bandits k and the probability p that an attack succeeds. The symbols: ``S`` the
start, ``D`` the destination, ``#`` an obstacle, ``-`` an empty square, ``G`` gold, ``E`` a dangerous
place. Blank lines are skipped; spaces around a line are ignored.

>>> maze = read_maze("3\\n4\\n####\\n#SED\\n####\\n1\\n0.5\\n")
>>> maze.start, maze.destination, maze.dangerous, maze.success
((1, 1), (1, 3), ((1, 2),), Fraction(1, 2))
>>> read_maze("3\\n4\\n####\\n#SEX\\n####\\n1\\n0.5\\n", "m.txt")
Traceback (most recent call last):
...
gdl.errors.MazeError: m.txt:4:4: error: unknown symbol 'X' (the symbols are S D # - G E)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from gdl.errors import MazeError

#: A square as (row, column), both from 0, the top-left square of the file being (0, 0).
Square = tuple[int, int]

START, DESTINATION, OBSTACLE, EMPTY, GOLD, DANGER = "S", "D", "#", "-", "G", "E"
SYMBOLS = (START, DESTINATION, OBSTACLE, EMPTY, GOLD, DANGER)
#: The agent's moves in the order the game lists them: up, down, left, right.
DIRECTIONS: tuple[tuple[str, Square], ...] = (
    ("up", (-1, 0)), ("down", (1, 0)), ("left", (0, -1)), ("right", (0, 1))
)
#: How p may be written, and in how many characters at most.
PROBABILITY = re.compile(r"[+-]?(\d+/\d+|\d+(\.\d*)?|\.\d+)")
MAX_NUMBER = 40
#: Mazes larger than this are refused as they are read (their games would be far too large anyway).
MAX_SQUARES = 10_000


@dataclass(frozen=True)
class Maze:
    """A checked maze: its rows of symbols, the number of bandits and the attacks' success probability."""

    rows: tuple[str, ...]
    bandits: int
    success: Fraction

    def __post_init__(self) -> None:
        # Validated by read_maze for files; here for mazes built in code.
        if not self.rows or len({len(row) for row in self.rows}) != 1:
            raise ValueError(f"a maze needs rows of one length, not {self.rows!r}")
        symbols = "".join(self.rows)
        if any(symbol not in SYMBOLS for symbol in symbols):
            raise ValueError(f"unknown symbol in {self.rows!r}")
        if symbols.count(START) != 1 or symbols.count(DESTINATION) != 1:
            raise ValueError(f"a maze needs one S and one D: {self.rows!r}")
        if not 1 <= self.bandits <= symbols.count(DANGER):
            raise ValueError(f"{self.bandits} bandits for {symbols.count(DANGER)} dangerous places")
        if not 0 <= self.success <= 1:
            raise ValueError(f"the success probability {self.success} is not in [0, 1]")

    def __repr__(self) -> str:
        return f"Maze({self.rows!r}, bandits={self.bandits}, success={str(self.success)!r})"

    def symbol(self, square: Square) -> str:
        """The symbol at ``square``; outside the maze is an obstacle."""
        row, column = square
        if 0 <= row < len(self.rows) and 0 <= column < len(self.rows[0]):
            return self.rows[row][column]
        return OBSTACLE

    def squares(self, symbol: str) -> tuple[Square, ...]:
        """The squares holding ``symbol``, in reading order."""
        return tuple(
            (r, c) for r, row in enumerate(self.rows) for c, found in enumerate(row) if found == symbol
        )

    # Cached: the game's rules ask these at every node of its tree.
    @cached_property
    def start(self) -> Square:
        return self.squares(START)[0]

    @cached_property
    def destination(self) -> Square:
        return self.squares(DESTINATION)[0]

    @cached_property
    def dangerous(self) -> tuple[Square, ...]:
        """The dangerous places (``E``), in reading order."""
        return self.squares(DANGER)

    @cached_property
    def _adjacency(self) -> dict[Square, tuple[Square, ...]]:
        return {
            (r, c): tuple(
                near
                for _, (dr, dc) in DIRECTIONS
                if self.symbol(near := (r + dr, c + dc)) != OBSTACLE
            )
            for r, c in self.squares_all()
        }

    def squares_all(self) -> tuple[Square, ...]:
        """Every square of the maze, obstacles included, in reading order."""
        return tuple((r, c) for r in range(len(self.rows)) for c in range(len(self.rows[0])))

    def neighbours(self, square: Square) -> tuple[Square, ...]:
        """The squares next to ``square`` that are not obstacles: up, down, left, right."""
        return self._adjacency.get(square, ())

    def text(self) -> str:
        """The maze as a file."""
        success = str(self.success) if self.success.denominator == 1 else str(float(self.success))
        if Fraction(success) != self.success:
            success = str(self.success)
        lines = [str(len(self.rows)), str(len(self.rows[0])), *self.rows, str(self.bandits), success]
        return "\n".join(lines) + "\n"


def square_label(square: Square) -> str:
    """A square as the game prints it: ``(row,column)``."""
    return f"({square[0]},{square[1]})"


class _Lines:
    """The non-blank lines of a file with their line numbers, read one at a time."""

    def __init__(self, text: str, file: str) -> None:
        self.file = file
        self.lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        self.end = len(text.splitlines()) + 1
        self.next = 0
        self.last = 0  # the line number of the line taken last

    def take(self, what: str) -> tuple[int, str]:
        if self.next == len(self.lines):
            raise MazeError(self.file, self.end, f"missing {what} (the file ends here)")
        self.next += 1
        self.last = self.lines[self.next - 1][0]
        return self.lines[self.next - 1]

    def whole(self, what: str, least: int, most: int) -> int:
        number, text = self.take(what)
        try:
            value = int(text)
        except ValueError:
            raise MazeError(self.file, number, f"expected {what}, a whole number, got {text!r}") from None
        if not least <= value <= most:
            raise MazeError(self.file, number, f"{what} must be from {least} to {most}, got {value}")
        return value


def read_maze(text: str, file: str = "<string>") -> Maze:
    """The maze in ``text`` (the contents of a maze file); :class:`MazeError` names the first problem."""
    lines = _Lines(text, file)
    height = lines.whole("the number of rows M", 1, MAX_SQUARES)
    width = lines.whole("the number of columns N", 1, MAX_SQUARES // height)
    rows: list[str] = []
    first_row = 0
    found: dict[str, tuple[int, int]] = {}  # S and D: where first seen (line, column)
    for index in range(height):
        number, row = lines.take(f"row {index + 1} of {height} of the maze")
        first_row = first_row or number
        if len(row) != width:
            raise MazeError(
                file, number, f"row {index + 1} of the maze has {len(row)} symbols, expected N = {width}: "
                f"{row!r}"
            )
        for column, symbol in enumerate(row, 1):
            if symbol not in SYMBOLS:
                raise MazeError(
                    file, number, f"unknown symbol {symbol!r} (the symbols are {' '.join(SYMBOLS)})", column
                )
            if symbol in (START, DESTINATION):
                if symbol in found:
                    line, at = found[symbol]
                    raise MazeError(
                        file, number, f"a second {symbol} (the first is on line {line}, column {at})", column
                    )
                found[symbol] = (number, column)
        rows.append(row)
    for symbol, name in ((START, "start"), (DESTINATION, "destination")):
        if symbol not in found:
            raise MazeError(file, first_row, f"the maze has no {name} {symbol}")
    dangerous = sum(row.count(DANGER) for row in rows)
    if dangerous == 0:
        raise MazeError(file, first_row, "the maze has no dangerous place E for the bandits to wait at")
    bandits = lines.whole("the number of bandits k", 1, 1 << 30)
    if bandits > dangerous:
        raise MazeError(file, lines.last, f"{bandits} bandits but only {dangerous} dangerous places E")
    number, probability = lines.take("the probability p of a successful attack")
    # Only plain decimals and fractions, and short: an exponent such as 1e-999999999 would make
    # Fraction build a number of a billion digits.
    if len(probability) > MAX_NUMBER or not PROBABILITY.fullmatch(probability):
        raise MazeError(
            file,
            number,
            f"expected the probability p as a decimal or a fraction (0.7, 7/10) of at most {MAX_NUMBER} "
            f"characters, got {probability[:MAX_NUMBER + 1]!r}",
        )
    try:
        success = Fraction(probability)
    except ZeroDivisionError:
        raise MazeError(file, number, f"the probability p divides by zero: {probability!r}") from None
    if not 0 <= success <= 1:
        raise MazeError(file, number, f"the probability p must be from 0 to 1, got {probability}")
    if lines.next < len(lines.lines):
        extra, rest = lines.lines[lines.next]
        raise MazeError(file, extra, f"unexpected text after the probability p: {rest!r}")
    return Maze(tuple(rows), bandits, success)
