"""One information model: what each role is told after each step (gdl.views.told), and every path that
plays, solves or steps a game agrees on it: a game without sees rules tells every role every joint move
(nature's included), a game with sees rules tells each role only its percepts."""

from __future__ import annotations

import json

import pytest
from support.paths import GAMES
from support.recording_player import Recording

import gdl
from gdl.cli import main
from gdl.extensive.from_gdl import extensive_from_gdl
from gdl.extensive.model import Decision
from gdl.game import Game, State
from gdl.match import Match
from gdl.players import Player, make_player
from gdl.solve import solve
from gdl.syntax.model import Function, Term
from gdl.syntax.reader import parse_term
from gdl.views import View, plays_with_views, told

FACES = range(1, 7)


def _dice() -> Game:
    return gdl.load(GAMES / "dice.kif")


def _terms(*texts: str) -> frozenset[Term]:
    return frozenset(map(parse_term, texts))


def test_without_sees_rules_every_role_is_told_every_joint_move_nature_included() -> None:
    game = _dice()
    assert not plays_with_views(game)
    joint = {"guesser": "noop", "house": "noop", "random": "(roll 4)"}
    everything = _terms("(does guesser noop)", "(does house noop)", "(does random (roll 4))")
    assert told(game.initial_state(), joint) == dict.fromkeys(game.roles, everything)


def test_with_sees_rules_a_role_is_told_only_its_percepts_and_a_role_no_rule_names_nothing() -> None:
    kuhn = gdl.load(GAMES / "kuhn.kif")
    state = kuhn.initial_state()
    deal = next(j for j in state.joint_moves() if str(j["random"]) == "(deal king jack)")
    assert plays_with_views(kuhn) and told(state, deal) == state.percepts(deal)
    assert told(state, deal)["player1"] == _terms("(yourcard king)")
    # tictactoe with percepts for xplayer only: a GDL-II game, where oplayer is told nothing at all
    text = (GAMES / "tictactoe.kif").read_text() + "(<= (sees xplayer (turn ?p)) (true (control ?p)))"
    game = gdl.parse(text)
    seen = told(game.initial_state(), {"xplayer": "(mark 1 1)", "oplayer": "noop"})
    assert seen == {"xplayer": _terms("(turn xplayer)"), "oplayer": frozenset()}


def _rolled(fluents: frozenset[Term]) -> int:
    [face] = [int(str(f.args[0])) for f in fluents if isinstance(f, Function) and f.name == "rolled"]
    return face


class Guesser(Player):
    """Names the number rolled, read from what it is handed; writes down what that was."""

    name = "guesser"

    def __init__(self) -> None:
        self.handed: list[object] = []

    def play(self, state: State, deadline: float) -> Term:
        self.handed.append(state)
        legal = state.legal_moves(self.role)
        return legal[0] if len(legal) == 1 else parse_term(f"(guess {_rolled(state.fluents())})")

    def play_view(self, view: View, deadline: float) -> Term:
        self.handed.append(view)
        return view.legal[0]


def test_a_dice_match_tells_the_guesser_the_roll() -> None:
    game = _dice()
    for seed in range(12):
        guesser = Guesser()
        record = Match(game, {"guesser": guesser, "house": "random"}, seed=seed).run()
        [handed] = guesser.handed
        assert isinstance(handed, State), "the guesser is told the joint moves, so it knows the state"
        assert f"(roll {_rolled(handed.fluents())})" == record.moves[0]["random"]
        assert record.goals == {"guesser": 100, "house": 0}
    # A stock player wins every match too: it is told the roll before it guesses.
    wins = [
        Match(game, {"guesser": make_player("mcts:iterations=200", s), "house": "random"}, seed=s)
        .run().goals["guesser"]
        for s in range(6)
    ]
    assert wins == [100] * 6


def test_a_dice_match_over_the_protocol_sends_natures_roll_in_the_joint_move() -> None:
    from support.protocol import serving

    from gdl.protocol.manager import host
    from gdl.protocol.server import PlayerServer

    made: list[Guesser] = []

    def make() -> Guesser:
        made.append(Guesser())
        return made[-1]

    with serving(PlayerServer(make, margin=0.1, capacity=4)) as url:
        record = host(_dice(), {"guesser": url, "house": "random"}, 10, 5, seed=3)
    assert record.goals == {"guesser": 100, "house": 0} and record.error_count("guesser") == 0
    handed = made[0].handed[-1]  # the server's player followed the joint moves: it knows the state
    assert isinstance(handed, State) and f"(roll {_rolled(handed.fluents())})" == record.moves[0]["random"]


def test_the_dice_game_is_valued_at_100_by_every_solver(capsys: pytest.CaptureFixture[str]) -> None:
    game = _dice()
    solution = solve(game)
    assert solution.solved and solution.value == {"guesser": 100, "house": 0}
    assert main(["solve", str(GAMES / "dice.kif"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["goal_value"] == {"guesser": pytest.approx(100), "house": pytest.approx(0, abs=1e-9)}
    # The extensive form: the guesser decides knowing the roll, one information set per face.
    extensive = extensive_from_gdl(game)
    sets = extensive.infosets_of("guesser")
    assert len(sets) == 6
    faces = {key: {h[0] for h, n in extensive.walk() if isinstance(n, Decision) and n.infoset == key}
             for key in (s.key for s in sets)}
    assert sorted(faces.values(), key=str) == [{f"(roll {n})"} for n in FACES]


def test_the_dice_environments_tell_the_guesser_the_roll() -> None:
    pytest.importorskip("pettingzoo")
    pytest.importorskip("pyspiel")
    import pyspiel

    import gdl.env
    from gdl.env import openspiel_game

    game = _dice()
    env = gdl.env.env(game)
    encoding = env.unwrapped.encoding
    for seed in range(6):
        env.reset(seed=seed)
        final = {}
        while env.agents:
            agent = env.agent_selection
            observation, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                final[agent] = reward
                env.step(None)
                continue
            mask = observation["action_mask"]
            move = None
            if agent == "guesser" and mask.sum() > 1:
                held = {encoding.fluents[i] for i in observation["observation"].nonzero()[0]}
                move = parse_term(f"(guess {_rolled(frozenset(held))})")
            legal = [encoding.moves[agent][i] for i in mask.nonzero()[0]]
            env.step(encoding.action(agent, move if move is not None else legal[0]))
        assert final == {"guesser": 1.0, "house": 0.0}
    spiel = openspiel_game(game)
    assert spiel.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    known = set()
    for action, _ in spiel.new_initial_state().chance_outcomes():
        state = spiel.new_initial_state()
        state.apply_action(action)
        assert state.current_player() == 0  # the guesser
        known.add(state.information_state_string(0))
    assert len(known) == 6, "the guesser tells every roll apart"


def test_kuhn_every_path_agrees_on_each_players_view() -> None:
    pytest.importorskip("pyspiel")
    import pyspiel

    from gdl.env import openspiel_game

    game = gdl.load(GAMES / "kuhn.kif")
    extensive = extensive_from_gdl(game)
    keys = {s.key for s in extensive.infosets.values()}
    spiel = openspiel_game(game)
    encoding = spiel.encoding
    compared = 0
    for seed in range(6):
        players = {role: Recording(seed * 10 + i) for i, role in enumerate(game.players)}
        record = Match(game, players, play_clock=5, seed=seed, ask_forced=True, isolate=False).run()
        views = {role: [args[0] for _, args in p.calls[1:]] for role, p in players.items()}
        state = spiel.new_initial_state()
        for step, joint in enumerate(record.moves):
            while not state.is_terminal() and state.gdl_state == record.states[step]:
                player = state.current_player()
                role = game.chance_role if player == pyspiel.PlayerId.CHANCE else encoding.players[player]
                if role != game.chance_role:
                    seen = views[role][step].information_state()
                    assert state.information_state_string(player) == seen and seen in keys
                    compared += 1
                state.apply_action(encoding.action(role, parse_term(joint[role])))
        assert state.is_terminal() and state.gdl_state == record.states[-1]
    assert compared >= 12

