"""Ctrl-C stops every long-running command promptly: it says what was done, exits 130 and leaves no
process behind (worker processes, the fork server and the resource tracker included)."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support.cli import at_a_terminal
from support.protocol import request

ROOT = Path(__file__).resolve().parent.parent
TICTACTOE = str(ROOT / "games/tictactoe.kif")
#: Seconds a command may take to stop: generous, since a loaded machine starves the process (on an idle
#: one each stops within about a second; measure it with a benchmark, not here).
STOP_WITHIN = 60.0

#: 16 lights a player turns on or off, one a step, for 40 steps: too many states to solve quickly.
LIGHTS = "\n".join([
    "(role p)",
    *(f"(light {i})" for i in range(16)),
    *(f"(succ {i} {i + 1})" for i in range(40)),
    "(init (step 0))",
    "(<= (legal p (flip ?l)) (light ?l))",
    "(<= (next (on ?l)) (does p (flip ?l)) (not (true (on ?l))))",
    "(<= (next (on ?l)) (true (on ?l)) (not (does p (flip ?l))))",
    "(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))",
    "(<= terminal (true (step 40)))",
    "(<= (goal p 100) (true (on 0)))",
    "(<= (goal p 0) (not (true (on 0))))",
])


def session_processes(session: int) -> list[int]:
    """The processes of a session (a command started with ``start_new_session`` leads its own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if int(fields[3]) == session and fields[0] != "Z":  # fields: state, ppid, pgrp, session, ...
            found.append(int(entry.name))
    return found


class Command:
    """A ``gdl`` command in a session of its own, standard error on a pseudo-terminal (as at a
    keyboard, so progress lines show), standard output on a pipe; both read as they come."""

    def __init__(self, argv: list[str]) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-c", "import sys; from gdl.cli import main; sys.exit(main(sys.argv[1:]))",
             *argv],
            stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=at_a_terminal,
        )
        os.close(slave)
        self.out = bytearray()
        self.err = bytearray()
        self._readers = [
            threading.Thread(target=self._read, args=(self.process.stdout.fileno(), self.out), daemon=True),
            threading.Thread(target=self._read, args=(self.master, self.err), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(fd: int, into: bytearray) -> None:
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return
            if not data:
                return
            into.extend(data)

    def wait_for(self, text: str, seconds: float = 120.0) -> None:
        deadline = time.monotonic() + seconds
        while text.encode() not in self.out + self.err:
            assert self.process.poll() is None, (self.out.decode(), self.err.decode())
            assert time.monotonic() < deadline, f"no {text!r} in {(self.out + self.err).decode()!r}"
            time.sleep(0.05)

    def interrupt(self) -> tuple[int, str, str, float]:
        """Ctrl-C as a terminal sends it, to every process of the command; its status, output and error
        output, and the seconds it took to stop."""
        started = time.monotonic()
        os.killpg(self.process.pid, signal.SIGINT)
        status = self.process.wait(STOP_WITHIN)
        took = time.monotonic() - started
        self._readers[0].join(5)
        os.close(self.master)
        return status, self.out.decode(), self.err.decode(), took

    def left_behind(self) -> list[int]:
        deadline = time.monotonic() + 5
        while (left := session_processes(self.process.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        return left

    def kill(self) -> None:
        if session_processes(self.process.pid):
            os.killpg(self.process.pid, signal.SIGKILL)


@pytest.fixture
def lights(tmp_path: Path) -> str:
    game = tmp_path / "lights.kif"
    game.write_text(LIGHTS)
    return str(game)


def run_and_interrupt(argv: list[str], marker: str) -> tuple[str, str]:
    command = Command(argv)
    try:
        command.wait_for(marker)
        status, out, err, _ = command.interrupt()
        assert status == 130, (out, err)
        assert command.left_behind() == []
        assert "Traceback" not in out + err
        return out, err
    finally:
        command.kill()


def test_ctrl_c_stops_a_tournament_with_its_standings_so_far() -> None:
    out, err = run_and_interrupt(
        ["tournament", TICTACTOE, "-p", "mcts", "-p", "mcts", "-n", "40", "-j", "2", "--play-clock", "3",
         "--engine", "datalog"],
        "/40 matches",
    )
    assert "interrupted after" in err and "player" in out and "wins" in out


def test_ctrl_c_stops_a_match_saying_how_far_it_went() -> None:
    _, err = run_and_interrupt(
        ["play", TICTACTOE, "-p", "mcts", "-p", "mcts", "--play-clock", "30", "--engine", "datalog"],
        "initial state",
    )
    assert "interrupted at step 1" in err


def test_ctrl_c_stops_solving_with_the_states_searched(lights: str) -> None:
    _, err = run_and_interrupt(["solve", lights, "--engine", "datalog"], "states searched")
    assert "interrupted after" in err and "states searched" in err


def test_ctrl_c_stops_a_player_server_and_its_match_processes() -> None:
    command = Command(["serve", "--host", "127.0.0.1", "--port", "0", "-p", "mcts"])
    try:
        command.wait_for("listening on")
        url = command.out.decode().split()[-1]
        rules = Path(TICTACTOE).read_text()
        assert request(url, f"(START m1 xplayer ({rules}) 30 30)".encode())[2] == b"ready"
        assert len(session_processes(command.process.pid)) > 1  # the match's player has a process
        status, _, err, _ = command.interrupt()
        assert status == 130 and "stopped; 1 match under way ended" in err
        assert "Traceback" not in err
        assert command.left_behind() == []
    finally:
        command.kill()
