"""Regression tests for defects found by fuzzing and by hostile input."""

from __future__ import annotations

import pytest

import gdl
from gdl.check import check_text
from gdl.datalog import evaluate
from gdl.protocol.messages import Play, parse_message
from gdl.protocol.server import shorten
from gdl.syntax.reader import parse_term, read

#: A game with a relation named as the demand-driven rewriting named its copy of ``reach`` called with
#: its argument bound: the two merged, and ``(go 2)`` became legal.
TILDE = """
(role robot)
(init (cell 1)) (init (cell 2))
(<= (reach~b ?x) (true (cell ?x)))
(<= (reach ?x) (true (cell ?x)) (distinct ?x 2))
(<= (legal robot (go ?x)) (true (cell ?x)) (reach ?x))
(<= (legal robot (stay ?x)) (reach~b ?x) (distinct ?x 1))
(<= (next (done)) (does robot (go ?x)))
(<= (next (done)) (does robot (stay ?x)))
(<= terminal (true (done)))
(<= (goal robot 100) (true (done)))
(<= (goal robot 0) (not (true (done))))
"""


@pytest.mark.parametrize("demand", [True, False])
def test_relation_names_with_a_tilde_do_not_clash_with_generated_names(demand: bool) -> None:
    from gdl.engines.datalog import DatalogReasoner

    reasoner = DatalogReasoner(gdl.parse(TILDE, engine="datalog").checked, demand=demand)
    assert [str(m) for m in reasoner.legal(reasoner.initial(), 0)] == ["(go 1)", "(stay 2)"]


def test_a_message_starting_with_a_byte_order_mark_is_read_whole() -> None:
    message = parse_message("\ufeff(PLAY m1 ((mark 1 1) noop))".encode())
    assert isinstance(message, Play) and [str(m) for m in message.moves or ()] == ["(mark 1 1)", "noop"]


def test_extra_facts_must_agree_with_the_program_s_arities() -> None:
    checked = check_text("(<= (q ?x) (p ?x))", game=False).checked
    assert checked is not None
    assert evaluate(checked, [read("(p a)").program.rules[0].head]) == {"p": {(parse_term("a"),)}, "q": {
        (parse_term("a"),)}}
    with pytest.raises(ValueError, match="2 argument"):
        evaluate(checked, [read("(p a b)").program.rules[0].head])


def test_replies_shown_in_logs_and_records_have_no_raw_control_characters() -> None:
    shown = shorten("\x1b[2J\x1b[31mowned\x07")
    assert shown.isprintable() and "\\x1b" in shown


def test_the_batched_engine_takes_a_goal_written_with_other_digits() -> None:
    from gdl.engines.batched import BatchedEngine
    from gdl.engines.compiled import CompiledReasoner

    rules = """(role r) (init (s 0)) (<= (legal r go) (true (s 0))) (<= (next (s 1)) (does r go))
    (<= terminal (true (s 1))) (<= (goal r ²) (true (s 1))) (<= (goal r 0) (true (s 0)))"""
    checked = check_text(rules).checked  # the checker only warns of the goal value
    assert checked is not None
    stats = BatchedEngine(CompiledReasoner(checked).net, 8, seed=1).run(1.0, playouts=8)
    assert stats.goal_sums == [0]


def _deep_game(depth: int) -> str:
    """A one-player game whose only move carries a Peano numeral ``depth`` levels deep."""
    deep = "z"
    for _ in range(depth):
        deep = f"(s {deep})"
    return f"""(role r) (init (c {deep})) (<= (legal r (go ?x)) (true (c ?x)))
    (<= (next (done ?x)) (does r (go ?x))) (<= terminal (true (done ?x)))
    (<= (goal r 100) (true (done ?x))) (<= (goal r 0) (true (c ?x)))"""


@pytest.mark.parametrize("engine", ["datalog", "compiled", "auto"])
@pytest.mark.parametrize("depth", [30, 400])
def test_terms_hundreds_of_levels_deep_are_played(engine: str, depth: int) -> None:
    # The specification sets no depth; gdl refused past 100 levels, and the Datalog engine's generated
    # code doubled with every level (a numeral 30 deep took gigabytes).
    game = gdl.parse(_deep_game(depth), engine=engine)
    state = game.initial_state()
    [move] = state.legal_moves("r")
    assert str(move).count("(s ") == depth + 0 and str(move).startswith("(go (s ")
    state = state.next({"r": str(move)})
    assert state.is_terminal() and state.goals() == {"r": 100}


def test_a_counter_bound_only_through_the_state_falls_back_to_the_datalog_engine() -> None:
    rules = """(role r) (init (count z)) (<= (legal r tick) (true (count ?x)))
    (<= (next (count (s ?x))) (true (count ?x)))
    (<= terminal (true (count (s (s (s z))))))
    (<= (goal r 100) terminal) (<= (goal r 0) (not terminal))"""
    game = gdl.parse(rules)  # relaxed grounding builds ever deeper counts: RecursionError before
    state = game.initial_state()
    for _ in range(3):
        state = state.next({"r": "tick"})
    assert state.is_terminal() and state.goals() == {"r": 100}


@pytest.mark.parametrize("depth", [900, 100_000])
def test_a_deeply_nested_reply_is_an_error_in_the_record_not_a_crash(depth: int) -> None:
    import json
    from typing import Any

    from support.protocol import Background, scripted

    from gdl.protocol.manager import host
    from gdl.protocol.messages import Start

    async def deep(message: Any) -> bytes:
        if isinstance(message, Play):
            return ("(f " * depth + "a" + ")" * depth).encode()
        return b"ready" if isinstance(message, Start) else b"done"

    game = gdl.load("games/tictactoe.kif")
    background = Background()
    try:
        with scripted(background, deep) as url:
            record = host(game, {"xplayer": url, "oplayer": "random"}, 2, 1, seed=1, max_steps=2)
    finally:
        background.close()
    # Within the length of a move the reply is a term, and illegal; past it, no move at all.
    assert record.errors[0]["xplayer"].startswith(("illegal move: (f (f", "a move may have at most 4096"))
    assert len(record.errors[0]["xplayer"]) < 300
    assert json.loads(json.dumps(record.to_json()))["errors"][1][0].startswith(("IL ( f ( f", "IL null"))
