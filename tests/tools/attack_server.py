"""Attacks on one ``gdl serve`` while it plays honest matches: does the server process stay small, and do
the honest matches keep their clocks? On 127.0.0.1 only, every request loop bounded::

    .venv/bin/python tests/tools/attack_server.py                      # the acceptance mix, below
    .venv/bin/python tests/tools/attack_server.py --honest 4 --hostile 6 --bombs 1 --play-clock 3

starts ``gdl serve --capacity 40 --player mcts`` in a session of its own and, at once:

- ``--honest`` tic-tac-toe matches hosted by :func:`gdl.protocol.manager.host` (the server plays
  xplayer, a random player oplayer);
- ``--hostile`` STARTs of the rules of ``tests/hostile.py`` in turn, each followed by PLAYs until the
  server ends the match (at most 40);
- ``--bombs`` pairs of 3 MB parse bombs: a PLAY for an unknown match and a START whose rules hold a
  tree of depth 19;
- ``--doubling`` matches of a 600-byte game that passes ``gdl check`` and whose only legal move doubles
  in size every step (2^21 leaves at step 21), followed to the end;

while it samples the resident memory of the server process and of its whole process group. It prints
one JSON object: the honest moves, missed clocks (the manager's errors), random fallbacks (the server's
log lines for xplayer; fallbacks on turns with one legal move are counted apart), the HTTP statuses of
the bombs, the peaks of memory, and the log's tracebacks; the exit status is 1 when an acceptance point
is missed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import select
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from support.hostile import DOUBLING, HOSTILE, tree  # noqa: E402
from support.protocol import session_processes  # noqa: E402

import gdl  # noqa: E402
from gdl.protocol.manager import host  # noqa: E402

#: The limits of the acceptance: the server's own memory and the fallbacks of honest moves.
SERVER_MEMORY_MB = 300
MAX_FALLBACKS = 0.05


def post(url: str, body: bytes, timeout: float = 60.0) -> tuple[int, str]:
    port = int(url.rsplit(":", 1)[1].strip("/"))
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("POST", "/", body=body, headers={"Content-Type": "text/acl"})
        response = connection.getresponse()
        return response.status, response.read(1 << 16).decode("utf-8", "replace")
    except OSError as problem:  # the server may close the connection on a refused body
        return 0, f"{type(problem).__name__}: {problem}"
    finally:
        connection.close()


def memory_of(pid: int) -> int:
    """Resident memory of a process in kB (0 once it has gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"VmRSS:\s+(\d+)", status)
    return int(found.group(1)) if found else 0


class Sampler(threading.Thread):
    """Peaks of the server's resident memory and of its whole session's, every 0.2 s."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.server_kb = 0
        self.group_kb = 0
        self.processes = 0
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.2):
            pids = session_processes(self.pid)
            self.server_kb = max(self.server_kb, memory_of(self.pid))
            self.group_kb = max(self.group_kb, sum(map(memory_of, pids)))
            self.processes = max(self.processes, len(pids))


def honest(url: str, index: int, start_clock: int, play_clock: int) -> dict[str, Any]:
    game = gdl.load(ROOT / "games" / "tictactoe.kif")
    record = host(game, {"xplayer": url, "oplayer": "random"}, start_clock, play_clock, seed=index)
    errors = [step.get("xplayer", "") for step in record.errors]
    return {"moves": len(record.moves), "errors": [e for e in errors if e]}


def hostile(url: str, index: int, start_clock: int, play_clock: int) -> str:
    name = list(HOSTILE)[index % len(HOSTILE)]
    match_id = f"hostile.{index}"
    start = f"(START {match_id} robot ({HOSTILE[name]}) {start_clock} {play_clock})"
    status, reply = post(url, start.encode())
    for _ in range(40):
        if status != 200:
            break
        status, reply = post(url, f"(PLAY {match_id} NIL)".encode())
    post(url, f"(ABORT {match_id})".encode())
    return f"{name}: {status} {reply[:100]}"


def bombs(url: str) -> list[int]:
    body = tree(19)
    play = post(url, f"(PLAY nosuchmatch ((m {body})))".encode())
    start = post(url, f"(START bomb robot ((role robot) (bomb {body})) 10 5)".encode())
    return [play[0], start[0]]


def doubling(url: str, index: int, play_clock: int) -> str:
    match_id = f"doubling.{index}"
    status, reply = post(url, f"(START {match_id} robot ({DOUBLING}) 10 {play_clock})".encode())
    moves = "NIL"
    steps = 0
    while status == 200 and steps < 25:
        status, reply = post(url, f"(PLAY {match_id} {moves})".encode())
        for _ in range(10):  # the first PLAY again while the player is still loading
            if not (moves == "NIL" and "not found in time" in reply):
                break
            status, reply = post(url, f"(PLAY {match_id} NIL)".encode())
        moves = f"({reply})"
        steps += 1
    post(url, f"(ABORT {match_id})".encode())
    return f"{steps} PLAY(s), then {status} {reply[:100]}"


def main() -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--honest", type=int, default=10)
    parser.add_argument("--hostile", type=int, default=20)
    parser.add_argument("--bombs", type=int, default=1, help="pairs of 3 MB bombs (default 1)")
    parser.add_argument("--doubling", type=int, default=1)
    parser.add_argument("--start-clock", type=int, default=10)
    parser.add_argument("--play-clock", type=int, default=5)
    parser.add_argument("--capacity", type=int, default=40)
    parser.add_argument("--memory", type=int, default=1024, help="--memory of the server (MB)")
    parser.add_argument("--player", default="mcts")
    parser.add_argument("--log", type=Path, default=Path("attack_server.log"))
    args = parser.parse_args()

    command = [
        sys.executable, "-c", "import sys; from gdl.cli import main; sys.exit(main())", "serve",
        "--host", "127.0.0.1", "--port", "0", "--capacity", str(args.capacity),
        "--memory", str(args.memory), "--player", args.player,
    ]
    log = args.log.open("w")
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)
    assert server.stdout is not None
    ready, _, _ = select.select([server.stdout], [], [], 120)
    line = server.stdout.readline() if ready else ""
    if " listening on " not in line:
        server.kill()
        raise SystemExit(f"gdl serve did not start: {line!r}")
    url = line.rsplit(" ", 1)[-1].strip()
    sampler = Sampler(server.pid)
    sampler.start()
    began = time.monotonic()
    try:
        with ThreadPoolExecutor(args.honest + args.hostile + 2 * args.bombs + args.doubling) as pool:
            honest_runs = [
                pool.submit(honest, url, i, args.start_clock, args.play_clock) for i in range(args.honest)
            ]
            time.sleep(1.0)  # the honest matches first, as a manager's would be
            hostile_runs = [
                pool.submit(hostile, url, i, args.start_clock, args.play_clock) for i in range(args.hostile)
            ]
            bomb_runs = [pool.submit(bombs, url) for _ in range(args.bombs)]
            doubling_runs = [pool.submit(doubling, url, i, args.play_clock) for i in range(args.doubling)]
            honest_results = [run.result() for run in honest_runs]
            hostile_results = [run.result() for run in hostile_runs]
            bomb_statuses = [status for run in bomb_runs for status in run.result()]
            doubling_results = [run.result() for run in doubling_runs]
        oversized = post(url, b"(INFO)" + b" " * (5 << 20))[0]
    finally:
        server.terminate()
        server.wait(30)
        until = time.monotonic() + 15
        while session_processes(server.pid) and time.monotonic() < until:
            time.sleep(0.2)
        sampler.stopped.set()
        sampler.join()
        log.close()
    left = session_processes(server.pid)
    text = args.log.read_text()
    moves = sum(result["moves"] for result in honest_results)
    fallbacks = len(re.findall(r"answering turn \d+ for xplayer with the random move", text))
    errors = [error for result in honest_results for error in result["errors"]]
    missed = sum(1 for error in errors if "no reply" in error or "no answer" in error)
    summary: dict[str, Any] = {
        "seconds": round(time.monotonic() - began, 1),
        "honest_moves": moves,
        "honest_errors": errors,
        "missed_clocks": missed,
        "random_fallbacks": fallbacks,
        "forced_fallbacks": text.count("for xplayer with its only move"),
        "fallback_share": round(fallbacks / max(moves, 1), 3),
        "hostile": hostile_results,
        "bomb_statuses": bomb_statuses,
        "doubling": doubling_results,
        "oversized_status": oversized,
        "server_peak_mb": round(sampler.server_kb / 1024),
        "group_peak_mb": round(sampler.group_kb / 1024),
        "group_peak_processes": sampler.processes,
        "group_limit_mb": SERVER_MEMORY_MB + (sampler.processes - 1) * args.memory,
        "tracebacks": text.count("Traceback"),
        "never_retrieved": text.count("never retrieved"),
        "left_running": left,
        "load_average": os.getloadavg(),
    }
    print(json.dumps(summary, indent=1))
    met = (
        missed == 0
        and fallbacks <= MAX_FALLBACKS * moves
        and summary["server_peak_mb"] < SERVER_MEMORY_MB
        and summary["group_peak_mb"] < summary["group_limit_mb"]
        and all(status == 413 for status in bomb_statuses)
        and oversized == 413
        and not summary["tracebacks"]
        and not left
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
