"""Failures that show: what went wrong is said, in one message, with the exit status it deserves."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from gdl.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_a_script_without_a_main_guard_gets_one_clear_error(tmp_path: Path) -> None:
    script = tmp_path / "tournament_script.py"
    script.write_text(
        "from gdl.tournament import run_tournament\n"
        f"run_tournament({str(ROOT / 'games/nim.kif')!r}, ['random', 'random'], 2, jobs=1,"
        " engine='datalog')\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.count("Traceback") == 1  # the script's own, not one per worker
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("gdl.errors.WorkerStartError: worker processes cannot start")
    assert f"{script} must start gdl's parallel work under `if __name__ == \"__main__\":`" in last


#: Broken games, and the warning of ``gdl bench`` about each.
BROKEN_GAMES = [
    ("(role p) (init (at a)) (legal p go) (<= (next (at b)) (true (at a))) (<= (next (at a)) (true (at b)))"
     " (<= terminal (true (at c))) (goal p 100)",
     "playouts reached 10000 moves without a terminal state: the game may never end"),
    ("(role P) (init (at a)) (legal P go) (<= (next (at b)) (true (at a))) (<= terminal (true (at b)))"
     " (<= (goal P 100) (true (at a)))",
     "role P had no goal value from 0 to 100 (or several) in"),
    ("(role p) (role Q) (init (at a)) (legal p go) (<= (legal Q go) (true (at a)))"
     " (<= (next (at b)) (true (at a))) (<= (next (at c)) (true (at b))) (<= terminal (true (at c)))"
     " (goal p 100) (goal Q 0)",
     "ended in no terminal state: role Q had no legal move after 1 move"),
]


@pytest.mark.parametrize("engine", ["datalog", "compiled"])
@pytest.mark.parametrize(("rules", "warning"), BROKEN_GAMES, ids=["never-ends", "no-goal", "no-legal-move"])
def test_bench_warns_about_a_broken_game(
    rules: str, warning: str, engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "broken.kif"
    game.write_text(rules)
    assert main(["bench", str(game), "--time-limit", "0.1", "--engine", engine]) == 0
    err = capsys.readouterr().err
    assert f"gdl bench: warning: {game}: " in err and warning in err


def test_bench_does_not_warn_about_a_sound_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", str(ROOT / "games/tictactoe.kif"), "--time-limit", "0.1"]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.fixture
def formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Path]:
    """A game file of each format, some with a suffix that does not say it (found by content)."""
    json_game = tmp_path / "kuhn.json"
    assert main(["convert", str(ROOT / "games/kuhn.efg"), str(json_game)]) == 0
    unnamed = tmp_path / "kuhn-json.txt"
    unnamed.write_text(json_game.read_text())
    capsys.readouterr()
    return {
        "json": json_game, "json by content": unnamed, "efg": ROOT / "games/kuhn.efg",
        "maze": ROOT / "games/bandits/example.txt", "gdl": ROOT / "games/nim.kif",
    }


#: Commands and the formats they read (see gdl.cli._common.FORMATS).
READS = {
    "check": {"gdl"}, "play": {"gdl"}, "bench": {"gdl"}, "network": {"gdl"}, "tournament": {"gdl"},
    "host": {"gdl"}, "solve": {"gdl", "json", "efg"}, "convert": {"gdl", "json", "efg"}, "bandits": {"maze"},
}
#: What each format is called in messages, and a command that reads it.
CALLED = {
    "gdl": ("a GDL game", "gdl check"), "json": ("a game in the JSON format", "gdl solve"),
    "efg": ("a Gambit .efg game", "gdl solve"), "maze": ("a bandit-ambush maze", "gdl bandits"),
}


@pytest.mark.parametrize("command", sorted(READS))
def test_a_file_in_a_format_the_command_does_not_read_says_which_command_does(
    command: str, formats: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tried = 0
    for name, path in formats.items():
        kind = name.split()[0]
        if kind in READS[command]:
            continue
        argv = [command, str(path), *([str(tmp_path / "out.efg")] if command == "convert" else [])]
        assert main(argv) == 2, (command, name)
        err = capsys.readouterr().err
        what, reader = CALLED[kind]
        assert f"gdl {command}: {path}: this is {what}, not " in err and f"{reader}" in err, err
        assert "error:" not in err  # not read as another format
        tried += 1
    assert tried == len(formats) - sum(name.split()[0] in READS[command] for name in formats)


def test_a_ray_cluster_that_cannot_start_under_an_address_space_limit_is_said_at_once() -> None:
    pytest.importorskip("ray")
    limit = 3 << 30  # as `ulimit -v 3145728`: enough for gdl, too little for Ray's processes

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))

    argv = ["solve", str(ROOT / "games/nim.kif"), str(ROOT / "games/tictactoe.kif"), "--cluster", "ray"]
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from gdl.cli import main; sys.exit(main(sys.argv[1:]))", *argv],
        capture_output=True, text=True, timeout=120, preexec_fn=limited,
    )
    assert done.returncode == 2, done.stderr
    said = "gdl solve: a local Ray cluster cannot start its processes under an address-space limit of 3072 MB"
    assert said in done.stderr
