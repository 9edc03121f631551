"""``gdl solve`` gives one answer however it is called, solves one-player games with nature exactly,
calls a game solved only with an exact value proven by exact best responses, and refuses options that
do not apply to the game."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from support.paths import GAMES

from gdl.cli import main
from gdl.extensive import load_extensive
from gdl.extensive.best_response import exploitability

KUHN, MONTY, TICTACTOE = (str(GAMES / name) for name in ("kuhn.kif", "montyhall.kif", "tictactoe.kif"))


def solve_json(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, object]:
    status = main(["solve", *arguments, "--json"])
    return status, json.loads(capsys.readouterr().out)


def test_kuhn_has_one_value_alone_with_jobs_and_among_several(capsys: pytest.CaptureFixture[str]) -> None:
    status, alone = solve_json(capsys, KUHN)
    assert status == 0 and isinstance(alone, dict)
    assert alone["exact_value"] == {"player1": "-1/18", "player2": "1/18"}
    status, jobs = solve_json(capsys, KUHN, "--jobs", "2")
    assert status == 0 and isinstance(jobs, list)
    status, several = solve_json(capsys, KUHN, MONTY, TICTACTOE)
    assert status == 0 and isinstance(several, list)
    for runs in (jobs, several):
        assert runs[0]["file"] == KUHN and runs[0]["solved"] is True
        assert runs[0]["exact_value"] == alone["exact_value"]
    assert several[1]["exact_value"] == {"candidate": "200/3"}
    assert several[2]["exact_value"] == {"xplayer": "50", "oplayer": "50"}
    main(["solve", KUHN, MONTY, "--jobs", "2"])
    table = capsys.readouterr().out
    assert "player1 -1/18, player2 1/18" in table and "candidate 200/3" in table
    assert "2 of 2 game(s) solved" in table


def test_monty_hall_is_solved_exactly_by_switching(capsys: pytest.CaptureFixture[str]) -> None:
    status, report = solve_json(capsys, MONTY)
    assert status == 0 and isinstance(report, dict)
    assert report["solved"] is True and report["exact_value"] == {"candidate": "200/3"}
    assert report["exact_goal_value"] == {"candidate": "200/3"}  # a lone player's payoff is its goal
    after_the_host = [
        probabilities for infoset, probabilities in report["strategies"]["candidate"].items()
        if "opened" in infoset
    ]
    assert len(after_the_host) == 6  # the door chosen, then one of the two the host may open
    assert all(probabilities == {"stay": 0.0, "switch": 1.0} for probabilities in after_the_host)
    main(["solve", MONTY])
    assert "value: candidate 66.66666667 (= 200/3)" in capsys.readouterr().out


def test_the_best_policy_is_worth_what_it_earns_and_staying_a_third() -> None:
    from gdl.extensive.exact import best_response, expected_payoffs

    game = load_extensive(MONTY)
    best = best_response(game, "candidate", {})
    assert best.value == Fraction(200, 3)
    policy = {infoset: {a: Fraction(a == choice) for a in game.infosets[infoset].actions}
              for infoset, choice in best.choices.items()}
    assert expected_payoffs(game, policy) == {"candidate": Fraction(200, 3)}
    stay = {
        infoset: {a: Fraction(a == ("stay" if "stay" in actions else choice)) for a in actions}
        for infoset, choice in best.choices.items()
        for actions in [game.infosets[infoset].actions]
    }
    assert expected_payoffs(game, stay) == {"candidate": Fraction(100, 3)}


def test_exact_best_responses_agree_with_the_floating_point_ones() -> None:
    from gdl.extensive.exact import as_fractions, check_profile

    game = load_extensive(GAMES / "kuhn.efg")
    uniform = {key: {a: 1 / len(s.actions) for a in s.actions} for key, s in game.infosets.items()}
    exact = check_profile(game, as_fractions(uniform))
    floating = exploitability(game, uniform)
    for player in game.players:
        assert float(exact.values[player]) == pytest.approx(floating.values[player], abs=1e-12)
        best = floating.best_responses[player]
        assert float(exact.best_responses[player]) == pytest.approx(best, abs=1e-12)
    assert not exact.equilibrium


def test_a_game_is_solved_only_when_exact_best_responses_prove_the_value() -> None:
    from gdl.extensive.solving import solve_extensive

    game = load_extensive(GAMES / "kuhn.efg")
    lp = solve_extensive(game)
    assert lp.solved and lp.exact == {"1": Fraction(-1, 18), "2": Fraction(1, 18)}
    cfr = solve_extensive(game, "cfr", iterations=50)
    assert not cfr.solved and cfr.exact is None and cfr.reason.startswith("not solved exactly")
    low, high = cfr.bounds["1"]
    assert low < Fraction(-1, 18) < high


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([TICTACTOE, "--method", "cfr"], "--method applies to extensive-form games"),
        ([TICTACTOE, "--method", "lp"], "is a game of perfect information"),
        ([KUHN, "--iterations", "10"], "--iterations applies to --method cfr"),
        ([KUHN, "--max-states", "10"], "--max-states applies to games of perfect information"),
        ([MONTY, "--method", "cfr"], "--method cfr applies to games of two players"),
    ],
)
def test_options_that_do_not_apply_are_refused(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["solve", *arguments]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""
