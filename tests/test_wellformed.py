"""Dynamic well-formedness (gdl.wellformed): verdicts on our games and on small broken games.

Counterexamples are replayed with clingo (tests/support/clingo_gdl.py), an oracle that shares only the parser
with gdl, and the property each one claims to violate is checked there.
"""

from __future__ import annotations

import io
import json
import signal
import subprocess
import time
from collections import deque
from pathlib import Path

import pytest
from support.cli import at_a_terminal
from support.clingo_gdl import ClingoGame
from support.gdl2_games import MONTY_HALL

import gdl
from gdl.cli import main
from gdl.cli.progress import Progress as ProgressLine
from gdl.wellformed import PROPERTIES, Counterexample, Progress, Report, analyse

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
TEST_GAMES = Path(__file__).resolve().parent / "games"

Fluents = frozenset[str]


@pytest.fixture(scope="module")
def tictactoe() -> Report:
    return analyse(gdl.load(GAMES / "tictactoe.kif"))


def reachable(oracle: ClingoGame) -> dict[Fluents, bool]:
    """Every reachable state of a small game (clingo's view) and whether it is terminal."""
    seen = {oracle.initial: oracle.terminal(oracle.initial)}
    queue = deque([oracle.initial])
    while queue:
        state = queue.popleft()
        if seen[state]:
            continue
        for joint in oracle.joint_moves(state):
            successor = oracle.next(state, joint)
            if successor not in seen:
                seen[successor] = oracle.terminal(successor)
                queue.append(successor)
    return seen


def replay(oracle: ClingoGame, example: Counterexample) -> list[Fluents]:
    """The states a counterexample passes through; every move must be legal in clingo's view."""
    states = [oracle.initial]
    for joint in example.moves:
        state = states[-1]
        assert not oracle.terminal(state)
        for role, move in zip(oracle.roles, joint, strict=True):
            assert move in oracle.legal(state, role), f"{role} may not play {move}"
        states.append(oracle.next(state, dict(zip(oracle.roles, joint, strict=True))))
    return states


def goal_values(oracle: ClingoGame, state: Fluents) -> list[list[str]]:
    return [oracle.goals(state, role) for role in oracle.roles]


def confirm(oracle: ClingoGame, example: Counterexample) -> None:
    """Check with clingo that the counterexample shows what it claims."""
    states = replay(oracle, example)
    final = states[-1]
    if example.cycle_start is None:
        assert example.state == tuple(sorted(final))
    if example.property == "terminating":
        assert example.cycle_start is not None and example.cycle_start < len(example.moves)
        assert states[example.cycle_start] == final
        assert example.state == tuple(sorted(final))
    elif example.property == "playable":
        assert not oracle.terminal(final)
        assert any(not oracle.legal(final, role) for role in oracle.roles)
    elif example.property == "goals_defined":
        assert oracle.terminal(final)
        assert any(len(values) != 1 for values in goal_values(oracle, final))
    elif example.property == "monotonic":
        after = goal_values(oracle, final)
        before = goal_values(oracle, states[-2]) if len(states) > 1 else after
        undefined = any(len(values) != 1 for values in after)
        assert undefined or any(int(a[0]) < int(b[0]) for a, b in zip(after, before, strict=True))
    elif example.property == "strongly_winnable" and len(oracle.roles) > 1:
        # A play where the others keep the first role from 100: it ends below 100 or goes round a cycle.
        if example.cycle_start is not None:
            assert states[example.cycle_start] == final
        else:
            assert oracle.terminal(final) and oracle.goals(final, oracle.roles[0]) != ["100"]
    else:
        # Winnability is universal: the play leads to a terminal state where someone falls short of
        # 100, and no reachable terminal state gives every role 100 at some point.
        assert example.property in ("weakly_winnable", "strongly_winnable")
        assert oracle.terminal(final)
        states_seen = reachable(oracle)
        winners = {
            role
            for state, terminal in states_seen.items()
            if terminal
            for role in oracle.roles
            if oracle.goals(state, role) == ["100"]
        }
        assert winners != set(oracle.roles)


def test_tictactoe_has_5478_states_and_is_weakly_but_not_strongly_winnable(tictactoe: Report) -> None:
    # 5,478 positions and 958 terminal ones are the well-known figures for tic-tac-toe.
    assert (tictactoe.reachable_states, tictactoe.terminal_states) == (5478, 958)
    assert tictactoe.complete and tictactoe.max_depth == 9 and tictactoe.longest_play == 9
    assert tictactoe.terminating is True
    assert tictactoe.playable is True
    assert tictactoe.goals_defined is True
    assert tictactoe.monotonic is True
    assert tictactoe.weakly_winnable is True
    assert tictactoe.strongly_winnable is False
    # Not strongly winnable is no fault in a game of two, but it is proven with a play to replay.
    assert [c.property for c in tictactoe.counterexamples] == ["strongly_winnable"]
    assert not tictactoe.failed and tictactoe.faults() == []
    confirm(ClingoGame(GAMES / "tictactoe.kif"), tictactoe.counterexamples[0])


def test_buttons_terminates_and_is_strongly_winnable() -> None:
    path = GAMES / "buttons.kif"
    report = analyse(gdl.load(path))
    oracle = ClingoGame(path)
    states = reachable(oracle)
    assert report.complete
    assert report.reachable_states == len(states)
    assert report.terminal_states == sum(states.values())
    assert report.terminating is True and report.longest_play == 6  # the step counter's limit
    assert report.strongly_winnable is True and report.weakly_winnable is True
    assert report.counterexamples == ()


@pytest.mark.parametrize("name", ["nim.kif", "rps.kif"])
def test_our_other_games_are_well_formed(name: str) -> None:
    report = analyse(gdl.load(GAMES / name))
    assert report.complete and not report.failed
    assert all(report.verdict(p) is True for p in PROPERTIES if p != "strongly_winnable")
    # Nim with 7 stones is a first-player win; rock-paper-scissors cannot be forced.
    assert report.strongly_winnable is (name == "nim.kif")
    for example in report.counterexamples:
        confirm(ClingoGame(GAMES / name), example)


@pytest.mark.parametrize(
    ("name", "flagged"),
    [
        ("buttons_no_counter.kif", {"terminating"}),
        ("nonterminating.kif", {"terminating"}),
        ("unplayable.kif", {"playable"}),
        # GDL's monotonicity asks for exactly one goal value in every reachable state, so a terminal
        # state without a goal violates both properties.
        ("missing_goal.kif", {"goals_defined", "monotonic"}),
        ("nonmonotonic.kif", {"monotonic"}),
        ("unwinnable.kif", {"weakly_winnable"}),
        ("unwinnable_solo.kif", {"weakly_winnable", "strongly_winnable"}),
    ],
)
def test_each_broken_game_is_flagged_with_a_counterexample_and_nothing_else(
    name: str, flagged: set[str]
) -> None:
    path = TEST_GAMES / name
    report = analyse(gdl.load(path))
    assert report.complete
    assert {example.property for example in report.counterexamples} == flagged
    for prop in PROPERTIES:
        assert report.verdict(prop) is (prop not in flagged), prop
    oracle = ClingoGame(path)
    for example in report.counterexamples:
        confirm(oracle, example)


def test_buttons_without_a_step_counter_shows_the_cycle() -> None:
    report = analyse(gdl.load(TEST_GAMES / "buttons_no_counter.kif"))
    example = report.counterexample("terminating")
    assert example is not None and example.cycle_start is not None
    # The shortest cycle from the shallowest state: b swaps two lights that are both off.
    assert (example.moves, example.cycle_start) == ((("b",),), 0)
    text = report.format()
    assert "cycle" in text and "terminating        no" in text
    assert report.longest_play is None


def test_a_small_budget_proves_nothing_it_has_not_seen(tictactoe: Report) -> None:
    report = analyse(gdl.load(GAMES / "tictactoe.kif"), max_states=200, playouts=20)
    assert not report.complete and report.reachable_states <= 200
    for prop in ("terminating", "playable", "goals_defined", "monotonic"):
        assert report.verdict(prop) is None, prop
    assert report.strongly_winnable is None
    assert report.weakly_winnable is not False
    assert report.counterexamples == ()
    assert report.simulation is not None and report.simulation.playouts == 20
    assert report.simulation.ended == 20 and report.simulation.longest <= 9
    assert "not decided" in report.format() and "not proven" not in report.format()


UNBOUNDED = """
(role counter)
(init (count 0))
(legal counter tick)
(<= (next (count (s ?n))) (true (count ?n)))
(goal counter 0)
(<= terminal (true (count stop)))
"""


def test_an_endless_game_without_cycles_is_not_proven_either_way() -> None:
    # The compiled engine cannot instantiate an infinite game; the Datalog evaluator need not.
    report = analyse(gdl.parse(UNBOUNDED, engine="datalog"), max_states=30, playouts=3, depth_limit=40)
    assert not report.complete and report.reachable_states == 30
    assert report.terminating is None  # no cycle: every state is new, so nothing is proven
    assert report.simulation is not None and report.simulation.ended == 0
    assert report.playable is None and report.weakly_winnable is None
    assert "0 of 3 random playouts ended within 40 moves" in report.format()


@pytest.mark.parametrize(
    ("name", "prop"),
    [
        ("buttons_no_counter.kif", "terminating"),
        ("unplayable.kif", "playable"),
        ("missing_goal.kif", "goals_defined"),
        ("nonmonotonic.kif", "monotonic"),
    ],
)
def test_random_playouts_find_failures_beyond_the_budget(name: str, prop: str) -> None:
    # A budget of one state stops the search at once; the playouts then meet the failure.
    path = TEST_GAMES / name
    report = analyse(gdl.load(path), max_states=1, playouts=50)
    assert not report.complete and report.simulation is not None
    assert report.verdict(prop) is False
    example = report.counterexample(prop)
    assert example is not None
    confirm(ClingoGame(path), example)


def test_ctrl_c_returns_what_is_known_so_far() -> None:
    def interrupt(progress: Progress) -> None:
        raise KeyboardInterrupt

    report = analyse(gdl.load(GAMES / "tictactoe.kif"), progress=interrupt)
    assert report.interrupted and not report.complete
    assert report.terminating is None and report.playable is None
    assert "interrupted" in report.format()


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_draws_only_on_a_terminal() -> None:
    progress = Progress(states=50, frontier=10, depth=3, seconds=1.0, max_states=100)
    terminal, pipe = Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        line = ProgressLine("check", stream)
        line.explored(progress)
        line.close()
    assert "#" * 15 + "." * 15 in terminal.getvalue() and "50 states" in terminal.getvalue()
    assert pipe.getvalue() == ""


def test_check_dynamic_json_has_every_key(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check", "--dynamic", "--json", str(GAMES / "buttons.kif")])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert report["reachable_states"] == analyse(gdl.load(GAMES / "buttons.kif")).reachable_states
    assert report["terminal_states"] > 0 and report["max_depth"] == 6 and report["complete"] is True
    assert all(report[p] is True for p in PROPERTIES)
    assert report["counterexamples"] == []


def test_check_dynamic_reports_failures_with_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(TEST_GAMES / "nonterminating.kif"), str(GAMES / "nim.kif")]
    status = main(["check", "--dynamic", "--json", "--max-states", "1000", "--time-limit", "30", *files])
    reports = json.loads(capsys.readouterr().out)
    assert status == 1
    assert [r["terminating"] for r in reports] == [False, True]
    example = reports[0]["counterexamples"][0]
    assert example["property"] == "terminating" and example["moves"][-1] == {"runner": "wait"}


def test_check_dynamic_skips_games_with_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.kif"
    broken.write_text("(role r)\n(<= terminal (true ?x))\n(legal r ?y)\n", encoding="utf-8")
    status = main(["check", "--dynamic", str(broken)])
    out = capsys.readouterr().out
    assert status == 1 and "error" in out and "reachable states" not in out
    assert main(["check", "--dynamic", str(tmp_path / "missing.kif")]) == 2
    # a bad --max-states: tests/test_cli_vocabulary.py


@pytest.mark.slow
def test_ctrl_c_on_the_command_line_prints_the_partial_report(corpus: Path) -> None:
    command = [str(ROOT / ".venv/bin/gdl"), "check", "--dynamic", str(corpus / "games/eightpuzzle.kif")]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=at_a_terminal,
    )
    time.sleep(8)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "interrupted after" in out and "not decided (interrupted)" in out
    assert ": undecided (required: " in out and ": well-formed" not in out


def test_nature_is_no_player_and_every_verdict_says_so() -> None:
    report = analyse(gdl.parse(MONTY_HALL, "datalog"))
    assert report.complete and report.nature == "random" and report.percepts
    # nature has no goal, yet goals are defined: the candidate's, in every terminal state
    assert report.goals_defined is True and report.playable is True and report.terminating is True
    lines = report.format().splitlines()
    for name in PROPERTIES:
        line = next(line for line in lines if line.strip().startswith(name.replace("_", " ")))
        assert "[random is nature: " in line, line
    assert "as if the player saw the state" in next(line for line in lines if "strongly winnable" in line)
    data = report.to_json()
    assert data["nature"] == "random" and set(data["notes"]) == set(PROPERTIES)


def test_a_gdl_game_has_no_nature_notes() -> None:
    report = analyse(gdl.load(GAMES / "buttons.kif"))
    assert report.nature is None and "nature" not in report.format()
    assert report.to_json()["notes"] == {}


def test_nature_without_legal_moves_makes_a_game_unplayable() -> None:
    stuck = MONTY_HALL.replace("(<= (legal random noop) (true (step 3)))", "")
    report = analyse(gdl.parse(stuck, "datalog"))
    assert report.playable is False
    example = report.counterexample("playable")
    assert example is not None and "random" in example.message


def test_the_dynamic_policy_makes_only_required_properties_errors(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The corpus tic-tac-toe defines goals only at the end: not monotonic, which is a warning by default.
    game = str(corpus / "games/tictactoe.kif")
    assert main(["check", "--dynamic", game]) == 0
    out = capsys.readouterr().out
    assert "tictactoe: well-formed (required: terminating, playable, goals defined, weakly winnable)" in out
    assert "warning: not monotonic (not required)" in out
    assert main(["check", "--dynamic", "--require", "terminating,monotonic", game]) == 1
    assert "tictactoe: not well-formed (required: terminating, monotonic)" in capsys.readouterr().out
    assert main(["check", "--dynamic", "--json", "--require", "all", game]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["required"] == list(PROPERTIES)
    assert report["violations"] == ["monotonic", "strongly_winnable"]


def test_an_unknown_required_property_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["check", "--dynamic", "--require", "fun", str(GAMES / "nim.kif")])
    assert exit_.value.code == 2
    assert "unknown property 'fun'" in capsys.readouterr().err
