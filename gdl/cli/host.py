"""``gdl host GAME --player ROLE=URL ...``: be the game manager of a match between GGP players.

Each role is played by a player server at a URL (``http://host:port``, e.g. one started with
``gdl serve``) or by a local player (``ROLE=KIND[:option=value,...]``). The manager sends START, one
PLAY per step and STOP (ABORT if the match is aborted); a late, failed or illegal reply is replaced by
a random legal move and recorded as an error. ``-o FILE`` saves the match in the ggp-base format.

Nature, the role ``random``, gets no ``--player``: its moves are drawn by the manager (``--seed``). A
GDL-II game (one with ``sees`` rules) is played as the Dresden GameController plays it: each player is
sent only its own last move and its percepts, and the host shows only what is public (the steps and
the goals at the end); ``--reveal`` shows every move, every player's percepts and the true state.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial

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
from gdl.cli.play import show_step
from gdl.cli.serve import configure_logging
from gdl.cli.view import MatchViewer, add_view_option
from gdl.errors import HintsError, PlayerSpecError, UnknownRoleError, ViewerError
from gdl.game import Game
from gdl.match import MatchRecord
from gdl.players import assign_roles
from gdl.protocol.manager import GRACE, host


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers, "host", "host a match between GGP players over HTTP",
        """Be the game manager of one match. Each role is played by a player server at a URL
(http://host:port, e.g. one started with gdl serve) or by a local player (ROLE=KIND[:option=value,...]).
The manager sends START, one PLAY per step and STOP (ABORT if the match is aborted); a late, failed or
illegal reply is replaced by a random legal move and recorded as an error.

Exit status: 0 the match completed, 1 it was aborted, 2 unusable input.""",
        [
            "gdl host games/tictactoe.kif -p xplayer=http://localhost:9147 -p oplayer=mcts",
            "gdl host games/nim.kif -p first=legal -p second=random --play-clock 2 -o match.json",
        ],
    )
    parser.add_argument("game", metavar="GAME", help="GDL file (.kif)")
    parser.add_argument(
        "--player", "-p", action="append", default=[], metavar="[ROLE=]URL|KIND[:option=value,...]",
        help="who plays a role: a player server's URL or a local player kind (repeat for each role); "
        "without ROLE= the roles are taken in order, roles without one are played by random",
    )
    add_clocks(parser)
    parser.add_argument(
        "--grace", type=float, default=GRACE,
        help=f"seconds a reply may be late, for the network (default {GRACE})",
    )
    add_max_steps(parser)
    parser.add_argument("--seed", type=int, help="seed for local players and the random replacement moves")
    add_json_options(parser, "the match record (ggp-base JSON)", file_was_json=True)
    parser.add_argument("--quiet", "-q", action="store_true", help="show only the result")
    parser.add_argument("--verbose", "-v", action="store_true", help="log every message and reply")
    parser.add_argument(
        "--reveal", action="store_true",
        help="GDL-II: show every move, every player's percepts and the true state (not only what is public)",
    )
    add_in_process(parser)
    add_engine_option(parser)
    add_view_option(parser, "the match")
    parser.set_defaults(run=run)


def players_by_role(game: Game, specs: list[str]) -> dict[str, str]:
    """``[ROLE=]URL`` or ``[ROLE=]KIND`` texts as a map from each role of the game to its player's URL
    or kind (see :func:`gdl.players.assign_roles`); a role without one is played by a local random
    player, and the user told."""
    chosen = assign_roles(game, specs, default="")
    for role, spec in chosen.items():
        if not spec:
            print(f"gdl host: no --player for {game.spell(role)}: a random player plays it", file=sys.stderr)
            chosen[role] = "random"
    return chosen


def run(args: argparse.Namespace) -> int:
    game = load_game(args.game, args.engine, "host")
    if game is None:
        return 2
    if args.grace < 0:
        print("gdl host: --grace must not be negative", file=sys.stderr)
        return 2
    start_clock = whole_seconds(args.start_clock, "--start-clock")
    play_clock = whole_seconds(args.play_clock, "--play-clock")
    configure_logging(args.verbose)
    try:
        players = players_by_role(game, args.player)
        if not args.json:
            shown = ", ".join(f"{role} = {spec}" for role, spec in players.items())
            print(f"{game.name}: {shown}", flush=True)
        viewer = None if args.view is None else MatchViewer(game, args.game, args.view)
        printer = None if args.quiet or args.json else partial(
            show_step, reveal=args.reveal, shown=game.players if args.reveal else ()
        )
        hooks = [h for h in (printer, viewer and viewer.on_step) if h]

        def on_step(record: MatchRecord) -> None:
            for hook in hooks:
                hook(record)

        record = host(
            game, players, start_clock, play_clock, grace=args.grace, max_steps=args.max_steps,
            seed=args.seed, isolate=False if args.in_process else None, on_step=on_step,
        )
    except (PlayerSpecError, UnknownRoleError, HintsError, ViewerError) as problem:
        print(f"gdl host: {problem}", file=sys.stderr)
        return 2
    spell = game.spell
    outcome = (
        "goals: " + ", ".join(f"{spell(role)} {value}" for role, value in record.goals.items())
        if record.completed
        else f"aborted: {record.abort_reason}"
    )
    errors = ", ".join(f"{spell(role)} {record.error_count(role)}" for role in game.players)
    if not args.json:
        print(f"\nmatch {record.match_id}: {outcome}; errors: {errors}")
    if not emit_json(args, record.to_json, "host"):
        return 2
    silent = [role for role in record.roles if record.never_answered(role)]
    for role in silent:
        first = record.start_errors.get(role) or record.errors[0][role]
        print(
            f"gdl host: the player of {spell(role)} ({players[role]}) never answered with a legal move"
            f" (first error: {first})",
            file=sys.stderr,
        )
    if viewer:
        viewer.finish(record)
    return 0 if record.completed and not silent else 1


def whole_seconds(clock: float, option: str) -> int:
    """A clock as the GGP protocol sends it, in whole seconds: a fraction is rounded (at least 1) and
    the user told, since players such as ggp-base's cannot read a fraction and drop the match."""
    whole = max(1, round(clock))
    if whole != clock:
        note = f"gdl host: {option} {clock:g} rounded to {whole} s (GGP clocks are whole seconds)"
        print(note, file=sys.stderr)
    return whole
