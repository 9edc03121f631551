"""The extensive-form loaders are linear in their input, and every bad file is a clear error (exit 2):
long chains and cycles, numbers no float holds, control characters in names."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gdl.bandits.game import bandits_game
from gdl.bandits.maze import read_maze
from gdl.cli import main
from gdl.errors import EfgError, GameTooLargeError, JsonGameError
from gdl.extensive import ExtensiveGame, Terminal
from gdl.extensive.gambit import read_efg
from gdl.extensive.jsonformat import parse_json_game


def json_chain(length: int, back: bool = False) -> str:
    """States s0 -> s1 -> ... -> s<length>, each in its own information set; with ``back``, each also
    leads back to s0, closing ``length`` cycles along one path."""
    states: list[dict[str, Any]] = [
        {
            "name": f"s{i}", "player": 1 + i % 2, "knowledge": f"k{i}",
            "actions": [{"on": f"s{i + 1}"}, *([{"back": "s0"}] if back else [])],
        }
        for i in range(length)
    ]
    states.append({"name": f"s{length}", "result": 1})
    return json.dumps({"start": "s0", "states": states})


def efg_chain(length: int) -> str:
    nodes = [f'p "" {1 + i % 2} {i + 1} "" {{ "on" }} 0' for i in range(length)]
    return "\n".join(['EFG 2 R "chain" { "1" "2" }', '""', *nodes, 't "" 1 "" { 1, -1 }']) + "\n"


def peak_bytes(load: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        load()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "load",
    [lambda: parse_json_game(json_chain(4000)), lambda: read_efg(efg_chain(4000))],
    ids=["json", "efg"],
)
def test_a_chain_loads_in_memory_linear_in_its_length(load: Callable[[], ExtensiveGame]) -> None:
    game = load()
    assert game.sizes["decision"] == 4000
    # Copying the path at each node (histories, players' pasts) took 4000 ** 2 / 2 entries: 100+ MB.
    assert peak_bytes(load) < 40_000_000


def test_the_cycles_of_a_long_path_are_named_briefly() -> None:
    with pytest.raises(JsonGameError) as raised:
        parse_json_game(json_chain(300, back=True))
    cycles = [problem.message for problem in raised.value.problems if "closes a cycle" in problem.message]
    assert len(cycles) == 300
    last = next(message for message in cycles if "of state 's299'" in message)
    assert "'s0' -> 's1'" in last and "'s299' -> 's0'" in last and "(292 more)" in last
    assert max(map(len, cycles)) < 200


@pytest.mark.parametrize(
    ("result", "complaint"),
    [
        ("Infinity", "Infinity is not a number JSON has"),
        ("-Infinity", "-Infinity is not a number JSON has"),
        ("NaN", "NaN is not a number JSON has"),
        ("1e400", "is not from"),
        ("1" + "0" * 30, "is not from"),
    ],
)
def test_json_results_that_are_no_finite_number_are_refused(result: str, complaint: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        '{"start": "a", "states": [{"name": "a", "player": 1, "knowledge": "", "actions": [{"x": "b"}, '
        f'{{"y": "c"}}]}}, {{"name": "b", "result": {result}}}, {{"name": "c", "result": 1}}]}}'
    )
    with pytest.raises(JsonGameError, match=complaint):
        parse_json_game(text)
    path = tmp_path / "game.json"
    path.write_text(text)
    assert main(["solve", str(path)]) == 2
    assert complaint in capsys.readouterr().err


@pytest.mark.parametrize("payoff", ["1e400", "-1e400", "1" + "0" * 30, "10000000000000000000000/3"])
def test_efg_payoffs_no_float_holds_are_refused(payoff: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        f'EFG 2 R "" {{ "1" "2" }}\n""\np "" 1 1 "" {{ "a" "b" }} 0\n'
        f't "" 1 "" {{ {payoff}, 1 }}\nt "" 2 "" {{ 1, -1 }}\n'
    )
    with pytest.raises(EfgError, match="out of range"):
        read_efg(text)
    path = tmp_path / "game.efg"
    path.write_text(text)
    assert main(["solve", str(path)]) == 2
    assert "4:13: error: a payoff" in capsys.readouterr().err


ESCAPE = "\x1b[2J"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("label.json", json.dumps({"start": "a", "states": [
            {"name": "a", "player": 1, "knowledge": "", "actions": [{f"x{ESCAPE}": "b"}, {"y": "c"}]},
            {"name": "b", "result": 1}, {"name": "c", "result": -1}]})),
        ("knowledge.json", json.dumps({"start": "a", "states": [
            {"name": "a", "player": 1, "knowledge": f"k{ESCAPE}", "actions": [{"x": "b"}]},
            {"name": "b", "result": 1}]})),
        ("title.json", json.dumps({"name": f"t{ESCAPE}", "start": "a", "states": [
            {"name": "a", "result": 1}]})),
        ("label.efg", f'EFG 2 R "" {{ "1" "2" }}\n""\np "" 1 1 "" {{ "a{ESCAPE}" "b" }} 0\n'
                      't "" 1 "" { 1, -1 }\nt "" 2 "" { -1, 1 }\n'),
        ("infoset.efg", f'EFG 2 R "" {{ "1" "2" }}\n""\np "" 1 1 "i{ESCAPE}" {{ "a" "b" }} 0\n'
                        't "" 1 "" { 1, -1 }\nt "" 2 "" { -1, 1 }\n'),
        ("player.efg", f'EFG 2 R "" {{ "1{ESCAPE}" "2" }}\n""\np "" 1 1 "" {{ "a" "b" }} 0\n'
                       't "" 1 "" { 1, -1 }\nt "" 2 "" { -1, 1 }\n'),
    ],
)
def test_control_characters_in_names_never_reach_the_terminal(
    name: str, text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    path.write_text(text)
    for argv in (["solve", str(path)], ["convert", str(path), str(tmp_path / "out.efg")]):
        status = main(argv)
        captured = capsys.readouterr()
        assert "\x1b" not in captured.out + captured.err
        assert status == 2 and "control character" in captured.err


@pytest.mark.slow
def test_the_attack_files_load_within_a_memory_limit(tmp_path: Path) -> None:
    # A 2 MB JSON game of 20,000 cycles took 2.3 GB; a JSON chain of 100,000 states and an .efg chain of
    # 60,000 nodes ended in MemoryError. Each command runs in a process limited to 2 GB.
    files = {"cycles.json": json_chain(20_000, back=True), "chain.json": json_chain(100_000),
             "chain.efg": efg_chain(60_000)}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        out = tmp_path / f"out-{name}.efg"
        status, err = _gdl("convert", str(tmp_path / name), str(out))
        if name == "cycles.json":
            assert status == 2 and "closes a cycle" in err, err[-500:]
        else:
            assert status == 0 and out.stat().st_size > 0, err[-500:]


def _gdl(*argv: str) -> tuple[int, str]:
    """Exit status and standard error of a gdl command run in a process limited to 2 GB."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from gdl.cli import main; sys.exit(main(sys.argv[1:]))", *argv],
        capture_output=True, text=True, timeout=900, preexec_fn=_limited,
    )
    return done.returncode, done.stderr


def test_a_maze_of_many_placements_is_refused_before_they_are_listed() -> None:
    # 23 dangerous places and 6 bandits: 100,947 placements, each a node at least.
    maze = read_maze("5\n5\nSEEEE\nEEEEE\nEEEEE\nEEEEE\nEEEED\n6\n0.5\n")
    tracemalloc.start()
    try:
        with pytest.raises(GameTooLargeError, match="more than 1000 nodes"):
            bandits_game(maze, max_nodes=1000)
        assert tracemalloc.get_traced_memory()[1] < 5_000_000
    finally:
        tracemalloc.stop()


def test_a_path_deeper_than_pythons_recursion_is_built() -> None:
    # A corridor of 1,500 squares: the agent walks it to the one bandit, who attacks with p = 1/2.
    maze = read_maze("1\n1500\nS" + "-" * 1497 + "ED\n1\n1/2\n")
    game = bandits_game(maze).game
    assert game.sizes == {"decision": 1500, "chance": 1, "terminal": 2}
    assert {node.payoffs for node in game.nodes() if isinstance(node, Terminal)} == {
        (("agent", 0), ("attacker", 0)), (("agent", 10), ("attacker", -10))
    }


@pytest.mark.slow
def test_the_attack_mazes_are_refused_with_exit_2(tmp_path: Path) -> None:
    # A 39-byte maze of 1.35 million placements (2.47 GB), an open 100 x 100 maze (RecursionError).
    mazes = {
        "many.txt": "5\n5\nSEEEE\nEEEEE\nEEEEE\nEEEEE\nEEEED\n11\n.5\n",
        "open.txt": "100\n100\nS" + "-" * 98 + "E\n" + ("-" * 100 + "\n") * 98 + "-" * 99 + "D\n1\n0.5\n",
    }
    for name, text in mazes.items():
        (tmp_path / name).write_text(text)
        status, err = _gdl("bandits", str(tmp_path / name))
        assert status == 2 and "more than 1000000 nodes" in err, err


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
