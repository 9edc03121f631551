"""Instantiation: split rule bodies, ground on demand, drop what no output needs, say what is too large.

Exactness is checked against the Datalog evaluator (which does not ground) by random walks, on games
made to exercise each rewriting and on random games; the slow corpus-wide walk is in
test_engines_compiled.py.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from functools import partial
from pathlib import Path

import pytest
import support.engines
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.engines import checked_game, disagreements

from gdl.check import CheckedProgram, check_text
from gdl.cli import main
from gdl.engines.compiled import CompiledReasoner
from gdl.errors import GameTooLargeError
from gdl.ground.instantiate import instantiate


def checked(text: str) -> CheckedProgram:
    result = check_text(text)
    assert result.checked is not None, [d.format() for d in result.diagnostics]
    return result.checked


def rules_per_relation(program: CheckedProgram) -> Counter[str]:
    return Counter(rule.head[0] for rule in instantiate(program).rules)


# A row is full when each of its 8 columns holds a block of any of 4 colours: grounded as written, the
# rule for `full` has 4**8 instances per row.
ROWS = """
(role r) (colour red) (colour green) (colour blue) (colour grey)
(col 1) (col 2) (col 3) (col 4) (col 5) (col 6) (col 7) (col 8) (row 1) (row 2)
(init (step 0)) (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (legal r (drop ?x ?y ?c)) (col ?x) (row ?y) (colour ?c) (not (filled ?x ?y)))
(<= (filled ?x ?y) (true (block ?x ?y ?c)))
(<= (next (block ?x ?y ?c)) (does r (drop ?x ?y ?c)))
(<= (next (block ?x ?y ?c)) (true (block ?x ?y ?c)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= (full ?y) (true (block 1 ?y ?c1)) (true (block 2 ?y ?c2)) (true (block 3 ?y ?c3))
    (true (block 4 ?y ?c4)) (true (block 5 ?y ?c5)) (true (block 6 ?y ?c6)) (true (block 7 ?y ?c7))
    (true (block 8 ?y ?c8)))
(<= terminal (full ?y))
(<= terminal (true (step 6)))
(<= (goal r 100) (full ?y))
(<= (goal r 0) (not terminal))
(<= (goal r 0) (true (step 6)) (not (full 1)) (not (full 2)))
"""

# `seen ?x ?y ?ix ?iy` is a cross product of every square with every ignored square, but it is only used
# negated, with every argument bound by the rule that uses it.
DEMAND = """
(role r) (n 1) (n 2) (n 3) (n 4) (n 5) (n 6)
(init (piece 1 1)) (init (guard 6 6))
(<= (square ?x ?y) (n ?x) (n ?y))
(<= (seen ?x ?y ?ix ?iy) (true (guard ?gx ?y)) (n ?x) (distinct ?gx ?ix) (square ?ix ?iy))
(<= (seen ?x ?y ?ix ?iy) (true (guard ?x ?gy)) (n ?y) (distinct ?gy ?iy) (square ?ix ?iy))
(<= (legal r (go ?x ?y ?u ?v)) (true (piece ?x ?y)) (step ?x ?y ?u ?v) (not (seen ?u ?v ?x ?y)))
(legal r wait)
(<= (step ?x ?y ?u ?y) (n ?y) (succ ?x ?u))
(<= (step ?x ?y ?x ?v) (n ?x) (succ ?y ?v))
(succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (next (piece ?u ?v)) (does r (go ?x ?y ?u ?v)))
(<= (next (piece ?x ?y)) (true (piece ?x ?y)) (does r wait))
(<= (next (guard ?x ?y)) (true (guard ?x ?y)))
(<= (next (unused ?x)) (true (piece ?x ?x)) (never ?x))
(<= (never ?x) (n ?x) (n ?y) (n ?z) (distinct ?x ?y) (distinct ?y ?z))
(<= (spare ?x ?y ?z) (n ?x) (n ?y) (n ?z))
(<= terminal (true (piece 6 6)))
(<= (goal r 100) (true (piece 6 6)))
(<= (goal r 0) (not (true (piece 6 6))))
"""


def test_independent_variables_are_projected_out_and_the_game_agrees() -> None:
    program = checked(ROWS)
    # Each of the 2 rows needs the blocks of its 8 columns, not the 4**8 combinations of their colours.
    assert sum(rules_per_relation(program).values()) < 4**8
    assert disagreements(program, range(4), 20) == []


def test_a_relation_used_only_negated_is_grounded_only_where_used() -> None:
    program = checked(DEMAND)
    counts = rules_per_relation(program)
    # Every rule instance of `seen` for every square and ignored square would be over 6**4; the legal
    # rule asks only about the squares next to the piece, ignoring the piece's own square.
    assert 0 < counts["seen"] < 6**4 // 4
    assert disagreements(program, range(6), 12) == []


def sums_game(top: int) -> str:
    """A counter adding 0 to 2 per step up to ``top``, with a static table of every sum up to ``top``."""
    numbers = " ".join(f"(succ {n} {n + 1})" for n in range(top))
    return f"""
    (role r) (init (total 0)) (init (step 0)) (num 0) {numbers}
    (<= (num ?n) (succ ?m ?n))
    (<= (plus ?x 0 ?x) (num ?x))
    (<= (plus ?x ?y ?z) (succ ?y1 ?y) (plus ?x ?y1 ?z1) (succ ?z1 ?z))
    (<= (legal r (add ?n)) (true (total ?t)) (succ 0 ?n) (plus ?t ?n ?s))
    (<= (legal r (add ?n)) (true (total ?t)) (succ 1 ?n) (plus ?t ?n ?s))
    (legal r (add 0))
    (<= (next (total ?s)) (does r (add ?n)) (true (total ?t)) (plus ?t ?n ?s))
    (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
    (<= terminal (true (step 8)))
    (<= (goal r ?t) (true (total ?t)) terminal)
    (<= (goal r 0) (not terminal))
    """


def test_a_large_static_table_is_grounded_on_demand(monkeypatch: pytest.MonkeyPatch) -> None:
    program = checked(sums_game(60))
    # The table of sums has 61 * 62 / 2 atoms, more than a quarter of 3000: it is grounded on demand
    # instead, only where the total can be.
    with pytest.raises(GameTooLargeError):
        instantiate(program, max_atoms=300)
    grounding = instantiate(program, max_atoms=3000)
    plus = sum(rule.head[0] == "plus" for rule in grounding.rules)
    assert 0 < plus < 61 * 62 // 2
    monkeypatch.setattr(support.engines, "CompiledReasoner", partial(CompiledReasoner, max_atoms=3000))
    assert disagreements(program, range(4), 10) == []


def test_terminal_depending_on_does_sees_no_move_played() -> None:
    # GDL forbids it, the checker lets it pass (fire_sheep does it): `killed` holds only while a move
    # is played, so terminal and goals, evaluated in a state, see it false; next sees it true.
    text = """
    (role r) (init (alive a)) (init (alive b))
    (<= (legal r (kill ?x)) (true (alive ?x)))
    (legal r wait)
    (<= (killed ?x) (does r (kill ?x)))
    (<= (living ?x) (true (alive ?x)) (not (killed ?x)))
    (<= (next (alive ?x)) (living ?x))
    (<= terminal (not (living a)))
    (<= (goal r 100) (living b))
    (<= (goal r 0) (not (living b)))
    """
    assert disagreements(checked(text), range(6), 4) == []


def test_relations_no_output_needs_are_not_grounded() -> None:
    counts = rules_per_relation(checked(DEMAND))
    assert "spare" not in counts
    assert counts["next"] > 0


def test_over_the_atom_budget_the_message_names_the_largest_relations(corpus: Path) -> None:
    with pytest.raises(GameTooLargeError) as raised:
        instantiate(checked_game(corpus / "games" / "connectfour.kif"), max_atoms=50)
    message = str(raised.value)
    assert "\n" not in message
    found = re.fullmatch(
        r"cannot instantiate '.*connectfour\.kif': more than 50 ground atoms or rules \((.*)\)", message
    )
    assert found is not None, message
    counts = [re.fullmatch(r"([^:]+): (\d+) (atoms|rules|bindings of one rule)", part) for part in
              found.group(1).split(", ")]
    assert all(counts) and int(counts[0].group(2)) >= int(counts[-1].group(2))  # type: ignore[union-attr]


def test_over_the_time_budget_the_message_names_the_largest_relations(corpus: Path) -> None:
    with pytest.raises(GameTooLargeError, match=r"within 0\.01 s \(\S+: \d+ "):
        instantiate(checked_game(corpus / "games" / "chinesecheckers6.kif"), max_seconds=0.01)


def test_gdl_network_reports_a_game_too_large(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "rows.kif"
    path.write_text(ROWS, encoding="utf-8")
    assert main(["network", str(path), "--max-atoms", "20"]) == 1
    error = capsys.readouterr().err
    assert re.fullmatch(r"gdl network: cannot instantiate '.*rows\.kif': more than 20 ground atoms or "
                        r"rules \(\S+: \d+ \w+.*\)\n", error), error
    assert main(["network", str(path), "--max-atoms", "20", "--table"]) == 0
    assert "| rows | " in capsys.readouterr().out


# Random games: a few relations over a small board, each defined from the state, earlier relations and
# their negations; walks of the compiled engine must agree with the Datalog evaluator.
_VARIABLES = ("?a", "?b", "?c", "?d")
_VALUES = ("1", "2", "x", "o")


@st.composite
def random_games(draw: st.DrawFn) -> str:
    lines = [
        "(role r) (num 1) (num 2) (mark x) (mark o) (init (cell 1 x))",
        "(<= (legal r (put ?i ?m)) (num ?i) (mark ?m) (not (true (cell ?i ?m))))",
        "(<= (legal r (take ?i ?m)) (true (cell ?i ?m)))",
        "(<= (next (cell ?i ?m)) (does r (put ?i ?m)))",
        "(<= (next (cell ?i ?m)) (true (cell ?i ?m)) (not (does r (take ?i ?m))))",
    ]
    known = [("cell", 2, True), ("num", 1, False), ("mark", 1, False)]
    term = st.sampled_from(_VARIABLES + _VALUES)
    for k in range(draw(st.integers(1, 4))):
        name, arity = f"p{k}", draw(st.integers(0, 3))
        for _ in range(draw(st.integers(1, 2))):
            positives = []
            for _ in range(draw(st.integers(1, 4))):
                relation, width, state = draw(st.sampled_from(known))
                text = " ".join([relation, *(draw(term) for _ in range(width))])
                positives.append(f"(true ({text}))" if state else f"({text})" if width else relation)
            bound = sorted({v for literal in positives for v in _VARIABLES if v in literal})
            usable = st.sampled_from(bound + list(_VALUES)) if bound else st.sampled_from(_VALUES)
            negatives = []
            for _ in range(draw(st.integers(0, 2))):
                relation, width, state = draw(st.sampled_from(known))
                text = " ".join([relation, *(draw(usable) for _ in range(width))])
                atom = f"(true ({text}))" if state else f"({text})" if width else relation
                negatives.append(f"(not {atom})")
            if len(bound) > 1 and draw(st.booleans()):
                negatives.append(f"(distinct {bound[0]} {bound[1]})")
            head = " ".join([name, *(draw(usable) for _ in range(arity))])
            lines.append(f"(<= {f'({head})' if arity else name} {' '.join(positives + negatives)})")
        known.append((name, arity, False))
    last, width, _ = known[-1]
    query = f"({last} {' '.join(draw(st.sampled_from(_VARIABLES)) for _ in range(width))})" if width else last
    lines += [
        # Goals depend on the state: the Datalog evaluator loses a static goal defined by negating
        # another goal of the same role (reported; not this file's business).
        f"(<= (goal r 100) {query} (true (cell 1 x)))",
        "(<= (goal r 0) (not (goal r 100)))",
        "(<= terminal (true (cell 2 o)))",
        f"(<= terminal {query} (true (cell 2 x)))",
    ]
    return "\n".join(lines)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games())
def test_random_games_agree_with_datalog(text: str) -> None:
    result = check_text(text)
    assume(result.checked is not None)
    assert result.checked is not None
    assert disagreements(result.checked, range(3), 8) == []


def test_the_time_budget_also_bounds_building_ground_rules(corpus: Path) -> None:
    # twogenerals' joins are quick but yield bindings that make large ground rules: building those took
    # minutes past a 5 s budget before the loop that builds them looked at the clock.
    path = corpus / "gdl2" / "twogenerals.gdl"
    checked = check_text(path.read_text(encoding="utf-8"), str(path)).checked
    assert checked is not None
    start = time.process_time()
    with pytest.raises(GameTooLargeError, match=r"within 0\.5 s"):
        instantiate(checked, 10_000_000, 0.5)
    assert time.process_time() - start < 10  # the budget, plus the last stretch between two looks
