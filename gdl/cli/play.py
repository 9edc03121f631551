"""``gdl play GAME --player ROLE=KIND[:option=value,...] ...``: play one match and show every step.

Each step prints the joint move and then the state: fluents like ``(cell x y v)`` are drawn as a grid
(first argument across, second up), the other fluents are listed sorted. Roles without a
``--player`` are played by ``random``. ``-o FILE`` saves the match in the ggp-base format.

In a GDL-II game (one with sees rules) each step prints instead what each player
knows: its move and what it saw (only the human player's view when one person plays, nobody's when
several people share the terminal: each then sees its own view at its turn, after a prompt to hand the
terminal over); ``--reveal`` also prints nature's moves and the true state. Nature gets no ``--player``:
the match draws its moves. The programs playing a GDL-II game run each in a process of its own, out of
reach of the hidden state; ``--in-process`` plays them in gdl's own process, which is faster but unsafe
with programs that are not trusted (they could read the hidden state there).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gdl.cli._common import (
    add_clocks,
    add_command,
    add_engine_option,
    add_in_process,
    add_json_options,
    add_max_steps,
    emit_json,
    load_game,
)
from gdl.errors import PlayerSpecError, UnknownRoleError
from gdl.game import Game, State
from gdl.match import Match, MatchRecord
from gdl.players import PLAYER_KINDS, Player, assign_roles, make_player
from gdl.players.human import HumanPlayer
from gdl.render import render
from gdl.views import plays_with_views


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers, "play", "play a match between programs and/or people",
        f"""Plays one match and prints every step: the joint move, then the state, with boards drawn from
fluents like (cell x y v) (first argument across, second up) and the other fluents listed. Roles
without a --player are played by random. Player kinds: {', '.join(sorted(PLAYER_KINDS))}; a player
takes options as KIND:option=value,... (see the README's table).

Exit status: 0 the match completed, 1 it was aborted, 2 unusable input.""",
        [
            "gdl play games/tictactoe.kif -p xplayer=minimax -p oplayer=mcts:iterations=500 --seed 1",
            "gdl play games/tictactoe.kif -p xplayer=human -p oplayer=minimax",
            "gdl play games/rps.kif -p mcts -p random --play-clock 0.5 -o match.json",
            "gdl play games/nim.kif --json -q",
        ],
    )
    parser.add_argument("game", metavar="GAME", help="GDL file (.kif)")
    parser.add_argument(
        "--player", "-p", action="append", default=[], metavar="[ROLE=]KIND[:option=value,...]",
        help="who plays a role (repeat for each role); without ROLE= the roles are taken in order",
    )
    add_clocks(parser)
    parser.add_argument("--seed", type=int, help="seed for the players and the random moves of faulty ones")
    add_json_options(parser, "the match record (ggp-base JSON)", file_was_json=True)
    add_max_steps(parser)
    parser.add_argument("--quiet", "-q", action="store_true", help="show only the result")
    parser.add_argument(
        "--reveal", action="store_true",
        help="GDL-II: also show nature's moves and the true state, not only what each player knows",
    )
    add_in_process(parser)
    add_engine_option(parser)
    parser.set_defaults(run=run)


def assign_players(game: Game, specs: list[str], seed: int | None) -> dict[str, Player]:
    """Players by role from ``[ROLE=]SPEC`` texts; unnamed roles get the next free role, then random."""
    return {
        role: make_player(spec, None if seed is None else seed + index)
        for index, (role, spec) in enumerate(assign_roles(game, specs).items())
    }


def run(args: argparse.Namespace) -> int:
    game = load_game(args.game, args.engine, "play")
    if game is None:
        return 2
    quiet = args.quiet or args.json
    seen: list[MatchRecord] = []  # the record so far, for Ctrl-C

    def on_step(record: MatchRecord) -> None:
        seen[:] = [record]
        if not quiet:
            show_step(record, reveal=args.reveal)

    try:
        players = assign_players(game, args.player, args.seed)
        humans = [p for p in players.values() if isinstance(p, HumanPlayer)]
        if plays_with_views(game) and len(humans) > 1:  # people sharing the terminal take turns at it
            for human in humans:
                human.hand_over = True
        match = Match(
            game, players, args.start_clock, args.play_clock, seed=args.seed,
            max_steps=args.max_steps, on_step=on_step, isolate=False if args.in_process else None,
        )
    except (PlayerSpecError, UnknownRoleError, ValueError) as problem:
        print(f"gdl play: {problem}", file=sys.stderr)
        return 2
    shown = ", ".join(f"{game.spell(role)} = {player.name}" for role, player in players.items())
    if not args.json:
        print(f"{game.name}: {shown} (play clock {args.play_clock:g} s)", flush=True)
    try:
        record = match.run()
    except KeyboardInterrupt:
        step = len(seen[0].moves) + 1 if seen else 0
        print(f"gdl play: interrupted at step {step}" if step else "gdl play: interrupted at the start",
              file=sys.stderr)
        return 130
    if not args.json:
        print_result(record)
    if not emit_json(args, record.to_json, "play"):
        return 2
    return 0 if record.completed else 1


def print_result(record: MatchRecord) -> None:
    """The goals (or why the match was aborted) and the errors each player made."""
    if record.completed:
        goals = ", ".join(f"{record.spell(role)} {value}" for role, value in record.goals.items())
        print(f"\ngoals: {goals}")
    else:
        print(f"aborted: {record.abort_reason}")
    errors = {role: record.error_count(role) for role in record.states[0].game.players}
    if any(errors.values()):
        print("errors: " + ", ".join(f"{record.spell(role)} {count}" for role, count in errors.items()))


def show_step(record: MatchRecord, *, reveal: bool = True, shown: Sequence[str] | None = None) -> None:
    """Print the last step of ``record``: its joint move and errors, then the state reached. In a GDL-II
    game, what the ``shown`` players know (by default: the human player's view when one person plays,
    nobody's when several do, every player's when none does), and the rest only if ``reveal``."""
    game = record.states[0].game
    if plays_with_views(game):
        if shown is None:
            humans = [role for role in game.players if role in record.humans]
            shown = [] if len(humans) > 1 else humans or list(game.players)
        _show_views(record, reveal, shown)
        return
    if record.moves:
        step = len(record.moves)
        joint = "; ".join(f"{record.spell(role)} {move}" for role, move in record.moves[-1].items())
        print(f"\nstep {step}: {joint}")
        for role, error in record.errors[-1].items():
            if error:
                print(f"  ! {record.spell(role)}: {error} (a random legal move was played)")
        for role, info in record.infos[-1].items():
            if info:
                shown = ", ".join(f"{key} {value}" for key, value in info.items())
                print(f"  ({record.spell(role)} {record.players[role]}: {shown})")
    else:
        for role, error in record.start_errors.items():
            if error:
                print(f"  ! {record.spell(role)} at the start: {error}")
        print("\ninitial state")
    print(render(record.states[-1]))
    repeated = _first_repeat(record)
    if repeated is not None and repeated[1] == len(record.states) - 1:
        print(
            f"note: step {repeated[1]} is back in the state of step {repeated[0]}: the game may never end "
            f"(the match is aborted after --max-steps steps)"
        )
    sys.stdout.flush()


def _show_views(record: MatchRecord, reveal: bool, shown: Sequence[str]) -> None:
    """A GDL-II step: each shown player's move and percepts; nature's moves and the state if ``reveal``."""
    if record.moves:
        print(f"\nstep {len(record.moves)}:")
        for role in shown:
            seen = " ".join(record.percepts[-1][role]) or "nothing"
            print(f"  {role} played {record.moves[-1][role]}, saw {seen}")
        for role, error in record.errors[-1].items():
            if error and (reveal or role in shown):
                print(f"  ! {role}: {error} (a random legal move was played)")
        for role, info in record.infos[-1].items():
            if info and role in shown:
                print(f"  ({role} {record.players[role]}: {', '.join(f'{k} {v}' for k, v in info.items())})")
        if reveal:
            hidden = [f"{role} {move}" for role, move in record.moves[-1].items() if role not in shown]
            if hidden:
                print("  (revealed) " + "; ".join(hidden))
    else:
        for role, error in record.start_errors.items():
            if error:
                print(f"  ! {role} at the start: {error}")
        print("\nthe match begins; each player sees only its own moves and percepts")
    if reveal:
        print(render(record.states[-1]))
    sys.stdout.flush()


def _first_repeat(record: MatchRecord) -> tuple[int, int] | None:
    """The first step whose state was seen before, and that earlier step, or None."""
    seen: dict[State, int] = {}
    for step, state in enumerate(record.states):
        if state in seen:
            return seen[state], step
        seen[state] = step
    return None

