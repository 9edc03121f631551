"""The harness that runs ggp-base's prover (built outside the repository) beside the Datalog engine."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent / "tools" / "bench_ggpbase.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_ggpbase", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_ggpbase"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_an_absent_reference_is_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--classpath", str(tmp_path / "no-such-build"), "tictactoe"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "no-such-build" in done.stderr
    assert "docs/performance.md" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_class_path_without_the_harness_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _script()
    if bench.shutil.which("java") is None:
        assert bench.main(["--classpath", str(tmp_path), "tictactoe"]) == 2
        assert "no java executable" in capsys.readouterr().err
        return
    assert bench.main(["--classpath", str(tmp_path), "tictactoe"]) == 2
    assert "ProverBench" in capsys.readouterr().err


def test_the_table_gives_medians_runs_and_the_ratio() -> None:
    bench = _script()
    rows = [
        bench.Row("chess", prover=[16.0, 18.0, 15.0], datalog=[30.0, 40.0, 35.0], prover_process=[9.0, 8.0]),
        bench.Row("amazons", prover=[2.0], failures={"datalog": "timed out after 240 s"}),
    ]
    lines = bench.table(rows).splitlines()
    assert lines[2] == "| chess | 16 (16, 18, 15) | 8.5 | 35 (30, 40, 35) | 2.19 |  |"
    assert lines[3] == "| amazons | 2 (2) |  | timed out after 240 s |  |  |"
    assert bench.Row("nim1", prover=[12345.0], datalog=[6172.5]).cells()[1:] == [
        "12,345 (12,345)", "", "6,172 (6,172)", "0.50", "",
    ]


def test_the_table_shows_each_systems_playout_length() -> None:
    """Where the two reasoners' playouts differ much in length, they do not play the same game."""
    bench = _script()
    row = bench.Row("linesofaction")
    for prover, datalog in ((12.0, 50.0), (14.0, 48.0), (13.0, 52.5)):
        row.add("prover", {"states_per_cpu_s": 100.0, "avg_depth": prover}, None)
        row.add("datalog", {"states_per_cpu_s": 200.0, "avg_depth": datalog}, None)
    row.add("prover", {"states_per_cpu_s": 3.0, "avg_depth": None}, None)  # no playout finished
    assert row.cells()[-1] == "13.0 / 50.0"
    assert bench.Row("x", prover=[1.0], datalog=[1.0]).cells()[-1] == ""


def test_a_failed_run_says_its_exception() -> None:
    bench = _script()
    stderr = 'Exception in thread "main" There are no legal moves\n\tat ProverBench.main(ProverBench.java)\n'
    assert bench._why(stderr, 1) == 'Exception in thread "main" There are no legal moves'
    assert bench._why("", 3) == "exit status 3"


def test_both_json_shapes_are_read() -> None:
    bench = _script()
    indented = 'warming up\n{\n  "states_per_cpu_s": 26646.2,\n  "engine": "datalog"\n}\n'
    assert bench._last_json(indented)["states_per_cpu_s"] == 26646.2
    assert bench._last_json('{"states_per_cpu_s": 16.4, "engine": "prover"}\n')["engine"] == "prover"
    with pytest.raises(ValueError):
        bench._last_json("Exception in thread main\n")


def test_the_corpus_is_every_game_and_gdl2_is_marked(tmp_path: Path) -> None:
    bench = _script()
    for name in ("b", "a", "c", "d"):
        (tmp_path / f"{name}.kif").write_text("(role r)\n", encoding="utf-8")
    assert bench.corpus_games(tmp_path) == ["a", "b", "c", "d"]
    assert bench.gdl2_games(tmp_path) == set()  # no index: nothing known to be GDL-II
    (tmp_path / "INDEX.tsv").write_text(
        "file\tbytes\tgdl2\nb.kif\t1\t-\na.kif\t1\t-\nc.kif\t1\tsees\nd.kif\t1\trandom sees\n",
        encoding="utf-8",
    )
    assert bench.corpus_games(tmp_path) == ["a", "b", "c", "d"]
    assert bench.gdl2_games(tmp_path) == {"c", "d"}
    rows = [bench.Row("a", prover=[1.0], datalog=[2.0]), bench.Row("c", prover=[4.0], datalog=[2.0])]
    lines = bench.table(rows, bench.gdl2_games(tmp_path)).splitlines()
    assert lines[2].startswith("| a | ")
    assert lines[3] == "| c (GDL-II) | 4 (4) |  | 2 (2) | 0.50 |  |"


def test_the_summary_counts_faster_slower_and_missing() -> None:
    bench = _script()
    rows = [
        bench.Row("even", prover=[10.0], datalog=[10.0]),  # as fast counts as at least as fast
        bench.Row("fast", prover=[10.0, 12.0, 11.0], datalog=[30.0, 10.0, 40.0]),
        bench.Row("slow", prover=[100.0], datalog=[7.0]),
        bench.Row("stuck", datalog=[5.0], failures={"prover": "timed out after 30 s"}),
        bench.Row("lost", failures={"prover": "timed out after 30 s", "datalog": "failed: boom"}),
    ]
    assert bench.summary(rows).splitlines() == [
        "5 games: the Datalog engine at least as fast as the prover on 2, slower on 1, no ratio on 2",
        "slower: slow (0.07)",
        "no ratio: stuck (no figure: prover), lost (no figure: prover and datalog)",
    ]
    assert bench.below(rows, 2.0) == ["even", "slow", "stuck", "lost"]
    assert bench.below(rows, 1.0) == ["slow", "stuck", "lost"]


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def _record(game: str, system: str, figure: float | None) -> dict[str, object]:
    result = None if figure is None else {"states_per_cpu_s": figure}
    return {"game": game, "system": system, "result": result,
            "failure": "timed out after 30 s" if figure is None else None}


def test_a_second_pass_replaces_the_first_per_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _script()
    first = _write(tmp_path / "first.jsonl", [
        _record("a", "prover", 10.0), _record("a", "datalog", 15.0),
        _record("b", "prover", 10.0), _record("b", "datalog", 50.0),
        _record("c", "prover", None), _record("c", "datalog", 3.0),
    ])
    second = _write(tmp_path / "second.jsonl", [
        *(_record("a", "prover", figure) for figure in (10.0, 12.0, 11.0)),
        *(_record("a", "datalog", figure) for figure in (9.0, 30.0, 33.0)),
        _record("c", "prover", 2.0), _record("c", "datalog", 3.0),
    ])
    rows = bench.rows_of(first, second)
    assert [row.game for row in rows] == ["a", "b", "c"]  # in the order first measured
    assert rows[0].prover == [10.0, 12.0, 11.0] and rows[0].datalog == [9.0, 30.0, 33.0]
    assert rows[1].ratio() == 5.0
    assert rows[2].failures == {} and rows[2].ratio() == 1.5  # the first pass's timeout is gone
    assert bench.measured(first, second) == {"a", "b", "c"}
    assert bench.main(["--table", "--jsonl", str(first), "--below", "2"]) == 0
    assert capsys.readouterr().out.split() == ["a", "c"]
    assert bench.main(["--table", "--jsonl", str(first), "--jsonl", str(second)]) == 0
    out = capsys.readouterr().out
    assert "| a | 11 (10, 12, 11) |  | 30 (9, 30, 33) | 2.73 |  |" in out
    counts = "3 games: the Datalog engine at least as fast as the prover on 3, slower on 0, no ratio on 0\n"
    assert counts in out
    assert bench.main(["--table", "--jsonl", str(first), "--jsonl", str(tmp_path / "absent.jsonl")]) == 2
    assert "absent.jsonl" in capsys.readouterr().err


def test_a_sweep_resumes_and_tabulates_from_its_measurements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _script()
    jsonl = tmp_path / "sweep.jsonl"
    records = [
        {"game": "chess", "system": "prover", "result": {"states_per_cpu_s": 16.0}, "failure": None},
        {"game": "chess", "system": "datalog", "result": {"states_per_cpu_s": 32.0}, "failure": None},
        {"game": "amazons", "system": "prover", "result": None, "failure": "timed out after 45 s"},
        {"game": "amazons", "system": "datalog", "result": None, "failure": "timed out after 45 s"},
        {"game": "racer", "system": "prover", "result": {"states_per_cpu_s": 3.0}, "failure": None},
    ]
    jsonl.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    assert bench.measured(jsonl) == {"chess", "amazons"}  # racer was stopped before its Datalog run
    assert bench.main(["--table", "--jsonl", str(jsonl)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == "| chess | 16 (16) |  | 32 (32) | 2.00 |  |"
    assert lines[3] == "| amazons | timed out after 45 s |  | timed out after 45 s |  |  |"
    assert bench.main(["--table", "--jsonl", str(tmp_path / "none.jsonl")]) == 2
    assert bench.main(["--table"]) == 2


#: Nature draws one of three cards, the player always guesses ``a`` and sees whether it was right.
GUESS = """
    (role player) (role random)
    (card a) (card b) (card c)
    (init (round 0))
    (<= (legal random (draw ?c)) (true (round 0)) (card ?c))
    (<= (legal player wait) (true (round 0)))
    (<= (legal random noop) (true (drawn ?c)))
    (<= (legal player (guess a)) (true (drawn ?x)))
    (<= (next (drawn ?c)) (does random (draw ?c)))
    (<= (next (guessed ?c)) (does player (guess ?c)))
    (<= (next (hidden ?c)) (true (drawn ?c)))
    (<= (sees player right) (does player (guess ?c)) (true (drawn ?c)))
    (<= terminal (true (guessed ?c)))
    (<= (goal player 100) (true (guessed ?c)) (true (hidden ?c)))
    (<= (goal player 0) (true (guessed ?c)) (not (true (hidden ?c))))
"""


def test_the_datalog_depth_charge_on_gdl2_draws_uniformly_and_never_asks_sees() -> None:
    """What ``gdl bench --engine datalog`` does on a GDL-II game is what the prover does: nature is a role
    picking uniformly among its legal moves, and no ``sees`` is evaluated."""
    import random

    from gdl.check import check_text
    from gdl.engines import make_reasoner
    from gdl.engines.base import depth_charges

    checked = check_text(GUESS, "guess.kif").checked
    assert checked is not None
    reasoner = make_reasoner(checked, "datalog")
    assert [str(role) for role in reasoner.roles] == ["player", "random"]
    assert len(reasoner.legal(reasoner.initial(), 1)) == 3
    charges = depth_charges(reasoner, reasoner.initial(), 3000, random.Random(7), 10)
    assert charges.playouts == charges.terminal == 3000 and charges.moves == 6000
    # The guess is right a third of the time when nature draws uniformly (the mean goal's standard
    # deviation over 3000 charges is 0.86; the bounds are 6 of them).
    mean = charges.mean_goal(0)
    assert mean is not None and 100 / 3 - 5.2 < mean < 100 / 3 + 5.2
    assert charges.goal_counts[1] == 0  # nature has no goal: counted as undefined, as the prover does
    assert reasoner._strata.sees_runner is None  # type: ignore[attr-defined]


@pytest.mark.slow
def test_the_reference_plays_the_gdl2_corpus_games() -> None:
    """The JVM harness accepts ``random`` as a role and the ``sees`` rules (set GGPBASE_CLASSPATH to the
    built reference's class path to run it)."""
    import os

    bench = _script()
    classpath = os.environ.get("GGPBASE_CLASSPATH")
    if not classpath:
        pytest.skip("GGPBASE_CLASSPATH (the built reference, see docs/performance.md) is not set")
    games = [bench.CORPUS / f"{name}.kif" for name in ("montyhall", "pennies", "latenttictactoe")]
    if not all(game.exists() for game in games):
        pytest.skip("the corpus is not here")
    for game in games:
        result, failure = bench.measure(bench.reference_command("java", classpath, game, 0.3, 0.0), 120)
        assert failure is None, failure
        assert result is not None and float(str(result["states_per_cpu_s"])) > 0
        assert int(str(result["playouts"])) > 0 and int(str(result["stuck_playouts"])) == 0
