"""The SWI-Prolog reference of the speed benchmarks (tests/tools/gdl_to_prolog.py) agrees with gdl's
Datalog evaluator: random walks replayed in Prolog give the same states, legal moves, terminal and goals
at every step. Skipped when ``swipl`` is not on PATH."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.corpus import SLOW_GAMES
from support.paths import unavailable

import gdl
from gdl.engines.datalog import DatalogReasoner
from gdl.syntax.model import Term

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))

from gdl_to_prolog import SWIPL_OPTIONS, atom, translate_file, walk_clauses

SWIPL = shutil.which("swipl")
#: A mark: the test needs SWI-Prolog (make test installs it; without it the test is skipped, a failure
#: under CI: see support.paths).
needs_swipl = pytest.mark.usefixtures("swipl")


@pytest.fixture
def swipl() -> str:
    if SWIPL is None:
        unavailable("swipl (SWI-Prolog, the Debian package swi-prolog-nox) is not on PATH")
    return SWIPL

#: The seven benchmark games of ``gdl bench``, and games using or, not, distinct, recursion and deep terms.
GAMES = (
    "tictactoe", "connectfour", "breakthrough", "nim1", "hanoi", "buttons", "blocker",
    "ggpbase_test_case_5a", "ggpbase_test_distinct_beginning_rule", "coins", "blocks", "eightpuzzle",
    "fire_sheep",
)

#: One step of a walk: the state, each role's legal moves, terminal, each role's goals, as KIF text.
Step = tuple[list[str], list[list[str]], bool, list[list[str]]]


def gdl_walk(path: Path, seed: int, max_steps: int) -> tuple[list[Step], list[list[Term]]]:
    """A random walk with the Datalog evaluator: every step's answers and the joint moves made."""
    game = gdl.load(path, engine="datalog")
    reasoner = game.reasoner
    assert isinstance(reasoner, DatalogReasoner)
    roles = range(len(game.roles))
    rng = random.Random(seed)
    state = reasoner.initial()
    steps: list[Step] = []
    moves: list[list[Term]] = []
    while True:
        legal = [reasoner.legal(state, r) for r in roles]
        terminal = reasoner.terminal(state)
        steps.append((
            sorted(map(str, reasoner.fluents(state))),
            [sorted(map(str, moves)) for moves in legal],
            terminal,
            [sorted(map(str, reasoner.goals(state, r))) for r in roles],
        ))
        if terminal or not all(legal) or len(moves) == max_steps:
            return steps, moves
        joint = [rng.choice(choices) for choices in legal]
        moves.append(joint)
        state = reasoner.next(state, joint)


def prolog_walk(path: Path, moves: list[list[Term]], folder: Path, tabled: bool) -> list[Step]:
    """The same walk replayed by the Prolog translation (``swipl -O GAME.pl trace``)."""
    program = folder / f"{path.stem}.pl"
    program.write_text(translate_file(path, tabled=tabled) + walk_clauses(moves))
    assert SWIPL is not None
    command = [SWIPL, *SWIPL_OPTIONS, str(program), "trace"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    steps: list[Step] = []
    for line in done.stdout.splitlines():
        tag, *items = line.split("\t")
        if tag == "state":
            steps.append((sorted(items), [], False, []))
        elif tag == "legal":
            steps[-1][1].append(sorted(items[1:]))
        elif tag == "terminal":
            steps[-1] = (*steps[-1][:2], items == ["true"], steps[-1][3])
        else:
            steps[-1][3].append(sorted(items[1:]))
    return steps


def assert_walks_agree(
    path: Path, folder: Path, seeds: tuple[int, ...] = (1, 2), tabled: bool = False, max_steps: int = 80
) -> None:
    """Random walks agree step by step, Prolog against the Datalog evaluator."""
    for seed in seeds:
        ours, moves = gdl_walk(path, seed, max_steps)
        theirs = prolog_walk(path, moves, folder, tabled)
        assert len(theirs) == len(moves) + 1  # every step was traced, none dropped
        for i, (step, their_step) in enumerate(zip(ours, theirs, strict=True)):
            assert step == their_step, f"{path.stem} seed {seed} step {i}"


@needs_swipl
@pytest.mark.parametrize("name", GAMES)
def test_prolog_walks_agree_with_datalog(corpus: Path, name: str, tmp_path: Path) -> None:
    assert_walks_agree(corpus / "games" / f"{name}.kif", tmp_path)


#: Games SLD resolution cannot run untabled (left or mutual recursion: it loops; queens08lg: too slow),
#: and recursive games whose tables depend on the state (hanoi's tower) or not (nim1's smaller).
TABLED = ("ggpbase_test_case_5c", "ggpbase_test_case_5d", "queens08lg", "nim1", "hanoi")


@needs_swipl
@pytest.mark.parametrize("name", TABLED)
def test_tabled_walks_agree_with_datalog(corpus: Path, name: str, tmp_path: Path) -> None:
    assert_walks_agree(corpus / "games" / f"{name}.kif", tmp_path, tabled=True)


#: Names that Prolog reads otherwise unless quoted or bracketed: operators (``table``, ``is``, ``-``),
#: numbers (``01`` and ``1`` are different GDL constants), punctuation, quotes, backslashes, non-ASCII.
ODD_NAMES = """
(role robot) (role it's)
(init (at 1))
(thing table) (thing is) (thing mod) (thing dynamic) (thing :-) (thing \\+) (thing a\\b) (thing ü)
(thing -) (thing 01) (thing 1) (thing []) (thing |) (thing ,) (thing (, table -)) (thing (- 1 01))
(<= (legal ?r (take ?x)) (role ?r) (thing ?x) (not (true (taken ?x))) (distinct ?x -) (distinct 01 ?x)
    (distinct table ?x) (distinct dynamic ?x) (distinct ?x is))
(<= (next (taken ?x)) (does ?r (take ?x)))
(<= (next (taken ?x)) (true (taken ?x)))
(<= (next (at ?y)) (true (at ?x)) (succ ?x ?y))
(succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(<= terminal (true (at 5)))
(<= (goal ?r 100) (role ?r) (true (taken :-)))
(<= (goal ?r 0) (role ?r) (not (true (taken :-))))
"""


@needs_swipl
@pytest.mark.slow
@pytest.mark.parametrize("path", SLOW_GAMES)  # every corpus game but GDL-II ones and sudoku
def test_every_corpus_game_agrees_tabled(path: Path, tmp_path: Path) -> None:
    """Tabled, the translation runs every corpus game that is not GDL-II (untabled, 9 of them loop or take
    minutes: the ggpbase_test_case_5c to 5e, alexchess, linesofaction, queens08lg, reversi, shogi_ctk)."""
    assert_walks_agree(path, tmp_path, seeds=(1,), tabled=True, max_steps=20)


@needs_swipl
def test_names_prolog_reads_otherwise_keep_their_meaning(tmp_path: Path) -> None:
    path = tmp_path / "odd_names.kif"
    path.write_text(ODD_NAMES, encoding="utf-8")
    assert_walks_agree(path, tmp_path, seeds=(1, 2, 3, 4))


def test_names_prolog_must_quote_are_quoted() -> None:
    assert atom("cell") == "cell"
    assert atom("1") == "'1'"  # numbers stay GDL constants: '01' and '1' differ
    assert atom("Cell") == "'Cell'"
    assert atom("it's") == "'it\\'s'"
    assert atom("a\\b") == "'a\\\\b'"
