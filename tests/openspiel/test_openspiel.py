"""The OpenSpiel bridge, checked against OpenSpiel itself and against the package's own game and solvers."""

from __future__ import annotations

import itertools
import json
import pickle
import sys

import numpy as np
import pytest

pytest.importorskip("pyspiel", reason="the openspiel extra is not installed (pip install -e '.[openspiel]')")

import pyspiel
from conftest import Planted
from ldpomdp.planners.openspiel_player import OpenSpielPlayer
from open_spiel.python.algorithms import cfr, expected_game_score
from open_spiel.python.algorithms import exploitability as os_exploitability

from ldpomdp import CHALLENGE, GameConfig, make_player, play_game
from ldpomdp.exact import ReplayPolicy, exploitability, game_exploitability, solve_round
from ldpomdp.game import ActionTaken, GameState, RoundEnd
from ldpomdp.hands import hand_support
from ldpomdp.openspiel import GAME_NAME, config_of, load, params_of, register
from ldpomdp.openspiel.bots import PackagePolicy, bot, load_policy_table, roll_outcome
from ldpomdp.openspiel.game import DEFAULTS, EXACT_CALL_ROUNDS_PER_DIE
from ldpomdp.rules import VARIANT_DEFAULTS


def _lockstep(dice: int, faces: int) -> tuple[int, int]:
    """Walk every deal and bid sequence of the bridged one-round game and OpenSpiel's ``liars_dice`` together:
    same player to act, same legal actions, same returns, and information states that map one to one.
    Returns (our information states, theirs)."""
    ours = load(players=2, dice=dice, faces=faces, wild=faces, one_round=True)
    theirs = pyspiel.load_game("liars_dice", {"numdice": dice, "dice_sides": faces})
    ours_to_theirs: dict[str, str] = {}
    theirs_to_ours: dict[str, str] = {}
    hands = hand_support(dice, faces)[0]
    for i, j in itertools.product(range(len(hands)), repeat=2):
        o = ours.new_initial_state()
        o.apply_action(i)
        o.apply_action(j)
        t = theirs.new_initial_state()
        for hand in (hands[i], hands[j]):
            for face, count in enumerate(hand):
                for _ in range(count):
                    t.apply_action(face)
        stack = [(o, t)]
        while stack:
            o, t = stack.pop()
            assert o.is_terminal() == t.is_terminal()
            if o.is_terminal():
                assert o.returns() == t.returns()
                continue
            player = o.current_player()
            assert player == t.current_player()
            legal = o.legal_actions()
            assert legal == t.legal_actions()
            ko, kt = o.information_state_string(player), t.information_state_string(player)
            assert ours_to_theirs.setdefault(ko, kt) == kt
            assert theirs_to_ours.setdefault(kt, ko) == ko
            stack.extend((o.child(a), t.child(a)) for a in legal)
    return len(ours_to_theirs), len(theirs_to_ours)


@pytest.mark.parametrize("dice, faces", [(1, 6), (2, 3)])
def test_one_round_is_openspiels_liars_dice(dice, faces):
    ours, theirs = _lockstep(dice, faces)
    assert ours == theirs == 24576  # 2 players x hands x 2^(bids - 1) ... as OpenSpiel counts them


def test_a_hands_chance_probability_is_the_sum_over_openspiels_die_by_die_rolls():
    ours = load(dice=2, faces=3, wild=3, one_round=True).new_initial_state()
    theirs = pyspiel.load_game("liars_dice", {"numdice": 2, "dice_sides": 3})
    by_hand: dict[tuple[int, ...], float] = {}
    for rolls in itertools.product(range(3), repeat=2):
        hand = tuple(rolls.count(f) for f in range(3))
        by_hand[hand] = by_hand.get(hand, 0.0) + (1 / 3) ** 2
    hands = ours.rules.hands(2)
    assert {hands[a]: p for a, p in ours.chance_outcomes()} == pytest.approx(by_hand, abs=1e-15)
    assert theirs.new_initial_state().chance_outcomes()[0][1] == pytest.approx(1 / 3)


def _package_exploitability(spec: str, config: GameConfig):
    player = make_player(spec)
    if not callable(getattr(player, "action_probabilities", None)):
        player = ReplayPolicy(lambda: make_player(spec))
    return exploitability(player, config)


@pytest.mark.parametrize("spec, dice, faces, wild", [
    ("nash", 1, 4, 4),
    ("nash", 2, 2, 2),
    ("one-third", 1, 4, 1),
    ("one-third", 2, 2, 2),
    ("expected-count:belief=exact", 1, 3, 3),
])
def test_openspiels_exploitability_of_package_policies_is_the_packages(spec, dice, faces, wild):
    """OpenSpiel's NashConv sums both seats' best-response gains, its exploitability is half of it: the package's
    ``as_opener + as_responder`` and ``average`` (seat 0 opens the round). Small rounds: OpenSpiel's Python best
    response takes minutes on the 12-bid round of one six-sided die each."""
    game = load(dice=dice, faces=faces, wild=wild, one_round=True)
    ours = _package_exploitability(spec, GameConfig(dice=dice, faces=faces, wild=wild))
    nash_conv = os_exploitability.nash_conv(game, PackagePolicy(spec, game))
    assert nash_conv == pytest.approx(ours.as_opener + ours.as_responder, abs=1e-9)
    assert os_exploitability.exploitability(game, PackagePolicy(spec, game)) == pytest.approx(ours.average, abs=1e-9)
    if spec != "nash":
        assert ours.average > 1e-3  # a non-trivial check: these players are exploitable


def test_openspiels_cfr_plus_converges_to_the_packages_lp_value():
    """|value of the average strategy - the LP value| is at most its NashConv (zero-sum), which CFR+ drives down."""
    game = load(dice=1, faces=3, wild=3, one_round=True)
    value = solve_round(GameConfig(dice=1, faces=3, wild=3)).value
    solver = cfr.CFRPlusSolver(game)
    gaps = []
    for _ in range(2):
        for _ in range(50):
            solver.evaluate_and_update_policy()
        average = solver.average_policy()
        nash_conv = os_exploitability.nash_conv(game, average)
        played = expected_game_score.policy_value(game.new_initial_state(), [average, average])[0]
        assert abs(played - value) <= nash_conv
        gaps.append(nash_conv)
    assert gaps[1] < gaps[0] / 2 and gaps[1] < 2e-3


def _random_decision_states(game, games, seed):
    """Each decision state of ``games`` random games of ``game`` in turn (one generator draws the rolls and the
    moves); after each one is yielded, a uniform legal move is applied to it."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(roll_outcome(state, rng))
                continue
            yield state
            state.apply_action(int(rng.choice(state.legal_actions())))


def _assert_one_string_per_tensor(state, by_string, by_tensor):
    """Every player's information state string and tensor of ``state`` name each other one to one (so far)."""
    for p in range(state.get_game().num_players()):
        key, tensor = state.information_state_string(p), tuple(state.information_state_tensor(p))
        assert by_string.setdefault((p, key), tensor) == tensor
        assert by_tensor.setdefault(tensor, key) == key


def _bridged_game(specs, game, seed):
    rng = np.random.default_rng(seed)
    bots = [bot(spec, game, seat, rng) for seat, spec in enumerate(specs)]
    state = game.new_initial_state()
    while not state.is_terminal():
        seat = state.current_player()
        state.apply_action(roll_outcome(state, rng) if state.is_chance_node() else bots[seat].step(state))
    return state


@pytest.mark.parametrize("specs, dice, opener", [
    (["one-third", "bluff:0.3"], 3, "after_challenger"),
    (["expected-count:belief=exact", "random"], 2, "loser"),
    (["bluff:0.2", "random", "one-third"], 2, "after_challenger"),
])
def test_a_game_through_the_bridge_replays_the_packages_seeded_game(specs, dice, opener):
    config = GameConfig(num_players=len(specs), dice=dice, opener=opener)
    game = load(players=len(specs), dice=dice, opener=opener)
    for seed in range(4):
        record = play_game(config, [make_player(s) for s in specs], np.random.default_rng(seed))
        state = _bridged_game(specs, game, seed)
        assert [r for _, r in state.rounds] == record.rounds
        assert state.returns() == [1.0 if s == record.winner else -1.0 / (len(specs) - 1) for s in range(len(specs))]


def test_first_opener_is_play_games_argument():
    config = GameConfig(dice=2)
    record = play_game(config, [make_player("one-third"), make_player("random")], np.random.default_rng(3),
                       first_opener=1)
    game = load(dice=2, first_opener=1)
    rng = np.random.default_rng(3)
    bots = [bot("one-third", game, 0, rng), bot("random", game, 1, rng)]
    state = game.new_initial_state()
    while not state.is_terminal():
        seat = state.current_player()
        state.apply_action(roll_outcome(state, rng) if state.is_chance_node() else bots[seat].step(state))
    assert [r for _, r in state.rounds] == record.rounds


def test_returns_of_the_whole_game_and_of_one_round_with_three_players():
    """The whole game: the winner +1, the others -1/2; one round: its loser -1, the others +1/2."""
    whole = _bridged_game(["one-third"] * 3, load(players=3, dice=1), 0)
    winner = next(s for s, d in enumerate(whole.dice) if d > 0)
    assert whole.returns() == [1.0 if s == winner else -0.5 for s in range(3)]
    one = _bridged_game(["one-third"] * 3, load(players=3, dice=1, one_round=True), 0)
    loser = one.rounds[-1][1].loser
    assert len(one.rounds) == 1 and one.returns() == [-1.0 if s == loser else 0.5 for s in range(3)]


@pytest.mark.parametrize("params", [
    {"dice": 2, "faces": 3},
    {"players": 3, "dice": 2, "faces": 4, "wild": 0, "bids": "sixes", "opener": "loser"},
    {"dice": 1, "wild": 6, "one_round": True},
])
def test_openspiels_own_random_simulation_checks_pass(params):
    """OpenSpiel's consistency checks over random games: clone, serialization, returns within the declared utility
    range and summing to zero, observations and tensors of the declared shapes."""
    pyspiel.random_sim_test(load(**params), num_sims=20, serialize=True, verbose=False)


def test_information_state_tensors_and_strings_agree_and_keep_earlier_rounds():
    """Along random games of the whole game: two states share an information-state string exactly when they share
    the tensor (perfect recall in both), and the observation drops all but the last round."""
    game = load(dice=2, faces=3)
    by_string: dict[tuple[int, str], tuple] = {}
    by_tensor: dict[tuple, str] = {}
    for state in _random_decision_states(game, 300, seed=0):
        _assert_one_string_per_tensor(state, by_string, by_tensor)
    assert len(by_string) > 1000
    state = _bridged_game(["one-third", "one-third"], load(dice=3, faces=3), 1)
    assert len(state.rounds) >= 3
    info, obs = state.information_state_string(0), state.observation_string(0)
    assert info.count("shows") == len(state.rounds) and obs.count("shows") == 1
    assert len(game.information_state_tensor_shape()) == 1 and len(game.observation_tensor_shape()) == 1


def test_the_private_part_follows_the_observation_type():
    game = load(dice=1, faces=3, one_round=True)
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(2)
    public = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                        private_info=pyspiel.PrivateInfoType.NONE)
    everyone = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                          private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)
    public_obs, all_obs = game.make_py_observer(public), game.make_py_observer(everyone)
    assert "hand" not in public_obs.string_from(state, 0)
    hands = state.rules.hands(1)  # outcome k: the k-th hand of hand_support
    assert f"hands {','.join(map(str, hands[0]))} {','.join(map(str, hands[2]))}" in all_obs.string_from(state, 1)
    all_obs.set_from(state, 1)
    assert all_obs.dict["hands"].tolist() == [list(hands[0]), list(hands[2])]
    public_obs.set_from(state, 0)
    assert "hand" not in public_obs.dict and "hands" not in public_obs.dict


def test_parameters_map_onto_game_config_and_bad_ones_are_named():
    register()
    game = pyspiel.load_game(GAME_NAME, {"players": 3, "dice": 2, "faces": 4, "wild": 0, "bids": "sixes",
                                         "opener": "loser"})
    assert game.config == GameConfig(num_players=3, dice=2, faces=4, wild=None, bids="sixes", opener="loser")
    assert game.num_distinct_actions() == 6 * 4 + 1 and game.num_players() == 3
    assert config_of({}) == GameConfig()
    with pytest.raises(ValueError, match="wild must be 1, the highest face"):
        config_of({"wild": 3})
    with pytest.raises(ValueError, match="unknown parameter"):
        config_of({"sides": 3})
    with pytest.raises(ValueError, match="first_opener"):
        load(first_opener=2)
    state = load(dice=1, faces=3, one_round=True).new_initial_state()
    state.apply_action(0)
    state.apply_action(0)
    state.apply_action(4)
    with pytest.raises(ValueError, match=r"illegal action 2 \(1x3\)"):
        state.apply_action(2)


def _cfr_policy(tmp_path):
    game = load(dice=1, faces=3, wild=3, one_round=True)
    solver = cfr.CFRPlusSolver(game)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    table = solver.average_policy().to_dict()
    path = tmp_path / "cfr.json"
    path.write_text(json.dumps(table))
    return path, table


def test_a_policy_saved_as_json_loads_as_the_same_table(tmp_path):
    path, table = _cfr_policy(tmp_path)
    assert load_policy_table(path) == {k: [(int(a), float(p)) for a, p in v] for k, v in table.items()}


def test_a_pickled_policy_is_never_unpickled(tmp_path):
    marker, path = tmp_path / "code-ran", tmp_path / "policy.pkl"
    path.write_bytes(pickle.dumps({"state": Planted(marker)}))
    with pytest.raises(ValueError, match=r"^player spec .*: openspiel policy file '.*policy\.pkl' is not JSON \(.*"
                                         r"\): save the table with json\.dump.*pickles are not read"):
        make_player(f"openspiel:policy={path}")
    assert not marker.exists()


@pytest.mark.parametrize("content, problem", [
    ("[1, 2]", "holds no {information state: [[action, probability], ...]} table"),
    ("{}", "holds no"),
    ('{"s": [1, 2, 3]}', "the entry of information state 's' is not a list of [action, probability] pairs"),
    ('{"s": [[0, 0.5, 1]]}', "information state 's' is not a list"),
    ('{"s": [[0, 1.5]]}', "information state 's' is not a list"),
    ('{"s": [[-1, 1]]}', "information state 's' is not a list"),
    ('{"s": []}', "information state 's' is not a list"),
    ("{'s': 1}", "is not JSON (Expecting property name"),
])
def test_a_policy_file_that_is_not_a_policy_is_one_line_naming_the_file(tmp_path, content, problem):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError) as err:
        make_player(f"openspiel:policy={path}")
    text = str(err.value)
    assert text.startswith(f"player spec 'openspiel:policy={path}': openspiel policy file '{path}'")
    assert "\n" not in text
    assert problem in text


def test_a_saved_openspiel_policy_plays_at_the_packages_table(tmp_path):
    """Every decision of ``openspiel:policy=PATH`` has positive probability in the saved table at its information
    state, and its choices follow the table (frequencies within 4 sigma)."""
    path, table = _cfr_policy(tmp_path)
    game = load(dice=1, faces=3, wild=3, one_round=True)
    config = GameConfig(dice=1, faces=3, wild=3)
    seen: dict[str, list[int]] = {}  # the policy player's information states and the actions it took there
    rng = np.random.default_rng(0)
    for _ in range(400):
        player = make_player(f"openspiel:policy={path}")
        record = play_game(config, [player, make_player("one-third")], rng)
        (r,) = record.rounds
        state = game.new_initial_state()
        for hand in r.hands:
            state.apply_action(state.rules.outcome(hand))
        for seat, action in list(r.actions) + [(r.challenger, CHALLENGE)]:
            if seat == 0:
                seen.setdefault(state.information_state_string(0), []).append(state.rules.encode(action))
            state.apply_action(state.rules.encode(action))
    checked = 0
    for key, actions in seen.items():
        probs = dict(table[key])
        assert all(probs[a] > 0 for a in actions)
        if len(actions) >= 30:
            for a, p in probs.items():
                share = actions.count(a) / len(actions)
                assert abs(share - p) <= 4 * np.sqrt(p * (1 - p) / len(actions)) + 1e-12
            checked += 1
    assert checked >= 3


def test_a_policy_without_the_information_state_is_a_clear_error(tmp_path):
    path, _ = _cfr_policy(tmp_path)
    with pytest.raises(Exception, match="no entry for information state"):
        play_game(GameConfig(dice=1, faces=4, wild=4), [make_player(f"openspiel:policy={path}"),
                                                        make_player("one-third")], np.random.default_rng(0))


def test_ismcts_resamples_the_other_hands_from_the_belief():
    """With the belief assuming the conservative player (it bids only what its hand makes true), every hand ISMCTS
    samples for it holds the bid it made; a resampler ignoring the belief would not."""
    config = GameConfig(dice=3, faces=6)
    player = OpenSpielPlayer(bot="ismcts", sims=20, belief="exact", assume="conservative", seed=1)
    sampled = []
    original = player._resample

    def spy(state, seat):
        new = original(state, seat)
        sampled.append((new.hands[1 - player.seat], new.history_actions()))
        assert new.information_state_string(seat) == state.information_state_string(seat)
        return new

    player._resample = spy
    for seed in range(3):
        play_game(config, [player, make_player("conservative")], np.random.default_rng(seed))
    checked = 0
    for hand, history in sampled:
        theirs = [a for seat, a in history if seat == 1]
        if theirs:
            bid = theirs[-1]
            wild = 0 if bid.face == 1 else hand[0]
            assert hand[bid.face - 1] + wild >= bid.quantity
            checked += 1
    assert checked > 20


def test_ismcts_is_reproducible_from_its_seed_and_plays_legally():
    config = GameConfig(dice=2)
    records = [play_game(config, [make_player("openspiel:bot=ismcts,sims=30,seed=4"), make_player("one-third")],
                         np.random.default_rng(9)) for _ in range(2)]
    assert records[0].rounds == records[1].rounds


def test_openspiel_specs_report_bad_parameters():
    with pytest.raises(ValueError, match="bot must be one of"):
        make_player("openspiel:bot=alphazero")
    with pytest.raises(ValueError, match="needs policy=PATH"):
        make_player("openspiel:bot=policy")
    with pytest.raises(ValueError, match="does not exist"):
        make_player("openspiel:policy=/no/such/file.json")
    player = make_player("openspiel:bot=ismcts")
    with pytest.raises(ValueError, match="same dice"):
        player.reset(0, GameConfig(dice=(2, 3)))


def test_package_bots_take_turns_only_at_their_seat():
    game = load(dice=1, faces=3, one_round=True)
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    with pytest.raises(ValueError, match="seat 1 asked to act at seat 0"):
        bot("one-third", game, 1).step(state)
    assert isinstance(bot("one-third", game, 0).step(state), int)


def test_import_ldpomdp_does_not_import_the_bridge():
    import subprocess
    code = "import ldpomdp, sys; print('pyspiel' in sys.modules, 'ldpomdp.openspiel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


class EventLog:
    """Plays ``spec`` and keeps every event it is shown."""

    def __init__(self, spec):
        self.player, self.events = make_player(spec), []

    def reset(self, seat, config):
        self.player.reset(seat, config)
        self.events = []

    def act(self, view, rng):
        return self.player.act(view, rng)

    def observe(self, event):
        self.player.observe(event)
        self.events.append(event)


def test_events_of_a_state_are_those_play_game_shows():
    log = EventLog("one-third")
    config = GameConfig(dice=2)
    play_game(config, [log, make_player("random")], np.random.default_rng(5))
    state = _bridged_game(["one-third", "random"], load(dice=2), 5)
    events = state.events()
    assert events == log.events
    assert isinstance(events[-1], RoundEnd) and any(isinstance(e, ActionTaken) for e in events)



# ---------------------------------------------------------------- the rule variants

VARIANT_CONFIGS = {
    "perudo": GameConfig.preset("perudo", dice=3),
    "dudo": GameConfig.preset("dudo", dice=3),
    "perudo-3-players-loser-opens": GameConfig.preset("perudo", num_players=3, dice=2, opener="loser"),
    "exact-call": GameConfig(dice=3, exact_call=True),
    "palifico": GameConfig(dice=3, wild=6, palifico=True),
    "perudo-bids": GameConfig(dice=3, wild_bids="perudo"),
    "loss-difference": GameConfig(num_players=3, dice=3, loss="difference"),
}


@pytest.mark.parametrize("config", [GameConfig(), *VARIANT_CONFIGS.values(),
                                    GameConfig(dice=2, wild=None, palifico=True, palifico_round=True),
                                    GameConfig.preset("dudo", faces=4, bids="full", opener="loser")],
                         ids=["defaults", *VARIANT_CONFIGS, "palifico-round", "dudo-4-faces"])
def test_parameters_round_trip_every_variant(config):
    params = params_of(config)
    assert config_of(params) == config and load(**params).config == config
    assert set(params) - set(DEFAULTS) == set()
    assert {k: v for k, v in params.items() if k in VARIANT_DEFAULTS} == config.variants  # today's rules: none


def test_no_variant_parameters_is_todays_game_and_bad_variants_are_named():
    game, default = load(dice=3), load(dice=3, wild_bids="plain", exact_call=False, palifico=False, loss="one")
    assert game.config == default.config == GameConfig(dice=3)
    assert game.num_distinct_actions() == default.num_distinct_actions() == 6 * 6 + 1
    assert game.max_game_length() == default.max_game_length()
    perudo = load(**params_of(GameConfig.preset("perudo", dice=3)))
    assert perudo.num_distinct_actions() == 6 * 6 + 2  # the exact call after the challenge
    assert perudo.information_state_tensor_shape()[0] > game.information_state_tensor_shape()[0]
    with pytest.raises(ValueError, match="loss must be one of"):
        config_of({"loss": "two"})
    with pytest.raises(ValueError, match="wild_bids='perudo' needs wild=1"):
        load(wild=6, wild_bids="perudo")
    with pytest.raises(ValueError, match="max_rounds must be an integer >= 0"):
        load(max_rounds=-1)


def _package_state_beside(config: GameConfig, seed: int):
    """A random game walked in the package's GameState and in the bridged state side by side: at every decision the
    same seat, view and legal actions. Returns both at the end."""
    game = load(**params_of(config))
    state, package = game.new_initial_state(), GameState(config, np.random.default_rng(seed))
    rolls, choices = np.random.default_rng(seed), np.random.default_rng(seed + 1000)
    while not package.over:
        package.start_round()
        rnd = package.round
        while state.is_chance_node():
            state.apply_action(roll_outcome(state, rolls))
        while rnd.end is None:
            view = rnd.view()
            assert state.current_player() == rnd.seat and state.player_view() == view
            assert state.palifico == rnd.palifico and state.round_config == view.config
            legal = view.legal_actions()
            assert state.legal_actions() == sorted(state.rules.encode(a) for a in legal)
            action = legal[int(choices.integers(len(legal)))]
            state.apply_action(state.rules.encode(action))
            package.play(action)
    return state, package


@pytest.mark.parametrize("name", sorted(VARIANT_CONFIGS))
def test_random_games_under_the_variants_walk_the_packages_game_state(name):
    """Random play (the exact call included) through the bridge and the package's GameState together: the same
    seat, view, legal actions and palifico rounds at every decision, the same rounds, and returns from the
    package's winner."""
    config = VARIANT_CONFIGS[name]
    n, seen = config.num_players, {"exact": 0, "palifico": 0, "many": 0}
    for seed in range(12):
        state, package = _package_state_beside(config, seed)
        assert state.is_terminal() and [r for _, r in state.rounds] == package.record.rounds
        assert state.returns() == [1.0 if s == package.record.winner else -1.0 / (n - 1) for s in range(n)]
        seen["exact"] += sum(r.exact for r in package.record.rounds)
        seen["palifico"] += sum(r.palifico for r in package.record.rounds)
        starts = [dice for dice, _ in state.rounds] + [state.dice]
        seen["many"] += any(sum(a) - sum(b) > 1 for a, b in zip(starts, starts[1:], strict=False))
    assert (seen["exact"] > 0) == config.exact_call and (seen["palifico"] > 0) == config.palifico
    assert (seen["many"] > 0) == (config.loss == "difference")  # several dice lost in one round


@pytest.mark.parametrize("specs, name", [
    (["one-third", "random"], "perudo"),
    (["expected-count:belief=exact", "bluff:0.3"], "perudo"),
    (["one-third", "random"], "dudo"),
    (["random", "one-third", "expected-count:belief=exact"], "perudo-3-players-loser-opens"),
    (["expected-count:belief=exact", "random"], "exact-call"),
    (["random", "bluff:0.2"], "palifico"),
])
def test_a_variant_game_through_the_bridge_replays_the_packages_seeded_game(specs, name):
    config = VARIANT_CONFIGS[name]
    game = load(**params_of(config))
    for seed in range(3):
        record = play_game(config, [make_player(s) for s in specs], np.random.default_rng(seed))
        state = _bridged_game(specs, game, seed)
        assert [r for _, r in state.rounds] == record.rounds
        assert state.returns() == [1.0 if s == record.winner else -1.0 / (len(specs) - 1) for s in range(len(specs))]


@pytest.mark.parametrize("params", [
    params_of(GameConfig.preset("perudo", dice=2, faces=4)),
    params_of(GameConfig.preset("dudo", dice=2)),
    params_of(GameConfig.preset("perudo", num_players=3, dice=2, opener="loser")),
    {"dice": 2, "faces": 4, "palifico": True, "wild": 0, "palifico_round": True, "one_round": True},
    {"dice": 3, "faces": 3, "loss": "difference", "exact_call": True, "one_round": True},
    {"dice": 2, "exact_call": True, "max_rounds": 3},
], ids=["perudo", "dudo", "perudo-3-players", "palifico-round", "loss-exact-one-round", "exact-call-capped"])
def test_openspiels_random_simulation_checks_pass_under_the_variants(params):
    pyspiel.random_sim_test(load(**params), num_sims=20, serialize=True, verbose=False)


def test_a_capped_game_is_a_draw_and_the_exact_call_caps_by_default():
    whole = load(dice=2, max_rounds=1)
    state = _bridged_game(["one-third", "one-third"], whole, 0)
    assert len(state.rounds) == 1 and state.dice != (0, 2) and state.returns() == [0.0, 0.0]
    assert load(dice=2, max_rounds=99).max_game_length() == load(dice=2).max_game_length()  # the rules end sooner
    perudo = load(**params_of(GameConfig.preset("perudo", dice=2)))
    assert perudo.rules.max_rounds == EXACT_CALL_ROUNDS_PER_DIE * 4
    assert load(**params_of(GameConfig.preset("perudo", dice=2)), max_rounds=7).rules.max_rounds == 7


@pytest.mark.parametrize("preset", ["perudo", "dudo"])
@pytest.mark.parametrize("spec", ["nash", "one-third", "random"])
def test_openspiels_exploitability_under_a_preset_is_the_packages(preset, spec):
    """One round of a preset: the bridge's payoff (each seat's dice change minus the other's) is the package's
    round payoff (exact call, loss by the difference), so OpenSpiel's exploitability equals the package's."""
    config = GameConfig.preset(preset, dice=1, faces=3)
    game = load(**params_of(config), one_round=True)
    ours = _package_exploitability(spec, config)
    assert os_exploitability.exploitability(game, PackagePolicy(spec, game)) == pytest.approx(ours.average, abs=1e-9)
    if spec != "nash":
        assert ours.average > 1e-3


@pytest.mark.parametrize("rounds", [1, 2])
@pytest.mark.parametrize("spec", ["one-third", "random", "cfr"])
def test_openspiels_exploitability_of_the_whole_game_under_the_exact_call_is_the_packages(spec, rounds):
    """Perudo, one die each: a right exact call repeats the round, so the game has no longest line and OpenSpiel,
    which walks the whole tree, plays it capped at ``max_rounds`` (a game the cap stops is a draw). That capped
    game is the package's ``game_exploitability(rounds=max_rounds)``, whose figures converge to the uncapped one
    (tests/exact/test_game_exploitability.py). Two faces: OpenSpiel's tree of two rounds with three faces takes half an
    hour."""
    config = GameConfig.preset("perudo", dice=1, faces=2)
    game = load(**params_of(config, max_rounds=rounds))
    ours = game_exploitability(make_player(spec), config, rounds=rounds)
    assert os_exploitability.exploitability(game, PackagePolicy(spec, game)) == pytest.approx(ours.average, abs=1e-9)
    assert ours.average > 1e-3 or spec == "cfr"


@pytest.mark.parametrize("spec", ["one-third", "random"])
def test_openspiels_exploitability_of_the_one_die_dudo_game_is_the_packages(spec):
    """Dudo, one die each: the whole game (uncapped) is one round, +1/-1."""
    config = GameConfig.preset("dudo", dice=1, faces=3)
    game = load(**params_of(config))
    ours = game_exploitability(make_player(spec), config)
    assert os_exploitability.exploitability(game, PackagePolicy(spec, game)) == pytest.approx(ours.average, abs=1e-9)


def test_one_round_returns_are_the_dice_change_under_loss_by_the_difference():
    game = load(**params_of(GameConfig.preset("dudo", dice=3)), one_round=True)
    assert (game.min_utility(), game.max_utility()) == (-3.0, 3.0)
    seen = set()
    for seed in range(20):
        state = _bridged_game(["random", "random"], game, seed)
        (dice, record), = state.rounds
        lost = dice[record.loser] - state.dice[record.loser]
        assert state.returns() == [-lost if s == record.loser else lost for s in range(2)]
        seen.add(lost)
    assert len(seen) > 1


def test_tensors_and_strings_agree_under_perudo_and_show_palifico_rounds():
    game = load(**params_of(GameConfig.preset("perudo", dice=2, faces=3)))
    by_string: dict[tuple[int, str], tuple] = {}
    by_tensor: dict[tuple, str] = {}
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False))
    palifico = 0
    for state in _random_decision_states(game, 200, seed=0):
        _assert_one_string_per_tensor(state, by_string, by_tensor)
        observer.set_from(state, 0)
        assert observer.dict["palifico"][0] == state.palifico
        assert ("palifico:" in state.observation_string(0).split("|")[-1]) == state.palifico  # this round
        palifico += state.palifico
    assert len(by_string) > 1000 and palifico > 50


def test_events_of_a_variant_state_are_those_play_game_shows():
    config = VARIANT_CONFIGS["perudo"]
    for seed in range(6):
        log = EventLog("random")
        play_game(config, [log, make_player("random")], np.random.default_rng(seed))
        assert _bridged_game(["random", "random"], load(**params_of(config)), seed).events() == log.events


def test_openspiel_bots_play_the_presets_at_the_packages_table(tmp_path):
    """A policy solved for Dudo with one die each (one round: every call costs a die) plays at the package's Dudo
    table; one solved for today's rules is refused there, naming the mismatch; ISMCTS plays whole Perudo games (the
    exact call and palifico rounds)."""
    config = GameConfig.preset("dudo", dice=1, faces=3)
    game = load(**params_of(config), one_round=True)
    solver = cfr.CFRPlusSolver(game)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    path = tmp_path / "dudo.json"
    path.write_text(json.dumps(solver.average_policy().to_dict()))
    rng = np.random.default_rng(0)
    for _ in range(30):
        record = play_game(config, [make_player(f"openspiel:policy={path}"), make_player("random")], rng)
        assert all(bid.face != 1 for seat, bid in record.rounds[0].actions[:1])  # Perudo bids: no opening on ones
    today, _ = _cfr_policy(tmp_path)  # one round of 1 die, 3 faces, threes wild: ones open there
    with pytest.raises(Exception, match="saved for other rules"):
        play_game(config, [make_player(f"openspiel:policy={today}"), make_player("random")], np.random.default_rng(0))
    perudo = GameConfig.preset("perudo", dice=2)
    records = [play_game(perudo, [make_player("openspiel:bot=ismcts,sims=20,seed=1"), make_player("random")],
                         np.random.default_rng(seed)) for seed in range(3)]
    assert any(r.exact for record in records for r in record.rounds)
    assert any(r.palifico for record in records for r in record.rounds)
