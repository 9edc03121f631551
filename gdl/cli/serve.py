"""``gdl serve --port P --player KIND[:option=value,...]``: a GGP player that game managers reach over HTTP.

Every match gets a fresh player of the given kind, in a process of its own (with ``--threads``, in a
thread of the server, for trusted games only). Checking the rules, the players and the spare referee
run in processes with CPU-time and memory limits (``--memory``), killed when the match ends or breaks
them. The server answers each message before its clock runs out (the clock minus ``--margin`` seconds
for the network), accepts at most ``--capacity`` matches at once, takes messages that change state
only by POST, and keeps running whatever it is sent; ``-v`` logs every exchange. It listens on
127.0.0.1 unless told otherwise (``--host 0.0.0.0`` for every interface). Stop it with Ctrl-C or SIGTERM:
it ends every process it started.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from functools import partial

from gdl.cli._common import add_command, add_engine_option, plural, port_number, positive_int
from gdl.errors import PlayerSpecError
from gdl.players import PLAYER_KINDS, make_player
from gdl.protocol.server import PlayerServer, start_server
from gdl.workers import DEFAULT_LIMITS, Limits


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    kinds = ", ".join(sorted(set(PLAYER_KINDS) - {"human"}))
    parser = add_command(
        subparsers, "serve", "serve a player to GGP game managers over HTTP",
        f"""A GGP player that game managers (Tiltyard, ggp-base, the Dresden server, gdl host) reach over
HTTP. Every match gets a fresh player of the given kind ({kinds}), in a process of its own (with
--threads, in a thread of the server). The server answers each message before its clock runs out
(the clock minus --margin seconds for the network) and keeps running whatever it is sent; -v logs
every exchange. It listens on 127.0.0.1 only; --host 0.0.0.0 opens it to other machines. Stop it
with Ctrl-C or SIGTERM.""",
        [
            "gdl serve --port 9147",
            "gdl serve --host 0.0.0.0 --port 9147 --player uct   # reachable from other machines",
            "gdl serve --port 9147 --player uct:c=0.5 --name my-gdl -v",
        ],
    )
    parser.add_argument(
        "--port", type=port_number, default=9147, help="TCP port (default 9147; 0 picks a free one)"
    )
    parser.add_argument(
        "--host", default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every interface)",
    )
    parser.add_argument(
        "--player", "-p", default="uct", metavar="KIND[:option=value,...]",
        help="the player (default uct)",
    )
    parser.add_argument("--name", help="the name INFO reports (default gdl-KIND)")
    parser.add_argument(
        "--margin", type=float, default=0.5,
        help="seconds kept back from every clock for the network (default 0.5)",
    )
    parser.add_argument(
        "--capacity", type=positive_int, default=1, metavar="N",
        help="matches at once; beyond, INFO reports busy and START is refused (default 1)",
    )
    parser.add_argument(
        "--memory", type=int, default=DEFAULT_LIMITS.memory >> 20, metavar="MB",
        help="memory (address space) of each process working on a match's rules "
        f"(default {DEFAULT_LIMITS.memory >> 20})",
    )
    parser.add_argument(
        "--cors", action="store_true",
        help="send CORS headers, for game managers in a web browser (any web page may then reach it)",
    )
    parser.add_argument(
        "--threads", action="store_true",
        help="run the players in threads of the server instead of a process per match",
    )
    parser.add_argument("--seed", type=int, help="seed for the players and the random fallback moves")
    add_engine_option(parser)
    parser.add_argument("--verbose", "-v", action="store_true", help="log every message and reply")
    parser.set_defaults(run=run)


#: The least --memory (MB) accepted: a worker starts at about 490 MB of address space (Python, numpy,
#: numba and the compiled playout kernel) and needs room beyond to load a game and search.
MIN_MEMORY = 768


def configure_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # aiohttp's own debug lines would drown the exchanges.
    logging.getLogger("aiohttp").setLevel(logging.WARNING)


async def _serve(server: PlayerServer, host: str, port: int, spec: str) -> None:
    running = await start_server(server, host, port)
    print(f"gdl serve: {server.name} ({spec}) listening on {running.url}", flush=True)
    # SIGTERM closes the server as Ctrl-C does: the players, checkers and referees are ended with it.
    stopped = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopped.set)
    try:
        await stopped.wait()
    finally:  # Ctrl-C or SIGTERM: the matches under way are ended and their processes stopped
        under_way = len(server.matches)
        await running.close()
        matches = plural(under_way, "match", "matches")
        print(f"gdl serve: stopped; {under_way} {matches} under way ended", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    try:
        kind = make_player(args.player).name
    except PlayerSpecError as problem:
        print(f"gdl serve: {problem}", file=sys.stderr)
        return 2
    if kind == "human":
        print("gdl serve: a human player cannot be served (it reads the terminal)", file=sys.stderr)
        return 2
    if args.margin < 0 or args.capacity < 1:
        print("gdl serve: --margin must not be negative and --capacity at least 1", file=sys.stderr)
        return 2
    if args.memory < MIN_MEMORY:
        print(
            f"gdl serve: --memory {args.memory} is too little: a worker process starts at about 490 MB "
            f"of address space and needs room to load a game; give at least {MIN_MEMORY}",
            file=sys.stderr,
        )
        return 2
    configure_logging(args.verbose)
    server = PlayerServer(
        partial(make_player, args.player, args.seed),
        name=args.name or f"gdl-{kind}",
        margin=args.margin,
        capacity=args.capacity,
        engine=args.engine,
        seed=args.seed,
        processes=not args.threads,
        limits=Limits(memory=args.memory << 20),
        cors=args.cors,
    )
    try:
        asyncio.run(_serve(server, args.host, args.port, args.player))
    except OSError as problem:
        print(f"gdl serve: cannot listen on {args.host}:{args.port}: {problem.strerror}", file=sys.stderr)
        return 2
    return 0
