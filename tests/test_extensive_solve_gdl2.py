"""Solving a GDL-II game through its extensive form as a library function (gdl.extensive.solve_gdl2),
and the corpus runs that use it."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import NoReturn

import pytest
from support.cli import run
from support.paths import CORPUS, GAMES, shared_path

from gdl.corpus_runs import solve_game
from gdl.errors import ArraysUnsupportedError
from gdl.extensive.count import count_tree
from gdl.extensive.from_gdl import extensive_from_gdl, load_gdl2
from gdl.extensive.solve_gdl2 import (
    GAME,
    SIZE,
    TIME,
    NoExtensiveForm,
    Refused,
    Sampled,
    Solved,
    solve_gdl2,
)
from gdl.extensive.solving import solve_extensive

THREE_PLAYERS = """
(role a) (role b) (role c) (role random)
(init (s 0))
(legal a x) (legal b x) (legal c x) (legal random (r 1)) (legal random (r 2))
(<= (next (s 1)) (does random (r 1)))
(<= (next (s 2)) (does random (r 2)))
(<= terminal (true (s 1))) (<= terminal (true (s 2)))
(goal a 50) (goal b 50) (goal c 0)
"""


@pytest.mark.parametrize("name", ["kuhn", "montyhall", "dice"])
def test_a_small_gdl2_game_is_solved_to_the_value_of_its_imported_extensive_form(name: str) -> None:
    path = GAMES / f"{name}.kif"
    text = path.read_text()
    outcome = solve_gdl2(text, str(path), seconds=120)
    assert isinstance(outcome, Solved)
    # Its tree walked over State objects (not generated on the network), and solved on its own.
    walked = extensive_from_gdl(load_gdl2(text, str(path)), objects=True)
    imported = solve_extensive(walked, "auto", None, 120)
    assert outcome.solution.solved and imported.solved
    assert outcome.solution.exact == imported.exact
    assert outcome.solution.game.sizes == imported.game.sizes
    assert outcome.load_seconds >= 0


def test_kuhn_from_its_loaded_game_has_the_value_minus_one_eighteenth() -> None:
    path = GAMES / "kuhn.kif"
    said: list[str] = []
    game = load_gdl2(path.read_text(), str(path))
    outcome = solve_gdl2(game, str(path), method="lp", seconds=120, progress=said.append)
    assert isinstance(outcome, Solved)
    assert outcome.solution.exact == {"player1": Fraction(-1, 18), "player2": Fraction(1, 18)}
    assert said[0] == f"counting the extensive form of {path} over its states"
    assert any(text.startswith("solving the sequence-form LP") for text in said)


def test_a_gdl2_game_too_large_for_the_memory_is_refused_with_its_size() -> None:
    path = GAMES / "spoof.kif"
    outcome = solve_gdl2(path.read_text(), str(path), method="lp", seconds=120, memory=500_000)
    assert isinstance(outcome, Refused) and not outcome.solved
    assert outcome.size is not None and outcome.states == outcome.size.nodes == 16_381
    assert outcome.size.terminals == 10_239 and not outcome.size.saturated
    assert outcome.title == "spoof"
    # Counted within the same memory: the flipper's 364 all, the hider's 2047 only in part.
    flipper, hider = outcome.infosets["flipper"], outcome.infosets["hider"]
    assert (flipper.infosets, flipper.complete) == (364, True)
    assert not hider.complete and 0 < hider.infosets < 2047
    assert outcome.why.startswith("its arrays would take at least")
    assert "16,381 nodes" in outcome.reason and "364 information sets of flipper" in outcome.reason
    report = outcome.to_json()
    assert report["solved"] is False and report["size"]["nodes"] == 16_381
    assert report["size"]["infosets"]["flipper"] == {"count": 364, "complete": True}


def test_a_game_of_three_players_has_no_extensive_form_to_solve() -> None:
    outcome = solve_gdl2(THREE_PLAYERS, "three.kif")
    assert isinstance(outcome, NoExtensiveForm)
    assert outcome.reason.startswith("three.kif: game 'three' has 3 players (a, b, c)")


def test_a_gdl2_game_beyond_the_object_import_gets_its_size_from_a_corpus_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = shared_path(CORPUS / "games" / "transit.kif")
    text = path.read_text()
    # Far more than the 1,000,000 nodes the object-per-node import makes.
    counted = count_tree(load_gdl2(text, str(path)))
    assert counted.nodes > 10**15 and not counted.saturated
    # The LP refuses it (no sampling); 8 MB for the arrays keep the information sets' count short.
    monkeypatch.setenv("GDL_MEMORY_MB", "16")
    run = solve_game(text, str(path), "auto", 120.0, None, "lp")
    assert run.problem is None and run.game == "transit"
    refused = run.result
    assert isinstance(refused, Refused) and refused.size is not None and refused.cause == SIZE
    size = refused.size
    assert (size.nodes, size.terminals, size.states) == (counted.nodes, counted.terminals, counted.states)
    assert refused.states == counted.nodes and f"{counted.nodes:,} nodes" in refused.reason
    assert "more than the 0.0 GiB gdl may use" in refused.reason
    assert set(refused.infosets) == {"transit", "patrol"}
    assert all(sets.infosets > 0 and not sets.complete for sets in refused.infosets.values())


def test_a_two_player_tree_too_large_to_store_is_sampled_with_a_bound() -> None:
    path = GAMES / "spoof.kif"
    outcome = solve_gdl2(path.read_text(), str(path), seconds=4, memory=500_000)
    assert isinstance(outcome, Sampled) and not outcome.solved and outcome.cause == SIZE
    assert outcome.size is not None and outcome.states == 16_381
    assert outcome.solution.run.iterations > 0 and outcome.solution.run.stopped in ("memory", "time")
    assert outcome.solution.bound.to_json()["kind"] == "statistical lower bound"
    assert "sampled instead of stored" in outcome.reason and "16,381 nodes" in outcome.reason
    assert outcome.to_json()["size"]["nodes"] == 16_381 and outcome.title == "spoof"


def test_a_game_whose_tree_is_walked_over_objects_is_refused_when_the_walk_runs_out_of_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gdl.extensive.solve_gdl2 as module

    def no_network(*args: object, **kwargs: object) -> NoReturn:
        raise ArraysUnsupportedError("the game has no network")

    # As for a game without a network: neither counted nor generated, its 16 billion nodes are walked.
    monkeypatch.setattr(module, "count_tree", no_network)
    monkeypatch.setattr(module, "generate_tree", no_network)
    path = GAMES / "kriegtictactoe.kif"
    game = load_gdl2(path.read_text(), str(path))
    outcome = solve_gdl2(game, str(path), seconds=2)
    assert isinstance(outcome, Refused) and outcome.size is None and outcome.infosets == {}
    assert outcome.cause == TIME  # its size is not known
    assert outcome.why.startswith("game 'kriegtictactoe': ")
    assert outcome.why.endswith("the extensive form is not complete (walked over State objects: the game "
                                "has no network)")


#: Nature deals one of 40 cards, seen by a alone; a bets or passes, and b calls or folds. A bet called on
#: card 7 gives a both goal values: the rules break GDL on those plays alone.
BROKEN_BET = """
(role a) (role b) (role random)
(init (round 0))
(<= (legal random (deal ?c)) (true (round 0)) (card ?c)) (<= (legal random noop) (not (true (round 0))))
(<= (legal a noop) (true (round 0))) (<= (legal b noop) (not (true (round 2))))
(<= (legal a bet) (true (round 1))) (<= (legal a pass) (true (round 1)))
(<= (legal b call) (true (round 2))) (<= (legal b fold) (true (round 2))) (<= (legal a noop) (true (round 2)))
(<= (sees a (card ?c)) (does random (deal ?c)))
(<= (next (dealt ?c)) (does random (deal ?c))) (<= (next (dealt ?c)) (true (dealt ?c)))
(<= (next (round 1)) (true (round 0))) (<= (next (round 2)) (does a bet))
(<= (next (over)) (does a pass)) (<= (next (over)) (true (round 2)))
(<= (next (called)) (does b call))
(<= terminal (true (over)))
(<= (goal a 100) (true (called)) (true (dealt ?c)) (high ?c))
(<= (goal a 0) (true (called)) (true (dealt ?c)) (not (high ?c)))
(<= (goal a 100) (true (called)) (true (dealt 7)))
(<= (goal a 50) (not (true (called))))
(<= (goal b 100) (goal a 0)) (<= (goal b 0) (goal a 100)) (<= (goal b 50) (goal a 50))
(<= (high ?c) (card ?c) (card ?d) (succ 19 ?d) (less ?d ?c))
""" + " ".join(f"(card {c})" for c in range(40)) + " " + " ".join(
    f"(succ {c} {c + 1})" for c in range(39)) + " " + " ".join(
    f"(less {c} {d})" for c in range(40) for d in range(c + 1, 40))


def test_a_sampled_tree_whose_plays_break_the_rules_is_refused_for_the_game_itself() -> None:
    outcome = solve_gdl2(BROKEN_BET, "broken.kif", seconds=20, memory=2_000)
    assert isinstance(outcome, Refused) and outcome.cause == GAME and outcome.size is not None
    assert "sampling it failed" in outcome.why and "no goal value, or several" in outcome.why


def test_gdl_solve_over_many_games_tabulates_a_refused_gdl2_game_with_its_size(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GDL_MEMORY_MB", "1")  # half a megabyte for the arrays: spoof needs about 650 KB
    games = [str(GAMES / "kuhn.kif"), str(GAMES / "spoof.kif")]
    status, out, _ = run(capsys, "solve", *games, "--method", "lp", "--jobs", "1")
    assert status == 1 and "1 of 2 game(s) solved" in out
    kuhn, spoof = (next(line for line in out.splitlines() if line.startswith(game)) for game in games)
    assert kuhn.split()[1:5] == ["solved", "player1", "-1/18,", "player2"]
    assert "not solved: its arrays would take at least" in spoof and "16,381 nodes, 10,239 terminals" in spoof
    status, out, _ = run(capsys, "solve", *games, "--method", "lp", "--jobs", "1", "--json")
    reports = json.loads(out)
    assert [report["solved"] for report in reports] == [True, False]
    assert reports[1]["size"]["nodes"] == 16_381 and reports[1]["game"] == "spoof"


def test_gdl_solve_over_many_games_takes_every_extensive_format(capsys: pytest.CaptureFixture[str]) -> None:
    games = [str(GAMES / "kuhn.kif"), str(GAMES / "kuhn.efg")]
    status, out, err = run(capsys, "solve", *games, "--jobs", "1", "--json")
    assert status == 0, err
    # The .efg file names its players 1 and 2.
    assert [list(report["value"].values()) for report in json.loads(out)] == [[-1 / 18, 1 / 18]] * 2


def test_gdl_solve_over_many_games_names_a_bad_file_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.efg"
    bad.write_text('EFG 2 R "x" { "1" "2" }\nbroken')
    status, out, err = run(capsys, "solve", str(bad), str(GAMES / "kuhn.kif"), "--jobs", "1")
    assert status == 1 and "1 of 2 game(s) solved" in out
    assert f"{bad}:2:1: error: expected a node" in err and err.count(str(bad)) == 1
