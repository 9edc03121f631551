"""A verdict of ``gdl check --dynamic`` is proven or says it is not: a budget too small to decide a
required property makes the game "undecided" (exit status 1), never "well-formed".

Each game is checked with a budget of 100 states and ``--require all``, and compared with a larger
exploration of the same game: every decided verdict of the small budget must agree with it, every
undecided one must be listed, and "well-formed" may only be said when the larger exploration proves it.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import gdl
from gdl.cli import main
from gdl.cli.progress import Progress as ProgressLine
from gdl.wellformed import PROPERTIES, Progress, analyse

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
BUDGET = ["--max-states", "100", "--require", "all"]


def agrees(small: dict[str, Any], status: int, large: dict[str, Any]) -> None:
    """``small`` (the JSON of ``gdl check --dynamic --max-states 100 --require all``, which exited with
    ``status``) is honest next to ``large``, a complete exploration's report of the same game."""
    assert large["complete"]
    for name in PROPERTIES:
        assert small[name] in (None, large[name]), name
    assert small["undecided"] == [name for name in PROPERTIES if small[name] is None]
    assert small["violations"] == [name for name in PROPERTIES if small[name] is False]
    proven = all(large[name] is True for name in PROPERTIES)
    if small["well_formed"] is True:
        assert proven
    assert small["well_formed"] == (False if small["violations"] else None if small["undecided"] else True)
    assert status == (0 if small["well_formed"] else 1)


def test_tictactoe_with_a_small_budget_is_undecided(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--dynamic", str(GAMES / "tictactoe.kif"), *BUDGET]) == 1
    out = capsys.readouterr().out
    assert ": well-formed" not in out
    assert "tictactoe: undecided (required: terminating, playable, goals defined, monotonic, weakly" in out
    assert (
        "not decided (the budget ran out): terminating, playable, goals defined, monotonic, strongly winnable"
        in out
    )
    assert main(["check", "--dynamic", "--json", str(GAMES / "tictactoe.kif"), *BUDGET]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["well_formed"] is None and data["violations"] == []
    assert data["undecided"] == ["terminating", "playable", "goals_defined", "monotonic", "strongly_winnable"]


def test_tictactoe_is_proven_not_strongly_winnable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--dynamic", "--json", "--require", "all", str(GAMES / "tictactoe.kif")]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["well_formed"] is False and data["violations"] == ["strongly_winnable"]
    assert data["undecided"] == []
    (example,) = data["counterexamples"]
    assert example["property"] == "strongly_winnable" and example["moves"]
    # The default policy does not require strong winnability of a game of two: proven well-formed.
    assert main(["check", "--dynamic", str(GAMES / "tictactoe.kif")]) == 0
    assert "tictactoe: well-formed (required: " in capsys.readouterr().out


def test_ctrl_c_leaves_the_required_properties_undecided(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupt(self: ProgressLine, progress: Progress) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ProgressLine, "explored", interrupt)
    assert main(["check", "--dynamic", str(GAMES / "tictactoe.kif")]) == 130
    out = capsys.readouterr().out
    assert ": well-formed" not in out
    assert "tictactoe: undecided (required: " in out and "not decided (interrupted): terminating" in out
    assert main(["check", "--dynamic", "--json", str(GAMES / "tictactoe.kif")]) == 130
    data = json.loads(capsys.readouterr().out)
    assert data["interrupted"] is True and data["well_formed"] is None and "playable" in data["undecided"]


def test_every_bundled_game_with_a_small_budget_is_honest(capsys: pytest.CaptureFixture[str]) -> None:
    compared = []
    for path in sorted(GAMES.glob("*.kif")):
        large = analyse(gdl.load(path), max_states=20_000, seconds=60)
        if not large.complete:  # kriegtictactoe: too large to prove anything universal
            continue
        status = main(["check", "--dynamic", "--json", str(path), *BUDGET])
        agrees(json.loads(capsys.readouterr().out), status, large.to_json())
        compared.append(path.stem)
    assert compared == [
        "buttons", "dice", "goofspiel", "kuhn", "leduc", "montyhall", "nim", "rps", "spoof", "tictactoe"
    ]


#: One corpus game in a process of its own: the JSON ``gdl check --dynamic --json --max-states 100
#: --require all --time-limit 4`` prints for it and its policy line and exit status (the game loaded
#: once for both explorations), and a larger exploration's report (null when that one is not complete).
_CHILD = """
import json, sys
import gdl
from gdl.cli._dynamic import policy_line, record_report
from gdl.wellformed import PROPERTIES, analyse
game = gdl.load(sys.argv[1])
small, result = analyse(game, max_states=100, seconds=4), {}
status = record_report(small, PROPERTIES, result, as_json=True)
large = analyse(game, max_states=20_000, seconds=5)
print(json.dumps({"small": result, "status": status, "line": policy_line(small, PROPERTIES),
                  "large": large.to_json() if large.complete else None}))
"""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _check_in_a_process(path: Path) -> dict[str, Any] | None:
    """The child's findings on one game, or None when the game cannot be checked (too large, a
    reasoner that runs out of memory or time): those are counted, not compared."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, timeout=120,
            preexec_fn=_limit_memory,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0 or not done.stdout.strip():
        return None
    found: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return found


@pytest.mark.slow
def test_no_corpus_game_is_called_well_formed_without_proof(corpus: Path) -> None:
    games = sorted((corpus / "games").glob("*.kif"))
    assert len(games) == 183
    compared, undecided, unchecked = [], [], []
    for path in games:
        found = _check_in_a_process(path)
        if found is None:
            unchecked.append(path.stem)
            continue
        small, status = found["small"], found["status"]
        assert small["well_formed"] is not True or all(small[p] is True for p in PROPERTIES), path.stem
        assert (": well-formed" in found["line"]) == (small["well_formed"] is True), found["line"]
        print(path.stem, small["well_formed"], small["undecided"], found["large"] is not None, flush=True)
        if small["well_formed"] is None:
            undecided.append(path.stem)
        if found["large"] is not None:
            agrees(small, status, found["large"])
            compared.append(path.stem)
    print(f"{len(compared)} compared with a complete exploration, {len(undecided)} undecided, "
          f"{len(unchecked)} not checked: {', '.join(unchecked)}")
    assert "tictactoe" in compared and "connectfour" in undecided
    assert len(compared) >= 40 and len(unchecked) <= 10


def test_the_library_leaves_the_terminal_to_the_command_line() -> None:
    code = "import sys, gdl.wellformed; print(sorted(m for m in sys.modules if m.startswith('gdl.cli')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    from gdl.cli import _dynamic

    with pytest.deprecated_call():
        from gdl.wellformed import check_files  # type: ignore[attr-defined]
    assert check_files is _dynamic.check_files
