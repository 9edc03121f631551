"""The uct player: Monte Carlo tree search whose every iteration runs in native code.

The search (:mod:`gdl.players.uct.kernel`) walks the game's propositional network as the native
playout kernel does (:mod:`gdl.engines.native`), over a tree kept in numpy arrays
(:mod:`gdl.players.uct.tree`): nodes are states found by a transposition table; each iteration selects
a joint move per level by UCB1 on each role's own statistics (decoupled UCT: at a simultaneous state no
role sees the others' choices; at a turn-taking one only the role to move has a choice), adds the first
state outside the tree, plays a playout from it (uniformly random, or greedy where the role to move
has few moves: decisive and anti-decisive moves) and backs the goals up. MCTS-Solver
proves nodes where one role chooses (a child proven a win for it, or every child proven: the best), and
a proven child is chosen at its value without exploration. The tree is kept from move to move (the
state reached is looked up in the table); past half its room, only the subtree of the state reached is
kept. The start clock searches the initial state. A proven win is played at once; among moves proven
equally good, the one that leaves the next mover the most answers that would give more (traps). A game of
independent sub-games (:mod:`gdl.players.uct.searches`) has a tree per sub-game, played alone, and a
move is chosen in the tree of the sub-game its moves are in. A turn-taking game small enough is solved
in the start clock instead and played from its exact values, with the same traps
(:mod:`gdl.players.solved`).

Time: each search runs in batches of iterations, sized to a few hundredths of a second, until the
deadline less ``margin`` and the longest batch so far. The kernels are compiled once per installation
(:func:`warm_up`, which ``make`` and the player server's worker processes call before any clock).

A puzzle (one role) is first solved in the start clock (:class:`gdl.players.puzzles.player.PuzzlePlayer`):
a plan proven to reach the best goal is played as it is, and a puzzle without a network whose dive is
under way is left to that player; otherwise the search plays. GDL-II games are
played by the :class:`gdl.players.equilibrium.EquilibriumPlayer` (their extensive form solved at the
start, hyperplay where it does not fit). Games the search cannot take (no network within the budgets of
``engine="auto"``, or too large for a tree of the player's room) are played by the
:class:`gdl.players.mcts.MctsPlayer`.
"""

from __future__ import annotations

import logging
import random
import threading
import time

from gdl.engines import AUTO_MAX_SECONDS, build_compiled
from gdl.engines.compiled import CompiledReasoner
from gdl.errors import GameTooLargeError
from gdl.game import Game, State
from gdl.ground.factors import Factoring
from gdl.players.base import Player, at_least
from gdl.players.equilibrium import EquilibriumPlayer
from gdl.players.mcts import MctsPlayer
from gdl.players.puzzles.player import PuzzlePlayer
from gdl.players.solved import SolvedGame, solve_small
from gdl.players.uct.decisive import watch
from gdl.players.uct.heuristic import (
    LEAST_CORRELATION,
    LEAST_PRIOR_CORRELATION,
    fit,
    piece_features,
    takeable,
)
from gdl.players.uct.layout import MOST_PROBE_PLIES
from gdl.players.uct.searches import Search, make_searches
from gdl.players.uct.tree import Tree, choose, tree_budget
from gdl.players.uct.warm import warm_up
from gdl.syntax.model import Term
from gdl.views import View, plays_with_views

logger = logging.getLogger(__name__)

#: What the MAST statistics keep from one move to the next.
MAST_FADE = 0.5
#: The wall-clock seconds one batch of iterations aims at: short enough to stop near the deadline.
BATCH_SECONDS = 0.02
#: The most seconds, and the share of the start clock, the material heuristic's playouts take.
HEURISTIC_SECONDS, HEURISTIC_SHARE = 3.0, 0.2
#: The share of its room a tree may fill before a move's search: past it, only the subtree of the state
#: reached is kept (or nothing, when that is still past it).
KEEP_AT = 0.5
#: Greedy playouts (decisive and anti-decisive moves, drawn again up to ``GREEDY_REDRAWS`` times: every
#: move) where the role to move has at most this many moves on average, and the iterations of the
#: search that counts them. A greedy step costs up to a step a legal move, so it pays where there are
#: few (Sancho's rule is alike: greedy rollouts off where their cost, the moves less those a greedy
#: choice changes, passes 8).
GREEDY_MOST_MOVES, GREEDY_REDRAWS, PROBE_ITERATIONS = 10.0, 30, 2000
#: The probe's batches of iterations, and the share of the start clock it may take at most.
PROBE_BATCH, PROBE_SHARE = 50, 0.1
#: Probes of threats (plies, answers, visit) where the playouts are uniform for want of few moves: the
#: tactics greedy playouts would see, the tree's probes see there (see the class doc).
THREAT_PROBES = (9, 2, 8)
#: The share of the start clock the solving of a small game may take (:mod:`gdl.players.solved`).
SOLVE_SHARE = 0.25
#: The least time the puzzle solver keeps free before each deadline (its own default).
PUZZLE_MARGIN = 0.5
#: Seconds a pondering search gives one tree before the next, where it ponders several (factors).
PONDER_SLICE = 0.1


class UctPlayer(Player):
    """MCTS in native code: decoupled UCT, transpositions, MCTS-Solver, tree reuse (see the module doc).

    Options: ``c`` (float) the UCB1 exploration constant for rewards in [0, 1]; ``greed`` (float, 0 to
    1) how often a playout move is the better of two drawn by their MAST means (default 0: uniform
    playouts; 0.5 lost 4 of 4 connectfour matches to uniform ones); ``memory`` (int, MB)
    the room of the tree; ``margin`` (float, seconds) kept free before each deadline; ``ponder`` (int, 0
    or 1) whether to search on between a reply and the next message; ``iterations``
    (int) stops each search after about that many iterations (the clock still applies); ``seed`` (int)
    makes a search bounded by iterations reproducible; ``decisive`` (int, 0 or 1) whether a playout
    plays a move that ends the game with the best goal of the role to move, where the network shows one
    may be (:mod:`gdl.players.uct.decisive`); ``tries`` (int) the most candidates a playout step tries;
    ``anti`` (int) how many times a playout move after which the next role to move has such a move is
    drawn again (0: never); where neither ``decisive`` nor ``anti`` is given, the playouts are greedy
    (``decisive=1,anti=30``) in a game of two roles that take turns, with a network to watch, whose
    role to move has at most :data:`GREEDY_MOST_MOVES` moves on average in a short search of the
    initial state, and uniform otherwise (greedy playouts won 72 % of 16 connectfour matches against
    uniform ones and 25 % of 16 breakthrough ones); where none of ``probe``, ``threats`` and
    ``probe_visit`` is given, the tree's probes of threats (:data:`THREAT_PROBES`) are on in a game of
    two roles that take turns, with a network to watch, whose role to move has more moves than that,
    and off otherwise (breakthrough against Sancho: see docs/players.md); ``cutoff`` (int) after how
    many moves a playout stops and is scored by a material heuristic fitted in the start clock
    (:mod:`gdl.players.uct.heuristic`; 0: never, and never where piece counts do not foretell the
    goals); ``keep`` (int, 0 or 1) whether a tree past half its room keeps the subtree of the state
    reached (1) or starts afresh (0); ``rave`` (int) GRAVE's reference threshold: the selection blends
    each move's mean with its all-moves-as-first average at the deepest node of the descent visited at
    least that often (0: UCB1 alone); ``bias`` (float) how fast a move's own mean takes over from its
    average as its visits grow; ``prior`` (int) how many visits a move's first visit adds at the value
    the material heuristic gives the state it leads to, relative to the root, as Sancho's node priors
    (0: none; fitted as for ``cutoff``, and kept on a weaker correlation); ``savers`` (int, 0 or 1)
    whether a playout move after which the next role wins at once is first replaced by a move that
    flips what the winning move's legality reads (a capture of the piece about to win), trying at most
    ``anti`` of them, rather than by redraws: where no saver helps, the move drawn stands; ``minimax``
    (float, 0 to 1) the weight of implicit minimax in a move's mean: each new node starts with the
    material heuristic's estimate of its state, each node takes the estimate of its child best for its
    role, and the selection blends a move's mean with its child's estimate by that weight (0: none;
    fitted as for ``prior``); ``probe`` (int, 0 to 9) within how many plies a node's role to move is
    searched for a win it can force, at the node's ``probe_visit``-th visit, where one role alone
    chooses (:mod:`gdl.players.uct.probe_kernel`; 0: never); ``threats`` (int) how many answers that
    leave it no win at once a probe follows a move against: only forcing moves are followed, which
    reaches deeper (0: all answers, a full-width probe); ``capture`` (float, 0 to 1) how often a
    playout step where one role alone chooses plays its best capture: the move that takes a piece the
    material heuristic counts against it and values most (default 1, every time: 12 of 12 breakthrough
    matches against 0 at equal time; fitted as for ``prior``, and inert in a game whose heuristic finds
    no piece a move takes; 0: never); ``solve`` (int, 0 or 1) whether a turn-taking game small enough
    is solved in the start clock and played from its exact values (:mod:`gdl.players.solved`).
    """

    name = "uct"

    def __init__(
        self,
        c: float = 0.7,
        greed: float = 0.0,
        memory: int = 384,
        margin: float = 0.15,
        ponder: int = 1,
        iterations: int | None = None,
        seed: int | None = None,
        decisive: int | None = None,
        tries: int = 4,
        anti: int | None = None,
        cutoff: int = 0,
        keep: int = 1,
        rave: int = 0,
        bias: float = 1e-4,
        prior: int = 0,
        savers: int = 0,
        minimax: float = 0.0,
        probe: int | None = None,
        probe_visit: int | None = None,
        threats: int | None = None,
        capture: float = 1.0,
        solve: int = 1,
    ) -> None:
        at_least("uct", "c", c, 0)
        at_least("uct", "probe", probe, 0)
        if probe is not None and probe > MOST_PROBE_PLIES:
            raise ValueError(f"uct probe must be at most {MOST_PROBE_PLIES}, got {probe}")
        at_least("uct", "probe_visit", probe_visit, 1)
        at_least("uct", "threats", threats, 0)
        #: The probes asked for (None: chosen per game, see the class doc), and the ones searched with.
        asked = (probe, threats, probe_visit)
        self._probes = None if asked == (None, None, None) else (probe or 0, threats or 0, probe_visit or 1)
        self.probe, self.threats, self.probe_visit = self._probes or (0, 0, 1)
        at_least("uct", "tries", tries, 1)
        self.tries = tries
        at_least("uct", "anti", anti, 0)
        #: The playout policy asked for (None: chosen per game, see the class doc), and the one played.
        self._policy = None if decisive is None and anti is None else (int(bool(decisive)), anti or 0)
        self.decisive, self.anti = self._policy or (0, 0)
        at_least("uct", "cutoff", cutoff, 0)
        self.cutoff = cutoff
        self.keep = int(bool(keep))
        at_least("uct", "rave", rave, 0)
        at_least("uct", "bias", bias, 0)
        self.rave, self.bias = rave, bias
        self.savers = int(bool(savers))
        at_least("uct", "prior", prior, 0)
        self.prior = prior
        for name, share in (("greed", greed), ("minimax", minimax), ("capture", capture)):
            at_least("uct", name, share, 0)
            if share > 1:
                raise ValueError(f"uct {name} must be at most 1, got {share:g}")
        self.greed, self.minimax, self.capture = greed, minimax, capture
        at_least("uct", "memory", memory, 16)
        at_least("uct", "margin", margin, 0)
        at_least("uct", "iterations", iterations, 1)
        self.c = c
        self.memory = memory
        self.solve = int(bool(solve))
        self.margin = margin
        self.iterations = iterations
        self.ponder = bool(ponder) and iterations is None
        self.rng = random.Random(seed)
        self._pondering: threading.Thread | None = None
        self._quiet = threading.Event()
        #: The search of the whole game, and of each of its factors played alone (none where it has one).
        self._whole: Search | None = None
        self._factors: list[Search] = []
        self._factoring: Factoring | None = None
        #: The factor of each of this player's moves (None: of no factor).
        self._factor_of: dict[Term, int | None] = {}
        self._compiled: CompiledReasoner | None = None
        self._fallback: Player | None = None
        self._spare_player: MctsPlayer | None = None
        #: The table of exact values of a game small enough to solve at the start (None: searched).
        self._solved: SolvedGame | None = None

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        begun = time.monotonic()
        self._stop_pondering()
        super().start(game, role, start_clock, play_clock)
        self._info = {}
        self._index = game.roles.index(role)
        self._chance = game.roles.index(game.chance_role) if game.chance_role is not None else -1
        self._whole, self._factors, self._factoring = None, [], None
        self._fallback = None
        self._spare_player = None
        self._solved = None
        if plays_with_views(game):
            self._fallback = EquilibriumPlayer(seed=self.rng.randrange(1 << 32))
        elif len(game.roles) == 1 and self._puzzle_taken(game, role, start_clock, play_clock):
            return
        else:
            self._whole = self._make_searches(game, start_clock)
            if self._whole is None:
                self._fallback = MctsPlayer(seed=self.rng.randrange(1 << 32), margin=self.margin)
            elif self.solve and self._solved_at_start(game, begun + SOLVE_SHARE * start_clock):
                return
            else:
                moves = None
                if self._policy is None or self._probes is None:
                    first = (self._factors or [self._whole])[0]
                    moves = self._branching(first, begun + PROBE_SHARE * start_clock)
                self.decisive, self.anti = self._policy or self._playout_policy(moves)
                self.probe, self.threats, self.probe_visit = self._probes or self._threat_probes(moves)
        if self._fallback is not None:
            self._fallback.start(game, role, max(0.0, start_clock - (time.monotonic() - begun)), play_clock)
            self._info = self._fallback.info()
            return
        if self._factors:
            self._info = {**self._info, "factors": len(self._factors)}
        if self.cutoff > 0 or self._weak_heuristic:
            self._fit_heuristic(min(HEURISTIC_SECONDS, HEURISTIC_SHARE * start_clock))
        # The start clock searches the initial state (each factor's in turn): its trees are kept for the
        # first move.
        initial = self.game.initial_state()
        assert self._whole is not None
        searches = self._factors or [self._whole]
        stop_at = begun + 0.9 * start_clock - self.margin
        for done, search in enumerate(searches):
            share = (stop_at - time.monotonic()) / (len(searches) - done)
            self._think(search, initial, time.monotonic() + share)
        if self.ponder:
            self._start_pondering(self._ponder_roots(initial, None))

    def _solved_at_start(self, game: Game, stop_at: float) -> bool:
        """Whether ``game`` is small enough to be solved before ``stop_at`` (then played from its table)."""
        assert self._compiled is not None
        compiled = game if game.reasoner is self._compiled else Game(game.checked, self._compiled, game.name)
        self._solved = solve_small(compiled, stop_at)
        if self._solved is not None:
            self._solved.expected(self._index)  # in the start clock, not the first move's
            self._info = {"solved": len(self._solved.valued)}
        return self._solved is not None

    def _branching(self, search: Search, stop_at: float) -> float | None:
        """The mean number of moves of the role to move in a game of two roles that take turns (no
        nature), as a short search of the initial state in ``search`` (until ``stop_at`` at most) finds
        them; None in other games."""
        compiled = self._compiled
        assert compiled is not None
        if len(self.game.players) != 2 or self._chance >= 0:
            return None
        tree = search.tree
        root = tree.root(self._state_of(search, compiled.initial()))
        if root < 0:
            return None
        done = 0
        while done < PROBE_ITERATIONS and time.monotonic() < stop_at and not tree.solved(root):
            done += tree.search(root, PROBE_BATCH)
        moves = tree.branching()
        self._info = {**self._info, "moves": round(moves or 0, 1)}
        return moves

    def _watched(self) -> bool:
        """Whether the game's networks have literals to watch for decisive moves (read now, for a
        policy that uses them)."""
        assert self._whole is not None
        for each in (*self._factors, self._whole):
            each.tree.watch_for(watch(each.kernel))
        return not self._whole.tree.watch.empty

    def _playout_policy(self, moves: float | None) -> tuple[int, int]:
        """``decisive`` and ``anti`` for a game where neither is given: greedy where its role to move
        has ``moves`` moves on average, few of them (see the class doc)."""
        if moves is None:
            return 0, 0
        greedy = moves <= GREEDY_MOST_MOVES and self._watched()
        self._info = {**self._info, "greedy": greedy}
        return (1, GREEDY_REDRAWS) if greedy else (0, 0)

    def _threat_probes(self, moves: float | None) -> tuple[int, int, int]:
        """``probe``, ``threats`` and ``probe_visit`` for a game where none is given: probes of threats
        where its role to move has ``moves`` moves on average, too many for greedy playouts (see the
        class doc)."""
        if moves is None:
            return 0, 0, 1
        probing = moves > GREEDY_MOST_MOVES and self._watched()
        self._info = {**self._info, "threats": probing}
        return THREAT_PROBES if probing else (0, 0, 1)

    @property
    def _weak_heuristic(self) -> bool:
        """Whether an option asks for the material heuristic that a weaker correlation keeps."""
        return self.prior > 0 or self.minimax > 0 or self.capture > 0

    def _fit_heuristic(self, seconds: float) -> None:
        """Fit the material heuristic on the search's playouts from the initial state (none where piece
        counts do not foretell the goals)."""
        whole, compiled = self._whole, self._compiled
        assert whole is not None and compiled is not None
        tree = whole.tree
        if tree.root(compiled.initial()) < 0:
            return
        tree.heuristic = fit(
            piece_features(compiled.net), tree, seconds, self.rng.randrange(1 << 32), chance=self._chance,
            greed=self.greed, decisive=self.decisive, tries=self.tries, anti=self.anti, savers=self.savers,
            least=LEAST_PRIOR_CORRELATION if self._weak_heuristic else LEAST_CORRELATION,
        )
        self._info = {**self._info, "heuristic": round(tree.heuristic.correlation, 2)}
        if self.capture > 0 and len(tree.heuristic.targets):
            # The setters of the targets' flips to false, which the captures look up.
            also = {(int(base), 0) for base in tree.heuristic.targets}
            watched = watch(whole.kernel, also)
            tree.watch_for(watched)
            tree.heuristic = takeable(tree.heuristic, watched)

    def _puzzle_taken(self, game: Game, role: str, start_clock: float, play_clock: float) -> bool:
        """Whether the puzzle player takes the puzzle ``game``: its plan proven in the start clock, or
        its dive under way (the game has no network, which the search needs)."""
        puzzle = PuzzlePlayer(margin=max(self.margin, PUZZLE_MARGIN), seed=self.rng.randrange(1 << 32))
        puzzle.start(game, role, start_clock, play_clock)
        if not puzzle.diving and (puzzle.plan is None or not puzzle.plan.proven):
            return False
        self._fallback = puzzle
        self._info = puzzle.info()
        return True

    def _make_searches(self, game: Game, start_clock: float) -> Search | None:
        """The search of the whole game over its native kernel (and of each factor, in
        :attr:`_factors`, where the game has several), or None when the game has no network within the
        budgets or the kernel and the trees (then the fallback plays)."""
        compiled = game.reasoner
        if not isinstance(compiled, CompiledReasoner):
            try:
                compiled = build_compiled(game.checked, min(AUTO_MAX_SECONDS, start_clock / 2))
            except GameTooLargeError as problem:
                logger.warning("uct: %s; playing as mcts", problem)
                return None
        warm_up()
        self._compiled = compiled
        # (Captures watch their targets once the heuristic finds them.)
        watched = (self._probes or (0,))[0] > 0 or any(self._policy or ())
        found = make_searches(
            compiled, self._index, tree_budget(self.memory << 20), self.rave > 0, watched, self.rng
        )
        if found is None:
            return None
        self._factors, self._factoring, self._factor_of = found.factors, found.factoring, found.factor_of
        return found.whole

    def _search_of(self, state: State) -> Search:
        """The search that chooses this player's move in ``state``: its factor's, where all its legal
        moves are of one factor, else the whole game's."""
        assert self._whole is not None
        if self._factors:
            found = {self._factor_of.get(move) for move in state.legal_moves(self.role)}
            index = found.pop() if len(found) == 1 else None
            if index is not None:
                return self._factors[index]
        return self._whole

    def _state_of(self, search: Search, bits: int) -> int:
        """The state of ``search``'s tree for the game's state ``bits``."""
        if search.factor is None:
            return bits
        assert self._factoring is not None
        return self._factoring.project(bits, search.factor)

    def play(self, state: State, deadline: float) -> Term:
        self._stop_pondering()
        if self._fallback is not None:
            move = self._fallback.play(state, deadline)
            self._info = self._fallback.info()
            return move
        solved = self._solved.choose(state, self.role, self.rng) if self._solved is not None else None
        if solved is not None:
            self._info = {
                "value": solved.value,
                "proven": True,
                "expected": round(solved.expected, 1),
                "traps": round(solved.traps, 3),
            }
            return solved.move
        search = self._search_of(state)
        root, done = self._think(search, state, deadline - self.margin)
        if root < 0:  # a state the tree cannot take: the plain search plays it
            return self._spare().play(state, deadline)
        tree = search.tree
        edges = tree.edges(root, self._index) if tree.expanded(root) else []
        if not edges:
            return state.legal_moves(self.role)[0]
        best = choose(
            edges,
            tree.value(root, self._index) if tree.solved(root) else None,
            lambda edge, value: tree.traps(edge.child, self._index, value) if edge.child >= 0 else 0.0,
        )
        self._info = {
            "iterations": done,
            "nodes": int(tree.meta[0]),
            "visits": best.visits,
            "value": round(100 * (best.proven if best.proven is not None else best.mean), 1),
            **({"proven": True} if best.proven is not None else {}),
            **({"factor": search.factor} if search.factor is not None else {}),
        }
        if self.ponder:
            # Where this player alone chooses, the state its move leads to is where the game goes on.
            chosen = tree.state(best.child if best.child >= 0 else root)
            self._start_pondering(self._ponder_roots(state, (search, chosen)))
        return search.terms[best.output][1]

    def _ponder_roots(self, state: State, chosen: tuple[Search, int] | None) -> list[tuple[Search, int]]:
        """The trees to ponder in after ``state`` and the states to ponder from: ``chosen``'s (the tree
        of this player's move, and the state its move leads to there), and each other factor's from
        ``state``, where the other roles may be choosing."""
        assert self._compiled is not None and self._whole is not None
        roots = [chosen] if chosen is not None else []
        bits = self._compiled.from_fluents(state.fluents())
        for search in self._factors or ([self._whole] if chosen is None else []):
            if chosen is None or search is not chosen[0]:
                roots.append((search, self._state_of(search, bits)))
        return roots

    def _spare(self) -> MctsPlayer:
        """The :class:`MctsPlayer` that plays the states the tree cannot take (made on first use)."""
        if self._spare_player is None:
            self._spare_player = MctsPlayer(seed=self.rng.randrange(1 << 32), margin=self.margin)
            self._spare_player.start(self.game, self.role, 0.0, self.play_clock)
        return self._spare_player

    def _start_pondering(self, roots: list[tuple[Search, int]]) -> None:
        """Search on from each of ``roots`` (a tree and a state in it; by turns of :data:`PONDER_SLICE`
        where there are several) in a thread (the kernels release the interpreter lock) until the next
        call, or a play clock from now at most: the time between this reply and the next message is the
        player's too (the server counts it in the CPU time it allows)."""
        until = time.monotonic() + self.play_clock
        self._quiet.clear()

        def ponder() -> None:
            open_roots = [(search.tree, search.tree.root(state)) for search, state in roots]
            open_roots = [(tree, root) for tree, root in open_roots if root >= 0 and not tree.solved(root)]
            while open_roots and time.monotonic() < until and not self._quiet.is_set():
                for tree, root in open_roots:
                    slice_end = until if len(open_roots) == 1 else min(until, time.monotonic() + PONDER_SLICE)
                    self._search(tree, root, slice_end, self._quiet)
                open_roots = [(tree, root) for tree, root in open_roots if not tree.solved(root)]

        self._pondering = threading.Thread(target=ponder, name="uct-ponder", daemon=True)
        self._pondering.start()

    def _stop_pondering(self) -> None:
        """End the search between moves (within one batch of iterations)."""
        if self._pondering is not None:
            self._quiet.set()
            self._pondering.join()
            self._pondering = None

    def _think(self, search: Search, state: State, stop_at: float) -> tuple[int, int]:
        """Search from ``state`` in ``search`` until ``stop_at`` (or ``iterations``, or a proof); its
        node and the iterations run."""
        tree = search.tree
        assert self._compiled is not None
        tree.fade(MAST_FADE)
        bits = self._state_of(search, self._compiled.from_fluents(state.fluents()))
        if search.kernels.of(bits) is not search.kernel:
            return -1, 0  # a state no match reaches, outside what the network was folded for
        root = tree.root(bits)
        # Room for the search: the subtree of the state reached, else a fresh tree, rather than a tree
        # that fills up during the search.
        if root >= 0 and tree.used > KEEP_AT and self.keep:
            root = tree.keep(root)
        if root < 0 or tree.used > KEEP_AT:
            tree.clear()
            root = tree.root(bits)
        return root, self._search(tree, root, stop_at) if root >= 0 else 0

    def _search(self, tree: Tree, root: int, stop_at: float, quiet: threading.Event | None = None) -> int:
        """Search from ``root`` (the network in its state) until ``stop_at``, ``iterations``, a proof or
        ``quiet``; the iterations run. Batches of iterations aim at :data:`BATCH_SECONDS` each, and the
        search stops when the longest batch so far would overrun ``stop_at``."""
        done = 0
        batch = 16
        longest = 0.0
        while self.iterations is None or done < self.iterations:
            now = time.monotonic()
            if now + longest >= stop_at or tree.solved(root) or (quiet is not None and quiet.is_set()):
                break
            wanted = batch if self.iterations is None else min(batch, self.iterations - done)
            ran = tree.search(
                root, wanted, self._chance, self.c, self.greed, self.decisive, self.tries, self.anti,
                self.cutoff if tree.heuristic.correlation >= LEAST_CORRELATION else 0, self.rave, self.bias,
                self.prior, self.savers, self.minimax, self.probe, self.probe_visit, self.capture,
                self.threats,
            )
            done += ran
            took = time.monotonic() - now
            longest = max(longest, took)
            # The next batch aims at BATCH_SECONDS, and no more than the time left allows.
            per = took / max(ran, 1)
            left = stop_at - time.monotonic()
            batch = int(max(1, min(2 * batch, BATCH_SECONDS / max(per, 1e-9), left / 2 / max(per, 1e-9))))
        return done

    def stop(self, state: State) -> None:
        self._stop_pondering()
        if self._fallback is not None:
            self._fallback.stop(state)
        self._whole, self._factors = None, []

    def play_view(self, view: View, deadline: float) -> Term:
        if self._fallback is None:
            return super().play_view(view, deadline)
        move = self._fallback.play_view(view, deadline)
        self._info = self._fallback.info()
        return move

    def stop_view(self, view: View) -> None:
        self._stop_pondering()
        if self._fallback is not None:
            self._fallback.stop_view(view)
        self._whole, self._factors = None, []
