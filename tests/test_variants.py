"""The rule variants (Perudo bids on ones, the exact call, palifico, loss by the difference) and the presets:
hand-worked rule cases under both opener rules, every player of the zoo playing them, and the solvers on them."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

from ldpomdp.exact.two_player.table import rules_key
from ldpomdp.game import GameState, RoundEnd, RoundStart, play_game
from ldpomdp.registry import make_player, registered_names
from ldpomdp.round_end import round_ends, settle_round
from ldpomdp.rules import CHALLENGE, EXACT, Bid, GameConfig, is_legal, is_raise, legal_actions, minimal_raises

OPENERS = ("after_challenger", "loser")
PERUDO_BIDS = {"wild_bids": "perudo"}


def _smallest(config: GameConfig, bid: Bid | None, face: int, table: int = 30) -> int | None:
    """The smallest quantity of a legal bid on ``face`` over ``bid``, from the legal actions."""
    return min((a.quantity for a in legal_actions(config, table, bid) if isinstance(a, Bid) and a.face == face),
               default=None)


# ---------------------------------------------------------------- the bid order

@pytest.mark.parametrize("opener", OPENERS)
def test_perudo_bids_on_ones_hand_worked(opener):
    config = GameConfig(num_players=3, dice=10, opener=opener, **PERUDO_BIDS)
    assert _smallest(config, Bid(5, 4), 1) == 3  # after 5 x 4, ceil(5 / 2) ones
    assert is_raise(config, Bid(3, 1), Bid(5, 4)) and not is_raise(config, Bid(2, 1), Bid(5, 4))
    assert Bid(3, 1) in minimal_raises(config, 30, Bid(5, 4))
    for face in range(2, 7):  # after 3 x 1, 2 * 3 + 1 on any other face
        assert _smallest(config, Bid(3, 1), face) == 7
        assert not is_raise(config, Bid(6, face), Bid(3, 1)) and is_raise(config, Bid(7, face), Bid(3, 1))
    assert _smallest(config, Bid(3, 1), 1) == 4  # ones over ones, others over others: as plain
    assert _smallest(config, Bid(5, 4), 5) == 5 and _smallest(config, Bid(5, 4), 3) == 6
    assert _smallest(config, Bid(6, 4), 1) == 3 and _smallest(config, Bid(7, 4), 1) == 4


@pytest.mark.parametrize("opener", OPENERS)
def test_no_opening_on_ones_outside_palifico(opener):
    config = GameConfig(dice=5, opener=opener, palifico=True, **PERUDO_BIDS)
    assert not any(isinstance(a, Bid) and a.face == 1 for a in legal_actions(config, 10, None))
    assert not is_legal(config, 10, None, Bid(1, 1)) and is_legal(config, 10, None, Bid(1, 2))
    palifico = config.round_rules(palifico=True)
    assert is_legal(palifico, 10, None, Bid(1, 1)) and palifico.wild is None


@pytest.mark.parametrize("opener", OPENERS)
def test_palifico_round_locks_the_opening_face(opener):
    palifico = GameConfig.preset("perudo", dice=5, opener=opener).round_rules(palifico=True)
    assert {a.face for a in legal_actions(palifico, 6, None)} == set(range(1, 7))  # any opening face
    assert legal_actions(palifico, 6, Bid(2, 3)) == (Bid(3, 3), Bid(4, 3), Bid(5, 3), Bid(6, 3), CHALLENGE, EXACT)
    assert not is_legal(palifico, 6, Bid(2, 3), Bid(2, 4)) and not is_legal(palifico, 6, Bid(2, 3), Bid(3, 1))
    plain = GameConfig(dice=5, palifico=True, opener=opener).round_rules(palifico=True)  # without Perudo bids too
    assert minimal_raises(plain, 6, Bid(2, 6)) == (Bid(3, 6),)


def test_exact_call_is_legal_only_over_a_bid_and_only_under_the_rule():
    assert EXACT in legal_actions(GameConfig(exact_call=True), 10, Bid(2, 3))
    assert EXACT not in legal_actions(GameConfig(exact_call=True), 10, None)
    assert not is_legal(GameConfig(), 10, Bid(2, 3), EXACT)
    assert legal_actions(GameConfig(exact_call=True), 2, Bid(2, 6)) == (CHALLENGE, EXACT)  # the top bid


# ---------------------------------------------------------------- settling a round

HANDS = np.array([(1, 0, 2, 0, 0, 0), (0, 0, 1, 1, 0, 0)])  # 4 dice match 3 (one wild 1)


def test_exact_call_regains_a_die_only_up_to_the_starting_count():
    config = GameConfig(dice=5, exact_call=True)
    assert settle_round(config, HANDS, (3, 2), Bid(4, 3), 0, 1, EXACT) == (-1, 4, (3, 3))  # right: a die back
    assert settle_round(config, HANDS, (3, 5), Bid(4, 3), 0, 1, EXACT) == (-1, 4, (3, 5))  # at its start: none
    assert settle_round(config, HANDS, (3, 2), Bid(3, 3), 0, 1, EXACT) == (1, 4, (3, 1))  # wrong: it loses one
    assert settle_round(config, HANDS, (3, 2), Bid(5, 3), 0, 1, EXACT) == (1, 4, (3, 1))


def test_loss_by_the_difference():
    config = GameConfig(dice=5, loss="difference")
    assert settle_round(config, HANDS, (5, 5), Bid(7, 3), 0, 1, CHALLENGE) == (0, 4, (2, 5))  # bidder: 7 - 4
    assert settle_round(config, HANDS, (5, 5), Bid(2, 3), 0, 1, CHALLENGE) == (1, 4, (5, 2))  # caller: 4 - 2 + 1
    assert settle_round(config, HANDS, (5, 2), Bid(1, 3), 0, 1, CHALLENGE) == (1, 4, (5, 0))  # never below none
    assert settle_round(GameConfig(dice=5), HANDS, (5, 5), Bid(7, 3), 0, 1, CHALLENGE) == (0, 4, (4, 5))


class _Script:
    """Plays a fixed list of actions (one per turn of the game, any seat)."""

    def __init__(self, state: GameState, moves: list):
        self.state, self.moves = state, list(moves)

    def round(self, hands, moves) -> list:
        self.state.start_round()
        self.state.round.hands = tuple(tuple(h) for h in hands)
        events = []
        for move in moves:
            events += self.state.play(move)
        return events


@pytest.mark.parametrize("opener", OPENERS)
def test_exact_call_in_a_game_events_and_next_opener(opener):
    config = GameConfig(num_players=3, dice=(2, 3, 2), exact_call=True, opener=opener)
    state = GameState(config, np.random.default_rng(0))
    state.dice = (2, 2, 2)  # seat 1 is a die below its start
    hands = [(1, 0, 1, 0, 0, 0), (0, 0, 1, 0, 0, 1), (0, 1, 0, 0, 0, 1)]  # 3 dice match 3
    events = _Script(state, []).round(hands, [Bid(2, 3), EXACT])  # seat 1 calls 2 x 3 exact: wrong
    end = events[-1]
    assert isinstance(end, RoundEnd) and end.exact and end.loser == 1 and end.dice_after == (2, 1, 2)
    assert state.opener == (1 if opener == "loser" else 2)
    state.dice = (2, 2, 2)
    state.opener = 0
    end = _Script(state, []).round(hands, [Bid(3, 3), EXACT])[-1]  # right: seat 1 regains its third die
    assert end.exact and end.loser is None and end.regained == 1 and end.dice_after == (2, 3, 2)
    assert state.opener == (1 if opener == "loser" else 2)  # the caller in the challenger's place
    assert state.record.rounds[-1].exact and state.record.successful_challenges == [0, 1, 0]


@pytest.mark.parametrize("opener", OPENERS)
def test_palifico_round_follows_the_first_drop_to_one_die_once_per_player(opener):
    config = GameConfig.preset("perudo", num_players=2, dice=3, opener=opener)
    state = GameState(config, np.random.default_rng(0))
    script = _Script(state, [])
    hands = [(1, 1, 1, 0, 0, 0), (0, 0, 0, 1, 1, 1)]  # 2 dice match 2 .. 6 with the wild 1; 1 one
    script.round(hands, [Bid(5, 2), CHALLENGE])  # seat 0 loses: 2 dice
    assert state.dice == (2, 3) and not state.palifico_next
    events = script.round([(1, 1, 0, 0, 0, 0), hands[1]], [Bid(4, 2), CHALLENGE])  # seat 0 drops to one die
    assert state.dice == (1, 3) and state.palifico_next and not events[-1].palifico
    start = state.start_round()
    assert isinstance(start, RoundStart) and start.palifico
    view = state.round.view()
    assert view.config.wild is None and view.config.palifico_round
    state.round.hands = ((1, 0, 0, 0, 0, 0), (0, 0, 1, 1, 1, 0))
    opener_seat = state.round.seat
    state.play(Bid(1, 1))  # the opener opens on ones, allowed in a palifico round
    assert state.round.view().legal_actions() == (Bid(2, 1), Bid(3, 1), Bid(4, 1), CHALLENGE, EXACT)
    end = state.play(CHALLENGE)[-1]  # 1 one on the table, the ones are not wild: the bid holds
    assert end.palifico and end.matching == 1 and end.loser == 1 - opener_seat
    assert not state.palifico_next  # a drop of the other seat to 2 dice: no palifico
    # seat 0 back at 2 dice (a right exact call) and down to 1 again: its palifico round was played
    state.dice, state.opener = (2, 2), 0
    script.round([(1, 1, 0, 0, 0, 0), (0, 0, 1, 1, 0, 0)], [Bid(4, 5), CHALLENGE])
    assert state.dice == (1, 2) and not state.palifico_next


# ---------------------------------------------------------------- configuration

@pytest.mark.parametrize("fields, words", [
    ({"wild_bids": "double"}, "wild_bids must be one of"),
    ({"wild_bids": "perudo", "wild": 6}, "needs wild=1"),
    ({"wild_bids": "perudo", "wild": None}, "needs wild=1"),
    ({"wild_bids": "perudo", "bids": "sixes"}, "bids='full'"),
    ({"exact_call": "yes"}, "exact_call must be True or False"),
    ({"palifico": 1}, "palifico must be True or False"),
    ({"loss": "two"}, "loss must be one of"),
    ({"palifico_round": True}, "palifico_round"),
    ({"raise_order": "up"}, "raise_order must be one of"),
    ({"raise_order": "no_lower", "bids": "sixes"}, "raise_order='no_lower' needs bids='full'"),
    ({"raise_order": "no_lower", "wild_bids": "perudo"}, "raise_order='no_lower' needs bids='full'"),
])
def test_bad_variant_fields_are_refused_naming_them(fields, words):
    with pytest.raises(ValueError, match=words):
        GameConfig(**fields)


def test_presets_and_their_pass_through():
    perudo = GameConfig.preset("perudo", num_players=4, dice=5)
    assert (perudo.wild, perudo.wild_bids, perudo.exact_call, perudo.palifico, perudo.loss) == (
        1, "perudo", True, True, "one")
    assert perudo.num_players == 4
    dudo = GameConfig.preset("dudo", opener="loser")
    assert (dudo.wild, dudo.wild_bids, dudo.exact_call, dudo.palifico, dudo.loss, dudo.opener) == (
        1, "perudo", False, False, "difference", "loser")
    assert GameConfig.preset("dudo", loss="one").loss == "one"  # fields override the preset's
    with pytest.raises(ValueError, match="unknown rule set 'calza'"):
        GameConfig.preset("calza")
    assert GameConfig().variants == {} and GameConfig().describe() == "full game, 6 faces, ones wild"
    assert "exact call" in perudo.describe() and "loss by the difference" in dudo.describe()


def test_the_textarena_raise_order_lowers_neither_quantity_nor_face():
    config = GameConfig.preset("textarena")
    assert (config.wild, config.raise_order, config.variants) == (None, "no_lower", {"raise_order": "no_lower"})
    assert "raises lower neither quantity nor face" in config.describe()
    bids = [a for a in legal_actions(config, 4, Bid(2, 4)) if isinstance(a, Bid)]
    assert bids == [Bid(2, 5), Bid(2, 6), Bid(3, 4), Bid(3, 5), Bid(3, 6), Bid(4, 4), Bid(4, 5), Bid(4, 6)]
    assert minimal_raises(config, 4, Bid(2, 4)) == (Bid(3, 4), Bid(2, 5), Bid(2, 6))
    assert minimal_raises(config, 4, Bid(3, 6)) == (Bid(4, 6),) and legal_actions(config, 4, Bid(4, 6)) == (CHALLENGE,)
    assert len(legal_actions(config, 4, None)) == 24  # any opening bid, ones too (no wild dice)
    assert rules_key(config) != rules_key(GameConfig(wild=None))  # its tables are its own


def test_palifico_with_one_die_each_is_played_and_warned_about_since_no_palifico_round_can_happen():
    one_each = GameConfig.preset("perudo", num_players=3, dice=1)
    assert one_each.warnings == ("palifico: every player starts with 1 die, so no palifico round can happen",)
    for config in (GameConfig.preset("perudo", num_players=3, dice=(1, 2, 1)), GameConfig.preset("perudo", dice=2),
                   GameConfig(dice=1), GameConfig.preset("dudo", dice=1)):
        assert config.warnings == ()
    players = [make_player("random") for _ in range(3)]
    rounds = [r for seed in range(40) for r in play_game(one_each, players, np.random.default_rng(seed)).rounds]
    assert len(rounds) >= 80 and not any(r.palifico for r in rounds)


def test_round_ends_list_every_end_settle_round_can_reach():
    config = GameConfig.preset("perudo", num_players=3, dice=3, loss="difference")
    dice = (3, 1, 2)
    ends = set(round_ends(config, dice))
    rng = np.random.default_rng(5)
    for _ in range(300):
        hands = np.array([rng.multinomial(d, np.full(6, 1 / 6)) for d in dice])
        bidder, caller = rng.choice(3, size=2, replace=False)
        bid = Bid(int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        loser, _, after = settle_round(config, hands, dice, bid, int(bidder), int(caller),
                                       EXACT if rng.random() < 0.5 else CHALLENGE)
        assert (loser, after) in ends


# ---------------------------------------------------------------- every player plays them


SPECS = {"bluff": "bluff:0.3", "oehm": "oehm:0.2", "burcsi-nagy": "burcsi-nagy:s=0.5,t=0.1",
         "expected-count": "expected-count:particles=500", "pomcp": "pomcp:sims=30,particles=500",
         "best-response": "best-response:assume=random", "lbr": "lbr:one-third",
         "openspiel": "openspiel:bot=ismcts,sims=10",
         "text": "text:agent=examples.text_agents:careful"}  # examples/: a folder of the checkout
# trained on, or solving, today's rules (dqn, best-response) / one small round (nash)
REFUSING = {"dqn": "DQN network plays", "best-response": "solves today's rules only",
            "nash": "MAX_SEQUENCES|two players"}
TWO_PLAYERS = {"lbr", "cfr", "robust"}  # a local best response, the two-player equilibrium (the presets' tables)
PLAYING = sorted(set(registered_names()) - {"human"} - set(REFUSING))
GAMES = 4  # per preset, table size and dice: 32 games per player (benchmarks/variants.py plays 1000)


@pytest.mark.parametrize("name", PLAYING)
def test_every_player_plays_both_presets_legally(name, monkeypatch):
    if name == "openspiel":
        pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    monkeypatch.syspath_prepend(str(ROOT))  # the text agent's example
    for preset in ("perudo", "dudo"):
        for players in (2,) if name in TWO_PLAYERS else (2, 3):
            for dice in (3, 5):
                config = GameConfig.preset(preset, num_players=players, dice=dice)
                others = [make_player("random" if s % 2 else "one-third") for s in range(1, players)]
                seated = [make_player(SPECS.get(name, name))] + others
                rng = np.random.default_rng([players, dice])
                for game in range(GAMES):
                    record = play_game(config, seated[game % players:] + seated[:game % players], rng)
                    assert record.winner in range(players)  # an illegal action would have raised


@pytest.mark.parametrize("name", sorted(REFUSING))
@pytest.mark.parametrize("preset", ("perudo", "dudo"))
def test_players_that_cannot_play_a_preset_refuse_it_clearly(name, preset):
    config = GameConfig.preset(preset, dice=3)
    with pytest.raises(Exception, match=REFUSING[name]):
        play_game(config, [make_player(SPECS.get(name, name)), make_player("random")], np.random.default_rng(0))


@pytest.mark.parametrize("preset", ("perudo", "dudo"))
def test_nash_plays_a_preset_at_one_die_each(preset, tmp_path, monkeypatch):
    monkeypatch.setenv("LDPOMDP_CACHE", str(tmp_path))
    config = GameConfig.preset(preset, dice=1)
    rng = np.random.default_rng(3)
    for _ in range(4):
        assert play_game(config, [make_player("nash"), make_player("random")], rng).winner in (0, 1)


# ---------------------------------------------------------------- environments

@pytest.mark.parametrize("config", [GameConfig.preset("perudo", dice=3), GameConfig.preset("dudo", dice=3),
                                    GameConfig.preset("perudo", num_players=3, dice=2, opener="loser")],
                         ids=["perudo", "dudo", "perudo-3-players-loser-opens"])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api_under_the_presets(config):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from ldpomdp.envs import liars_dice_env

    api_test(liars_dice_env(config), num_cycles=300)


def test_env_action_space_and_mask_include_the_exact_call_and_show_palifico():
    pytest.importorskip("pettingzoo")
    from ldpomdp.envs import liars_dice_env
    from ldpomdp.envs.coding import observation_size
    from ldpomdp.rules import ActionCoding

    config = GameConfig.preset("perudo", dice=2)
    coding = ActionCoding(config)
    assert coding.size == 4 * 6 + 2 and coding.action(coding.exact) is EXACT and coding.index(EXACT) == coding.exact
    assert ActionCoding(GameConfig(dice=2)).size == 4 * 6 + 1  # today's rules: numbering unchanged
    env = liars_dice_env(config)
    env.reset(seed=1)
    assert env.action_space("player_0").n == coding.size
    assert env.observe(env.agent_selection)["action_mask"][coding.exact] == 0  # the opener must bid
    env.step(coding.index(Bid(1, 2)))
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask[coding.exact] == 1 and mask[coding.challenge] == 1 and mask[coding.index(Bid(1, 1))] == 1
    assert observation_size(config) == observation_size(GameConfig(dice=2)) + 1
    seen = []
    for _ in range(200):  # play the game out on the first legal action: a palifico round shows in the flag
        if all(env.terminations.values()):
            break
        obs = env.observe(env.agent_selection)
        seen.append((obs["observation"][-1], env.state.round.palifico))
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert all(flag == float(palifico) for flag, palifico in seen) and any(p for _, p in seen)


# ---------------------------------------------------------------- beliefs in a palifico round

def test_particle_belief_matches_the_exact_belief_in_a_palifico_round():
    """One-third players bid through palifico rounds (3 players, 5 dice; the ones not wild, the face locked); after
    every bid each opponent's particle belief matches the exact one on every face counted without wilds. Tolerance
    4 / sqrt(ESS), as in test_belief.test_particles_match_exact_after_one_third_rounds (which derives it); the check
    could fail: the exact posterior is farther than the tolerance from the prior at least once."""
    from ldpomdp.belief import ExactBelief, TableBelief
    from ldpomdp.game import ActionTaken, RoundState
    from ldpomdp.players import OneThirdRule

    config = GameConfig.preset("perudo", num_players=3, dice=5)
    models = {seat: OneThirdRule() for seat in range(3)}
    informative = checked = 0
    for seed in range(4):
        rnd = RoundState(config, config.starting_dice, seed % 3, np.random.default_rng(seed), palifico=True)
        particles = TableBelief(config, 0, config.starting_dice, models, n_particles=20_000, rng=seed)
        exact = TableBelief(config, 0, config.starting_dice, models, kind="exact")
        while rnd.end is None:
            view = rnd.view()
            assert view.config.wild is None
            for event in rnd.play(models[view.seat].act(view, np.random.default_rng(seed))):
                if not isinstance(event, ActionTaken) or event.seat == 0 or not isinstance(event.action, Bid):
                    continue
                particles.observe_action(event.seat, event.action, event.view)
                exact.observe_action(event.seat, event.action, event.view)
                for seat, belief in particles.beliefs.items():
                    tolerance = 4 / np.sqrt(belief.effective_sample_size)
                    for face in range(1, 7):
                        got = belief.count_distribution(face, None)
                        want = exact.beliefs[seat].count_distribution(face, None)
                        assert 0.5 * np.abs(got - want).sum() < tolerance, (seed, event, seat, face)
                        prior = ExactBelief(5).count_distribution(face, None)
                        informative += 0.5 * np.abs(prior - want).sum() > tolerance
                        checked += 1
    assert checked > 0 and informative > 0


# ---------------------------------------------------------------- the round LP against a brute force

def _count(hands, face: int) -> int:
    """Dice matching ``face`` on the table, the ones wild (both presets)."""
    return sum(h[face - 1] + (h[0] if face != 1 else 0) for h in hands)


def _payoff(config: GameConfig, hands, bid: Bid, caller: int, call) -> int:
    """The opener's dice change minus the responder's when ``caller`` (role) calls ``bid`` at 1 die each, written out
    from the rules' text (never above the starting die: a right exact call gains nothing)."""
    count, sign = _count(hands, bid.face), 1 if caller == 0 else -1
    if call is EXACT:
        return 0 if count == bid.quantity else -sign
    holds = count >= bid.quantity
    lost = 1 if config.loss == "one" else (count - bid.quantity + 1 if holds else bid.quantity - count)
    return -sign * min(lost, 1) if holds else sign * min(lost, 1)


def _brute_best_response(config: GameConfig, solution, role: int) -> float:
    """The payoff to ``role`` of its best response to the LP's strategy of the other role, by recursion over every
    public history and hand: per own hand and history, the best action."""
    from ldpomdp.hands import hand_support

    tree = solution.tree
    support, prior = hand_support(1, config.faces)
    hands = [tuple(int(x) for x in h) for h in support]
    other = 1 - role

    def value(history: tuple, mine: tuple, reach: np.ndarray) -> float:
        actor = len(history) % 2
        bid = history[-1] if history else None
        actions = legal_actions(config, 2, bid)
        if actor == role:
            return max(_outcome(history, a, actor, mine, reach) for a in actions)
        node = tree.node_index[history]
        probs = solution.probabilities(other, np.arange(len(hands)), node)  # (hands, tree actions)
        by_action = dict(zip(tree.actions(node), probs.T, strict=True))
        return sum(_outcome(history, a, actor, mine, reach * by_action.get(a, 0.0)) for a in actions)

    def _outcome(history, action, actor, mine, reach) -> float:
        if isinstance(action, Bid):
            return value(history + (action,), mine, reach)
        total = 0.0
        for theirs, weight in zip(hands, reach, strict=True):
            table = (mine, theirs) if role == 0 else (theirs, mine)
            total += weight * _payoff(config, table, history[-1], actor, action) * (1 if role == 0 else -1)
        return total

    return float(sum(p * value((), h, prior) for h, p in zip(hands, prior, strict=True)))


@pytest.mark.parametrize("preset", ("perudo", "dudo"))
def test_round_lp_value_at_one_die_each_equals_a_brute_force(preset, tmp_path, monkeypatch):
    """The LP's value v is the round's value iff neither role gains by deviating from the LP's strategies: the
    opener's best response to the responder's strategy gets v, the responder's best response to the opener's -v."""
    from ldpomdp.exact import exploitability, solve_round

    monkeypatch.setenv("LDPOMDP_CACHE", str(tmp_path))
    config = GameConfig.preset(preset, dice=1)
    solution = solve_round(config)
    assert _brute_best_response(config, solution, 0) == pytest.approx(solution.value, abs=1e-7)
    assert _brute_best_response(config, solution, 1) == pytest.approx(-solution.value, abs=1e-7)
    plain = solve_round(GameConfig(dice=1)).value
    assert abs(solution.value - plain) > 1e-3  # the variants change the round
    assert exploitability(make_player("nash"), config).average == pytest.approx(0.0, abs=1e-6)
    assert exploitability(make_player("one-third"), config).average > 0.01


@pytest.mark.parametrize("spec", ["one-third", "bluff:0.3", "oehm:0.2", "burcsi-nagy:s=0.5,t=0.1", "aggressive",
                                  "conservative", "random", "mixture"])
@pytest.mark.parametrize("preset", ("perudo", "dudo"))
def test_every_opponent_model_passes_check_opponent_under_the_presets(spec, preset):
    from ldpomdp.players import check_opponent

    config = GameConfig.preset(preset, num_players=3, dice=3)
    assert check_opponent(make_player(spec), config, np.random.default_rng(7), n_states=60, hands_per_state=16) >= 60


# ---------------------------------------------------------------- the terminal game

def test_terminal_player_offers_the_exact_call_and_announces_palifico():
    import io

    from ldpomdp.game import PlayerView
    from ldpomdp.players.human import HumanPlayer

    out = io.StringIO()
    human = HumanPlayer(io.StringIO("e\n"), out)
    config = GameConfig.preset("perudo", dice=2)
    view = PlayerView(config, 0, (2, 2), ((1, Bid(1, 3)),), hand=(1, 0, 1, 0, 0, 0))
    human.reset(0, config)
    assert human.act(view, np.random.default_rng(0)) is EXACT and "e (exact call)" in out.getvalue()
    assert human.parse("e", PlayerView(GameConfig(), 0, (2, 2), ((1, Bid(1, 3)),), hand=(1, 0, 1, 0, 0, 0))) == (
        "these rules have no exact call")
    human.observe(RoundStart(1, (1, 2), 0, palifico=True))
    assert "Palifico round" in out.getvalue()


def test_check_opponent_refuses_a_model_that_gives_an_illegal_exact_call_a_probability():
    from ldpomdp.players import OneThirdRule, check_opponent

    class ExactLover(OneThirdRule):
        def action_probabilities(self, hands, view, action):
            return np.ones(len(hands)) if action is EXACT else super().action_probabilities(hands, view, action)

    with pytest.raises(ValueError, match="illegal action EXACT"):
        check_opponent(ExactLover(), GameConfig(dice=2), np.random.default_rng(0), n_states=20)


# ---------------------------------------------------------------- sweeps and the command line

def test_cell_ids_name_the_variants_only_when_set():
    from ldpomdp.sweeps import Cell

    plain = Cell.of(("one-third", "random"), 5)
    assert plain.id == "players=one-third|random;dice=5;bids=full;faces=6;wild=1;opener=after_challenger"
    dudo = Cell.of(("one-third", "random"), 5, **{"wild_bids": "perudo", "loss": "difference"})
    assert dudo.id == plain.id + ";wild_bids=perudo;loss=difference"
    perudo = Cell.of(("one-third", "random"), 5, **{"wild_bids": "perudo", "exact_call": True, "palifico": True})
    assert [Cell.from_id(c.id) for c in (plain, dudo, perudo)] == [plain, dudo, perudo]  # read back, variants too


def test_cli_rules_options_reach_the_sweep_and_are_refused_where_they_cannot_apply(tmp_path, capsys):
    from ldpomdp.cli import main

    out = tmp_path / "sweep"
    assert main(["sweep", "--players", "one-third,random", "--dice", "2", "--games", "4", "--rules", "dudo",
                 "--exact-call", "--out", str(out), "--no-plot", "--workers", "1", "--no-progress"]) == 0
    header, first, *_ = (out / "summary.csv").read_text().splitlines()
    assert header.endswith(",rules") and first.endswith(",wild_bids=perudo;exact_call=True;loss=difference")
    assert main(["train", "dqn", "--rules", "perudo"]) == 2
    assert main(["sweep", "--experiment", "fig4", "--quick", "--palifico"]) == 2
    errors = capsys.readouterr().err
    assert "the DQN learns today's rules only" in errors and "drop --rules" in errors
    assert "--experiment fig4 fixes its players, dice and rules: leave out --palifico" in errors


def test_gym_wrapper_plays_the_perudo_preset_with_the_exact_call_in_its_action_space():
    pytest.importorskip("gymnasium")
    from ldpomdp.envs import LiarsDiceGymEnv

    env = LiarsDiceGymEnv(["random", "one-third"], config=GameConfig.preset("perudo", num_players=3, dice=2))
    rng = np.random.default_rng(0)
    for episode in range(5):
        observation, info = env.reset(seed=episode)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            observation, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
    assert env.action_space.n == 6 * 6 + 2


def test_exact_call_pays_hand_worked():
    from ldpomdp.estimate import exact_call_pays

    likely = np.array([0.1, 0.8, 0.1])  # the others hold exactly the one matching die the bid needs: 0.8
    assert exact_call_pays(likely, 1, regains=True, challenges=False)  # +0.8 - 0.2 beats a raise (0)
    assert not exact_call_pays(likely, 1, regains=False, challenges=False)  # -0.2: no die to win back
    assert exact_call_pays(likely, 1, regains=False, challenges=True)  # -0.2 beats challenging, 0.1 - 0.9
    spread = np.array([0.5, 0.3, 0.2])
    assert not exact_call_pays(spread, 1, regains=True, challenges=True)  # -0.4 against 0.5 - 0.5
    assert not exact_call_pays(likely, 5, regains=True, challenges=True)  # more than the others hold: never right


def test_expected_count_makes_the_exact_call_under_perudo_and_wins_some():
    config = GameConfig.preset("perudo", dice=3)
    planner = make_player("expected-count:particles=2000")
    rng = np.random.default_rng(11)
    calls = right = 0
    for _ in range(12):
        record = play_game(config, [planner, make_player("one-third")], rng)
        calls += sum(r.exact and r.challenger == 0 for r in record.rounds)
        right += sum(r.exact and r.challenger == 0 and r.loser < 0 for r in record.rounds)
    assert calls > 0 and right > 0


@pytest.mark.parametrize("opener", OPENERS)
def test_loss_by_the_difference_in_a_game_can_end_a_seat_and_the_next_opener_follows(opener):
    config = GameConfig(num_players=3, dice=3, loss="difference", opener=opener)
    state = GameState(config, np.random.default_rng(0))
    hands = [(1, 0, 1, 1, 0, 0), (0, 0, 0, 0, 3, 0), (0, 3, 0, 0, 0, 0)]  # 2 dice match 3
    end = _Script(state, []).round(hands, [Bid(5, 3), CHALLENGE])[-1]  # seat 0 bid 3 too many
    assert end.loser == 0 and end.dice_after == (0, 3, 3)
    assert state.opener == (1 if opener == "loser" else 2)  # the loser is out: the next seat in opens
