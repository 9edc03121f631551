"""The batched engine: every lane of a network pass agrees with the compiled engine, playouts agree with
the known statistics of random tic-tac-toe and with the compiled engine's native playouts, the batch is
sized for the cache, and ``gdl bench`` / ``gdl network`` run it."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from support.engines import checked_game, corpus_problems, reach_game

from gdl.check import CheckedProgram, check_text
from gdl.cli import main
from gdl.engines import batched
from gdl.engines.batched import MAX_DEPTH, BatchedEngine, block_words, cache_size
from gdl.engines.compiled import CompiledReasoner

ROOT = Path(__file__).resolve().parent.parent


def lane_disagreements(checked: CheckedProgram, seed: int, walks: int) -> list[str]:
    """States of random walks (by the compiled engine) evaluated in one batch, lane by lane."""
    compiled = CompiledReasoner(checked)
    rng = random.Random(seed)
    states: list[int] = []
    choices: list[list[int]] = []
    for _ in range(walks):
        state = compiled.initial()
        while not compiled.terminal(state) and len(states) < 1000:
            legal = [compiled.legal(state, r) for r in range(len(compiled.roles))]
            if not all(legal):
                break
            choice = [rng.randrange(len(moves)) for moves in legal]
            states.append(state)
            choices.append(choice)
            state = compiled.next(state, [moves[i] for moves, i in zip(legal, choice, strict=True)])
    engine = BatchedEngine(compiled.net, batch=len(states))
    problems = []
    for k, (terminal, legal, goals, following) in enumerate(engine.step(states, choices)):
        expected_terminal, expected_legal = compiled.analyse(states[k])
        if terminal != expected_terminal or tuple(legal) != expected_legal:
            problems.append(f"lane {k}: terminal or legal moves differ")
        if tuple(goals) != compiled._goals(states[k]):  # type: ignore[operator]
            problems.append(f"lane {k}: goals differ")
        moves = [compiled.legal(states[k], r)[i] for r, i in enumerate(choices[k])]
        if following != compiled.next(states[k], moves):
            problems.append(f"lane {k}: successors differ")
    return problems


@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "breakthrough", "hanoi", "3pconnectfour"])
def test_every_lane_agrees_with_the_compiled_engine(corpus: Path, name: str) -> None:
    assert lane_disagreements(checked_game(corpus / "games" / f"{name}.kif"), seed=3, walks=12) == []


@pytest.mark.slow
def test_every_lane_agrees_on_every_corpus_game_that_instantiates(corpus: Path) -> None:
    assert corpus_problems(corpus, lambda checked: lane_disagreements(checked, seed=5, walks=4)) == []


def test_lanes_agree_on_a_recursive_game() -> None:
    assert lane_disagreements(reach_game(), seed=5, walks=20) == []


def test_lanes_agree_across_blocks(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Blocks of 512 lanes: the states of 40 walks of connect four fill two of them.
    monkeypatch.setattr(batched, "block_words", lambda nodes: 8)
    checked = checked_game(corpus / "games" / "connectfour.kif")
    assert BatchedEngine(CompiledReasoner(checked).net, batch=1000).blocks == 2
    assert lane_disagreements(checked, seed=7, walks=40) == []


def summary(samples: list[list[float]]) -> list[tuple[float, float]]:
    """Mean and variance of each column."""
    columns = list(zip(*samples, strict=True))
    means = [sum(c) / len(c) for c in columns]
    return [(m, sum((x - m) ** 2 for x in c) / (len(c) - 1)) for m, c in zip(means, columns, strict=True)]


def playout_disagreements(checked: CheckedProgram, playouts: int, native: int) -> list[str]:
    """Mean depth and mean goal of each role over batched playouts against the compiled engine's native
    playouts; a difference of more than five standard errors is a disagreement."""
    compiled = CompiledReasoner(checked)
    roles = len(compiled.roles)
    rng = random.Random(1)
    samples = []
    for _ in range(native):
        state, depth, terminal = compiled.depth_charge(compiled.initial(), rng, MAX_DEPTH)
        assert terminal
        samples.append([depth, *(int(str(compiled.goals(state, r)[0])) for r in range(roles))])
    stats = BatchedEngine(compiled.net, seed=2).run(60, playouts=playouts)
    batched_means = [stats.moves / stats.playouts, *(g / stats.playouts for g in stats.goal_sums)]
    problems = []
    for name, (mean, variance), got in zip(
        ["depth", *compiled.roles], summary(samples), batched_means, strict=True
    ):
        error = (variance / native + variance / stats.playouts) ** 0.5
        if abs(got - mean) > 5 * error + 1e-9:
            problems.append(f"{name}: {got:.3f} batched, {mean:.3f} +- {error:.3f} native")
    return problems


@pytest.mark.parametrize(
    "name", ["connectfour", "blocker", "hanoi", "nim1", "buttons", "breakthrough", "cubicup_3player"]
)
def test_playouts_agree_with_native_playouts(corpus: Path, name: str) -> None:
    checked = checked_game(corpus / "games" / f"{name}.kif")
    assert playout_disagreements(checked, playouts=20_000, native=1_000) == []


def test_playouts_agree_with_native_playouts_through_a_cycle_block() -> None:
    assert playout_disagreements(reach_game(), playouts=20_000, native=2_000) == []


STUCK = """
(role r) (init (n 0))
(<= (legal r a) (true (n 0))) (<= (legal r b) (true (n 0)))
(<= (next (n 1)) (does r a)) (<= (next (n 2)) (does r b))
(<= terminal (true (n 1)))
(<= (goal r 100) (true (n 1))) (<= (goal r 0) (not (true (n 1))))
"""


def test_a_lane_without_a_legal_move_ends_its_playout() -> None:
    # Half the playouts end in the terminal state (n 1) with 100, half in (n 2), where r has no move:
    # counted, after one move, but not scored by run; scored where they stopped by rollouts.
    checked = check_text(STUCK).checked
    assert checked is not None
    compiled = CompiledReasoner(checked)
    engine = BatchedEngine(compiled.net, batch=1024, seed=3)
    stats = engine.run(60, playouts=10_000)
    assert stats.moves == stats.playouts
    assert abs(stats.goal_sums[0] / stats.playouts - 50) < 3
    values = engine.rollouts([compiled.initial()] * 1000)
    assert set(values[:, 0].tolist()) == {0, 100}
    assert abs(values[:, 0].mean() - 50) < 7


def test_a_playout_stops_at_the_depth_limit() -> None:
    checked = check_text(
        "(role r) (init (s 0)) (legal r go) (<= (next (s 1)) (true (s 0))) (<= (next (s 0)) (true (s 1)))"
        " (<= terminal (true (s 2))) (goal r 42)"
    ).checked
    assert checked is not None
    stats = BatchedEngine(CompiledReasoner(checked).net, batch=64).run(60, playouts=1)
    assert stats.playouts == 64 and stats.moves == 64 * MAX_DEPTH and stats.goal_sums == [64 * 42]


def test_the_cache_size_is_the_second_levels(tmp_path: Path) -> None:
    for index, (level, kind, size) in enumerate([("1", "Data", "32K"), ("1", "Instruction", "32K"),
                                                 ("2", "Unified", "1024K"), ("3", "Unified", "32768K")]):
        folder = tmp_path / f"index{index}"
        folder.mkdir()
        for name, text in (("level", level), ("type", kind), ("size", size)):
            (folder / name).write_text(text + "\n")
    assert cache_size.__wrapped__(tmp_path) == 1 << 20
    assert cache_size.__wrapped__(tmp_path / "absent") == batched.DEFAULT_CACHE


def test_a_block_of_rows_fills_at_most_half_the_cache() -> None:
    megabyte = 1 << 20
    assert block_words(1624, megabyte) == 32  # breakthrough: 32 words of 8 bytes for 1,624 rows, 416 kB
    assert block_words(173, megabyte) == batched.MAX_BLOCK_WORDS  # tictactoe
    assert block_words(10**6, megabyte) == 8  # never less than a cache line
    for nodes in (100, 1000, 5000, 20_000):
        words = block_words(nodes, megabyte)
        assert words == 8 or words * 8 * nodes <= megabyte // 2
        assert words == batched.MAX_BLOCK_WORDS or 2 * words * 8 * nodes > megabyte // 2
    # Without a batch, the engine plays one block of that size.
    engine = BatchedEngine(CompiledReasoner(checked_game(ROOT / "games" / "tictactoe.kif")).net)
    assert (engine.blocks, engine.batch) == (1, 64 * block_words(engine.program.nodes))


def test_random_tictactoe_matches_its_known_outcome_rates() -> None:
    # Uniformly random tic-tac-toe: the first player wins 58.5%, draws 12.7% (so averages 64.8 points
    # when a win is 100 and a draw 50) and the game lasts 7.6 moves on average.
    engine = BatchedEngine(CompiledReasoner(checked_game(ROOT / "games" / "tictactoe.kif")).net, 1024, seed=1)
    stats = engine.run(seconds=60, playouts=40_000)
    assert stats.playouts >= 40_000
    assert abs(stats.goal_sums[0] / stats.playouts - 64.8) < 1.0
    assert abs(stats.moves / stats.playouts - 7.6) < 0.1


def test_rollouts_score_each_state_as_its_end_and_as_random_play() -> None:
    compiled = CompiledReasoner(checked_game(ROOT / "games" / "tictactoe.kif"))
    engine = BatchedEngine(compiled.net, 1024, seed=2)
    rng = random.Random(4)
    ends = []
    while len(ends) < 20:
        state = compiled.initial()
        while not compiled.terminal(state):
            state = compiled.next(state, [rng.choice(compiled.legal(state, r)) for r in range(2)])
        ends.append(state)
    expected = [[int(str(compiled.goals(s, r)[0])) for r in range(2)] for s in ends]
    assert engine.rollouts(ends).tolist() == expected
    # From the initial state, random play scores the first player 64.8 points on average (see above).
    scores = engine.rollouts([compiled.initial()] * 1000)
    assert abs(scores[:, 0].mean() - 64.8) < 4.0


def test_bench_prints_a_result_line_for_each_engine(capsys: pytest.CaptureFixture[str]) -> None:
    game = str(ROOT / "games" / "tictactoe.kif")
    for engine in ("compiled", "batched"):
        assert main(["bench", game, "--engine", engine, "--time-limit", "0.2", "--batch", "128"]) == 0
        line = capsys.readouterr().out.strip()
        assert line.startswith("RESULT reasoner=gdl game=tictactoe playouts=")
        fields = dict(part.split("=") for part in line.split()[1:])
        assert int(fields["playouts"]) > 0 and 5 < float(fields["avg_depth"]) < 10


def test_network_prints_sizes_and_exports_graphs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dot, graphml = tmp_path / "net.dot", tmp_path / "net.graphml"
    game = str(ROOT / "games" / "tictactoe.kif")
    assert main(["network", game, "--dot", str(dot), "--graphml", str(graphml)]) == 0
    out = capsys.readouterr().out
    assert "base: 29" in out  # 9 cells x 3 marks, and control of 2 roles
    assert "input: 20" in out  # 9 marks and noop, for each role
    text = dot.read_text()
    assert text.startswith("digraph propnet {") and '"(true (cell 1 1 x))"' in text
    labels = {e.text for e in ElementTree.parse(graphml).iter() if e.text and e.text.startswith("(")}
    assert "(legal xplayer (mark 2 2))" in labels and "(does oplayer noop)" in labels


def test_network_says_when_a_game_is_too_large(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["network", str(ROOT / "games" / "tictactoe.kif"), "--max-atoms", "20"]) == 1
    assert "more than 20 ground atoms" in capsys.readouterr().err


def test_network_table_has_a_row_per_game(capsys: pytest.CaptureFixture[str]) -> None:
    games = [str(ROOT / "games" / name) for name in ("tictactoe.kif", "nim.kif")]
    assert main(["network", *games, "--table"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("| game | CPU s |") and len(rows) == 4
    assert rows[2].startswith("| tictactoe |") and rows[3].startswith("| nim |")
