"""What a player makes of each state of a recorded match: replays a record that ``strength.py`` keeps
(ggp-base's JSON, ``--records``) and, at every state where gdl's seat chooses, asks a fresh search for
its move and value, so that one sees when a lost match was lost::

    taskset -c 0 .venv/bin/python tests/tools/replay.py ../shared/corpus/games/breakthrough.kif \\
        RECORDS/breakthrough-1.json --player uct:ponder=0 --clock 3

gdl's seat is the host name without a trailing slash (as ``strength.py`` writes them), or ``--seat``.
Prints a line per state: the ply, the move the record has, the player's move, its value and whether
it is proven.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import gdl
from gdl.players import make_player


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("game", type=Path)
    parser.add_argument("record", type=Path)
    parser.add_argument("--player", default="uct:ponder=0", help="the player asked (default: uct:ponder=0)")
    parser.add_argument("--clock", type=float, default=3.0, help="seconds a state (default 3)")
    parser.add_argument("--seat", type=int, help="the seat replayed (default: gdl's in the record)")
    args = parser.parse_args(argv)
    game = gdl.load(args.game)
    record = json.loads(args.record.read_text())
    names = record["playerNamesFromHost"]
    ours = [i for i, name in enumerate(names) if not name.endswith("/")]
    seat = args.seat if args.seat is not None else ours[0]
    role = game.roles[seat]
    player = make_player(args.player, 1)
    player.start(game, role, 10, args.clock)
    state = game.initial_state()
    for ply, moves in enumerate(record["moves"]):
        if len(list(state.legal_moves(role))) > 1:
            move = player.play(state, time.monotonic() + args.clock)
            info = player.info()
            proven = " proven" if info.get("proven") else ""
            value = info.get("value")
            print(f"{ply}: played {moves[seat]}, {args.player} {move} at {value}{proven}", flush=True)
        state = state.next(dict(zip(game.roles, moves, strict=True)))
    print(f"goals: {record['goalValues']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
