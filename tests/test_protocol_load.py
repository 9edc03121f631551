"""Load: many matches at once against one ``gdl serve`` process on loopback, none missing a clock.

``pytest -m slow tests/test_protocol_load.py -s`` prints the figures kept in docs/performance.md.
"""

from __future__ import annotations

import statistics
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from protocol_support import serve_process

import gdl
from gdl.match import MatchRecord
from gdl.protocol.manager import Network, host

GAMES = Path(__file__).resolve().parent.parent / "games"
MATCHES = 20
START_CLOCK = 10.0
PLAY_CLOCK = 2.0


@pytest.mark.slow
def test_twenty_concurrent_matches_against_one_player_server(tmp_path: Path) -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    log = tmp_path / "serve.log"
    options = ("--player", "mcts", "--capacity", str(2 * MATCHES))
    with serve_process(*options, log=log) as url, Network() as network:
        # The server plays both roles of every match: 40 searches at once, in one process.
        players = dict.fromkeys(game.roles, url)

        def one_match(seed: int) -> MatchRecord:
            return host(game, players, START_CLOCK, PLAY_CLOCK, network=network, seed=seed)

        with ThreadPoolExecutor(MATCHES) as pool:
            records = list(pool.map(one_match, range(MATCHES)))
    latencies = [step[role] for record in records for step in record.times for role in record.roles]
    errors = [error for record in records for step in record.errors for error in step.values() if error]
    missed = sum(latency > PLAY_CLOCK for latency in latencies)
    print(
        f"\nmatches={len(records)} completed={sum(r.completed for r in records)} moves={len(latencies)}"
        f" max_latency={max(latencies):.3f}s median_latency={statistics.median(latencies):.3f}s"
        f" missed_clocks={missed} errors={len(errors)} start_errors="
        f"{sum(bool(e) for r in records for e in r.start_errors.values())}"
        # Moves the server chose at random because the player had not finished in time.
        f" server_fallback_moves={log.read_text().count('with the random move')}"
    )
    assert all(record.completed for record in records)
    assert missed == 0 and errors == []
    assert not [r.start_errors for r in records if r.start_errors], log.read_text()[-3000:]
    # Random moves for players that overran are fine; random moves for players that failed are not.
    assert "Traceback" not in log.read_text() and "failed in" not in log.read_text()


#: Small corpus games of one to four roles, turn-taking and simultaneous.
CORPUS_GAMES = (
    "2pffa",
    "3pconnectfour",
    "4pttc",
    "biddingtictactoe",
    "blocker",
    "chomp",
    "connectfour",
    "eightpuzzle",
)


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPUS_GAMES)
def test_corpus_games_over_the_network(name: str, corpus: Path) -> None:
    game = gdl.load(corpus / "games" / f"{name}.kif")
    # Players bounded by iterations and a generous clock: this test is about the protocol on real games,
    # not about time, and it may share the machine with the load test above.
    with serve_process("--player", "mcts:iterations=100", "--capacity", "4") as url, Network() as network:
        record = host(game, dict.fromkeys(game.roles, url), 10.0, 5.0, network=network, seed=1, max_steps=100)
    errors = [e for step in record.errors for e in step.values() if e]
    assert record.start_errors == {} and errors == []
    state = game.initial_state()
    for moves in record.moves:
        state = state.next(moves)
    assert record.completed == state.is_terminal()
    if record.completed:
        assert record.goals == state.goals()
