"""Load: many matches at once against one ``gdl serve`` process on loopback, none missing a clock.

``pytest -m slow tests/test_protocol_load.py -s`` prints the figures kept in docs/performance.md.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support.hostile import HOSTILE
from support.protocol import request, serve_process

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


def _tree_memory(pid: int) -> int:
    """Memory (bytes) of a process and all its descendants: their proportional set sizes, from /proc.

    PSS splits each page shared by forked workers among them, so the sum is what the tree holds;
    the sum of resident sizes would count the server's copy-on-write pages once per worker."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            rollup = Path(f"/proc/{current}/smaps_rollup").read_text()
            # Children are listed by the thread that made them: every thread's list counts.
            children = [
                child for task in Path(f"/proc/{current}/task").iterdir()
                for child in (task / "children").read_text().split()
            ]
        except OSError:
            continue
        # A zombie (exited, not yet reaped) has no Pss line: it holds no memory.
        total += sum(int(line.split()[1]) * 1024 for line in rollup.splitlines() if line.startswith("Pss:"))
        pending.extend(map(int, children))
    return total


#: The bound the server (with every worker process) must stay under in the hostile load test:
#: 20 honest matches of two players, 20 hostile ones, each worker limited to 1 GiB by --memory.
MEMORY_BOUND = 3 << 30


@pytest.mark.slow
def test_twenty_honest_matches_while_twenty_hostile_starts_arrive(tmp_path: Path) -> None:
    """20 concurrent honest matches (2 s clocks) while another client sends 20 hostile STARTs;
    zero missed clocks for the honest matches, the memory of the server and its workers under
    MEMORY_BOUND, and every hostile match refused or ended with a clear error."""
    game = gdl.load(GAMES / "tictactoe.kif")
    log = tmp_path / "serve.log"
    hostile = list(HOSTILE.values())
    options = ("--player", "mcts", "--capacity", str(2 * MATCHES + MATCHES), "--memory", "1024")
    with serve_process(*options, log=log) as url, Network() as network:
        server_pid = _server_pid(url)
        players = dict.fromkeys(game.roles, url)
        peak = [0]
        outcomes: list[tuple[int, str]] = []
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], _tree_memory(server_pid))
                time.sleep(0.2)

        def one_match(seed: int) -> MatchRecord:
            return host(game, players, START_CLOCK, PLAY_CLOCK, network=network, seed=seed)

        def attack(index: int) -> None:
            rules = hostile[index % len(hostile)]
            status, _, body = request(url, f"(START hostile.{index} robot ({rules}) 5 2)".encode())
            reply = body.decode()
            until = time.monotonic() + 300
            while time.monotonic() < until and (status == 200 or "not found in time" in reply):
                status, _, body = request(url, f"(PLAY hostile.{index} NIL)".encode())
                reply = body.decode()
            outcomes.append((status, reply))

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        with ThreadPoolExecutor(2 * MATCHES) as pool:
            attacks = [pool.submit(attack, index) for index in range(MATCHES)]
            records = list(pool.map(one_match, range(MATCHES)))
            for attack_run in attacks:
                attack_run.result()
        done.set()
        watcher.join()
    latencies = [step[role] for record in records for step in record.times for role in record.roles]
    errors = [error for record in records for step in record.errors for error in step.values() if error]
    missed = sum(latency > PLAY_CLOCK for latency in latencies)
    refused = [reply for status, reply in outcomes if status != 200]
    print(
        f"\nhonest: matches={len(records)} completed={sum(r.completed for r in records)}"
        f" moves={len(latencies)}"
        f" max_latency={max(latencies):.3f}s median_latency={statistics.median(latencies):.3f}s"
        f" missed_clocks={missed} errors={len(errors)}; hostile: {len(outcomes)} STARTs, {len(refused)}"
        f" refused or ended with an error; peak memory of server and workers {peak[0] / 2**30:.2f} GiB"
    )
    for reply in sorted({reply[:160] for _, reply in outcomes}):
        print("  hostile reply:", reply)
    assert all(record.completed for record in records)
    assert missed == 0 and errors == [], errors[:5]
    assert len(refused) == MATCHES
    assert all(reply.startswith(("error: ", "busy: ")) for reply in refused)
    assert 0 < peak[0] < MEMORY_BOUND


def _server_pid(url: str) -> int:
    """The pid of the process listening on the URL's port (from /proc/net/tcp and the fds)."""
    port = int(url.rsplit(":", 1)[1])
    inodes = {
        line.split()[9]
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
        if int(line.split()[1].split(":")[1], 16) == port and line.split()[3] == "0A"
    }
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if any(os.readlink(fd).removeprefix("socket:[").rstrip("]") in inodes
                       for fd in (proc / "fd").iterdir()):
                    return int(proc.name)
            except OSError:
                continue
    return 0


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
