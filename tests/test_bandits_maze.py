"""The maze reader of the bandit-ambush game: good files read, bad ones named by line (and column)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gdl.bandits.maze import Maze, read_maze
from gdl.errors import MazeError

EXAMPLE = "5\n7\n#######\n#E---E#\n#S#-#D#\n#E--EG#\n#######\n1\n0.7\n"


def test_the_example_reads() -> None:
    maze = read_maze(EXAMPLE)
    assert maze.rows[2] == "#S#-#D#"
    assert (maze.start, maze.destination) == ((2, 1), (2, 5))
    assert maze.dangerous == ((1, 1), (1, 5), (3, 1), (3, 4))
    assert maze.bandits == 1
    assert maze.success == Fraction(7, 10)
    assert list(maze.neighbours((2, 1))) == [(1, 1), (3, 1)]


def test_blank_lines_spaces_and_fractions_are_accepted() -> None:
    maze = read_maze("\n 3 \n3\n###\n#SD\n#E#\n\n1\n 7/10 \n\n")
    assert maze.success == Fraction(7, 10)
    assert read_maze(maze.text()) == maze


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("", "m.txt:1:", "missing the number of rows M"),
        ("x\n", "m.txt:1:", "expected the number of rows M, a whole number, got 'x'"),
        ("0\n3\n", "m.txt:1:", "must be from 1"),
        ("3\n", "m.txt:2:", "missing the number of columns N"),
        ("3\n3\n###\n#SD\n", "m.txt:5:", "missing row 3 of 3 of the maze"),
        ("3\n3\n###\n#SD#\n#E#\n1\n0.5\n", "m.txt:4:", "row 2 of the maze has 4 symbols, expected N = 3"),
        ("3\n3\n###\n#SX\n#E#\n1\n0.5\n", "m.txt:4:3:", "unknown symbol 'X'"),
        ("3\n3\n###\n#-D\n#E#\n1\n0.5\n", "m.txt:3:", "no start S"),
        ("3\n3\n###\n#S-\n#E#\n1\n0.5\n", "m.txt:3:", "no destination D"),
        ("3\n3\n#S#\n#SD\n#E#\n1\n0.5\n", "m.txt:4:2:", "a second S (the first is on line 3, column 2)"),
        ("3\n3\n###\n#SD\n#-#\n1\n0.5\n", "m.txt:3:", "no dangerous place E"),
        ("3\n3\n###\n#SD\n#E#\n2\n0.5\n", "m.txt:6:", "2 bandits but only 1 dangerous places"),
        ("3\n3\n###\n#SD\n#E#\n0\n0.5\n", "m.txt:6:", "the number of bandits k must be from 1"),
        ("3\n3\n###\n#SD\n#E#\n1\n", "m.txt:7:", "missing the probability p"),
        ("3\n3\n###\n#SD\n#E#\n1\n1.5\n", "m.txt:7:", "must be from 0 to 1, got 1.5"),
        ("3\n3\n###\n#SD\n#E#\n1\n-0.1\n", "m.txt:7:", "must be from 0 to 1"),
        ("3\n3\n###\n#SD\n#E#\n1\nnan\n", "m.txt:7:", "as a decimal or a fraction"),
        ("3\n3\n###\n#SD\n#E#\n1\n1e-999999999\n", "m.txt:7:", "got '1e-999999999'"),
        ("3\n3\n###\n#SD\n#E#\n1\n0." + "1" * 50 + "\n", "m.txt:7:", "of at most 40 characters"),
        ("3\n3\n###\n#SD\n#E#\n1\n1/0\n", "m.txt:7:", "divides by zero"),
        ("3\n3\n###\n#SD\n#E#\n1\n0.5\n4\n", "m.txt:8:", "unexpected text after the probability p: '4'"),
        ("200\n200\n", "m.txt:2:", "the number of columns N must be from 1 to 50"),
    ],
)
def test_bad_files_name_the_line(text: str, where: str, words: str) -> None:
    with pytest.raises(MazeError) as raised:
        read_maze(text, "m.txt")
    message = str(raised.value)
    assert message.startswith(where), message
    assert words in message, message
    assert "\n" not in message


@given(st.text(alphabet="0123456789\n#-SDGE. /x", max_size=80))
def test_any_text_reads_or_fails_with_a_maze_error(text: str) -> None:
    try:
        maze = read_maze(text)
    except MazeError as problem:
        assert str(problem).startswith("<string>:")
    else:
        assert isinstance(maze, Maze)
        assert read_maze(maze.text()) == maze


def test_the_bundled_mazes_read() -> None:
    folder = Path(__file__).resolve().parent.parent / "games" / "bandits"
    mazes = {path.name: read_maze(path.read_text(), str(path)) for path in sorted(folder.glob("*.txt"))}
    assert mazes["example.txt"] == read_maze(EXAMPLE)
    assert len(mazes) >= 4 and all(maze.bandits >= 1 for maze in mazes.values())
