"""``gdl bench``: one RESULT line with consistent figures."""

from __future__ import annotations

import re

import pytest

from gdl.cli import main


@pytest.mark.parametrize("per_playout", [False, True])
@pytest.mark.parametrize("engine", ["datalog", "compiled"])
def test_bench_prints_one_result_line(
    capsys: pytest.CaptureFixture[str], engine: str, per_playout: bool
) -> None:
    # The Datalog evaluator plays through the reasoner protocol, the compiled engine in native code: in
    # chunks of playouts per call, or one call per playout.
    arguments = ["bench", "games/tictactoe.kif", "--time-limit", "0.3", "--seed", "1", "--engine", engine]
    arguments += ["--per-playout"] if per_playout else []
    assert main(arguments) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    found = re.fullmatch(
        r"RESULT reasoner=gdl game=tictactoe playouts=(\d+) secs=([\d.]+) cpu_secs=([\d.]+) "
        r"playouts_per_cpu_s=([\d.]+) states_per_cpu_s=([\d.]+) avg_depth=([\d.]+) engine=" + engine,
        lines[0],
    )
    assert found is not None, lines[0]
    playouts, secs, cpu, per_cpu, states_per_cpu, depth = map(float, found.groups())
    # The time limit holds: a chunk takes about 0.01 s (a busy machine may stretch the wall clock).
    assert playouts >= 1 and 0.3 <= secs < 1
    # A game of tic-tac-toe lasts 5 to 9 moves.
    assert 5 <= depth <= 9
    # cpu_secs is printed to 0.01 s.
    assert playouts / (cpu + 0.005) <= per_cpu * 1.001
    assert per_cpu <= playouts / max(cpu - 0.005, 1e-9) * 1.001
    assert states_per_cpu == pytest.approx(per_cpu * (depth + 1), rel=0.05)


def test_bench_names_the_engine_auto_chose(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "games/tictactoe.kif", "--time-limit", "0.1"]) == 0
    assert capsys.readouterr().out.rstrip().endswith(" engine=compiled")


def test_bench_reports_a_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "games/no-such-game.kif", "--time-limit", "0.1"]) == 2
    assert "no-such-game.kif" in capsys.readouterr().err
