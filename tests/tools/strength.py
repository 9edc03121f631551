"""Playing strength: gdl's player against an opponent reached over HTTP, match by match through
``gdl host``::

    .venv/bin/python tests/tools/strength.py GAME.kif... --opponent-command 'CMD ... {port} ...'
    .venv/bin/python tests/tools/strength.py games/tictactoe.kif --matches 2 --start-clock 5 \\
        --play-clock 1 --opponent-command '.venv/bin/gdl serve --host 127.0.0.1 --port {port}'

``gdl serve`` (``--player``, default uct) and the opponent each run for the whole benchmark, pinned to
a core of their own with taskset (``--gdl-core``, ``--opponent-core``). The opponent is a command that
serves a GGP player on 127.0.0.1:{port} (restarted when it exits after a match, as Sancho's runner
without ``--persist`` does), or ``--opponent URL`` of one already running. The seats rotate match by
match, so that gdl plays each role equally often; the opponent plays every other role, each with a
server of its own (a GGP player plays one role of a match): in a game of n roles the command is
started n - 1 times, on the opponent's core, or n - 1 URLs are given (``--opponent`` repeated).
``--records DIR`` keeps each match's record (``GAME-MATCH.json``, ggp-base's format).

Prints a markdown table, one row per game: matches, gdl's score share (its goal over the sum of the
match's goals, an even share each when all are 0; the mean over the matches) with a 95 % confidence
interval (Student's t), gdl's mean goal (where the rules give the losers points the share of a win is
capped, the goal is not: tictactoe_3player gives the other two 66 each, a win's share is 43 %), the
errors charged to gdl and to the opponent (ggp-base's codes in the records: TO, CE, IL ...; START's
included) and the machine's load average (1 min, taken after each match: mean and max).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from intervals import mean_interval

import gdl

#: The gdl command of this checkout, whatever is installed.
GDL = [sys.executable, "-c", "import sys; from gdl.cli import main; sys.exit(main())"]


def pinned(command: list[str], core: int | None) -> list[str]:
    """``command`` run on one core, when taskset is there."""
    if core is None or shutil.which("taskset") is None:
        return command
    return ["taskset", "-c", str(core), *command]


def answers(url: str) -> bool:
    """Whether a GGP player answers INFO at ``url``."""
    request = urllib.request.Request(url, b"(INFO)", {"Content-Type": "text/acl"})
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Opponent:
    """The opponent's player server: a command, started (again) on demand, or a URL."""

    def __init__(self, url: str | None, command: str | None, core: int | None) -> None:
        self.command, self.core = command, core
        self.process: subprocess.Popen[bytes] | None = None
        self.url = url or ""

    def ready(self) -> str:
        """The URL of a running opponent, started if need be."""
        if self.command is None or (self.process is not None and self.process.poll() is None):
            return self.url
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/"
        command = pinned(["sh", "-c", self.command.format(port=port)], self.core)
        # A session of its own: the command's whole process group ends with it.
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        until = time.monotonic() + 300
        while not answers(self.url):
            if self.process.poll() is not None or time.monotonic() > until:
                raise SystemExit(f"strength: the opponent did not start: {self.command}")
            time.sleep(0.5)
        return self.url

    def close(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):  # it has ended, and its group with it
                os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(30)


def start_gdl(player: str, core: int | None) -> tuple[subprocess.Popen[str], str]:
    """``gdl serve`` on a free loopback port; the process and its URL."""
    command = pinned([*GDL, "serve", "--host", "127.0.0.1", "--port", "0", "--player", player], core)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if " listening on " not in line:
        raise SystemExit(f"strength: gdl serve did not start: {line!r}")
    return process, line.rsplit(" ", 1)[-1].strip()


@dataclass
class Tally:
    """The matches of one game."""

    shares: list[float] = field(default_factory=list)
    goals: list[int] = field(default_factory=list)
    gdl_errors: int = 0
    opponent_errors: int = 0
    loads: list[float] = field(default_factory=list)


def play(
    game: Path, roles: list[str], seat: int, gdl_url: str, opponents: list[str],
    args: argparse.Namespace, tally: Tally,
) -> None:
    """One match through ``gdl host``: gdl (``gdl_url``) in role number ``seat``, the opponents' servers
    in the others, in turn."""
    mine = roles[seat % len(roles)]
    others = iter(opponents)
    with tempfile.TemporaryDirectory() as folder:
        record_file = Path(folder) / "record.json"
        command = [*GDL, "host", str(game), "--quiet", "-o", str(record_file),
                   "--start-clock", str(args.start_clock), "--play-clock", str(args.play_clock)]
        for role in roles:
            command += ["-p", f"{role}={gdl_url if role == mine else next(others)}"]
        hosted = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if hosted.returncode not in (0, 1):  # 1: the match was aborted, and its record says why
            raise SystemExit(f"strength: gdl host failed: {hosted.stderr.strip()}")
        if args.records is not None:
            args.records.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(record_file, args.records / f"{game.stem}-{seat + 1}.json")
        record = json.loads(record_file.read_text())
    index = record["roles"].index(mine)
    goals = record["goalValues"] or [0] * len(record["roles"])
    total = sum(goals)
    tally.shares.append(goals[index] / total if total else 1 / len(goals))
    tally.goals.append(goals[index])
    for step in record["errors"]:
        for position, error in enumerate(step):
            if error and position == index:
                tally.gdl_errors += 1
            elif error:
                tally.opponent_errors += 1
    tally.loads.append(os.getloadavg()[0])


def interval(shares: list[float]) -> str:
    """The 95 % confidence interval of the mean share (Student's t), in percent."""
    if len(shares) < 2:
        return "-"
    low, high = mean_interval(shares)
    return f"{100 * max(0.0, low):.0f}-{100 * min(1.0, high):.0f} %"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="+", type=Path)
    parser.add_argument("--matches", type=int, default=10, help="matches per game (default 10)")
    parser.add_argument("--start-clock", type=int, default=20)
    parser.add_argument("--play-clock", type=int, default=5)
    parser.add_argument("--player", default="uct", help="gdl's player (default uct)")
    parser.add_argument("--opponent", action="append", default=[],
                        help="URL of an opponent already serving (once per role it plays at most)")
    parser.add_argument("--opponent-command", help="command serving the opponent on 127.0.0.1:{port}")
    parser.add_argument("--gdl-core", type=int, default=0)
    parser.add_argument("--opponent-core", type=int, default=1)
    parser.add_argument("--records", type=Path, help="folder to keep the matches' records in")
    args = parser.parse_args(argv)
    if bool(args.opponent) == (args.opponent_command is not None):
        parser.error("give one of --opponent URL and --opponent-command CMD")
    games = [(game, [str(role) for role in gdl.load(game).players]) for game in args.games]
    needed = max(len(roles) for _, roles in games) - 1
    if args.opponent and len(args.opponent) < needed:
        parser.error(f"a game of {needed + 1} roles needs {needed} opponent URLs; "
                     f"{len(args.opponent)} given")
    server, gdl_url = start_gdl(args.player, args.gdl_core)
    opponents = [Opponent(url, None, None) for url in args.opponent] or [
        Opponent(None, args.opponent_command, args.opponent_core) for _ in range(needed)
    ]
    rows = []
    try:
        for game, roles in games:
            tally = Tally()
            for seat in range(args.matches):
                urls = [opponent.ready() for opponent in opponents[: len(roles) - 1]]
                play(game, roles, seat, gdl_url, urls, args, tally)
            mean = 100 * sum(tally.shares) / len(tally.shares)
            goal = sum(tally.goals) / len(tally.goals)
            load = f"{sum(tally.loads) / len(tally.loads):.1f} / {max(tally.loads):.1f}"
            rows.append(
                f"| {game.stem} | {len(tally.shares)} | {mean:.0f} % | {interval(tally.shares)} | "
                f"{goal:.1f} | {tally.gdl_errors} | {tally.opponent_errors} | {load} |"
            )
    finally:
        for opponent in opponents:
            opponent.close()
        server.terminate()
        server.wait(30)
    against = " ".join(args.opponent) or shlex.quote(args.opponent_command)
    print(f"gdl --player {args.player} against {against}, "
          f"clocks {args.start_clock} s / {args.play_clock} s, {os.cpu_count()} cores")
    print("| game | matches | gdl score share | 95 % CI | gdl mean goal | errors gdl | errors opponent "
          "| load mean / max |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
