"""Exact best response to hand-independent opponents: against a plain expectimax over every roll and bid
sequence (its value, and the exact value of following its actions), against real games played with its
player, its work figures and limits, and its errors."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable
from functools import cache

import numpy as np
import pytest

from ldpomdp.exact import FixedOpponentsSolution, HandDependentModelError, evaluate_player, solve_fixed_opponents
from ldpomdp.exact.against_models.solver import round_outcomes, solve_work
from ldpomdp.game import ActionTaken, PlayerView, PublicView, RoundStart, play_game
from ldpomdp.hands import count_hands
from ldpomdp.players import OneThirdRule, RandomPlayer
from ldpomdp.players.best_response import BestResponsePlayer
from ldpomdp.players.dummies import AggressivePlayer, ConservativePlayer
from ldpomdp.registry import make_player
from ldpomdp.round_end import next_active_seat, next_opener
from ldpomdp.rules import CHALLENGE, Bid, GameConfig, legal_actions, match_probability

# ---------------------------------------------------------------- brute force (independent of the solver)

Policy = Callable[[PlayerView], dict]  # the responder's view -> {action: probability}


def brute_force(config: GameConfig, models: dict, seat: int, opener: int, policy: Policy | None = None) -> float:
    """The responder's P(win the game) by expectimax over its rolls and full bid histories, with the other seats'
    joint rolls weighted by the prior times their models' ``action_probabilities`` on their actual hands: its best
    when ``policy`` is None, else following ``policy``. Values are summed over the joint rolls unnormalised (every
    action at a history shares the normaliser), the truth of a challenged bid counted roll by roll."""
    faces = config.faces
    for s, m in models.items():
        m.reset(s, config)

    def matching(hands: np.ndarray, face: int) -> np.ndarray:
        wild = config.wild is not None and face != config.wild
        return hands[..., face - 1] + (hands[..., config.wild - 1] if wild else 0)

    @cache
    def rolls(n: int) -> list[tuple[tuple[int, ...], float]]:
        counted = Counter(tuple(r.count(f) for f in range(1, faces + 1))
                          for r in itertools.product(range(1, faces + 1), repeat=n))
        return [(hand, k / faces**n) for hand, k in counted.items()]

    @cache
    def game(dice: tuple[int, ...], opener: int) -> float:
        if dice[seat] == 0:
            return 0.0
        if sum(d > 0 for d in dice) == 1:
            return 1.0
        others = [s for s in range(len(dice)) if s != seat]
        joint = list(itertools.product(*(rolls(dice[s]) for s in others)))
        hands = {s: np.array([j[i][0] for j in joint], dtype=np.int64) for i, s in enumerate(others)}
        prior = np.array([math.prod(p for _, p in j) for j in joint])
        return sum(p * node(dice, hand, hands, (), opener, prior) for hand, p in rolls(dice[seat]))

    @cache
    def asked(dice, history, actor, action) -> np.ndarray:  # the same for every responder hand: asked once
        others = [s for s in range(len(dice)) if s != seat]
        hands = np.array([j[others.index(actor)][0] for j in itertools.product(*(rolls(dice[s]) for s in others))])
        return models[actor].action_probabilities(hands, PublicView(config, actor, dice, history), action)

    def node(dice, hand, hands, history, actor, weight) -> float:
        bid = history[-1][1] if history else None
        actions = legal_actions(config, sum(dice), bid)
        chance = None
        if actor == seat and policy is not None:
            chance = policy(PlayerView(config, seat, dice, history, hand=hand))
            assert set(chance) <= set(actions) and math.isclose(sum(chance.values()), 1.0)
            actions = tuple(a for a in actions if chance.get(a, 0.0) > 0)
        values = []
        for a in actions:
            w = weight
            if actor != seat:
                w = weight * asked(dice, history, actor, a)
            if a is CHALLENGE:
                bidder = history[-1][0]
                table = matching(np.array(hand), bid.face) + sum(matching(h, bid.face) for h in hands.values())
                true = w @ (table >= bid.quantity)
                values.append(true * after(dice, actor, actor) + (w.sum() - true) * after(dice, bidder, actor))
            else:
                values.append(node(dice, hand, hands, history + ((actor, a),), next_active_seat(dice, actor), w))
        if actor != seat:
            return sum(values)
        if chance is not None:
            return sum(chance[a] * v for a, v in zip(actions, values, strict=True))
        return max(values)

    def after(dice, loser, challenger) -> float:
        left = tuple(d - (s == loser) for s, d in enumerate(dice))
        if left[seat] == 0 or sum(d > 0 for d in left) == 1:
            return game(left, 0)
        return game(left, next_opener(config, left, challenger, loser))

    return game(config.starting_dice, opener)


def following(solution) -> Policy:
    """The brute force's policy for a solution's deterministic actions."""
    return lambda view: {solution.action(view): 1.0}


CASES = {  # small enough for every bid history: 2^(bids) sequences at most
    "2p vs aggressive, 1 die": (GameConfig(num_players=2, dice=1), {1: AggressivePlayer()}, 0),
    "2p vs aggressive, 3 faces, 2 dice, seat 1": (
        GameConfig(num_players=2, dice=2, faces=3), {0: AggressivePlayer()}, 1),
    "2p vs random, 3 faces, loser opens": (
        GameConfig(num_players=2, dice=(2, 1), faces=3, opener="loser"), {1: RandomPlayer()}, 0),
    "3p random+aggressive, 3 faces, top face wild, seat 1": (
        GameConfig(num_players=3, dice=1, faces=3, wild=3), {0: RandomPlayer(), 2: AggressivePlayer()}, 1),
    "2p sixes vs random, no wild": (GameConfig(num_players=2, dice=(2, 3), bids="sixes", wild=None),
                                     {1: RandomPlayer()}, 0),
    "2p sixes vs aggressive, ones wild (the default sixes rules)": (
        GameConfig(num_players=2, dice=(2, 3), bids="sixes"), {1: AggressivePlayer()}, 0),
    "3p, 3 faces, loser keeps dice": (  # losers with 2 dice stay in: rounds with 3 seats after a loss
        GameConfig(num_players=3, dice=(2, 1, 1), faces=3), {1: RandomPlayer(), 2: AggressivePlayer()}, 0),
    "3p, 2 faces, no wild, loser keeps dice, seat 2": (
        GameConfig(num_players=3, dice=(1, 2, 1), faces=2, wild=None), {0: AggressivePlayer(), 1: RandomPlayer()}, 2),
    "3p, 3 faces, loser opens": (
        GameConfig(num_players=3, dice=(1, 2, 1), faces=3, opener="loser"),
        {1: AggressivePlayer(), 2: RandomPlayer()}, 0),
    # the sixes game against models deciding by their count of dice matching the bid face
    "2p sixes vs one-third": (GameConfig(num_players=2, dice=(2, 3), bids="sixes"), {1: OneThirdRule()}, 0),
    "2p sixes vs bluff 0.3, loser opens, seat 1": (
        GameConfig(num_players=2, dice=(3, 2), bids="sixes", opener="loser"), {0: OneThirdRule(0.3)}, 1),
    "2p sixes vs one-third, 4 faces, no wild": (
        GameConfig(num_players=2, dice=3, faces=4, wild=None, bids="sixes"), {1: OneThirdRule()}, 0),
    "3p sixes one-third + bluff 0.3": (
        GameConfig(num_players=3, dice=(2, 1, 2), bids="sixes"), {1: OneThirdRule(), 2: OneThirdRule(0.3)}, 0),
    "3p sixes, loser opens, seat 2, bluff 0.3 + random": (
        GameConfig(num_players=3, dice=(1, 2, 2), bids="sixes", opener="loser"),
        {0: OneThirdRule(0.3), 1: RandomPlayer()}, 2),
    "3p sixes, top face wild, one-third + aggressive, seat 1": (
        GameConfig(num_players=3, dice=(2, 1, 1), faces=4, wild=4, bids="sixes"),
        {0: OneThirdRule(), 2: AggressivePlayer()}, 1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_game_value_equals_brute_force(case):
    config, models, seat = CASES[case]
    solution = FixedOpponentsSolution(config, models, seat)
    for opener in range(config.num_players):
        assert solution.win_probability(opener=opener) == pytest.approx(
            brute_force(config, models, seat, opener), abs=1e-9)


def test_two_faces_with_a_wild_equals_brute_force():
    config, models = GameConfig(num_players=3, dice=(2, 1, 1), faces=2), {1: RandomPlayer(), 2: AggressivePlayer()}
    solution = FixedOpponentsSolution(config, models)
    assert solution.win_probability() == pytest.approx(brute_force(config, models, 0, 0), abs=1e-9)


@pytest.mark.parametrize("case", ["2p vs aggressive, 3 faces, 2 dice, seat 1", "3p, 3 faces, loser keeps dice"])
def test_following_the_actions_gives_the_value(case):
    config, models, seat = CASES[case]
    solution = FixedOpponentsSolution(config, models, seat)
    for opener in range(config.num_players):
        value = solution.win_probability(opener=opener)
        assert brute_force(config, models, seat, opener, following(solution)) == pytest.approx(value, abs=1e-9)
    reckless = brute_force(config, models, seat, 0,
                           lambda v: {CHALLENGE if v.bid is not None else solution.action(v): 1.0})
    assert reckless < solution.win_probability(opener=0) - 1e-3  # always challenging costs a visible share


def test_action_values_are_the_values_of_deviating_once():
    """Playing action a once, at one view, then optimally, loses P(reaching the view) * regret(view, a) exactly."""
    config, models, seat = CASES["2p vs aggressive, 3 faces, 2 dice, seat 1"]
    solution = FixedOpponentsSolution(config, models, seat)
    hand, reach_hand = (1, 1, 0), 2 / 9  # one 1 and one 2 of two 3-faced dice
    opening = PlayerView(config, seat, (2, 2), (), hand=hand)
    response = PlayerView(config, seat, (2, 2), ((0, Bid(1, 2)),), hand=hand)  # Aggressive opens 1x2 w.p. 1/3
    for view, opener, reach in ((opening, seat, reach_hand), (response, 0, reach_hand / 3)):
        best = brute_force(config, models, seat, opener)
        values = solution.action_values(view)
        assert list(values) == [a for a in view.legal_actions() if a is not CHALLENGE] + (
            [CHALLENGE] if view.bid is not None else [])
        assert solution.regret(view, solution.action(view)) == 0.0
        assert len({round(v, 9) for v in values.values()}) > 1  # actions differ: the check below can fail
        for action in values:
            once = brute_force(config, models, seat, opener, lambda v, a=action, at=view: {
                a if (v.history, v.hand, v.dice) == (at.history, at.hand, at.dice) else solution.action(v): 1.0})
            assert once - best == pytest.approx(-reach * solution.regret(view, action), abs=1e-12)
    with pytest.raises(ValueError, match="not a legal action"):
        solution.regret(response, Bid(1, 1))
    sixes = FixedOpponentsSolution(GameConfig(num_players=2, dice=2, bids="sixes"), {1: AggressivePlayer()})
    with pytest.raises(ValueError, match="action_values needs bids='full'"):
        sixes.action_values(PlayerView(sixes.config, 0, (2, 2), (), hand=(0, 0, 0, 0, 0, 2)))


def _given_the_bids(solution: FixedOpponentsSolution, opener: int, q: int, c0: int) -> float:
    """The responder's value in the sixes game's first round once ``q`` bids stand (opened by ``opener``) and it holds
    ``c0`` matching dice: the other seats' counts weighted by the prior times their models' probabilities of the
    raises they made, then the round walked count by count with the solver's decisions and the models' challenges."""
    config, seat, dice = solution.config, solution.seat, solution.config.starting_dice
    face, others, table = config.faces, [s for s in range(len(dice)) if s != seat], sum(dice)
    order = [(opener + i) % len(dice) for i in range(len(dice))]
    chain: list = []
    for i in range(table):
        (bid,) = [a for a in legal_actions(config, table, chain[-1][1] if chain else None) if isinstance(a, Bid)][:1]
        chain.append((order[i % len(order)], bid))
    outcome = round_outcomes(config, seat, dice, lambda after, o: solution.win_probability(after, o))
    solved, match = solution.round(dice), match_probability(config, face)

    def p(actor: int, at: int, action, count: int) -> float:  # the model's probability, by its count
        hand = count_hands(dice[actor], face, config)[count]
        view = PublicView(config, actor, dice, tuple(chain[:at]))
        return float(solution.models[actor].action_probabilities(np.array([hand]), view, action)[0])

    def walk(at: int, counts: dict[int, int]) -> float:
        actor = order[at % len(order)]
        if at == 0:
            return walk(1, counts)
        true = c0 + sum(counts.values()) >= at  # the standing bid is `at` dice matching the face
        stop = outcome[(actor if true else chain[at - 1][0], actor)]
        go = walk(at + 1, counts) if at < table else 0.0
        chance = solved.challenge[opener][at, c0] if actor == seat else p(actor, at, CHALLENGE, counts[actor])
        return chance * stop + (1 - chance) * go

    total = weight = 0.0
    for joint in itertools.product(*(range(dice[k] + 1) for k in others)):
        counts = dict(zip(others, joint, strict=True))
        w = math.prod(math.comb(dice[k], c) * match**c * (1 - match) ** (dice[k] - c) for k, c in counts.items())
        for at in range(1, q):
            actor = order[at % len(order)]
            w *= 1.0 if actor == seat else p(actor, at, chain[at][1], counts[actor])
        total, weight = total + w * walk(q, counts), weight + w
    return total / weight if weight > 0 else math.nan


@pytest.mark.parametrize("case", ["2p sixes vs bluff 0.3, loser opens, seat 1", "3p sixes one-third + bluff 0.3"])
def test_count_round_values_are_the_values_given_the_bids_reached(case):
    """``CountRound.values[o][q, c0]``: the value once q bids stand, normalised by the chance the models reach them."""
    config, models, seat = CASES[case]
    solution = FixedOpponentsSolution(config, models, seat)
    values, dice = solution.round(config.starting_dice).values, config.starting_dice
    checked = 0
    for opener in range(config.num_players):
        for q in range(sum(dice) + 1):
            turn = (opener + q) % config.num_players == seat  # every seat has dice: turns go round
            for c0 in range(dice[seat] + 1):
                expected = _given_the_bids(solution, opener, q, c0) if turn else math.nan
                if math.isnan(expected):
                    assert math.isnan(values[opener][q, c0])
                else:
                    assert values[opener][q, c0] == pytest.approx(expected, abs=1e-6)  # stored as float32
                    checked += 1
    assert checked > 10


def test_one_third_rule_is_below_the_value_exactly():
    config, models, seat = CASES["3p, 3 faces, loser keeps dice"]
    solution = FixedOpponentsSolution(config, models, seat)
    rule, rng = OneThirdRule(), np.random.default_rng(0)  # no bluff: deterministic, rng unused
    rule.reset(seat, config)
    for opener in range(config.num_players):
        one_third = brute_force(config, models, seat, opener, lambda v: {rule.act(v, rng): 1.0})
        assert 0.0 < one_third < solution.win_probability(opener=opener) - 1e-3


def test_one_die_each_against_one_third_is_even():
    solution = solve_fixed_opponents(GameConfig(num_players=2, dice=1, bids="sixes"), {1: OneThirdRule()})
    assert solution.win_probability(opener=0) == pytest.approx(4 / 9, abs=1e-12)  # derived by hand
    assert solution.win_probability(opener=1) == pytest.approx(5 / 9, abs=1e-12)


def _model_policy(rule: OneThirdRule) -> Policy:
    """The brute force's policy for a model at the responder's seat: its own action probabilities."""
    return lambda view: {a: float(rule.action_probabilities(np.array([view.hand]), view.public(), a)[0])
                         for a in view.legal_actions()}


def _replayed(spec: str) -> Policy:
    """The brute force's policy for a deterministic player: a fresh one is told the round's events so far, then
    asked to act."""
    def policy(view: PlayerView) -> dict:
        player = make_player(spec)
        player.reset(view.seat, view.config)
        player.observe(RoundStart(0, view.dice, view.history[0][0] if view.history else view.seat))
        for i, (s, a) in enumerate(view.history):
            player.observe(ActionTaken(s, a, PublicView(view.config, s, view.dice, view.history[:i])))
        return {player.act(view, np.random.default_rng(0)): 1.0}
    return policy


@pytest.mark.parametrize("case, spec", [
    ("2p sixes vs one-third", "one-third"),
    ("3p sixes one-third + bluff 0.3", "bluff:0.4"),
    ("2p sixes vs bluff 0.3, loser opens, seat 1", "expected-count:belief=exact,assume=bluff:0.3"),
    ("3p sixes one-third + bluff 0.3", "expected-count:belief=exact"),  # assumes one-third where seat 2 bluffs
])
def test_evaluated_player_equals_brute_force(case, spec):
    config, models, seat = CASES[case]
    player = make_player(spec)
    policy = _model_policy(player) if hasattr(player, "action_probabilities") else _replayed(spec)
    evaluation = evaluate_player(config, models, player, seat)
    best = FixedOpponentsSolution(config, models, seat)
    for opener in range(config.num_players):
        value = evaluation.win_probability(opener=opener)
        assert value == pytest.approx(brute_force(config, models, seat, opener, policy), abs=1e-9)
        assert value <= best.win_probability(opener=opener) + 1e-12


class _PeeksAtFaceTwo(OneThirdRule):
    """Challenges by the one-third rule unless it holds a two: acts on more than its count."""

    def act(self, view, rng):
        return CHALLENGE if view.bid is not None and view.hand[1] == 0 else super().act(view, rng)

    action_probabilities = None  # evaluated through act
    deterministic = True


def test_evaluation_refuses_what_it_cannot_follow():
    config = GameConfig(num_players=2, dice=2, bids="sixes")
    with pytest.raises(ValueError, match="acts on more of its hand than its count"):
        evaluate_player(config, {1: OneThirdRule()}, _PeeksAtFaceTwo())
    with pytest.raises(ValueError, match="does not declare deterministic"):
        evaluate_player(config, {1: OneThirdRule()}, make_player("expected-count"))  # particles: random
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.policy.*sixes game only"):
        evaluate_player(GameConfig(num_players=2, dice=1), {1: RandomPlayer()}, OneThirdRule())


# ---------------------------------------------------------------- played games

def win_rate(config: GameConfig, player: object, models: dict, games: int, seed: int) -> float:
    """The responder's (seat 0) share of wins over ``games`` games, openers rotated."""
    rng = np.random.default_rng(seed)
    seated = [player, *(models[s] for s in range(1, config.num_players))]
    wins = sum(play_game(config, seated, rng, first_opener=g % config.num_players).winner == 0 for g in range(games))
    return wins / games


MC_CONFIG = GameConfig(num_players=3, dice=(1, 2, 2))  # the responder starts a die short: it loses often
MC_GAMES = 3000


def test_played_games_match_the_value():
    models = {1: AggressivePlayer(), 2: RandomPlayer()}
    solution = solve_fixed_opponents(MC_CONFIG, models)
    value = np.mean([solution.win_probability(opener=o) for o in range(3)])
    assert 0.2 < value < 0.9  # a real check: the responder loses a fair share of games
    rate = win_rate(MC_CONFIG, BestResponsePlayer(solution), models, MC_GAMES, seed=11)
    assert abs(rate - value) <= 4 * math.sqrt(value * (1 - value) / MC_GAMES)


SIXES_MC = GameConfig(num_players=3, dice=(2, 3, 3), bids="sixes")  # the responder starts a die short


def test_played_games_match_the_value_against_count_based_models():
    models = {1: OneThirdRule(0.3), 2: OneThirdRule()}
    solution = solve_fixed_opponents(SIXES_MC, models)
    value = np.mean([solution.win_probability(opener=o) for o in range(3)])
    assert 0.2 < value < 0.9
    rate = win_rate(SIXES_MC, BestResponsePlayer(solution), models, MC_GAMES, seed=12)
    assert abs(rate - value) <= 4 * math.sqrt(value * (1 - value) / MC_GAMES)


def test_spec_player_solves_once_per_table():
    player = make_player("best-response:assume=bluff:0.3")
    config = GameConfig(num_players=2, dice=3, bids="sixes")
    player.reset(1, config)
    expected = solve_fixed_opponents(config, {0: OneThirdRule(0.3)}, 1)
    assert player.solution.win_probability(opener=0) == pytest.approx(expected.win_probability(opener=0), abs=1e-15)
    again = make_player("best-response:assume=bluff:0.3")
    again.reset(1, config)
    assert again.solution is player.solution  # cached for the process
    assert player.name == "best-response:assume=bluff:0.3" and make_player("best-response").name == "best-response"
    rng = np.random.default_rng(0)
    record = play_game(config, [OneThirdRule(0.3), player], rng)
    assert record.winner in (0, 1)


def test_player_checks_its_seat():
    solution = FixedOpponentsSolution(GameConfig(num_players=2, dice=1), {1: RandomPlayer()})
    with pytest.raises(ValueError, match="seat 0"):
        BestResponsePlayer(solution).reset(1, solution.config)


# ---------------------------------------------------------------- work figures and limits

class _Counting(RandomPlayer):
    """Random, counting its ``shared_probability`` calls."""

    calls = 0

    def shared_probability(self, view: PublicView, action: object) -> float:
        type(self).calls += 1
        return super().shared_probability(view, action)


def test_model_calls_figure_is_exact_in_the_full_game():
    config = GameConfig(num_players=3, dice=(2, 1, 2), faces=4)
    _Counting.calls = 0
    solve_fixed_opponents(config, {0: _Counting(), 2: _Counting()}, seat=1)
    work = solve_work(config, 1)
    assert _Counting.calls == work.model_calls and work.states == 3 * 3 - 1  # seat 1 holds its die, not both others out


def test_model_calls_figure_is_exact_in_the_sixes_game():
    config = GameConfig(num_players=3, dice=(2, 1, 3), bids="sixes")
    _Counting.calls = 0
    solve_fixed_opponents(config, {0: _Counting(), 2: _Counting()}, seat=1)
    assert _Counting.calls == solve_work(config, 1).model_calls


@pytest.mark.parametrize("dice, bids, limit", [
    ((5,) * 8, "full", "MAX_DICE_STATES"), ((2, 100), "full", "MAX_MODEL_CALLS"), ((40, 1), "full", "MAX_TABLE_CELLS"),
    ((7, 43), "full", "MAX_BACKUP_STEPS"), ((35, 35, 35), "sixes", "MAX_TABLE_CELLS")])
def test_each_limit_is_named(dice, bids, limit):
    config = GameConfig(num_players=len(dice), dice=dice, bids=bids)
    with pytest.raises(ValueError, match=f"FixedOpponentsSolution.*{limit}"):
        FixedOpponentsSolution(config, {s: RandomPlayer() for s in range(1, len(dice))})


def test_the_benchmark_is_well_inside_the_limits():
    from ldpomdp.exact.against_models import solver as fo
    work = solve_work(GameConfig(num_players=3, dice=5), 0)
    assert (work.model_calls * 10 < fo.MAX_MODEL_CALLS and work.table_cells * 10 < fo.MAX_TABLE_CELLS
            and work.backup_steps * 10 < fo.MAX_BACKUP_STEPS)


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("model, name, bids, says", [
    (ConservativePlayer(), "conservative", "full", "hand-independent"),
    (OneThirdRule(), "one-third", "full", "solved in the sixes game"),
    (ConservativePlayer(), "conservative", "sixes", "decide by that count")])
def test_hand_dependent_model_is_named(model, name, bids, says):
    solution = FixedOpponentsSolution(GameConfig(num_players=2, dice=1, bids=bids), {1: model})
    with pytest.raises(HandDependentModelError, match=f"{name}.*hand.*{says}"):
        solution.win_probability(opener=1)


class _Leaky(RandomPlayer):
    """Says 0.3 for every legal action: sums to one only by chance."""

    name = "leaky"

    def shared_probability(self, view: PublicView, action: object) -> float:
        return 0.3


@pytest.mark.parametrize("bids", ["full", "sixes"])
def test_probabilities_not_summing_to_one_are_named(bids):
    solution = FixedOpponentsSolution(GameConfig(num_players=2, dice=1, bids=bids), {1: _Leaky()})
    with pytest.raises(ValueError, match="leaky.*sum") as err:
        solution.win_probability()
    assert not isinstance(err.value, HandDependentModelError)


def test_bad_arguments():
    config = GameConfig(num_players=3, dice=1)
    models = {1: RandomPlayer(), 2: RandomPlayer()}
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.models must map every other seat"):
        FixedOpponentsSolution(config, {1: RandomPlayer()})
    for seat in (3, -1, True, 0.0):
        with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.seat must be"):
            FixedOpponentsSolution(config, {0: RandomPlayer(), 1: RandomPlayer()}, seat=seat)
    assert FixedOpponentsSolution(config, {0: RandomPlayer(), 2: RandomPlayer()}, seat=np.int64(1)).seat == 1
    solution = FixedOpponentsSolution(config, models)
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.opener must be a seat with dice"):
        solution.win_probability((1, 0, 1), opener=1)
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.opener must be"):
        solution.win_probability(opener=False)
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.dice must not exceed the starting dice"):
        solution.win_probability((2, 1, 1))
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.dice must list 3"):
        solution.win_probability((1, 1))
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.dice must be an integer >= 0"):
        solution.win_probability((1, -1, 1))
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.dice must not exceed"):
        solution.action(PlayerView(config, 0, (2, 1, 1), hand=(2, 0, 0, 0, 0, 0)))
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.dice must leave seat 0 and another seat"):
        solution.action(PlayerView(config, 0, (1, 0, 0), hand=(1, 0, 0, 0, 0, 0)))
    assert solution.win_probability((0, 1, 1)) == 0.0 and solution.win_probability((1, 0, 0)) == 1.0
